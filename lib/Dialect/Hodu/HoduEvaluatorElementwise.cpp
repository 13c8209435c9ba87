//===- HoduEvaluatorElementwise.cpp - elementwise hodu ops on constants ---===//
//
// What the evaluator computes for the elementwise families (Unary,
// UnaryScalar, Binary with numpy broadcasting, Cmp, CmpScalar,
// BinaryLogical, UnaryLogical), `select`, `cast` and the predicates
// (`logical_not`, `isnan`, `isinf`, `isfinite`): each op's function, by
// class, and the Evaluator members that apply it element by element.
//
//===----------------------------------------------------------------------===//

#include "HoduEvaluatorCommon.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace hodu;
using namespace hodu::detail;

namespace {

//===----------------------------------------------------------------------===//
// What each op computes, by class
//===----------------------------------------------------------------------===//

using UnaryFloatFn = double (*)(double);
/// An integer unary function on a value extended to 64 bits; the flag says
/// the dtype is unsigned.
using UnaryIntFn = uint64_t (*)(uint64_t, bool);

enum class BinaryKind {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  Pow,
  Maximum,
  Minimum,
  LeakyRelu,
  Elu
};
enum class CmpKind { Eq, Ne, Lt, Le, Gt, Ge };
enum class LogicalKind { And, Or, Xor };

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double softplus(double x) { return std::log1p(std::exp(x)); }
double hardsigmoid(double x) { return std::clamp(x / 6.0 + 0.5, 0.0, 1.0); }

/// The float function of a Unary-family op, or null.
UnaryFloatFn unaryFloatFn(Operation *op) {
  return llvm::TypeSwitch<Operation *, UnaryFloatFn>(op)
      .Case<NegOp>([](auto) { return +[](double x) { return -x; }; })
      .Case<AbsOp>([](auto) { return +[](double x) { return std::fabs(x); }; })
      .Case<SignOp>([](auto) {
        return +[](double x) -> double {
          return std::isnan(x) ? x : (x > 0) - (x < 0);
        };
      })
      .Case<SquareOp>([](auto) { return +[](double x) { return x * x; }; })
      .Case<ReluOp>([](auto) {
        return +[](double x) { return std::isnan(x) ? x : x > 0 ? x : 0.0; };
      })
      .Case<SoftsignOp>(
          [](auto) { return +[](double x) { return x / (1 + std::fabs(x)); }; })
      .Case<SqrtOp>([](auto) { return +[](double x) { return std::sqrt(x); }; })
      .Case<RecipOp>([](auto) { return +[](double x) { return 1.0 / x; }; })
      .Case<SigmoidOp>([](auto) { return &sigmoid; })
      .Case<HardSigmoidOp>([](auto) { return &hardsigmoid; })
      .Case<GeluOp>([](auto) {
        return +[](double x) {
          return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
        };
      })
      .Case<SoftplusOp>([](auto) { return &softplus; })
      .Case<SiluOp>(
          [](auto) { return +[](double x) { return x * sigmoid(x); }; })
      .Case<HardSiluOp>(
          [](auto) { return +[](double x) { return x * hardsigmoid(x); }; })
      .Case<MishOp>([](auto) {
        return +[](double x) { return x * std::tanh(softplus(x)); };
      })
      .Case<SeluOp>([](auto) {
        return +[](double x) {
          const double a = 1.6732632423543772848170429916717;
          const double g = 1.0507009873554804934193349852946;
          return g * (x > 0 ? x : a * (std::exp(x) - 1));
        };
      })
      .Case<CeluOp>([](auto) {
        return +[](double x) {
          return std::max(0.0, x) + std::min(0.0, std::exp(x) - 1);
        };
      })
      .Case<SinOp>([](auto) { return +[](double x) { return std::sin(x); }; })
      .Case<CosOp>([](auto) { return +[](double x) { return std::cos(x); }; })
      .Case<TanOp>([](auto) { return +[](double x) { return std::tan(x); }; })
      .Case<AsinOp>([](auto) { return +[](double x) { return std::asin(x); }; })
      .Case<AcosOp>([](auto) { return +[](double x) { return std::acos(x); }; })
      .Case<AtanOp>([](auto) { return +[](double x) { return std::atan(x); }; })
      .Case<SinhOp>([](auto) { return +[](double x) { return std::sinh(x); }; })
      .Case<CoshOp>([](auto) { return +[](double x) { return std::cosh(x); }; })
      .Case<TanhOp>([](auto) { return +[](double x) { return std::tanh(x); }; })
      .Case<AsinhOp>(
          [](auto) { return +[](double x) { return std::asinh(x); }; })
      .Case<AcoshOp>(
          [](auto) { return +[](double x) { return std::acosh(x); }; })
      .Case<AtanhOp>(
          [](auto) { return +[](double x) { return std::atanh(x); }; })
      .Case<ExpOp>([](auto) { return +[](double x) { return std::exp(x); }; })
      .Case<Exp2Op>([](auto) { return +[](double x) { return std::exp2(x); }; })
      .Case<Exp10Op>(
          [](auto) { return +[](double x) { return std::pow(10.0, x); }; })
      .Case<LnOp>([](auto) { return +[](double x) { return std::log(x); }; })
      .Case<Log2Op>([](auto) { return +[](double x) { return std::log2(x); }; })
      .Case<Log10Op>(
          [](auto) { return +[](double x) { return std::log10(x); }; })
      .Case<CeilOp>([](auto) { return +[](double x) { return std::ceil(x); }; })
      .Case<FloorOp>(
          [](auto) { return +[](double x) { return std::floor(x); }; })
      // Round half to even (the default rounding mode).
      .Case<RoundOp>(
          [](auto) { return +[](double x) { return std::nearbyint(x); }; })
      .Case<ErfOp>([](auto) { return +[](double x) { return std::erf(x); }; })
      .Default([](Operation *) -> UnaryFloatFn { return nullptr; });
}

/// The integer function of a Unary-family op (neg, abs, sign, square, relu),
/// or null.
UnaryIntFn unaryIntFn(Operation *op) {
  return llvm::TypeSwitch<Operation *, UnaryIntFn>(op)
      .Case<NegOp>([](auto) { return +[](uint64_t x, bool) { return 0 - x; }; })
      .Case<AbsOp>([](auto) {
        return +[](uint64_t x, bool u) {
          return u || static_cast<int64_t>(x) >= 0 ? x : 0 - x;
        };
      })
      .Case<SignOp>([](auto) {
        return +[](uint64_t x, bool u) -> uint64_t {
          if (x == 0)
            return 0;
          return u || static_cast<int64_t>(x) > 0 ? 1 : ~uint64_t(0);
        };
      })
      .Case<SquareOp>(
          [](auto) { return +[](uint64_t x, bool) { return x * x; }; })
      .Case<ReluOp>([](auto) {
        return +[](uint64_t x, bool u) {
          return u || static_cast<int64_t>(x) > 0 ? x : 0;
        };
      })
      .Default([](Operation *) -> UnaryIntFn { return nullptr; });
}

/// The arithmetic of a Binary or UnaryScalar op.
std::optional<BinaryKind> binaryKind(Operation *op) {
  using R = std::optional<BinaryKind>;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case<AddOp, AddScalarOp>([](auto) { return BinaryKind::Add; })
      .Case<SubOp, SubScalarOp>([](auto) { return BinaryKind::Sub; })
      .Case<MulOp, MulScalarOp>([](auto) { return BinaryKind::Mul; })
      .Case<DivOp, DivScalarOp>([](auto) { return BinaryKind::Div; })
      .Case<RemOp, RemScalarOp>([](auto) { return BinaryKind::Rem; })
      .Case<PowOp, PowScalarOp>([](auto) { return BinaryKind::Pow; })
      .Case<MaximumOp, MaximumScalarOp>(
          [](auto) { return BinaryKind::Maximum; })
      .Case<MinimumOp, MinimumScalarOp>(
          [](auto) { return BinaryKind::Minimum; })
      .Case<LeakyReluOp, PreluOp>([](auto) { return BinaryKind::LeakyRelu; })
      .Case<EluOp>([](auto) { return BinaryKind::Elu; })
      .Default([](Operation *) -> R { return std::nullopt; });
}

/// The comparison of a Cmp or CmpScalar op.
std::optional<CmpKind> cmpKind(Operation *op) {
  using R = std::optional<CmpKind>;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case<EqOp, EqScalarOp>([](auto) { return CmpKind::Eq; })
      .Case<NeOp, NeScalarOp>([](auto) { return CmpKind::Ne; })
      .Case<LtOp, LtScalarOp>([](auto) { return CmpKind::Lt; })
      .Case<LeOp, LeScalarOp>([](auto) { return CmpKind::Le; })
      .Case<GtOp, GtScalarOp>([](auto) { return CmpKind::Gt; })
      .Case<GeOp, GeScalarOp>([](auto) { return CmpKind::Ge; })
      .Default([](Operation *) -> R { return std::nullopt; });
}

std::optional<LogicalKind> logicalKind(Operation *op) {
  using R = std::optional<LogicalKind>;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case<LogicalAndOp>([](auto) { return LogicalKind::And; })
      .Case<LogicalOrOp>([](auto) { return LogicalKind::Or; })
      .Case<LogicalXorOp>([](auto) { return LogicalKind::Xor; })
      .Default([](Operation *) -> R { return std::nullopt; });
}

/// Result of a binary float op (also the UnaryScalar ops with scalar `b`).
double binaryFloat(BinaryKind kind, double a, double b) {
  switch (kind) {
  case BinaryKind::Add:
    return a + b;
  case BinaryKind::Sub:
    return a - b;
  case BinaryKind::Mul:
    return a * b;
  case BinaryKind::Div:
    return a / b;
  case BinaryKind::Rem:
    return std::fmod(a, b);
  case BinaryKind::Pow:
    return std::pow(a, b);
  // IEEE 754-2019 maximum and minimum: NaN propagates, -0 < +0.
  case BinaryKind::Maximum:
    if (std::isnan(a) || std::isnan(b))
      return std::isnan(a) ? a : b;
    if (a == b)
      return std::signbit(a) ? b : a;
    return std::max(a, b);
  case BinaryKind::Minimum:
    if (std::isnan(a) || std::isnan(b))
      return std::isnan(a) ? a : b;
    if (a == b)
      return std::signbit(a) ? a : b;
    return std::min(a, b);
  case BinaryKind::LeakyRelu:
    return a < 0 ? b * a : a;
  case BinaryKind::Elu:
    return a < 0 ? b * (std::exp(a) - 1) : a;
  }
  llvm_unreachable("unknown binary kind");
}

/// Result of a binary integer op on values extended to 64 bits; nullopt
/// leaves the op alone (division by zero, overflowing division, negative
/// powers, float-only ops): the program's behaviour there is the runtime's
/// business.
std::optional<uint64_t> binaryInt(BinaryKind kind, uint64_t a, uint64_t b,
                                  bool isUnsigned, unsigned width) {
  int64_t sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
  int64_t minVal = width >= 64 ? INT64_MIN : -(int64_t(1) << (width - 1));
  switch (kind) {
  case BinaryKind::Add:
    return a + b;
  case BinaryKind::Sub:
    return a - b;
  case BinaryKind::Mul:
    return a * b;
  case BinaryKind::Div:
  case BinaryKind::Rem: {
    bool isDiv = kind == BinaryKind::Div;
    if (b == 0)
      return std::nullopt;
    if (isUnsigned)
      return isDiv ? a / b : a % b;
    if (sa == minVal && sb == -1)
      return std::nullopt;
    return static_cast<uint64_t>(isDiv ? sa / sb : sa % sb);
  }
  case BinaryKind::Maximum:
    return isUnsigned ? std::max(a, b)
                      : static_cast<uint64_t>(std::max(sa, sb));
  case BinaryKind::Minimum:
    return isUnsigned ? std::min(a, b)
                      : static_cast<uint64_t>(std::min(sa, sb));
  case BinaryKind::Pow: {
    if (!isUnsigned && sb < 0)
      return std::nullopt;
    uint64_t r = 1, base = a;
    for (uint64_t e = b; e; e >>= 1, base *= base)
      if (e & 1)
        r *= base;
    return r;
  }
  case BinaryKind::LeakyRelu:
  case BinaryKind::Elu:
    return std::nullopt;
  }
  llvm_unreachable("unknown binary kind");
}

/// Comparison of two elements of the same kind.
bool compare(CmpKind kind, const ConstantView &x, int64_t i,
             const ConstantView &y, int64_t j) {
  int c; // -1, 0, 1; NaN compares unordered (only `ne` is true).
  if (x.getKind() == ElementKind::Float) {
    double a = x.f(i), b = y.f(j);
    if (std::isnan(a) || std::isnan(b))
      return kind == CmpKind::Ne;
    c = a < b ? -1 : a > b ? 1 : 0;
  } else if (x.getKind() == ElementKind::Signed) {
    int64_t a = x.s(i), b = y.s(j);
    c = a < b ? -1 : a > b ? 1 : 0;
  } else {
    uint64_t a = x.raw(i), b = y.raw(j);
    c = a < b ? -1 : a > b ? 1 : 0;
  }
  switch (kind) {
  case CmpKind::Eq:
    return c == 0;
  case CmpKind::Ne:
    return c != 0;
  case CmpKind::Lt:
    return c < 0;
  case CmpKind::Le:
    return c <= 0;
  case CmpKind::Gt:
    return c > 0;
  case CmpKind::Ge:
    return c >= 0;
  }
  llvm_unreachable("unknown comparison");
}

/// A one-element constant holding the `scalar` attribute of a scalar op.
std::optional<ConstantView> scalarView(TypedAttr scalar) {
  auto type = RankedTensorType::get({}, scalar.getType());
  return ConstantView::get(
      DenseElementsAttr::get(type, ArrayRef<Attribute>(scalar)));
}

} // namespace

/// `cast`: every dtype to every dtype.
ElementsAttr Evaluator::convert(const ConstantView &x, RankedTensorType rt) {
  ConstantWriter out(rt, resourceBytes);
  ElementKind from = x.getKind(), to = out.getKind();
  unsigned outWidth = rt.getElementType().getIntOrFloatBitWidth();
  for (int64_t i = 0, n = rt.getNumElements(); i < n; ++i) {
    if (to == ElementKind::Bool) {
      out.setRaw(i, x.truth(i));
    } else if (to == ElementKind::Float || from == ElementKind::Float) {
      double v = x.f(i);
      // Out-of-range float to int conversion has no defined value.
      if (to != ElementKind::Float &&
          (std::isnan(v) ||
           std::fabs(v) >=
               std::ldexp(1.0, outWidth - (to == ElementKind::Signed)) ||
           (to == ElementKind::Unsigned && v <= -1.0)))
        return {};
      out.setF(i, v);
    } else {
      out.setRaw(i, x.s(i));
    }
  }
  return out.finish();
}

ElementsAttr Evaluator::predicate(PredicateKind kind, const ConstantView &x,
                                  RankedTensorType rt) {
  ConstantWriter out(rt, resourceBytes);
  for (int64_t i = 0, n = rt.getNumElements(); i < n; ++i) {
    bool r = false;
    switch (kind) {
    case PredicateKind::Not:
      r = !x.truth(i);
      break;
    case PredicateKind::IsNan:
      r = std::isnan(x.f(i));
      break;
    case PredicateKind::IsInf:
      r = std::isinf(x.f(i));
      break;
    case PredicateKind::IsFinite:
      r = std::isfinite(x.f(i));
      break;
    }
    out.setRaw(i, r);
  }
  return out.finish();
}

ElementsAttr Evaluator::unary(Operation *op, const ConstantView &x,
                              RankedTensorType rt) {
  if (x.shape() != rt.getShape())
    return {};
  ConstantWriter out(rt, resourceBytes);
  int64_t n = rt.getNumElements();
  if (x.getKind() == ElementKind::Float) {
    UnaryFloatFn fn = unaryFloatFn(op);
    if (!fn || out.getKind() != ElementKind::Float)
      return {};
    for (int64_t i = 0; i < n; ++i)
      out.setF(i, fn(x.f(i)));
    return out.finish();
  }
  UnaryIntFn fn = unaryIntFn(op);
  if (!fn || x.getKind() == ElementKind::Bool || out.getKind() != x.getKind())
    return {};
  for (int64_t i = 0; i < n; ++i)
    out.setRaw(i, fn(x.s(i), x.getKind() == ElementKind::Unsigned));
  return out.finish();
}

ElementsAttr Evaluator::broadcasting(Operation *op, ArrayRef<ConstantView> in,
                                     RankedTensorType rt) {
  // A scalar attribute is a one-element operand.
  SmallVector<ConstantView, 3> ops(in.begin(), in.end());
  if (auto scalar = op->getAttrOfType<TypedAttr>("scalar")) {
    auto s = scalarView(scalar);
    if (!s)
      return {};
    ops.push_back(*s);
  }
  bool isSelect = isa<SelectOp>(op);
  std::optional<BinaryKind> bin = binaryKind(op);
  std::optional<CmpKind> cmp = cmpKind(op);
  std::optional<LogicalKind> logical = logicalKind(op);
  if (isSelect ? ops.size() != 3
               : (!bin && !cmp && !logical) || ops.size() != 2)
    return {};
  // Every operand must broadcast to the result shape.
  ArrayRef<int64_t> shape = rt.getShape();
  SmallVector<Walk, 4> walks;
  for (const ConstantView &e : ops) {
    int64_t lead = rt.getRank() - e.getType().getRank();
    if (lead < 0)
      return {};
    for (int64_t d = 0; d < e.getType().getRank(); ++d)
      if (e.shape()[d] != 1 && e.shape()[d] != shape[lead + d])
        return {};
    walks.push_back({0, broadcastStrides(e.shape(), shape)});
  }
  walks.push_back({0, contiguousStrides(shape)});
  ConstantWriter out(rt, resourceBytes);

  if (isSelect) {
    if (ops[0].getKind() != ElementKind::Bool ||
        ops[1].getType().getElementType() != rt.getElementType() ||
        ops[2].getType().getElementType() != rt.getElementType())
      return {};
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      bool c = ops[0].truth(o[0]);
      out.copy(o[3], c ? ops[1] : ops[2], c ? o[1] : o[2]);
    });
    return out.finish();
  }
  const ConstantView &a = ops[0], &b = ops[1];
  if (a.getKind() != b.getKind())
    return {};
  if (logical) {
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      bool x = a.truth(o[0]), y = b.truth(o[1]);
      out.setRaw(o[2], *logical == LogicalKind::And  ? x && y
                       : *logical == LogicalKind::Or ? x || y
                                                     : x != y);
    });
    return out.finish();
  }
  if (cmp) {
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      out.setRaw(o[2], compare(*cmp, a, o[0], b, o[1]));
    });
    return out.finish();
  }
  if (a.getKind() == ElementKind::Float) {
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      out.setF(o[2], binaryFloat(*bin, a.f(o[0]), b.f(o[1])));
    });
    return out.finish();
  }
  if (a.getKind() == ElementKind::Bool || out.getKind() != a.getKind())
    return {};
  bool ok = true, isUnsigned = a.getKind() == ElementKind::Unsigned;
  unsigned width = rt.getElementType().getIntOrFloatBitWidth();
  forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
    if (!ok)
      return;
    auto r = binaryInt(*bin, a.s(o[0]), b.s(o[1]), isUnsigned, width);
    ok = r.has_value();
    if (ok)
      out.setRaw(o[2], *r);
  });
  return ok ? out.finish() : ElementsAttr();
}
