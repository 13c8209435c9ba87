//===- Elementwise.cpp - Binary/Cmp/Unary/Scalar/Cast/select/constant -----===//
//
// Every elementwise op becomes one parallel linalg.generic whose indexing
// maps implement numpy broadcasting. Narrow floats (f8, bf16, f16) are
// computed in f32 inside the body; unsigned dtypes pick the unsigned arith
// ops (the tensors themselves are signless after the conversion).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include <numbers>

using namespace mlir;

namespace hodu::lowering {
namespace {

/// What a scalar body sees: the op, the kind of its (first) input and the
/// type the arguments were widened to.
struct ScalarCtx {
  Operation *op;
  Kind kind;
  Type computeType;
};
using ScalarFn =
    std::function<Value(OpBuilder &, Location, const ScalarCtx &, ValueRange)>;

/// Lowers any elementwise hodu op (operands broadcast, optional `scalar`
/// attribute) through a scalar body.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &tc, MLIRContext *ctx,
                      StringRef opName, ScalarFn fn, bool widenArgs = true)
      : ConversionPattern(tc, opName, 1, ctx), fn(std::move(fn)),
        widenArgs(widenArgs) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStatic(op, rewriter)))
      return failure();
    auto resultType = convertedType(*getTypeConverter(), op->getResultTypes()[0]);
    Kind kind = kindOf(op->getOperand(0).getType());
    Type storage = cast<RankedTensorType>(operands[0].getType()).getElementType();
    Type compute = widenArgs && isNarrowFloat(storage)
                       ? Type(rewriter.getF32Type())
                       : storage;
    ScalarCtx sc{op, kind, compute};
    Type resElt = resultType.getElementType();
    Value r = buildElementwise(
        rewriter, op->getLoc(), resultType, operands,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> wide;
          for (Value a : args)
            wide.push_back(widenArgs ? widen(b, loc, a) : a);
          Value v = fn(b, loc, sc, wide);
          return narrow(b, loc, v, resElt);
        });
    rewriter.replaceOp(op, r);
    return success();
  }

  ScalarFn fn;
  bool widenArgs;
};

//===----------------------------------------------------------------------===//
// Scalar bodies
//===----------------------------------------------------------------------===//

Value scalarOperand(OpBuilder &b, Location loc, const ScalarCtx &sc) {
  auto attr = sc.op->getAttrOfType<TypedAttr>("scalar");
  return constFromAttr(b, loc, attr, sc.computeType);
}

Value fc(OpBuilder &b, Location loc, const ScalarCtx &sc, double v) {
  return constNumber(b, loc, sc.computeType, v);
}

/// x^y for integers, exact and wrapping like repeated multiplication:
/// square-and-multiply over every bit of y, unrolled (no loop, no f64,
/// which Metal lacks; a constant exponent folds to its multiplies). A
/// negative exponent gives the integer part of 1/x^|y|: 1 for x = 1, +-1
/// for x = -1, else 0.
Value integerPow(OpBuilder &b, Location loc, Kind k, Value x, Value y) {
  Type t = x.getType();
  unsigned width = t.getIntOrFloatBitWidth();
  auto c = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v))
        .getResult();
  };
  Value one = c(1), zero = c(0);
  Value result = one, base = x;
  for (unsigned i = 0; i < width; ++i) {
    Value bit = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, y, c(i)), one);
    Value set =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit, zero);
    result = arith::SelectOp::create(
        b, loc, set, arith::MulIOp::create(b, loc, result, base), result);
    if (i + 1 < width)
      base = arith::MulIOp::create(b, loc, base, base);
  }
  if (k != Kind::Signed || width < 2)
    return result;
  Value minusOne = c(-1);
  Value odd =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                            arith::AndIOp::create(b, loc, y, one), zero);
  Value isOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, one);
  Value isMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, minusOne);
  Value negative = arith::SelectOp::create(
      b, loc, isOne, one,
      arith::SelectOp::create(
          b, loc, isMinusOne,
          arith::SelectOp::create(b, loc, odd, minusOne, one), zero));
  Value isNegative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero);
  return arith::SelectOp::create(b, loc, isNegative, negative, result);
}

Value binaryArith(StringRef what, OpBuilder &b, Location loc,
                  const ScalarCtx &sc, Value x, Value y) {
  Kind k = sc.kind;
  bool f = k == Kind::Float;
  if (what == "add")
    return emitAdd(b, loc, x, y);
  if (what == "sub")
    return f ? Value(arith::SubFOp::create(b, loc, x, y))
             : Value(arith::SubIOp::create(b, loc, x, y));
  if (what == "mul")
    return emitMul(b, loc, x, y);
  if (what == "div") {
    if (f)
      return arith::DivFOp::create(b, loc, x, y);
    return k == Kind::Signed ? Value(arith::DivSIOp::create(b, loc, x, y))
                             : Value(arith::DivUIOp::create(b, loc, x, y));
  }
  if (what == "rem") {
    if (f)
      return arith::RemFOp::create(b, loc, x, y);
    return k == Kind::Signed ? Value(arith::RemSIOp::create(b, loc, x, y))
                             : Value(arith::RemUIOp::create(b, loc, x, y));
  }
  if (what == "pow") {
    if (f) {
      // Constant exponents whose power is one correctly rounded operation
      // (as powf's result is): x^2 = x*x, x^1 = x, x^-1 = 1/x, x^0 = 1.
      // Squares are common (magnitudes, variances) and powf costs an exp
      // and a log per element.
      FloatAttr e;
      if (matchPattern(y, m_Constant(&e))) {
        double v = e.getValueAsDouble();
        if (v == 2.0)
          return arith::MulFOp::create(b, loc, x, x);
        if (v == 1.0)
          return x;
        if (v == -1.0)
          return arith::DivFOp::create(
              b, loc, arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), 1.0)), x);
        if (v == 0.0)
          return arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), 1.0));
      }
      return math::PowFOp::create(b, loc, x, y);
    }
    return integerPow(b, loc, k, x, y);
  }
  if (what == "maximum")
    return emitMax(b, loc, k, x, y);
  if (what == "minimum")
    return emitMin(b, loc, k, x, y);
  llvm_unreachable("unknown binary op");
}

Value compare(StringRef what, OpBuilder &b, Location loc, Kind k, Value x,
              Value y) {
  if (k == Kind::Float) {
    auto p = llvm::StringSwitch<arith::CmpFPredicate>(what)
                 .Case("eq", arith::CmpFPredicate::OEQ)
                 .Case("ne", arith::CmpFPredicate::UNE)
                 .Case("lt", arith::CmpFPredicate::OLT)
                 .Case("le", arith::CmpFPredicate::OLE)
                 .Case("gt", arith::CmpFPredicate::OGT)
                 .Default(arith::CmpFPredicate::OGE);
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  bool s = k == Kind::Signed;
  auto p = llvm::StringSwitch<arith::CmpIPredicate>(what)
               .Case("eq", arith::CmpIPredicate::eq)
               .Case("ne", arith::CmpIPredicate::ne)
               .Case("lt", s ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult)
               .Case("le", s ? arith::CmpIPredicate::sle : arith::CmpIPredicate::ule)
               .Case("gt", s ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt)
               .Default(s ? arith::CmpIPredicate::sge : arith::CmpIPredicate::uge);
  return arith::CmpIOp::create(b, loc, p, x, y);
}

Value sigmoid(OpBuilder &b, Location loc, const ScalarCtx &sc, Value x) {
  Value negx = arith::NegFOp::create(b, loc, x);
  Value e = math::ExpOp::create(b, loc, negx);
  Value d = arith::AddFOp::create(b, loc, fc(b, loc, sc, 1.0), e);
  return arith::DivFOp::create(b, loc, fc(b, loc, sc, 1.0), d);
}

Value hardSigmoid(OpBuilder &b, Location loc, const ScalarCtx &sc, Value x) {
  Value v = arith::MulFOp::create(b, loc, x, fc(b, loc, sc, 1.0 / 6.0));
  v = arith::AddFOp::create(b, loc, v, fc(b, loc, sc, 0.5));
  v = arith::MaximumFOp::create(b, loc, v, fc(b, loc, sc, 0.0));
  return arith::MinimumFOp::create(b, loc, v, fc(b, loc, sc, 1.0));
}

Value softplus(OpBuilder &b, Location loc, const ScalarCtx &sc, Value x) {
  Value e = math::ExpOp::create(b, loc, x);
  return math::LogOp::create(b, loc,
                             arith::AddFOp::create(b, loc, e, fc(b, loc, sc, 1.0)));
}

/// `x < 0 ? neg : x` for floats.
Value negativeBranch(OpBuilder &b, Location loc, const ScalarCtx &sc, Value x,
                     Value neg) {
  Value isNeg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      fc(b, loc, sc, 0.0));
  return arith::SelectOp::create(b, loc, isNeg, neg, x);
}

Value unaryFloat(StringRef what, OpBuilder &b, Location loc,
                 const ScalarCtx &sc, Value x) {
  auto one = [&] { return fc(b, loc, sc, 1.0); };
  if (what == "softsign") {
    Value a = math::AbsFOp::create(b, loc, x);
    return arith::DivFOp::create(b, loc, x,
                                 arith::AddFOp::create(b, loc, one(), a));
  }
  if (what == "sqrt")
    return math::SqrtOp::create(b, loc, x);
  if (what == "recip")
    return arith::DivFOp::create(b, loc, one(), x);
  if (what == "sigmoid")
    return sigmoid(b, loc, sc, x);
  if (what == "hardsigmoid")
    return hardSigmoid(b, loc, sc, x);
  if (what == "gelu") {
    Value s = arith::MulFOp::create(b, loc, x, fc(b, loc, sc, M_SQRT1_2));
    Value e = math::ErfOp::create(b, loc, s);
    Value t = arith::AddFOp::create(b, loc, one(), e);
    Value h = arith::MulFOp::create(b, loc, x, fc(b, loc, sc, 0.5));
    return arith::MulFOp::create(b, loc, h, t);
  }
  if (what == "softplus")
    return softplus(b, loc, sc, x);
  if (what == "silu")
    return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, sc, x));
  if (what == "hardsilu")
    return arith::MulFOp::create(b, loc, x, hardSigmoid(b, loc, sc, x));
  if (what == "mish") {
    Value t = math::TanhOp::create(b, loc, softplus(b, loc, sc, x));
    return arith::MulFOp::create(b, loc, x, t);
  }
  if (what == "selu") {
    Value e = arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x), one());
    Value neg = arith::MulFOp::create(b, loc, e, fc(b, loc, sc, 1.6732632423543772));
    Value isPos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                        fc(b, loc, sc, 0.0));
    Value v = arith::SelectOp::create(b, loc, isPos, x, neg);
    return arith::MulFOp::create(b, loc, v, fc(b, loc, sc, 1.0507009873554805));
  }
  if (what == "celu") {
    Value e = arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x), one());
    Value lo = arith::MinimumFOp::create(b, loc, fc(b, loc, sc, 0.0), e);
    Value hi = arith::MaximumFOp::create(b, loc, fc(b, loc, sc, 0.0), x);
    return arith::AddFOp::create(b, loc, hi, lo);
  }
  if (what == "sin") return math::SinOp::create(b, loc, x);
  if (what == "cos") return math::CosOp::create(b, loc, x);
  if (what == "tan") return math::TanOp::create(b, loc, x);
  if (what == "asin") return math::AsinOp::create(b, loc, x);
  if (what == "acos") return math::AcosOp::create(b, loc, x);
  if (what == "atan") return math::AtanOp::create(b, loc, x);
  if (what == "sinh") return math::SinhOp::create(b, loc, x);
  if (what == "cosh") return math::CoshOp::create(b, loc, x);
  if (what == "tanh") return math::TanhOp::create(b, loc, x);
  if (what == "asinh") return math::AsinhOp::create(b, loc, x);
  if (what == "acosh") return math::AcoshOp::create(b, loc, x);
  if (what == "atanh") return math::AtanhOp::create(b, loc, x);
  if (what == "exp") return math::ExpOp::create(b, loc, x);
  if (what == "exp2") return math::Exp2Op::create(b, loc, x);
  if (what == "exp10")
    return math::PowFOp::create(b, loc, fc(b, loc, sc, 10.0), x);
  if (what == "ln") return math::LogOp::create(b, loc, x);
  if (what == "log2") return math::Log2Op::create(b, loc, x);
  if (what == "log10") return math::Log10Op::create(b, loc, x);
  if (what == "ceil") return math::CeilOp::create(b, loc, x);
  if (what == "floor") return math::FloorOp::create(b, loc, x);
  if (what == "round") return math::RoundEvenOp::create(b, loc, x);
  if (what == "erf") return math::ErfOp::create(b, loc, x);
  llvm_unreachable("unknown float unary op");
}

/// Unary ops valid on every numeric kind.
Value unaryNumeric(StringRef what, OpBuilder &b, Location loc,
                   const ScalarCtx &sc, Value x) {
  Kind k = sc.kind;
  bool f = k == Kind::Float;
  Value zero = fc(b, loc, sc, 0.0);
  if (what == "neg")
    return f ? Value(arith::NegFOp::create(b, loc, x))
             : Value(arith::SubIOp::create(b, loc, zero, x));
  if (what == "abs") {
    if (f)
      return math::AbsFOp::create(b, loc, x);
    // max(x, 0 - x), not math.absi, which the NVVM conversion leaves
    // unconverted (INT_MIN stays INT_MIN either way).
    if (k != Kind::Signed)
      return x;
    return arith::MaxSIOp::create(b, loc, x,
                                  arith::SubIOp::create(b, loc, zero, x));
  }
  if (what == "square")
    return emitMul(b, loc, x, x);
  if (what == "relu") {
    if (f)
      return arith::MaximumFOp::create(b, loc, x, zero);
    return k == Kind::Signed ? Value(arith::MaxSIOp::create(b, loc, x, zero)) : x;
  }
  if (what == "sign") {
    Value one = fc(b, loc, sc, 1.0);
    if (k == Kind::Unsigned) {
      Value nz = isNonZero(b, loc, x);
      return arith::SelectOp::create(b, loc, nz, one, zero);
    }
    Value minusOne = fc(b, loc, sc, -1.0);
    Value gt = compare("gt", b, loc, k, x, zero);
    Value lt = compare("lt", b, loc, k, x, zero);
    // Zero and NaN map to themselves.
    Value r = arith::SelectOp::create(b, loc, lt, minusOne, x);
    return arith::SelectOp::create(b, loc, gt, one, r);
  }
  llvm_unreachable("unknown numeric unary op");
}

//===----------------------------------------------------------------------===//
// Cast, select, constant
//===----------------------------------------------------------------------===//

struct CastLowering : StaticPattern<CastOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(CastOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    auto resultType = this->resultType(op);
    Kind from = kindOf(op.getInput().getType());
    Kind to = kindOf(op.getType());
    if (adaptor.getInput().getType() == resultType) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Value r = buildElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getInput(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return convertScalar(b, loc, args[0], from,
                               resultType.getElementType(), to);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SelectLowering : StaticPattern<SelectOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(SelectOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    auto resultType = this->resultType(op);
    Value r = buildElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Splat constants of more bytes than this are filled at run time.
constexpr int64_t kLargeSplatBytes = int64_t(1) << 20;

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertedType(*getTypeConverter(), op.getType());
    ElementsAttr value = op.getValue();
    // A large splat (ConstantOfShape of a big shape) is a fill at run time,
    // not a global of its every element: a 4 TiB splat from a stranger's
    // model made the LLVM translation allocate it and abort.
    if (auto dense = dyn_cast<DenseElementsAttr>(value);
        dense && dense.isSplat() && type.hasStaticShape() &&
        type.getNumElements() *
                std::max<int64_t>(1, type.getElementTypeBitWidth() / 8) >
            kLargeSplatBytes) {
      Location loc = op.getLoc();
      Attribute scalar = dense.getSplatValue<Attribute>();
      Type elt = type.getElementType();
      TypedAttr typed;
      if (auto f = dyn_cast<FloatAttr>(scalar))
        typed = FloatAttr::get(elt, f.getValue());
      else if (auto i = dyn_cast<IntegerAttr>(scalar))
        typed = IntegerAttr::get(elt, i.getValue());
      if (typed) {
        Value init =
            tensor::EmptyOp::create(rewriter, loc, type.getShape(), elt);
        Value fill = arith::ConstantOp::create(rewriter, loc, typed);
        rewriter.replaceOpWithNewOp<linalg::FillOp>(op, fill, init);
        return success();
      }
    }
    TypedAttr newValue;
    if (value.getType() == type) {
      newValue = cast<TypedAttr>(value);
    } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      // Same bit width, signless element type: a reinterpretation.
      newValue = dense.bitcast(type.getElementType());
    } else if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
      newValue = DenseResourceElementsAttr::get(type, res.getRawHandle());
    } else {
      return rewriter.notifyMatchFailure(op, "unsupported constant attribute");
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, newValue);
    return success();
  }
};

} // namespace

Value emitCompare(OpBuilder &b, Location loc, Kind k, StringRef what, Value x,
                  Value y) {
  return compare(what, b, loc, k, x, y);
}

void populateElementwisePatterns(TypeConverter &tc,
                                 RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  auto add = [&](StringRef name, ScalarFn fn, bool widenArgs = true) {
    patterns.add<ElementwiseLowering>(tc, ctx, ("hodu." + name).str(),
                                      std::move(fn), widenArgs);
  };
  for (StringRef what :
       {"add", "sub", "mul", "div", "rem", "pow", "maximum", "minimum"}) {
    std::string w = what.str();
    add(w, [w](OpBuilder &b, Location loc, const ScalarCtx &sc, ValueRange a) {
      return binaryArith(w, b, loc, sc, a[0], a[1]);
    });
    add(w + "_scalar",
        [w](OpBuilder &b, Location loc, const ScalarCtx &sc, ValueRange a) {
          return binaryArith(w, b, loc, sc, a[0], scalarOperand(b, loc, sc));
        });
  }
  for (StringRef what : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    std::string w = what.str();
    add(w, [w](OpBuilder &b, Location loc, const ScalarCtx &sc, ValueRange a) {
      return compare(w, b, loc, sc.kind, a[0], a[1]);
    });
    add(w + "_scalar",
        [w](OpBuilder &b, Location loc, const ScalarCtx &sc, ValueRange a) {
          return compare(w, b, loc, sc.kind, a[0], scalarOperand(b, loc, sc));
        });
  }
  add("logical_and", [](OpBuilder &b, Location loc, const ScalarCtx &, ValueRange a) {
    return arith::AndIOp::create(b, loc, isNonZero(b, loc, a[0]), isNonZero(b, loc, a[1]));
  });
  add("logical_or", [](OpBuilder &b, Location loc, const ScalarCtx &, ValueRange a) {
    return arith::OrIOp::create(b, loc, isNonZero(b, loc, a[0]), isNonZero(b, loc, a[1]));
  });
  add("logical_xor", [](OpBuilder &b, Location loc, const ScalarCtx &, ValueRange a) {
    return arith::XOrIOp::create(b, loc, isNonZero(b, loc, a[0]), isNonZero(b, loc, a[1]));
  });
  add("logical_not", [](OpBuilder &b, Location loc, const ScalarCtx &, ValueRange a) {
    Value nz = isNonZero(b, loc, a[0]);
    return arith::XOrIOp::create(b, loc, nz, constInt(b, loc, b.getI1Type(), 1));
  });
  add("isnan", [](OpBuilder &b, Location loc, const ScalarCtx &, ValueRange a) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a[0], a[0]);
  });
  add("isinf", [](OpBuilder &b, Location loc, const ScalarCtx &sc, ValueRange a) {
    Value abs = math::AbsFOp::create(b, loc, a[0]);
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, abs,
                                 highestValue(b, loc, sc.computeType, Kind::Float));
  });
  add("isfinite", [](OpBuilder &b, Location loc, const ScalarCtx &sc, ValueRange a) {
    Value abs = math::AbsFOp::create(b, loc, a[0]);
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, abs,
                                 highestValue(b, loc, sc.computeType, Kind::Float));
  });
  // Scalar activations.
  add("leaky_relu", [](OpBuilder &b, Location loc, const ScalarCtx &sc, ValueRange a) {
    Value neg = arith::MulFOp::create(b, loc, a[0], scalarOperand(b, loc, sc));
    return negativeBranch(b, loc, sc, a[0], neg);
  });
  add("prelu", [](OpBuilder &b, Location loc, const ScalarCtx &sc, ValueRange a) {
    Value neg = arith::MulFOp::create(b, loc, a[0], scalarOperand(b, loc, sc));
    return negativeBranch(b, loc, sc, a[0], neg);
  });
  add("elu", [](OpBuilder &b, Location loc, const ScalarCtx &sc, ValueRange a) {
    Value e = arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, a[0]),
                                    fc(b, loc, sc, 1.0));
    Value neg = arith::MulFOp::create(b, loc, e, scalarOperand(b, loc, sc));
    return negativeBranch(b, loc, sc, a[0], neg);
  });
  for (StringRef what : {"neg", "abs", "square", "relu", "sign"}) {
    std::string w = what.str();
    add(w, [w](OpBuilder &b, Location loc, const ScalarCtx &sc, ValueRange a) {
      return unaryNumeric(w, b, loc, sc, a[0]);
    });
  }
  for (StringRef what :
       {"softsign", "sqrt", "recip", "sigmoid", "hardsigmoid", "gelu",
        "softplus", "silu", "hardsilu", "mish", "selu", "celu", "sin", "cos",
        "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
        "acosh", "atanh", "exp", "exp2", "exp10", "ln", "log2", "log10",
        "ceil", "floor", "round", "erf"}) {
    std::string w = what.str();
    add(w, [w](OpBuilder &b, Location loc, const ScalarCtx &sc, ValueRange a) {
      return unaryFloat(w, b, loc, sc, a[0]);
    });
  }
  patterns.add<CastLowering, SelectLowering, ConstantLowering>(tc, ctx);
}

} // namespace hodu::lowering
