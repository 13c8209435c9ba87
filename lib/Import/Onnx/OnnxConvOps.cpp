//===- OnnxConvOps.cpp - convolution and pooling --------------------------===//
//
// Convolutions (Conv, ConvTranspose, and the integer ConvInteger and
// QLinearConv, computed in f32 where its sums are exact), pooling (max,
// average, Lp, their global forms, MaxPool's indices) and MaxUnpool. The
// window attributes (kernel_shape, strides, dilations, pads, auto_pad) are
// read by windowParams, shared by all of them.
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

} // namespace

void hodu::onnx_import::registerConvOps(ConverterTable &table) {
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
  });
}
