//===- OnnxElementwiseOps.cpp - elementwise ONNX ops ----------------------===//
//
// Arithmetic, comparisons, logic, casts and activations: mostly one hodu
// elementwise op each (`unary`, `binary`, `variadic` in OnnxOpsCommon.h).
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

#include <cmath>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

LogicalResult convertMean(NodeContext &n) {
  if (failed(variadic<AddOp>(n)))
    return failure();
  Value sum = n.graph.materialize(n.node.output(0), n.loc);
  Type elt = tensorType(sum).getElementType();
  TRY(r, make<DivScalarOp>(n, sum, n.scalarAttr(elt, (double)n.numInputs())));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertPow(NodeContext &n) {
  TRY(a, n.in(0));
  TRY(b, n.in(1));
  Type elt = tensorType(a).getElementType();
  if (auto k = n.constantInput(1); k && k->size() == 1) {
    TRY(r, make<PowScalarOp>(n, a, n.scalarAttr(elt, k->f(0))));
    n.setOutput(0, r);
    return success();
  }
  Type expElt = tensorType(b).getElementType();
  if (!isa<FloatType>(elt) && isa<FloatType>(expElt)) {
    // An integer base with a float exponent: compute in float, like ONNX.
    TRY(r, make<PowOp>(n, n.cast(a, expElt), b));
    n.setOutput(0, n.cast(r, elt));
    return success();
  }
  TRY(r, make<PowOp>(n, a, n.cast(b, elt)));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertMod(NodeContext &n) {
  TRY(a, n.in(0));
  TRY(b, n.in(1));
  TRY(fmod, n.attrInt("fmod", 0));
  TRY(r, make<RemOp>(n, a, b));
  if (fmod || isFloatTensor(a)) {
    if (!fmod)
      return n.error("fmod=0 is only defined for integers");
    n.setOutput(0, r);
    return success();
  }
  // Integer Mod follows the divisor's sign: fix up C's remainder.
  Type elt = tensorType(a).getElementType();
  if (elt.isUnsignedInteger()) {
    n.setOutput(0, r);
    return success();
  }
  TRY(rNonZero, make<NeScalarOp>(n, r, n.scalarAttr(elt, 0)));
  TRY(rNeg, make<LtScalarOp>(n, r, n.scalarAttr(elt, 0)));
  TRY(bNeg, make<LtScalarOp>(n, b, n.scalarAttr(elt, 0)));
  TRY(diffSign, make<LogicalXorOp>(n, rNeg, bNeg));
  TRY(fix, make<LogicalAndOp>(n, rNonZero, diffSign));
  TRY(rb, make<AddOp>(n, r, b));
  TRY(sel, make<SelectOp>(n, fix, rb, r));
  n.setOutput(0, sel);
  return success();
}

LogicalResult convertClip(NodeContext &n) {
  TRY(x, n.in(0));
  Type elt = tensorType(x).getElementType();
  Value r = x;
  auto bound = [&](size_t input, StringRef attrName, bool isMin) -> LogicalResult {
    if (n.opset < 11) {
      if (!n.attr(attrName))
        return success();
      TRY(v, n.attrFloat(attrName, 0));
      TRY(y, isMin ? make<MaximumScalarOp>(n, r, n.scalarAttr(elt, v))
                   : make<MinimumScalarOp>(n, r, n.scalarAttr(elt, v)));
      r = y;
      return success();
    }
    if (!n.hasInput(input))
      return success();
    if (auto k = n.constantInput(input); k && k->size() == 1) {
      TRY(y, isMin ? make<MaximumScalarOp>(n, r, n.scalarAttr(elt, k->f(0)))
                   : make<MinimumScalarOp>(n, r, n.scalarAttr(elt, k->f(0))));
      r = y;
      return success();
    }
    TRY(bv, n.in(input));
    TRY(y, isMin ? make<MaximumOp>(n, r, bv) : make<MinimumOp>(n, r, bv));
    r = y;
    return success();
  };
  if (failed(bound(1, "min", true)) || failed(bound(2, "max", false)))
    return failure();
  n.setOutput(0, r);
  return success();
}

LogicalResult convertCast(NodeContext &n) {
  TRY(x, n.in(0));
  Type elt;
  if (n.node.op_type() == "CastLike") {
    RankedTensorType t = n.type(1);
    if (!t)
      return n.error("needs the target_type input");
    elt = t.getElementType();
  } else {
    TRY(to, n.attrInt("to", 0));
    elt = onnxElementType(n.graph.ctx, (int)to);
    if (!elt)
      return n.error("cannot cast to ONNX data type " + Twine(to));
  }
  n.setOutput(0, n.cast(x, elt));
  return success();
}

LogicalResult convertIdentity(NodeContext &n) {
  // A sequence or an optional passes through as it is.
  if (n.hasInput(0))
    if (auto it = n.graph.values.find(n.node.input(0));
        it != n.graph.values.end() &&
        (it->second.isSequence() || it->second.hasElement)) {
      n.setOutput(0, it->second);
      return success();
    }
  TRY(x, n.in(0));
  n.setOutput(0, x);
  return success();
}

/// Gelu (opset 20): x * Phi(x), exact (hodu.gelu) or, with approximate =
/// "tanh", 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
LogicalResult convertGelu(NodeContext &n) {
  TRY(x, n.in(0));
  if (!isFloatTensor(x))
    return n.error("expects a float input");
  TRY(approximate, n.attrString("approximate", "none"));
  if (approximate == "none") {
    TRY(r, make<GeluOp>(n, x));
    n.setOutput(0, r);
    return success();
  }
  if (approximate != "tanh")
    return n.error("unknown approximate '" + approximate + "'");
  Type elt = tensorType(x).getElementType();
  auto attr = [&](double v) { return n.scalarAttr(elt, v); };
  TRY(cube, make<PowScalarOp>(n, x, attr(3.0)));
  TRY(scaled, make<MulScalarOp>(n, cube, attr(0.044715)));
  TRY(inner, make<AddOp>(n, x, scaled));
  TRY(arg, make<MulScalarOp>(n, inner, attr(std::sqrt(2.0 / M_PI))));
  TRY(t, make<TanhOp>(n, arg));
  TRY(onePlus, make<AddScalarOp>(n, t, attr(1.0)));
  TRY(half, make<MulScalarOp>(n, x, attr(0.5)));
  TRY(r, make<MulOp>(n, half, onePlus));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertScalarActivation(NodeContext &n) {
  StringRef op = n.node.op_type();
  TRY(x, n.in(0));
  Type elt = tensorType(x).getElementType();
  auto attr = [&](double v) { return n.scalarAttr(elt, v); };
  if (op == "LeakyRelu") {
    TRY(alpha, n.attrFloat("alpha", 0.01f));
    TRY(r, make<LeakyReluOp>(n, x, attr(alpha)));
    n.setOutput(0, r);
  } else if (op == "Elu") {
    TRY(alpha, n.attrFloat("alpha", 1.0f));
    TRY(r, make<EluOp>(n, x, attr(alpha)));
    n.setOutput(0, r);
  } else if (op == "Selu") {
    TRY(alpha, n.attrFloat("alpha", 1.67326319217681884765625f));
    TRY(gamma, n.attrFloat("gamma", 1.05070102214813232421875f));
    TRY(e, make<EluOp>(n, x, attr(alpha)));
    TRY(r, make<MulScalarOp>(n, e, attr(gamma)));
    n.setOutput(0, r);
  } else if (op == "Celu") {
    TRY(alpha, n.attrFloat("alpha", 1.0f));
    if (alpha == 1.0f) {
      TRY(r, make<CeluOp>(n, x));
      n.setOutput(0, r);
      return success();
    }
    // max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) = elu(x/alpha)*alpha.
    TRY(s, make<DivScalarOp>(n, x, attr(alpha)));
    TRY(e, make<EluOp>(n, s, attr(1.0)));
    TRY(r, make<MulScalarOp>(n, e, attr(alpha)));
    n.setOutput(0, r);
  } else if (op == "HardSigmoid" || op == "HardSwish") {
    double alpha = 1.0 / 6, beta = 0.5;
    if (op == "HardSigmoid") {
      TRY(a, n.attrFloat("alpha", 0.2f));
      TRY(b2, n.attrFloat("beta", 0.5f));
      alpha = a;
      beta = b2;
    }
    TRY(m, make<MulScalarOp>(n, x, attr(alpha)));
    TRY(a, make<AddScalarOp>(n, m, attr(beta)));
    TRY(lo, make<MaximumScalarOp>(n, a, attr(0)));
    TRY(hs, make<MinimumScalarOp>(n, lo, attr(1)));
    if (op == "HardSwish") {
      TRY(r, make<MulOp>(n, x, hs));
      n.setOutput(0, r);
    } else {
      n.setOutput(0, hs);
    }
  } else if (op == "ThresholdedRelu") {
    TRY(alpha, n.attrFloat("alpha", 1.0f));
    TRY(c, make<GtScalarOp>(n, x, attr(alpha)));
    Value zero = n.constant(elt, 0);
    TRY(r, make<SelectOp>(n, c, x, zero));
    n.setOutput(0, r);
  } else if (op == "Shrink") {
    TRY(bias, n.attrFloat("bias", 0));
    TRY(lambd, n.attrFloat("lambd", 0.5f));
    TRY(lo, make<LtScalarOp>(n, x, attr(-lambd)));
    TRY(hi, make<GtScalarOp>(n, x, attr(lambd)));
    TRY(xp, make<AddScalarOp>(n, x, attr(bias)));
    TRY(xm, make<SubScalarOp>(n, x, attr(bias)));
    Value zero = n.constant(elt, 0);
    TRY(s1, make<SelectOp>(n, hi, xm, zero));
    TRY(r, make<SelectOp>(n, lo, xp, s1));
    n.setOutput(0, r);
  } else if (op == "PRelu") {
    auto k = n.constantInput(1);
    if (k && k->size() == 1 && isFloatTensor(x)) {
      TRY(r, make<PreluOp>(n, x, attr(k->f(0))));
      n.setOutput(0, r);
      return success();
    }
    TRY(slope, n.in(1));
    // Before opset 7 a 1-D slope of the channel count runs along dim 1.
    auto st = tensorType(slope), xt = tensorType(x);
    if (n.opset < 7 && st.getRank() == 1 && xt.getRank() > 2 &&
        st.getDimSize(0) == xt.getDimSize(1) && st.getDimSize(0) != 1) {
      SmallVector<int64_t> shape(xt.getRank() - 1, 1);
      shape[0] = st.getDimSize(0);
      slope = n.reshape(slope, shape);
    }
    TRY(neg, make<LtScalarOp>(n, x, attr(0)));
    TRY(m, make<MulOp>(n, x, slope));
    TRY(r, make<SelectOp>(n, neg, m, x));
    n.setOutput(0, r);
  }
  return success();
}

LogicalResult convertIsInf(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(pos, n.attrInt("detect_positive", 1));
  TRY(neg, n.attrInt("detect_negative", 1));
  Type elt = tensorType(x).getElementType();
  if (pos && neg) {
    TRY(r, make<IsInfOp>(n, x));
    n.setOutput(0, r);
  } else if (pos || neg) {
    TRY(r, make<EqScalarOp>(n, x, n.scalarAttr(elt, pos ? INFINITY : -INFINITY)));
    n.setOutput(0, r);
  } else {
    n.setOutput(0, n.constant(n.b.getI1Type(), 0, tensorType(x).getShape()));
  }
  return success();
}

LogicalResult convertWhere(NodeContext &n) {
  TRY(c, n.in(0));
  TRY(a, n.in(1));
  TRY(b, n.in(2));
  TRY(r, make<SelectOp>(n, n.cast(c, n.b.getI1Type()), a, b));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertNot(NodeContext &n) { return unary<LogicalNotOp>(n); }

LogicalResult convertBitShift(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(y, n.in(1));
  TRY(dir, n.attrString("direction", ""));
  Type elt = tensorType(x).getElementType();
  if (!elt.isUnsignedInteger())
    return n.error("expects unsigned integers");
  if (dir != "LEFT" && dir != "RIGHT")
    return n.error("direction must be LEFT or RIGHT");
  // x << y = x * 2^y (wrapping like the shift); x >> y = x / 2^y. A shift
  // by the width or more gives 0 (2^y would wrap to 0: a division by zero).
  unsigned width = elt.getIntOrFloatBitWidth();
  TRY(shift, make<MinimumScalarOp>(n, y, n.scalarAttr(elt, width - 1)));
  TRY(p, make<PowOp>(n, n.constant(elt, 2), shift));
  TRY(r, dir == "LEFT" ? make<MulOp>(n, x, p) : make<DivOp>(n, x, p));
  TRY(out, make<GeScalarOp>(n, y, n.scalarAttr(elt, width)));
  TRY(zeroed, make<SelectOp>(n, out, n.constant(elt, 0), r));
  n.setOutput(0, zeroed);
  return success();
}

} // namespace

void hodu::onnx_import::registerElementwiseOps(ConverterTable &table) {
  table.insert({
      {"Add", binary<AddOp>},
      {"Sub", binary<SubOp>},
      {"Mul", binary<MulOp>},
      {"Div", binary<DivOp>},
      {"Pow", convertPow},
      {"Mod", convertMod},
      {"Max", variadic<MaximumOp>},
      {"Min", variadic<MinimumOp>},
      {"Sum", variadic<AddOp>},
      {"Mean", convertMean},
      {"Equal", binary<EqOp>},
      {"Less", binary<LtOp>},
      {"LessOrEqual", binary<LeOp>},
      {"Greater", binary<GtOp>},
      {"GreaterOrEqual", binary<GeOp>},
      {"And", binary<LogicalAndOp>},
      {"Or", binary<LogicalOrOp>},
      {"Xor", binary<LogicalXorOp>},
      {"Not", convertNot},
      {"Where", convertWhere},
      {"Clip", convertClip},
      {"Cast", convertCast},
      {"CastLike", convertCast},
      {"Identity", convertIdentity},
      {"Neg", unary<NegOp>},
      {"Abs", unary<AbsOp>},
      {"Sign", unary<SignOp>},
      {"Sqrt", unary<SqrtOp>},
      {"Reciprocal", unary<RecipOp>},
      {"Relu", unary<ReluOp>},
      {"Sigmoid", unary<SigmoidOp>},
      {"Softplus", unary<SoftplusOp>},
      {"Softsign", unary<SoftsignOp>},
      {"Exp", unary<ExpOp>},
      {"Log", unary<LnOp>},
      {"Sin", unary<SinOp>},
      {"Cos", unary<CosOp>},
      {"Tan", unary<TanOp>},
      {"Asin", unary<AsinOp>},
      {"Acos", unary<AcosOp>},
      {"Atan", unary<AtanOp>},
      {"Sinh", unary<SinhOp>},
      {"Cosh", unary<CoshOp>},
      {"Tanh", unary<TanhOp>},
      {"Asinh", unary<AsinhOp>},
      {"Acosh", unary<AcoshOp>},
      {"Atanh", unary<AtanhOp>},
      {"Erf", unary<ErfOp>},
      {"Ceil", unary<CeilOp>},
      {"Floor", unary<FloorOp>},
      {"Round", unary<RoundOp>},
      {"IsNaN", unary<IsNanOp>},
      {"IsInf", convertIsInf},
      {"Mish", unary<MishOp>},
      {"Gelu", convertGelu},
      {"LeakyRelu", convertScalarActivation},
      {"Elu", convertScalarActivation},
      {"Selu", convertScalarActivation},
      {"Celu", convertScalarActivation},
      {"HardSigmoid", convertScalarActivation},
      {"HardSwish", convertScalarActivation},
      {"ThresholdedRelu", convertScalarActivation},
      {"Shrink", convertScalarActivation},
      {"PRelu", convertScalarActivation},
      {"BitShift", convertBitShift},
  });
}
