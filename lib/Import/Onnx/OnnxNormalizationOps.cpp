//===- OnnxNormalizationOps.cpp - normalization, softmax, losses ----------===//
//
// Normalizations (BatchNormalization, InstanceNormalization,
// LayerNormalization, GroupNormalization, LpNormalization,
// MeanVarianceNormalization, LRN), AffineGrid, Softmax, LogSoftmax and
// Hardmax, and the losses (NegativeLogLikelihoodLoss,
// SoftmaxCrossEntropyLoss).
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

#include <cmath>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// (x - mean) / sqrt(var + eps); `sdOut` receives sqrt(var + eps).
FailureOr<Value> standardize(NodeContext &n, Value x, Value mean, Value var,
                             double eps, Value *sdOut = nullptr) {
  Type elt = tensorType(x).getElementType();
  TRY(ve, make<AddScalarOp>(n, var, n.scalarAttr(elt, eps)));
  TRY(sd, make<SqrtOp>(n, ve));
  TRY(c, make<SubOp>(n, x, mean));
  if (sdOut)
    *sdOut = sd;
  return make<DivOp>(n, c, sd);
}

/// (x - mean) / sqrt(var + eps), with mean and var over `dims` (kept).
FailureOr<Value> normalize(NodeContext &n, Value x, ArrayRef<int64_t> dims,
                           double eps, Value *meanOut = nullptr,
                           Value *invStdOut = nullptr,
                           Value *varOut = nullptr) {
  TRY(mean, make<ReduceMeanOp>(n, x, dims, true));
  TRY(var, make<ReduceVarOp>(n, x, dims, true));
  Value sd;
  TRY(y, standardize(n, x, mean, var, eps, &sd));
  if (meanOut)
    *meanOut = mean;
  if (varOut)
    *varOut = var;
  if (invStdOut) {
    TRY(inv, make<RecipOp>(n, sd));
    *invStdOut = inv;
  }
  return y;
}

/// y * scale + bias.
FailureOr<Value> scaleShift(NodeContext &n, Value y, Value scale, Value bias) {
  TRY(m, make<MulOp>(n, y, scale));
  return make<AddOp>(n, m, bias);
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

/// y * scale + bias with the per-channel scale and bias of inputs 1 and 2
/// (BatchNormalization, InstanceNormalization, GroupNormalization-21).
FailureOr<Value> channelScaleShift(NodeContext &n, Value y, int64_t rank) {
  TRY(scale, perChannel(n, 1, rank));
  TRY(bias, perChannel(n, 2, rank));
  return scaleShift(n, y, scale, bias);
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
    Value mean, var;
    TRY(d, normalize(n, x, dims, eps, &mean, nullptr, &var));
    TRY(y, channelScaleShift(n, d, rank));
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
  TRY(d, standardize(n, x, mean, var, eps));
  TRY(y, scaleShift(n, d, scale, bias));
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
  TRY(r, channelScaleShift(n, y, rank));
  n.setOutput(0, r);
  return success();
}

/// GroupNormalization (opset 18; 21 with per-channel scale and bias): the
/// channels split into `num_groups` groups, each normalized over its
/// channels and the spatial dims, then scaled and shifted.
LogicalResult convertGroupNorm(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(eps, n.attrFloat("epsilon", 1e-5f));
  TRY(groups, n.attrInt("num_groups", 0));
  auto xt = tensorType(x);
  int64_t rank = xt.getRank();
  if (rank < 3)
    return n.error("expects an input of rank >= 3");
  int64_t batch = xt.getDimSize(0), channels = xt.getDimSize(1);
  if (groups < 1 || channels % groups != 0)
    return n.error("num_groups " + Twine(groups) + " must divide the " +
                   Twine(channels) + " channels");
  int64_t per = xt.getNumElements() / (batch * groups);
  Value grouped = n.reshape(x, {batch, groups, per});
  TRY(y, normalize(n, grouped, ArrayRef<int64_t>{2}, eps));
  // Scale and bias: one per group before opset 21, one per channel after.
  int64_t entries = n.opset >= 21 ? channels : groups;
  for (size_t i : {1, 2}) {
    RankedTensorType t = n.type(i);
    if (!t || t.getRank() != 1 || t.getDimSize(0) != entries)
      return n.error("input #" + Twine(i) + " must hold " + Twine(entries) +
                     (n.opset >= 21 ? " values (one per channel)"
                                    : " values (one per group)"));
  }
  if (n.opset < 21) {
    TRY(scale, n.in(1));
    TRY(bias, n.in(2));
    TRY(r, scaleShift(n, y, n.reshape(scale, {groups, 1}),
                      n.reshape(bias, {groups, 1})));
    n.setOutput(0, n.reshape(r, xt.getShape()));
    return success();
  }
  TRY(r, channelScaleShift(n, n.reshape(y, xt.getShape()), rank));
  n.setOutput(0, r);
  return success();
}

/// LpNormalization: x divided by its L1 or L2 norm along `axis`.
LogicalResult convertLpNorm(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(axisAttr, n.attrInt("axis", -1));
  TRY(p, n.attrInt("p", 2));
  if (p != 1 && p != 2)
    return n.error("p must be 1 or 2, not " + Twine(p));
  TRY(axis, normAxis(n, axisAttr, tensorType(x).getRank()));
  FailureOr<Value> mag = p == 1 ? make<AbsOp>(n, x) : make<MulOp>(n, x, x);
  if (failed(mag))
    return failure();
  TRY(sum, make<ReduceSumOp>(n, *mag, ArrayRef<int64_t>{axis}, true));
  Value norm = sum;
  if (p == 2) {
    TRY(root, make<SqrtOp>(n, sum));
    norm = root;
  }
  TRY(r, make<DivOp>(n, x, norm));
  n.setOutput(0, r);
  return success();
}

/// AffineGrid (opset 20): the sampling grid of GridSample for affine
/// matrices theta [N, 2, 3] (2-D) or [N, 3, 4] (3-D): a constant grid of
/// normalized output coordinates (with a 1 appended) times theta^T.
LogicalResult convertAffineGrid(NodeContext &n) {
  TRY(theta, n.in(0));
  TRY(size, n.constInts(1, "size"));
  TRY(align, n.attrInt("align_corners", 0));
  auto tt = tensorType(theta);
  int64_t spatial = (int64_t)size.size() - 2;
  if ((spatial != 2 && spatial != 3) || tt.getRank() != 3 ||
      tt.getDimSize(1) != spatial || tt.getDimSize(2) != spatial + 1 ||
      tt.getDimSize(0) != size[0] || !isFloatTensor(theta))
    return n.error("expects theta [N, 2, 3] with size [N, C, H, W], or "
                   "[N, 3, 4] with size [N, C, D, H, W]");
  SmallVector<int64_t> dims(size.begin() + 2, size.end()); // (D,) H, W
  int64_t points = 1;
  for (int64_t d : dims) {
    if (d < 1 || d > (int64_t(1) << 20))
      return n.error("output sizes must be in [1, 2^20]");
    points *= d;
  }
  if (points > (int64_t(1) << 24))
    return n.error("the grid would have more than 2^24 points");
  // Normalized coordinate of index i of a dim of size s.
  auto coord = [&](int64_t i, int64_t s) {
    if (s == 1)
      return 0.0;
    return align ? -1.0 + 2.0 * i / (s - 1) : (2.0 * i + 1.0) / s - 1.0;
  };
  Type elt = tt.getElementType();
  ConstantWriter base(RankedTensorType::get({points, spatial + 1}, elt),
                      kSmallTensorBytes);
  for (int64_t k = 0; k < points; ++k) {
    // Row-major over (D,) H, W; the grid's last dim is (x, y(, z)).
    int64_t rest = k;
    SmallVector<int64_t> idx(spatial);
    for (int64_t d = spatial - 1; d >= 0; --d) {
      idx[d] = rest % dims[d];
      rest /= dims[d];
    }
    for (int64_t c = 0; c < spatial; ++c) {
      int64_t d = spatial - 1 - c; // x is the last dim, y the one before
      base.setF(k * (spatial + 1) + c, coord(idx[d], dims[d]));
    }
    base.setF(k * (spatial + 1) + spatial, 1.0);
  }
  TRY(thetaT, make<TransposeOp>(n, theta, ArrayRef<int64_t>{0, 2, 1}));
  TRY(grid, make<MatmulOp>(n, n.constant(base.finish()), thetaT));
  SmallVector<int64_t> shape = {size[0]};
  llvm::append_range(shape, dims);
  shape.push_back(spatial);
  n.setOutput(0, n.reshape(grid, shape));
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

/// RMSNormalization (opset 23): x / sqrt(mean(x^2 over axis..) + epsilon)
/// * scale, in stash_type (f32 by default) where that is wider than x's
/// type.
LogicalResult convertRMSNorm(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(scale, n.in(1));
  TRY(eps, n.attrFloat("epsilon", 1e-5f));
  TRY(axisAttr, n.attrInt("axis", -1));
  TRY(stash, n.attrInt("stash_type", ::onnx::TensorProto::FLOAT));
  auto t = tensorType(x);
  Type elt = t.getElementType();
  if (!isa<FloatType>(elt))
    return n.error("expects a float input");
  int64_t rank = t.getRank();
  TRY(axis, normAxis(n, axisAttr, rank));
  Type work = elt;
  if (stash == ::onnx::TensorProto::FLOAT && elt.getIntOrFloatBitWidth() < 32)
    work = n.b.getF32Type();
  else if (stash == ::onnx::TensorProto::DOUBLE)
    work = n.b.getF64Type();
  else if (stash != ::onnx::TensorProto::FLOAT &&
           stash != ::onnx::TensorProto::FLOAT16 &&
           stash != ::onnx::TensorProto::BFLOAT16)
    return n.error("stash_type " + Twine(stash) + " is not a float type");
  Value xs = work == elt ? x : n.cast(x, work);
  SmallVector<int64_t> dims;
  for (int64_t d = axis; d < rank; ++d)
    dims.push_back(d);
  TRY(sq, make<SquareOp>(n, xs));
  TRY(mean, make<ReduceMeanOp>(n, sq, dims, true));
  TRY(shifted, make<AddScalarOp>(n, mean, n.scalarAttr(work, eps)));
  TRY(rms, make<SqrtOp>(n, shifted));
  TRY(y, make<DivOp>(n, xs, rms));
  Value scaled = scale;
  if (work != tensorType(scale).getElementType())
    scaled = n.cast(scale, work);
  TRY(r, make<MulOp>(n, y, scaled));
  n.setOutput(0, work == elt ? r : n.cast(r, elt));
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

} // namespace

void hodu::onnx_import::registerNormalizationOps(ConverterTable &table) {
  table.insert({
      {"BatchNormalization", convertBatchNorm},
      {"InstanceNormalization", convertInstanceNorm},
      {"LayerNormalization", convertLayerNorm},
      {"RMSNormalization", convertRMSNorm},
      {"GroupNormalization", convertGroupNorm},
      {"LpNormalization", convertLpNorm},
      {"AffineGrid", convertAffineGrid},
      {"MeanVarianceNormalization", convertMVN},
      {"LRN", convertLRN},
      {"Softmax", convertSoftmax},
      {"LogSoftmax", convertSoftmax},
      {"Hardmax", convertSoftmax},
      {"NegativeLogLikelihoodLoss", convertNLLLoss},
      {"SoftmaxCrossEntropyLoss", convertSCELoss},
  });
}
