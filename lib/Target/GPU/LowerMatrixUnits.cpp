//===- LowerMatrixUnits.cpp - matrix-unit contractions to kernel bodies ---===//
//
// lowerTensorCoreContractions, which hodu-gpu-map-to-launches calls after
// bufferisation: it replaces each block's contraction that hodu-gpu-tile
// planned for the matrix units (`hodu.gpu.mma`), with its fused epilogue
// and gather, by the kernel body of its vendor (TensorCoreKernel.cpp for
// NVIDIA's mma.sync and wgmma, MatrixCores.cpp for AMD's MFMA), in the
// grouped block order.
//
//===----------------------------------------------------------------------===//

#include "MatrixKernel.h"
#include "Strategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace hodu::gpu {

/// Whether `a` and `b` are the same region of one buffer.
static bool sameView(Value a, Value b) {
  if (a == b)
    return true;
  auto va = a.getDefiningOp<memref::SubViewOp>();
  auto vb = b.getDefiningOp<memref::SubViewOp>();
  return va && vb && va.getSource() == vb.getSource() &&
         va.getMixedOffsets() == vb.getMixedOffsets() &&
         va.getMixedSizes() == vb.getMixedSizes() &&
         va.getMixedStrides() == vb.getMixedStrides();
}

/// The epilogue hodu-gpu-tile fused into the tensor-core contraction `op`'s
/// block: the next linalg op there, elementwise, computing in place on the
/// contraction's output tile. The ops between the two (the views of the
/// epilogue's other inputs) must be free of memory effects, so that the
/// lowering can move them above the contraction.
static linalg::LinalgOp epilogueOf(linalg::LinalgOp op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(next);
    if (!linalgOp) {
      if (next->getNumRegions() != 0 || !isMemoryEffectFree(next))
        return nullptr;
      continue;
    }
    if (linalgOp.getNumDpsInits() == 1 &&
        linalgOp.getNumReductionLoops() == 0 &&
        linalgOp.hasPureBufferSemantics() &&
        sameView(linalgOp.getDpsInits()[0], op.getDpsInits()[0]) &&
        epilogueOnRegisters(linalgOp))
      return linalgOp;
    return nullptr;
  }
  return nullptr;
}

/// The gather hodu-gpu-tile fused into the tensor-core contraction `op`'s
/// block (kMmaGather) to compute its B: the op of the block that writes
/// the buffer B is, or null.
static linalg::LinalgOp gatherOf(linalg::LinalgOp op, const MmaPlan &plan) {
  Value y = op.getDpsInputs()[1 - plan.x];
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(prev);
    if (linalgOp && linalgOp->hasAttr(kMmaGather) &&
        linalgOp.hasPureBufferSemantics() && linalgOp.getNumDpsInits() == 1 &&
        linalgOp.getDpsInits()[0] == y)
      return linalgOp;
  }
  return nullptr;
}

/// Erases `buffer` if it is an allocation that nothing but its
/// deallocation uses.
static void eraseUnusedBuffer(Value buffer) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || !llvm::all_of(alloc->getUsers(), [](Operation *user) {
        return isa<memref::DeallocOp>(user);
      }))
    return;
  for (Operation *user : llvm::to_vector(alloc->getUsers()))
    user->erase();
  alloc->erase();
}

/// Blocks in groups of kGroupRows rows of tiles, column by column within a
/// group (Triton's grouped order): the blocks that run at once read a few
/// rows of A and a few columns of B, which stay in L2, rather than one row
/// of A and every column of B.
constexpr int64_t kGroupRows = 8;

/// Renumbers the tiles of block loop `block` (x over the output's columns
/// of tiles, y over its rows) into the grouped order, where there are more
/// rows of tiles than a group: block (x, y), the pid-th launched
/// (pid = y * nx + x), computes tile (m, n) with
///   group = pid / (G * nx), first = group * G, size = min(ny - first, G),
///   m = first + (pid % (G * nx)) % size, n = (pid % (G * nx)) / size,
/// a bijection of the grid's tiles.
static void groupBlocks(scf::ForallOp block) {
  std::optional<ArrayAttr> mapping = block.getMapping();
  if (!mapping)
    return;
  int64_t xPos = -1, yPos = -1;
  for (auto [i, attr] : llvm::enumerate(*mapping)) {
    auto m = dyn_cast<mlir::gpu::GPUBlockMappingAttr>(attr);
    if (m && m.getBlock() == mlir::gpu::MappingId::DimX)
      xPos = i;
    if (m && m.getBlock() == mlir::gpu::MappingId::DimY)
      yPos = i;
  }
  SmallVector<int64_t> trips(block.getStaticUpperBound());
  if (xPos < 0 || yPos < 0 || ShapedType::isDynamic(trips[xPos]) ||
      ShapedType::isDynamic(trips[yPos]))
    return;
  int64_t nx = trips[xPos], ny = trips[yPos];
  if (ny <= kGroupRows || nx < 2)
    return;
  Value x = block.getInductionVar(xPos), y = block.getInductionVar(yPos);
  OpBuilder b = OpBuilder::atBlockBegin(block.getBody());
  Location loc = block.getLoc();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto row = arith::MulIOp::create(b, loc, y, c(nx));
  auto pid = arith::AddIOp::create(b, loc, row, x);
  Value perGroup = c(kGroupRows * nx);
  Value first = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, pid, perGroup), c(kGroupRows));
  Value size = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, c(ny), first), c(kGroupRows));
  Value r = arith::RemUIOp::create(b, loc, pid, perGroup);
  Value m = arith::AddIOp::create(b, loc, first,
                                  arith::RemUIOp::create(b, loc, r, size));
  Value n = arith::DivUIOp::create(b, loc, r, size);
  x.replaceAllUsesExcept(n, pid);
  y.replaceAllUsesExcept(m, row);
}

LogicalResult lowerTensorCoreContractions(scf::ForallOp block) {
  SmallVector<linalg::LinalgOp> ops;
  block.walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kTensorCore))
      ops.push_back(op);
  });
  if (!ops.empty())
    groupBlocks(block);
  for (linalg::LinalgOp op : ops) {
    std::optional<MmaPlan> plan =
        MmaPlan::fromAttr(op->getAttrOfType<DictionaryAttr>(kTensorCore));
    if (!plan || !op.hasPureBufferSemantics())
      return op->emitError("malformed tensor-core contraction");
    // The block's threads (128, or 256 on AMD) as one thread loop, which
    // upstream's mapping turns into the block's x dimension.
    // The fused kernel replaces the contraction and its epilogue at the
    // contraction's place, so what the epilogue reads (a view made between
    // the two) moves above it.
    linalg::LinalgOp epilogue = epilogueOf(op);
    // A gather's tile is a temporary of the block (a buffer made inside
    // it), which nothing but the gather writes: without the gather, the
    // kernel would read it unwritten. B made outside the block is another
    // kernel's output, read as it is.
    linalg::LinalgOp gather = gatherOf(op, *plan);
    Operation *bDef = op.getDpsInputs()[1 - plan->x].getDefiningOp();
    if (!gather && isa_and_nonnull<memref::AllocOp>(bDef) &&
        block->isProperAncestor(bDef))
      return op->emitError("tensor-core contraction reads a temporary of "
                           "its block that no gather computes");
    if (epilogue)
      for (Operation *between = op->getNextNode(); between != epilogue;) {
        Operation *next = between->getNextNode();
        between->moveBefore(op);
        between = next;
      }
    OpBuilder b(op);
    MLIRContext *ctx = op.getContext();
    auto forall = scf::ForallOp::create(
        b, op.getLoc(),
        ArrayRef<OpFoldResult>{b.getIndexAttr(blockThreadsOf(*plan))},
        ValueRange{},
        b.getArrayAttr(mlir::gpu::GPUThreadMappingAttr::get(
            ctx, mlir::gpu::MappingId::DimX)),
        [](OpBuilder &nested, Location l, ValueRange) {
          scf::InParallelOp::create(nested, l);
        });
    b.setInsertionPoint(forall.getBody()->getTerminator());
    Value tid = forall.getInductionVar(0);
    if (failed((plan->amd ? emitMfmaKernel : emitTensorCoreKernel)(
            b, op.getLoc(), *plan, op, epilogue, gather, tid)))
      return failure();
    op->erase();
    if (epilogue)
      epilogue->erase();
    if (gather) {
      // Its tile, which nothing reads now, and the tile's buffer.
      Value tile = gather.getDpsInits()[0];
      gather->erase();
      eraseUnusedBuffer(tile);
    }
  }
  return success();
}

} // namespace hodu::gpu
