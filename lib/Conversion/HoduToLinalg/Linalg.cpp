//===- Linalg.cpp - Matrix, Linalg and Einsum families --------------------===//
//
// matmul becomes linalg.matmul / linalg.batch_matmul when the operands are
// plain 2-D / equal-batch 3-D, when batched activations meet one weight
// matrix (batch folded into M), or when both sides have the same batch dims
// (collapsed into one); else a linalg.generic with broadcasting batch maps
// (1-D operands are promoted to matrices first). The named ops are what
// hodu-cpu-vectorize tiles and vectorises. dot, trace and einsum
// are generics. det and inv run Gaussian elimination with partial pivoting
// in scf.for loops over tensors: no upstream op does either.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

using namespace mlir;

namespace hodu::lowering {
namespace {

/// Narrows an accumulator tensor to `type` (element conversion + reshape).
Value finish(OpBuilder &b, Location loc, Value acc, RankedTensorType type) {
  return reshapeTo(b, loc, narrowTensor(b, loc, acc, type.getElementType()),
                   type.getShape());
}

struct MatmulLowering : StaticPattern<MatmulOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(MatmulOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto &b = rewriter;
    auto type = resultType(op);
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    if (lt.getRank() == 1)
      lhs = reshapeTo(b, loc, lhs, {1, lt.getDimSize(0)});
    if (rt.getRank() == 1)
      rhs = reshapeTo(b, loc, rhs, {rt.getDimSize(0), 1});
    lt = cast<RankedTensorType>(lhs.getType());
    rt = cast<RankedTensorType>(rhs.getType());
    Type elt = type.getElementType();
    Type acc = computeType(b, elt);
    int64_t m = lt.getDimSize(lt.getRank() - 2), k = lt.getDimSize(lt.getRank() - 1);
    int64_t n = rt.getDimSize(rt.getRank() - 1);
    SmallVector<int64_t> batch;
    if (failed(hodu::detail::broadcastShapes(lt.getShape().drop_back(2),
                                             rt.getShape().drop_back(2), batch)))
      return rewriter.notifyMatchFailure(op, "batch dims do not broadcast");
    SmallVector<int64_t> outShape(batch);
    outShape.append({m, n});
    // A named matmul/batch_matmul on a zero-filled accumulator, reshaped to
    // the result type: the form hodu-cpu-vectorize tiles and vectorises.
    auto named = [&](auto opTag, Value l, Value r,
                     ArrayRef<int64_t> shape) -> LogicalResult {
      using NamedOp = decltype(opTag);
      Value init = filledTensor(b, loc, shape, constNumber(b, loc, acc, 0.0));
      Value res = NamedOp::create(b, loc, TypeRange{init.getType()},
                                  ValueRange{l, r}, ValueRange{init})
                      .getResult(0);
      rewriter.replaceOp(op, reshapeTo(b, loc, res, type.getShape()));
      return success();
    };
    auto product = [](ArrayRef<int64_t> dims) {
      int64_t p = 1;
      for (int64_t d : dims)
        p *= d;
      return p;
    };
    if (acc == elt && lt.getRank() == 2 && rt.getRank() == 2)
      return named(linalg::MatmulOp(), lhs, rhs, outShape);
    if (acc == elt && lt.getRank() == 3 && rt.getRank() == 3 &&
        lt.getDimSize(0) == rt.getDimSize(0))
      return named(linalg::BatchMatmulOp(), lhs, rhs, outShape);
    // Batched activations times one weight matrix (transformer projections:
    // [b..., m, k] x [k, n]): fold the batch into m, one named matmul.
    if (acc == elt && lt.getRank() >= 3 &&
        product(rt.getShape().drop_back(2)) == 1) {
      int64_t rows = product(lt.getShape().drop_back(1));
      return named(linalg::MatmulOp(), reshapeTo(b, loc, lhs, {rows, k}),
                   reshapeTo(b, loc, rhs, {k, n}), {rows, n});
    }
    // Equal batch dims on both sides (attention: [b, h, m, k] x [b, h, k, n]):
    // collapse them into one, one named batch_matmul.
    if (acc == elt && lt.getRank() >= 3 && lt.getRank() == rt.getRank() &&
        lt.getShape().drop_back(2) == rt.getShape().drop_back(2)) {
      int64_t bs = product(lt.getShape().drop_back(2));
      return named(linalg::BatchMatmulOp(), reshapeTo(b, loc, lhs, {bs, m, k}),
                   reshapeTo(b, loc, rhs, {bs, k, n}), {bs, m, n});
    }
    // General: loops (batch..., m, n, k).
    int64_t nb = batch.size(), loops = nb + 3;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    auto operandMap = [&](RankedTensorType t, AffineExpr r0, AffineExpr r1) {
      SmallVector<AffineExpr> e;
      int64_t tb = t.getRank() - 2;
      for (int64_t i = 0; i < tb; ++i) {
        int64_t j = nb - tb + i;
        e.push_back(t.getDimSize(i) == 1 && batch[j] != 1
                        ? getAffineConstantExpr(0, ctx)
                        : d(j));
      }
      e.push_back(r0);
      e.push_back(r1);
      return AffineMap::get(loops, 0, e, ctx);
    };
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < nb + 2; ++i)
      outExprs.push_back(d(i));
    SmallVector<bool> red(loops, false);
    red.back() = true;
    Value r = contraction(
        b, loc, ValueRange{lhs, rhs},
        {operandMap(lt, d(nb), d(nb + 2)), operandMap(rt, d(nb + 2), d(nb + 1))},
        AffineMap::get(loops, 0, outExprs, ctx), outShape, red, acc);
    rewriter.replaceOp(op, finish(b, loc, r, type));
    return success();
  }
};

struct DotLowering : StaticPattern<DotOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(DotOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    auto type = resultType(op);
    MLIRContext *ctx = getContext();
    AffineMap in = AffineMap::get(1, 0, getAffineDimExpr(0, ctx));
    Value r = contraction(rewriter, op.getLoc(), adaptor.getOperands(),
                          {in, in}, AffineMap::get(1, 0, {}, ctx), {}, {true},
                          computeType(rewriter, type.getElementType()));
    rewriter.replaceOp(op, finish(rewriter, op.getLoc(), r, type));
    return success();
  }
};

struct TraceLowering : StaticPattern<TraceOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(TraceOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    auto type = resultType(op);
    MLIRContext *ctx = getContext();
    int64_t nb = type.getRank();
    SmallVector<AffineExpr> inE, outE;
    for (int64_t i = 0; i < nb; ++i) {
      inE.push_back(getAffineDimExpr(i, ctx));
      outE.push_back(getAffineDimExpr(i, ctx));
    }
    inE.push_back(getAffineDimExpr(nb, ctx));
    inE.push_back(getAffineDimExpr(nb, ctx));
    SmallVector<bool> red(nb + 1, false);
    red.back() = true;
    Value r = contraction(rewriter, op.getLoc(), adaptor.getInput(),
                          AffineMap::get(nb + 1, 0, inE, ctx),
                          AffineMap::get(nb + 1, 0, outE, ctx), type.getShape(),
                          red, computeType(rewriter, type.getElementType()));
    rewriter.replaceOp(op, finish(rewriter, op.getLoc(), r, type));
    return success();
  }
};

struct EinsumLowering : StaticPattern<EinsumOp> {
  using StaticPattern::StaticPattern;
  LogicalResult lower(EinsumOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = getContext();
    auto type = resultType(op);
    StringRef eq = op.getEquation();
    size_t arrow = eq.find("->");
    SmallVector<StringRef> terms;
    eq.substr(0, arrow).split(terms, ',');
    std::string out = eq.substr(arrow + 2).trim().str();
    // Loop dims: output labels first (parallel), then summed labels.
    std::string labels = out;
    for (StringRef t : terms)
      for (char c : t.trim())
        if (labels.find(c) == std::string::npos)
          labels.push_back(c);
    auto exprsOf = [&](StringRef term) {
      SmallVector<AffineExpr> e;
      for (char c : term.trim())
        e.push_back(getAffineDimExpr(labels.find(c), ctx));
      return AffineMap::get(labels.size(), 0, e, ctx);
    };
    SmallVector<AffineMap> maps;
    for (StringRef t : terms)
      maps.push_back(exprsOf(t));
    SmallVector<bool> red;
    for (size_t i = 0; i < labels.size(); ++i)
      red.push_back(i >= out.size());
    Value r = contraction(rewriter, op.getLoc(), adaptor.getInputs(), maps,
                          exprsOf(out), type.getShape(), red,
                          computeType(rewriter, type.getElementType()));
    rewriter.replaceOp(op, finish(rewriter, op.getLoc(), r, type));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// det and inv: Gaussian elimination with partial pivoting
//===----------------------------------------------------------------------===//

using LoopBody = function_ref<SmallVector<Value>(OpBuilder &, Location, Value,
                                                 ValueRange)>;

SmallVector<Value> forLoop(OpBuilder &b, Location loc, Value lb, Value ub,
                           ValueRange iters, LoopBody body) {
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, constIndex(b, loc, 1), iters,
      [&](OpBuilder &nb, Location l, Value iv, ValueRange args) {
        scf::YieldOp::create(nb, l, body(nb, l, iv, args));
      });
  return SmallVector<Value>(loop.getResults());
}

Value at(OpBuilder &b, Location l, Value t, Value i, Value j) {
  return tensor::ExtractOp::create(b, l, t, ValueRange{i, j});
}

/// Swaps rows `p` and `q` of the n x n tensor `m`.
Value swapRows(OpBuilder &b, Location l, Value m, Value p, Value q, int64_t n) {
  return forLoop(b, l, constIndex(b, l, 0), constIndex(b, l, n), m,
                 [&](OpBuilder &nb, Location nl, Value j, ValueRange a) {
                   Value x = at(nb, nl, a[0], p, j), y = at(nb, nl, a[0], q, j);
                   Value t = tensor::InsertOp::create(nb, nl, y, a[0],
                                                      ValueRange{p, j});
                   t = tensor::InsertOp::create(nb, nl, x, t, ValueRange{q, j});
                   return SmallVector<Value>{t};
                 })[0];
}

/// Row of the largest |m[r, c]| for r >= c.
Value pivotRow(OpBuilder &b, Location l, Value m, Value c, int64_t n) {
  Value start = math::AbsFOp::create(b, l, at(b, l, m, c, c));
  return forLoop(b, l, c, constIndex(b, l, n), ValueRange{start, c},
                 [&](OpBuilder &nb, Location nl, Value r, ValueRange a) {
                   Value v = math::AbsFOp::create(nb, nl, at(nb, nl, m, r, c));
                   Value gt = arith::CmpFOp::create(
                       nb, nl, arith::CmpFPredicate::OGT, v, a[0]);
                   return SmallVector<Value>{
                       arith::SelectOp::create(nb, nl, gt, v, a[0]),
                       arith::SelectOp::create(nb, nl, gt, r, a[1])};
                 })[1];
}

/// `rows[r, j] -= f * rows[src, j]` for j in [0, n).
Value axpyRow(OpBuilder &b, Location l, Value m, Value r, Value src, Value f,
              int64_t n) {
  return forLoop(b, l, constIndex(b, l, 0), constIndex(b, l, n), m,
                 [&](OpBuilder &nb, Location nl, Value j, ValueRange a) {
                   Value x = at(nb, nl, a[0], r, j);
                   Value y = at(nb, nl, a[0], src, j);
                   Value v = arith::SubFOp::create(
                       nb, nl, x, arith::MulFOp::create(nb, nl, f, y));
                   return SmallVector<Value>{tensor::InsertOp::create(
                       nb, nl, v, a[0], ValueRange{r, j})};
                 })[0];
}

template <typename OpTy, bool IsInverse>
struct EliminationLowering : StaticPattern<OpTy> {
  using StaticPattern<OpTy>::StaticPattern;
  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto &b = rewriter;
    auto type = this->resultType(op);
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    Type elt = inType.getElementType();
    Type acc = computeType(b, elt);
    int64_t n = inType.getDimSize(inType.getRank() - 1);
    int64_t batch = inType.getNumElements() / std::max<int64_t>(n * n, 1);
    Value mats = reshapeTo(b, loc, input, {batch, n, n});
    if (acc != elt)
      mats = buildElementwise(
          b, loc, RankedTensorType::get({batch, n, n}, acc), mats,
          [&](OpBuilder &nb, Location l, ValueRange a) { return widen(nb, l, a[0]); });
    auto matType = RankedTensorType::get({n, n}, acc);
    Value c0 = constIndex(b, loc, 0), cn = constIndex(b, loc, n);
    Value zero = constFloat(b, loc, acc, 0.0), one = constFloat(b, loc, acc, 1.0);
    Value identity = buildIndexed(
        b, loc, matType, {}, {},
        [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) {
          Value eq = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                           ivs[0], ivs[1]);
          return arith::SelectOp::create(nb, l, eq, constFloat(nb, l, acc, 1.0),
                                         constFloat(nb, l, acc, 0.0));
        });
    SmallVector<int64_t> outShape{batch};
    if (IsInverse)
      outShape.append({n, n});
    Value result = emptyTensor(b, loc, outShape, acc);
    Value out = forLoop(
        b, loc, c0, constIndex(b, loc, batch), result,
        [&](OpBuilder &bb, Location l, Value bi, ValueRange ba) {
          SmallVector<int64_t> sizes{1, n, n}, strides{1, 1, 1};
          Value m = tensor::ExtractSliceOp::create(
              bb, l, matType, mats, ValueRange{bi}, ValueRange{}, ValueRange{},
              SmallVector<int64_t>{ShapedType::kDynamic, 0, 0}, sizes, strides);
          // Column loop: iter (m, inv-or-unused, det).
          SmallVector<Value> st = forLoop(
              bb, l, c0, cn, ValueRange{m, identity, one},
              [&](OpBuilder &cb, Location cl, Value c, ValueRange a) {
                Value p = pivotRow(cb, cl, a[0], c, n);
                Value mm = swapRows(cb, cl, a[0], p, c, n);
                Value inv = IsInverse ? swapRows(cb, cl, a[1], p, c, n) : a[1];
                Value swapped = arith::CmpIOp::create(
                    cb, cl, arith::CmpIPredicate::ne, p, c);
                Value det = arith::SelectOp::create(
                    cb, cl, swapped, arith::NegFOp::create(cb, cl, a[2]), a[2]);
                Value pivot = at(cb, cl, mm, c, c);
                det = arith::MulFOp::create(cb, cl, det, pivot);
                Value pivotZero = arith::CmpFOp::create(
                    cb, cl, arith::CmpFPredicate::OEQ, pivot, zero);
                Value lo = IsInverse ? c0
                                     : Value(arith::AddIOp::create(
                                           cb, cl, c, constIndex(cb, cl, 1)));
                SmallVector<Value> e = forLoop(
                    cb, cl, lo, cn, ValueRange{mm, inv},
                    [&](OpBuilder &rb, Location rl, Value r, ValueRange ra) {
                      Value skip = arith::OrIOp::create(
                          rb, rl, pivotZero,
                          arith::CmpIOp::create(rb, rl, arith::CmpIPredicate::eq,
                                                r, c));
                      Value f = arith::DivFOp::create(
                          rb, rl, at(rb, rl, ra[0], r, c), pivot);
                      f = arith::SelectOp::create(rb, rl, skip, zero, f);
                      Value m2 = axpyRow(rb, rl, ra[0], r, c, f, n);
                      Value i2 = IsInverse ? axpyRow(rb, rl, ra[1], r, c, f, n)
                                           : ra[1];
                      return SmallVector<Value>{m2, i2};
                    });
                return SmallVector<Value>{e[0], e[1], det};
              });
          if (!IsInverse) {
            Value t = tensor::InsertOp::create(bb, l, st[2], ba[0],
                                               ValueRange{bi});
            return SmallVector<Value>{t};
          }
          // m is now diagonal: divide each row of the inverse by its pivot.
          Value inv = forLoop(
              bb, l, c0, cn, st[1],
              [&](OpBuilder &rb, Location rl, Value r, ValueRange ra) {
                Value d = at(rb, rl, st[0], r, r);
                return forLoop(
                    rb, rl, c0, cn, ra[0],
                    [&](OpBuilder &jb, Location jl, Value j, ValueRange ja) {
                      Value v = arith::DivFOp::create(
                          jb, jl, at(jb, jl, ja[0], r, j), d);
                      return SmallVector<Value>{tensor::InsertOp::create(
                          jb, jl, v, ja[0], ValueRange{r, j})};
                    });
              })[0];
          Value t = tensor::InsertSliceOp::create(
              bb, l, inv, ba[0], ValueRange{bi}, ValueRange{}, ValueRange{},
              SmallVector<int64_t>{ShapedType::kDynamic, 0, 0}, sizes, strides);
          return SmallVector<Value>{t};
        })[0];
    rewriter.replaceOp(op, finish(b, loc, out, type));
    return success();
  }
};

} // namespace

void populateLinalgFamilyPatterns(TypeConverter &tc,
                                  RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<MatmulLowering, DotLowering, TraceLowering, EinsumLowering,
               EliminationLowering<DetOp, false>,
               EliminationLowering<InvOp, true>>(tc, ctx);
}

} // namespace hodu::lowering
