//===- OnnxNNOps.cpp - convolution, pooling, normalization ----------------===//
//
// Convolutions, pooling, normalizations, softmax and the losses.
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

/// Sets output 0 to the convolution `y` plus the optional 1-D bias (input 2)
/// broadcast over [C, 1, ...].
LogicalResult setConvOutput(NodeContext &n, Value y) {
  if (n.hasInput(2)) {
    TRY(bias, n.in(2));
    auto t = tensorType(y);
    if (tensorType(bias).getRank() != 1)
      return n.error("expects a 1-D bias");
    SmallVector<int64_t> shape(t.getRank() - 1, 1);
    shape[0] = tensorType(bias).getDimSize(0);
    TRY(r, make<AddOp>(n, y, n.reshape(bias, shape)));
    y = r;
  }
  n.setOutput(0, y);
  return success();
}

/// The operands of Conv and ConvTranspose: input and weights of one rank,
/// 3 to 5, and a positive group count.
struct ConvOperands {
  Value x, w;
  RankedTensorType xt, wt;
  int64_t group;
  /// The number of spatial dims.
  int64_t spatialRank() const { return xt.getRank() - 2; }
};

FailureOr<ConvOperands> convOperands(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(w, n.in(1));
  auto xt = tensorType(x), wt = tensorType(w);
  if (xt.getRank() < 3 || xt.getRank() > 5 || wt.getRank() != xt.getRank())
    return n.error("expects input and weights of rank 3, 4 or 5");
  TRY(group, n.attrInt("group", 1));
  if (group <= 0)
    return n.error("group must be positive");
  return ConvOperands{x, w, xt, wt, group};
}

/// hodu.conv of `x` and `w` (float, same type) with the node's window
/// attributes (kernel_shape, strides, pads, dilations, auto_pad, group).
FailureOr<Value> buildConv(NodeContext &n, Value x, Value w, int64_t group) {
  auto xt = tensorType(x), wt = tensorType(w);
  int64_t r = xt.getRank() - 2;
  TRY(p, windowParams(n, xt.getShape().drop_front(2),
                      wt.getShape().drop_front(2), false));
  if (ArrayRef<int64_t>(p.kernel) != wt.getShape().drop_front(2))
    return n.error("kernel_shape does not match the weights");
  SmallVector<int64_t> shape = {xt.getDimSize(0), wt.getDimSize(0)};
  for (int64_t i = 0; i < r; ++i)
    shape.push_back(convOut(xt.getDimSize(2 + i), p.kernel[i], p.strides[i],
                            p.dilations[i], p.pads[i], p.pads[r + i]));
  return ConvOp::create(n.b, n.loc,
                        RankedTensorType::get(shape, xt.getElementType()), x,
                        w, p.strides, p.pads, p.dilations, group)
      .getResult();
}

LogicalResult convertConv(NodeContext &n) {
  TRY(c, convOperands(n));
  TRY(y, buildConv(n, c.x, c.w, c.group));
  return setConvOutput(n, y);
}

/// `v - zeroPoint` in float type `ft`. A zero point is a scalar (or one
/// element), or, with `channelDim` >= 0, one entry per index of that dim.
FailureOr<Value> centered(NodeContext &n, Value v, std::optional<Value> zero,
                          Type ft, int64_t channelDim) {
  Value f = n.cast(v, ft);
  if (!zero)
    return f;
  Value z = n.cast(*zero, ft);
  auto zt = tensorType(z);
  if (zt.getNumElements() == 1) {
    z = n.reshape(z, {});
  } else if (zt.getRank() == 1 && channelDim >= 0 &&
             zt.getDimSize(0) == tensorType(v).getDimSize(channelDim)) {
    SmallVector<int64_t> shape(tensorType(v).getRank(), 1);
    shape[channelDim] = zt.getDimSize(0);
    z = n.reshape(z, shape);
  } else {
    return n.error("a zero point must be a scalar or have one entry per "
                   "channel");
  }
  return make<SubOp>(n, f, z);
}

std::optional<Value> optionalInput(NodeContext &n, size_t i) {
  if (!n.hasInput(i))
    return std::nullopt;
  FailureOr<Value> v = n.in(i);
  return succeeded(v) ? std::optional<Value>(*v) : std::nullopt;
}

/// The integer convolution of ConvInteger and QLinearConv: (x - x_zp) *
/// (w - w_zp), x, w and their zero points inputs `xIn`, `wIn`, `xZeroIn`,
/// `wZeroIn` (zero points optional); float (whole numbers) or int32.
/// Computed in f32 when every partial sum is an integer f32 holds exactly
/// (integerDotBound: with the weights known at import time their values
/// decide, else the worst case of their type). Else, ungrouped, the input
/// channels are split into the fewest equal parts whose sums each f32 holds
/// exactly (at most 16): one f32 convolution per part, added in int32.
/// Else in f64. The sums are exact either way.
FailureOr<Value> integerConv(NodeContext &n, size_t xIn, size_t xZeroIn,
                             size_t wIn, size_t wZeroIn, int64_t group) {
  TRY(x, n.in(xIn));
  TRY(w, n.in(wIn));
  auto xt = tensorType(x), wt = tensorType(w);
  if (!isa<IntegerType>(xt.getElementType()) ||
      !isa<IntegerType>(wt.getElementType()))
    return n.error("expects integer input and weights");
  if (xt.getRank() < 3 || xt.getRank() > 5 || wt.getRank() != xt.getRank())
    return n.error("expects input and weights of rank 3, 4 or 5");
  // Output channel f sums over w[f]'s C/group channels x taps.
  int64_t filters = std::max<int64_t>(wt.getDimSize(0), 1),
          channels = std::max<int64_t>(wt.getDimSize(1), 1);
  int64_t terms = product(wt.getShape()) / filters, taps = terms / channels;
  double xBound = integerOperandBound(n, xt.getElementType(), xZeroIn);
  // |w - w_zp| summed over the taps of each (filter, channel), when the
  // weights are known: the sums over any split of the channels add these,
  // so the weights are read once, not once per split tried.
  std::optional<std::vector<double>> perChannel = integerTermSums(
      n, wIn, wZeroIn, filters * channels, [&](int64_t i) { return i / taps; },
      [&](int64_t i) { return i / terms; });
  // The bound of the sums over `parts` parts of the channels.
  auto boundOf = [&](int64_t parts) {
    int64_t per = llvm::divideCeil(channels, parts);
    if (!perChannel)
      return xBound * integerOperandBound(n, wt.getElementType(), wZeroIn) *
             double(per * taps);
    double largest = 0;
    for (int64_t f = 0; f < filters; ++f)
      for (int64_t lo = 0; lo < channels; lo += per) {
        double sum = 0;
        for (int64_t c = lo, e = std::min(channels, lo + per); c < e; ++c)
          sum += (*perChannel)[static_cast<size_t>(f * channels + c)];
        largest = std::max(largest, sum);
      }
    return xBound * largest;
  };
  int64_t parts = 1;
  if (!exactInF32(boundOf(1)))
    parts = group == 1 ? fewestExactParts(channels, boundOf) : 0;
  Type ft = parts ? (Type)n.b.getF32Type() : (Type)n.b.getF64Type();
  TRY(xf, centered(n, x, optionalInput(n, xZeroIn), ft, -1));
  TRY(wf, centered(n, w, optionalInput(n, wZeroIn), ft, 0));
  if (parts <= 1)
    return buildConv(n, xf, wf, group);
  // One f32 convolution per part of the channels (dim 1 of both).
  return sumOfParts(n, channels, parts,
                    [&](int64_t lo, int64_t hi) -> FailureOr<Value> {
                      TRY(xs, sliceDim(n, xf, 1, lo, hi));
                      TRY(ws, sliceDim(n, wf, 1, lo, hi));
                      return buildConv(n, xs, ws, 1);
                    });
}

LogicalResult convertConvInteger(NodeContext &n) {
  TRY(group, n.attrInt("group", 1));
  if (group <= 0)
    return n.error("group must be positive");
  TRY(acc, integerConv(n, 0, 2, 1, 3, group));
  n.setOutput(0, n.cast(acc, n.b.getI32Type()));
  return success();
}

/// QLinearConv: the integer convolution (+ the int32 bias), scaled by
/// x_scale * w_scale / y_scale (w_scale per output channel or one),
/// rounded half to even, shifted by y_zero_point and saturated to y's type.
LogicalResult convertQLinearConv(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(xScale, n.in(1));
  TRY(wScale, n.in(4));
  TRY(yScale, n.in(6));
  TRY(group, n.attrInt("group", 1));
  if (group <= 0)
    return n.error("group must be positive");
  TRY(acc, integerConv(n, 0, 2, 3, 5, group));
  Type ft = tensorType(xScale).getElementType();
  Value accF = n.cast(acc, ft);
  int64_t channels = tensorType(acc).getDimSize(1);
  SmallVector<int64_t> perChannel(tensorType(acc).getRank(), 1);
  perChannel[1] = channels;
  if (n.hasInput(8)) {
    TRY(bias, n.in(8));
    if (tensorType(bias).getRank() != 1 ||
        tensorType(bias).getDimSize(0) != channels)
      return n.error("expects a bias of one entry per output channel");
    TRY(withBias, make<AddOp>(n, accF, n.reshape(n.cast(bias, ft), perChannel)));
    accF = withBias;
  }
  auto scalarOrChannels = [&](Value s) -> FailureOr<Value> {
    auto st = tensorType(s);
    if (st.getNumElements() == 1)
      return n.reshape(s, {});
    if (st.getRank() == 1 && st.getDimSize(0) == channels)
      return n.reshape(s, perChannel);
    return n.error("a scale must be a scalar or have one entry per channel");
  };
  TRY(xs, scalarOrChannels(xScale));
  TRY(ws, scalarOrChannels(wScale));
  TRY(ys, scalarOrChannels(yScale));
  TRY(m0, make<MulOp>(n, xs, ws));
  TRY(multiplier, make<DivOp>(n, m0, ys));
  TRY(y, requantize(n, accF, multiplier, optionalInput(n, 7),
                    tensorType(x).getElementType()));
  n.setOutput(0, y);
  return success();
}

LogicalResult convertConvTranspose(NodeContext &n) {
  TRY(c, convOperands(n));
  auto [x, w, xt, wt, group] = c;
  int64_t r = c.spatialRank();
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
  return setConvOutput(n, y);
}

/// MaxPool's Indices output: for each window, the flat index into the
/// whole input ([N, C, spatial...], padding not counted; spatial dims in
/// column-major order with storage_order = 1) of its first maximum. The
/// window's taps are strided slices of the padded input stacked along a new
/// dim; the winning tap's coordinates are computed back from its number.
LogicalResult maxPoolIndices(NodeContext &n, Value x, const WindowParams &p) {
  auto xt = tensorType(x);
  int64_t rank = xt.getRank(), r = rank - 2;
  ArrayRef<int64_t> in = xt.getShape().drop_front(2);
  TRY(order, n.attrInt("storage_order", 0));
  if (order != 0 && order != 1)
    return n.error("storage_order must be 0 or 1");
  int64_t taps = product(p.kernel);
  if (taps > 1024)
    return n.error("the Indices output is supported for windows of up to "
                   "1024 taps, not " + Twine(taps));
  Type elt = xt.getElementType();
  SmallVector<int64_t> pads(2 * rank, 0), out;
  for (int64_t i = 0; i < r; ++i) {
    pads[2 + i] = p.pads[i];
    pads[rank + 2 + i] = p.pads[r + i];
    out.push_back(convOut(in[i], p.kernel[i], p.strides[i], p.dilations[i],
                          p.pads[i], p.pads[r + i]));
  }
  Value padded = x;
  if (llvm::any_of(pads, [](int64_t v) { return v != 0; })) {
    double lowest = isa<FloatType>(elt) ? -INFINITY
                    : elt.isUnsignedInteger()
                        ? 0
                        : -std::ldexp(1.0, elt.getIntOrFloatBitWidth() - 1);
    TRY(pd, make<PadOp>(n, x, PadMode::constant, pads, n.scalarAttr(elt, lowest)));
    padded = pd;
  }
  SmallVector<Value> slices;
  SmallVector<int64_t> tap(r, 0);
  for (int64_t t = 0; t < taps; ++t) {
    SmallVector<int64_t> starts(rank, 0), ends(xt.getShape()), steps(rank, 1);
    for (int64_t i = 0; i < r; ++i) {
      starts[2 + i] = tap[i] * p.dilations[i];
      ends[2 + i] = starts[2 + i] + (out[i] - 1) * p.strides[i] + 1;
      steps[2 + i] = p.strides[i];
    }
    TRY(sl, make<SliceOp>(n, padded, starts, ends, steps));
    TRY(un, make<UnsqueezeOp>(n, sl, ArrayRef<int64_t>{2}));
    slices.push_back(un);
    for (int64_t i = r - 1; i >= 0 && ++tap[i] == p.kernel[i]; --i)
      tap[i] = 0;
  }
  Value stacked = slices.front();
  if (slices.size() > 1) {
    TRY(c, make<ConcatOp>(n, slices, 2));
    stacked = c;
  }
  TRY(best, make<ArgMaxOp>(n, stacked, ArrayRef<int64_t>{2}, false, false));
  // Coordinate of dim i: o * stride - pad_begin + tap_i * dilation, where
  // tap_i = (best / inner_i) % kernel_i.
  Type i64 = n.b.getI64Type();
  int64_t spatial = product(in);
  Value index = nullptr;
  int64_t inner = 1, stride = 1;
  SmallVector<int64_t> strides(r);
  for (int64_t i = order ? 0 : r - 1; order ? i < r : i >= 0; i += order ? 1 : -1) {
    strides[i] = stride;
    stride *= in[i];
  }
  for (int64_t i = r - 1; i >= 0; --i) {
    TRY(q, make<DivScalarOp>(n, best, n.scalarAttr(i64, (double)inner)));
    TRY(k, make<RemScalarOp>(n, q, n.scalarAttr(i64, (double)p.kernel[i])));
    TRY(kd, make<MulScalarOp>(n, k, n.scalarAttr(i64, (double)p.dilations[i])));
    Value o = iota(n, i64, out[i], rank, 2 + i, (double)p.strides[i],
                   -(double)p.pads[i]);
    TRY(coord, make<AddOp>(n, kd, o));
    TRY(term, make<MulScalarOp>(n, coord, n.scalarAttr(i64, (double)strides[i])));
    if (index) {
      TRY(sum, make<AddOp>(n, index, term));
      index = sum;
    } else {
      index = term;
    }
    inner *= p.kernel[i];
  }
  // Plus (n * C + c) * spatial.
  int64_t channels = xt.getDimSize(1);
  TRY(withN, make<AddOp>(n, index, iota(n, i64, xt.getDimSize(0), rank, 0,
                                        (double)(channels * spatial))));
  TRY(withC, make<AddOp>(n, withN, iota(n, i64, channels, rank, 1,
                                        (double)spatial)));
  n.setOutput(1, withC);
  return success();
}

/// MaxUnpool: a zero tensor of the output shape with each input value
/// written at its flat index (MaxPool's Indices); later writes win.
LogicalResult convertMaxUnpool(NodeContext &n) {
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  if (xt.getRank() < 3)
    return n.error("expects an input of rank >= 3");
  int64_t r = xt.getRank() - 2;
  TRY(p, windowParams(n, xt.getShape().drop_front(2), {}, false));
  SmallVector<int64_t> shape = {xt.getDimSize(0), xt.getDimSize(1)};
  if (n.hasInput(2)) {
    SmallVector<int64_t> os;
    if (!n.constantInput(2)) {
      // Known only at run time: the declared output shape, checked then.
      TRY(declared, n.declaredShapeFor(0, 2, "output_shape"));
      if (failed(checkEntries(
              n, 2, declared, declared,
              "input '" + n.node.input(2) + "' must be the shape " +
                  dimsString(declared) + " " + n.declaredFor(0))))
        return failure();
      os = declared;
    } else {
      TRY(known, n.constInts(2, "output_shape"));
      os = known;
    }
    if ((int64_t)os.size() != r + 2 || os[0] != shape[0] || os[1] != shape[1])
      return n.error("output_shape must be [N, C, spatial...] of the input's "
                     "N and C");
    for (int64_t d : ArrayRef<int64_t>(os).drop_front(2))
      if (d < 0 || d > kMaxDim)
        return n.error("output_shape has a dim out of range");
    shape = os;
  } else {
    for (int64_t i = 0; i < r; ++i)
      shape.push_back((xt.getDimSize(2 + i) - 1) * p.strides[i] +
                      p.kernel[i] - p.pads[i] - p.pads[r + i]);
  }
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return n.error("the output shape would have a negative dim");
  TRY(idx, n.in(1));
  if (tensorType(idx).getShape() != xt.getShape())
    return n.error("the indices must have the input's shape");
  int64_t total = product(shape), count = xt.getNumElements();
  if (total > kMaxDim)
    return n.error("the output would have more than 2^40 elements");
  Value zeros = n.constant(xt.getElementType(), 0, {total});
  TRY(r0, make<ScatterOp>(n, zeros, n.reshape(n.cast(idx, n.b.getI64Type()), {count}),
                          n.reshape(x, {count}), 0));
  n.setOutput(0, n.reshape(r0, shape));
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
  TRY(ceil, n.attrInt("ceil_mode", 0));
  TRY(p, windowParams(n, xt.getShape().drop_front(2), {}, ceil != 0));
  if (op == "MaxPool" && n.hasOutput(1) && failed(maxPoolIndices(n, x, p)))
    return failure();
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

void hodu::onnx_import::registerNNOps(ConverterTable &table) {
  table.insert({
      {"ConvInteger", convertConvInteger},
      {"QLinearConv", convertQLinearConv},
      {"Conv", convertConv},
      {"ConvTranspose", convertConvTranspose},
      {"MaxPool", convertPool},
      {"MaxUnpool", convertMaxUnpool},
      {"AveragePool", convertPool},
      {"LpPool", convertPool},
      {"GlobalAveragePool", convertPool},
      {"GlobalMaxPool", convertPool},
      {"GlobalLpPool", convertPool},
      {"BatchNormalization", convertBatchNorm},
      {"InstanceNormalization", convertInstanceNorm},
      {"LayerNormalization", convertLayerNorm},
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
