//===- Conv.cpp - Conv family ---------------------------------------------===//
//
// All four conv ops become one grouped sum-of-products linalg.generic over
// channel-split views ([N, G, C/G, ...]) of zero-padded operands:
//  - conv: out[n,g,o,y] += x[n,g,c,y*s+k*d] * w[g,o,c,k]; 2-D convolutions
//    without groups use linalg.conv_2d_nchw_fchw instead, and 1-D ones
//    (without a wider accumulator) are 2-D ones of height 1.
//  - conv_transpose: the input is dilated by the stride (zeros inserted)
//    and padded by d*(k-1)-p, then convolved with the flipped, transposed
//    weights (stride 1).
//  - conv_grad_weight / conv_transpose_grad_weight: the same product with
//    the kernel offsets as parallel dims and batch/output as reductions.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

using namespace mlir;

namespace hodu::lowering {
namespace {

/// [N, C, ...] -> [N, G, C/G, ...] (or, with `at` = 0, [C, ...] ->
/// [G, C/G, ...]).
Value splitChannels(OpBuilder &b, Location loc, Value v, int64_t at,
                    int64_t groups) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> re;
  int64_t j = 0;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (d == at) {
      shape.push_back(groups);
      shape.push_back(t.getDimSize(d) / groups);
      re.push_back({j, j + 1});
      j += 2;
    } else {
      shape.push_back(t.getDimSize(d));
      re.push_back({j++});
    }
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, t.getElementType()), v, re);
}

/// Inverse of splitChannels on the result: merges dims `at` and `at + 1`.
Value mergeChannels(OpBuilder &b, Location loc, Value v, int64_t at) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> re;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (d == at) {
      shape.push_back(t.getDimSize(d) * t.getDimSize(d + 1));
      re.push_back({d, d + 1});
      ++d;
    } else {
      shape.push_back(t.getDimSize(d));
      re.push_back({d});
    }
  }
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(shape, t.getElementType()), v, re);
}

Value zeroOf(OpBuilder &b, Location loc, Value v) {
  return constNumber(b, loc, cast<RankedTensorType>(v.getType()).getElementType(),
                     0.0);
}

/// The contraction a grouped convolution ends in, forward or for the weight
/// gradient: of its 4 + 2s loops the first 3 + s index the result, three
/// channel dims (sized `channelDims`) then s spatial ones (sized `spatial`),
/// and the last 1 + s are summed. `exprs` index the two operands by these
/// loops; the sum is accumulated in `acc`.
Value groupedContraction(OpBuilder &b, Location loc, ValueRange operands,
                         ArrayRef<SmallVector<AffineExpr>> exprs,
                         ArrayRef<int64_t> channelDims,
                         ArrayRef<int64_t> spatial, Type acc) {
  MLIRContext *ctx = b.getContext();
  int64_t results = 3 + spatial.size(), loops = results + 1 + spatial.size();
  SmallVector<AffineExpr> oe;
  for (int64_t i = 0; i < results; ++i)
    oe.push_back(getAffineDimExpr(i, ctx));
  SmallVector<int64_t> outShape(channelDims);
  llvm::append_range(outShape, spatial);
  SmallVector<bool> red(loops, false);
  for (int64_t i = results; i < loops; ++i)
    red[i] = true;
  SmallVector<AffineMap> maps;
  for (ArrayRef<AffineExpr> e : exprs)
    maps.push_back(AffineMap::get(loops, 0, e, ctx));
  return contraction(b, loc, operands, maps, AffineMap::get(loops, 0, oe, ctx),
                     outShape, red, acc);
}

/// The grouped forward convolution of an already padded input.
Value forwardConv(OpBuilder &b, Location loc, Value x, Value w,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> dil,
                  int64_t groups, RankedTensorType resultType) {
  MLIRContext *ctx = b.getContext();
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(w.getType());
  int64_t s = xt.getRank() - 2;
  Type elt = resultType.getElementType();
  Type acc = computeType(b, elt);
  if (s == 1 && acc == elt) {
    // A 1-D convolution is a 2-D one of height 1: the same named op or
    // grouped form, and so the same fast paths (audio front ends: STFTs as
    // strided convs, 1-D encoders, depthwise 1-D convs).
    auto withHeight = [](ArrayRef<int64_t> shape) {
      SmallVector<int64_t> r(shape);
      r.insert(r.begin() + 2, 1);
      return r;
    };
    Value x2 = reshapeTo(b, loc, x, withHeight(xt.getShape()));
    Value w2 = reshapeTo(b, loc, w, withHeight(wt.getShape()));
    auto type2 = RankedTensorType::get(withHeight(resultType.getShape()), elt);
    Value r = forwardConv(b, loc, x2, w2, {1, strides[0]}, {1, dil[0]}, groups,
                          type2);
    return reshapeTo(b, loc, r, resultType.getShape());
  }
  if (s == 2 && groups == 1 && acc == elt) {
    Value init = filledTensor(b, loc, resultType.getShape(),
                              constNumber(b, loc, acc, 0.0));
    auto attr = [&](ArrayRef<int64_t> v) {
      return DenseIntElementsAttr::get(
          RankedTensorType::get({(int64_t)v.size()}, b.getI64Type()), v);
    };
    return linalg::Conv2DNchwFchwOp::create(
               b, loc, TypeRange{resultType}, ValueRange{x, w},
               ValueRange{init}, attr(strides), attr(dil))
        .getResult(0);
  }
  int64_t n = xt.getDimSize(0), o = wt.getDimSize(0);
  Value xg = splitChannels(b, loc, x, 1, groups);
  Value wg = splitChannels(b, loc, w, 0, groups);
  // Loops: n g o y_0.. c k_0..
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> xe{d(0), d(1), d(3 + s)}, we{d(1), d(2), d(3 + s)};
  for (int64_t i = 0; i < s; ++i) {
    xe.push_back(d(3 + i) * strides[i] + d(4 + s + i) * dil[i]);
    we.push_back(d(4 + s + i));
  }
  Value r = groupedContraction(b, loc, ValueRange{xg, wg}, {xe, we},
                               {n, groups, o / groups},
                               resultType.getShape().drop_front(2), acc);
  r = mergeChannels(b, loc, r, 1);
  return narrowTensor(b, loc, r, resultType.getElementType());
}

struct ConvLowering : StaticPattern<ConvOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(ConvOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = resultType(op);
    Value x = adaptor.getLhs();
    int64_t s = type.getRank() - 2;
    ArrayRef<int64_t> pads = op.getPads();
    SmallVector<int64_t> lo{0, 0}, hi{0, 0};
    lo.append(pads.begin(), pads.begin() + s);
    hi.append(pads.begin() + s, pads.end());
    x = padConstant(rewriter, loc, x, lo, hi, zeroOf(rewriter, loc, x));
    rewriter.replaceOp(op, forwardConv(rewriter, loc, x, adaptor.getRhs(),
                                       op.getStrides(), op.getDilations(),
                                       op.getGroups(), type));
    return success();
  }
};

struct ConvTransposeLowering : StaticPattern<ConvTransposeOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(ConvTransposeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto &b = rewriter;
    auto type = resultType(op);
    Value x = adaptor.getLhs(), w = adaptor.getRhs();
    auto xt = cast<RankedTensorType>(x.getType());
    auto wt = cast<RankedTensorType>(w.getType());
    int64_t s = type.getRank() - 2, groups = op.getGroups();
    ArrayRef<int64_t> strides = op.getStrides(), dil = op.getDilations(),
                      pads = op.getPads(), outPad = op.getOutputPadding();
    // Dilate by the stride and pad by d*(k-1)-p (+ output_padding at the
    // end); negative amounts crop afterwards.
    SmallVector<int64_t> full{xt.getDimSize(0), xt.getDimSize(1)};
    SmallVector<int64_t> offsets{0, 0}, istrides{1, 1};
    SmallVector<int64_t> cropOff{0, 0}, cropSize{xt.getDimSize(0), xt.getDimSize(1)};
    bool crop = false;
    for (int64_t i = 0; i < s; ++i) {
      int64_t in = xt.getDimSize(2 + i), k = wt.getDimSize(2 + i);
      int64_t lo = dil[i] * (k - 1) - pads[i];
      int64_t hi = dil[i] * (k - 1) - pads[s + i] + outPad[i];
      int64_t core = (in - 1) * strides[i] + 1;
      full.push_back(core + std::max<int64_t>(lo, 0) + std::max<int64_t>(hi, 0));
      offsets.push_back(std::max<int64_t>(lo, 0));
      istrides.push_back(strides[i]);
      cropOff.push_back(std::max<int64_t>(-lo, 0));
      cropSize.push_back(core + lo + hi);
      crop |= lo < 0 || hi < 0;
    }
    Value canvas = filledTensor(b, loc, full, zeroOf(b, loc, x));
    Value xd = tensor::InsertSliceOp::create(b, loc, x, canvas, ValueRange{},
                                             ValueRange{}, ValueRange{}, offsets,
                                             xt.getShape(), istrides);
    if (crop) {
      SmallVector<int64_t> ones(s + 2, 1);
      xd = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get(cropSize, xt.getElementType()), xd,
          ValueRange{}, ValueRange{}, ValueRange{}, cropOff, cropSize, ones);
    }
    // Forward weights [O, C/G, k...] from [C, O/G, k...], flipped.
    int64_t c = wt.getDimSize(0), og = wt.getDimSize(1), cg = c / groups;
    SmallVector<int64_t> fShape{og * groups, cg};
    for (int64_t i = 0; i < s; ++i)
      fShape.push_back(wt.getDimSize(2 + i));
    auto fType = RankedTensorType::get(fShape, wt.getElementType());
    Value wf = buildIndexed(
        b, loc, fType, {}, {},
        [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) {
          Value ogv = constIndex(nb, l, og);
          Value g = arith::DivUIOp::create(nb, l, ivs[0], ogv);
          Value o = arith::RemUIOp::create(nb, l, ivs[0], ogv);
          SmallVector<Value> src{
              idxAdd(nb, l, idxMul(nb, l, g, constIndex(nb, l, cg)), ivs[1]), o};
          for (int64_t i = 0; i < s; ++i)
            src.push_back(arith::SubIOp::create(
                nb, l, constIndex(nb, l, fShape[2 + i] - 1), ivs[2 + i]));
          return tensor::ExtractOp::create(nb, l, w, src);
        });
    SmallVector<int64_t> ones(s, 1);
    rewriter.replaceOp(op, forwardConv(b, loc, xd, wf, ones, dil, groups, type));
    return success();
  }
};

/// conv_grad_weight and conv_transpose_grad_weight.
template <typename OpTy, bool Transposed>
struct GradWeightLowering : StaticPattern<OpTy> {
  using StaticPattern<OpTy>::StaticPattern;
  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto &b = rewriter;
    MLIRContext *ctx = this->getContext();
    auto type = this->resultType(op);
    Value x = adaptor.getLhs(), dy = adaptor.getRhs();
    auto xt = cast<RankedTensorType>(x.getType());
    auto dyt = cast<RankedTensorType>(dy.getType());
    int64_t s = type.getRank() - 2, groups = op.getGroups();
    ArrayRef<int64_t> strides = op.getStrides(), dil = op.getDilations(),
                      pads = op.getPads();
    Type elt = type.getElementType();
    Type acc = computeType(b, elt);
    // The operand read at y*s + k*d is padded: x for conv, dy for
    // conv_transpose (whose forward output is cropped by the pads).
    SmallVector<int64_t> lo{0, 0}, hi{0, 0};
    for (int64_t i = 0; i < s; ++i) {
      int64_t k = type.getDimSize(2 + i);
      if (!Transposed) {
        lo.push_back(pads[i]);
        hi.push_back(pads[s + i]);
      } else {
        int64_t in = xt.getDimSize(2 + i);
        int64_t needed = (in - 1) * strides[i] + (k - 1) * dil[i] + 1;
        lo.push_back(pads[i]);
        hi.push_back(
            std::max<int64_t>(0, needed - pads[i] - dyt.getDimSize(2 + i)));
      }
    }
    if (!Transposed)
      x = padConstant(b, loc, x, lo, hi, zeroOf(b, loc, x));
    else
      dy = padConstant(b, loc, dy, lo, hi, zeroOf(b, loc, dy));
    // The strided operand (read at y*s+k*d) and the plain one (read at y).
    Value strided = Transposed ? dy : x, plain = Transposed ? x : dy;
    Value sg = splitChannels(b, loc, strided, 1, groups);
    Value pg = splitChannels(b, loc, plain, 1, groups);
    auto pgt = cast<RankedTensorType>(pg.getType());
    auto sgt = cast<RankedTensorType>(sg.getType());
    // Loops: g a b k_0.. n y_0.., where (a, b) = (o, c) for conv with the
    // result [G, O/G, C/G, k] and (c, o) for conv_transpose with [G, C/G,
    // O/G, k]; the plain operand's channel is `a` for conv (dy has O) and
    // also `a` for conv_transpose (x has C).
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> se{d(3 + s), d(0), d(2)}, pe{d(3 + s), d(0), d(1)};
    for (int64_t i = 0; i < s; ++i) {
      se.push_back(d(4 + s + i) * strides[i] + d(3 + i) * dil[i]);
      pe.push_back(d(4 + s + i));
    }
    Value r = groupedContraction(b, loc, ValueRange{sg, pg}, {se, pe},
                                 {groups, pgt.getDimSize(2), sgt.getDimSize(2)},
                                 type.getShape().drop_front(2), acc);
    r = mergeChannels(b, loc, r, 0);
    rewriter.replaceOp(op, narrowTensor(b, loc, r, type.getElementType()));
    return success();
  }
};

} // namespace

void populateConvPatterns(TypeConverter &tc, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConvLowering, ConvTransposeLowering,
               GradWeightLowering<ConvGradWeightOp, false>,
               GradWeightLowering<ConvTransposeGradWeightOp, true>>(tc, ctx);
}

} // namespace hodu::lowering
