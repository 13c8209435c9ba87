//===- Reductions.cpp - reductions reshaped for threads and vectors -------===//
//
// Three rewrites of linalg.generic reductions (Reductions.h):
//   - sibling reductions of one input merged, so the input is read once;
//   - a reduction with nothing parallel split in two stages, the first
//     parallel over one of its reduced dims (hodu-cpu-parallelize then
//     spreads it over threads);
//   - the reduced innermost dim split into a lane-wide partial
//     (hodu-cpu-vectorize-generics).
// All three rest on reductionCombiners: a result that accumulates through
// one associative op of its own accumulator may be reduced in parts.
//
//===----------------------------------------------------------------------===//

#include "Reductions.h"

#include "hodu/Target/CPU/WorkSplit.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace hodu::cpu {

std::optional<SmallVector<ReductionCombiner>>
reductionCombiners(linalg::GenericOp op) {
  if (op.getNumResults() == 0 || op.getNumResults() != op.getNumDpsInits() ||
      !op.hasPureTensorSemantics())
    return std::nullopt;
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  SmallVector<ReductionCombiner> out;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument acc = op.getMatchingBlockArgument(&init);
    unsigned i = init.getOperandNumber() - op.getNumDpsInputs();
    Operation *combiner = yield.getValues()[i].getDefiningOp();
    if (!combiner || combiner->getBlock() != body ||
        combiner->getNumOperands() != 2 || combiner->getNumResults() != 1 ||
        !combiner->getResult(0).hasOneUse() || !acc.hasOneUse() ||
        acc.getUses().begin()->getOwner() != combiner ||
        !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp, arith::AddIOp, arith::MulIOp,
             arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp,
             arith::AndIOp, arith::OrIOp, arith::XOrIOp>(combiner))
      return std::nullopt;
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
    if (!neutral)
      return std::nullopt;
    out.push_back({combiner, *neutral, combiner->getOperand(0) == acc});
  }
  return out;
}

namespace {

/// `out[...] = combine(out[...], combine over the last dim of p[..., j])`:
/// a partial of one more dim than `init`, reduced into it with the
/// combiner `c`.
Value combinePartial(OpBuilder &b, Location loc, Value partial, Value init,
                     const ReductionCombiner &c) {
  MLIRContext *ctx = b.getContext();
  auto outType = cast<RankedTensorType>(init.getType());
  int64_t k = outType.getRank();
  SmallVector<utils::IteratorType> iters(k, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < k; ++i)
    outExprs.push_back(getAffineDimExpr(i, ctx));
  AffineMap pMap = AffineMap::getMultiDimIdentityMap(k + 1, ctx);
  AffineMap oMap = AffineMap::get(k + 1, 0, outExprs, ctx);
  Type elt = outType.getElementType();
  Operation *combiner = c.combiner;
  bool accFirst = c.accFirst;
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{outType}, ValueRange{partial}, ValueRange{init},
      ArrayRef<AffineMap>{pMap, oMap}, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        OperationState state(nl, combiner->getName());
        state.addOperands(accFirst ? ValueRange{args[1], args[0]}
                                   : ValueRange{args[0], args[1]});
        state.addTypes(elt);
        state.addAttributes(combiner->getAttrs());
        Operation *op = nb.create(state);
        linalg::YieldOp::create(nb, nl, op->getResult(0));
      });
  return g.getResult(0);
}

/// A tensor of `shape` filled with `neutral`.
Value neutralTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                    TypedAttr neutral) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, neutral.getType());
  Value identity = arith::ConstantOp::create(b, loc, neutral);
  return linalg::FillOp::create(b, loc, identity, empty).getResult(0);
}

/// Replaces `op` by two stages: a first op, with `op`'s body, over `inputs`
/// read through `maps` in loops of `iters`, writing a partial per result
/// (the result's own indices plus `extra`, a last dim of `extraSize`,
/// starting at the combiner's neutral element); then, per result, a small
/// op that combines its partial over that dim into the result. Keeps the
/// op's discardable attributes on the first op, which it returns.
linalg::GenericOp splitInTwo(linalg::GenericOp op,
                             ArrayRef<ReductionCombiner> combiners,
                             ValueRange inputs, SmallVector<AffineMap> maps,
                             ArrayRef<utils::IteratorType> iters,
                             AffineExpr extra, int64_t extraSize) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> partials;
  SmallVector<Type> types;
  for (auto [init, c] : llvm::zip(op.getDpsInitsMutable(), combiners)) {
    auto outType = cast<RankedTensorType>(init.get().getType());
    AffineMap outMap = op.getMatchingIndexingMap(&init);
    SmallVector<AffineExpr> exprs(outMap.getResults());
    exprs.push_back(extra);
    maps.push_back(AffineMap::get(iters.size(), 0, exprs, op.getContext()));
    SmallVector<int64_t> shape(outType.getShape());
    shape.push_back(extraSize);
    partials.push_back(neutralTensor(b, loc, shape, c.neutral));
    types.push_back(partials.back().getType());
  }
  auto first =
      linalg::GenericOp::create(b, loc, types, inputs, partials, maps, iters);
  IRMapping mapping;
  op.getRegion().cloneInto(&first.getRegion(), mapping);
  for (NamedAttribute a : op->getDiscardableAttrs())
    first->setAttr(a.getName(), a.getValue());
  for (auto [i, c] : llvm::enumerate(combiners))
    op->getResult(i).replaceAllUsesWith(
        combinePartial(b, loc, first.getResult(i), op.getDpsInits()[i], c));
  op->erase();
  return first;
}

/// Fewest `lanes`-wide tiles along a reduced innermost dim worth splitting
/// it: with 2 to 4 (a transformer's 128-token softmax, 256-wide layer
/// norm) the partial result's write and read back cost about what the
/// horizontal reductions saved (the bench transformer was 2-4% slower in
/// an A/B run, about this machine's noise); IS-Net's whole-map min/max
/// (thousands of tiles) went from 5.5% to 2.7% of a run.
constexpr int64_t kMinSplitTiles = 8;

} // namespace

/// A reduction whose innermost loop dim is a reduction of `r` elements, a
/// multiple of `lanes` and at least kMinSplitTiles of them, is vectorised a
/// `lanes`-wide tile at a time; each tile then ends in a horizontal
/// reduction (log2 shuffles, and for maximumf/minimumf a NaN check and a
/// blend at each), about as many instructions as the tile's own work.
/// Split it instead: a partial result `lanes` wide per result, combined
/// lane by lane over the tiles
///   p[..., l] = combine over (other reduced dims, ro)
///               of body(x[..., ro*lanes + l])
/// then one horizontal reduction per result element
///   out[...] = combine(out[...], combine over l of p[..., l])
/// The partials start at their combiners' neutral elements; the body is the
/// op's own, unchanged. Only ops whose results all pass reductionCombiners
/// and whose inputs read the innermost dim (if at all) as their last index,
/// without linalg.index. Float sums are reassociated (as the tiled form
/// already was).
void splitInnerReduction(linalg::GenericOp op, int64_t lanes) {
  int64_t n = op.getNumLoops();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (n == 0 || ranges[n - 1] == ShapedType::kDynamic ||
      op.getIteratorTypesArray()[n - 1] != utils::IteratorType::reduction)
    return;
  int64_t r = ranges[n - 1];
  if (r < kMinSplitTiles * lanes || r % lanes != 0)
    return;
  if (!op.getBody()->getOps<linalg::IndexOp>().empty())
    return;
  std::optional<SmallVector<ReductionCombiner>> combiners =
      reductionCombiners(op);
  if (!combiners)
    return;
  // Inputs read the innermost dim as their last index, or not at all.
  MLIRContext *ctx = op.getContext();
  AffineExpr inner = getAffineDimExpr(n - 1, ctx);
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap m = op.getMatchingIndexingMap(in);
    for (unsigned i = 0; i < m.getNumResults(); ++i)
      if (m.getResult(i).isFunctionOfDim(n - 1) &&
          (i + 1 != m.getNumResults() || m.getResult(i) != inner))
        return;
  }

  OpBuilder b(op);
  Location loc = op.getLoc();
  AffineExpr ro = getAffineDimExpr(n - 1, ctx), l = getAffineDimExpr(n, ctx);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap m = op.getMatchingIndexingMap(in);
    SmallVector<AffineExpr> exprs(m.getResults());
    Value v = in->get();
    if (!exprs.empty() && exprs.back() == inner) {
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape.back() = r / lanes;
      shape.push_back(lanes);
      SmallVector<ReassociationIndices> re;
      for (int64_t i = 0; i + 1 < type.getRank(); ++i)
        re.push_back({i});
      re.push_back({type.getRank() - 1, type.getRank()});
      v = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(shape, type.getElementType()), v, re);
      exprs.back() = ro;
      exprs.push_back(l);
    }
    inputs.push_back(v);
    maps.push_back(AffineMap::get(n + 1, 0, exprs, ctx));
  }
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  iters.push_back(utils::IteratorType::parallel);
  splitInTwo(op, *combiners, inputs, maps, iters, l, lanes);
}

void fuseSiblingReductions(Operation *root,
                           function_ref<bool(linalg::GenericOp)> wanted) {
  // The candidates of each block, in order.
  llvm::MapVector<Block *, SmallVector<linalg::GenericOp>> byBlock;
  root->walk([&](linalg::GenericOp op) {
    if (op.getNumReductionLoops() > 0 && reductionCombiners(op) &&
        !llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic) &&
        wanted(op))
      byBlock[op->getBlock()].push_back(op);
  });
  // Whether `a`'s results are used only after `b` (b after a in a block).
  auto usedAfter = [](linalg::GenericOp a, linalg::GenericOp b) {
    for (Operation *user : a->getUsers()) {
      Operation *mine = b->getBlock()->findAncestorOpInBlock(*user);
      if (!mine || mine == b || !b->isBeforeInBlock(mine))
        return false;
    }
    return true;
  };
  // Whether `a` and `b` run the same loops over a common input read the
  // same way.
  auto siblings = [](linalg::GenericOp a, linalg::GenericOp b) {
    if (a.getIteratorTypesArray() != b.getIteratorTypesArray() ||
        a.getStaticLoopRanges() != b.getStaticLoopRanges())
      return false;
    for (OpOperand *x : a.getDpsInputOperands())
      for (OpOperand *y : b.getDpsInputOperands())
        if (x->get() == y->get() &&
            a.getMatchingIndexingMap(x) == b.getMatchingIndexingMap(y) &&
            isa<RankedTensorType>(x->get().getType()))
          return true;
    return false;
  };
  for (auto &[block, ops] : byBlock) {
    for (size_t i = 0; i < ops.size(); ++i) {
      for (size_t j = i + 1; j < ops.size() && ops[i]; ++j) {
        linalg::GenericOp a = ops[i], b = ops[j];
        if (!b || !siblings(a, b) || !usedAfter(a, b))
          continue;
        // Inputs: a's, then b's that a does not read the same way.
        SmallVector<Value> inputs;
        SmallVector<AffineMap> maps;
        IRMapping mapping;
        Block *fusedBody = new Block();
        auto addInput = [&](linalg::GenericOp op, OpOperand *in) {
          AffineMap m = op.getMatchingIndexingMap(in);
          BlockArgument arg = op.getMatchingBlockArgument(in);
          for (auto [k, v] : llvm::enumerate(inputs))
            if (v == in->get() && maps[k] == m) {
              mapping.map(arg, fusedBody->getArgument(k));
              return;
            }
          inputs.push_back(in->get());
          maps.push_back(m);
          mapping.map(arg, fusedBody->addArgument(arg.getType(), arg.getLoc()));
        };
        for (OpOperand *in : a.getDpsInputOperands())
          addInput(a, in);
        for (OpOperand *in : b.getDpsInputOperands())
          addInput(b, in);
        SmallVector<Value> inits;
        SmallVector<Type> types;
        for (linalg::GenericOp op : {a, b})
          for (OpOperand &init : op.getDpsInitsMutable()) {
            inits.push_back(init.get());
            types.push_back(init.get().getType());
            maps.push_back(op.getMatchingIndexingMap(&init));
            BlockArgument arg = op.getMatchingBlockArgument(&init);
            mapping.map(arg,
                        fusedBody->addArgument(arg.getType(), arg.getLoc()));
          }
        OpBuilder builder(b);
        auto fused =
            linalg::GenericOp::create(builder, b.getLoc(), types, inputs, inits,
                                      maps, a.getIteratorTypesArray());
        fused.getRegion().push_back(fusedBody);
        OpBuilder inner = OpBuilder::atBlockEnd(fusedBody);
        SmallVector<Value> yields;
        for (linalg::GenericOp op : {a, b}) {
          for (Operation &bodyOp : op.getBody()->without_terminator())
            inner.clone(bodyOp, mapping);
          for (Value v : op.getBody()->getTerminator()->getOperands())
            yields.push_back(mapping.lookupOrDefault(v));
        }
        linalg::YieldOp::create(inner, b.getLoc(), yields);
        unsigned na = a.getNumResults();
        for (unsigned k = 0; k < na; ++k)
          a->getResult(k).replaceAllUsesWith(fused->getResult(k));
        for (unsigned k = 0; k < b.getNumResults(); ++k)
          b->getResult(k).replaceAllUsesWith(fused->getResult(na + k));
        a->erase();
        b->erase();
        ops[i] = fused;
        ops[j] = nullptr;
      }
    }
  }
}

linalg::GenericOp splitForThreads(linalg::GenericOp op, int64_t chunks) {
  int64_t n = op.getNumLoops();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  if (n < 2 || llvm::any_of(ranges, ShapedType::isDynamic))
    return nullptr;
  for (int64_t d = 0; d < n; ++d)
    if (iters[d] == utils::IteratorType::parallel && ranges[d] >= 2)
      return nullptr;
  std::optional<SmallVector<ReductionCombiner>> combiners =
      reductionCombiners(op);
  if (!combiners)
    return nullptr;
  // The reduced dim to make parallel: the best split over threads, the
  // outermost of equals. Not the innermost loop, whose contiguous run the
  // vector code reduces.
  // Nor a dim an input reads as its innermost index.
  SmallVector<bool> splittable;
  for (auto it : iters)
    splittable.push_back(it == utils::IteratorType::reduction);
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap m = op.getMatchingIndexingMap(in);
    if (m.getNumResults() > 0)
      if (auto d = dyn_cast<AffineDimExpr>(m.getResults().back()))
        splittable[d.getPosition()] = false;
  }
  splittable.back() = false;
  int64_t dim =
      chooseSplitLoop(ranges.data(), splittable.data(), n, -1, chunks);
  if (dim < 0)
    return nullptr;

  iters[dim] = utils::IteratorType::parallel;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps.truncate(op.getNumDpsInputs());
  return splitInTwo(op, *combiners, op.getDpsInputs(), maps, iters,
                    getAffineDimExpr(dim, op.getContext()), ranges[dim]);
}

} // namespace hodu::cpu
