//===- OnnxSamplingOps.cpp - GridSample, RoiAlign -------------------------===//
//
// Ops that sample an image at coordinates computed at run time. Both are
// decomposed into elementwise coordinate arithmetic and gathers of whole
// pixels, so every target runs them with the ops it already has:
// - GridSample (PyTorch's grid_sample, which ONNX follows): nearest,
//   bilinear and bicubic sampling of 2-D images with zeros, border or
//   reflection padding;
// - RoiAlign (ONNX Runtime's algorithm): average or max of bilinear samples
//   on a fixed grid per output bin.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

/// Elementwise arithmetic on float tensors with scalar constants, for the
/// coordinate formulas below.
struct Arith {
  NodeContext &n;
  Type elt;

  TypedAttr s(double v) const { return n.scalarAttr(elt, v); }
  FailureOr<Value> add(Value a, double c) { return make<AddScalarOp>(n, a, s(c)); }
  FailureOr<Value> mul(Value a, double c) { return make<MulScalarOp>(n, a, s(c)); }
  /// a * m + c.
  FailureOr<Value> affine(Value a, double m, double c) {
    TRY(t, mul(a, m));
    return add(t, c);
  }
  FailureOr<Value> add(Value a, Value b) { return make<AddOp>(n, a, b); }
  FailureOr<Value> sub(Value a, Value b) { return make<SubOp>(n, a, b); }
  FailureOr<Value> mul(Value a, Value b) { return make<MulOp>(n, a, b); }
  FailureOr<Value> clip(Value a, double lo, double hi) {
    TRY(t, make<MaximumScalarOp>(n, a, s(lo)));
    return make<MinimumScalarOp>(n, t, s(hi));
  }
  /// A whole-number coordinate clipped to [0, hi] as i64; NaN (from NaN
  /// grids or ROIs) reads as 0, never as an undefined conversion.
  FailureOr<Value> index(Value a, double hi) {
    TRY(c, clip(a, 0, hi));
    TRY(nan, make<IsNanOp>(n, c));
    TRY(safe, make<SelectOp>(n, nan, n.constant(elt, 0), c));
    return n.cast(safe, n.b.getI64Type());
  }
  /// 1 where lo <= a <= hi, else 0, in `elt`.
  FailureOr<Value> inside(Value a, double lo, double hi) {
    TRY(ge, make<GeScalarOp>(n, a, s(lo)));
    TRY(le, make<LeScalarOp>(n, a, s(hi)));
    TRY(both, make<LogicalAndOp>(n, ge, le));
    return n.cast(both, elt);
  }
  /// PyTorch's reflect_coordinates: `a` reflected into [low/2, high/2]
  /// (the bounds given doubled).
  FailureOr<Value> reflect(Value a, int64_t twiceLow, int64_t twiceHigh) {
    if (twiceLow == twiceHigh)
      return mul(a, 0.0);
    double lo = twiceLow / 2.0, span = (twiceHigh - twiceLow) / 2.0;
    TRY(shifted, add(a, -lo));
    TRY(in, make<AbsOp>(n, shifted));
    TRY(q, mul(in, 1.0 / span));
    TRY(flips, make<FloorOp>(n, q));
    TRY(whole, mul(flips, span));
    TRY(extra, sub(in, whole));
    // flips odd: span - extra + lo, else extra + lo.
    TRY(half, mul(flips, 0.5));
    TRY(halfFloor, make<FloorOp>(n, half));
    TRY(odd, make<GtOp>(n, half, halfFloor));
    TRY(even, add(extra, lo));
    TRY(flipped, affine(extra, -1.0, span + lo));
    return make<SelectOp>(n, odd, flipped, even);
  }
};

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

enum class Padding { Zeros, Border, Reflection };

struct GridSampler {
  NodeContext &n;
  Arith a;
  Value image; // [N, C, H * W]
  int64_t batch, channels, height, width, points;
  Padding padding;
  bool alignCorners;
  Value sum; // [N, C, P] in the image's type

  /// Pixel coordinate of a normalized one in [-1, 1] (PyTorch's
  /// grid_sampler_unnormalize).
  FailureOr<Value> unnormalize(Value g, int64_t size) {
    double m = alignCorners ? (size - 1) / 2.0 : size / 2.0;
    return a.affine(g, m, (size - 1) / 2.0);
  }

  /// Padding applied to a coordinate (compute_coordinates): border clips
  /// it into the image, reflection reflects it about the edges, then clips.
  FailureOr<Value> pad(Value c, int64_t size) {
    if (padding == Padding::Zeros)
      return c;
    if (padding == Padding::Reflection) {
      FailureOr<Value> r = alignCorners ? a.reflect(c, 0, 2 * (size - 1))
                                        : a.reflect(c, -1, 2 * size - 1);
      if (failed(r))
        return failure();
      c = *r;
    }
    return a.clip(c, 0, size - 1);
  }

  /// Adds weight * image[y, x] for whole-number coordinates `x`, `y`
  /// ([N, 1, P]); pixels outside the image read as zero.
  LogicalResult addPixel(Value x, Value y, Value weight) {
    TRY(inX, a.inside(x, 0, width - 1));
    TRY(inY, a.inside(y, 0, height - 1));
    TRY(valid, a.mul(inX, inY));
    TRY(w, a.mul(weight, valid));
    TRY(ix, a.index(x, width - 1));
    TRY(iy, a.index(y, height - 1));
    Type i64 = n.b.getI64Type();
    TRY(row, make<MulScalarOp>(n, iy, n.scalarAttr(i64, (double)width)));
    TRY(flat, make<AddOp>(n, row, ix));
    Value idx = broadcastTo(n, flat, {batch, channels, points});
    TRY(px, make<GatherOp>(n, image, idx, 2));
    Type elt = tensorType(image).getElementType();
    TRY(term, make<MulOp>(n, px, n.cast(w, elt)));
    if (!sum) {
      sum = term;
      return success();
    }
    TRY(s, make<AddOp>(n, sum, term));
    sum = s;
    return success();
  }
};

/// Cubic convolution coefficients (A = -0.75) of the four taps at
/// floor(x) - 1 .. floor(x) + 2, for t = x - floor(x).
FailureOr<SmallVector<Value>> cubicCoefficients(Arith &a, Value t) {
  const double A = -0.75;
  // |d| <= 1: ((A + 2) d - (A + 3)) d^2 + 1; 1 < |d| < 2:
  // ((A d - 5A) d + 8A) d - 4A.
  auto near = [&](Value d) -> FailureOr<Value> {
    TRY(p, a.affine(d, A + 2, -(A + 3)));
    TRY(d2, a.mul(d, d));
    TRY(q, a.mul(p, d2));
    return a.add(q, 1.0);
  };
  auto far = [&](Value d) -> FailureOr<Value> {
    TRY(p, a.affine(d, A, -5 * A));
    TRY(q, a.mul(p, d));
    TRY(r, a.add(q, 8 * A));
    TRY(s, a.mul(r, d));
    return a.add(s, -4 * A);
  };
  TRY(d0, a.add(t, 1.0));
  TRY(d2, a.affine(t, -1.0, 1.0));
  TRY(d3, a.affine(t, -1.0, 2.0));
  TRY(c0, far(d0));
  TRY(c1, near(t));
  TRY(c2, near(d2));
  TRY(c3, far(d3));
  return SmallVector<Value>{c0, c1, c2, c3};
}

LogicalResult convertGridSample(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(grid, n.in(1));
  auto xt = tensorType(x), gt = tensorType(grid);
  if (xt.getRank() != 4 || gt.getRank() != 4 || gt.getDimSize(3) != 2)
    return n.error("supports 2-D sampling: an input [N, C, H, W] and a grid "
                   "[N, H_out, W_out, 2]");
  if (gt.getDimSize(0) != xt.getDimSize(0))
    return n.error("the grid's batch (" + Twine(gt.getDimSize(0)) +
                   ") differs from the input's (" + Twine(xt.getDimSize(0)) +
                   ")");
  if (!isFloatTensor(x) || !isFloatTensor(grid))
    return n.error("the input and the grid must be floating point");
  TRY(mode, n.attrString("mode", n.opset >= 20 ? "linear" : "bilinear"));
  TRY(padStr, n.attrString("padding_mode", "zeros"));
  TRY(align, n.attrInt("align_corners", 0));
  Padding padding;
  if (padStr == "zeros")
    padding = Padding::Zeros;
  else if (padStr == "border")
    padding = Padding::Border;
  else if (padStr == "reflection")
    padding = Padding::Reflection;
  else
    return n.error("unknown padding_mode '" + padStr + "'");
  bool nearest = mode == "nearest";
  bool linear = mode == "bilinear" || mode == "linear";
  bool cubic = mode == "bicubic" || mode == "cubic";
  if (!nearest && !linear && !cubic)
    return n.error("unknown mode '" + mode + "'");

  int64_t batch = xt.getDimSize(0), channels = xt.getDimSize(1),
          height = xt.getDimSize(2), width = xt.getDimSize(3);
  int64_t points = gt.getDimSize(1) * gt.getDimSize(2);
  // Coordinates are computed in f32 (f64 for f64 grids).
  Type ct = floatComputeType(n, tensorType(grid).getElementType());
  grid = n.cast(grid, ct);
  GridSampler s{n, Arith{n, ct}, n.reshape(x, {batch, channels, height * width}),
                batch, channels, height, width, points, padding, align != 0,
                nullptr};
  Arith &a = s.a;
  TRY(gx, takeAt(n, grid, 3, 0));
  TRY(gy, takeAt(n, grid, 3, 1));
  TRY(ux, s.unnormalize(n.reshape(gx, {batch, 1, points}), width));
  TRY(uy, s.unnormalize(n.reshape(gy, {batch, 1, points}), height));
  if (nearest || linear) {
    TRY(px, s.pad(ux, width));
    TRY(py, s.pad(uy, height));
    if (nearest) {
      TRY(rx, make<RoundOp>(n, px));
      TRY(ry, make<RoundOp>(n, py));
      if (failed(s.addPixel(rx, ry, n.constant(ct, 1.0, {1, 1, 1}))))
        return failure();
    } else {
      TRY(x0, make<FloorOp>(n, px));
      TRY(y0, make<FloorOp>(n, py));
      TRY(x1, a.add(x0, 1.0));
      TRY(y1, a.add(y0, 1.0));
      TRY(wx1, a.sub(px, x0));
      TRY(wy1, a.sub(py, y0));
      TRY(wx0, a.affine(wx1, -1.0, 1.0));
      TRY(wy0, a.affine(wy1, -1.0, 1.0));
      Value xs[2] = {x0, x1}, ys[2] = {y0, y1}, wxs[2] = {wx0, wx1},
            wys[2] = {wy0, wy1};
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
          TRY(w, a.mul(wxs[i], wys[j]));
          if (failed(s.addPixel(xs[i], ys[j], w)))
            return failure();
        }
    }
  } else {
    // Bicubic: padding applies to each tap's whole-number coordinate.
    TRY(x0, make<FloorOp>(n, ux));
    TRY(y0, make<FloorOp>(n, uy));
    TRY(tx, a.sub(ux, x0));
    TRY(ty, a.sub(uy, y0));
    TRY(cx, cubicCoefficients(a, tx));
    TRY(cy, cubicCoefficients(a, ty));
    SmallVector<Value> xs, ys;
    for (int i = 0; i < 4; ++i) {
      TRY(xi, a.add(x0, i - 1.0));
      TRY(yi, a.add(y0, i - 1.0));
      TRY(pxi, s.pad(xi, width));
      TRY(pyi, s.pad(yi, height));
      xs.push_back(pxi);
      ys.push_back(pyi);
    }
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        TRY(w, a.mul(cx[i], cy[j]));
        if (failed(s.addPixel(xs[i], ys[j], w)))
          return failure();
      }
  }
  n.setOutput(0, n.reshape(s.sum, {batch, channels, gt.getDimSize(1),
                                   gt.getDimSize(2)}));
  return success();
}

//===----------------------------------------------------------------------===//
// RoiAlign
//===----------------------------------------------------------------------===//

LogicalResult convertRoiAlign(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(rois, n.in(1));
  TRY(batchIdx, n.in(2));
  auto xt = tensorType(x), rt = tensorType(rois);
  if (xt.getRank() != 4 || !isFloatTensor(x))
    return n.error("expects a floating-point input [N, C, H, W]");
  if (rt.getRank() != 2 || rt.getDimSize(1) != 4 || !isFloatTensor(rois))
    return n.error("expects rois [num_rois, 4] of floating point");
  int64_t numRois = rt.getDimSize(0);
  if (tensorType(batchIdx).getRank() != 1 ||
      tensorType(batchIdx).getDimSize(0) != numRois)
    return n.error("expects batch_indices [num_rois]");
  TRY(mode, n.attrString("mode", "avg"));
  if (mode != "avg" && mode != "max")
    return n.error("unknown mode '" + mode + "'");
  TRY(oh, n.attrInt("output_height", 1));
  TRY(ow, n.attrInt("output_width", 1));
  TRY(ratio, n.attrInt("sampling_ratio", 0));
  TRY(scale, n.attrFloat("spatial_scale", 1.0f));
  TRY(ctm, n.attrString("coordinate_transformation_mode",
                        n.opset >= 16 ? "half_pixel" : "output_half_pixel"));
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return n.error("unknown coordinate_transformation_mode '" + ctm + "'");
  if (oh < 1 || ow < 1 || oh > 4096 || ow > 4096)
    return n.error("output_height and output_width must be in [1, 4096]");
  if (ratio <= 0)
    return n.error("sampling_ratio 0 (adaptive) makes the number of samples "
                   "depend on the ROI sizes, which are computed at run time; "
                   "Hodu supports a fixed sampling_ratio");
  if (ratio > 64)
    return n.error("sampling_ratio must be at most 64");
  bool halfPixel = ctm == "half_pixel";
  int64_t batch = xt.getDimSize(0), channels = xt.getDimSize(1),
          height = xt.getDimSize(2), width = xt.getDimSize(3);
  Type elt = xt.getElementType();
  Type ct = floatComputeType(n, elt);
  Arith a{n, ct};
  rois = n.cast(rois, ct);

  // Per ROI ([R, 1]): start and bin size in each direction.
  double offset = halfPixel ? 0.5 : 0.0;
  SmallVector<Value> coord;
  for (int i = 0; i < 4; ++i) {
    TRY(c, takeAt(n, rois, 1, i));
    TRY(sc, a.affine(n.reshape(c, {numRois, 1}), scale, -offset));
    coord.push_back(sc);
  }
  auto binSize = [&](Value start, Value end, int64_t bins) -> FailureOr<Value> {
    TRY(len, a.sub(end, start));
    Value l = len;
    if (!halfPixel) {
      TRY(m, make<MaximumScalarOp>(n, len, a.s(1.0)));
      l = m;
    }
    return a.mul(l, 1.0 / bins);
  };
  TRY(binW, binSize(coord[0], coord[2], ow));
  TRY(binH, binSize(coord[1], coord[3], oh));

  // Samples in the order [ph, pw, iy, ix]: y = start_h + bin_h * fy with
  // fy = ph + (iy + 0.5) / ratio (a constant), likewise x.
  int64_t grid = ratio * ratio, samples = oh * ow * grid;
  ConstantWriter fyW(RankedTensorType::get({1, samples}, ct), kSmallTensorBytes);
  ConstantWriter fxW(RankedTensorType::get({1, samples}, ct), kSmallTensorBytes);
  int64_t k = 0;
  for (int64_t ph = 0; ph < oh; ++ph)
    for (int64_t pw = 0; pw < ow; ++pw)
      for (int64_t iy = 0; iy < ratio; ++iy)
        for (int64_t ix = 0; ix < ratio; ++ix, ++k) {
          fyW.setF(k, ph + (iy + 0.5) / ratio);
          fxW.setF(k, pw + (ix + 0.5) / ratio);
        }
  TRY(sy, a.mul(binH, n.constant(fyW.finish())));
  TRY(sx, a.mul(binW, n.constant(fxW.finish())));
  TRY(y, a.add(sy, coord[1]));
  TRY(xs, a.add(sx, coord[0]));

  // ONNX Runtime's bilinear weights: a sample more than one pixel outside
  // the image counts as zero; others are clamped into it.
  TRY(inY, a.inside(y, -1.0, (double)height));
  TRY(inX, a.inside(xs, -1.0, (double)width));
  TRY(valid, a.mul(inY, inX));
  TRY(yc, a.clip(y, 0.0, height - 1.0));
  TRY(xc, a.clip(xs, 0.0, width - 1.0));
  TRY(yLow, make<FloorOp>(n, yc));
  TRY(xLow, make<FloorOp>(n, xc));
  TRY(yHigh0, a.add(yLow, 1.0));
  TRY(xHigh0, a.add(xLow, 1.0));
  TRY(yHigh, make<MinimumScalarOp>(n, yHigh0, a.s(height - 1.0)));
  TRY(xHigh, make<MinimumScalarOp>(n, xHigh0, a.s(width - 1.0)));
  TRY(ly, a.sub(yc, yLow));
  TRY(lx, a.sub(xc, xLow));
  TRY(hy0, a.affine(ly, -1.0, 1.0));
  TRY(hx0, a.affine(lx, -1.0, 1.0));
  TRY(hy, a.mul(hy0, valid));
  TRY(lyv, a.mul(ly, valid));

  // Pixels as rows of channels: [N * H * W, C]; row = b * H * W + y * W + x.
  Type i64 = n.b.getI64Type();
  TRY(xT, make<TransposeOp>(n, x, ArrayRef<int64_t>{0, 2, 3, 1}));
  Value pixels = n.reshape(xT, {batch * height * width, channels});
  Value b = n.cast(batchIdx, i64);
  TRY(bLo, make<MaximumScalarOp>(n, b, n.scalarAttr(i64, 0)));
  TRY(bHi, make<MinimumScalarOp>(n, bLo, n.scalarAttr(i64, (double)(batch - 1))));
  TRY(base, make<MulScalarOp>(n, n.reshape(bHi, {numRois, 1}),
                              n.scalarAttr(i64, (double)(height * width))));
  auto corner = [&](Value yy, Value xx, Value w) -> FailureOr<Value> {
    TRY(iy, a.index(yy, height - 1.0));
    TRY(ix, a.index(xx, width - 1.0));
    TRY(row, make<MulScalarOp>(n, iy, n.scalarAttr(i64, (double)width)));
    TRY(r1, make<AddOp>(n, row, ix));
    TRY(flat, make<AddOp>(n, r1, base));
    TRY(px, make<IndexSelectOp>(n, pixels, flat, 0)); // [R, S, C]
    TRY(wc, make<UnsqueezeOp>(n, n.cast(w, elt), ArrayRef<int64_t>{2}));
    return make<MulOp>(n, px, wc);
  };
  TRY(w1, a.mul(hy, hx0));
  TRY(w2, a.mul(hy, lx));
  TRY(w3, a.mul(lyv, hx0));
  TRY(w4, a.mul(lyv, lx));
  TRY(v1, corner(yLow, xLow, w1));
  TRY(v2, corner(yLow, xHigh, w2));
  TRY(v3, corner(yHigh, xLow, w3));
  TRY(v4, corner(yHigh, xHigh, w4));
  Value pooled;
  SmallVector<int64_t> binned = {numRois, oh, ow, grid, channels};
  if (mode == "avg") {
    TRY(s1, make<AddOp>(n, v1, v2));
    TRY(s2, make<AddOp>(n, s1, v3));
    TRY(s3, make<AddOp>(n, s2, v4));
    TRY(sum, make<ReduceSumOp>(n, n.reshape(s3, binned), ArrayRef<int64_t>{3}, false));
    TRY(avg, make<MulScalarOp>(n, sum, n.scalarAttr(elt, 1.0 / grid)));
    pooled = avg;
  } else {
    // ONNX Runtime's max: the largest weighted corner of any sample.
    TRY(m1, make<MaximumOp>(n, v1, v2));
    TRY(m2, make<MaximumOp>(n, m1, v3));
    TRY(m3, make<MaximumOp>(n, m2, v4));
    TRY(mx, make<ReduceMaxOp>(n, n.reshape(m3, binned), ArrayRef<int64_t>{3}, false));
    pooled = mx;
  }
  TRY(out, make<TransposeOp>(n, pooled, ArrayRef<int64_t>{0, 3, 1, 2}));
  n.setOutput(0, out);
  return success();
}

} // namespace

void hodu::onnx_import::registerSamplingOps(ConverterTable &table) {
  table.insert({
      {"GridSample", convertGridSample},
      {"RoiAlign", convertRoiAlign},
  });
}
