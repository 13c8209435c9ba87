//===- AttentionTiles.cpp - attention chains as one tiled loop ------------===//
//
// See include/hodu/Target/AttentionTiles.h. Finds the products of
// attention -- a (batch) matmul whose left operand is computed, through
// row-local elementwise ops and reductions (a softmax), from another (batch)
// matmul of two computed operands -- and tiles the second product along
// its batch and rows with the whole chain fused into the tile (upstream
// tile-and-fuse, with the extract_slice bubbling that carries slices
// through reshapes), so that the scores exist only as a block of rows per
// iteration. hodu-cpu-fuse-attention and hodu-gpu-fuse-attention call it.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/AttentionTiles.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

/// A matmul or batch matmul on static float tensors with the default maps.
bool isProduct(Operation *o) {
  auto op = dyn_cast_or_null<linalg::LinalgOp>(o);
  if (!op || !op.hasPureTensorSemantics())
    return false;
  if (auto mm = dyn_cast<linalg::MatmulOp>(o)) {
    if (mm.hasUserDefinedMaps())
      return false;
  } else if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(o)) {
    if (bmm.hasUserDefinedMaps())
      return false;
  } else {
    return false;
  }
  auto type = dyn_cast<RankedTensorType>(o->getResult(0).getType());
  return type && type.hasStaticShape() &&
         isa<FloatType>(type.getElementType()) &&
         llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic);
}

/// A value that is a constant, seen through reshapes (a weight: the
/// products of attention multiply two computed tensors).
bool isConstantLike(Value v) {
  while (Operation *d = v.getDefiningOp()) {
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(d)) {
      v = d->getOperand(0);
      continue;
    }
    return matchPattern(v, m_Constant());
  }
  return false;
}

int64_t elementsOf(Operation *op) {
  int64_t n = 0;
  for (Value r : op->getResults())
    if (auto t = dyn_cast<RankedTensorType>(r.getType()))
      n += t.getNumElements();
  return n;
}

/// The ops between the scores and `pv`'s left operand, the scores' product
/// included: every op that is reachable backwards from the operand through
/// generics and reshapes and forwards from a product, and the fills that
/// initialise their reductions. Empty if the chain is not attention-like:
/// no reduction (a softmax's max or sum), a product of a constant (a
/// weight), or an intermediate that something outside the chain reads.
SetVector<Operation *> attentionChain(linalg::LinalgOp pv) {
  SetVector<Operation *> back, products;
  SmallVector<Value> work{pv.getDpsInputs()[0]};
  while (!work.empty()) {
    Operation *d = work.pop_back_val().getDefiningOp();
    if (!d || back.contains(d))
      continue;
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(d)) {
      back.insert(d);
      work.push_back(d->getOperand(0));
    } else if (auto g = dyn_cast<linalg::GenericOp>(d)) {
      if (!g.hasPureTensorSemantics())
        continue;
      back.insert(d);
      for (Value in : g.getDpsInputs())
        work.push_back(in);
    } else if (isProduct(d)) {
      back.insert(d);
      products.insert(d);
    }
  }
  // Forwards from the products, within `back`.
  SetVector<Operation *> chain;
  SmallVector<Operation *> front(products.begin(), products.end());
  while (!front.empty()) {
    Operation *op = front.pop_back_val();
    if (!chain.insert(op))
      continue;
    for (Operation *user : op->getUsers())
      if (back.contains(user))
        front.push_back(user);
  }
  if (chain.empty())
    return {};
  bool reduces = false;
  for (Operation *op : chain) {
    if (isProduct(op) && isConstantLike(op->getOperand(1)))
      return {};
    if (auto g = dyn_cast<linalg::GenericOp>(op))
      reduces |= g.getNumReductionLoops() > 0;
    for (Operation *user : op->getUsers())
      if (user != pv.getOperation() && !chain.contains(user))
        return {};
  }
  if (!reduces)
    return {};
  // The fills of the chain's reductions (and of the products' sums).
  SmallVector<Operation *> fills;
  for (Operation *op : chain)
    if (auto l = dyn_cast<linalg::LinalgOp>(op))
      for (Value init : l.getDpsInits())
        if (auto fill = init.getDefiningOp<linalg::FillOp>();
            fill && llvm::all_of(fill->getUsers(), [&](Operation *u) {
              return chain.contains(u);
            }))
          fills.push_back(fill);
  chain.insert(fills.begin(), fills.end());
  return chain;
}

/// A slice of a collapse_shape whose group of several dims (batch x heads
/// collapsed into a batch matmul's batch) is sliced one element at a
/// dynamic offset (a tile of the batch): the offset delinearized over the
/// group, each of its dims sliced to one element; or sliced a block of
/// rows at an offset linearized over the group (see below). Upstream's bubbling
/// takes a dynamic offset only where the group has a single dim larger
/// than 1, which leaves multi-head attention over a batch unfused. Groups
/// of one dim are sliced as they are, groups taken whole too; anything
/// else is left to upstream's pattern.
struct SliceOfCollapsedUnits : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  /// Whether [index, index + size) lies within [0, dim) for every value of
  /// `index`: a constant, or an scf.forall induction variable from 0 below
  /// at most `dim`, all multiples of `size`, which divides `dim`.
  static bool blockWithin(Value index, int64_t size, int64_t dim) {
    if (size <= 0 || dim % size != 0)
      return false;
    if (std::optional<int64_t> c = getConstantIntValue(index))
      return *c >= 0 && *c % size == 0 && *c + size <= dim;
    auto arg = dyn_cast<BlockArgument>(index);
    auto loop = arg ? dyn_cast<scf::ForallOp>(arg.getOwner()->getParentOp())
                    : scf::ForallOp();
    if (!loop || arg.getArgNumber() >= loop.getRank())
      return false;
    unsigned i = arg.getArgNumber();
    int64_t lb = loop.getStaticLowerBound()[i],
            ub = loop.getStaticUpperBound()[i], step = loop.getStaticStep()[i];
    return !ShapedType::isDynamic(lb) && !ShapedType::isDynamic(ub) &&
           !ShapedType::isDynamic(step) && lb >= 0 && lb % size == 0 &&
           step % size == 0 && ub <= dim;
  }

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto collapse = slice.getSource().getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse || !slice.hasUnitStride() ||
        slice.getResultType().getRank() != slice.getSourceType().getRank())
      return failure();
    Location loc = slice.getLoc();
    ArrayRef<int64_t> src = collapse.getSrcType().getShape();
    SmallVector<OpFoldResult> offsets, sizes;
    bool rewritten = false;
    for (auto [size, offset, group] :
         llvm::zip_equal(slice.getMixedSizes(), slice.getMixedOffsets(),
                         collapse.getReassociationIndices())) {
      if (group.size() == 1) {
        offsets.push_back(offset);
        sizes.push_back(size);
        continue;
      }
      SmallVector<int64_t> basis;
      int64_t whole = 1;
      for (int64_t d : group) {
        if (ShapedType::isDynamic(src[d]))
          return failure();
        basis.push_back(src[d]);
        whole *= src[d];
      }
      std::optional<int64_t> s = getConstantIntValue(size),
                             o = getConstantIntValue(offset);
      if (s && o && *s == whole && *o == 0) {
        for (int64_t d : basis) {
          offsets.push_back(rewriter.getIndexAttr(0));
          sizes.push_back(rewriter.getIndexAttr(d));
        }
        continue;
      }
      if (!s || o)
        return failure();
      if (*s == 1) {
        auto split = affine::AffineDelinearizeIndexOp::create(
            rewriter, loc, cast<Value>(offset), basis, /*hasOuterBound=*/true);
        for (Value v : split.getResults()) {
          offsets.push_back(v);
          sizes.push_back(rewriter.getIndexAttr(1));
        }
        rewritten = true;
        continue;
      }
      // A block of rows: an offset linearized over the group's dims (the
      // bubbled slice of an expand_shape, a softmax of opset < 13 over
      // [batch x heads x queries, keys]) whose last index steps by the
      // block within the last dim.
      auto lin =
          cast<Value>(offset).getDefiningOp<affine::AffineLinearizeIndexOp>();
      if (!lin || lin.getMultiIndex().size() != group.size())
        return failure();
      ArrayRef<int64_t> want = basis;
      if (!lin.hasOuterBound())
        want = want.drop_front();
      if (lin.getStaticBasis() != want ||
          !blockWithin(lin.getMultiIndex().back(), *s, basis.back()))
        return failure();
      for (Value v : lin.getMultiIndex().drop_back()) {
        offsets.push_back(v);
        sizes.push_back(rewriter.getIndexAttr(1));
      }
      offsets.push_back(lin.getMultiIndex().back());
      sizes.push_back(size);
      rewritten = true;
    }
    if (!rewritten)
      return failure();
    SmallVector<OpFoldResult> strides(src.size(), rewriter.getIndexAttr(1));
    Value part = tensor::ExtractSliceOp::create(
        rewriter, loc, collapse.getSrc(), offsets, sizes, strides);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        slice, slice.getResultType(), part, collapse.getReassociationIndices());
    return success();
  }
};

/// Fuses the chain whose second product is `pv` (see the header).
scf::ForallOp fuse(linalg::LinalgOp pv,
                   function_ref<int64_t(int64_t, int64_t)> rowsFor,
                   function_ref<bool(scf::ForallOp)> accept,
                   const FrozenRewritePatternSet &canonicalization) {
  SetVector<Operation *> chain = attentionChain(pv);
  if (chain.empty())
    return nullptr;
  SmallVector<int64_t> ranges = pv.getStaticLoopRanges();
  bool batched = ranges.size() == 4;
  int64_t m = ranges[batched], keys = ranges.back();
  int64_t rows = rowsFor(m, keys);
  if (rows == 0)
    return nullptr;
  MLIRContext *ctx = pv.getContext();
  IRRewriter rewriter(pv);
  SmallVector<OpFoldResult> sizes;
  if (batched)
    sizes.push_back(rewriter.getIndexAttr(1));
  sizes.push_back(rewriter.getIndexAttr(rows));
  sizes.push_back(rewriter.getIndexAttr(0));
  sizes.push_back(rewriter.getIndexAttr(0));
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(sizes).setLoopType(
      scf::SCFTilingOptions::LoopType::ForallOp);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (!chain.contains(producer.getOwner()))
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  // What carries slices through the chain's reshapes (as
  // transform.structured.fuse's apply_cleanup does).
  RewritePatternSet cleanup(ctx);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(cleanup, ctx);
  tensor::populateMergeConsecutiveInsertExtractSlicePatterns(cleanup);
  tensor::populateBubbleUpExtractSliceOpPatterns(cleanup);
  cleanup.add<SliceOfCollapsedUnits>(ctx, /*benefit=*/2);
  // Offsets the bubbling linearizes again ([x, 0] by (n, 1)) become x, the
  // form SliceOfCollapsedUnits reads.
  affine::AffineLinearizeIndexOp::getCanonicalizationPatterns(cleanup, ctx);
  affine::AffineDelinearizeIndexOp::getCanonicalizationPatterns(cleanup, ctx);
  tensor::populateFoldTensorEmptyPatterns(cleanup);
  FrozenRewritePatternSet slicePatterns(std::move(cleanup));
  options.cleanupPatterns = slicePatterns;

  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(pv.getOperation()), options);
  if (failed(result) || result->loops.empty())
    return nullptr;
  Operation *loop = result->loops.front().getOperation();
  // Slices of chain ops that the driver left outside (a slice created
  // before its offset took the form the reshape patterns take): bubble
  // them and fuse their producers, until none is left.
  SetVector<Operation *> fused(result->fusedProducers.begin(),
                               result->fusedProducers.end());
  SmallVector<LoopLikeOpInterface> loops = result->loops;
  for (bool progress = true; progress;) {
    progress = false;
    (void)applyPatternsGreedily(loop, slicePatterns);
    SmallVector<tensor::ExtractSliceOp> left;
    loop->walk([&](tensor::ExtractSliceOp slice) {
      if (Operation *d = slice.getSource().getDefiningOp();
          d && chain.contains(d) && isa<TilingInterface>(d))
        left.push_back(slice);
    });
    for (tensor::ExtractSliceOp slice : left) {
      std::optional<scf::SCFFuseProducerOfSliceResult> f =
          scf::tileAndFuseProducerOfSlice(rewriter, slice, loops);
      if (!f)
        continue;
      fused.insert(f->origProducer.getOwner());
      rewriter.eraseOp(slice);
      progress = true;
    }
  }
  // A chain op that two ops of the tile read (the scores, by the max and
  // the exponentials) was fused once per reader: the copies compute the
  // same tile and become one.
  // (Canonicalized first: their slices' offsets are the same values
  // linearized in different ways.)
  (void)applyPatternsGreedily(loop, canonicalization);
  DominanceInfo dominance(loop);
  eliminateCommonSubExpressions(rewriter, dominance, loop);
  // Every op of the chain that can be tiled must be in the loop, each
  // computing only its tile: were one recomputed whole (a reduction
  // across rows) or more than once, the tiles' results would add up to
  // more than the chain's.
  int64_t iterations = 1;
  for (auto [r, s] : llvm::zip(ranges, sizes))
    if (std::optional<int64_t> t = getConstantIntValue(s); t && *t > 0)
      iterations *= llvm::divideCeil(r, *t);
  int64_t whole = elementsOf(pv), tiled = 0, fusable = 0;
  for (Operation *op : chain)
    if (isa<TilingInterface>(op)) {
      whole += elementsOf(op);
      ++fusable;
    }
  loop->walk([&](TilingInterface op) { tiled += elementsOf(op) * iterations; });
  if (int64_t(fused.size()) != fusable || tiled > whole ||
      !accept(cast<scf::ForallOp>(loop))) {
    rewriter.eraseOp(loop);
    return nullptr;
  }
  for (OpResult r : pv->getResults())
    if (Value replacement = result->replacements.lookup(r))
      rewriter.replaceAllUsesWith(r, replacement);
  // The chain now has no readers left: erase it, users first.
  SmallVector<Operation *> dead{pv.getOperation()};
  dead.append(chain.begin(), chain.end());
  bool erased = true;
  while (erased) {
    erased = false;
    for (Operation *&op : dead)
      if (op && op->use_empty()) {
        rewriter.eraseOp(op);
        op = nullptr;
        erased = true;
      }
  }
  return cast<scf::ForallOp>(loop);
}
} // namespace

FrozenRewritePatternSet hodu::canonicalizationPatterns(MLIRContext *ctx) {
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  return FrozenRewritePatternSet(std::move(patterns));
}

SmallVector<scf::ForallOp>
hodu::fuseAttentionChains(func::FuncOp func,
                          function_ref<int64_t(int64_t, int64_t)> rowsFor,
                          function_ref<bool(scf::ForallOp)> accept,
                          const FrozenRewritePatternSet &canonicalization,
                          const DeadKeyOptions &deadKeys) {
  // Second products first, so that a chain is fused before its first
  // product could be taken as the second product of an earlier chain. The
  // candidates are found again after each fusion, which erases ops (a
  // chain's first product among them); the ones tried and left stay.
  SmallVector<scf::ForallOp> loops;
  llvm::DenseSet<Operation *> tried;
  for (;;) {
    linalg::LinalgOp pv;
    func.walk([&](linalg::LinalgOp op) {
      if (isProduct(op) && !op->getParentOfType<scf::ForallOp>() &&
          !isConstantLike(op.getDpsInputs()[1]) && !tried.contains(op))
        pv = op;
    });
    if (!pv)
      break;
    tried.insert(pv);
    scf::ForallOp loop = fuse(pv, rowsFor, accept, canonicalization);
    if (!loop)
      continue;
    tried.erase(pv); // erased with its chain
    if (deadKeys.quantum > 0)
      llvm::append_range(loops, skipDeadKeys(loop, deadKeys));
    else
      loops.push_back(loop);
  }
  // The fused chains' empty destinations, now unused.
  func.walk([](tensor::EmptyOp empty) {
    if (empty->use_empty())
      empty->erase();
  });
  return loops;
}
