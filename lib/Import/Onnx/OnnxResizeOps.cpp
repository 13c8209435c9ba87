//===- OnnxResizeOps.cpp - Resize and Upsample ----------------------------===//
//
// Resize (and Upsample, its older form) to `hodu.resize`: scales or sizes
// known at import time, or scales known only at run time (the output then
// takes the shape the model declares, checked when the model runs), the
// region of interest of tf_crop_and_resize, and the attributes each opset
// adds (opset 18's axes and keep_aspect_ratio_policy).
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

#include <cmath>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

/// Input #`in` of `n` (1-D float, one entry per axis of `axes`, once per
/// entry of `fill`: a roi's starts, then its ends) as f32 with one entry
/// per dim of rank `r`, once per entry of `fill`; the dims not in `axes`
/// take `fill[g]`.
static FailureOr<Value> perDim(NodeContext &n, size_t in,
                               ArrayRef<int64_t> axes, int64_t r,
                               ArrayRef<float> fill, StringRef what) {
  auto k = (int64_t)axes.size(), groups = (int64_t)fill.size();
  RankedTensorType t = n.type(in);
  if (!t || t.getRank() != 1 || t.getDimSize(0) != groups * k ||
      !isa<FloatType>(t.getElementType()))
    return n.error("input #" + Twine(in) + " ('" + what +
                   "') must be 1-D float with " + Twine(groups * k) +
                   " entries (" + (groups == 1 ? "one" : "two") + " per axis)");
  TRY(v, n.in(in));
  Type f32 = n.b.getF32Type();
  v = n.cast(v, f32);
  if (llvm::equal(axes, llvm::seq<int64_t>(0, r)))
    return v;
  Value rest = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({groups}, f32), fill));
  TRY(cat, make<ConcatOp>(n, ValueRange{v, rest}, int64_t(0)));
  SmallVector<int64_t> idx;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t d = 0; d < r; ++d) {
      const int64_t *pos = llvm::find(axes, d);
      idx.push_back(pos != axes.end() ? g * k + (pos - axes.begin())
                                      : groups * k + g);
    }
  return make<IndexSelectOp>(n, cat, n.constant(idx), int64_t(0));
}

/// The scales of a Resize (Upsample) whose scales input #`in` is known only
/// at run time, as the op's scales operand (f32, one per dim); `sizes`
/// becomes the shape the model declares for its output, checked when the
/// model runs: floor(input size * scale) (in f64) is the declared size of
/// every axis.
static FailureOr<Value> runtimeScales(NodeContext &n, RankedTensorType t,
                                      size_t in, ArrayRef<int64_t> axes,
                                      SmallVector<int64_t> &sizes) {
  TRY(declared, n.declaredShapeFor(0, in, "scales"));
  int64_t r = t.getRank();
  if ((int64_t)declared.size() != r)
    return n.error("the model declares output '" + n.node.output(0) +
                   "' with shape " + dimsString(declared) +
                   " for an input of rank " + Twine(r));
  for (int64_t d = 0; d < r; ++d)
    if (!llvm::is_contained(axes, d) && declared[d] != t.getDimSize(d))
      return n.error("the model declares output '" + n.node.output(0) +
                     "' with shape " + dimsString(declared) +
                     ", but Resize keeps the size of axis " + Twine(d));
  TRY(scales, perDim(n, in, axes, r, {1.0f}, "scales"));
  Type f64 = n.b.getF64Type();
  auto vec = RankedTensorType::get({r}, f64);
  SmallVector<double> inDims(t.getShape()),
      outDims(declared.begin(), declared.end());
  TRY(wide, make<MulOp>(n, n.cast(scales, f64),
                        n.constant(DenseElementsAttr::get(
                            vec, ArrayRef<double>(inDims)))));
  TRY(fl, make<FloorOp>(n, wide));
  TRY(ok, make<EqOp>(n, fl,
                     n.constant(DenseElementsAttr::get(
                         vec, ArrayRef<double>(outDims)))));
  if (failed(n.checkAtRunTime(ok, "input '" + n.node.input((int)in) +
                                      "' must hold scales that give the "
                                      "shape " +
                                      dimsString(declared) + " " +
                                      n.declaredFor(0) +
                                      " (floor(input size * scale))")))
    return failure();
  sizes.assign(declared.begin(), declared.end());
  return scales;
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
  Value scaleValues, roi; // the op's operands, when known only at run time
  float extrapolation = 0.0f;
  if (op == "Upsample" || n.opset < 11) {
    coordStr = "asymmetric";
    nearestStr = "floor";
    if (op == "Upsample" && n.opset < 9) {
      TRY(s, n.attrFloats("scales"));
      if (!s)
        return n.error("needs the scales attribute");
      scales.assign(s->begin(), s->end());
    } else if (n.hasInput(1) && !n.constantInput(1)) {
      auto all = llvm::to_vector(llvm::seq<int64_t>(0, r));
      TRY(s, runtimeScales(n, t, 1, all, sizes));
      scaleValues = s;
    } else {
      TRY(s, n.constFloats(1, "scales"));
      scales = s;
    }
  } else {
    TRY(c, n.attrString("coordinate_transformation_mode", "half_pixel"));
    TRY(nm, n.attrString("nearest_mode", "round_prefer_floor"));
    coordStr = c;
    nearestStr = nm;
    TRY(antialias, n.attrInt("antialias", 0));
    if (antialias)
      return n.error("antialias is not supported");
    TRY(policy, n.attrString("keep_aspect_ratio_policy", "stretch"));
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      return n.error("unknown keep_aspect_ratio_policy '" + policy + "'");
    // Opset 18's `axes`: scales or sizes for these dims only.
    TRY(axesAttr, n.attrInts("axes"));
    SmallVector<int64_t> axes;
    if (axesAttr) {
      for (int64_t a : *axesAttr) {
        TRY(ax, normAxis(n, a, r, "axis"));
        if (llvm::is_contained(axes, ax))
          return n.error("axis " + Twine(a) + " appears more than once");
        axes.push_back(ax);
      }
    } else {
      for (int64_t i = 0; i < r; ++i)
        axes.push_back(i);
    }
    bool crop = coordStr == "tf_crop_and_resize";
    if (crop) {
      TRY(e, n.attrFloat("extrapolation_value", 0.0f));
      extrapolation = e;
      if (n.hasInput(1)) {
        TRY(v, perDim(n, 1, axes, r, {0.0f, 1.0f}, "roi"));
        roi = v;
      }
    }
    // Given scales, tf_crop_and_resize's size is the region's times the
    // scale.
    if (crop && !n.hasInput(3) && n.hasInput(2) && n.hasInput(1) &&
        !(n.constantInput(1) && n.constantInput(2)))
      return n.error("tf_crop_and_resize given scales needs the roi and the "
                     "scales known at import time (or sizes)");
    SmallVector<int64_t> given;
    SmallVector<double> givenScales;
    if (n.hasInput(3) && !n.constantInput(3) && policy == "stretch") {
      // Sizes known only at run time: the declared output's, checked then.
      TRY(declared, n.declaredShapeFor(0, 3, "sizes"));
      if ((int64_t)declared.size() != r)
        return n.error("the model declares output '" + n.node.output(0) +
                       "' with shape " + dimsString(declared) +
                       " for an input of rank " + Twine(r));
      for (int64_t ax : axes)
        given.push_back(declared[ax]);
      if (failed(checkEntries(n, 3, given, given,
                              "input '" + n.node.input(3) +
                                  "' must give the sizes of the shape " +
                                  dimsString(declared) + " " +
                                  n.declaredFor(0))))
        return failure();
    } else if (n.hasInput(3)) {
      TRY(s, n.constInts(3, "sizes"));
      given = s;
    } else if (n.hasInput(2) && !n.constantInput(2)) {
      TRY(s, runtimeScales(n, t, 2, axes, sizes));
      scaleValues = s;
    } else if (n.hasInput(2)) {
      TRY(s, n.constFloats(2, "scales"));
      givenScales = s;
    }
    if (given.empty() && givenScales.empty() && !scaleValues)
      return n.error("needs scales or sizes");
    size_t count = given.empty() ? givenScales.size() : given.size();
    if (!scaleValues && count != axes.size())
      return n.error(Twine(given.empty() ? "scales" : "sizes") + " has " +
                     Twine(count) + " entries for " + Twine(axes.size()) +
                     " axes");
    scales.assign(r, 1.0);
    if (scaleValues) {
      scales.clear(); // the operand's
    } else if (!given.empty()) {
      for (int64_t v : given)
        if (v < 1 || v > kMaxDim)
          return n.error("sizes must be between 1 and 2^40, got " + Twine(v));
      sizes.assign(t.getShape().begin(), t.getShape().end());
      if (policy == "stretch") {
        for (auto [k, ax] : llvm::enumerate(axes))
          sizes[ax] = given[k];
        scales.clear(); // output / input
      } else {
        // One scale for all the axes, the largest (not_larger: smallest)
        // that keeps the image within (around) the sizes asked for.
        double scale = policy == "not_larger" ? INFINITY : 0.0;
        for (auto [k, ax] : llvm::enumerate(axes)) {
          double s = double(given[k]) / double(t.getDimSize(ax));
          scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
        }
        for (int64_t ax : axes) {
          // A zero-sized input dim makes the scale infinite and this NaN.
          double size = std::floor(double(t.getDimSize(ax)) * scale + 0.5);
          if (!(size >= 0 && size <= double(kMaxDim)))
            return n.error("keep_aspect_ratio_policy '" + policy +
                           "' gives no size between 0 and 2^40 for axis " +
                           Twine(ax));
          sizes[ax] = (int64_t)size;
          scales[ax] = scale;
        }
      }
    } else {
      for (auto [k, ax] : llvm::enumerate(axes))
        scales[ax] = givenScales[k];
      if (crop && roi) {
        // ONNX: floor(input * (roi end - roi start) * scale).
        TRY(region, n.constFloats(1, "roi"));
        sizes.assign(t.getShape().begin(), t.getShape().end());
        for (auto [k, ax] : llvm::enumerate(axes)) {
          double size = std::floor(double(t.getDimSize(ax)) *
                                   (region[axes.size() + k] - region[k]) *
                                   givenScales[k]);
          if (!(size >= 0 && size <= double(kMaxDim)))
            return n.error("roi and scales give no size between 0 and 2^40 "
                           "for axis " +
                           Twine(ax));
          sizes[ax] = (int64_t)size;
        }
        scales.clear(); // tf_crop_and_resize maps by the sizes
      }
    }
  }
  if (sizes.empty()) {
    if ((int64_t)scales.size() != r)
      return n.error("scales must have one entry per dim");
    for (int64_t i = 0; i < r; ++i) {
      if (!(scales[i] > 0) || !std::isfinite(scales[i]) ||
          double(t.getDimSize(i)) * scales[i] > double(kMaxDim))
        return n.error("scales must be positive and keep dims under 2^40");
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
  std::optional<NearestMode> nearest = symbolizeNearestMode(nearestStr);
  if (!nearest)
    return n.error("unknown nearest_mode '" + nearestStr + "'");
  TRY(cubicA, n.attrFloat("cubic_coeff_a", -0.75f));
  TRY(exclude, n.attrInt("exclude_outside", 0));
  MLIRContext *ctx = n.b.getContext();
  // Nearest at the same size and scale 1 (the default region) reads each
  // element where it is.
  if (ArrayRef<int64_t>(sizes) == t.getShape() &&
      *mode == ResizeMode::nearest && !scaleValues && !roi &&
      llvm::all_of(scales, [](double s) { return s == 1.0; })) {
    n.setOutput(0, x);
    return success();
  }
  // The scales the coordinate transforms divide by: the ones the model
  // gives (they differ from output / input when input * scale is not whole).
  DenseF64ArrayAttr scalesAttr;
  if (!scales.empty())
    scalesAttr = n.b.getDenseF64ArrayAttr(scales);
  n.setOutput(
      0, ResizeOp::create(
             n.b, n.loc, RankedTensorType::get(sizes, t.getElementType()), x,
             scaleValues, roi, ResizeModeAttr::get(ctx, *mode),
             CoordTransformAttr::get(ctx, *coord),
             NearestModeAttr::get(ctx, *nearest), n.b.getF32FloatAttr(cubicA),
             exclude ? n.b.getUnitAttr() : UnitAttr(), scalesAttr,
             n.b.getF32FloatAttr(extrapolation))
             .getResult());
  return success();
}

} // namespace

void hodu::onnx_import::registerResizeOps(ConverterTable &table) {
  table.insert({
      {"Resize", convertResize},
      {"Upsample", convertResize},
  });
}
