//===- AttentionKeyBlocks.cpp - attention over blocks of keys -------------===//
//
// See hodu::blockKeys in include/hodu/Target/AttentionTiles.h. A fused
// attention loop's body computes a block of rows against every key: its
// intermediates are rows x keys, which past a few thousand keys no longer
// fit a GPU's workgroup memory. This rewrites the body as flash attention
// does: an scf.for over blocks of keys carries each row's running max m,
// running sum l and output accumulator; each step computes the scores of
// its keys (the chain up to the softmax's max, narrowed to the block), then
//   m' = max(m, rowmax(s)),  p = exp(s - m'),  c = exp(m - m'),
//   l' = l c + rowsum(p),    acc' = acc c + p V_block,
// and after the loop the rows are acc / l. Nothing of rows x keys is left,
// only rows x block.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/AttentionTiles.h"

#include "AttentionKeys.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/SetVector.h"

#include <limits>

using namespace mlir;
using hodu::attention::KeyDims;

namespace {

/// The one scalar op a generic's body computes before its yield, with the
/// body's block arguments in `args` order; null if the body is more.
template <typename OpTy> OpTy soleOp(linalg::GenericOp g) {
  Block &body = g.getRegion().front();
  if (body.getOperations().size() != 2)
    return {};
  auto op = dyn_cast<OpTy>(&body.front());
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!op || yield.getOperand(0) != op->getResult(0))
    return {};
  return op;
}

/// Whether `op`'s operands are the body's block arguments `a`, `b` (in
/// that order; commutative ops either way).
bool readsArgs(Operation *op, linalg::GenericOp g, unsigned a, unsigned b,
               bool commutative) {
  Block &body = g.getRegion().front();
  Value x = op->getOperand(0), y = op->getOperand(1);
  if (x == body.getArgument(a) && y == body.getArgument(b))
    return true;
  return commutative && x == body.getArgument(b) && y == body.getArgument(a);
}

/// `v` seen through reshapes; `chain` gets them, the last one first.
Value throughReshapes(Value v, SmallVectorImpl<Operation *> *chain = nullptr) {
  while (Operation *d = v.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(d))
      break;
    if (chain)
      chain->push_back(d);
    v = d->getOperand(0);
  }
  return v;
}

/// A reduction over the keys of one key-labelled input into one output,
/// whose body is `Combine(out, in)`.
template <typename... Combine>
linalg::GenericOp keyReduction(Value v, const KeyDims &labels) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumReductionLoops() != 1 || !labels.dims.count(g.getDpsInputs()[0]))
    return {};
  Operation *op = nullptr;
  (void)std::initializer_list<int>{
      (op = op ? op : soleOp<Combine>(g).getOperation(), 0)...};
  if (!op || !readsArgs(op, g, 1, 0, /*commutative=*/true))
    return {};
  return g;
}

/// An elementwise generic writing `outs` (each of one shape, read by the
/// body after the inputs) from `inputs` (of that shape, or a row vector
/// read at dim `row` where `rowVector` says so).
SmallVector<Value> elementwise(
    OpBuilder &b, Location loc, ValueRange inputs, ArrayRef<bool> rowVector,
    ValueRange outs, int64_t row,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> fn) {
  MLIRContext *ctx = b.getContext();
  auto like = cast<RankedTensorType>(outs.front().getType());
  unsigned rank = like.getRank();
  SmallVector<AffineMap> maps;
  for (bool r : rowVector)
    maps.push_back(r ? AffineMap::get(rank, 0, getAffineDimExpr(row, ctx))
                     : AffineMap::getMultiDimIdentityMap(rank, ctx));
  for (size_t i = 0; i < outs.size(); ++i)
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, outs.getTypes(), inputs, outs, maps, parallel,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, fn(nb, l, args));
             })
      ->getResults();
}

/// An empty tensor of `t`.
Value emptyOf(OpBuilder &b, Location loc, RankedTensorType t) {
  return tensor::EmptyOp::create(b, loc, t.getShape(), t.getElementType());
}

/// `v` (rows in one dim, every other dim 1) as a vector of the rows.
Value rowsOf(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() == 1)
    return v;
  ReassociationIndices all;
  for (int64_t d = 0; d < t.getRank(); ++d)
    all.push_back(d);
  return tensor::CollapseShapeOp::create(b, loc, v,
                                         ArrayRef<ReassociationIndices>{all});
}
} // namespace

int64_t hodu::keyBlockSize(int64_t keys, int64_t most) {
  for (int64_t b = std::min(most, keys / 2); b >= 16; --b)
    if (keys % b == 0)
      return b;
  return 0;
}

LogicalResult hodu::blockKeys(scf::ForallOp loop, int64_t most) {
  linalg::LinalgOp pv = attention::secondProduct(loop);
  if (!pv)
    return failure();
  KeyDims labels = attention::findKeyDims(loop, pv);
  int64_t block = keyBlockSize(labels.keys, most);
  if (labels.failed || block == 0)
    return failure();

  // The softmax: P = E / sum(E), E = exp(S - max(S)), P reaching P V
  // through reshapes only.
  SmallVector<Operation *> toP;
  auto div = throughReshapes(pv.getDpsInputs()[0], &toP)
                 .getDefiningOp<linalg::GenericOp>();
  if (!div || div.getNumDpsInputs() != 2 || div.getNumReductionLoops() != 0)
    return failure();
  auto divOp = soleOp<arith::DivFOp>(div);
  if (!divOp || !readsArgs(divOp, div, 0, 1, false))
    return failure();
  Value e = div.getDpsInputs()[0];
  auto exp = e.getDefiningOp<linalg::GenericOp>();
  if (!exp || exp.getNumDpsInputs() != 1 || !soleOp<math::ExpOp>(exp) ||
      soleOp<math::ExpOp>(exp)->getOperand(0) !=
          exp.getRegion().front().getArgument(0))
    return failure();
  auto sub = exp.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!sub || sub.getNumDpsInputs() != 2 || !soleOp<arith::SubFOp>(sub) ||
      !readsArgs(soleOp<arith::SubFOp>(sub), sub, 0, 1, false))
    return failure();
  Value s = sub.getDpsInputs()[0];
  SmallVector<Operation *> toMax, toSum;
  linalg::GenericOp max = keyReduction<arith::MaximumFOp, arith::MaxNumFOp>(
      throughReshapes(sub.getDpsInputs()[1], &toMax), labels);
  linalg::GenericOp sum = keyReduction<arith::AddFOp>(
      throughReshapes(div.getDpsInputs()[1], &toSum), labels);
  if (!max || !sum || max.getDpsInputs()[0] != s || sum.getDpsInputs()[0] != e)
    return failure();
  // Nothing else reads them.
  auto onlyReaders = [](Value v, std::initializer_list<Operation *> readers) {
    return llvm::all_of(v.getUsers(), [&](Operation *u) {
      return llvm::is_contained(readers, u);
    });
  };
  if (!onlyReaders(s, {max, sub}) || !onlyReaders(e, {sum, div}) ||
      !onlyReaders(exp->getResult(0), {sum, div}) || !labels.dims.count(s) ||
      !labels.dims.count(e))
    return failure();
  for (ArrayRef<Operation *> chain :
       {ArrayRef(toP), ArrayRef(toMax), ArrayRef(toSum)})
    for (Operation *r : chain)
      if (!r->hasOneUse())
        return failure();
  int64_t row = isa<linalg::BatchMatmulOp>(pv.getOperation()) ? 1 : 0;
  auto accType = cast<RankedTensorType>(pv->getResult(0).getType());
  auto rowsType = cast<RankedTensorType>(max->getResult(0).getType());
  if (rowsType.getNumElements() != accType.getDimSize(row))
    return failure();

  // What each block recomputes: the key-labelled ops that S and V' (P V's
  // right operand) come from, and the destinations of the subtraction and
  // the exponentials.
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> narrow;
  SmallVector<Value> work{s, pv.getDpsInputs()[1], sub.getDpsInits()[0],
                          exp.getDpsInits()[0]};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *d = v.getDefiningOp();
    if (!d || d->getBlock() != body || !labels.dims.count(v) ||
        narrow.contains(d))
      continue;
    narrow.insert(d);
    for (Value o : d->getOperands())
      work.push_back(o);
  }
  SmallVector<Operation *> ordered(narrow.begin(), narrow.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });

  IRRewriter rewriter(pv);
  Location loc = pv.getLoc();
  Type f = rowsType.getElementType();
  Value zero = arith::ConstantOp::create(rewriter, loc, f,
                                         rewriter.getFloatAttr(f, 0.0));
  Value acc0 =
      linalg::FillOp::create(
          rewriter, loc, zero,
          ValueRange{tensor::EmptyOp::create(rewriter, loc, accType.getShape(),
                                             accType.getElementType())})
          .getResult(0);
  Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value ub = arith::ConstantIndexOp::create(rewriter, loc, labels.keys);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, block);
  SmallVector<Value> inits{max.getDpsInits()[0], sum.getDpsInits()[0], acc0};
  auto keyLoop = scf::ForOp::create(
      rewriter, loc, lb, ub, step, inits,
      [&](OpBuilder &b, Location l, Value k0, ValueRange carried) {
        Value m = carried[0], lsum = carried[1], acc = carried[2];
        IRMapping map;
        // `op` cloned with its key dims a block long.
        auto cloneNarrowed = [&](Operation *op) {
          Operation *clone = b.clone(*op, map);
          for (auto [r, c] : llvm::zip(op->getResults(), clone->getResults()))
            if (labels.dims.count(r))
              attention::retype(c, labels.narrowedType(r, block));
          return clone;
        };
        // The scores of this block of keys, and V's rows for them.
        for (Operation *op : ordered) {
          if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
            SmallVector<OpFoldResult> offsets = slice.getMixedOffsets(),
                                      sizes = slice.getMixedSizes();
            for (int64_t d : labels.dims.lookup(slice.getResult())) {
              offsets[d] = k0;
              sizes[d] = b.getIndexAttr(block);
            }
            Value src = map.lookupOrDefault(slice.getSource());
            map.map(slice.getResult(),
                    tensor::ExtractSliceOp::create(b, l, src, offsets, sizes,
                                                   slice.getMixedStrides())
                        .getResult());
            continue;
          }
          cloneNarrowed(op);
        }
        // m' = max(m, rowmax(s)) and c = exp(m - m'), m' written over m
        // (so that the loop's values stay in their buffers); the
        // exponentials subtract m', or 0 for a row whose keys so far are all
        // -inf (m' = -inf), which keeps them 0 instead of the NaN of
        // -inf - -inf.
        Value negInf = arith::ConstantOp::create(
            b, l, f,
            b.getFloatAttr(f, -std::numeric_limits<double>::infinity()));
        Value bmInit = linalg::FillOp::create(
                           b, l, negInf, ValueRange{emptyOf(b, l, rowsType)})
                           .getResult(0);
        map.map(max.getDpsInits()[0], bmInit);
        Value blockMax = b.clone(*max, map)->getResult(0);
        auto safe = [&](OpBuilder &nb, Location nl, Value x) -> Value {
          Value inf = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                            x, negInf);
          return arith::SelectOp::create(nb, nl, inf, zero, x);
        };
        SmallVector<Value> mc = elementwise(
            b, l, ValueRange{blockMax}, {false},
            ValueRange{m, emptyOf(b, l, rowsType)}, 0,
            [&](OpBuilder &nb, Location nl,
                ValueRange a) -> SmallVector<Value> {
              Value mn = arith::MaximumFOp::create(nb, nl, a[1], a[0]);
              Value d = arith::SubFOp::create(nb, nl, a[1], safe(nb, nl, mn));
              return {mn, math::ExpOp::create(nb, nl, d)};
            });
        Value mNew = mc[0], c = mc[1];
        Value mSafe = elementwise(b, l, ValueRange{mNew}, {false},
                                  ValueRange{emptyOf(b, l, rowsType)}, 0,
                                  [&](OpBuilder &nb, Location nl,
                                      ValueRange a) -> SmallVector<Value> {
                                    return {safe(nb, nl, a[0])};
                                  })
                          .front();
        map.map(max->getResult(0), mSafe);
        for (Operation *r : llvm::reverse(toMax))
          b.clone(*r, map);
        cloneNarrowed(sub);
        Operation *expB = cloneNarrowed(exp);
        // `carried` times c (read at `dim` where it is a row vector), over
        // `carried`.
        auto scaled = [&](Value carried, Value factor, bool rowVector,
                          int64_t dim) {
          return elementwise(b, l, ValueRange{factor}, {rowVector},
                             ValueRange{carried}, dim,
                             [&](OpBuilder &nb, Location nl,
                                 ValueRange a) -> SmallVector<Value> {
                               return {
                                   arith::MulFOp::create(nb, nl, a[1], a[0])};
                             })
              .front();
        };
        // l' = l c + rowsum(p), over l.
        Value lScaled = scaled(lsum, c, false, 0);
        map.map(sum.getDpsInits()[0], lScaled);
        Value lNew = b.clone(*sum, map)->getResult(0);
        map.map(div->getResult(0), expB->getResult(0));
        for (Operation *r : llvm::reverse(toP))
          cloneNarrowed(r);
        // acc' = acc c + p V, over acc.
        Value accScaled = scaled(acc, rowsOf(b, l, c), true, row);
        map.map(pv.getDpsInits()[0], accScaled);
        Value accNew = b.clone(*pv, map)->getResult(0);
        scf::YieldOp::create(b, l, ValueRange{mNew, lNew, accNew});
      });
  // The rows: the initial output (the loop's slice, zero) + acc / l.
  Value lRows = rowsOf(rewriter, loc, keyLoop.getResult(1));
  Value out =
      elementwise(
          rewriter, loc, ValueRange{keyLoop.getResult(2), lRows}, {false, true},
          ValueRange{pv.getDpsInits()[0]}, row,
          [&](OpBuilder &nb, Location nl, ValueRange a) -> SmallVector<Value> {
            Value q = arith::DivFOp::create(nb, nl, a[0], a[1]);
            return {arith::AddFOp::create(nb, nl, a[2], q)};
          })
          .front();
  rewriter.replaceAllUsesWith(pv->getResult(0), out);
  // The whole-keys chain has no readers left.
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
      if (op.use_empty() && isMemoryEffectFree(&op) &&
          !isa<scf::InParallelOp>(op)) {
        rewriter.eraseOp(&op);
        erased = true;
      }
  }
  return success();
}
