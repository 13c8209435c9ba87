//===- Parallelize.cpp - large linalg.generic ops as scf.forall -----------===//
//
// See hodu-cpu-parallelize in include/hodu/Target/CPU/Passes.td. Picks the
// dimension and chunk size per op and lets
// `transform.structured.tile_using_forall` make the loop.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "Int8Dot.h"
#include "Reductions.h"
#include "TransformScript.h"
#include "hodu/Target/CPU/WorkSplit.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MathExtras.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUPARALLELIZE
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

/// Benchmarks compare the producer-following split with the plain rule.
static llvm::cl::opt<bool> noProducerSplit(
    "hodu-cpu-no-producer-split", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("CPU: split fused kernels by the plain rule, not along "
                   "their producer's split (for benchmarks)"));

namespace {

/// What one run of `op` costs, roughly: the points of its iteration space
/// (a pooling window's taps and a reduction's inputs too, not only its
/// results) times the ops of its body (at least one: a copy still moves
/// each element), or 0 when a loop range is not static.
int64_t work(linalg::LinalgOp op, ArrayRef<int64_t> ranges) {
  uint64_t points = 1;
  for (int64_t r : ranges) {
    if (ShapedType::isDynamic(r) || r < 0)
      return 0;
    points = llvm::SaturatingMultiply(points, uint64_t(r));
  }
  uint64_t ops = llvm::range_size(op.getBlock()->without_terminator());
  uint64_t w = llvm::SaturatingMultiply(points, std::max<uint64_t>(ops, 1));
  return int64_t(std::min<uint64_t>(w, INT64_MAX));
}

/// The dim of `v` that the thread loop producing it splits: `v` is (a
/// reshape or a slice of) an `scf.forall` result written by one
/// `tensor.parallel_insert_slice` whose slices are whole along every dim
/// but one. Through an expand_shape, the outermost dim of more than one
/// element of that dim's group (a split of N*H*W positions splits H);
/// through a slice of the same rank (a padded result's interior), the
/// same dim. -1 when there is no such loop.
int64_t producerSplitDim(Value v) {
  SmallVector<tensor::ExpandShapeOp> expands; // null: a slice
  while (true) {
    if (auto expand = v.getDefiningOp<tensor::ExpandShapeOp>()) {
      expands.push_back(expand);
      v = expand.getSrc();
      continue;
    }
    auto slice = v.getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || slice.getSourceType().getRank() != slice.getType().getRank())
      break;
    expands.push_back(nullptr);
    v = slice.getSource();
  }
  auto loop = v.getDefiningOp<scf::ForallOp>();
  if (!loop)
    return -1;
  auto result = cast<OpResult>(v);
  BlockArgument shared = loop.getRegionIterArgs()[result.getResultNumber()];
  tensor::ParallelInsertSliceOp insert;
  for (Operation &op : loop.getTerminator().getYieldingOps()) {
    auto slice = dyn_cast<tensor::ParallelInsertSliceOp>(op);
    if (!slice || slice.getDest() != shared)
      continue;
    if (insert)
      return -1; // more than one slice of it
    insert = slice;
  }
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!insert || !type)
    return -1;
  int64_t dim = -1;
  for (auto [d, size] : llvm::enumerate(insert.getStaticSizes())) {
    if (size == type.getDimSize(d))
      continue;
    if (dim >= 0)
      return -1; // split along two dims
    dim = d;
  }
  for (tensor::ExpandShapeOp expand : llvm::reverse(expands)) {
    if (dim < 0)
      return -1;
    if (!expand)
      continue;
    ReassociationIndices group = expand.getReassociationIndices()[dim];
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    auto outer = llvm::find_if(group, [&](int64_t r) { return shape[r] > 1; });
    dim = outer == group.end() ? -1 : *outer;
  }
  return dim;
}

/// The parallel loop of `op` along which the thread loop producing its
/// largest input split that input (producerSplitDim), if any: cutting
/// `op` along the same loop keeps each thread on the part of the tensor
/// it wrote, where another loop would have it read, and then overwrite in
/// the next run, lines the other core holds. On the bench CNN a
/// convolution split by output rows and a pooling split by channels cost
/// each thread twice a single thread's time in both; bench/harness/
/// partition_split.c measures the pattern alone. The input's dim must be
/// indexed by one parallel loop (`2*oh + kh`: oh), and the input at least
/// kFollowBytes: a smaller one stays in the caches of both cores, and
/// cutting it along its rows leaves slices too thin to vectorise well
/// (PP-OCRv4's detector at 128x128, with rows of 8 to 64 elements, ran 8%
/// slower on 2 threads when its 16 to 192-channel kernels followed their
/// producers' row splits).
constexpr int64_t kFollowBytes = 1 << 20;

int64_t producerSplitLoop(linalg::LinalgOp op) {
  int64_t loop = -1, largest = 0;
  auto iterators = op.getIteratorTypesArray();
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(in->get().getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() <= largest ||
        !type.getElementType().isIntOrFloat() ||
        type.getNumElements() * type.getElementTypeBitWidth() / 8 <
            kFollowBytes)
      continue;
    int64_t dim = producerSplitDim(in->get());
    if (dim < 0)
      continue;
    AffineExpr e = op.getMatchingIndexingMap(in).getResult(dim);
    int64_t found = -1;
    bool single = true;
    e.walk([&](AffineExpr sub) {
      auto d = dyn_cast<AffineDimExpr>(sub);
      if (!d || iterators[d.getPosition()] != utils::IteratorType::parallel)
        return;
      single = single && (found < 0 || found == d.getPosition());
      found = d.getPosition();
    });
    if (found < 0 || !single)
      continue;
    loop = found;
    largest = type.getNumElements();
  }
  return loop;
}

/// Moves the fills that only initialise the shared outputs of `loop` into
/// it: each thread fills the slices of the output it then accumulates
/// into, instead of the calling thread filling it all before the fork (a
/// serial pass whose lines the other threads must then take over from its
/// cache). The loop's output starts from the fill's destination, and each
/// `tensor.extract_slice` of the shared output inside the loop is filled
/// where it is extracted. Done here rather than with the transform
/// dialect's fuse_into_containing_op, whose every application cost about
/// 0.1 s on IS-Net's 40,000-op function (dominance and use scans over the
/// whole function): 10 fills took 1 s of compile time, 200 took 23 s.
void fuseFills(scf::ForallOp loop) {
  for (auto [init, arg] :
       llvm::zip(loop.getOutputsMutable(), loop.getRegionIterArgs())) {
    auto fill = init.get().getDefiningOp<linalg::FillOp>();
    if (!fill || !fill->hasOneUse() || !fill.hasPureTensorSemantics())
      continue;
    SmallVector<tensor::ExtractSliceOp> slices;
    bool fusable = true;
    for (OpOperand &use : arg.getUses()) {
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(use.getOwner()))
        slices.push_back(slice);
      else if (!isa<tensor::ParallelInsertSliceOp>(use.getOwner()) ||
               use.getOperandNumber() != 1)
        fusable = false;
    }
    if (!fusable || slices.empty())
      continue;
    for (tensor::ExtractSliceOp slice : slices) {
      OpBuilder b(slice->getContext());
      b.setInsertionPointAfter(slice);
      auto filled = linalg::FillOp::create(b, fill.getLoc(), fill.getInputs(),
                                           ValueRange{slice.getResult()});
      slice.getResult().replaceAllUsesExcept(filled.getResult(0), filled);
    }
    init.set(fill.getOutputs()[0]);
    fill->erase();
  }
}

struct CpuParallelize : hodu::cpu::impl::CpuParallelizeBase<CpuParallelize> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The ops of this pass: on tensors, not AMX tiles, not in a parallel
    // loop already, and with work worth a thread team.
    auto worth = [&](linalg::LinalgOp op) {
      return op.hasPureTensorSemantics() &&
             !op->hasAttr(hodu::cpu::kAmxTiles) &&
             !op->getParentOfType<scf::ForallOp>() &&
             hodu::cpu::worthThreads(work(op, op.getStaticLoopRanges()),
                                     minWork);
    };
    // Reductions worth threads: siblings of one input merged, then those
    // with nothing parallel (a whole tensor's min and max) split into a
    // first stage parallel over a reduced dim and a small combining one.
    hodu::cpu::fuseSiblingReductions(module, worth);
    SmallVector<linalg::GenericOp> whole;
    module.walk([&](linalg::GenericOp op) {
      if (op.getNumReductionLoops() > 0 && worth(op))
        whole.push_back(op);
    });
    for (linalg::GenericOp op : whole)
      hodu::cpu::splitForThreads(op, chunks);

    llvm::DenseSet<Operation *> before;
    module.walk([&](scf::ForallOp loop) { before.insert(loop); });
    hodu::cpu::TransformScript script(module);
    module.walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp, linalg::CopyOp>(op.getOperation()) ||
          op->getNumResults() == 0 || !worth(op))
        return;
      auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!type || !type.hasStaticShape())
        return;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      auto iterators = op.getIteratorTypesArray();
      // The parallel loop that splits best over threads (WorkSplit.h), in
      // pieces that divide it where some do: the tiles then keep static
      // shapes, which hodu-cpu-vectorize-generics needs.
      SmallVector<bool> splittable;
      for (auto [it, r] : llvm::zip(iterators, ranges))
        splittable.push_back(it == utils::IteratorType::parallel &&
                             !ShapedType::isDynamic(r));
      // The vector code runs along the output's innermost dim.
      int64_t vectorLoop = int64_t(ranges.size()) - 1;
      AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
      if (out.getNumResults() > 0)
        if (auto d = dyn_cast<AffineDimExpr>(out.getResults().back()))
          vectorLoop = d.getPosition();
      int64_t dim = hodu::cpu::chooseSplitLoop(
          ranges.data(), splittable.data(), ranges.size(), vectorLoop, chunks);
      if (dim < 0)
        return;
      // The producer's split where it shares out as evenly.
      int64_t same = noProducerSplit ? -1 : producerSplitLoop(op);
      if (same >= 0 && same != dim && same != vectorLoop && splittable[same] &&
          ranges[same] >= 2 &&
          hodu::cpu::loopScore(ranges[same], chunks, 4) >=
              hodu::cpu::loopScore(ranges[dim], chunks, 4) - 1e-9)
        dim = same;
      SmallVector<int64_t> sizes(ranges.size(), 0);
      sizes[dim] = llvm::divideCeil(ranges[dim],
                                    hodu::cpu::loopPieces(ranges[dim], chunks));
      script.tileUsingForall(script.bind(op), sizes);
    });
    if (!script.empty() && failed(script.applyOrKeep(getArgument())))
      return signalPassFailure();
    // The fills that initialise the new loops' outputs (a pooling's -inf,
    // a sum's zeros) go into the loops.
    module.walk([&](scf::ForallOp loop) {
      if (!before.contains(loop))
        fuseFills(loop);
    });
  }
};
} // namespace
