//===- Common.cpp - shared helpers of the hodu-to-linalg lowering ---------===//

#include "Common.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;

namespace hodu::lowering {

Kind kindOf(Type t) {
  if (auto st = dyn_cast<ShapedType>(t))
    t = st.getElementType();
  if (isa<FloatType>(t))
    return Kind::Float;
  if (t.isInteger(1))
    return Kind::Bool;
  if (t.isUnsignedInteger())
    return Kind::Unsigned;
  return Kind::Signed;
}

Type toSignless(Type t) {
  if (auto rt = dyn_cast<RankedTensorType>(t))
    return RankedTensorType::get(rt.getShape(), toSignless(rt.getElementType()));
  if (auto it = dyn_cast<IntegerType>(t); it && !it.isSignless())
    return IntegerType::get(t.getContext(), it.getWidth());
  return t;
}

bool isNarrowFloat(Type t) {
  auto ft = dyn_cast<FloatType>(t);
  return ft && ft.getWidth() < 32;
}

Type computeType(OpBuilder &b, Type elt) {
  return isNarrowFloat(elt) ? b.getF32Type() : elt;
}

Value widen(OpBuilder &b, Location loc, Value v) {
  if (!isNarrowFloat(v.getType()))
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

Value narrow(OpBuilder &b, Location loc, Value v, Type t) {
  if (v.getType() == t)
    return v;
  auto from = dyn_cast<FloatType>(v.getType());
  auto to = dyn_cast<FloatType>(t);
  if (!from || !to)
    return v;
  if (from.getWidth() > to.getWidth())
    return arith::TruncFOp::create(b, loc, t, v);
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(b, loc, t, v);
  // Same width, different format (bf16 <-> f16): go through f32.
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  return arith::TruncFOp::create(b, loc, t, wide);
}

Value constFloat(OpBuilder &b, Location loc, Type t, double v) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
}

Value constInt(OpBuilder &b, Location loc, Type t, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
}

Value constIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value constNumber(OpBuilder &b, Location loc, Type t, double v) {
  if (isa<FloatType>(t))
    return constFloat(b, loc, t, v);
  return constInt(b, loc, t, static_cast<int64_t>(v));
}

Value constFromAttr(OpBuilder &b, Location loc, TypedAttr attr, Type t) {
  if (auto fa = dyn_cast<FloatAttr>(attr)) {
    if (auto ft = dyn_cast<FloatType>(t)) {
      APFloat v = fa.getValue();
      bool lost;
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
    }
    return constInt(b, loc, t, static_cast<int64_t>(fa.getValueAsDouble()));
  }
  auto ia = cast<IntegerAttr>(attr);
  if (isa<FloatType>(t))
    return constFloat(b, loc, t,
                      ia.getType().isUnsignedInteger()
                          ? static_cast<double>(ia.getValue().getZExtValue())
                          : static_cast<double>(ia.getValue().getSExtValue()));
  APInt v = ia.getValue();
  unsigned width = t.getIntOrFloatBitWidth();
  v = ia.getType().isUnsignedInteger() ? v.zextOrTrunc(width)
                                       : v.sextOrTrunc(width);
  return arith::ConstantOp::create(b, loc, IntegerAttr::get(t, v));
}

/// -inf / +inf for floats, the smallest / largest integer of `kind` else.
static Value extremeValue(OpBuilder &b, Location loc, Type t, Kind kind,
                          bool highest) {
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(t, APFloat::getInf(ft.getFloatSemantics(), !highest)));
  unsigned w = t.getIntOrFloatBitWidth();
  APInt v = kind == Kind::Signed
                ? (highest ? APInt::getSignedMaxValue(w) : APInt::getSignedMinValue(w))
                : (highest ? APInt::getMaxValue(w) : APInt::getMinValue(w));
  return arith::ConstantOp::create(b, loc, IntegerAttr::get(t, v));
}

Value lowestValue(OpBuilder &b, Location loc, Type t, Kind kind) {
  return extremeValue(b, loc, t, kind, /*highest=*/false);
}

Value highestValue(OpBuilder &b, Location loc, Type t, Kind kind) {
  return extremeValue(b, loc, t, kind, /*highest=*/true);
}

Value isNonZero(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (t.isInteger(1))
    return v;
  if (isa<FloatType>(t))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                 constFloat(b, loc, t, 0.0));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                               constInt(b, loc, t, 0));
}

/// `FloatOp`, `BoolOp` or `IntOp` on x and y, by their element type.
template <typename FloatOp, typename BoolOp, typename IntOp>
static Value emitByType(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return FloatOp::create(b, loc, x, y);
  if (x.getType().isInteger(1))
    return BoolOp::create(b, loc, x, y);
  return IntOp::create(b, loc, x, y);
}

/// `FloatOp`, `SignedOp` or `UnsignedOp` on x and y, by kind `k`.
template <typename FloatOp, typename SignedOp, typename UnsignedOp>
static Value emitByKind(OpBuilder &b, Location loc, Kind k, Value x, Value y) {
  if (k == Kind::Float)
    return FloatOp::create(b, loc, x, y);
  if (k == Kind::Signed)
    return SignedOp::create(b, loc, x, y);
  return UnsignedOp::create(b, loc, x, y);
}

Value emitAdd(OpBuilder &b, Location loc, Value x, Value y) {
  return emitByType<arith::AddFOp, arith::OrIOp, arith::AddIOp>(b, loc, x, y);
}

Value emitMul(OpBuilder &b, Location loc, Value x, Value y) {
  return emitByType<arith::MulFOp, arith::AndIOp, arith::MulIOp>(b, loc, x, y);
}

Value emitMax(OpBuilder &b, Location loc, Kind k, Value x, Value y) {
  return emitByKind<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>(b, loc,
                                                                       k, x, y);
}

Value emitMin(OpBuilder &b, Location loc, Kind k, Value x, Value y) {
  return emitByKind<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>(b, loc,
                                                                       k, x, y);
}

Value convertScalar(OpBuilder &b, Location loc, Value v, Kind from, Type to,
                    Kind toKind) {
  Type src = v.getType();
  if (src == to)
    return v;
  if (toKind == Kind::Bool)
    return isNonZero(b, loc, v);
  if (from == Kind::Float) {
    // Narrow floats have no direct conversions to integers on every target:
    // go through f32.
    v = widen(b, loc, v);
    if (toKind == Kind::Float)
      return narrow(b, loc, v, to);
    if (toKind == Kind::Signed)
      return arith::FPToSIOp::create(b, loc, to, v);
    return arith::FPToUIOp::create(b, loc, to, v);
  }
  // Integer or bool source.
  if (toKind == Kind::Float) {
    Type mid = computeType(b, to);
    Value f = from == Kind::Signed ? Value(arith::SIToFPOp::create(b, loc, mid, v))
                                   : Value(arith::UIToFPOp::create(b, loc, mid, v));
    return narrow(b, loc, f, to);
  }
  unsigned sw = src.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (sw == tw)
    return v;
  if (sw > tw)
    return arith::TruncIOp::create(b, loc, to, v);
  if (from == Kind::Signed)
    return arith::ExtSIOp::create(b, loc, to, v);
  return arith::ExtUIOp::create(b, loc, to, v);
}

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type elt) {
  return tensor::EmptyOp::create(b, loc, shape, elt);
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Value value) {
  Value empty = emptyTensor(b, loc, shape, value.getType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> shape,
                       ArrayRef<int64_t> resultShape) {
  int64_t r = shape.size(), rr = resultShape.size();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < r; ++i) {
    int64_t j = rr - r + i;
    if (shape[i] == 1 && resultShape[j] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(j, ctx));
  }
  return AffineMap::get(rr, 0, exprs, ctx);
}

Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, const BodyFn &body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(broadcastMap(
        ctx, cast<RankedTensorType>(in.getType()).getShape(),
        resultType.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iters(resultType.getRank(),
                                         utils::IteratorType::parallel);
  Value init =
      emptyTensor(b, loc, resultType.getShape(), resultType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value narrowTensor(OpBuilder &b, Location loc, Value v, Type elt) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elt)
    return v;
  return buildElementwise(b, loc, RankedTensorType::get(type.getShape(), elt),
                          v, [&](OpBuilder &nb, Location l, ValueRange a) {
                            return narrow(nb, l, a[0], elt);
                          });
}

Value buildIndexed(OpBuilder &b, Location loc, RankedTensorType resultType,
                   ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                   const IndexedBodyFn &body) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  if (maps.empty())
    maps.assign(inputs.size(), b.getMultiDimIdentityMap(rank));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  Value init =
      emptyTensor(b, loc, resultType.getShape(), resultType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> ivs;
        for (int64_t d = 0; d < rank; ++d)
          ivs.push_back(linalg::IndexOp::create(nb, nloc, d));
        Value r = body(nb, nloc, ivs, args.drop_back());
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto src = cast<RankedTensorType>(v.getType());
  auto dst = RankedTensorType::get(shape, src.getElementType());
  if (src == dst)
    return v;
  if (src.getRank() > dst.getRank()) {
    if (auto re = getReassociationIndicesForReshape(src, dst))
      return tensor::CollapseShapeOp::create(b, loc, dst, v, *re);
  } else if (src.getRank() < dst.getRank()) {
    if (auto re = getReassociationIndicesForReshape(src, dst))
      return tensor::ExpandShapeOp::create(b, loc, dst, v, *re);
  }
  // General case: through 1-D (or 0-D <-> all-ones shapes).
  int64_t n = src.getNumElements();
  Value flat = v;
  if (src.getRank() != 1) {
    auto flatTy = RankedTensorType::get({n}, src.getElementType());
    SmallVector<ReassociationIndices> re;
    if (src.getRank() > 0) {
      ReassociationIndices all;
      for (int64_t i = 0; i < src.getRank(); ++i)
        all.push_back(i);
      re.push_back(all);
      flat = tensor::CollapseShapeOp::create(b, loc, flatTy, v, re);
    } else {
      flat = tensor::ExpandShapeOp::create(b, loc, flatTy, v, re);
    }
  }
  if (dst.getRank() == 1)
    return flat;
  SmallVector<ReassociationIndices> re;
  if (dst.getRank() > 0) {
    ReassociationIndices all;
    for (int64_t i = 0; i < dst.getRank(); ++i)
      all.push_back(i);
    re.push_back(all);
    return tensor::ExpandShapeOp::create(b, loc, dst, flat, re);
  }
  return tensor::CollapseShapeOp::create(b, loc, dst, flat, re);
}

Value padConstant(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> low,
                  ArrayRef<int64_t> high, Value pad) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return v;
  auto src = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < src.getRank(); ++d)
    shape.push_back(src.getDimSize(d) + low[d] + high[d]);
  auto type = RankedTensorType::get(shape, src.getElementType());
  SmallVector<OpFoldResult> lo, hi;
  for (auto [l, h] : llvm::zip(low, high)) {
    lo.push_back(b.getIndexAttr(l));
    hi.push_back(b.getIndexAttr(h));
  }
  return tensor::PadOp::create(b, loc, type, v, lo, hi, pad);
}

Value idxAdd(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}

Value idxMul(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}

Value idxClamp(OpBuilder &b, Location loc, Value x, int64_t n) {
  Value lo = arith::MaxSIOp::create(b, loc, x, constIndex(b, loc, 0));
  return arith::MinSIOp::create(b, loc, lo, constIndex(b, loc, n - 1));
}

Value wrapIndex(OpBuilder &b, Location loc, Value v, int64_t size) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  Value zero = constIndex(b, loc, 0);
  Value neg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  Value wrapped = idxAdd(b, loc, i, constIndex(b, loc, size));
  return arith::SelectOp::create(b, loc, neg, wrapped, i);
}

RankedTensorType convertedType(const TypeConverter &tc, Type t) {
  return cast<RankedTensorType>(tc.convertType(t));
}

LogicalResult requireStatic(Operation *op,
                            ConversionPatternRewriter &rewriter) {
  auto isStatic = [](Type t) {
    auto st = dyn_cast<ShapedType>(t);
    return !st || st.hasStaticShape();
  };
  if (!llvm::all_of(op->getOperandTypes(), isStatic) ||
      !llvm::all_of(op->getResultTypes(), isStatic))
    return rewriter.notifyMatchFailure(op, "needs static shapes");
  return success();
}

Value contraction(OpBuilder &b, Location loc, ValueRange inputs,
                  ArrayRef<AffineMap> maps, AffineMap outMap,
                  ArrayRef<int64_t> outShape, ArrayRef<bool> isReduction,
                  Type acc) {
  SmallVector<AffineMap> all(maps);
  all.push_back(outMap);
  SmallVector<utils::IteratorType> iters;
  for (bool r : isReduction)
    iters.push_back(r ? utils::IteratorType::reduction
                      : utils::IteratorType::parallel);
  Value init = filledTensor(b, loc, outShape, constNumber(b, loc, acc, 0.0));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, all, iters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value p;
        for (Value a : args.drop_back()) {
          Value w = convertScalar(nb, l, a, kindOf(a.getType()), acc,
                                  kindOf(acc));
          p = p ? emitMul(nb, l, p, w) : w;
        }
        linalg::YieldOp::create(nb, l, emitAdd(nb, l, args.back(), p));
      });
  return generic.getResult(0);
}

} // namespace hodu::lowering
