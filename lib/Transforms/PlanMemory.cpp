//===- PlanMemory.cpp - one arena per function, bytes reused by liveness --===//
//
// After bufferization every intermediate buffer is its own memref.alloc and
// memref.dealloc, and buffer-deallocation-pipeline frees them all at the end
// of the function, so every intermediate of a model is live at once. This
// pass gives the statically shaped ones offsets in one arena, with buffers
// that are never live at the same time sharing bytes.
//
// Upstream MLIR hoists, promotes and frees buffers but does not pack them
// (there is no buffer-reuse pass), hence the hand-written planner. It works
// on the top-level block only, where the op order is the execution order, so
// a live range is an interval of op positions and no dataflow analysis is
// needed.
//
//===----------------------------------------------------------------------===//

#include "hodu/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include "llvm/Support/MathExtras.h"

namespace hodu {
#define GEN_PASS_DEF_PLANMEMORY
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;

namespace {

/// One buffer the planner places.
struct Buffer {
  memref::AllocOp alloc;
  SmallVector<memref::DeallocOp> deallocs;
  int64_t bytes = 0;
  int64_t align = 1;
  /// Positions in the body of the alloc and of the last op that touches the
  /// buffer (or one of its views).
  int64_t start = 0, end = 0;
  int64_t offset = 0;
};

/// The byte size of one element as the LLVM lowering lays memrefs out, for
/// the element types whose size is not in doubt: i1 (one byte), integers and
/// floats of 8, 16, 32 and 64 bits, and index (from the data layout).
std::optional<int64_t> elementBytes(Type type, const DataLayout &layout) {
  unsigned width;
  if (auto i = dyn_cast<IntegerType>(type))
    width = i.getWidth();
  else if (auto f = dyn_cast<FloatType>(type))
    width = f.getWidth();
  else if (isa<IndexType>(type))
    return layout.getTypeSize(type).getFixedValue();
  else
    return std::nullopt;
  if (width == 1)
    return 1;
  if (width < 8 || width > 64 || !llvm::isPowerOf2_32(width))
    return std::nullopt;
  return width / 8;
}

/// Ops whose result is the same memory seen through another type; the
/// buffer is their operand 0.
bool isView(Operation *op) {
  return isa<memref::SubViewOp, memref::ReinterpretCastOp,
             memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp,
             memref::ViewOp, memref::TransposeOp>(op);
}

/// Whether `use` only reads or writes the memory it refers to, without
/// letting the reference itself go anywhere.
bool isAccess(OpOperand &use) {
  Operation *op = use.getOwner();
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return &use == &store.getMemrefMutable();
  // A kernel launch reads and writes its buffer arguments while it runs;
  // the kernel cannot keep a reference past its end.
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
    return use.getOperandNumber() >=
           launch.getKernelOperands().getBeginOperandIndex();
  // In these ops a memref operand can only be the memory accessed (the other
  // operands are values, vectors, masks and indices).
  return isa<memref::LoadOp, memref::CopyOp, memref::DimOp, memref::PrefetchOp,
             linalg::LinalgOp, vector::TransferReadOp, vector::TransferWriteOp,
             vector::LoadOp, vector::StoreOp, vector::MaskedLoadOp,
             vector::MaskedStoreOp, vector::GatherOp, vector::ScatterOp,
             vector::ExpandLoadOp, vector::CompressStoreOp>(op);
}

/// Fills in the deallocs and live range of `buffer` from the uses of its
/// alloc and of every view of it; fails on a use that could let the buffer
/// escape or free it elsewhere.
LogicalResult analyzeUses(Buffer &buffer, Block &body,
                          const DenseMap<Operation *, int64_t> &position,
                          bool beforeDeallocation) {
  Value root = buffer.alloc.getResult();
  SmallVector<Value> worklist = {root};
  buffer.end = buffer.start;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        if (value != root || user->getBlock() != &body)
          return failure();
        buffer.deallocs.push_back(dealloc);
        continue;
      }
      // The alloc dominates its uses, so every user is in the body or
      // nested in one of its ops; the enclosing op's position stands for
      // a use in a loop or parallel region.
      Operation *top = body.findAncestorOpInBlock(*user);
      if (!top)
        return failure();
      buffer.end = std::max(buffer.end, position.lookup(top));
      if (isView(user) && use.getOperandNumber() == 0) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      // A branch of an scf.if that yields the buffer (or a view): the if's
      // result is one more name for it (the CPU's int8 kernels choose AMX
      // tiles or VNNI at run time, both writing one buffer).
      if (auto yield = dyn_cast<scf::YieldOp>(user))
        if (auto branch = dyn_cast<scf::IfOp>(yield->getParentOp())) {
          worklist.push_back(branch->getResult(use.getOperandNumber()));
          continue;
        }
      if (!isAccess(use))
        return failure();
    }
  }
  // Before deallocation no buffer has a dealloc, and every use was checked
  // above; after it, an alloc nobody frees belongs to someone we cannot see.
  if (beforeDeallocation)
    return success(buffer.deallocs.empty());
  return success(!buffer.deallocs.empty());
}

/// Greedy offsets, largest buffer first: each goes to the lowest offset
/// (a multiple of its alignment) that overlaps no already placed buffer
/// live at the same time. Returns the arena size.
int64_t assignOffsets(MutableArrayRef<Buffer> buffers) {
  SmallVector<Buffer *> order;
  for (Buffer &b : buffers)
    order.push_back(&b);
  // Allocs have distinct positions, so the order is total.
  llvm::sort(order, [](const Buffer *a, const Buffer *b) {
    return std::make_pair(-a->bytes, a->start) <
           std::make_pair(-b->bytes, b->start);
  });
  SmallVector<Buffer *> placed;
  int64_t arena = 0;
  for (Buffer *b : order) {
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (Buffer *p : placed)
      if (p->start <= b->end && b->start <= p->end)
        busy.push_back({p->offset, p->offset + p->bytes});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [lo, hi] : busy) {
      if (offset + b->bytes <= lo)
        break;
      offset =
          std::max(offset, static_cast<int64_t>(llvm::alignTo(hi, b->align)));
    }
    b->offset = offset;
    arena = std::max(arena, offset + b->bytes);
    placed.push_back(b);
  }
  return arena;
}

/// The most bytes live at once: no arena can be smaller.
int64_t largestLiveSet(ArrayRef<Buffer> buffers) {
  int64_t largest = 0;
  // Live sets only grow at an alloc, so checking those positions suffices.
  for (const Buffer &at : buffers) {
    int64_t live = 0;
    for (const Buffer &b : buffers)
      if (b.start <= at.start && at.start <= b.end)
        live += b.bytes;
    largest = std::max(largest, live);
  }
  return largest;
}

struct PlanMemory : hodu::impl::PlanMemoryBase<PlanMemory> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (alignment < 1 || !llvm::isPowerOf2_64(alignment)) {
      func.emitError("hodu-plan-memory: alignment must be a power of two, got ")
          << alignment;
      return signalPassFailure();
    }
    // One block, so that op order is execution order and there is one
    // return to free the arena before.
    if (!func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();

    DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(body))
      position[&op] = i;

    DataLayout layout = DataLayout::closest(func);
    SmallVector<Buffer> buffers;
    for (auto alloc : body.getOps<memref::AllocOp>()) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          type.getMemorySpace() || !alloc.getSymbolOperands().empty())
        continue;
      std::optional<int64_t> elem = elementBytes(type.getElementType(), layout);
      if (!elem || type.getNumElements() == 0)
        continue;
      Buffer buffer;
      buffer.alloc = alloc;
      buffer.bytes = *elem * type.getNumElements();
      buffer.align =
          std::max<int64_t>(alignment, alloc.getAlignment().value_or(1));
      if (!llvm::isPowerOf2_64(buffer.align))
        continue;
      buffer.start = position.lookup(alloc);
      if (succeeded(analyzeUses(buffer, body, position, beforeDeallocation)))
        buffers.push_back(std::move(buffer));
    }
    if (buffers.empty() || static_cast<int64_t>(buffers.size()) < minBuffers)
      return;

    int64_t arenaSize = assignOffsets(buffers);
    int64_t arenaAlign = alignment;
    int64_t bufferSum = 0;
    for (const Buffer &b : buffers) {
      arenaAlign = std::max(arenaAlign, b.align);
      bufferSum += b.bytes;
    }

    // Rewrite: the arena is allocated first thing and freed before the
    // return; each buffer becomes a view at its offset, where its alloc was.
    MLIRContext *ctx = &getContext();
    OpBuilder builder(ctx);
    builder.setInsertionPointToStart(&body);
    Location loc = func.getLoc();
    auto arenaType = MemRefType::get({arenaSize}, IntegerType::get(ctx, 8));
    auto arenaAlloc = memref::AllocOp::create(
        builder, loc, arenaType, builder.getI64IntegerAttr(arenaAlign));
    // Marked so that the driver can take it from the caller instead (the
    // run's workspace, abi.h) for the entry point.
    arenaAlloc->setAttr("hodu.arena", builder.getUnitAttr());
    Value arena = arenaAlloc;
    for (Buffer &b : buffers) {
      for (memref::DeallocOp dealloc : b.deallocs)
        dealloc.erase();
      builder.setInsertionPoint(b.alloc);
      Value offset =
          arith::ConstantIndexOp::create(builder, b.alloc.getLoc(), b.offset);
      Value view =
          memref::ViewOp::create(builder, b.alloc.getLoc(), b.alloc.getType(),
                                 arena, offset, ValueRange());
      b.alloc.replaceAllUsesWith(view);
      b.alloc.erase();
    }
    if (!beforeDeallocation) {
      builder.setInsertionPoint(body.getTerminator());
      memref::DeallocOp::create(builder, loc, arena);
    }

    numBuffers += buffers.size();
    bufferBytes += bufferSum;
    arenaBytes += arenaSize;
    auto i64 = [&](int64_t v) { return builder.getI64IntegerAttr(v); };
    func->setAttr(
        "hodu.memory_plan",
        builder.getDictionaryAttr({
            builder.getNamedAttr("buffers", i64(buffers.size())),
            builder.getNamedAttr("buffer_bytes", i64(bufferSum)),
            builder.getNamedAttr("arena_bytes", i64(arenaSize)),
            builder.getNamedAttr("live_bytes", i64(largestLiveSet(buffers))),
        }));
  }
};

} // namespace
