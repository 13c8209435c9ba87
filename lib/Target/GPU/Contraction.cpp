//===- Contraction.cpp - matmuls, batched matmuls and convolutions --------===//
//
// Every contraction (linalg::inferContractionDims: batch, M, N, K) becomes
// one kernel: a block per BM x BN tile of the output (batch and outer M/N
// dims one per block), a K loop whose steps copy the A and B tiles into
// workgroup memory, and a TM x TN register tile per thread, vectorised so
// that hodu-gpu-lower-vectors keeps it in registers across K. The
// elementwise consumer (bias, activation, residual) is computed by the same
// threads on their register tiles, and the fill that zeroes the output is
// fused too. Convolutions become contractions first: their input is
// gathered into an im2col tensor by an elementwise kernel.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace hodu::gpu {

//===----------------------------------------------------------------------===//
// Recognising contractions
//===----------------------------------------------------------------------===//

/// `v`, seen through widening casts.
static Value throughCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::ExtSIOp, arith::ExtUIOp, arith::SIToFPOp,
             arith::UIToFPOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

bool hasMultiplyAddBody(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1 || op->getRegion(0).empty())
    return false;
  Block &body = op->getRegion(0).front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1 || body.getOperations().size() > 8)
    return false;
  Operation *add = yield.getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<arith::AddFOp, arith::AddIOp>(add))
    return false;
  Value acc = body.getArgument(2);
  Value product;
  if (add->getOperand(0) == acc)
    product = add->getOperand(1);
  else if (add->getOperand(1) == acc)
    product = add->getOperand(0);
  else
    return false;
  Operation *mul = throughCasts(product).getDefiningOp();
  if (!isa_and_nonnull<arith::MulFOp, arith::MulIOp>(mul))
    return false;
  Value a = throughCasts(mul->getOperand(0)), b = throughCasts(mul->getOperand(1));
  Value x = body.getArgument(0), y = body.getArgument(1);
  return (a == x && b == y) || (a == y && b == x);
}

bool isContraction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      !hasMultiplyAddBody(op))
    return false;
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return false;
  // A dot product (no M, no N) or a matrix-vector product (no N) is a
  // reduction over rows, not a contraction to tile in two dims.
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  return succeeded(dims) && !dims->m.empty() && !dims->n.empty() &&
         !dims->k.empty();
}

//===----------------------------------------------------------------------===//
// Preparation: generalise, im2col, collapse K
//===----------------------------------------------------------------------===//

/// The statically shaped tensor.pad by a constant that makes `v`, if any,
/// and its padding value.
static std::pair<tensor::PadOp, TypedAttr> paddedSource(Value v) {
  auto pad = v.getDefiningOp<tensor::PadOp>();
  TypedAttr value;
  if (!pad || !pad.getConstantPaddingValue() ||
      !matchPattern(pad.getConstantPaddingValue(), m_Constant(&value)) ||
      !pad.getSourceType().hasStaticShape() ||
      llvm::any_of(pad.getStaticLow(), ShapedType::isDynamic) ||
      llvm::any_of(pad.getStaticHigh(), ShapedType::isDynamic))
    return {};
  return {pad, value};
}

/// The convolution `op` (a multiply-add whose input `x` is indexed by sums
/// of loops) as a contraction over an im2col tensor: the input gathered
/// into a tensor indexed by the loops it depends on, in loop order, which
/// an elementwise kernel fills.
static linalg::LinalgOp im2col(RewriterBase &rewriter, linalg::GenericOp op,
                               unsigned x, bool readsInBody) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap map = maps[x];
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  // The gathered tensor holds the reduction loops first (collapsed into
  // K afterwards), then the parallel ones: [K..., M...], so that the
  // gather's innermost loop and the contraction's M are the output's
  // spatial dims, long and contiguous.
  SmallVector<unsigned> used;
  for (bool reduction : {true, false})
    for (unsigned d = 0; d < op.getNumLoops(); ++d)
      if (map.isFunctionOfDim(d) &&
          (op.getIteratorTypesArray()[d] == utils::IteratorType::reduction) ==
              reduction)
        used.push_back(d);
  SmallVector<AffineExpr> toOld(op.getNumLoops(), getAffineConstantExpr(0, ctx));
  SmallVector<int64_t> shape;
  for (auto [i, d] : llvm::enumerate(used)) {
    toOld[d] = getAffineDimExpr(i, ctx);
    shape.push_back(r[d]);
  }
  // gather[i...] = input[map(loops of i...)].
  AffineMap gatherIn = map.compose(AffineMap::get(used.size(), 0, toOld, ctx));
  Value input = op.getDpsInputOperand(x)->get();
  Type element = getElementTypeOrSelf(input.getType());
  rewriter.setInsertionPoint(op);
  Value empty = tensor::EmptyOp::create(rewriter, loc, shape, element);
  SmallVector<utils::IteratorType> parallel(used.size(),
                                            utils::IteratorType::parallel);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(used.size(), ctx);
  linalg::GenericOp gather;
  std::pair<tensor::PadOp, TypedAttr> padded = paddedSource(input);
  if (padded.first || readsInBody) {
    // A constant pad of the input is read through: a position in the
    // padding is the pad value, any other reads the unpadded source, so
    // the padded tensor (a fill and a copy, two kernels) is never made.
    // Without a pad (`readsInBody`: an implicit GEMM's gather, whose
    // loops the contraction's K collapse must be able to collapse too),
    // every position is inside.
    tensor::PadOp pad = padded.first;
    TypedAttr padAttr = padded.second;
    Value source = pad ? pad.getSource() : input;
    SmallVector<int64_t> low =
        pad ? SmallVector<int64_t>(pad.getStaticLow())
            : SmallVector<int64_t>(gatherIn.getNumResults(), 0);
    ArrayRef<int64_t> sizes =
        cast<RankedTensorType>(source.getType()).getShape();
    gather = linalg::GenericOp::create(
        rewriter, loc, empty.getType(), ValueRange{}, ValueRange{empty},
        ArrayRef<AffineMap>{identity}, parallel,
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> loops;
          for (unsigned d = 0; d < used.size(); ++d)
            loops.push_back(linalg::IndexOp::create(b, l, d));
          Value inside =
              pad ? arith::ConstantIntOp::create(b, l, 1, 1) : Value();
          SmallVector<Value> at;
          for (auto [d, e] : llvm::enumerate(gatherIn.getResults())) {
            Value i = affine::AffineApplyOp::create(
                b, l, AffineMap::get(used.size(), 0, e - low[d]), loops);
            at.push_back(i);
            if (!pad)
              continue;
            Value ok = arith::AndIOp::create(
                b, l,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, i,
                                      arith::ConstantIndexOp::create(b, l, 0)),
                arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::slt, i,
                    arith::ConstantIndexOp::create(b, l, sizes[d])));
            inside = arith::AndIOp::create(b, l, inside, ok);
          }
          if (!pad) {
            linalg::YieldOp::create(
                b, l, Value(tensor::ExtractOp::create(b, l, source, at)));
            return;
          }
          // Every index clamped to 0 outside, so that the read stays in
          // the source whatever the position.
          for (Value &i : at)
            i = arith::SelectOp::create(
                b, l, inside, i, arith::ConstantIndexOp::create(b, l, 0));
          Value v = tensor::ExtractOp::create(b, l, source, at);
          Value padValue = arith::ConstantOp::create(b, l, padAttr);
          linalg::YieldOp::create(
              b, l, Value(arith::SelectOp::create(b, l, inside, v, padValue)));
        });
  } else {
    gather = linalg::GenericOp::create(
        rewriter, loc, empty.getType(), ValueRange{input}, ValueRange{empty},
        ArrayRef<AffineMap>{gatherIn, identity}, parallel,
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
  }
  gather->setAttr(kIm2col, rewriter.getUnitAttr());
  SmallVector<AffineExpr> projection;
  for (unsigned d : used)
    projection.push_back(getAffineDimExpr(d, ctx));
  maps[x] = AffineMap::get(op.getNumLoops(), 0, projection, ctx);
  SmallVector<Value> inputs = op.getDpsInputs();
  inputs[x] = gather.getResult(0);
  auto contraction = linalg::GenericOp::create(
      rewriter, loc, op.getResultTypes(), inputs, op.getDpsInits(), maps,
      op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), contraction.getRegion(),
                              contraction.getRegion().end());
  rewriter.replaceOp(op, contraction.getResults());
  return contraction;
}

/// `runs` of loops of `op` (a generic) collapsed into one loop each, where
/// every operand keeps each run contiguous; else `op` unchanged.
static linalg::LinalgOp collapseLoops(RewriterBase &rewriter,
                                      linalg::LinalgOp op,
                                      ArrayRef<ReassociationIndices> runs) {
  if (runs.empty() || !isa<linalg::GenericOp>(op) ||
      !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), runs))
    return op;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, runs, rewriter);
  if (failed(collapsed))
    return op;
  rewriter.replaceOp(op, collapsed->results);
  return collapsed->collapsedOp;
}

/// Consecutive K loops (c, kh, kw of a convolution; heads x head dim of an
/// attention output projection) collapsed into one, so that the K steps are
/// long.
static linalg::LinalgOp collapseK(RewriterBase &rewriter, linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.size() < 2)
    return op;
  ReassociationIndices k(dims->k.begin(), dims->k.end());
  for (size_t i = 1; i < k.size(); ++i)
    if (k[i] != k[i - 1] + 1)
      return op;
  return collapseLoops(rewriter, op, {k});
}

/// The im2col gathers that `op` reads through a collapse_shape (its K
/// loops collapsed), collapsed the same way, so that `op` reads them
/// directly: a K step's tile of `op` is then a tile of the gather's loops,
/// which the implicit GEMM computes in the step (tileContraction).
static void collapseGathers(RewriterBase &rewriter, linalg::LinalgOp op) {
  for (OpOperand *in : op.getDpsInputOperands()) {
    // Through a chain of collapses (K's, then M's), their groups composed.
    auto collapse = in->get().getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse || !collapse->hasOneUse())
      continue;
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    SmallVector<Operation *> chain = {collapse};
    Value source = collapse.getSrc();
    while (auto inner = source.getDefiningOp<tensor::CollapseShapeOp>()) {
      if (!inner->hasOneUse())
        break;
      SmallVector<ReassociationIndices> innerGroups =
          inner.getReassociationIndices();
      for (ReassociationIndices &group : groups) {
        ReassociationIndices composed;
        for (int64_t i : group)
          llvm::append_range(composed, innerGroups[i]);
        group = composed;
      }
      chain.push_back(inner);
      source = inner.getSrc();
    }
    auto gather = source.getDefiningOp<linalg::GenericOp>();
    if (!gather || !gather->hasAttr(kIm2col) || !gather->hasOneUse() ||
        gather.getNumDpsInputs() != 0)
      continue;
    rewriter.setInsertionPoint(gather);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(gather, groups, rewriter);
    if (failed(collapsed))
      continue;
    // The gather's output map is the identity: collapsed by the chain's
    // groups, it has the chain's type.
    assert(collapsed->collapsedOp->getResult(0).getType() ==
           collapse.getType());
    collapsed->collapsedOp->setAttr(kIm2col, rewriter.getUnitAttr());
    rewriter.modifyOpInPlace(
        op, [&] { in->set(collapsed->collapsedOp->getResult(0)); });
    // The chain, the old gather and the expand_shape that would give its
    // shape back are dead.
    for (Operation *dead : chain)
      rewriter.eraseOp(dead);
    for (Value v : collapsed->results)
      if (Operation *expand = v.getDefiningOp<tensor::ExpandShapeOp>())
        if (expand->use_empty())
          rewriter.eraseOp(expand);
    rewriter.eraseOp(gather);
  }
}

/// Each run of consecutive loops among `dims` (a contraction's M or N
/// loops: a convolution's output rows and columns) collapsed into one,
/// where every operand keeps the run contiguous, so that a tile spans the
/// whole run rather than its innermost loop.
static linalg::LinalgOp collapseRuns(RewriterBase &rewriter,
                                     linalg::LinalgOp op,
                                     ArrayRef<unsigned> dims) {
  SmallVector<unsigned> sorted(dims);
  llvm::sort(sorted);
  SmallVector<ReassociationIndices> runs;
  for (unsigned d : sorted) {
    if (runs.empty() || static_cast<int64_t>(d) != runs.back().back() + 1)
      runs.push_back({static_cast<int64_t>(d)});
    else
      runs.back().push_back(d);
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  llvm::erase_if(runs, [&](const ReassociationIndices &run) {
    return run.size() < 2 || !linalg::areDimSequencesPreserved(maps, {run});
  });
  return collapseLoops(rewriter, op, runs);
}

/// The inputs of `op` read through constant-0 results on unit dims (a
/// bias [C][1][1] read at (c, 0, 0) over a plane) reshaped without those
/// dims, their maps without the constants: the maps become projected
/// permutations, which folding a reshape into `op` by collapsing its loops
/// needs (a convolution's bias then joins its tensor-core kernel).
static void dropUnitBroadcasts(RewriterBase &rewriter, linalg::GenericOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(in->get().getType());
    AffineMap map = maps[in->getOperandNumber()];
    if (!type || map.getNumResults() != type.getRank())
      continue;
    SmallVector<AffineExpr> kept;
    SmallVector<ReassociationIndices> groups;
    ReassociationIndices leading;
    for (auto [i, e] : llvm::enumerate(map.getResults())) {
      auto c = dyn_cast<AffineConstantExpr>(e);
      if (c && c.getValue() == 0 && type.getDimSize(i) == 1) {
        // A dropped unit dim joins the group of the kept dim before it.
        if (groups.empty())
          leading.push_back(i);
        else
          groups.back().push_back(i);
        continue;
      }
      kept.push_back(e);
      groups.push_back(leading);
      groups.back().push_back(i);
      leading.clear();
    }
    if (kept.empty() || kept.size() == map.getNumResults())
      continue;
    rewriter.setInsertionPoint(op);
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, op.getLoc(), in->get(), groups);
    maps[in->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, kept, op.getContext());
    rewriter.modifyOpInPlace(op, [&] {
      in->set(collapsed);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
  }
}

/// Whether `op` reduces into one static output tensor.
static bool isReductionToOne(linalg::LinalgOp op) {
  return op.getNumReductionLoops() > 0 && op.getNumDpsInits() == 1 &&
         op.hasPureTensorSemantics() && !op.hasDynamicShape();
}

/// Whether `op` is a reduction that a thread per output element computes
/// (a depthwise convolution, a pooling window): no contraction.
bool isPerElementReduction(linalg::LinalgOp op) {
  return isReductionToOne(op) && !isContraction(op);
}

/// An elementwise consumer that reads a reduction (a contraction, a
/// pooling window) through a collapse_shape -- the bias after a depthwise
/// convolution, whose result is [N, C, 1, H, W] as groups x channels per
/// group -- gets the reduction's shape instead (upstream's reshape folding
/// by expansion, once unit broadcasts like the bias's [C][1][1] read at
/// (c, 0, 0) no longer stand in its way), so that it reads the reduction
/// itself and can be computed in its kernel: as a contraction's epilogue,
/// or per element (tilePerElement).
static void readReductionsWithoutReshapes(RewriterBase &rewriter, Block &body) {
  auto throughCollapse = [](OpOperand *operand) {
    auto collapse = operand->get().getDefiningOp<tensor::CollapseShapeOp>();
    auto producer = collapse
                        ? collapse.getSrc().getDefiningOp<linalg::LinalgOp>()
                        : linalg::LinalgOp();
    auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
    return producer && producer->hasOneUse() && collapse->hasOneUse() &&
           isReductionToOne(producer) && consumer &&
           consumer.getNumReductionLoops() == 0 &&
           consumer.hasPureTensorSemantics();
  };
  bool any = false;
  for (auto consumer : llvm::to_vector(body.getOps<linalg::GenericOp>()))
    for (OpOperand *in : consumer.getDpsInputOperands())
      if (throughCollapse(in)) {
        dropUnitBroadcasts(rewriter, consumer);
        any = true;
        break;
      }
  if (!any)
    return;
  RewritePatternSet patterns(body.getParentOp()->getContext());
  linalg::populateFoldReshapeOpsByExpansionPatterns(
      patterns, [&](OpOperand *operand) { return throughCollapse(operand); });
  (void)applyPatternsGreedily(body.getParentOp(), std::move(patterns));
}

void prepareContractions(RewriterBase &rewriter, Block &body,
                         const TileOptions &o) {
  bool collapseParallel = !o.tensorCores.empty(), implicitGemm = o.implicitGemm;
  // First, while every reduction is as the importer wrote it.
  readReductionsWithoutReshapes(rewriter, body);
  SmallVector<linalg::LinalgOp> ops;
  for (auto op : body.getOps<linalg::LinalgOp>())
    if (op.hasPureTensorSemantics() && !op.hasDynamicShape())
      ops.push_back(op);
  for (linalg::LinalgOp op : ops) {
    // A fill used by several ops (one zero tensor for Q, K and V) is
    // duplicated, so that each can be fused into its user's kernel.
    if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation())) {
      SmallVector<OpOperand *> uses = llvm::map_to_vector(
          fill->getUses(), [](OpOperand &u) { return &u; });
      for (OpOperand *use : llvm::drop_begin(uses)) {
        rewriter.setInsertionPoint(use->getOwner());
        use->set(rewriter.clone(*fill)->getResult(0));
      }
      continue;
    }
    linalg::LinalgOp current = op;
    if (!isa<linalg::GenericOp>(op) &&
        (linalg::isaContractionOpInterface(op) ||
         linalg::isaConvolutionOpInterface(op))) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generic))
        continue;
      current = *generic;
    }
    auto generic = dyn_cast<linalg::GenericOp>(current.getOperation());
    if (!generic || !hasMultiplyAddBody(current) ||
        current.getNumReductionLoops() == 0)
      continue;
    // A convolution: one input indexed by sums of loops, the filter and the
    // output by projected permutations.
    SmallVector<AffineMap> maps = current.getIndexingMapsArray();
    auto projected = [](AffineMap m) { return m.isProjectedPermutation(); };
    // A 1x1 filter's window loops (reductions over one position) dropped
    // first: a stride-1 1x1 convolution's input is then indexed by a
    // projected permutation, a contraction on the input itself, without an
    // im2col copy (and its kernel).
    if (!llvm::all_of(maps, projected)) {
      SmallVector<int64_t> ranges = current.getStaticLoopRanges();
      SmallVector<utils::IteratorType> kinds = current.getIteratorTypesArray();
      SmallVector<unsigned> unit;
      for (unsigned d = 0; d < ranges.size(); ++d)
        if (ranges[d] == 1 && kinds[d] == utils::IteratorType::reduction)
          unit.push_back(d);
      // Only where that leaves no sums (a 3x3 window keeps its im2col,
      // which reads a padded input through).
      MLIRContext *ctx = current.getContext();
      SmallVector<AffineExpr> zeroed;
      for (unsigned d = 0; d < ranges.size(); ++d)
        zeroed.push_back(llvm::is_contained(unit, d)
                             ? getAffineConstantExpr(0, ctx)
                             : getAffineDimExpr(d, ctx));
      bool plain = !unit.empty() && llvm::all_of(maps, [&](AffineMap m) {
        return m.replaceDimsAndSymbols(zeroed, {}, m.getNumDims(), 0)
            .isProjectedPermutation(/*allowZeroInResults=*/true);
      });
      linalg::ControlDropUnitDims control;
      control.controlFn = [unit](Operation *) { return unit; };
      rewriter.setInsertionPoint(generic);
      FailureOr<linalg::DropUnitDimsResult> dropped = failure();
      if (plain)
        dropped = linalg::dropUnitDims(rewriter, generic, control);
      if (succeeded(dropped)) {
        rewriter.replaceOp(generic, dropped->replacements);
        generic = cast<linalg::GenericOp>(dropped->resultOp.getOperation());
        current = generic;
        maps = current.getIndexingMapsArray();
      }
    }
    if (!projected(maps[2]))
      continue;
    if (!projected(maps[0]) && projected(maps[1]))
      current = im2col(rewriter, generic, 0, implicitGemm);
    else if (projected(maps[0]) && !projected(maps[1]))
      current = im2col(rewriter, generic, 1, implicitGemm);
    if (!isContraction(current))
      continue;
    current = collapseK(rewriter, current);
    if (collapseParallel && isContraction(current)) {
      for (bool m : {true, false}) {
        FailureOr<linalg::ContractionDimensions> dims =
            linalg::inferContractionDims(current);
        if (succeeded(dims))
          current = collapseRuns(rewriter, current, m ? dims->m : dims->n);
      }
    }
    // The contraction reads its gather directly: the FMA kernels gather
    // each K step's tile themselves, the matrix-unit kernels each chunk
    // they load (fuseableTensorCoreGather; else the gather stays a kernel
    // of its own, writing the im2col tensor).
    if (implicitGemm)
      collapseGathers(rewriter, current);
  }
  if (!collapseParallel)
    return;
  // A collapsed contraction's elementwise consumer reads it through an
  // expand_shape: collapsed the same way, it reads the contraction itself
  // and can be its epilogue.
  for (auto expand : llvm::to_vector(body.getOps<tensor::ExpandShapeOp>())) {
    auto producer = expand.getSrc().getDefiningOp<linalg::LinalgOp>();
    if (!producer || !isContraction(producer))
      continue;
    for (Operation *user : llvm::to_vector(expand->getUsers()))
      if (auto consumer = dyn_cast<linalg::GenericOp>(user))
        if (consumer.getNumReductionLoops() == 0)
          dropUnitBroadcasts(rewriter, consumer);
  }
  RewritePatternSet patterns(body.getParentOp()->getContext());
  linalg::populateFoldReshapeOpsByCollapsingPatterns(
      patterns, [](OpOperand *operand) {
        auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
        auto producer =
            expand ? expand.getSrc().getDefiningOp<linalg::LinalgOp>()
                   : linalg::LinalgOp();
        auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
        return producer && consumer && isContraction(producer) &&
               consumer.getNumReductionLoops() == 0;
      });
  // A fill reshaped into a collapsed contraction's output becomes a fill of
  // the reshaped tensor, which the contraction's kernel can fuse.
  linalg::FillOp::getCanonicalizationPatterns(patterns,
                                              body.getParentOp()->getContext());
  (void)applyPatternsGreedily(body.getParentOp(), std::move(patterns));
}

//===----------------------------------------------------------------------===//
// Epilogue and initialiser
//===----------------------------------------------------------------------===//

Value cloneBodyAt(OpBuilder &b, linalg::LinalgOp op, IRMapping &map,
                  ValueRange indices) {
  Block &body = op->getRegion(0).front();
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), indices[index.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  return map.lookupOrDefault(body.getTerminator()->getOperand(0));
}

linalg::LinalgOp fuseableInit(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return nullptr;
  auto init = op.getDpsInitOperand(0)->get().getDefiningOp<linalg::LinalgOp>();
  if (!init || !init->hasOneUse() || init->getBlock() != op->getBlock() ||
      init.getNumDpsInits() != 1 || !init.hasPureTensorSemantics() ||
      init.getNumReductionLoops() != 0 ||
      !init.getIndexingMapMatchingResult(cast<OpResult>(init->getResult(0)))
           .isPermutation())
    return nullptr;
  return init;
}

linalg::LinalgOp fuseableEpilogue(RewriterBase &rewriter,
                                  linalg::LinalgOp &consumer) {
  if (consumer.getNumDpsInits() != 1 || consumer.getNumReductionLoops() != 0 ||
      !consumer.hasPureTensorSemantics() || consumer.hasDynamicShape())
    return nullptr;
  OpOperand *init = consumer.getDpsInitOperand(0);
  AffineMap outMap = consumer.getMatchingIndexingMap(init);
  if (!outMap.isPermutation() || consumer.payloadUsesValueFromOperand(init))
    return nullptr;
  for (OpOperand *in : consumer.getDpsInputOperands()) {
    auto producer = in->get().getDefiningOp<linalg::LinalgOp>();
    if (!producer || !producer->hasOneUse() ||
        producer->getBlock() != consumer->getBlock() || !isContraction(producer) ||
        in->get().getType() != consumer->getResult(0).getType() ||
        consumer.getMatchingIndexingMap(in) != outMap)
      continue;
    // The epilogue reads the contraction's tile through its own output, so
    // that both are computed in place in the same buffer.
    rewriter.setInsertionPoint(consumer);
    linalg::LinalgOp current = consumer;
    if (!isa<linalg::GenericOp>(consumer)) {
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, consumer);
      if (failed(generic))
        return nullptr;
      current = *generic;
    }
    unsigned index = in->getOperandNumber();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *other : current.getDpsInputOperands())
      if (other->getOperandNumber() != index) {
        inputs.push_back(other->get());
        maps.push_back(current.getMatchingIndexingMap(other));
      }
    maps.push_back(outMap);
    auto fused = linalg::GenericOp::create(
        rewriter, current.getLoc(), current->getResultTypes(), inputs,
        ValueRange{producer->getResult(0)}, maps,
        current.getIteratorTypesArray());
    rewriter.inlineRegionBefore(current->getRegion(0), fused.getRegion(),
                                fused.getRegion().end());
    Block &body = fused.getRegion().front();
    body.getArgument(index).replaceAllUsesWith(body.getArguments().back());
    body.eraseArgument(index);
    rewriter.replaceOp(current, fused->getResults());
    consumer = fused;
    return producer;
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Tile sizes
//===----------------------------------------------------------------------===//

namespace {
struct MatmulTiles {
  int64_t bm, bn, tm, tn;
};

/// Block tiles, largest first: a thread's TM x TN register tile does TM*TN
/// FMAs per TM + TN values it reads from workgroup memory, so 8x8 tiles
/// (4 FMAs per value) are the goal; 16x16 threads keep a block at 256. A
/// candidate is taken when it divides the output and leaves at least
/// `minBlocks` blocks to fill the GPU; else the one with the most blocks.
MatmulTiles chooseTiles(int64_t m, int64_t n, int64_t outer,
                        const TileOptions &o) {
  static constexpr MatmulTiles kCandidates[] = {
      {128, 128, 8, 8}, {128, 64, 8, 4}, {64, 128, 4, 8}, {64, 64, 4, 4},
      {64, 32, 4, 2},   {32, 64, 2, 4},  {32, 32, 2, 2},  {32, 16, 2, 1},
      {16, 32, 1, 2},   {16, 16, 1, 1},
  };
  std::optional<MatmulTiles> best;
  int64_t bestBlocks = 0;
  for (const MatmulTiles &t : kCandidates) {
    if (m % t.bm || n % t.bn || (t.bm / t.tm) * (t.bn / t.tn) > o.maxThreads)
      continue;
    int64_t blocks = outer * (m / t.bm) * (n / t.bn);
    if (blocks >= o.minBlocks)
      return t;
    if (blocks > bestBlocks) {
      best = t;
      bestBlocks = blocks;
    }
  }
  if (best)
    return *best;
  // Shapes the candidates do not divide (a 3-class classifier, odd
  // spatial sizes): one output element per thread, the block as large as
  // divisors allow.
  int64_t tx = largestDivisor(n, 32);
  int64_t ty = largestDivisor(m, std::max<int64_t>(o.maxThreads / tx, 1));
  return {ty, tx, 1, 1};
}
} // namespace

//===----------------------------------------------------------------------===//
// The strategy
//===----------------------------------------------------------------------===//

/// `sizes` over the contraction's loops as sizes over the loops of `op`,
/// whose output has the contraction's output shape through a permutation.
SmallVector<int64_t> onOutput(linalg::LinalgOp contraction,
                              linalg::LinalgOp op, ArrayRef<int64_t> sizes) {
  AffineMap from = contraction.getIndexingMapMatchingResult(
      cast<OpResult>(contraction->getResult(0)));
  AffineMap to =
      op.getIndexingMapMatchingResult(cast<OpResult>(op->getResult(0)));
  SmallVector<int64_t> result(op.getNumLoops(), 0);
  for (unsigned p = 0; p < from.getNumResults(); ++p)
    result[to.getDimPosition(p)] = sizes[from.getDimPosition(p)];
  return result;
}

linalg::LinalgOp fuseableGather(linalg::LinalgOp op) {
  for (Value in : op.getDpsInputs()) {
    auto gather = in.getDefiningOp<linalg::GenericOp>();
    if (gather && gather->hasAttr(kIm2col) && gather->hasOneUse() &&
        gather->getBlock() == op->getBlock() && gather.getNumDpsInputs() == 0 &&
        !gather.hasDynamicShape())
      return gather;
  }
  return nullptr;
}

void tileContraction(TransformScript &s, linalg::LinalgOp contraction,
                     Value contractionHandle, linalg::LinalgOp epilogue,
                     Value epilogueHandle, linalg::LinalgOp init,
                     Value initHandle, linalg::LinalgOp gather,
                     Value gatherHandle, const TileOptions &o) {
  MLIRContext *ctx = contraction->getContext();
  linalg::ContractionDimensions dims =
      *linalg::inferContractionDims(contraction);
  SmallVector<int64_t> r = contraction.getStaticLoopRanges();
  AffineMap out = contraction.getIndexingMapMatchingResult(
      cast<OpResult>(contraction->getResult(0)));
  // The innermost M and N dims of the output are tiled; threads along x
  // follow the output's fastest of the two, so that their writes coalesce.
  auto innermost = [&](ArrayRef<unsigned> candidates) {
    unsigned best = candidates.front();
    for (unsigned d : candidates)
      if (*out.getResultPosition(getAffineDimExpr(d, ctx)) >
          *out.getResultPosition(getAffineDimExpr(best, ctx)))
        best = d;
    return best;
  };
  unsigned mDim = innermost(dims.m), nDim = innermost(dims.n);
  unsigned kDim = dims.k.back();
  int64_t outer = 1;
  for (unsigned d = 0; d < r.size(); ++d)
    if (d != mDim && d != nDim && !llvm::is_contained(dims.k, d))
      outer *= r[d];
  MatmulTiles t = chooseTiles(r[mDim], r[nDim], outer, o);
  // K steps: the A and B tiles of a step fit in workgroup memory.
  int64_t elementBytes = std::max<int64_t>(
      1, getElementTypeOrSelf(contraction.getDpsInputs()[0].getType())
                 .getIntOrFloatBitWidth() /
             8);
  int64_t kMost = std::max<int64_t>(
      1, std::min(o.tileK, o.workgroupBytes / ((t.bm + t.bn) * elementBytes)));
  int64_t bk = largestDivisor(r[kDim], kMost);

  SmallVector<int64_t> blocks(r.size(), 0), threads(r.size(), 0),
      steps(r.size(), 0), threadIds(r.size(), 0);
  bool nFastest = *out.getResultPosition(getAffineDimExpr(nDim, ctx)) >
                  *out.getResultPosition(getAffineDimExpr(mDim, ctx));
  unsigned xDim = nFastest ? nDim : mDim, yDim = nFastest ? mDim : nDim;
  SmallVector<unsigned> order = {xDim, yDim};
  for (unsigned d = r.size(); d-- > 0;) {
    if (llvm::is_contained(dims.k, d)) {
      steps[d] = d == kDim ? bk : 1;
      continue;
    }
    blocks[d] = 1;
    if (d != mDim && d != nDim)
      order.push_back(d);
  }
  blocks[mDim] = t.bm;
  blocks[nDim] = t.bn;
  threads[mDim] = t.tm;
  threads[nDim] = t.tn;
  threadIds[xDim] = 0;
  threadIds[yDim] = 1;
  SmallVector<int64_t> ids = blockIds(r, blocks, order);
  // A dim that blockIds left untiled (one element) is untiled per thread
  // too; x and y are always tiled (their blocks hold the whole tile).
  for (unsigned d = 0; d < r.size(); ++d)
    if (blocks[d] == 0)
      threads[d] = 0;

  // Blocks over the output (the epilogue's, when there is one, with the
  // contraction and its initialiser fused into them).
  Value forall, inBlock, epilogueInBlock, initInBlock;
  if (epilogue) {
    TransformScript::Tiled b = s.tileUsingForall(
        epilogueHandle, onOutput(contraction, epilogue, blocks),
        mappingOf(ctx, onOutput(contraction, epilogue, blocks),
                  onOutput(contraction, epilogue, ids), true));
    epilogueInBlock = b.op;
    std::tie(inBlock, forall) =
        s.fuseIntoContainingOp(contractionHandle, b.loops[0]);
  } else {
    TransformScript::Tiled b = s.tileUsingForall(
        contractionHandle, blocks, mappingOf(ctx, blocks, ids, true));
    inBlock = b.op;
    forall = b.loops[0];
  }
  if (init)
    initInBlock = s.fuseIntoContainingOp(initHandle, forall).first;
  // The operand an im2col gather makes, if the kernel computes it.
  int64_t gathered = -1;
  for (int64_t i = 0; gather && i < 2; ++i)
    if (contraction.getDpsInputs()[i] == gather->getResult(0))
      gathered = i;
  Value gatherInBlock;
  if (gathered >= 0)
    gatherInBlock = s.fuseIntoContainingOp(gatherHandle, forall).first;

  // K steps through workgroup memory.
  TransformScript::Tiled stepped = s.tileUsingFor(inBlock, steps);
  Value step = stepped.op;
  Attribute workgroup =
      mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup);
  for (int64_t i = 0; i < 2; ++i)
    if (i != gathered)
      s.promoteOperand(step, i, workgroup);
  // Implicit GEMM: each step gathers its tile of the gathered operand from
  // the input, spread over the block's threads like a copy would be (x
  // along its innermost dim of more than one element, y along the next);
  // the tile is a temporary of the block, in workgroup memory
  // (hodu-gpu-map-to-launches), with a barrier after it.
  if (gathered >= 0) {
    Value g = gatherInBlock;
    for (Value loop : stepped.loops)
      g = s.fuseIntoContainingOp(g, loop).first;
    AffineMap map = contraction.getMatchingIndexingMap(
        contraction.getDpsInputOperand(gathered));
    int64_t rank = map.getNumResults();
    // The register tiles' thread counts along x and y (a dim of one
    // element is not mapped: one thread).
    auto count = [&](unsigned d) {
      return threads[d] ? std::max<int64_t>(1, blocks[d] / threads[d]) : 1;
    };
    const int64_t budget[2] = {count(xDim), count(yDim)};
    SmallVector<int64_t> sizes(rank, 0), ids(rank, 0);
    int64_t next = 0;
    for (int64_t i = rank; i-- > 0 && next < 2;) {
      unsigned l = map.getDimPosition(i);
      int64_t extent = steps[l] ? steps[l] : blocks[l] ? blocks[l] : r[l];
      int64_t count = largestDivisor(extent, budget[next]);
      if (count == 1)
        continue;
      sizes[i] = extent / count;
      ids[i] = next++;
    }
    if (next == 0) { // one element a step
      sizes[rank - 1] = 1;
      ids[rank - 1] = 0;
    }
    s.tileUsingForall(g, sizes, mappingOf(ctx, sizes, ids, false));
  }

  // The register tiles: the same TM x TN elements of the output for the
  // initialiser, every K step and the epilogue.
  SmallVector<Value> perThread;
  perThread.push_back(
      s.tileUsingForall(step, threads, mappingOf(ctx, threads, threadIds, false))
          .op);
  auto perThreadOnOutput = [&](linalg::LinalgOp op, Value handle) {
    SmallVector<int64_t> sizes = onOutput(contraction, op, threads);
    perThread.push_back(
        s.tileUsingForall(handle, sizes,
                          mappingOf(ctx, sizes,
                                    onOutput(contraction, op, threadIds), false))
            .op);
  };
  bool vectorizeInit =
      init && succeeded(linalg::vectorizeOpPrecondition(init));
  bool vectorizeEpilogue =
      epilogue && succeeded(linalg::vectorizeOpPrecondition(epilogue));
  if (init)
    perThreadOnOutput(init, initInBlock);
  if (epilogue)
    perThreadOnOutput(epilogue, epilogueInBlock);
  s.cleanupFuncs();
  // Vectors make the register tile: hodu-gpu-lower-vectors hoists the
  // accumulator out of the K loop and unrolls it into 4-wide vectors.
  s.vectorize(perThread[0]);
  if (vectorizeInit)
    s.vectorize(perThread[1]);
  if (vectorizeEpilogue)
    s.vectorize(perThread.back());
}

} // namespace hodu::gpu
