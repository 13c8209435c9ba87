//===- OnnxTrainingOps.cpp - the optimizers of ai.onnx.preview.training ---===//
//
// Adagrad, Momentum (standard and Nesterov) and Adam: one optimizer step
// over n tensors, each an elementwise formula of the tensor, its gradient
// and its accumulators, with the learning rate R and the update count T as
// run-time scalars. The formulas are ONNX's (onnx/defs/training/defs.cc).
// Gradient: hodu-autodiff's rules (hodu/Transforms/Gradients.h) over the
// graph imported so far.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "hodu/Transforms/Gradients.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

/// The shared parts of an optimizer node: its tensors' element type, the
/// learning rate and update count as 0-d tensors of it, and how many
/// tensors it updates (inputs R, T, then `groups` lists of n tensors).
struct Step {
  Type elt;
  Value rate, count; // R and T, both of `elt`
  Value started;     // T > 0: a step after the first
  int64_t n;
};

FailureOr<Step> readStep(NodeContext &n, int64_t groups, int64_t outGroups) {
  int64_t tensors = (int64_t)n.numInputs() - 2;
  if (tensors <= 0 || tensors % groups != 0)
    return n.error("takes R, T and " + Twine(groups) +
                   " lists of tensors of equal length; it has " +
                   Twine(n.numInputs()) + " inputs");
  Step s;
  s.n = tensors / groups;
  if ((int64_t)n.numOutputs() != outGroups * s.n)
    return n.error("updates " + Twine(s.n) + " tensors, so it has " +
                   Twine(outGroups * s.n) + " outputs, not " +
                   Twine(n.numOutputs()));
  TRY(x0, n.in(2));
  Type elt = tensorType(x0).getElementType();
  if (!isa<FloatType>(elt))
    return n.error("updates tensors of a floating-point type");
  s.elt = elt;
  TRY(rate, scalarInput(n, 0, elt, "R"));
  TRY(count, scalarInput(n, 1, n.b.getI64Type(), "T"));
  TRY(started, make<GtScalarOp>(n, count, n.scalarAttr(n.b.getI64Type(), 0)));
  s.rate = rate;
  s.count = n.cast(count, elt);
  s.started = started;
  return s;
}

/// `alpha * a + beta * b`, an attribute-weighted sum.
FailureOr<Value> weighted(NodeContext &n, Type elt, double alpha, Value a,
                          double beta, Value b) {
  TRY(x, make<MulScalarOp>(n, a, n.scalarAttr(elt, alpha)));
  TRY(y, make<MulScalarOp>(n, b, n.scalarAttr(elt, beta)));
  return make<AddOp>(n, x, y);
}

/// The gradient with the L2 term: norm_coefficient * X + G.
FailureOr<Value> regularized(NodeContext &n, Type elt, double norm, Value x,
                             Value g) {
  if (norm == 0)
    return g;
  return weighted(n, elt, norm, x, 1, g);
}

LogicalResult convertAdagrad(NodeContext &n) {
  TRY(s, readStep(n, 3, 2));
  TRY(decay, n.attrFloat("decay_factor", 0));
  TRY(eps, n.attrFloat("epsilon", 1e-6f));
  TRY(norm, n.attrFloat("norm_coefficient", 0));
  // r = R / (1 + T * decay_factor)
  TRY(t1, make<MulScalarOp>(n, s.count, n.scalarAttr(s.elt, decay)));
  TRY(den, make<AddScalarOp>(n, t1, n.scalarAttr(s.elt, 1)));
  TRY(r, make<DivOp>(n, s.rate, den));
  for (int64_t i = 0; i < s.n; ++i) {
    TRY(x, n.in(2 + i));
    TRY(g, n.in(2 + s.n + i));
    TRY(h, n.in(2 + 2 * s.n + i));
    TRY(greg, regularized(n, s.elt, norm, x, g));
    TRY(sq, make<SquareOp>(n, greg));
    TRY(hNew, make<AddOp>(n, h, sq));
    TRY(root, make<SqrtOp>(n, hNew));
    TRY(adaptive, make<AddScalarOp>(n, root, n.scalarAttr(s.elt, eps)));
    TRY(scaled, make<MulOp>(n, r, greg));
    TRY(step, make<DivOp>(n, scaled, adaptive));
    TRY(xNew, make<SubOp>(n, x, step));
    n.setOutput(i, xNew);
    n.setOutput(s.n + i, hNew);
  }
  return success();
}

LogicalResult convertMomentum(NodeContext &n) {
  TRY(s, readStep(n, 3, 2));
  TRY(alpha, n.attrFloat("alpha", 0));
  TRY(beta, n.attrFloat("beta", 0));
  TRY(norm, n.attrFloat("norm_coefficient", 0));
  TRY(mode, n.attrString("mode", "standard"));
  if (mode != "standard" && mode != "nesterov")
    return n.error("mode is '" + mode +
                   "'; ONNX defines 'standard' and 'nesterov'");
  // The first step (T = 0) takes the gradient whole.
  TRY(betaT, make<SelectOp>(n, s.started, n.constant(s.elt, beta),
                            n.constant(s.elt, 1)));
  for (int64_t i = 0; i < s.n; ++i) {
    TRY(x, n.in(2 + i));
    TRY(g, n.in(2 + s.n + i));
    TRY(v, n.in(2 + 2 * s.n + i));
    TRY(greg, regularized(n, s.elt, norm, x, g));
    TRY(kept, make<MulScalarOp>(n, v, n.scalarAttr(s.elt, alpha)));
    TRY(fresh, make<MulOp>(n, betaT, greg));
    TRY(vNew, make<AddOp>(n, kept, fresh));
    Value dir = vNew;
    if (mode == "nesterov") {
      TRY(ahead, make<MulScalarOp>(n, vNew, n.scalarAttr(s.elt, alpha)));
      TRY(sum, make<AddOp>(n, greg, ahead));
      dir = sum;
    }
    TRY(step, make<MulOp>(n, s.rate, dir));
    TRY(xNew, make<SubOp>(n, x, step));
    n.setOutput(i, xNew);
    n.setOutput(s.n + i, vNew);
  }
  return success();
}

LogicalResult convertAdam(NodeContext &n) {
  TRY(s, readStep(n, 4, 3));
  TRY(alpha, n.attrFloat("alpha", 0.9f));
  TRY(beta, n.attrFloat("beta", 0.999f));
  TRY(eps, n.attrFloat("epsilon", 1e-6f));
  TRY(norm, n.attrFloat("norm_coefficient", 0));
  TRY(normPost, n.attrFloat("norm_coefficient_post", 0));
  // R * sqrt(1 - beta^T) / (1 - alpha^T) once T > 0 (bias correction).
  TRY(betaT, make<PowOp>(n, n.constant(s.elt, beta), s.count));
  TRY(alphaT, make<PowOp>(n, n.constant(s.elt, alpha), s.count));
  TRY(oneMinusB, make<SubOp>(n, n.constant(s.elt, 1), betaT));
  TRY(oneMinusA, make<SubOp>(n, n.constant(s.elt, 1), alphaT));
  TRY(rootB, make<SqrtOp>(n, oneMinusB));
  TRY(num, make<MulOp>(n, s.rate, rootB));
  TRY(corrected, make<DivOp>(n, num, oneMinusA));
  TRY(rate, make<SelectOp>(n, s.started, corrected, s.rate));
  for (int64_t i = 0; i < s.n; ++i) {
    TRY(x, n.in(2 + i));
    TRY(g, n.in(2 + s.n + i));
    TRY(v, n.in(2 + 2 * s.n + i));
    TRY(h, n.in(2 + 3 * s.n + i));
    TRY(greg, regularized(n, s.elt, norm, x, g));
    TRY(vNew, weighted(n, s.elt, alpha, v, 1 - (double)alpha, greg));
    TRY(sq, make<SquareOp>(n, greg));
    TRY(hNew, weighted(n, s.elt, beta, h, 1 - (double)beta, sq));
    TRY(root, make<SqrtOp>(n, hNew));
    TRY(hs, make<AddScalarOp>(n, root, n.scalarAttr(s.elt, eps)));
    TRY(ratio, make<DivOp>(n, vNew, hs));
    TRY(step, make<MulOp>(n, rate, ratio));
    TRY(xNew, make<SubOp>(n, x, step));
    Value xFinal = xNew;
    if (normPost != 0) {
      TRY(decayed, make<MulScalarOp>(
                       n, xNew, n.scalarAttr(s.elt, 1 - (double)normPost)));
      xFinal = decayed;
    }
    n.setOutput(i, xFinal);
    n.setOutput(s.n + i, vNew);
    n.setOutput(2 * s.n + i, hNew);
  }
  return success();
}

/// Gradient: the gradients of the graph value named by `y` with respect to
/// the node's first inputs (attribute `xs` names them; `zs`, the inputs
/// after them, are only what the differentiated graph reads), by
/// hodu-autodiff's rules over the ops imported so far. ONNX leaves the seed
/// of a `y` of several elements open; here it is ones (the gradient of its
/// sum), which for the usual scalar loss is the derivative itself.
LogicalResult convertGradient(NodeContext &n) {
  const onnx::AttributeProto *xs = n.attr("xs");
  TRY(yName, n.attrString("y", ""));
  if (!xs || xs->strings_size() == 0 || yName.empty())
    return n.error("needs the attributes xs (the inputs to differentiate "
                   "with respect to) and y (the value to differentiate)");
  size_t count = (size_t)xs->strings_size();
  if (n.numInputs() < count || n.numOutputs() != count)
    return n.error("differentiates with respect to " + Twine(count) +
                   " tensors (xs), so it has at least that many inputs and "
                   "exactly that many outputs; it has " +
                   Twine(n.numInputs()) + " and " + Twine(n.numOutputs()));
  SmallVector<Value> wrt;
  for (size_t i = 0; i < count; ++i) {
    TRY(x, n.in(i));
    if (!isa<FloatType>(tensorType(x).getElementType()))
      return n.error("xs entry '" + Twine(xs->strings((int)i)) +
                     "' is not a floating-point tensor: it has no gradient");
    wrt.push_back(x);
  }
  if (!n.graph.values.count(yName))
    return n.error("y '" + Twine(yName) +
                   "' is not a value of the graph computed before this node");
  Value y = n.graph.materialize(yName, n.loc);
  if (!y || !isa<FloatType>(tensorType(y).getElementType()))
    return n.error("y '" + Twine(yName) + "' is not a floating-point tensor");
  FailureOr<SmallVector<Value>> grads =
      buildGradients(n.b, n.loc, *n.b.getInsertionBlock(), y, wrt);
  if (failed(grads))
    return n.error("cannot differentiate '" + Twine(yName) +
                   "' (the error above names the op without a gradient "
                   "rule)");
  for (size_t i = 0; i < count; ++i)
    n.setOutput(i, (*grads)[i]);
  return success();
}

} // namespace

void hodu::onnx_import::registerTrainingOps(ConverterTable &table) {
  table.insert({
      {trainingOpKey("Gradient"), convertGradient},
      {trainingOpKey("Adagrad"), convertAdagrad},
      {trainingOpKey("Momentum"), convertMomentum},
      {trainingOpKey("Adam"), convertAdam},
  });
}
