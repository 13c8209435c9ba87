//===- Reductions.cpp - Reduce, Windowing, Scan and Sort families ---------===//
//
// Reductions are linalg.generic ops with reduction iterators over the
// non-kept shape, followed by an elementwise finalisation (mean, sqrt, log,
// narrowing) and a reshape for keep_dim. reduce_window pads with the
// reduction's identity and iterates over the window as reduction dims.
// cumsum is a generic with an extra reduction dim and a triangular mask;
// topk is a selection in scf.for loops.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

using namespace mlir;

namespace hodu::lowering {
namespace {

enum class ReduceKind {
  Sum, Mean, Max, Min, Prod, Std, Var, Norm, LogSum, LogSumExp, Any, All
};

template <typename OpTy, ReduceKind RK>
struct ReduceLowering : StaticPattern<OpTy> {
  using StaticPattern<OpTy>::StaticPattern;
  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = this->resultType(op);
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    Kind kind = kindOf(op.getInput().getType());
    Type elt = inType.getElementType();
    Type acc = computeType(rewriter, elt);
    ArrayRef<int64_t> dims = op.getDims();
    int64_t count = 1;
    for (int64_t d : dims)
      count *= inType.getDimSize(d);
    auto &b = rewriter;

    SmallVector<int64_t> sortedDims(dims), keptDims;
    llvm::sort(sortedDims);
    for (int64_t d = 0; d < inType.getRank(); ++d)
      if (!llvm::is_contained(sortedDims, d))
        keptDims.push_back(d);
    auto sumOf = [&](SumTerm f, ValueRange extra) {
      return blockedSum(b, loc, input, sortedDims, keptDims, extra, acc, f);
    };
    auto identity = [](OpBuilder &, Location, Value x, ValueRange) { return x; };
    auto maxOf = [&](bool isMax) {
      Value init = isMax ? lowestValue(b, loc, acc, kind)
                         : highestValue(b, loc, acc, kind);
      return reduceOver(b, loc, input, dims, init, {},
                        [&](OpBuilder &nb, Location l, ValueRange ins,
                            ValueRange accs, ValueRange) -> SmallVector<Value> {
                          Value x = widen(nb, l, ins[0]);
                          return {isMax ? emitMax(nb, l, kind, accs[0], x)
                                        : emitMin(nb, l, kind, accs[0], x)};
                        })[0];
    };
    auto finalize = [&](Value v, std::function<Value(OpBuilder &, Location, ValueRange)> f,
                        ValueRange extra = {}) {
      auto vt = cast<RankedTensorType>(v.getType());
      auto t = RankedTensorType::get(vt.getShape(), resultType.getElementType());
      SmallVector<Value> ins{v};
      llvm::append_range(ins, extra);
      return buildElementwise(b, loc, t, ins,
                              [&](OpBuilder &nb, Location l, ValueRange a) {
                                return narrow(nb, l, f(nb, l, a),
                                              resultType.getElementType());
                              });
    };
    auto cst = [&](OpBuilder &nb, Location l, double v) {
      return constNumber(nb, l, acc, v);
    };

    Value r;
    switch (RK) {
    case ReduceKind::Sum:
      r = sumOf(identity, {});
      break;
    case ReduceKind::Prod:
      r = reduceOver(b, loc, input, dims, constNumber(b, loc, acc, 1.0), {},
                     [&](OpBuilder &nb, Location l, ValueRange ins,
                         ValueRange accs, ValueRange) -> SmallVector<Value> {
                       return {emitMul(nb, l, accs[0], widen(nb, l, ins[0]))};
                     })[0];
      break;
    case ReduceKind::Max:
    case ReduceKind::Min:
      r = maxOf(RK == ReduceKind::Max);
      break;
    case ReduceKind::Mean:
      r = finalize(sumOf(identity, {}), [&](OpBuilder &nb, Location l, ValueRange a) {
        return arith::DivFOp::create(nb, l, a[0], cst(nb, l, double(count)));
      });
      break;
    case ReduceKind::Norm:
      r = finalize(sumOf([](OpBuilder &nb, Location l, Value x, ValueRange) {
                     return arith::MulFOp::create(nb, l, x, x);
                   }, {}),
                   [&](OpBuilder &nb, Location l, ValueRange a) {
                     return math::SqrtOp::create(nb, l, a[0]);
                   });
      break;
    case ReduceKind::LogSum:
      r = finalize(sumOf(identity, {}), [&](OpBuilder &nb, Location l, ValueRange a) {
        return math::LogOp::create(nb, l, a[0]);
      });
      break;
    case ReduceKind::LogSumExp: {
      // max + log(sum(exp(x - max))); an infinite max is replaced by 0 so
      // all -inf inputs give -inf instead of NaN.
      Value m = maxOf(true);
      Value safe = finalize(m, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value abs = math::AbsFOp::create(nb, l, a[0]);
        Value finite = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLT,
                                             abs, highestValue(nb, l, acc, Kind::Float));
        return arith::SelectOp::create(nb, l, finite, a[0], cst(nb, l, 0.0));
      });
      Value s = sumOf([](OpBuilder &nb, Location l, Value x, ValueRange e) {
        Value mv = widen(nb, l, e[0]);
        return math::ExpOp::create(nb, l, arith::SubFOp::create(nb, l, x, mv));
      }, safe);
      r = finalize(s, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value mv = widen(nb, l, a[1]);
        return arith::AddFOp::create(nb, l, math::LogOp::create(nb, l, a[0]), mv);
      }, safe);
      break;
    }
    case ReduceKind::Var:
    case ReduceKind::Std: {
      Value mean = sumOf(identity, {});
      mean = buildElementwise(
          b, loc, cast<RankedTensorType>(mean.getType()), mean,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            return arith::DivFOp::create(nb, l, a[0], cst(nb, l, double(count)));
          });
      Value ss = sumOf([](OpBuilder &nb, Location l, Value x, ValueRange e) {
        Value d = arith::SubFOp::create(nb, l, x, e[0]);
        return arith::MulFOp::create(nb, l, d, d);
      }, mean);
      r = finalize(ss, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value v = arith::DivFOp::create(nb, l, a[0], cst(nb, l, double(count)));
        if (RK == ReduceKind::Std)
          return math::SqrtOp::create(nb, l, v);
        return v;
      });
      break;
    }
    case ReduceKind::Any:
    case ReduceKind::All: {
      // Staged like a sum, so a long one (an index check over a large
      // tensor) has a parallel loop.
      bool any = RK == ReduceKind::Any;
      Combiner c{any ? 0.0 : 1.0,
                 [any](OpBuilder &nb, Location l, Value x, Value y) -> Value {
                   if (any)
                     return arith::OrIOp::create(nb, l, x, y);
                   return arith::AndIOp::create(nb, l, x, y);
                 }};
      r = blockedSum(
          b, loc, input, sortedDims, keptDims, {}, b.getI1Type(),
          [](OpBuilder &nb, Location l, Value x, ValueRange) {
            return isNonZero(nb, l, x);
          },
          c);
      break;
    }
    }
    // Narrow accumulators that were not finalised.
    r = narrowTensor(b, loc, r, resultType.getElementType());
    rewriter.replaceOp(op, reshapeTo(b, loc, r, resultType.getShape()));
    return success();
  }
};

template <typename OpTy, bool IsMax>
struct ArgLowering : StaticPattern<OpTy> {
  using StaticPattern<OpTy>::StaticPattern;
  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = this->resultType(op);
    Value input = adaptor.getInput();
    Kind kind = kindOf(op.getInput().getType());
    Type elt = cast<RankedTensorType>(input.getType()).getElementType();
    Type acc = computeType(rewriter, elt);
    ArrayRef<int64_t> dims = op.getDims();
    if (dims.size() != 1)
      return rewriter.notifyMatchFailure(op, "expects exactly one dim");
    int64_t dim = dims[0];
    bool last = op.getSelectLastIndex();
    auto &b = rewriter;
    Value initV = IsMax ? lowestValue(b, loc, acc, kind)
                        : highestValue(b, loc, acc, kind);
    Value initI = constInt(b, loc, b.getI64Type(), 0);
    SmallVector<Value> r = reduceOver(
        b, loc, input, dims, {initV, initI}, {},
        [&](OpBuilder &nb, Location l, ValueRange ins, ValueRange accs,
            ValueRange ivs) -> SmallVector<Value> {
          Value x = widen(nb, l, ins[0]);
          Value better = emitCompare(nb, l, kind, IsMax ? "gt" : "lt", x, accs[0]);
          if (last)
            better = arith::OrIOp::create(
                nb, l, better, emitCompare(nb, l, kind, "eq", x, accs[0]));
          if (kind == Kind::Float) {
            // numpy: the first NaN wins.
            Value xNan = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, x, x);
            Value aNan = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO,
                                               accs[0], accs[0]);
            Value notANan = arith::XOrIOp::create(
                nb, l, aNan, constInt(nb, l, nb.getI1Type(), 1));
            better = arith::AndIOp::create(nb, l, better, notANan);
            better = arith::OrIOp::create(
                nb, l, better, arith::AndIOp::create(nb, l, xNan, notANan));
          }
          Value i = arith::IndexCastOp::create(nb, l, nb.getI64Type(), ivs[dim]);
          return {arith::SelectOp::create(nb, l, better, x, accs[0]),
                  arith::SelectOp::create(nb, l, better, i, accs[1])};
        },
        /*withIndices=*/true);
    rewriter.replaceOp(op, reshapeTo(b, loc, r[1], resultType.getShape()));
    return success();
  }
};

struct ReduceWindowLowering : StaticPattern<ReduceWindowOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(ReduceWindowOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto &b = rewriter;
    auto resultType = this->resultType(op);
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    Kind kind = kindOf(op.getInput().getType());
    Type elt = inType.getElementType();
    Type acc = computeType(b, elt);
    int64_t rank = inType.getRank();
    ArrayRef<int64_t> window = op.getWindowDims(), strides = op.getStrides(),
                      dil = op.getDilations(), pads = op.getPads();
    WindowKind wk = op.getKind();
    if ((int64_t)window.size() != rank || (int64_t)strides.size() != rank ||
        (int64_t)dil.size() != rank || (int64_t)pads.size() != 2 * rank)
      return rewriter.notifyMatchFailure(op, "attribute sizes do not match");

    Value padValue = wk == WindowKind::max   ? lowestValue(b, loc, elt, kind)
                     : wk == WindowKind::min ? highestValue(b, loc, elt, kind)
                                             : constNumber(b, loc, elt, 0.0);
    Value padded = padConstant(b, loc, adaptor.getInput(),
                               pads.take_front(rank), pads.drop_front(rank),
                               padValue);
    SmallVector<AffineExpr> inExprs, winExprs;
    for (int64_t d = 0; d < rank; ++d) {
      inExprs.push_back(getAffineDimExpr(d, ctx) * strides[d] +
                        getAffineDimExpr(rank + d, ctx) * dil[d]);
      winExprs.push_back(getAffineDimExpr(rank + d, ctx));
    }
    SmallVector<AffineExpr> outExprs;
    for (int64_t d = 0; d < rank; ++d)
      outExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps{AffineMap::get(2 * rank, 0, inExprs, ctx),
                                AffineMap::get(2 * rank, 0, winExprs, ctx),
                                AffineMap::get(2 * rank, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.append(rank, utils::IteratorType::reduction);
    Value windowShape = emptyTensor(b, loc, window, acc);
    Value init = wk == WindowKind::max   ? lowestValue(b, loc, acc, kind)
                 : wk == WindowKind::min ? highestValue(b, loc, acc, kind)
                                         : constNumber(b, loc, acc, 0.0);
    Value out = filledTensor(b, loc, resultType.getShape(), init);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{out.getType()}, ValueRange{padded, windowShape},
        ValueRange{out}, maps, iters,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value x = widen(nb, l, args[0]);
          Value r = wk == WindowKind::max   ? emitMax(nb, l, kind, args[2], x)
                    : wk == WindowKind::min ? emitMin(nb, l, kind, args[2], x)
                                            : emitAdd(nb, l, args[2], x);
          linalg::YieldOp::create(nb, l, r);
        });
    Value r = generic.getResult(0);
    Type resElt = resultType.getElementType();
    if (wk == WindowKind::mean) {
      // Divisor per output position: separable into per-dim tap counts,
      // the product of small integers, exact in f32 (or the f64 of an f64
      // model; no f64 otherwise, which Metal lacks).
      Type countType = acc.isF64() ? acc : Type(b.getF32Type());
      SmallVector<Value> countVectors;
      SmallVector<int64_t> countDims;
      int64_t fullCount = 1; // the dims whose windows never leave the input
      for (int64_t d = 0; d < rank; ++d) {
        if (op.getCountIncludePad() || (pads[d] == 0 && pads[rank + d] == 0)) {
          fullCount *= window[d];
          continue;
        }
        int64_t outN = resultType.getDimSize(d), in = inType.getDimSize(d);
        SmallVector<Attribute> counts;
        for (int64_t o = 0; o < outN; ++o) {
          int64_t c = 0;
          for (int64_t k = 0; k < window[d]; ++k) {
            int64_t p = o * strides[d] + k * dil[d] - pads[d];
            c += p >= 0 && p < in;
          }
          counts.push_back(b.getFloatAttr(countType, double(c)));
        }
        auto ct = RankedTensorType::get({outN}, countType);
        countVectors.push_back(arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(ct, counts)));
        countDims.push_back(d);
      }
      SmallVector<Value> ins{r};
      SmallVector<AffineMap> emaps{b.getMultiDimIdentityMap(rank)};
      for (auto [v, d] : llvm::zip(countVectors, countDims)) {
        ins.push_back(v);
        emaps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(d, ctx)));
      }
      r = buildIndexed(
          b, loc, resultType, ins, emaps,
          [&](OpBuilder &nb, Location l, ValueRange, ValueRange a) {
            Value divisor = constFloat(nb, l, countType, double(fullCount));
            for (Value c : a.drop_front())
              divisor = arith::MulFOp::create(nb, l, divisor, c);
            divisor = convertScalar(nb, l, divisor, Kind::Float, acc,
                                    Kind::Float);
            Value v = isa<FloatType>(acc)
                          ? Value(arith::DivFOp::create(nb, l, a[0], divisor))
                          : a[0];
            return narrow(nb, l, v, resElt);
          });
    } else {
      r = narrowTensor(b, loc, r, resElt);
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Running sums along a dim of at most this many positions are one generic
/// in which position i sums the positions it takes (O(n^2) per row); longer
/// ones go by blocks of kScanBlock positions (O(n * kScanBlock)).
constexpr int64_t kDirectScan = 64;
constexpr int64_t kScanBlock = 16;

/// The running sum of `x` (static) along `dim`, inclusive or exclusive of
/// each position, forward or from the end, in computeType: position i sums
/// x[k] for k <= i (k < i exclusive; k >= i, k > i reversed).
static Value runningSum(OpBuilder &b, Location loc, Value x, int64_t dim,
                        bool exclusive, bool reverse) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(x.getType());
  Type acc = computeType(b, type.getElementType());
  int64_t rank = type.getRank(), n = type.getDimSize(dim);
  SmallVector<int64_t> shape(type.getShape());
  if (n <= kDirectScan) {
    // Loop dims: the output dims, then k (the summed position along dim).
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d) {
      inExprs.push_back(getAffineDimExpr(d == dim ? rank : d, ctx));
      outExprs.push_back(getAffineDimExpr(d, ctx));
    }
    SmallVector<AffineMap> maps{AffineMap::get(rank + 1, 0, inExprs, ctx),
                                AffineMap::get(rank + 1, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    Value out = filledTensor(b, loc, shape, constNumber(b, loc, acc, 0.0));
    return linalg::GenericOp::create(
               b, loc, TypeRange{out.getType()}, ValueRange{x},
               ValueRange{out}, maps, iters,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value i = linalg::IndexOp::create(nb, l, dim);
                 Value k = linalg::IndexOp::create(nb, l, rank);
                 arith::CmpIPredicate p =
                     reverse ? (exclusive ? arith::CmpIPredicate::ugt
                                          : arith::CmpIPredicate::uge)
                             : (exclusive ? arith::CmpIPredicate::ult
                                          : arith::CmpIPredicate::ule);
                 Value take = arith::CmpIOp::create(nb, l, p, k, i);
                 Value sum = emitAdd(nb, l, args[1], widen(nb, l, args[0]));
                 linalg::YieldOp::create(
                     nb, l,
                     Value(arith::SelectOp::create(nb, l, take, sum, args[1])));
               })
        .getResult(0);
  }
  // Blocks: x padded with zeros to whole blocks and seen as [.., nb, B, ..];
  // each block's own running sum, plus the running sum of the blocks
  // before it (after it, reversed), exclusive, computed the same way.
  int64_t blocks = llvm::divideCeil(n, kScanBlock), padded = blocks * kScanBlock;
  if (padded != n) {
    SmallVector<int64_t> low(rank, 0), high(rank, 0);
    high[dim] = padded - n;
    x = padConstant(b, loc, x, low, high,
                    constNumber(b, loc, type.getElementType(), 0.0));
  }
  SmallVector<int64_t> split(shape);
  split[dim] = kScanBlock;
  split.insert(split.begin() + dim, blocks);
  Value xb = reshapeTo(b, loc, x, split);
  Value inBlock = runningSum(b, loc, xb, dim + 1, exclusive, reverse);
  // Block totals [.., nb, ..]: a sum over the block dim.
  SmallVector<int64_t> totalsShape(split);
  totalsShape.erase(totalsShape.begin() + dim + 1);
  SmallVector<AffineExpr> all, kept;
  for (int64_t d = 0; d <= rank; ++d) {
    all.push_back(getAffineDimExpr(d, ctx));
    if (d != dim + 1)
      kept.push_back(getAffineDimExpr(d, ctx));
  }
  SmallVector<utils::IteratorType> iters(rank + 1,
                                         utils::IteratorType::parallel);
  iters[dim + 1] = utils::IteratorType::reduction;
  Value zeros = filledTensor(b, loc, totalsShape, constNumber(b, loc, acc, 0.0));
  Value totals =
      linalg::GenericOp::create(
          b, loc, TypeRange{zeros.getType()}, ValueRange{xb}, ValueRange{zeros},
          SmallVector<AffineMap>{AffineMap::get(rank + 1, 0, all, ctx),
                                 AffineMap::get(rank + 1, 0, kept, ctx)},
          iters,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l, emitAdd(nb, l, args[1], widen(nb, l, args[0])));
          })
          .getResult(0);
  Value before = runningSum(b, loc, totals, dim, /*exclusive=*/true, reverse);
  SmallVector<int64_t> beforeShape(split);
  beforeShape[dim + 1] = 1;
  before = reshapeTo(b, loc, before, beforeShape);
  Value sum = buildElementwise(
      b, loc, RankedTensorType::get(split, acc), ValueRange{inBlock, before},
      [&](OpBuilder &nb, Location l, ValueRange a) {
        return emitAdd(nb, l, a[0], a[1]);
      });
  SmallVector<int64_t> paddedShape(shape);
  paddedShape[dim] = padded;
  sum = reshapeTo(b, loc, sum, paddedShape);
  if (padded == n)
    return sum;
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)),
      sizes, strides(rank, b.getIndexAttr(1));
  for (int64_t d : shape)
    sizes.push_back(b.getIndexAttr(d));
  return tensor::ExtractSliceOp::create(
             b, loc, RankedTensorType::get(shape, acc), sum, offsets, sizes,
             strides)
      .getResult();
}

struct CumSumLowering : StaticPattern<CumSumOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(CumSumOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    auto resultType = this->resultType(op);
    int64_t dim = op.getDim();
    if (dim < 0)
      dim += resultType.getRank();
    Value r = runningSum(rewriter, op.getLoc(), adaptor.getInput(), dim,
                         op.getExclusive(), op.getReverse());
    rewriter.replaceOp(
        op, narrowTensor(rewriter, op.getLoc(), r,
                         resultType.getElementType()));
    return success();
  }
};

/// topk as a selection: for each row and each j < k, the best element that
/// comes strictly after the (j-1)-th pick in the order (value, then lower
/// index first). O(k * n) per row, no scratch state. A large k (16 or more,
/// and more than 2 log2 n) sorts the row instead: O(n log n).
struct TopKLowering : StaticPattern<TopKOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(TopKOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto &b = rewriter;
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    Kind kind = kindOf(op.getInput().getType());
    Type elt = inType.getElementType();
    int64_t rank = inType.getRank();
    int64_t dim = op.getDim();
    if (dim < 0)
      dim += rank;
    int64_t k = op.getK(), n = inType.getDimSize(dim);
    bool largest = op.getLargest();
    // Move `dim` last and flatten the rest: [rows, n].
    SmallVector<int64_t> perm;
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim)
        perm.push_back(d);
    perm.push_back(dim);
    SmallVector<int64_t> tShape;
    for (int64_t d : perm)
      tShape.push_back(inType.getDimSize(d));
    Value t = input;
    if (dim != rank - 1) {
      Value init = emptyTensor(b, loc, tShape, elt);
      t = linalg::TransposeOp::create(b, loc, input, init, perm).getResult()[0];
    }
    int64_t rows = inType.getNumElements() / std::max<int64_t>(n, 1);
    t = reshapeTo(b, loc, t, {rows, n});

    Value vals = emptyTensor(b, loc, {rows, k}, elt);
    Value idxs = emptyTensor(b, loc, {rows, k}, b.getI64Type());
    Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
    Type i1 = b.getI1Type();
    // better(x, ix, y, iy): x precedes y in the output order.
    auto better = [&](OpBuilder &nb, Location l, Value x, Value ix, Value y,
                      Value iy) {
      Value wx = widen(nb, l, x), wy = widen(nb, l, y);
      Value strict = emitCompare(nb, l, kind, largest ? "gt" : "lt", wx, wy);
      Value eq = emitCompare(nb, l, kind, "eq", wx, wy);
      Value lower = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, ix, iy);
      return arith::OrIOp::create(nb, l, strict,
                                  arith::AndIOp::create(nb, l, eq, lower));
    };
    // For a large k, sorting the row (O(n log n)) beats k selections.
    int64_t log2n = 0;
    while ((int64_t(1) << log2n) < n)
      ++log2n;
    if (k >= 16 && k > 2 * log2n) {
      Value sorted = sortRows(b, loc, t, rows, n, k, vals, idxs, better);
      rewriter.replaceOp(op, restore(b, loc, op, sorted.getDefiningOp()
                                                    ->getResults(),
                                     tShape, perm, k, dim, rank));
      return success();
    }
    auto rowLoop = scf::ForOp::create(
        b, loc, c0, constIndex(b, loc, rows), c1, ValueRange{vals, idxs},
        [&](OpBuilder &rb, Location l, Value r, ValueRange rowArgs) {
          Value prevV0 = tensor::ExtractOp::create(rb, l, t, ValueRange{r, c0});
          auto jLoop = scf::ForOp::create(
              rb, l, c0, constIndex(rb, l, k), c1,
              ValueRange{rowArgs[0], rowArgs[1], prevV0, c0},
              [&](OpBuilder &jb, Location l2, Value j, ValueRange jArgs) {
                Value first = arith::CmpIOp::create(
                    jb, l2, arith::CmpIPredicate::eq, j, c0);
                Value false_ = constInt(jb, l2, i1, 0);
                auto mLoop = scf::ForOp::create(
                    jb, l2, c0, constIndex(jb, l2, n), c1,
                    ValueRange{jArgs[2], c0, false_},
                    [&](OpBuilder &mb, Location l3, Value m, ValueRange mArgs) {
                      Value x = tensor::ExtractOp::create(mb, l3, t,
                                                          ValueRange{r, m});
                      Value afterPrev =
                          better(mb, l3, jArgs[2], jArgs[3], x, m);
                      Value eligible =
                          arith::OrIOp::create(mb, l3, first, afterPrev);
                      Value notFound = arith::XOrIOp::create(
                          mb, l3, mArgs[2], constInt(mb, l3, i1, 1));
                      Value beats =
                          better(mb, l3, x, m, mArgs[0], mArgs[1]);
                      Value take = arith::AndIOp::create(
                          mb, l3, eligible,
                          arith::OrIOp::create(mb, l3, notFound, beats));
                      Value nv = arith::SelectOp::create(mb, l3, take, x, mArgs[0]);
                      Value ni = arith::SelectOp::create(mb, l3, take, m, mArgs[1]);
                      Value nf = arith::OrIOp::create(mb, l3, mArgs[2], take);
                      scf::YieldOp::create(mb, l3, ValueRange{nv, ni, nf});
                    });
                Value bv = mLoop.getResult(0), bi = mLoop.getResult(1);
                Value v2 = tensor::InsertOp::create(jb, l2, bv, jArgs[0],
                                                    ValueRange{r, j});
                Value bi64 =
                    arith::IndexCastOp::create(jb, l2, jb.getI64Type(), bi);
                Value i2 = tensor::InsertOp::create(jb, l2, bi64, jArgs[1],
                                                    ValueRange{r, j});
                scf::YieldOp::create(jb, l2, ValueRange{v2, i2, bv, bi});
              });
          scf::YieldOp::create(rb, l, ValueRange{jLoop.getResult(0),
                                                 jLoop.getResult(1)});
        });
    rewriter.replaceOp(op, restore(b, loc, op, rowLoop.getResults(), tShape,
                                   perm, k, dim, rank));
    return success();
  }

  /// The [rows, k] values and indices back in the input's dim order.
  static SmallVector<Value> restore(OpBuilder &b, Location loc, TopKOp op,
                                    ValueRange rowResults,
                                    ArrayRef<int64_t> tShape,
                                    ArrayRef<int64_t> perm, int64_t k,
                                    int64_t dim, int64_t rank) {
    SmallVector<int64_t> kShape(tShape);
    kShape.back() = k;
    SmallVector<int64_t> inv(rank);
    for (int64_t d = 0; d < rank; ++d)
      inv[perm[d]] = d;
    SmallVector<Value> results;
    for (unsigned i = 0; i < 2; ++i) {
      Value v = reshapeTo(b, loc, rowResults[i], kShape);
      if (dim != rank - 1) {
        auto resTy = cast<RankedTensorType>(op->getResult(i).getType());
        Value init = emptyTensor(b, loc, resTy.getShape(), resTy.getElementType());
        v = linalg::TransposeOp::create(b, loc, v, init, inv).getResult()[0];
      }
      results.push_back(v);
    }
    return results;
  }

  /// Each row of `t` ([rows, n]) sorted by `better` with a bottom-up merge
  /// sort (stable; ceil(log2 n) passes, each merging runs from one half of
  /// a [2, rows, n] scratch tensor of values, and one of indices, into the
  /// other, alternately; one tensor each rather than two, so that no CSE of
  /// identical empty tensors can make the halves alias), its first k into
  /// `vals` and `idxs`. Returns the row loop's first result
  /// (its op has both).
  template <typename Better>
  static Value sortRows(OpBuilder &b, Location loc, Value t, int64_t rows,
                        int64_t n, int64_t k, Value vals, Value idxs,
                        Better better) {
    Type elt = cast<RankedTensorType>(t.getType()).getElementType();
    Type i64 = b.getI64Type();
    Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
    Value cn = constIndex(b, loc, n), last = constIndex(b, loc, n - 1);
    int64_t passes = 0;
    while ((int64_t(1) << passes) < n)
      ++passes;
    Value vS0 = emptyTensor(b, loc, {2, rows, n}, elt);
    Value iS0 = emptyTensor(b, loc, {2, rows, n}, i64);
    auto rowLoop = scf::ForOp::create(
        b, loc, c0, constIndex(b, loc, rows), c1,
        ValueRange{vals, idxs, vS0, iS0},
        [&](OpBuilder &rb, Location l, Value r, ValueRange ra) {
          // The row and its positions into half 0.
          auto init = scf::ForOp::create(
              rb, l, c0, cn, c1, ValueRange{ra[2], ra[3]},
              [&](OpBuilder &ib, Location il, Value m, ValueRange ia) {
                Value x = tensor::ExtractOp::create(ib, il, t, ValueRange{r, m});
                Value v = tensor::InsertOp::create(ib, il, x, ia[0],
                                                   ValueRange{c0, r, m});
                Value mi = arith::IndexCastOp::create(ib, il, i64, m);
                Value i = tensor::InsertOp::create(ib, il, mi, ia[1],
                                                   ValueRange{c0, r, m});
                scf::YieldOp::create(ib, il, ValueRange{v, i});
              });
          // Each pass merges runs of `width` from half 0 into half 1, then
          // copies the row back into half 0.
          auto passLoop = scf::ForOp::create(
              rb, l, c0, constIndex(rb, l, passes), c1,
              ValueRange{init.getResult(0), init.getResult(1)},
              [&](OpBuilder &pb, Location pl, Value p, ValueRange pa) {
                // Even passes read half 0 and write half 1, odd ones the
                // other way round.
                Value src = arith::AndIOp::create(pb, pl, p, c1);
                Value dst = arith::SubIOp::create(pb, pl, c1, src);
                Value width = arith::ShLIOp::create(pb, pl, c1, p);
                Value step = arith::ShLIOp::create(pb, pl, width, c1);
                auto runLoop = scf::ForOp::create(
                    pb, pl, c0, cn, step, ValueRange{pa[0], pa[1]},
                    [&](OpBuilder &mb, Location ml, Value lo, ValueRange ma) {
                      Value mid = arith::MinSIOp::create(
                          mb, ml, arith::AddIOp::create(mb, ml, lo, width), cn);
                      Value hi = arith::MinSIOp::create(
                          mb, ml, arith::AddIOp::create(mb, ml, lo, step), cn);
                      auto merge = scf::ForOp::create(
                          mb, ml, lo, hi, c1, ValueRange{lo, mid, ma[0], ma[1]},
                          [&](OpBuilder &ob, Location ol, Value o,
                              ValueRange oa) {
                            Value i = oa[0], j = oa[1];
                            // Reads stay in the row (clamped); the
                            // conditions decide which read counts.
                            Value ic = arith::MinSIOp::create(ob, ol, i, last);
                            Value jc = arith::MinSIOp::create(ob, ol, j, last);
                            auto read = [&](Value buf, Value at) {
                              return tensor::ExtractOp::create(
                                         ob, ol, buf, ValueRange{src, r, at})
                                  .getResult();
                            };
                            Value vi = read(oa[2], ic), xi = read(oa[3], ic);
                            Value vj = read(oa[2], jc), xj = read(oa[3], jc);
                            Value leftLeft = arith::CmpIOp::create(
                                ob, ol, arith::CmpIPredicate::slt, i, mid);
                            Value rightDone = arith::CmpIOp::create(
                                ob, ol, arith::CmpIPredicate::sge, j, hi);
                            Value leftBetter = better(ob, ol, vi, xi, vj, xj);
                            Value takeLeft = arith::AndIOp::create(
                                ob, ol, leftLeft,
                                arith::OrIOp::create(ob, ol, rightDone,
                                                     leftBetter));
                            Value v = arith::SelectOp::create(ob, ol, takeLeft,
                                                              vi, vj);
                            Value x = arith::SelectOp::create(ob, ol, takeLeft,
                                                              xi, xj);
                            Value dv = tensor::InsertOp::create(
                                ob, ol, v, oa[2], ValueRange{dst, r, o});
                            Value dx = tensor::InsertOp::create(
                                ob, ol, x, oa[3], ValueRange{dst, r, o});
                            Value ni = arith::SelectOp::create(
                                ob, ol, takeLeft,
                                arith::AddIOp::create(ob, ol, i, c1), i);
                            Value nj = arith::SelectOp::create(
                                ob, ol, takeLeft, j,
                                arith::AddIOp::create(ob, ol, j, c1));
                            scf::YieldOp::create(ob, ol,
                                                 ValueRange{ni, nj, dv, dx});
                          });
                      scf::YieldOp::create(
                          mb, ml,
                          ValueRange{merge.getResult(2), merge.getResult(3)});
                    });
                scf::YieldOp::create(pb, pl, runLoop.getResults());
              });
          // The first k of the sorted row, in the half the last pass wrote.
          Value sv = passLoop.getResult(0), si = passLoop.getResult(1);
          Value done = constIndex(rb, l, passes & 1);
          auto copy = scf::ForOp::create(
              rb, l, c0, constIndex(rb, l, k), c1, ValueRange{ra[0], ra[1]},
              [&](OpBuilder &cb, Location cl, Value m, ValueRange ca) {
                Value v = tensor::ExtractOp::create(cb, cl, sv,
                                                    ValueRange{done, r, m});
                Value x = tensor::ExtractOp::create(cb, cl, si,
                                                    ValueRange{done, r, m});
                Value dv = tensor::InsertOp::create(cb, cl, v, ca[0],
                                                    ValueRange{r, m});
                Value dx = tensor::InsertOp::create(cb, cl, x, ca[1],
                                                    ValueRange{r, m});
                scf::YieldOp::create(cb, cl, ValueRange{dv, dx});
              });
          scf::YieldOp::create(rb, l,
                               ValueRange{copy.getResult(0), copy.getResult(1),
                                          passLoop.getResult(0),
                                          passLoop.getResult(1)});
        });
    return rowLoop.getResult(0);
  }
};

} // namespace

void populateReductionPatterns(TypeConverter &tc, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReduceLowering<ReduceSumOp, ReduceKind::Sum>,
               ReduceLowering<ReduceMeanOp, ReduceKind::Mean>,
               ReduceLowering<ReduceMaxOp, ReduceKind::Max>,
               ReduceLowering<ReduceMinOp, ReduceKind::Min>,
               ReduceLowering<ReduceProdOp, ReduceKind::Prod>,
               ReduceLowering<ReduceStdOp, ReduceKind::Std>,
               ReduceLowering<ReduceVarOp, ReduceKind::Var>,
               ReduceLowering<ReduceNormOp, ReduceKind::Norm>,
               ReduceLowering<ReduceLogSumOp, ReduceKind::LogSum>,
               ReduceLowering<ReduceLogSumExpOp, ReduceKind::LogSumExp>,
               ReduceLowering<ReduceAnyOp, ReduceKind::Any>,
               ReduceLowering<ReduceAllOp, ReduceKind::All>,
               ArgLowering<ArgMaxOp, true>, ArgLowering<ArgMinOp, false>,
               ReduceWindowLowering, CumSumLowering, TopKLowering>(tc, ctx);
}

} // namespace hodu::lowering
