//===- Shape.cpp - Concat/Split/Shape/Slice/Flip/Padding/Resize/Memory ----===//
//
// Pure data movement maps onto tensor ops (insert/extract_slice, collapse/
// expand_shape, pad) and linalg.transpose where one fits exactly; the rest
// (negative-step slices, flip, non-constant padding, resize) is a parallel
// linalg.generic that computes the source coordinates from linalg.index and
// gathers with tensor.extract.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

using namespace mlir;

namespace hodu::lowering {
namespace {

/// reshape, flatten, squeeze, unsqueeze: a static reshape to the result.
template <typename OpTy>
struct ReshapeLike : StaticPattern<OpTy> {
  using StaticPattern<OpTy>::StaticPattern;
  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), adaptor.getInput(),
                                     this->resultType(op).getShape()));
    return success();
  }
};

/// contiguous, dummy: the identity.
template <typename OpTy>
struct IdentityLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

struct BroadcastLowering : StaticPattern<BroadcastOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(BroadcastOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Value r = buildElementwise(rewriter, op.getLoc(), resultType(op),
                               adaptor.getInput(),
                               [](OpBuilder &, Location, ValueRange args) {
                                 return args[0];
                               });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct TransposeLowering : StaticPattern<TransposeOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(TransposeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    auto type = resultType(op);
    Value init = emptyTensor(rewriter, op.getLoc(), type.getShape(),
                             type.getElementType());
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(),
                                         adaptor.getInput(), init, op.getPerm());
    rewriter.replaceOp(op, t.getResult()[0]);
    return success();
  }
};

struct ConcatLowering : StaticPattern<ConcatOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(ConcatOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    int64_t dim = op.getDim(), rank = type.getRank();
    Value acc = emptyTensor(rewriter, loc, type.getShape(), type.getElementType());
    int64_t offset = 0;
    for (Value in : adaptor.getInputs()) {
      auto t = cast<RankedTensorType>(in.getType());
      SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
      offsets[dim] = offset;
      offset += t.getDimSize(dim);
      if (t.getNumElements() == 0)
        continue;
      acc = tensor::InsertSliceOp::create(rewriter, loc, in, acc, ValueRange{},
                                          ValueRange{}, ValueRange{}, offsets,
                                          t.getShape(), strides);
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

struct SplitLowering : StaticPattern<SplitOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(SplitOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t dim = op.getDim();
    int64_t offset = 0;
    SmallVector<Value> results;
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      auto type = resultType(op, i);
      int64_t rank = type.getRank();
      SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
      offsets[dim] = offset;
      offset += type.getDimSize(dim);
      results.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, type, adaptor.getInput(), ValueRange{}, ValueRange{},
          ValueRange{}, offsets, type.getShape(), strides));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct SliceLowering : StaticPattern<SliceOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(SliceOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    // A dim that takes one entry or none needs no step (a step of
    // INT64_MAX would overflow the offsets), and one that takes none no
    // start (tensor.extract_slice refuses an offset at the dim's end).
    SmallVector<int64_t> starts(op.getStarts()), steps(op.getSteps());
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.getDimSize(d) <= 1)
        steps[d] = 1;
      if (type.getDimSize(d) == 0)
        starts[d] = 0;
    }
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      rewriter.replaceOp(op, tensor::ExtractSliceOp::create(
                                 rewriter, loc, type, adaptor.getInput(),
                                 ValueRange{}, ValueRange{}, ValueRange{},
                                 starts, type.getShape(), steps));
      return success();
    }
    // Negative steps: gather input[start + i * step].
    Value input = adaptor.getInput();
    SmallVector<int64_t> st(starts), sp(steps);
    Value r = buildIndexed(
        rewriter, loc, type, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
          SmallVector<Value> idx;
          for (auto [d, iv] : llvm::enumerate(ivs))
            idx.push_back(idxAdd(b, l, constIndex(b, l, st[d]),
                                 idxMul(b, l, iv, constIndex(b, l, sp[d]))));
          return tensor::ExtractOp::create(b, l, input, idx);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct FlipLowering : StaticPattern<FlipOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(FlipOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    auto type = resultType(op);
    Value input = adaptor.getInput();
    SmallVector<int64_t> dims(op.getDims());
    Value r = buildIndexed(
        rewriter, op.getLoc(), type, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
          SmallVector<Value> idx(ivs);
          for (int64_t d : dims)
            idx[d] = arith::SubIOp::create(
                b, l, constIndex(b, l, type.getDimSize(d) - 1), ivs[d]);
          return tensor::ExtractOp::create(b, l, input, idx);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct PadLowering : StaticPattern<PadOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(PadOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    int64_t rank = type.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    if (op.getMode() == PadMode::constant) {
      Type elt = type.getElementType();
      Value pad = op.getValueAttr()
                      ? constFromAttr(rewriter, loc, op.getValueAttr(), elt)
                      : constNumber(rewriter, loc, elt, 0.0);
      rewriter.replaceOp(op, padConstant(rewriter, loc, adaptor.getInput(),
                                         pads.take_front(rank),
                                         pads.drop_front(rank), pad));
      return success();
    }
    PadMode mode = op.getMode();
    Value input = adaptor.getInput();
    SmallVector<int64_t> begin(pads.take_front(rank));
    Value r = buildIndexed(
        rewriter, loc, type, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
          SmallVector<Value> idx;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t n = inType.getDimSize(d);
            Value i = arith::SubIOp::create(b, l, ivs[d],
                                            constIndex(b, l, begin[d]));
            Value zero = constIndex(b, l, 0);
            Value last = constIndex(b, l, n - 1);
            if (mode == PadMode::replicate) {
              idx.push_back(idxClamp(b, l, i, n));
            } else if (mode == PadMode::reflect) {
              // Mirror without repeating the edge: -i below, 2(n-1)-i above.
              Value below = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::slt, i, zero);
              Value v = arith::SelectOp::create(
                  b, l, below, arith::SubIOp::create(b, l, zero, i), i);
              Value above = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::sgt, v, last);
              Value mirrored = arith::SubIOp::create(
                  b, l, constIndex(b, l, 2 * (n - 1)), v);
              idx.push_back(arith::SelectOp::create(b, l, above, mirrored, v));
            } else {
              Value nv = constIndex(b, l, n);
              Value m = arith::RemSIOp::create(b, l, i, nv);
              Value neg = arith::CmpIOp::create(
                  b, l, arith::CmpIPredicate::slt, m, zero);
              idx.push_back(arith::SelectOp::create(
                  b, l, neg, arith::AddIOp::create(b, l, m, nv), m));
            }
          }
          return tensor::ExtractOp::create(b, l, input, idx);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// ONNX Resize (opset 13+ reference semantics) on every dimension whose size
/// changes. Nearest and cubic compute coordinates and weights in f64. Linear
/// computes in the element's compute type (f32 for f32 and narrower) the way
/// ONNX Runtime does, so that a model matches it bit for bit: the source
/// coordinate clamped to [0, in - 1], weights |x - x2| and |x - x1| (0.5
/// each where both taps are the last pixel), each tap's weight product times
/// its pixel added in tap order. The reference's f64 sums differ from it by
/// an ulp in about 40% of the outputs, which a dynamically quantized model
/// turns into whole quantization steps.
struct ResizeLowering : StaticPattern<ResizeOp> {
  using StaticPattern::StaticPattern;

  /// What the coordinate transform of one dim reads: its scale (known at
  /// compile time, or f64 read from the scales operand) and, for
  /// tf_crop_and_resize given a roi operand, the region's start and end
  /// (f64; without them the default region [0, 1]).
  struct DimScale {
    double value = 1.0;
    Value dynamic, start, end;
    bool fromOperands() const { return dynamic || start; }
  };

  /// The source coordinate of output index `x` (of the coordinate type)
  /// along one dim.
  static Value sourceCoord(OpBuilder &b, Location l, CoordTransform ct, Value x,
                           int64_t in, int64_t out, const DimScale &s) {
    Type ft = x.getType();
    auto c = [&](double v) { return constFloat(b, l, ft, v); };
    auto conv = [&](Value v) -> Value {
      return v.getType() == ft ? v : arith::TruncFOp::create(b, l, ft, v);
    };
    auto add = [&](Value p, Value q) {
      return arith::AddFOp::create(b, l, p, q).getResult();
    };
    auto sub = [&](Value p, Value q) {
      return arith::SubFOp::create(b, l, p, q).getResult();
    };
    auto mul = [&](Value p, Value q) {
      return arith::MulFOp::create(b, l, p, q).getResult();
    };
    auto div = [&](Value p, Value q) {
      return arith::DivFOp::create(b, l, p, q).getResult();
    };
    Value scale = s.dynamic ? conv(s.dynamic) : c(s.value);
    auto halfPixel = [&]() { return sub(div(add(x, c(0.5)), scale), c(0.5)); };
    switch (ct) {
    case CoordTransform::half_pixel:
      return halfPixel();
    case CoordTransform::asymmetric:
      return div(x, scale);
    case CoordTransform::tf_half_pixel_for_nn:
      return div(add(x, c(0.5)), scale);
    case CoordTransform::align_corners: {
      // length_resized is in * scale, not the (floored) output size: they
      // differ when the model gives scales (2 columns from 4 at 0.6: 2.4).
      if (!s.dynamic) {
        double resized = double(in) * s.value;
        if (resized == 1.0)
          return c(0.0);
        return div(mul(x, c(double(in - 1))), c(resized - 1.0));
      }
      Value resized = mul(c(double(in)), scale);
      Value one = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                        resized, c(1.0));
      Value v = div(mul(x, c(double(in - 1))), sub(resized, c(1.0)));
      return arith::SelectOp::create(b, l, one, c(0.0), v);
    }
    case CoordTransform::pytorch_half_pixel:
      if (out == 1)
        return c(0.0);
      return halfPixel();
    case CoordTransform::tf_crop_and_resize: {
      if (!s.start) {
        // The default region of interest [0, 1].
        if (out == 1)
          return c(0.5 * double(in - 1));
        return mul(x, c(double(in - 1) / double(out - 1)));
      }
      Value start = conv(s.start), end = conv(s.end), last = c(double(in - 1));
      if (out == 1)
        return mul(mul(c(0.5), add(start, end)), last);
      return add(mul(start, last),
                 div(mul(mul(x, sub(end, start)), last), c(double(out - 1))));
    }
    case CoordTransform::half_pixel_symmetric: {
      // ONNX: offset = in/2 * (1 - out / (scale * in)).
      Value adjustment = s.dynamic
                             ? div(c(double(out)), mul(scale, c(double(in))))
                             : c(double(out) / (s.value * double(in)));
      Value offset = mul(c(double(in) / 2.0), sub(c(1.0), adjustment));
      return add(offset, halfPixel());
    }
    }
    llvm_unreachable("unknown coordinate transform");
  }

  /// The type linear resizing computes in: the compute type of a float
  /// element (f32 for f32 and narrower), f64 for integers.
  static Type linearType(OpBuilder &b, ResizeOp op) {
    Type elt = cast<RankedTensorType>(op.getInput().getType()).getElementType();
    return isa<FloatType>(elt) ? computeType(b, elt) : b.getF64Type();
  }

  static SmallVector<Value> cubicCoeffs(OpBuilder &b, Location l, Value t,
                                        double a) {
    Type f64 = b.getF64Type();
    auto c = [&](double v) { return constFloat(b, l, f64, v); };
    auto add = [&](Value p, Value q) { return arith::AddFOp::create(b, l, p, q).getResult(); };
    auto sub = [&](Value p, Value q) { return arith::SubFOp::create(b, l, p, q).getResult(); };
    auto mul = [&](Value p, Value q) { return arith::MulFOp::create(b, l, p, q).getResult(); };
    // Outer taps (distance 1 < d < 2): ((a*d - 5a)*d + 8a)*d - 4a.
    auto outer = [&](Value d) {
      Value v = sub(mul(c(a), d), c(5 * a));
      v = add(mul(v, d), c(8 * a));
      return sub(mul(v, d), c(4 * a));
    };
    // Inner taps (d <= 1): ((a+2)*d - (a+3))*d*d + 1.
    auto inner = [&](Value d) {
      Value v = sub(mul(c(a + 2), d), c(a + 3));
      return add(mul(mul(v, d), d), c(1.0));
    };
    Value oneMinusT = sub(c(1.0), t);
    return {outer(add(t, c(1.0))), inner(t), inner(oneMinusT),
            outer(add(oneMinusT, c(1.0)))};
  }

  /// An interpolation tap along one dim: the input index read and its
  /// weight (null for weight 1).
  using Tap = std::pair<Value, Value>;

  /// The taps output index `iv` reads along a dim of input size `in`, output
  /// size `out` and scale `s`: one for nearest (and unscaled dims), two for
  /// linear, four for cubic. For tf_crop_and_resize, `outside` is set to
  /// whether the source coordinate falls outside the input (NaN included).
  static SmallVector<Tap> tapsAlong(OpBuilder &b, Location l, ResizeOp op,
                                    Value iv, int64_t in, int64_t out,
                                    const DimScale &s, Value &outside) {
    ResizeMode mode = op.getMode();
    NearestMode nm = op.getNearestMode();
    bool excludeOutside = op.getExcludeOutside();
    bool crop = op.getCoordTransform() == CoordTransform::tf_crop_and_resize;
    Type f64 = b.getF64Type();
    auto c = [&](double v) { return constFloat(b, l, f64, v); };
    auto toIndex = [&](Value f) {
      Value i = arith::FPToSIOp::create(b, l, b.getI64Type(), f);
      return arith::IndexCastOp::create(b, l, b.getIndexType(), i);
    };
    if (in == out && !s.fromOperands() && s.value == 1.0)
      return {{iv, Value()}};
    // Outside [0, in - 1], or NaN.
    auto outsideOf = [&](Value x, Value zero, Value last) {
      if (!crop)
        return;
      outside = arith::OrIOp::create(
          b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::ULT, x, zero),
          arith::CmpFOp::create(b, l, arith::CmpFPredicate::UGT, x, last));
    };
    Value xi = arith::IndexCastOp::create(b, l, b.getI64Type(), iv);
    if (mode == ResizeMode::linear) {
      Type ft = linearType(b, op);
      auto cf = [&](double v) { return constFloat(b, l, ft, v); };
      Value x = sourceCoord(b, l, op.getCoordTransform(),
                            arith::SIToFPOp::create(b, l, ft, xi), in, out, s);
      outsideOf(x, cf(0), cf(double(in - 1)));
      // A coordinate computed from operands may be NaN: the clamp takes
      // the number then, and no index comes from a NaN.
      if (s.fromOperands())
        x = arith::MaxNumFOp::create(
            b, l, arith::MinNumFOp::create(b, l, x, cf(double(in - 1))), cf(0));
      else
        x = arith::MaximumFOp::create(
            b, l, arith::MinimumFOp::create(b, l, x, cf(double(in - 1))),
            cf(0));
      Value i1 = arith::FPToSIOp::create(b, l, b.getI64Type(), x);
      Value last = constInt(b, l, b.getI64Type(), in - 1);
      Value i2 = arith::MinSIOp::create(
          b, l, arith::AddIOp::create(b, l, i1, constInt(b, l, b.getI64Type(), 1)),
          last);
      auto dist = [&](Value i) {
        return math::AbsFOp::create(
            b, l, arith::SubFOp::create(b, l, x,
                                        arith::SIToFPOp::create(b, l, ft, i)));
      };
      Value same = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i1, i2);
      Value w1 = arith::SelectOp::create(b, l, same, cf(0.5), dist(i2));
      Value w2 = arith::SelectOp::create(b, l, same, cf(0.5), dist(i1));
      auto index = [&](Value i) {
        return arith::IndexCastOp::create(b, l, b.getIndexType(), i);
      };
      return {{index(i1), w1}, {index(i2), w2}};
    }
    Value xf = arith::SIToFPOp::create(b, l, f64, xi);
    Value x = sourceCoord(b, l, op.getCoordTransform(), xf, in, out, s);
    outsideOf(x, c(0), c(double(in - 1)));
    // Every tap of a coordinate beyond [-4, in + 3] reads the edge (or
    // lies outside) as it would from the clamped one; NaN becomes -4.
    if (s.fromOperands())
      x = arith::MaxNumFOp::create(
          b, l, arith::MinNumFOp::create(b, l, x, c(double(in + 3))), c(-4));
    if (mode == ResizeMode::nearest) {
      Value rounded;
      switch (nm) {
      case NearestMode::floor:
        rounded = math::FloorOp::create(b, l, x);
        break;
      case NearestMode::ceil:
        rounded = math::CeilOp::create(b, l, x);
        break;
      case NearestMode::round_prefer_floor:
        rounded =
            math::CeilOp::create(b, l, arith::SubFOp::create(b, l, x, c(0.5)));
        break;
      case NearestMode::round_prefer_ceil:
        rounded =
            math::FloorOp::create(b, l, arith::AddFOp::create(b, l, x, c(0.5)));
        break;
      }
      return {{idxClamp(b, l, toIndex(rounded), in), Value()}};
    }
    Value fl = math::FloorOp::create(b, l, x);
    Value t = arith::SubFOp::create(b, l, x, fl);
    Value base = toIndex(fl);
    SmallVector<Value> coeffs =
        cubicCoeffs(b, l, t, op.getCubicCoeffA().convertToDouble());
    SmallVector<Value> idx, w;
    for (int64_t k = 0; k < 4; ++k) {
      Value raw = idxAdd(b, l, base, constIndex(b, l, k - 1));
      idx.push_back(idxClamp(b, l, raw, in));
      Value weight = coeffs[k];
      if (excludeOutside) {
        Value inside = arith::AndIOp::create(
            b, l,
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, raw,
                                  constIndex(b, l, 0)),
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, raw,
                                  constIndex(b, l, in)));
        weight = arith::SelectOp::create(b, l, inside, weight, c(0.0));
      }
      w.push_back(weight);
    }
    if (excludeOutside) {
      Value sum = w[0];
      for (int k = 1; k < 4; ++k)
        sum = arith::AddFOp::create(b, l, sum, w[k]);
      for (int k = 0; k < 4; ++k)
        w[k] = arith::DivFOp::create(b, l, w[k], sum);
    }
    SmallVector<Tap> taps;
    for (int k = 0; k < 4; ++k)
      taps.push_back({idx[k], w[k]});
    return taps;
  }

  LogicalResult lower(ResizeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    auto type = resultType(op);
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    int64_t rank = type.getRank();
    // Scales: the op's `scales` (ONNX scales, verified: one per dim), the
    // scales operand (read in the body), else output / input.
    SmallVector<double> scales;
    if (std::optional<ArrayRef<double>> s = op.getScales())
      scales.assign(s->begin(), s->end());
    else
      for (int64_t d = 0; d < rank; ++d)
        scales.push_back(double(type.getDimSize(d)) /
                         double(inType.getDimSize(d)));
    Value input = adaptor.getInput();
    Value scaleValues = adaptor.getScaleValues(), roi = adaptor.getRoi();
    Type elt = type.getElementType();

    Value r = buildIndexed(
        rewriter, op.getLoc(), type, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          Type f64 = b.getF64Type();
          auto read = [&](Value t, int64_t i) -> Value {
            Value v = tensor::ExtractOp::create(
                b, l, t, ValueRange{constIndex(b, l, i)});
            return v.getType() == f64 ? v : arith::ExtFOp::create(b, l, f64, v);
          };
          // Linear sums in the compute type (its weights are of it), the
          // others in f64.
          Type accT =
              op.getMode() == ResizeMode::linear ? linearType(b, op) : f64;
          SmallVector<SmallVector<Tap>> taps;
          Value outside;
          for (int64_t d = 0; d < rank; ++d) {
            DimScale s;
            s.value = scales[d];
            if (scaleValues)
              s.dynamic = read(scaleValues, d);
            if (roi) {
              s.start = read(roi, d);
              s.end = read(roi, rank + d);
            }
            Value out;
            taps.push_back(tapsAlong(b, l, op, ivs[d], inType.getDimSize(d),
                                     type.getDimSize(d), s, out));
            if (out)
              outside =
                  outside ? arith::OrIOp::create(b, l, outside, out).getResult()
                          : out;
          }
          // Sum over the tap combinations (product of the per-dim weights).
          Value acc = constFloat(b, l, accT, 0.0);
          SmallVector<int64_t> pos(rank, 0);
          while (true) {
            SmallVector<Value> idx;
            Value weight;
            for (int64_t d = 0; d < rank; ++d) {
              auto [i, w] = taps[d][pos[d]];
              idx.push_back(i);
              if (w)
                weight = weight ? arith::MulFOp::create(b, l, weight, w).getResult() : w;
            }
            Value v = tensor::ExtractOp::create(b, l, input, idx);
            v = convertScalar(b, l, v, Kind::Float, accT, Kind::Float);
            acc = arith::AddFOp::create(
                b, l, acc, weight ? arith::MulFOp::create(b, l, v, weight).getResult() : v);
            int64_t d = rank - 1;
            while (d >= 0 && ++pos[d] == (int64_t)taps[d].size())
              pos[d--] = 0;
            if (d < 0)
              break;
          }
          Value result =
              convertScalar(b, l, acc, Kind::Float, elt, Kind::Float);
          if (outside)
            result = arith::SelectOp::create(
                b, l, outside,
                constFloat(b, l, elt,
                           op.getExtrapolationValue().convertToDouble()),
                result);
          return result;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateShapePatterns(TypeConverter &tc, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReshapeLike<ReshapeOp>, ReshapeLike<FlattenOp>,
               ReshapeLike<SqueezeOp>, ReshapeLike<UnsqueezeOp>,
               IdentityLowering<ContiguousOp>, IdentityLowering<DummyOp>,
               BroadcastLowering, TransposeLowering, ConcatLowering,
               SplitLowering, SliceLowering, FlipLowering, PadLowering,
               ResizeLowering>(tc, ctx);
}

} // namespace hodu::lowering
