//===- Indexing.cpp - Indexing family -------------------------------------===//
//
// Gathers (index_select, gather, onehot) are parallel linalg.generic ops
// that read the index operand through an indexing map and the data with
// tensor.extract. Scatters (scatter*, index_put) must apply updates in order
// (later duplicates win for `scatter`), so they are one scf.for over the
// update elements, threading the result tensor through tensor.insert.
// Negative indices wrap by adding the dimension size.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

using namespace mlir;

namespace hodu::lowering {
namespace {

struct IndexSelectLowering : StaticPattern<IndexSelectOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(IndexSelectOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = getContext();
    auto type = resultType(op);
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t dim = op.getDim();
    int64_t ir = cast<RankedTensorType>(adaptor.getIndices().getType()).getRank();
    SmallVector<AffineExpr> e;
    for (int64_t i = 0; i < ir; ++i)
      e.push_back(getAffineDimExpr(dim + i, ctx));
    AffineMap idxMap = AffineMap::get(type.getRank(), 0, e, ctx);
    int64_t size = inType.getDimSize(dim);
    Value r = buildIndexed(
        rewriter, op.getLoc(), type, adaptor.getIndices(), idxMap,
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
          SmallVector<Value> coords(ivs.take_front(dim));
          coords.push_back(idxClamp(b, l, wrapIndex(b, l, args[0], size), size));
          llvm::append_range(coords, ivs.drop_front(dim + ir));
          return tensor::ExtractOp::create(b, l, input, coords);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct GatherLowering : StaticPattern<GatherOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(GatherOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    auto type = resultType(op);
    Value input = adaptor.getInput();
    int64_t dim = op.getDim();
    int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(dim);
    Value r = buildIndexed(
        rewriter, op.getLoc(), type, adaptor.getIndices(), {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
          SmallVector<Value> coords(ivs);
          coords[dim] = idxClamp(b, l, wrapIndex(b, l, args[0], size), size);
          return tensor::ExtractOp::create(b, l, input, coords);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct OneHotLowering : StaticPattern<OneHotOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(OneHotOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = getContext();
    auto type = resultType(op);
    int64_t rank = type.getRank();
    // I64Attr's getter is unsigned: a negative axis compares as huge.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    int64_t depth = op.getNumClasses();
    SmallVector<AffineExpr> e;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        e.push_back(getAffineDimExpr(d, ctx));
    Type elt = type.getElementType();
    Value r = buildIndexed(
        rewriter, op.getLoc(), type, adaptor.getIndices(),
        AffineMap::get(rank, 0, e, ctx),
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
          Value idx = wrapIndex(b, l, args[0], depth);
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            ivs[axis], idx);
          if (elt.isInteger(1))
            return hit;
          return Value(arith::SelectOp::create(b, l, hit,
                                               constNumber(b, l, elt, 1.0),
                                               constNumber(b, l, elt, 0.0)));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Row-major coordinates of the linear index `p` in `shape`.
SmallVector<Value> delinearize(OpBuilder &b, Location l, Value p,
                               ArrayRef<int64_t> shape) {
  SmallVector<Value> coords(shape.size());
  Value rest = p;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value n = constIndex(b, l, shape[d]);
    coords[d] = arith::RemUIOp::create(b, l, rest, n);
    rest = arith::DivUIOp::create(b, l, rest, n);
  }
  return coords;
}

enum class Combine { Replace, Add, Mul, Max, Min };

/// Sequential updates: for every element `c` of the update space `shape`,
/// result[target(c)] = combine(result[target(c)], update(c)).
template <typename TargetFn, typename UpdateFn>
Value sequentialUpdate(OpBuilder &b, Location loc, Value init,
                       ArrayRef<int64_t> shape, Combine combine, Kind kind,
                       TargetFn target, UpdateFn update) {
  int64_t numel = 1;
  for (int64_t s : shape)
    numel *= s;
  auto loop = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), constIndex(b, loc, numel),
      constIndex(b, loc, 1), ValueRange{init},
      [&](OpBuilder &nb, Location l, Value p, ValueRange args) {
        SmallVector<Value> c = delinearize(nb, l, p, shape);
        SmallVector<Value> dst = target(nb, l, c);
        Value v = update(nb, l, c);
        if (combine != Combine::Replace) {
          Value old = tensor::ExtractOp::create(nb, l, args[0], dst);
          Value wo = widen(nb, l, old), wv = widen(nb, l, v);
          Value r = combine == Combine::Add   ? emitAdd(nb, l, wo, wv)
                    : combine == Combine::Mul ? emitMul(nb, l, wo, wv)
                    : combine == Combine::Max ? emitMax(nb, l, kind, wo, wv)
                                              : emitMin(nb, l, kind, wo, wv);
          v = narrow(nb, l, r, old.getType());
        }
        Value t = tensor::InsertOp::create(nb, l, v, args[0], dst);
        scf::YieldOp::create(nb, l, t);
      });
  return loop.getResult(0);
}

template <typename OpTy, Combine C>
struct ScatterLowering : StaticPattern<OpTy> {
  using StaticPattern<OpTy>::StaticPattern;
  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Value indices = adaptor.getIndices(), src = adaptor.getSrc();
    auto idxType = cast<RankedTensorType>(indices.getType());
    int64_t dim = op.getDim();
    int64_t size =
        cast<RankedTensorType>(adaptor.getInput().getType()).getDimSize(dim);
    Value r = sequentialUpdate(
        rewriter, op.getLoc(), adaptor.getInput(), idxType.getShape(), C,
        kindOf(op.getInput().getType()),
        [&](OpBuilder &b, Location l, ArrayRef<Value> c) {
          SmallVector<Value> dst(c);
          Value i = tensor::ExtractOp::create(b, l, indices, c);
          dst[dim] = idxClamp(b, l, wrapIndex(b, l, i, size), size);
          return dst;
        },
        [&](OpBuilder &b, Location l, ArrayRef<Value> c) {
          return tensor::ExtractOp::create(b, l, src, c).getResult();
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct IndexPutLowering : StaticPattern<IndexPutOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(IndexPutOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Value indices = adaptor.getIndices(), values = adaptor.getValues();
    auto vType = cast<RankedTensorType>(values.getType());
    int64_t dim = op.getDim();
    int64_t size =
        cast<RankedTensorType>(adaptor.getInput().getType()).getDimSize(dim);
    Value r = sequentialUpdate(
        rewriter, op.getLoc(), adaptor.getInput(), vType.getShape(),
        Combine::Replace, kindOf(op.getInput().getType()),
        [&](OpBuilder &b, Location l, ArrayRef<Value> c) {
          SmallVector<Value> dst(c);
          Value i = tensor::ExtractOp::create(b, l, indices, ValueRange{c[dim]});
          dst[dim] = idxClamp(b, l, wrapIndex(b, l, i, size), size);
          return dst;
        },
        [&](OpBuilder &b, Location l, ArrayRef<Value> c) {
          return tensor::ExtractOp::create(b, l, values, c).getResult();
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateIndexingPatterns(TypeConverter &tc, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<IndexSelectLowering, GatherLowering, OneHotLowering,
               IndexPutLowering, ScatterLowering<ScatterOp, Combine::Replace>,
               ScatterLowering<ScatterAddOp, Combine::Add>,
               ScatterLowering<ScatterMulOp, Combine::Mul>,
               ScatterLowering<ScatterMaxOp, Combine::Max>,
               ScatterLowering<ScatterMinOp, Combine::Min>>(tc, ctx);
}

} // namespace hodu::lowering
