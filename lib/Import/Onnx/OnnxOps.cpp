//===- OnnxOps.cpp - ONNX ops to hodu ops ---------------------------------===//
//
// One conversion per ONNX op type, decomposing into hodu ops where the
// dialect has no direct equivalent. Conversions read attribute-like inputs
// (shapes, axes, pads, sizes) as import-time constants (see OnnxFold.cpp).
//
// Ops are built through `make<OpT>`, which runs the op's type inference
// before creating it: the generated builders abort on inference failure,
// and a malformed model must give an error instead.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporterImpl.h"

#include "onnx/onnx_pb.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

#define TRY(var, expr)                                                         \
  auto var##OrErr = (expr);                                                    \
  if (failed(var##OrErr))                                                      \
    return failure();                                                          \
  auto var = std::move(*var##OrErr);

/// Creates an op whose result types are inferred, reporting inference
/// failures as import errors.
template <typename OpT, typename... Args>
FailureOr<Operation *> makeOp(NodeContext &n, Args &&...args) {
  OperationState state(n.loc, OpT::getOperationName());
  OpT::build(n.b, state, TypeRange(), std::forward<Args>(args)...);
  SmallVector<Type> types;
  MLIRContext *ctx = n.b.getContext();
  if (failed(OpT::inferReturnTypes(
          ctx, std::nullopt, state.operands,
          state.attributes.getDictionary(ctx), state.getRawProperties(),
          state.regions, types))) {
    auto diag = n.error("cannot build '" + OpT::getOperationName().str() +
                        "' from these operands");
    for (auto [i, v] : llvm::enumerate(state.operands))
      diag.attachNote() << "operand #" << i << ": " << v.getType();
    diag.report();
    // Re-run with a location so the reason is reported too.
    (void)OpT::inferReturnTypes(ctx, n.loc, state.operands,
                                state.attributes.getDictionary(ctx),
                                state.getRawProperties(), state.regions, types);
    return failure();
  }
  state.types.clear();
  state.addTypes(types);
  return n.b.create(state);
}

template <typename OpT, typename... Args>
FailureOr<Value> make(NodeContext &n, Args &&...args) {
  TRY(op, makeOp<OpT>(n, std::forward<Args>(args)...));
  return op->getResult(0);
}

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

int64_t product(ArrayRef<int64_t> s) {
  int64_t p = 1;
  for (int64_t d : s)
    p *= d;
  return p;
}

FailureOr<int64_t> normAxis(NodeContext &n, int64_t axis, int64_t rank,
                            StringRef what = "axis") {
  if (axis < -rank || axis >= rank)
    return n.error(what + " " + Twine(axis) + " is out of range for rank " +
                   Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

FailureOr<SmallVector<int64_t>> normAxes(NodeContext &n, ArrayRef<int64_t> axes,
                                         int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t a : axes) {
    TRY(ax, normAxis(n, a, rank));
    if (llvm::is_contained(out, ax))
      return n.error("axis " + Twine(a) + " appears more than once");
    out.push_back(ax);
  }
  llvm::sort(out);
  return out;
}

bool isFloatTensor(Value v) {
  return isa<FloatType>(tensorType(v).getElementType());
}

FailureOr<Value> requireStatic(NodeContext &n, Value v) {
  if (!tensorType(v).hasStaticShape())
    return n.error("needs a static shape, got " +
                   std::to_string(tensorType(v).getRank()) + "-d dynamic");
  return v;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename OpT> LogicalResult unary(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(r, make<OpT>(n, x));
  n.setOutput(0, r);
  return success();
}

/// Inputs of a binary op; ONNX Pow lets the exponent's type differ.
template <typename OpT> LogicalResult binary(NodeContext &n) {
  if (n.opset < 7 && n.attr("axis"))
    return n.error("legacy broadcasting with an axis (before opset 7) is not "
                   "supported");
  TRY(a, n.in(0));
  TRY(b, n.in(1));
  TRY(r, make<OpT>(n, a, b));
  n.setOutput(0, r);
  return success();
}

template <typename OpT> LogicalResult variadic(NodeContext &n) {
  if (n.numInputs() == 0)
    return n.error("needs at least one input");
  TRY(acc, n.in(0));
  for (size_t i = 1; i < n.numInputs(); ++i) {
    TRY(x, n.in(i));
    TRY(r, make<OpT>(n, acc, x));
    acc = r;
  }
  n.setOutput(0, acc);
  return success();
}

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
  if (const Known *k = n.known(1); k && k->numElements() == 1) {
    TRY(r, make<PowScalarOp>(n, a, n.scalarAttr(elt, k->asDouble(0))));
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
    if (const Known *k = n.known(input); k && k->numElements() == 1) {
      TRY(y, isMin ? make<MaximumScalarOp>(n, r, n.scalarAttr(elt, k->asDouble(0)))
                   : make<MinimumScalarOp>(n, r, n.scalarAttr(elt, k->asDouble(0))));
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
  TRY(x, n.in(0));
  n.setOutput(0, x);
  return success();
}

LogicalResult convertDropout(NodeContext &n) {
  TRY(x, n.in(0));
  n.setOutput(0, x);
  if (n.hasOutput(1)) {
    auto t = tensorType(x);
    n.setOutput(1, n.constant(n.b.getI1Type(), 1, t.getShape()));
  }
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
    const Known *k = n.known(1);
    if (k && k->numElements() == 1 && isFloatTensor(x)) {
      TRY(r, make<PreluOp>(n, x, attr(k->asDouble(0))));
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

//===----------------------------------------------------------------------===//
// Matrix
//===----------------------------------------------------------------------===//

LogicalResult convertGemm(NodeContext &n) {
  TRY(a, n.in(0));
  TRY(b, n.in(1));
  TRY(transA, n.attrInt("transA", 0));
  TRY(transB, n.attrInt("transB", 0));
  TRY(alpha, n.attrFloat("alpha", 1));
  TRY(beta, n.attrFloat("beta", 1));
  if (tensorType(a).getRank() != 2 || tensorType(b).getRank() != 2)
    return n.error("expects 2-D A and B");
  SmallVector<int64_t> swap = {1, 0};
  if (transA) {
    TRY(t, make<TransposeOp>(n, a, swap));
    a = t;
  }
  if (transB) {
    TRY(t, make<TransposeOp>(n, b, swap));
    b = t;
  }
  TRY(y, make<MatmulOp>(n, a, b));
  Type elt = tensorType(y).getElementType();
  if (alpha != 1) {
    TRY(s, make<MulScalarOp>(n, y, n.scalarAttr(elt, alpha)));
    y = s;
  }
  if (n.hasInput(2) && beta != 0) {
    TRY(c, n.in(2));
    if (beta != 1) {
      TRY(s, make<MulScalarOp>(n, c, n.scalarAttr(elt, beta)));
      c = s;
    }
    TRY(s, make<AddOp>(n, y, c));
    y = s;
  }
  n.setOutput(0, y);
  return success();
}

LogicalResult convertDet(NodeContext &n) { return unary<DetOp>(n); }

LogicalResult convertEinsum(NodeContext &n) {
  TRY(eqAttr, n.attrString("equation", ""));
  std::string eq;
  for (char c : eqAttr)
    if (c != ' ')
      eq += c;
  if (eq.find("...") != std::string::npos)
    return n.error("einsum equations with '...' are not supported");
  SmallVector<Value> inputs;
  for (size_t i = 0; i < n.numInputs(); ++i) {
    TRY(x, n.in(i));
    inputs.push_back(x);
  }
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  SmallVector<StringRef> terms;
  StringRef(lhs).split(terms, ',');
  if (terms.size() != inputs.size())
    return n.error("equation '" + eq + "' has " + Twine(terms.size()) +
                   " terms for " + Twine(inputs.size()) + " inputs");
  std::map<char, int64_t> sizes, counts;
  for (auto [term, v] : llvm::zip(terms, inputs)) {
    auto t = tensorType(v);
    if ((int64_t)term.size() != t.getRank())
      return n.error("term '" + term + "' does not match rank " +
                     Twine(t.getRank()));
    for (auto [i, c] : llvm::enumerate(term)) {
      sizes[c] = std::max(sizes[c], t.getDimSize(i));
      counts[c]++;
    }
  }
  std::string out;
  if (arrow == std::string::npos) {
    for (auto [c, cnt] : counts)
      if (cnt == 1)
        out += c;
    eq += "->" + out;
  } else {
    out = eq.substr(arrow + 2);
  }
  SmallVector<int64_t> shape;
  for (char c : out) {
    if (!sizes.count(c))
      return n.error("output label '" + Twine(c) + "' appears in no input");
    shape.push_back(sizes[c]);
  }
  auto t = RankedTensorType::get(shape, tensorType(inputs[0]).getElementType());
  n.setOutput(0, EinsumOp::create(n.b, n.loc, t, inputs, eq).getResult());
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

struct WindowParams {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

/// Reads kernel_shape/strides/dilations/pads/auto_pad for `r` spatial dims
/// of `in` (the spatial input sizes); `ceilMode` for pooling.
FailureOr<WindowParams> windowParams(NodeContext &n, ArrayRef<int64_t> in,
                                     ArrayRef<int64_t> kernelFromWeights,
                                     bool ceilMode) {
  size_t r = in.size();
  WindowParams p;
  TRY(k, n.attrInts("kernel_shape"));
  if (k)
    p.kernel = *k;
  else if (!kernelFromWeights.empty())
    p.kernel.assign(kernelFromWeights.begin(), kernelFromWeights.end());
  else
    return n.error("needs the kernel_shape attribute");
  TRY(s, n.attrInts("strides"));
  TRY(d, n.attrInts("dilations"));
  TRY(pads, n.attrInts("pads"));
  p.strides = s ? *s : SmallVector<int64_t>(r, 1);
  p.dilations = d ? *d : SmallVector<int64_t>(r, 1);
  p.pads = pads ? *pads : SmallVector<int64_t>(2 * r, 0);
  if (p.kernel.size() != r || p.strides.size() != r || p.dilations.size() != r ||
      p.pads.size() != 2 * r)
    return n.error("kernel_shape, strides, dilations and pads must have " +
                   Twine(r) + " (pads " + Twine(2 * r) + ") entries");
  for (size_t i = 0; i < r; ++i)
    if (p.kernel[i] <= 0 || p.strides[i] <= 0 || p.dilations[i] <= 0 ||
        p.pads[i] < 0 || p.pads[r + i] < 0)
      return n.error("kernel, strides and dilations must be positive, pads "
                     "non-negative");
  TRY(autoPad, n.attrString("auto_pad", "NOTSET"));
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < r; ++i) {
      int64_t out = (in[i] + p.strides[i] - 1) / p.strides[i];
      int64_t span = p.dilations[i] * (p.kernel[i] - 1) + 1;
      int64_t total = std::max<int64_t>(0, (out - 1) * p.strides[i] + span - in[i]);
      int64_t small = total / 2, big = total - small;
      p.pads[i] = autoPad == "SAME_UPPER" ? small : big;
      p.pads[r + i] = autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (autoPad == "VALID") {
    p.pads.assign(2 * r, 0);
  } else if (autoPad != "NOTSET") {
    return n.error("unknown auto_pad '" + autoPad + "'");
  }
  if (ceilMode) {
    // Grow the end pads so that floor division gives the ceil-mode size,
    // but never start a window in the end padding (PyTorch/ONNX rule).
    for (size_t i = 0; i < r; ++i) {
      int64_t span = p.dilations[i] * (p.kernel[i] - 1) + 1;
      int64_t padded = in[i] + p.pads[i] + p.pads[r + i];
      if (padded < span)
        continue;
      int64_t out = (padded - span + p.strides[i] - 1) / p.strides[i] + 1;
      if ((out - 1) * p.strides[i] >= in[i] + p.pads[i])
        --out;
      int64_t need = (out - 1) * p.strides[i] + span - padded;
      if (need > 0)
        p.pads[r + i] += need;
    }
  }
  return p;
}

int64_t convOut(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb,
                int64_t pe) {
  int64_t span = d * (k - 1) + 1, padded = in + pb + pe;
  return padded < span ? 0 : (padded - span) / s + 1;
}

LogicalResult addBias(NodeContext &n, Value &y, size_t biasInput) {
  if (!n.hasInput(biasInput))
    return success();
  TRY(bias, n.in(biasInput));
  auto t = tensorType(y);
  if (tensorType(bias).getRank() != 1)
    return n.error("expects a 1-D bias");
  SmallVector<int64_t> shape(t.getRank() - 1, 1);
  shape[0] = tensorType(bias).getDimSize(0);
  TRY(r, make<AddOp>(n, y, n.reshape(bias, shape)));
  y = r;
  return success();
}

LogicalResult convertConv(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(w, n.in(1));
  auto xt = tensorType(x), wt = tensorType(w);
  if (xt.getRank() < 3 || xt.getRank() > 5 || wt.getRank() != xt.getRank())
    return n.error("expects input and weights of rank 3, 4 or 5");
  TRY(group, n.attrInt("group", 1));
  if (group <= 0)
    return n.error("group must be positive");
  int64_t r = xt.getRank() - 2;
  TRY(p, windowParams(n, xt.getShape().drop_front(2),
                      wt.getShape().drop_front(2), false));
  if (ArrayRef<int64_t>(p.kernel) != wt.getShape().drop_front(2))
    return n.error("kernel_shape does not match the weights");
  SmallVector<int64_t> shape = {xt.getDimSize(0), wt.getDimSize(0)};
  for (int64_t i = 0; i < r; ++i)
    shape.push_back(convOut(xt.getDimSize(2 + i), p.kernel[i], p.strides[i],
                            p.dilations[i], p.pads[i], p.pads[r + i]));
  Value y = ConvOp::create(n.b, n.loc,
                           RankedTensorType::get(shape, xt.getElementType()), x,
                           w, p.strides, p.pads, p.dilations, group)
                .getResult();
  if (failed(addBias(n, y, 2)))
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult convertConvTranspose(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(w, n.in(1));
  auto xt = tensorType(x), wt = tensorType(w);
  if (xt.getRank() < 3 || xt.getRank() > 5 || wt.getRank() != xt.getRank())
    return n.error("expects input and weights of rank 3, 4 or 5");
  TRY(group, n.attrInt("group", 1));
  if (group <= 0)
    return n.error("group must be positive");
  int64_t r = xt.getRank() - 2;
  TRY(outPadAttr, n.attrInts("output_padding"));
  TRY(outShapeAttr, n.attrInts("output_shape"));
  TRY(autoPad, n.attrString("auto_pad", "NOTSET"));
  // windowParams' SAME handling is for convolutions; pads are set below.
  WindowParams p;
  {
    TRY(k, n.attrInts("kernel_shape"));
    TRY(s, n.attrInts("strides"));
    TRY(d, n.attrInts("dilations"));
    TRY(pads, n.attrInts("pads"));
    p.kernel = k ? *k : SmallVector<int64_t>(wt.getShape().drop_front(2));
    p.strides = s ? *s : SmallVector<int64_t>(r, 1);
    p.dilations = d ? *d : SmallVector<int64_t>(r, 1);
    p.pads = pads ? *pads : SmallVector<int64_t>(2 * r, 0);
  }
  SmallVector<int64_t> outPad =
      outPadAttr ? *outPadAttr : SmallVector<int64_t>(r, 0);
  if ((int64_t)p.kernel.size() != r || (int64_t)p.strides.size() != r ||
      (int64_t)p.dilations.size() != r || (int64_t)p.pads.size() != 2 * r ||
      (int64_t)outPad.size() != r)
    return n.error("kernel_shape, strides, dilations, output_padding and pads "
                   "must have one entry per spatial dim");
  SmallVector<int64_t> outShape;
  if (outShapeAttr) {
    outShape = *outShapeAttr;
    if ((int64_t)outShape.size() == r + 2)
      outShape.erase(outShape.begin(), outShape.begin() + 2);
    if ((int64_t)outShape.size() != r)
      return n.error("output_shape must have one entry per spatial dim");
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int64_t i = 0; i < r; ++i)
      outShape.push_back(xt.getDimSize(2 + i) * p.strides[i]);
  }
  if (!outShape.empty()) {
    for (int64_t i = 0; i < r; ++i) {
      int64_t full = p.strides[i] * (xt.getDimSize(2 + i) - 1) + outPad[i] +
                     p.dilations[i] * (p.kernel[i] - 1) + 1;
      int64_t total = full - outShape[i];
      if (total < 0) {
        // The requested size is larger: the extra goes to output_padding.
        outPad[i] -= total;
        total = 0;
      }
      int64_t half = total / 2;
      bool lower = autoPad == "SAME_LOWER";
      p.pads[i] = lower ? total - half : half;
      p.pads[r + i] = lower ? half : total - half;
    }
  } else if (autoPad == "VALID") {
    p.pads.assign(2 * r, 0);
  }
  SmallVector<int64_t> shape = {xt.getDimSize(0), wt.getDimSize(1) * group};
  for (int64_t i = 0; i < r; ++i)
    shape.push_back(p.strides[i] * (xt.getDimSize(2 + i) - 1) + outPad[i] +
                    p.dilations[i] * (p.kernel[i] - 1) + 1 - p.pads[i] -
                    p.pads[r + i]);
  Value y = ConvTransposeOp::create(
                n.b, n.loc, RankedTensorType::get(shape, xt.getElementType()),
                x, w, p.strides, p.pads, p.dilations, group, outPad)
                .getResult();
  if (failed(addBias(n, y, 2)))
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult convertPool(NodeContext &n) {
  StringRef op = n.node.op_type();
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  if (xt.getRank() < 3)
    return n.error("expects an input of rank >= 3");
  int64_t rank = xt.getRank(), r = rank - 2;
  if (op.starts_with("Global")) {
    SmallVector<int64_t> dims;
    for (int64_t d = 2; d < rank; ++d)
      dims.push_back(d);
    if (op == "GlobalAveragePool") {
      TRY(y, make<ReduceMeanOp>(n, x, dims, true));
      n.setOutput(0, y);
    } else if (op == "GlobalMaxPool") {
      TRY(y, make<ReduceMaxOp>(n, x, dims, true));
      n.setOutput(0, y);
    } else { // GlobalLpPool
      TRY(pAttr, n.attrInt("p", 2));
      Type elt = xt.getElementType();
      TRY(a, make<AbsOp>(n, x));
      TRY(pw, make<PowScalarOp>(n, a, n.scalarAttr(elt, pAttr)));
      TRY(s, make<ReduceSumOp>(n, pw, dims, true));
      TRY(y, make<PowScalarOp>(n, s, n.scalarAttr(elt, 1.0 / pAttr)));
      n.setOutput(0, y);
    }
    return success();
  }
  if (n.hasOutput(1))
    return n.error("the Indices output of MaxPool is not supported");
  TRY(ceil, n.attrInt("ceil_mode", 0));
  TRY(p, windowParams(n, xt.getShape().drop_front(2), {}, ceil != 0));
  TRY(countPad, n.attrInt("count_include_pad", 0));
  if (op == "LpPool" || op == "AveragePool") {
    // Pads added for ceil_mode must not count; with count_include_pad
    // the declared pads do, which hodu.reduce_window cannot mix.
    if (countPad && ceil) {
      TRY(p0, windowParams(n, xt.getShape().drop_front(2), {}, false));
      if (p0.pads != p.pads)
        return n.error("count_include_pad with ceil_mode is not supported");
    }
  }
  SmallVector<int64_t> window = {1, 1}, strides = {1, 1}, dil = {1, 1};
  SmallVector<int64_t> pads(2 * rank, 0);
  for (int64_t i = 0; i < r; ++i) {
    window.push_back(p.kernel[i]);
    strides.push_back(p.strides[i]);
    dil.push_back(p.dilations[i]);
    pads[2 + i] = p.pads[i];
    pads[rank + 2 + i] = p.pads[r + i];
  }
  if (op == "MaxPool") {
    TRY(y, make<ReduceWindowOp>(n, x, WindowKind::max, window, strides,
                                pads, dil, false));
    n.setOutput(0, y);
  } else if (op == "AveragePool") {
    TRY(y, make<ReduceWindowOp>(n, x, WindowKind::mean, window,
                                strides, pads, dil, countPad != 0));
    n.setOutput(0, y);
  } else { // LpPool
    TRY(pAttr, n.attrInt("p", 2));
    Type elt = xt.getElementType();
    TRY(a, make<AbsOp>(n, x));
    TRY(pw, make<PowScalarOp>(n, a, n.scalarAttr(elt, pAttr)));
    TRY(s, make<ReduceWindowOp>(n, pw, WindowKind::sum, window,
                                strides, pads, dil, false));
    TRY(y, make<PowScalarOp>(n, s, n.scalarAttr(elt, 1.0 / pAttr)));
    n.setOutput(0, y);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// (x - mean) / sqrt(var + eps), with mean and var over `dims` (kept).
FailureOr<Value> normalize(NodeContext &n, Value x, ArrayRef<int64_t> dims,
                           double eps, Value *meanOut = nullptr,
                           Value *invStdOut = nullptr) {
  Type elt = tensorType(x).getElementType();
  TRY(mean, make<ReduceMeanOp>(n, x, dims, true));
  TRY(var, make<ReduceVarOp>(n, x, dims, true));
  TRY(ve, make<AddScalarOp>(n, var, n.scalarAttr(elt, eps)));
  TRY(sd, make<SqrtOp>(n, ve));
  TRY(c, make<SubOp>(n, x, mean));
  TRY(y, make<DivOp>(n, c, sd));
  if (meanOut)
    *meanOut = mean;
  if (invStdOut) {
    TRY(inv, make<RecipOp>(n, sd));
    *invStdOut = inv;
  }
  return y;
}

/// Reshapes a per-channel [C] tensor to broadcast over [N, C, spatial...].
FailureOr<Value> perChannel(NodeContext &n, size_t input, int64_t rank) {
  TRY(v, n.in(input));
  auto t = tensorType(v);
  if (t.getRank() != 1)
    return n.error("input #" + Twine(input) + " must be 1-D");
  SmallVector<int64_t> shape(rank - 1, 1);
  shape[0] = t.getDimSize(0);
  return n.reshape(v, shape);
}

LogicalResult convertBatchNorm(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(training, n.attrInt("training_mode", 0));
  TRY(eps, n.attrFloat("epsilon", 1e-5f));
  int64_t rank = tensorType(x).getRank();
  if (rank < 2)
    return n.error("expects an input of rank >= 2");
  if (training) {
    // Batch statistics normalize; the running ones are updated by momentum.
    if (n.opset < 14)
      return n.error("training outputs before opset 14 are not supported");
    TRY(momentum, n.attrFloat("momentum", 0.9f));
    SmallVector<int64_t> dims = {0};
    for (int64_t d = 2; d < rank; ++d)
      dims.push_back(d);
    Type elt = tensorType(x).getElementType();
    TRY(mean, make<ReduceMeanOp>(n, x, dims, true));
    TRY(var, make<ReduceVarOp>(n, x, dims, true));
    TRY(ve, make<AddScalarOp>(n, var, n.scalarAttr(elt, eps)));
    TRY(sd, make<SqrtOp>(n, ve));
    TRY(c, make<SubOp>(n, x, mean));
    TRY(d, make<DivOp>(n, c, sd));
    TRY(scale, perChannel(n, 1, rank));
    TRY(bias, perChannel(n, 2, rank));
    TRY(m, make<MulOp>(n, d, scale));
    TRY(y, make<AddOp>(n, m, bias));
    n.setOutput(0, y);
    for (auto [out, cur, input] : {std::tuple(1, mean, 3), std::tuple(2, var, 4)}) {
      if (!n.hasOutput(out))
        continue;
      TRY(old, n.in(input));
      int64_t ch = tensorType(old).getNumElements();
      TRY(a, make<MulScalarOp>(n, old, n.scalarAttr(elt, momentum)));
      TRY(b, make<MulScalarOp>(n, n.reshape(cur, {ch}),
                               n.scalarAttr(elt, 1 - momentum)));
      TRY(r, make<AddOp>(n, a, b));
      n.setOutput(out, r);
    }
    return success();
  }
  for (size_t i = 1; i < n.numOutputs(); ++i)
    if (n.hasOutput(i))
      return n.error("mean and variance outputs need training_mode=1");
  TRY(scale, perChannel(n, 1, rank));
  TRY(bias, perChannel(n, 2, rank));
  TRY(mean, perChannel(n, 3, rank));
  TRY(var, perChannel(n, 4, rank));
  Type elt = tensorType(x).getElementType();
  TRY(ve, make<AddScalarOp>(n, var, n.scalarAttr(elt, eps)));
  TRY(sd, make<SqrtOp>(n, ve));
  TRY(c, make<SubOp>(n, x, mean));
  TRY(d, make<DivOp>(n, c, sd));
  TRY(m, make<MulOp>(n, d, scale));
  TRY(y, make<AddOp>(n, m, bias));
  n.setOutput(0, y);
  return success();
}

LogicalResult convertInstanceNorm(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(eps, n.attrFloat("epsilon", 1e-5f));
  int64_t rank = tensorType(x).getRank();
  if (rank < 3)
    return n.error("expects an input of rank >= 3");
  SmallVector<int64_t> dims;
  for (int64_t d = 2; d < rank; ++d)
    dims.push_back(d);
  TRY(y, normalize(n, x, dims, eps));
  TRY(scale, perChannel(n, 1, rank));
  TRY(bias, perChannel(n, 2, rank));
  TRY(m, make<MulOp>(n, y, scale));
  TRY(r, make<AddOp>(n, m, bias));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertLayerNorm(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(eps, n.attrFloat("epsilon", 1e-5f));
  TRY(axisAttr, n.attrInt("axis", -1));
  int64_t rank = tensorType(x).getRank();
  TRY(axis, normAxis(n, axisAttr, rank));
  SmallVector<int64_t> dims;
  for (int64_t d = axis; d < rank; ++d)
    dims.push_back(d);
  Value mean, invStd;
  TRY(y, normalize(n, x, dims, eps, &mean, &invStd));
  TRY(scale, n.in(1));
  TRY(m, make<MulOp>(n, y, scale));
  Value r = m;
  if (n.hasInput(2)) {
    TRY(bias, n.in(2));
    TRY(a, make<AddOp>(n, r, bias));
    r = a;
  }
  n.setOutput(0, r);
  n.setOutput(1, mean);
  n.setOutput(2, invStd);
  return success();
}

LogicalResult convertMVN(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(axesAttr, n.attrInts("axes"));
  SmallVector<int64_t> axes = axesAttr ? *axesAttr : SmallVector<int64_t>{0, 2, 3};
  TRY(dims, normAxes(n, axes, tensorType(x).getRank()));
  TRY(y, normalize(n, x, dims, 1e-9));
  n.setOutput(0, y);
  return success();
}

LogicalResult convertLRN(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(size, n.attrInt("size", 0));
  TRY(alpha, n.attrFloat("alpha", 1e-4f));
  TRY(beta, n.attrFloat("beta", 0.75f));
  TRY(bias, n.attrFloat("bias", 1.0f));
  auto t = tensorType(x);
  int64_t rank = t.getRank();
  if (size <= 0 || rank < 3)
    return n.error("needs a positive size and an input of rank >= 3");
  Type elt = t.getElementType();
  TRY(sq, make<SquareOp>(n, x));
  SmallVector<int64_t> window(rank, 1), ones(rank, 1), pads(2 * rank, 0);
  window[1] = size;
  pads[1] = (size - 1) / 2;
  pads[rank + 1] = size - 1 - (size - 1) / 2;
  TRY(sum, make<ReduceWindowOp>(n, sq, WindowKind::sum,
                                window, ones, pads, ones, false));
  TRY(sc, make<MulScalarOp>(n, sum, n.scalarAttr(elt, alpha / size)));
  TRY(bs, make<AddScalarOp>(n, sc, n.scalarAttr(elt, bias)));
  TRY(pw, make<PowScalarOp>(n, bs, n.scalarAttr(elt, beta)));
  TRY(y, make<DivOp>(n, x, pw));
  n.setOutput(0, y);
  return success();
}

LogicalResult convertSoftmax(NodeContext &n) {
  StringRef op = n.node.op_type();
  TRY(x, n.in(0));
  auto t = tensorType(x);
  int64_t rank = t.getRank();
  TRY(axisAttr, n.attrInt("axis", n.opset >= 13 ? -1 : 1));
  if (rank == 0)
    return n.error("expects an input of rank >= 1");
  TRY(axis, normAxis(n, axisAttr, rank));
  Value in = x;
  int64_t dim = axis;
  if (n.opset < 13) {
    // Before opset 13 the input is seen as 2-D [prod(d[:axis]), prod(d[axis:])].
    in = n.reshape(x, {product(t.getShape().take_front(axis)),
                       product(t.getShape().drop_front(axis))});
    dim = 1;
  }
  Value y;
  if (op == "Hardmax") {
    auto it = tensorType(in);
    TRY(am, make<ArgMaxOp>(n, in, ArrayRef<int64_t>{dim}, false, false));
    y = OneHotOp::create(n.b, n.loc, it, am, it.getDimSize(dim), dim).getResult();
  } else {
    TRY(mx, make<ReduceMaxOp>(n, in, ArrayRef<int64_t>{dim}, true));
    TRY(sh, make<SubOp>(n, in, mx));
    TRY(e, make<ExpOp>(n, sh));
    TRY(s, make<ReduceSumOp>(n, e, ArrayRef<int64_t>{dim}, true));
    if (op == "Softmax") {
      TRY(r, make<DivOp>(n, e, s));
      y = r;
    } else {
      TRY(l, make<LnOp>(n, s));
      TRY(r, make<SubOp>(n, sh, l));
      y = r;
    }
  }
  n.setOutput(0, n.reshape(y, t.getShape()));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult convertReduce(NodeContext &n) {
  StringRef op = n.node.op_type();
  TRY(x, n.in(0));
  int64_t rank = tensorType(x).getRank();
  TRY(keep, n.attrInt("keepdims", 1));
  TRY(noop, n.attrInt("noop_with_empty_axes", 0));
  bool axesAsInput = op == "ReduceSum" ? n.opset >= 13 : n.opset >= 18;
  SmallVector<int64_t> axes;
  if (axesAsInput) {
    if (n.hasInput(1)) {
      TRY(a, n.constInts(1, "axes"));
      axes = a;
    }
  } else {
    TRY(a, n.attrInts("axes"));
    if (a)
      axes = *a;
  }
  if (axes.empty()) {
    if (noop) {
      n.setOutput(0, x);
      return success();
    }
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  TRY(dims, normAxes(n, axes, rank));
  bool k = keep != 0;
  FailureOr<Value> r = failure();
  if (op == "ReduceSum")
    r = make<ReduceSumOp>(n, x, dims, k);
  else if (op == "ReduceMean")
    r = make<ReduceMeanOp>(n, x, dims, k);
  else if (op == "ReduceMax")
    r = make<ReduceMaxOp>(n, x, dims, k);
  else if (op == "ReduceMin")
    r = make<ReduceMinOp>(n, x, dims, k);
  else if (op == "ReduceProd")
    r = make<ReduceProdOp>(n, x, dims, k);
  else if (op == "ReduceL2")
    r = make<ReduceNormOp>(n, x, dims, k);
  else if (op == "ReduceLogSum")
    r = make<ReduceLogSumOp>(n, x, dims, k);
  else if (op == "ReduceLogSumExp")
    r = make<ReduceLogSumExpOp>(n, x, dims, k);
  else if (op == "ReduceL1") {
    TRY(a, make<AbsOp>(n, x));
    r = make<ReduceSumOp>(n, a, dims, k);
  } else if (op == "ReduceSumSquare") {
    TRY(a, make<SquareOp>(n, x));
    r = make<ReduceSumOp>(n, a, dims, k);
  }
  if (failed(r))
    return failure();
  n.setOutput(0, *r);
  return success();
}

LogicalResult convertArg(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(keep, n.attrInt("keepdims", 1));
  TRY(last, n.attrInt("select_last_index", 0));
  TRY(axis, normAxis(n, axisAttr, tensorType(x).getRank()));
  bool lastAttr = last != 0;
  FailureOr<Value> r =
      n.node.op_type() == "ArgMax"
          ? make<ArgMaxOp>(n, x, ArrayRef<int64_t>{axis}, keep != 0, lastAttr)
          : make<ArgMinOp>(n, x, ArrayRef<int64_t>{axis}, keep != 0, lastAttr);
  if (failed(r))
    return failure();
  n.setOutput(0, *r);
  return success();
}

LogicalResult convertCumSum(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(axisV, n.constInts(1, "axis"));
  if (axisV.size() != 1)
    return n.error("axis must hold one value");
  TRY(axis, normAxis(n, axisV[0], tensorType(x).getRank()));
  TRY(excl, n.attrInt("exclusive", 0));
  TRY(rev, n.attrInt("reverse", 0));
  TRY(r, make<CumSumOp>(n, x, axis, excl != 0, rev != 0));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertTopK(NodeContext &n) {
  TRY(x, n.in(0));
  int64_t k;
  if (n.opset >= 10) {
    TRY(kv, n.constInts(1, "k"));
    if (kv.size() != 1)
      return n.error("k must hold one value");
    k = kv[0];
  } else {
    TRY(ka, n.attrInt("k", -1));
    k = ka;
  }
  TRY(axisAttr, n.attrInt("axis", -1));
  TRY(largest, n.attrInt("largest", 1));
  TRY(sorted, n.attrInt("sorted", 1));
  auto t = tensorType(x);
  TRY(axis, normAxis(n, axisAttr, t.getRank()));
  if (k < 0 || k > t.getDimSize(axis))
    return n.error("k = " + Twine(k) + " is out of range for dim " +
                   Twine(axis) + " of size " + Twine(t.getDimSize(axis)));
  TRY(op, makeOp<TopKOp>(n, x, k, axis, largest != 0, sorted != 0));
  n.setOutput(0, op->getResult(0));
  n.setOutput(1, op->getResult(1));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult convertReshape(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  TRY(shapeV, n.constInts(1, "shape"));
  TRY(allowZero, n.attrInt("allowzero", 0));
  SmallVector<int64_t> shape;
  int64_t known = 1, infer = -1;
  for (auto [i, d] : llvm::enumerate(shapeV)) {
    if (d == 0 && !allowZero) {
      if ((int64_t)i >= t.getRank())
        return n.error("shape entry " + Twine(i) + " is 0 but the input has rank " +
                       Twine(t.getRank()));
      d = t.getDimSize(i);
    }
    if (d == -1) {
      if (infer >= 0)
        return n.error("shape has more than one -1");
      infer = i;
    } else if (d < 0) {
      return n.error("shape entry " + Twine(d) + " is invalid");
    } else {
      known *= d;
    }
    shape.push_back(d);
  }
  if (infer >= 0) {
    if (known == 0 || t.getNumElements() % known)
      return n.error("cannot infer the -1 dim of the new shape");
    shape[infer] = t.getNumElements() / known;
  }
  if (product(shape) != t.getNumElements())
    return n.error("cannot reshape " + Twine(t.getNumElements()) +
                   " elements to " + Twine(product(shape)));
  n.setOutput(0, n.reshape(x, shape));
  return success();
}

LogicalResult convertFlatten(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  TRY(axisAttr, n.attrInt("axis", 1));
  int64_t r = t.getRank();
  int64_t axis = axisAttr < 0 ? axisAttr + r : axisAttr;
  if (axis < 0 || axis > r)
    return n.error("axis " + Twine(axisAttr) + " is out of range");
  n.setOutput(0, n.reshape(x, {product(t.getShape().take_front(axis)),
                               product(t.getShape().drop_front(axis))}));
  return success();
}

FailureOr<SmallVector<int64_t>> axesOf(NodeContext &n, bool required) {
  if (n.opset >= 13) {
    if (n.hasInput(1))
      return n.constInts(1, "axes");
  } else {
    TRY(a, n.attrInts("axes"));
    if (a)
      return *a;
  }
  if (required)
    return n.error("needs axes");
  return SmallVector<int64_t>();
}

LogicalResult convertSqueeze(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  TRY(axes, axesOf(n, false));
  SmallVector<int64_t> dims;
  if (axes.empty()) {
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (t.getDimSize(d) == 1)
        dims.push_back(d);
  } else {
    TRY(norm, normAxes(n, axes, t.getRank()));
    for (int64_t d : norm)
      if (t.getDimSize(d) != 1)
        return n.error("cannot squeeze dim " + Twine(d) + " of size " +
                       Twine(t.getDimSize(d)));
    dims = norm;
  }
  TRY(r, make<SqueezeOp>(n, x, dims));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertUnsqueeze(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(axes, axesOf(n, true));
  TRY(dims, normAxes(n, axes, tensorType(x).getRank() + axes.size()));
  TRY(r, make<UnsqueezeOp>(n, x, dims));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertTranspose(NodeContext &n) {
  TRY(x, n.in(0));
  int64_t r = tensorType(x).getRank();
  TRY(permAttr, n.attrInts("perm"));
  SmallVector<int64_t> perm;
  if (permAttr) {
    perm = *permAttr;
    SmallVector<int64_t> sorted = perm;
    llvm::sort(sorted);
    for (int64_t i = 0; i < (int64_t)sorted.size(); ++i)
      if (sorted[i] != i || (int64_t)sorted.size() != r)
        return n.error("perm is not a permutation of the input's dims");
  } else {
    for (int64_t i = r - 1; i >= 0; --i)
      perm.push_back(i);
  }
  TRY(y, make<TransposeOp>(n, x, perm));
  n.setOutput(0, y);
  return success();
}

LogicalResult convertExpand(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(shape, n.constInts(1, "shape"));
  auto t = tensorType(x);
  SmallVector<int64_t> out;
  if (failed(hodu::detail::broadcastShapes(t.getShape(), shape, out)))
    return n.error("cannot expand the input to the given shape");
  if (ArrayRef<int64_t>(out) == t.getShape()) {
    n.setOutput(0, x);
    return success();
  }
  n.setOutput(0, BroadcastOp::create(n.b, n.loc,
                                     RankedTensorType::get(out, t.getElementType()),
                                     x)
                     .getResult());
  return success();
}

LogicalResult convertTile(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(reps, n.constInts(1, "repeats"));
  auto t = tensorType(x);
  if ((int64_t)reps.size() != t.getRank())
    return n.error("repeats must have one entry per dim");
  // [d0, d1] -> [1, d0, 1, d1] -> broadcast [r0, d0, r1, d1] -> reshape.
  SmallVector<int64_t> inter, bcast, out;
  for (auto [d, rep] : llvm::zip(t.getShape(), reps)) {
    if (rep < 0)
      return n.error("repeats must be non-negative");
    inter.append({1, d});
    bcast.append({rep, d});
    out.push_back(rep * d);
  }
  Value r = n.reshape(x, inter);
  r = BroadcastOp::create(n.b, n.loc,
                          RankedTensorType::get(bcast, t.getElementType()), r)
          .getResult();
  n.setOutput(0, n.reshape(r, out));
  return success();
}

LogicalResult convertConcat(NodeContext &n) {
  SmallVector<Value> inputs;
  for (size_t i = 0; i < n.numInputs(); ++i) {
    TRY(x, n.in(i));
    inputs.push_back(x);
  }
  if (inputs.empty())
    return n.error("needs at least one input");
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, tensorType(inputs[0]).getRank()));
  TRY(r, make<ConcatOp>(n, ValueRange(inputs), axis));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertSplit(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, t.getRank()));
  SmallVector<int64_t> sizes;
  if (n.opset >= 13) {
    if (n.hasInput(1)) {
      TRY(s, n.constInts(1, "split"));
      sizes = s;
    }
  } else {
    TRY(s, n.attrInts("split"));
    if (s)
      sizes = *s;
  }
  int64_t dim = t.getDimSize(axis);
  if (sizes.empty()) {
    int64_t parts = n.numOutputs();
    TRY(numOut, n.attrInt("num_outputs", parts));
    parts = numOut;
    if (parts <= 0)
      return n.error("needs at least one output");
    int64_t chunk = (dim + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  if ((int64_t)sizes.size() != (int64_t)n.numOutputs())
    return n.error("split has " + Twine(sizes.size()) + " sizes for " +
                   Twine(n.numOutputs()) + " outputs");
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return n.error("negative split size");
    sum += s;
  }
  if (sum != dim)
    return n.error("split sizes add up to " + Twine(sum) + ", not " + Twine(dim));
  TRY(op, makeOp<SplitOp>(n, x, axis, sizes));
  for (size_t i = 0; i < op->getNumResults(); ++i)
    n.setOutput(i, op->getResult(i));
  return success();
}

LogicalResult convertSlice(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  int64_t r = t.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset < 10) {
    TRY(s, n.attrInts("starts"));
    TRY(e, n.attrInts("ends"));
    TRY(a, n.attrInts("axes"));
    if (!s || !e)
      return n.error("needs starts and ends");
    starts = *s;
    ends = *e;
    if (a)
      axes = *a;
  } else {
    TRY(s, n.constInts(1, "starts"));
    TRY(e, n.constInts(2, "ends"));
    starts = s;
    ends = e;
    if (n.hasInput(3)) {
      TRY(a, n.constInts(3, "axes"));
      axes = a;
    }
    if (n.hasInput(4)) {
      TRY(st, n.constInts(4, "steps"));
      steps = st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return n.error("starts, ends, axes and steps must have equal lengths");
  SmallVector<int64_t> b(r, 0), e(t.getShape()), st(r, 1);
  SmallVector<bool> seen(r, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    TRY(ax, normAxis(n, axes[i], r));
    if (seen[ax])
      return n.error("axis " + Twine(axes[i]) + " appears more than once");
    seen[ax] = true;
    int64_t dim = t.getDimSize(ax), s = steps[i];
    if (s == 0)
      return n.error("step must not be zero");
    int64_t lo = starts[i], hi = ends[i];
    if (lo < 0)
      lo += dim;
    if (hi < 0)
      hi += dim;
    if (s > 0) {
      lo = std::clamp<int64_t>(lo, 0, dim);
      hi = std::clamp<int64_t>(hi, lo, dim);
    } else {
      lo = std::clamp<int64_t>(lo, -1, dim - 1);
      hi = std::clamp<int64_t>(hi, -1, std::max<int64_t>(lo, -1));
      if (lo < 0) { // nothing to take
        lo = -1;
        hi = -1;
      }
    }
    b[ax] = lo;
    e[ax] = hi;
    st[ax] = s;
  }
  TRY(y, make<SliceOp>(n, x, b, e, st));
  n.setOutput(0, y);
  return success();
}

LogicalResult convertPad(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  int64_t r = t.getRank();
  Type elt = t.getElementType();
  TRY(modeStr, n.attrString("mode", "constant"));
  SmallVector<int64_t> pads;
  double value = 0;
  if (n.opset < 11) {
    TRY(p, n.attrInts("pads"));
    if (!p)
      return n.error("needs the pads attribute");
    pads = *p;
    TRY(v, n.attrFloat("value", 0));
    value = v;
  } else {
    TRY(p, n.constInts(1, "pads"));
    pads = p;
    if (n.hasInput(2)) {
      TRY(v, n.constFloats(2, "constant_value"));
      if (v.size() != 1)
        return n.error("constant_value must hold one value");
      value = v[0];
    }
    if (n.hasInput(3)) {
      TRY(axes, n.constInts(3, "axes"));
      if (pads.size() != 2 * axes.size())
        return n.error("pads must have two entries per axis");
      SmallVector<int64_t> full(2 * r, 0);
      for (auto [i, a] : llvm::enumerate(axes)) {
        TRY(ax, normAxis(n, a, r));
        full[ax] = pads[i];
        full[r + ax] = pads[axes.size() + i];
      }
      pads = full;
    }
  }
  if ((int64_t)pads.size() != 2 * r)
    return n.error("pads must have " + Twine(2 * r) + " entries");
  PadMode mode;
  if (modeStr == "constant")
    mode = PadMode::constant;
  else if (modeStr == "reflect")
    mode = PadMode::reflect;
  else if (modeStr == "edge")
    mode = PadMode::replicate;
  else if (modeStr == "wrap")
    mode = PadMode::circular;
  else
    return n.error("unknown pad mode '" + modeStr + "'");
  // Negative pads crop: pad by the positive parts, then slice.
  SmallVector<int64_t> pos(2 * r), starts(r), ends(r), steps(r, 1);
  bool crop = false;
  for (int64_t i = 0; i < 2 * r; ++i) {
    pos[i] = std::max<int64_t>(pads[i], 0);
    crop |= pads[i] < 0;
  }
  Value y = x;
  if (llvm::any_of(pos, [](int64_t p) { return p > 0; })) {
    TypedAttr v = mode == PadMode::constant ? n.scalarAttr(elt, value) : TypedAttr();
    TRY(p, make<PadOp>(n, x, mode, pos, v));
    y = p;
  }
  if (crop) {
    auto pt = tensorType(y);
    for (int64_t i = 0; i < r; ++i) {
      starts[i] = -std::min<int64_t>(pads[i], 0);
      ends[i] = pt.getDimSize(i) + std::min<int64_t>(pads[r + i], 0);
      if (ends[i] < starts[i])
        return n.error("negative pads remove more than the whole dim");
    }
    TRY(s, make<SliceOp>(n, y, starts, ends, steps));
    y = s;
  }
  n.setOutput(0, y);
  return success();
}

LogicalResult convertResize(NodeContext &n) {
  StringRef op = n.node.op_type();
  TRY(x, n.in(0));
  auto t = tensorType(x);
  int64_t r = t.getRank();
  TRY(modeStr, n.attrString("mode", "nearest"));
  std::string coordStr = "half_pixel", nearestStr = "round_prefer_floor";
  SmallVector<double> scales;
  SmallVector<int64_t> sizes;
  if (op == "Upsample" || n.opset < 11) {
    coordStr = "asymmetric";
    nearestStr = "floor";
    if (op == "Upsample" && n.opset < 9) {
      TRY(s, n.attrFloats("scales"));
      if (!s)
        return n.error("needs the scales attribute");
      scales.assign(s->begin(), s->end());
    } else {
      TRY(s, n.constFloats(1, "scales"));
      scales = s;
    }
  } else {
    TRY(c, n.attrString("coordinate_transformation_mode", "half_pixel"));
    TRY(nm, n.attrString("nearest_mode", "round_prefer_floor"));
    coordStr = c;
    nearestStr = nm;
    if (n.attr("axes") || n.attr("antialias") ||
        n.attr("keep_aspect_ratio_policy"))
      return n.error("axes, antialias and keep_aspect_ratio_policy are not "
                     "supported");
    if (n.hasInput(3)) {
      TRY(s, n.constInts(3, "sizes"));
      sizes = s;
    } else if (n.hasInput(2)) {
      TRY(s, n.constFloats(2, "scales"));
      scales = s;
    }
    if (sizes.empty() && scales.empty())
      return n.error("needs scales or sizes");
  }
  if (sizes.empty()) {
    if ((int64_t)scales.size() != r)
      return n.error("scales must have one entry per dim");
    for (int64_t i = 0; i < r; ++i) {
      if (!(scales[i] > 0))
        return n.error("scales must be positive");
      sizes.push_back((int64_t)std::floor(t.getDimSize(i) * scales[i]));
    }
  }
  if ((int64_t)sizes.size() != r)
    return n.error("sizes must have one entry per dim");
  std::optional<ResizeMode> mode = modeStr == "nearest" ? ResizeMode::nearest
                                   : modeStr == "linear" || modeStr == "bilinear"
                                       ? ResizeMode::linear
                                   : modeStr == "cubic" ? ResizeMode::cubic
                                                        : std::optional<ResizeMode>();
  if (!mode)
    return n.error("unknown mode '" + modeStr + "'");
  std::optional<CoordTransform> coord = symbolizeCoordTransform(coordStr);
  if (!coord)
    return n.error("unknown coordinate_transformation_mode '" + coordStr + "'");
  if (*coord == CoordTransform::tf_crop_and_resize)
    return n.error("tf_crop_and_resize is not supported");
  std::optional<NearestMode> nearest = symbolizeNearestMode(nearestStr);
  if (!nearest)
    return n.error("unknown nearest_mode '" + nearestStr + "'");
  TRY(cubicA, n.attrFloat("cubic_coeff_a", -0.75f));
  TRY(exclude, n.attrInt("exclude_outside", 0));
  MLIRContext *ctx = n.b.getContext();
  if (ArrayRef<int64_t>(sizes) == t.getShape() && *mode == ResizeMode::nearest) {
    n.setOutput(0, x);
    return success();
  }
  n.setOutput(0, ResizeOp::create(n.b, n.loc, RankedTensorType::get(sizes, t.getElementType()),
                                  x, ResizeModeAttr::get(ctx, *mode),
                                  CoordTransformAttr::get(ctx, *coord),
                                  NearestModeAttr::get(ctx, *nearest),
                                  n.b.getF32FloatAttr(cubicA),
                                  exclude ? n.b.getUnitAttr() : UnitAttr())
                     .getResult());
  return success();
}

LogicalResult convertDepthSpace(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  if (t.getRank() != 4)
    return n.error("expects a 4-D input");
  TRY(bs, n.attrInt("blocksize", 0));
  if (bs <= 0)
    return n.error("blocksize must be positive");
  int64_t N = t.getDimSize(0), C = t.getDimSize(1), H = t.getDimSize(2),
          W = t.getDimSize(3);
  Value y;
  if (n.node.op_type() == "DepthToSpace") {
    if (C % (bs * bs))
      return n.error("channels are not divisible by blocksize^2");
    TRY(mode, n.attrString("mode", "DCR"));
    int64_t c = C / (bs * bs);
    SmallVector<int64_t> shape, perm;
    if (mode == "DCR") {
      shape = {N, bs, bs, c, H, W};
      perm = {0, 3, 4, 1, 5, 2};
    } else if (mode == "CRD") {
      shape = {N, c, bs, bs, H, W};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      return n.error("unknown mode '" + mode + "'");
    }
    TRY(tr, make<TransposeOp>(n, n.reshape(x, shape), perm));
    y = n.reshape(tr, {N, c, H * bs, W * bs});
  } else {
    if (H % bs || W % bs)
      return n.error("spatial dims are not divisible by blocksize");
    TRY(tr, make<TransposeOp>(n, n.reshape(x, {N, C, H / bs, bs, W / bs, bs}),
                              ArrayRef<int64_t>{0, 3, 5, 1, 2, 4}));
    y = n.reshape(tr, {N, C * bs * bs, H / bs, W / bs});
  }
  n.setOutput(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

/// Makes indices non-negative along `dim` of size `size` (ONNX allows
/// counting from the end) and i64.
FailureOr<Value> normIndices(NodeContext &n, size_t input, int64_t size) {
  TRY(idx, n.in(input));
  auto t = tensorType(idx);
  Type elt = t.getElementType();
  if (!elt.isInteger(32) && !elt.isInteger(64))
    return n.error("indices must be int32 or int64");
  if (const Known *k = n.known(input)) {
    Known norm = *k;
    bool changed = false;
    for (int64_t &v : norm.ints)
      if (v < 0) {
        v += size;
        changed = true;
      }
    return changed ? n.constant(norm) : idx;
  }
  TRY(neg, make<LtScalarOp>(n, idx, n.scalarAttr(elt, 0)));
  TRY(plus, make<AddScalarOp>(n, idx, n.scalarAttr(elt, (double)size)));
  return make<SelectOp>(n, neg, plus, idx);
}

LogicalResult convertGather(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(idx, n.in(1));
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, tensorType(x).getRank()));
  Type elt = tensorType(idx).getElementType();
  if (!elt.isInteger(32) && !elt.isInteger(64))
    return n.error("indices must be int32 or int64");
  TRY(r, make<IndexSelectOp>(n, x, idx, axis));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertGatherElements(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, tensorType(x).getRank()));
  TRY(idx, normIndices(n, 1, tensorType(x).getDimSize(axis)));
  TRY(r, make<GatherOp>(n, x, idx, axis));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertScatter(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(src, n.in(2));
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, tensorType(x).getRank()));
  TRY(idx, normIndices(n, 1, tensorType(x).getDimSize(axis)));
  TRY(reduction, n.attrString("reduction", "none"));
  FailureOr<Value> r = failure();
  if (reduction == "none")
    r = make<ScatterOp>(n, x, idx, src, axis);
  else if (reduction == "add")
    r = make<ScatterAddOp>(n, x, idx, src, axis);
  else if (reduction == "max")
    r = make<ScatterMaxOp>(n, x, idx, src, axis);
  else if (reduction == "min")
    r = make<ScatterMinOp>(n, x, idx, src, axis);
  else
    return n.error("reduction '" + reduction + "' is not supported");
  if (failed(r))
    return failure();
  n.setOutput(0, *r);
  return success();
}

LogicalResult convertOneHot(NodeContext &n) {
  TRY(idx, n.in(0));
  TRY(depthV, n.constFloats(1, "depth"));
  if (depthV.size() != 1 || depthV[0] < 1)
    return n.error("depth must be one positive value");
  int64_t depth = (int64_t)depthV[0];
  RankedTensorType vt = n.type(2);
  if (!vt || vt.getNumElements() != 2)
    return n.error("values must hold [off, on]");
  TRY(axisAttr, n.attrInt("axis", -1));
  auto it = tensorType(idx);
  TRY(axis, normAxis(n, axisAttr, it.getRank() + 1));
  Type ielt = it.getElementType();
  if (!ielt.isInteger(64) && !ielt.isInteger(32))
    idx = n.cast(idx, n.b.getI64Type());
  // Negative indices count from the end.
  TRY(neg, make<LtScalarOp>(n, idx, n.scalarAttr(tensorType(idx).getElementType(), 0)));
  TRY(plus, make<AddScalarOp>(n, idx, n.scalarAttr(tensorType(idx).getElementType(), depth)));
  TRY(nidx, make<SelectOp>(n, neg, plus, idx));
  SmallVector<int64_t> shape(it.getShape());
  shape.insert(shape.begin() + axis, depth);
  Type elt = vt.getElementType();
  Value oh = OneHotOp::create(n.b, n.loc, RankedTensorType::get(shape, elt), nidx,
                              depth, axis)
                 .getResult();
  // values = [off, on]: off + onehot * (on - off).
  if (const Known *k = n.known(2)) {
    double off = k->asDouble(0), on = k->asDouble(1);
    Value y = oh;
    if (on - off != 1) {
      TRY(m, make<MulScalarOp>(n, y, n.scalarAttr(elt, on - off)));
      y = m;
    }
    if (off != 0) {
      TRY(a, make<AddScalarOp>(n, y, n.scalarAttr(elt, off)));
      y = a;
    }
    n.setOutput(0, y);
    return success();
  }
  TRY(values, n.in(2));
  values = n.reshape(values, {2});
  TRY(off, make<SliceOp>(n, values, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{1},
                         ArrayRef<int64_t>{1}));
  TRY(on, make<SliceOp>(n, values, ArrayRef<int64_t>{1}, ArrayRef<int64_t>{2},
                        ArrayRef<int64_t>{1}));
  TRY(d, make<SubOp>(n, on, off));
  TRY(m, make<MulOp>(n, oh, d));
  TRY(y, make<AddOp>(n, m, off));
  n.setOutput(0, y);
  return success();
}

LogicalResult convertNonZero(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  // Data-dependent: the count is dynamic. hodu gives [count, rank].
  auto rt = RankedTensorType::get({ShapedType::kDynamic, t.getRank()},
                                  n.b.getI64Type());
  Value nz = NonzeroOp::create(n.b, n.loc, rt, x).getResult();
  TRY(tr, make<TransposeOp>(n, nz, ArrayRef<int64_t>{1, 0}));
  n.setOutput(0, tr);
  return success();
}

LogicalResult convertTrilu(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  if (t.getRank() < 2)
    return n.error("expects an input of rank >= 2");
  int64_t k = 0;
  if (n.hasInput(1)) {
    TRY(kv, n.constInts(1, "k"));
    if (kv.size() != 1)
      return n.error("k must hold one value");
    k = kv[0];
  }
  TRY(upper, n.attrInt("upper", 1));
  int64_t rows = t.getDimSize(t.getRank() - 2), cols = t.getDimSize(t.getRank() - 1);
  Known mask;
  mask.shape = {rows, cols};
  mask.elemType = n.b.getI1Type();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      mask.ints.push_back(upper ? j - i >= k : j - i <= k);
  Value zero = n.constant(t.getElementType(), 0);
  TRY(r, make<SelectOp>(n, n.constant(mask), x, zero));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertEyeLike(NodeContext &n) {
  RankedTensorType t = n.type(0);
  if (!t || t.getRank() != 2)
    return n.error("expects a 2-D input");
  TRY(k, n.attrInt("k", 0));
  Type elt = t.getElementType();
  if (n.attr("dtype")) {
    TRY(dt, n.attrInt("dtype", 1));
    elt = onnxElementType(n.graph.ctx, (int)dt);
    if (!elt)
      return n.error("unsupported dtype " + Twine(dt));
  }
  Known eye;
  eye.shape.assign(t.getShape().begin(), t.getShape().end());
  eye.elemType = elt;
  for (int64_t i = 0; i < t.getDimSize(0); ++i)
    for (int64_t j = 0; j < t.getDimSize(1); ++j)
      eye.pushInt(j - i == k);
  n.setKnown(0, eye);
  return success();
}

LogicalResult convertConstant(NodeContext &n) {
  if (const onnx::TensorProto *t = n.attrTensor("value")) {
    auto e = n.graph.decodeTensor(*t, n.loc);
    if (failed(e))
      return n.error("bad value tensor");
    n.graph.values[n.node.output(0)] = *e;
    return success();
  }
  Known k;
  if (const auto *a = n.attr("value_float")) {
    k.elemType = n.b.getF32Type();
    k.floats.push_back(a->f());
  } else if (const auto *a = n.attr("value_int")) {
    k.elemType = n.b.getI64Type();
    k.ints.push_back(a->i());
  } else if (const auto *a = n.attr("value_floats")) {
    k.elemType = n.b.getF32Type();
    k.floats.assign(a->floats().begin(), a->floats().end());
    k.shape = {(int64_t)k.floats.size()};
  } else if (const auto *a = n.attr("value_ints")) {
    k.elemType = n.b.getI64Type();
    k.ints.assign(a->ints().begin(), a->ints().end());
    k.shape = {(int64_t)k.ints.size()};
  } else {
    return n.error("only tensor, float and int values are supported");
  }
  n.setKnown(0, k);
  return success();
}

LogicalResult convertConstantOfShape(NodeContext &n) {
  TRY(shape, n.constInts(0, "shape"));
  for (int64_t d : shape)
    if (d < 0)
      return n.error("negative dim in shape");
  Type elt = n.b.getF32Type();
  double v = 0;
  if (const onnx::TensorProto *t = n.attrTensor("value")) {
    auto e = n.graph.decodeTensor(*t, n.loc);
    if (failed(e) || !e->known || e->known->numElements() != 1)
      return n.error("value must be a one-element tensor");
    elt = e->known->elemType;
    v = e->known->asDouble(0);
  }
  n.setOutput(0, n.constant(elt, v, shape));
  return success();
}

/// Ops that are only evaluated at import time (OnnxFold.cpp): reaching
/// here means an input is computed at run time.
LogicalResult unsupportedRuntime(NodeContext &n) {
  for (size_t i = 0; i < n.numInputs(); ++i)
    if (n.hasInput(i) && !n.known(i))
      return n.notKnownError(i, "an input of an op evaluated at import time");
  return n.error("cannot be evaluated at import time");
}

LogicalResult convertQuantize(NodeContext &n) {
  StringRef op = n.node.op_type();
  TRY(x, n.in(0));
  TRY(scale, n.in(1));
  auto xt = tensorType(x);
  TRY(axisAttr, n.attrInt("axis", 1));
  auto perAxis = [&](Value v) -> FailureOr<Value> {
    auto vt = tensorType(v);
    if (vt.getRank() == 0)
      return v;
    if (vt.getRank() != 1)
      return n.error("scale and zero point must be scalars or 1-D");
    TRY(axis, normAxis(n, axisAttr, xt.getRank()));
    SmallVector<int64_t> shape(xt.getRank(), 1);
    shape[axis] = vt.getDimSize(0);
    if (vt.getDimSize(0) == 1)
      return n.reshape(v, {});
    return n.reshape(v, shape);
  };
  TRY(s, perAxis(scale));
  Type fe = tensorType(s).getElementType();
  Value zp;
  Type qe = IntegerType::get(n.b.getContext(), 8, IntegerType::Unsigned);
  if (n.hasInput(2)) {
    TRY(z, n.in(2));
    TRY(zz, perAxis(z));
    zp = zz;
    qe = tensorType(zz).getElementType();
  }
  if (op == "DequantizeLinear") {
    Value xf = n.cast(x, fe);
    if (zp) {
      TRY(d, make<SubOp>(n, xf, n.cast(zp, fe)));
      xf = d;
    }
    TRY(y, make<MulOp>(n, xf, s));
    n.setOutput(0, y);
    return success();
  }
  TRY(d, make<DivOp>(n, x, s));
  TRY(rd, make<RoundOp>(n, d));
  Value y = rd;
  if (zp) {
    TRY(a, make<AddOp>(n, y, n.cast(zp, fe)));
    y = a;
  }
  unsigned w = qe.getIntOrFloatBitWidth();
  double lo = qe.isUnsignedInteger() ? 0 : -std::ldexp(1.0, w - 1);
  double hi = qe.isUnsignedInteger() ? std::ldexp(1.0, w) - 1
                                     : std::ldexp(1.0, w - 1) - 1;
  TRY(c1, make<MaximumScalarOp>(n, y, n.scalarAttr(fe, lo)));
  TRY(c2, make<MinimumScalarOp>(n, c1, n.scalarAttr(fe, hi)));
  n.setOutput(0, n.cast(c2, qe));
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// NegativeLogLikelihoodLoss over log-probabilities `logp` ([N, C, d...])
/// and targets ([N, d...]); shared with SoftmaxCrossEntropyLoss.
FailureOr<Value> nllLoss(NodeContext &n, Value logp, Value target,
                         size_t weightInput) {
  auto lt = tensorType(logp), tt = tensorType(target);
  if (lt.getRank() < 2 || tt.getRank() != lt.getRank() - 1)
    return n.error("expects input [N, C, d...] and target [N, d...]");
  Type elt = lt.getElementType(), telt = tt.getElementType();
  if (!telt.isInteger(32) && !telt.isInteger(64))
    return n.error("target must be int32 or int64");
  TRY(reduction, n.attrString("reduction", "mean"));
  const auto *iiAttr = n.attr("ignore_index");
  // Ignored targets may be out of range: read class 0 for them instead
  // and give them weight 0.
  Value mask; // i1, true where the target counts
  Value tgt = target;
  if (iiAttr) {
    TRY(m, make<NeScalarOp>(n, target, n.scalarAttr(telt, (double)iiAttr->i())));
    mask = m;
    TRY(t0, make<SelectOp>(n, mask, target, n.constant(telt, 0)));
    tgt = t0;
  }
  TRY(idx, make<UnsqueezeOp>(n, tgt, ArrayRef<int64_t>{1}));
  TRY(picked, make<GatherOp>(n, logp, idx, 1));
  TRY(sq, make<SqueezeOp>(n, picked, ArrayRef<int64_t>{1}));
  TRY(loss, make<NegOp>(n, sq));
  Value w;
  if (n.hasInput(weightInput)) {
    TRY(wt, n.in(weightInput));
    TRY(wsel, make<IndexSelectOp>(n, wt, tgt, 0));
    w = wsel;
  }
  if (mask) {
    Value ones = w ? w : n.constant(elt, 1, tt.getShape());
    TRY(wm, make<SelectOp>(n, mask, ones, n.constant(elt, 0)));
    w = wm;
  }
  if (w) {
    TRY(lw, make<MulOp>(n, loss, w));
    loss = lw;
  }
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < tt.getRank(); ++d)
    all.push_back(d);
  if (reduction == "none")
    return loss;
  TRY(sum, make<ReduceSumOp>(n, loss, all, false));
  if (reduction == "sum")
    return sum;
  if (reduction != "mean")
    return n.error("unknown reduction '" + reduction + "'");
  if (!w)
    return make<DivScalarOp>(n, sum, n.scalarAttr(elt, (double)tt.getNumElements()));
  TRY(wsum, make<ReduceSumOp>(n, w, all, false));
  return make<DivOp>(n, sum, wsum);
}

LogicalResult convertNLLLoss(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(t, n.in(1));
  TRY(loss, nllLoss(n, x, t, 2));
  n.setOutput(0, loss);
  return success();
}

LogicalResult convertSCELoss(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(t, n.in(1));
  if (tensorType(x).getRank() < 2)
    return n.error("expects scores of rank >= 2");
  SmallVector<int64_t> c1 = {1};
  TRY(mx, make<ReduceMaxOp>(n, x, c1, true));
  TRY(sh, make<SubOp>(n, x, mx));
  TRY(e, make<ExpOp>(n, sh));
  TRY(s, make<ReduceSumOp>(n, e, c1, true));
  TRY(l, make<LnOp>(n, s));
  TRY(logp, make<SubOp>(n, sh, l));
  TRY(loss, nllLoss(n, logp, t, 2));
  n.setOutput(0, loss);
  n.setOutput(1, logp);
  return success();
}

LogicalResult convertBitShift(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(y, n.in(1));
  TRY(dir, n.attrString("direction", ""));
  Type elt = tensorType(x).getElementType();
  if (!elt.isUnsignedInteger())
    return n.error("expects unsigned integers");
  // x << y = x * 2^y (wrapping like the shift); x >> y = x / 2^y.
  TRY(p, make<PowOp>(n, n.constant(elt, 2), y));
  FailureOr<Value> r = failure();
  if (dir == "LEFT")
    r = make<MulOp>(n, x, p);
  else if (dir == "RIGHT")
    r = make<DivOp>(n, x, p);
  else
    return n.error("direction must be LEFT or RIGHT");
  if (failed(r))
    return failure();
  n.setOutput(0, *r);
  return success();
}

/// The linear row index of each index tuple (last dim of `indices`) into
/// the first `k` dims of `dataShape`, negative components normalized.
FailureOr<Value> linearIndices(NodeContext &n, ArrayRef<int64_t> dataShape,
                               size_t indicesInput) {
  TRY(idx, n.in(indicesInput));
  auto it = tensorType(idx);
  if (it.getRank() < 1 || !it.getElementType().isInteger(64))
    return n.error("indices must be int64 of rank >= 1");
  int64_t k = it.getDimSize(it.getRank() - 1);
  if (k < 1 || k > (int64_t)dataShape.size())
    return n.error("index tuples of length " + Twine(k) +
                   " do not fit the data's rank");
  Known dims, strides;
  dims.elemType = strides.elemType = n.b.getI64Type();
  dims.shape = strides.shape = {k};
  int64_t stride = 1;
  SmallVector<int64_t> st(k);
  for (int64_t i = k - 1; i >= 0; --i) {
    st[i] = stride;
    stride *= dataShape[i];
  }
  for (int64_t i = 0; i < k; ++i) {
    dims.ints.push_back(dataShape[i]);
    strides.ints.push_back(st[i]);
  }
  TRY(neg, make<LtScalarOp>(n, idx, n.scalarAttr(n.b.getI64Type(), 0)));
  TRY(plus, make<AddOp>(n, idx, n.constant(dims)));
  TRY(norm, make<SelectOp>(n, neg, plus, idx));
  TRY(scaled, make<MulOp>(n, norm, n.constant(strides)));
  return make<ReduceSumOp>(n, scaled, ArrayRef<int64_t>{it.getRank() - 1},
                           false);
}

LogicalResult convertGatherND(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(batch, n.attrInt("batch_dims", 0));
  if (batch != 0)
    return n.error("batch_dims != 0 is not supported");
  auto xt = tensorType(x);
  RankedTensorType it = n.type(1);
  if (!it || it.getRank() < 1)
    return n.error("expects indices of rank >= 1");
  int64_t k = it.getDimSize(it.getRank() - 1);
  TRY(lin, linearIndices(n, xt.getShape(), 1));
  if (k > xt.getRank())
    return n.error("index tuples are longer than the data's rank");
  SmallVector<int64_t> rows = {product(xt.getShape().take_front(k))};
  llvm::append_range(rows, xt.getShape().drop_front(k));
  TRY(r, make<IndexSelectOp>(n, n.reshape(x, rows), lin, 0));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertScatterND(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(upd, n.in(2));
  TRY(reduction, n.attrString("reduction", "none"));
  if (reduction != "none")
    return n.error("reduction '" + reduction + "' is not supported");
  auto xt = tensorType(x);
  RankedTensorType it = n.type(1);
  if (!it || it.getRank() < 1)
    return n.error("expects indices of rank >= 1");
  int64_t k = it.getDimSize(it.getRank() - 1);
  TRY(lin, linearIndices(n, xt.getShape(), 1));
  SmallVector<int64_t> rows = {product(xt.getShape().take_front(k))};
  llvm::append_range(rows, xt.getShape().drop_front(k));
  int64_t m = product(it.getShape().drop_back());
  SmallVector<int64_t> updRows = {m};
  llvm::append_range(updRows, xt.getShape().drop_front(k));
  if (product(updRows) != tensorType(upd).getNumElements())
    return n.error("updates do not match indices and data");
  TRY(r, make<IndexPutOp>(n, n.reshape(x, rows), n.reshape(lin, {m}),
                          n.reshape(upd, updRows), 0));
  n.setOutput(0, n.reshape(r, xt.getShape()));
  return success();
}

LogicalResult convertDynamicQuantize(NodeContext &n) {
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  Type f = xt.getElementType();
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < xt.getRank(); ++d)
    all.push_back(d);
  auto attr = [&](double v) { return n.scalarAttr(f, v); };
  TRY(mx, make<ReduceMaxOp>(n, x, all, false));
  TRY(mn, make<ReduceMinOp>(n, x, all, false));
  TRY(hi, make<MaximumScalarOp>(n, mx, attr(0)));
  TRY(lo, make<MinimumScalarOp>(n, mn, attr(0)));
  TRY(range, make<SubOp>(n, hi, lo));
  TRY(scale, make<DivScalarOp>(n, range, attr(255)));
  TRY(q0, make<DivOp>(n, lo, scale));
  TRY(q1, make<NegOp>(n, q0));
  TRY(q2, make<RoundOp>(n, q1));
  TRY(q3, make<MaximumScalarOp>(n, q2, attr(0)));
  TRY(zpF, make<MinimumScalarOp>(n, q3, attr(255)));
  TRY(d, make<DivOp>(n, x, scale));
  TRY(rd, make<RoundOp>(n, d));
  TRY(a, make<AddOp>(n, rd, zpF));
  TRY(c1, make<MaximumScalarOp>(n, a, attr(0)));
  TRY(c2, make<MinimumScalarOp>(n, c1, attr(255)));
  Type u8 = IntegerType::get(n.b.getContext(), 8, IntegerType::Unsigned);
  n.setOutput(0, n.cast(c2, u8));
  n.setOutput(1, scale);
  n.setOutput(2, n.cast(zpF, u8));
  return success();
}

LogicalResult convertMatMulInteger(NodeContext &n) {
  TRY(a, n.in(0));
  TRY(b, n.in(1));
  Type i32 = n.b.getI32Type();
  Value a32 = n.cast(a, i32), b32 = n.cast(b, i32);
  if (n.hasInput(2)) {
    TRY(za, n.in(2));
    // A 1-D zero point of A runs along the rows (dim -2).
    Value z = n.cast(za, i32);
    if (tensorType(z).getRank() == 1 && tensorType(z).getDimSize(0) != 1)
      z = n.reshape(z, {tensorType(z).getDimSize(0), 1});
    TRY(s, make<SubOp>(n, a32, z));
    a32 = s;
  }
  if (n.hasInput(3)) {
    TRY(zb, n.in(3));
    TRY(s, make<SubOp>(n, b32, n.cast(zb, i32)));
    b32 = s;
  }
  TRY(r, make<MatmulOp>(n, a32, b32));
  n.setOutput(0, r);
  return success();
}

//===----------------------------------------------------------------------===//
// Recurrent layers (RNN, GRU, LSTM), unrolled over the static sequence
//===----------------------------------------------------------------------===//

/// Element `i` of dim `dim`, with that dim dropped.
FailureOr<Value> takeAt(NodeContext &n, Value v, int64_t dim, int64_t i) {
  auto t = tensorType(v);
  if (t.getDimSize(dim) == 1) {
    SmallVector<int64_t> shape(t.getShape());
    shape.erase(shape.begin() + dim);
    return n.reshape(v, shape);
  }
  SmallVector<int64_t> starts(t.getRank(), 0), ends(t.getShape()),
      steps(t.getRank(), 1);
  starts[dim] = i;
  ends[dim] = i + 1;
  TRY(sl, make<SliceOp>(n, v, starts, ends, steps));
  return make<SqueezeOp>(n, sl, ArrayRef<int64_t>{dim});
}

FailureOr<Value> activation(NodeContext &n, StringRef name, Value v) {
  if (name == "Sigmoid")
    return make<SigmoidOp>(n, v);
  if (name == "Tanh")
    return make<TanhOp>(n, v);
  if (name == "Relu")
    return make<ReluOp>(n, v);
  return n.error("activation '" + name + "' is not supported");
}

LogicalResult convertRecurrent(NodeContext &n) {
  StringRef op = n.node.op_type();
  int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
  SmallVector<std::string> defaults =
      op == "LSTM"  ? SmallVector<std::string>{"Sigmoid", "Tanh", "Tanh"}
      : op == "GRU" ? SmallVector<std::string>{"Sigmoid", "Tanh"}
                    : SmallVector<std::string>{"Tanh"};
  TRY(x, n.in(0));
  TRY(w, n.in(1));
  TRY(r, n.in(2));
  TRY(hidden, n.attrInt("hidden_size", 0));
  TRY(layout, n.attrInt("layout", 0));
  TRY(dirStr, n.attrString("direction", "forward"));
  TRY(lbr, n.attrInt("linear_before_reset", 0));
  TRY(inputForget, n.attrInt("input_forget", 0));
  if (inputForget)
    return n.error("input_forget is not supported");
  int64_t dirs = dirStr == "bidirectional" ? 2 : 1;
  if (dirStr != "forward" && dirStr != "reverse" && dirStr != "bidirectional")
    return n.error("unknown direction '" + dirStr + "'");
  SmallVector<std::string> acts;
  if (const auto *a = n.attr("activations")) {
    for (const auto &str : a->strings())
      acts.push_back(str);
  } else {
    for (int64_t d = 0; d < dirs; ++d)
      acts.append(defaults.begin(), defaults.end());
  }
  if (acts.size() != defaults.size() * dirs)
    return n.error("expects " + Twine(defaults.size() * dirs) + " activations");
  if (n.attr("activation_alpha") || n.attr("activation_beta"))
    return n.error("activation_alpha/beta are not supported");
  std::optional<float> clip;
  if (n.attr("clip")) {
    TRY(c, n.attrFloat("clip", 0));
    clip = c;
  }
  if (layout == 1) {
    TRY(t, make<TransposeOp>(n, x, ArrayRef<int64_t>{1, 0, 2}));
    x = t;
  }
  auto xt = tensorType(x);
  if (xt.getRank() != 3)
    return n.error("expects a 3-D input");
  int64_t seq = xt.getDimSize(0), batch = xt.getDimSize(1);
  int64_t H = hidden;
  Type elt = xt.getElementType();
  auto wt = tensorType(w), rt = tensorType(r);
  if (H <= 0 || wt.getRank() != 3 || rt.getRank() != 3 ||
      wt.getDimSize(0) != dirs || wt.getDimSize(1) != gates * H ||
      rt.getDimSize(0) != dirs || rt.getDimSize(1) != gates * H ||
      rt.getDimSize(2) != H || wt.getDimSize(2) != xt.getDimSize(2))
    return n.error("W, R and hidden_size do not fit together");
  if (n.hasInput(4)) {
    const Known *lens = n.known(4);
    if (!lens || llvm::any_of(lens->ints, [&](int64_t l) { return l != seq; }))
      return n.error("sequence_lens other than the full length are not "
                     "supported");
  }

  auto clipped = [&](Value v) -> FailureOr<Value> {
    if (!clip)
      return v;
    TRY(a, make<MaximumScalarOp>(n, v, n.scalarAttr(elt, -*clip)));
    return make<MinimumScalarOp>(n, a, n.scalarAttr(elt, *clip));
  };

  SmallVector<SmallVector<Value>> ys(seq, SmallVector<Value>(dirs));
  SmallVector<Value> lastH, lastC;
  for (int64_t d = 0; d < dirs; ++d) {
    TRY(wd, takeAt(n, w, 0, d));
    TRY(rd, takeAt(n, r, 0, d));
    TRY(wT, make<TransposeOp>(n, wd, ArrayRef<int64_t>{1, 0}));
    TRY(rT, make<TransposeOp>(n, rd, ArrayRef<int64_t>{1, 0}));
    // All input projections at once: [seq, batch, G*H].
    TRY(xw, make<MatmulOp>(n, x, wT));
    Value rb;
    if (n.hasInput(3)) {
      TRY(b, n.in(3));
      TRY(bd, takeAt(n, b, 0, d));
      TRY(parts, makeOp<SplitOp>(n, bd, 0,
                                 ArrayRef<int64_t>{gates * H, gates * H}));
      TRY(xwb, make<AddOp>(n, xw, parts->getResult(0)));
      xw = xwb;
      rb = parts->getResult(1);
    }
    Value h, c;
    if (n.hasInput(5)) {
      TRY(h0, n.in(5));
      TRY(hd, takeAt(n, h0, 0, d));
      h = hd;
    } else {
      h = n.constant(elt, 0, {batch, H});
    }
    if (op == "LSTM") {
      if (n.hasInput(6)) {
        TRY(c0, n.in(6));
        TRY(cd, takeAt(n, c0, 0, d));
        c = cd;
      } else {
        c = n.constant(elt, 0, {batch, H});
      }
    }
    Value pi, po, pf; // LSTM peepholes
    if (op == "LSTM" && n.hasInput(7)) {
      TRY(p, n.in(7));
      TRY(pd, takeAt(n, p, 0, d));
      TRY(parts, makeOp<SplitOp>(n, pd, 0, ArrayRef<int64_t>{H, H, H}));
      pi = parts->getResult(0);
      po = parts->getResult(1);
      pf = parts->getResult(2);
    }
    auto peep = [&](Value g, Value p, Value cell) -> FailureOr<Value> {
      if (!p)
        return g;
      TRY(m, make<MulOp>(n, p, cell));
      return make<AddOp>(n, g, m);
    };
    ArrayRef<std::string> act(acts.data() + d * defaults.size(),
                              defaults.size());
    bool reverse = dirStr == "reverse" || d == 1;
    SmallVector<int64_t> chunk(gates, H);
    for (int64_t step = 0; step < seq; ++step) {
      int64_t t = reverse ? seq - 1 - step : step;
      TRY(xg, takeAt(n, xw, 0, t));
      TRY(hr, make<MatmulOp>(n, h, rT));
      Value hrb = hr;
      if (rb) {
        TRY(a, make<AddOp>(n, hr, rb));
        hrb = a;
      }
      if (op == "RNN") {
        TRY(sum, make<AddOp>(n, xg, hrb));
        TRY(cs, clipped(sum));
        TRY(hn, activation(n, act[0], cs));
        h = hn;
      } else if (op == "LSTM") {
        TRY(sum, make<AddOp>(n, xg, hrb));
        TRY(cs, clipped(sum));
        TRY(g, makeOp<SplitOp>(n, cs, 1, chunk));
        TRY(ip, peep(g->getResult(0), pi, c));
        TRY(fp, peep(g->getResult(2), pf, c));
        TRY(i, activation(n, act[0], ip));
        TRY(f, activation(n, act[0], fp));
        TRY(cc, activation(n, act[1], g->getResult(3)));
        TRY(fc, make<MulOp>(n, f, c));
        TRY(ic, make<MulOp>(n, i, cc));
        TRY(cn, make<AddOp>(n, fc, ic));
        c = cn;
        TRY(op2, peep(g->getResult(1), po, c));
        TRY(o, activation(n, act[0], op2));
        TRY(hc, activation(n, act[2], c));
        TRY(hn, make<MulOp>(n, o, hc));
        h = hn;
      } else { // GRU
        TRY(gx, makeOp<SplitOp>(n, xg, 1, chunk));
        TRY(gh, makeOp<SplitOp>(n, hrb, 1, chunk));
        TRY(zs, make<AddOp>(n, gx->getResult(0), gh->getResult(0)));
        TRY(zc, clipped(zs));
        TRY(z, activation(n, act[0], zc));
        TRY(rs, make<AddOp>(n, gx->getResult(1), gh->getResult(1)));
        TRY(rc, clipped(rs));
        TRY(rg, activation(n, act[0], rc));
        Value hpre;
        if (lbr) {
          TRY(m, make<MulOp>(n, rg, gh->getResult(2)));
          hpre = m;
        } else {
          // (r * H) R_h^T + Rb_h: project the reset state separately.
          TRY(rh, make<MulOp>(n, rg, h));
          TRY(rhT, make<SliceOp>(n, rT, ArrayRef<int64_t>{0, 2 * H},
                                 ArrayRef<int64_t>{H, 3 * H},
                                 ArrayRef<int64_t>{1, 1}));
          TRY(m, make<MatmulOp>(n, rh, rhT));
          hpre = m;
          if (rb) {
            TRY(rbh, make<SliceOp>(n, rb, ArrayRef<int64_t>{2 * H},
                                   ArrayRef<int64_t>{3 * H},
                                   ArrayRef<int64_t>{1}));
            TRY(a, make<AddOp>(n, hpre, rbh));
            hpre = a;
          }
        }
        TRY(hs, make<AddOp>(n, gx->getResult(2), hpre));
        TRY(hcl, clipped(hs));
        TRY(hh, activation(n, act[1], hcl));
        // H = (1 - z) * hh + z * H = hh + z * (H - hh).
        TRY(diff, make<SubOp>(n, h, hh));
        TRY(zd, make<MulOp>(n, z, diff));
        TRY(hn, make<AddOp>(n, hh, zd));
        h = hn;
      }
      if (n.hasOutput(0))
        ys[t][d] = n.reshape(h, {1, 1, batch, H});
    }
    lastH.push_back(n.reshape(h, {1, batch, H}));
    if (c)
      lastC.push_back(n.reshape(c, {1, batch, H}));
  }
  auto concat = [&](ArrayRef<Value> vs, int64_t dim) -> FailureOr<Value> {
    if (vs.size() == 1)
      return vs[0];
    return make<ConcatOp>(n, ValueRange(vs), dim);
  };
  if (n.hasOutput(0)) {
    SmallVector<Value> steps;
    for (auto &perDir : ys) {
      TRY(v, concat(perDir, 1));
      steps.push_back(v);
    }
    TRY(y, concat(steps, 0));
    if (layout == 1) {
      TRY(t, make<TransposeOp>(n, y, ArrayRef<int64_t>{2, 0, 1, 3}));
      y = t;
    }
    n.setOutput(0, y);
  }
  for (auto [out, finals] : {std::pair(1, &lastH), std::pair(2, &lastC)}) {
    if (!n.hasOutput(out) || finals->empty())
      continue;
    TRY(v, concat(*finals, 0));
    if (layout == 1) {
      TRY(t, make<TransposeOp>(n, v, ArrayRef<int64_t>{1, 0, 2}));
      v = t;
    }
    n.setOutput(out, v);
  }
  return success();
}

using Converter = LogicalResult (*)(NodeContext &);

const llvm::StringMap<Converter> &converters() {
  static const llvm::StringMap<Converter> table = {
      // Elementwise arithmetic and comparisons.
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
      {"Dropout", convertDropout},
      // Unary.
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
      {"LeakyRelu", convertScalarActivation},
      {"Elu", convertScalarActivation},
      {"Selu", convertScalarActivation},
      {"Celu", convertScalarActivation},
      {"HardSigmoid", convertScalarActivation},
      {"HardSwish", convertScalarActivation},
      {"ThresholdedRelu", convertScalarActivation},
      {"Shrink", convertScalarActivation},
      {"PRelu", convertScalarActivation},
      // Matrix.
      {"MatMul", binary<MatmulOp>},
      {"Gemm", convertGemm},
      {"Det", convertDet},
      {"Einsum", convertEinsum},
      // Convolution, pooling, normalization.
      {"Conv", convertConv},
      {"ConvTranspose", convertConvTranspose},
      {"MaxPool", convertPool},
      {"AveragePool", convertPool},
      {"LpPool", convertPool},
      {"GlobalAveragePool", convertPool},
      {"GlobalMaxPool", convertPool},
      {"GlobalLpPool", convertPool},
      {"BatchNormalization", convertBatchNorm},
      {"InstanceNormalization", convertInstanceNorm},
      {"LayerNormalization", convertLayerNorm},
      {"MeanVarianceNormalization", convertMVN},
      {"LRN", convertLRN},
      {"Softmax", convertSoftmax},
      {"LogSoftmax", convertSoftmax},
      {"Hardmax", convertSoftmax},
      // Reductions, scans, sorting.
      {"ReduceSum", convertReduce},
      {"ReduceMean", convertReduce},
      {"ReduceMax", convertReduce},
      {"ReduceMin", convertReduce},
      {"ReduceProd", convertReduce},
      {"ReduceL1", convertReduce},
      {"ReduceL2", convertReduce},
      {"ReduceLogSum", convertReduce},
      {"ReduceLogSumExp", convertReduce},
      {"ReduceSumSquare", convertReduce},
      {"ArgMax", convertArg},
      {"ArgMin", convertArg},
      {"CumSum", convertCumSum},
      {"TopK", convertTopK},
      // Shapes.
      {"Reshape", convertReshape},
      {"Flatten", convertFlatten},
      {"Squeeze", convertSqueeze},
      {"Unsqueeze", convertUnsqueeze},
      {"Transpose", convertTranspose},
      {"Expand", convertExpand},
      {"Tile", convertTile},
      {"Concat", convertConcat},
      {"Split", convertSplit},
      {"Slice", convertSlice},
      {"Pad", convertPad},
      {"Resize", convertResize},
      {"Upsample", convertResize},
      {"DepthToSpace", convertDepthSpace},
      {"SpaceToDepth", convertDepthSpace},
      // Indexing and constants.
      {"Gather", convertGather},
      {"GatherElements", convertGatherElements},
      {"ScatterElements", convertScatter},
      {"Scatter", convertScatter},
      {"OneHot", convertOneHot},
      {"NonZero", convertNonZero},
      {"Trilu", convertTrilu},
      {"EyeLike", convertEyeLike},
      {"Constant", convertConstant},
      {"ConstantOfShape", convertConstantOfShape},
      {"Range", unsupportedRuntime},
      {"Shape", unsupportedRuntime},
      {"Size", unsupportedRuntime},
      {"QuantizeLinear", convertQuantize},
      {"NegativeLogLikelihoodLoss", convertNLLLoss},
      {"BitShift", convertBitShift},
      {"RNN", convertRecurrent},
      {"GRU", convertRecurrent},
      {"LSTM", convertRecurrent},
      {"GatherND", convertGatherND},
      {"ScatterND", convertScatterND},
      {"DynamicQuantizeLinear", convertDynamicQuantize},
      {"MatMulInteger", convertMatMulInteger},
      {"SoftmaxCrossEntropyLoss", convertSCELoss},
      {"DequantizeLinear", convertQuantize},
  };
  return table;
}

} // namespace

bool hodu::onnx_import::isSupportedOp(StringRef opType) {
  return converters().count(opType);
}

LogicalResult hodu::onnx_import::convertNode(NodeContext &n) {
  const auto &table = converters();
  auto it = table.find(n.node.op_type());
  if (it == table.end())
    return n.error("unsupported op");
  // Every op is created at the node's location.
  return it->second(n);
}
