//===- Elementwise.cpp - a thread per output element ----------------------===//
//
// The strategy of every op that is neither a contraction nor a reduction a
// workgroup shares (elementwise chains, broadcasts, transposes, gathers,
// pooling windows, short rows): one thread per output element, reduction
// loops serial in the thread. See Strategies.h.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;

namespace hodu::gpu {

SmallVector<Attribute> mappingOf(MLIRContext *ctx, ArrayRef<int64_t> sizes,
                                 ArrayRef<int64_t> ids, bool blocks) {
  SmallVector<Attribute> m;
  for (auto [size, id] : llvm::zip(sizes, ids)) {
    if (size == 0)
      continue;
    // x, y, z are MappingId 0-2; linear dims follow (LinearDim0 = 3).
    auto mappingId = static_cast<mlir::gpu::MappingId>(id);
    m.push_back(
        blocks
            ? Attribute(mlir::gpu::GPUBlockMappingAttr::get(ctx, mappingId))
            : Attribute(mlir::gpu::GPUThreadMappingAttr::get(ctx, mappingId)));
  }
  return m;
}

SmallVector<int64_t> blockIds(ArrayRef<int64_t> ranges,
                              SmallVectorImpl<int64_t> &sizes,
                              ArrayRef<unsigned> order) {
  SmallVector<int64_t> ids(ranges.size(), 0);
  int64_t next = 0;
  for (unsigned d : order) {
    if (sizes[d] == 0)
      continue;
    // A dim of one element needs no block index (unless nothing else is
    // tiled: a forall needs one dim).
    if (ranges[d] == 1 && next > 0) {
      sizes[d] = 0;
      continue;
    }
    // Ids past z are linear dims (LinearDim0 is 3 after x, y, z): the forall
    // is linearised into z before mapping.
    ids[d] = next < 3 ? next : next + 3;
    ++next;
  }
  return ids;
}

linalg::LinalgOp fuseableProducer(linalg::LinalgOp op, const TileOptions &o) {
  if (op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || op.hasDynamicShape())
    return nullptr;
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto producer = in->get().getDefiningOp<linalg::LinalgOp>();
    if (!producer || !producer->hasOneUse() ||
        producer->getBlock() != op->getBlock() ||
        !isPerElementReduction(producer) || isWorkgroupReduction(producer, o) ||
        !op.getMatchingIndexingMap(in).isPermutation() ||
        !producer
             .getIndexingMapMatchingResult(
                 cast<OpResult>(producer->getResult(0)))
             .isProjectedPermutation())
      continue;
    return producer;
  }
  return nullptr;
}

void tilePerElement(TransformScript &s, linalg::LinalgOp op, Value handle,
                    linalg::LinalgOp init, Value initHandle,
                    const TileOptions &o, Value producerHandle,
                    Value producerInitHandle) {
  MLIRContext *ctx = op->getContext();
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  SmallVector<int64_t> blocks(r.size(), 0), threads(r.size(), 0),
      threadIds(r.size(), 0);
  // The block: up to three parallel loops from the innermost out (x, y,
  // z), whole while they fit, so that short rows still fill it.
  SmallVector<unsigned> order;
  int64_t inBlock = 1;
  for (unsigned d : llvm::reverse(parallel)) {
    if (order.size() == 3 || inBlock >= o.maxThreads)
      break;
    if (r[d] == 1 && !order.empty())
      continue;
    int64_t t = largestDivisor(r[d], o.maxThreads / inBlock);
    blocks[d] = t;
    threads[d] = 1;
    threadIds[d] = order.size();
    order.push_back(d);
    inBlock *= t;
    if (t < r[d])
      break;
  }
  // The grid: the remaining parallel loops, as long as the folded z dim
  // stays within 65535 blocks; loops outside it run in each thread.
  constexpr int64_t kMaxGridDim = 65535;
  int64_t folded = 1;
  for (unsigned d : llvm::reverse(parallel)) {
    if (blocks[d] != 0 || r[d] == 1)
      continue;
    if (order.size() >= 2 && folded * r[d] > kMaxGridDim)
      break;
    if (order.size() >= 2)
      folded *= r[d];
    blocks[d] = 1;
    order.push_back(d);
  }
  SmallVector<int64_t> ids = blockIds(r, blocks, order);
  TransformScript::Tiled b =
      s.tileUsingForall(handle, blocks, mappingOf(ctx, blocks, ids, true));
  // Each thread initialises the elements it then reduces into, and
  // computes the producer's elements it reads (their reduction loops
  // whole), initialised first: each op fused into the block, then into the
  // thread loop, a user before its initialiser.
  SmallVector<Value> fusedInBlock;
  for (Value h :
       {init ? initHandle : Value(), producerHandle, producerInitHandle})
    if (h)
      fusedInBlock.push_back(s.fuseIntoContainingOp(h, b.loops[0]).first);
  TransformScript::Tiled t = s.tileUsingForall(
      b.op, threads, mappingOf(ctx, threads, threadIds, false));
  for (Value h : fusedInBlock)
    s.fuseIntoContainingOp(h, t.loops[0]);
}

} // namespace hodu::gpu

//===----------------------------------------------------------------------===//
// Attention blocks (hodu-gpu-fuse-attention's loops)
//===----------------------------------------------------------------------===//

namespace hodu::gpu {

/// `loop` normalised (lower bounds 0, steps 1), or itself if it is.
static FailureOr<scf::ForallOp> normalized(RewriterBase &rewriter,
                                           scf::ForallOp loop) {
  if (loop.isNormalized())
    return loop;
  return mlir::normalizeForallOp(rewriter, loop);
}

LogicalResult tileAttentionBlock(RewriterBase &rewriter, scf::ForallOp loop,
                                 const TileOptions &o) {
  MLIRContext *ctx = loop.getContext();
  FailureOr<scf::ForallOp> block = normalized(rewriter, loop);
  if (failed(block))
    return loop.emitError("hodu-gpu-tile: cannot normalise the attention "
                          "loop");
  // A block per iteration: the rows' dim (the last) is x, the batch's y.
  unsigned rank = block->getRank();
  SmallVector<Attribute> blocks;
  for (unsigned i = 0; i < rank; ++i) {
    unsigned id = rank - 1 - i;
    blocks.push_back(mlir::gpu::GPUBlockMappingAttr::get(
        ctx, static_cast<mlir::gpu::MappingId>(id < 3 ? id : id + 3)));
  }
  block->setMappingAttr(ArrayAttr::get(ctx, blocks));
  // Each op of the chain: a loop of the block's threads over its two
  // innermost parallel dims (x over up to 32 threads, y over the rest of
  // the block: one block shape for every op, the largest of theirs), each
  // thread a few elements where a dim is larger; reductions serial.
  const int64_t budget[2] = {32, std::max<int64_t>(1, o.maxThreads / 32)};
  // (Also those of the key-block form's loop over keys.)
  SmallVector<linalg::LinalgOp> ops;
  block->getBody()->walk([&](linalg::LinalgOp op) { ops.push_back(op); });
  for (linalg::LinalgOp op : ops) {
    SmallVector<int64_t> r = op.getStaticLoopRanges();
    SmallVector<unsigned> parallel;
    op.getParallelDims(parallel);
    if (parallel.empty())
      return op->emitError("hodu-gpu-tile: an attention op without parallel "
                           "loops");
    SmallVector<OpFoldResult> sizes(r.size(), rewriter.getIndexAttr(0));
    SmallVector<int64_t> ids(r.size(), -1);
    int64_t next = 0;
    for (unsigned d : llvm::reverse(parallel)) {
      if (next == 2)
        break;
      int64_t t = largestDivisor(r[d], budget[next]);
      if (t == 1)
        continue;
      sizes[d] = rewriter.getIndexAttr(r[d] / t);
      ids[d] = next++;
    }
    if (next == 0) { // one thread does it all
      unsigned d = parallel.back();
      sizes[d] = rewriter.getIndexAttr(r[d]);
      ids[d] = 0;
    }
    SmallVector<Attribute> threads;
    for (int64_t id : ids)
      if (id >= 0)
        threads.push_back(mlir::gpu::GPUThreadMappingAttr::get(
            ctx, static_cast<mlir::gpu::MappingId>(id)));
    scf::SCFTilingOptions options;
    options.setTileSizes(sizes)
        .setLoopType(scf::SCFTilingOptions::LoopType::ForallOp)
        .setMapping(threads);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled) || tiled->loops.empty())
      return op->emitError("hodu-gpu-tile: cannot tile an attention op to "
                           "threads");
    rewriter.replaceOp(op, tiled->replacements);
    auto threadLoop = cast<scf::ForallOp>(tiled->loops.front().getOperation());
    if (failed(normalized(rewriter, threadLoop)))
      return op->emitError("hodu-gpu-tile: cannot normalise a thread loop");
  }
  block.value()->removeAttr(kAttentionBlock);
  return success();
}

} // namespace hodu::gpu
