//===- HoistParallelAllocs.cpp - scratch of parallel iterations, hoisted --===//
//
// See hodu-cpu-hoist-parallel-allocs in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "ConvToMatmul.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUHOISTPARALLELALLOCS
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {
/// Alignment of each iteration's part.
constexpr int64_t kAlign = 64;

/// Whether the buffer `v` (or a view of it) may outlive the iteration, or
/// is freed explicitly: it reaches a terminator (a yield or a return), a
/// call or a dealloc (the pass runs before buffer deallocation adds any).
bool escapes(Value v) {
  for (Operation *user : v.getUsers()) {
    if (user->hasTrait<OpTrait::IsTerminator>() ||
        isa<CallOpInterface, memref::DeallocOp>(user))
      return true;
    if (auto view = dyn_cast<ViewLikeOpInterface>(user))
      if (view.getViewSource() == v &&
          llvm::any_of(user->getResults(), escapes))
        return true;
  }
  return false;
}

/// The iterations of `loop` along each of its dims, if its bounds are
/// static, and their product (none if it overflows).
struct TripCounts {
  SmallVector<int64_t> dims;
  int64_t total = 1;
};
std::optional<TripCounts> tripCounts(scf::ForallOp loop) {
  TripCounts t;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getStaticLowerBound(), loop.getStaticUpperBound(),
                 loop.getStaticStep())) {
    if (ShapedType::isDynamic(lb) || ShapedType::isDynamic(ub) ||
        ShapedType::isDynamic(step) || step <= 0 || ub < lb)
      return std::nullopt;
    t.dims.push_back(llvm::divideCeil(ub - lb, step));
    if (llvm::MulOverflow(t.total, t.dims.back(), t.total))
      return std::nullopt;
  }
  return t;
}

/// The linear index of the current iteration of `loop` (whose trip counts
/// are `counts`), built at the start of its body.
Value linearIndex(scf::ForallOp loop, ArrayRef<int64_t> counts) {
  OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
  Location loc = loop.getLoc();
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [iv, lb, step, count] :
       llvm::zip(loop.getInductionVars(), loop.getStaticLowerBound(),
                 loop.getStaticStep(), counts)) {
    Value i = arith::SubIOp::create(b, loc, iv,
                                    arith::ConstantIndexOp::create(b, loc, lb));
    if (step != 1)
      i = arith::DivUIOp::create(b, loc, i,
                                 arith::ConstantIndexOp::create(b, loc, step));
    linear = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, linear,
                              arith::ConstantIndexOp::create(b, loc, count)),
        i);
  }
  return linear;
}

/// `loop`'s iterations regrouped as `slots` parallel iterations, each
/// running a run of consecutive ones in order (an scf.for over the linear
/// index, delinearized into the old induction variables): the scratch of
/// one slot then serves its iterations one after another. Returns the new
/// loop.
scf::ForallOp intoSlots(scf::ForallOp loop, const TripCounts &count,
                        int64_t slots) {
  int64_t chunk = llvm::divideCeil(count.total, slots);
  slots = llvm::divideCeil(count.total, chunk);
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto outer = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(slots)}, ValueRange{},
      loop.getMapping());
  outer->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  b.setInsertionPointToStart(outer.getBody());
  Value slot = outer.getInductionVar(0);
  Value lo = arith::MulIOp::create(
      b, loc, slot, arith::ConstantIndexOp::create(b, loc, chunk));
  Value hi = arith::MinSIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, lo,
                            arith::ConstantIndexOp::create(b, loc, chunk)),
      arith::ConstantIndexOp::create(b, loc, count.total));
  auto inner = scf::ForOp::create(b, loc, lo, hi,
                                  arith::ConstantIndexOp::create(b, loc, 1));
  b.setInsertionPointToStart(inner.getBody());
  ValueRange ivs = affine::AffineDelinearizeIndexOp::create(
                       b, loc, inner.getInductionVar(), count.dims)
                       .getResults();
  Block *body = loop.getBody();
  for (auto [old, i, lb, step] :
       llvm::zip(loop.getInductionVars(), ivs, loop.getStaticLowerBound(),
                 loop.getStaticStep())) {
    Value iv = i;
    if (step != 1)
      iv = arith::MulIOp::create(b, loc, iv,
                                 arith::ConstantIndexOp::create(b, loc, step));
    if (lb != 0)
      iv = arith::AddIOp::create(b, loc, iv,
                                 arith::ConstantIndexOp::create(b, loc, lb));
    old.replaceAllUsesWith(iv);
  }
  inner.getBody()->getOperations().splice(
      Block::iterator(inner.getBody()->getTerminator()), body->getOperations(),
      body->begin(), Block::iterator(body->getTerminator()));
  loop.erase();
  return outer;
}

struct CpuHoistParallelAllocs
    : hodu::cpu::impl::CpuHoistParallelAllocsBase<CpuHoistParallelAllocs> {
  using Base::Base;

  /// The body of `loop`, but its terminator, in a memref.alloca_scope (once
  /// per loop: `scoped` holds the loops of this run done so far): the
  /// stack an iteration takes is given back at its end, whatever later
  /// passes make of the loop.
  static void scopeBody(scf::ForallOp loop,
                        llvm::SmallPtrSetImpl<Operation *> &scoped) {
    if (!scoped.insert(loop).second)
      return;
    Block *body = loop.getBody();
    Operation *terminator = body->getTerminator();
    OpBuilder b(terminator);
    auto scope = memref::AllocaScopeOp::create(b, loop.getLoc(), TypeRange{});
    Block *inner = new Block();
    scope.getBodyRegion().push_back(inner);
    inner->getOperations().splice(inner->end(), body->getOperations(),
                                  body->begin(), Block::iterator(scope));
    OpBuilder end = OpBuilder::atBlockEnd(inner);
    memref::AllocaScopeReturnOp::create(end, loop.getLoc());
  }

  /// `alloc` (in `loop`'s body) on the stack of the iteration.
  static void toStack(scf::ForallOp loop, memref::AllocOp alloc,
                      llvm::SmallPtrSetImpl<Operation *> &scoped) {
    scopeBody(loop, scoped);
    OpBuilder b(alloc);
    auto alloca = memref::AllocaOp::create(b, alloc.getLoc(), alloc.getType(),
                                           alloc.getAlignmentAttr());
    alloc.getResult().replaceAllUsesWith(alloca.getResult());
    alloc.erase();
  }

  void runOnOperation() override {
    // Each alloc with its loop (moving an alloc into a scope of the loop's
    // body changes its parent).
    SmallVector<std::pair<memref::AllocOp, scf::ForallOp>> allocs;
    getOperation().walk([&](memref::AllocOp alloc) {
      auto loop = dyn_cast<scf::ForallOp>(alloc->getParentOp());
      MemRefType type = alloc.getType();
      if (loop && type.hasStaticShape() && type.getLayout().isIdentity() &&
          !type.getMemorySpace() && type.getElementType().isIntOrFloat() &&
          alloc.getDynamicSizes().empty() &&
          alloc.getSymbolOperands().empty() && !escapes(alloc.getResult()))
        allocs.push_back({alloc, loop});
    });
    // Each loop's linear iteration index, built once for all its allocs;
    // the loops whose body is already in a scope.
    llvm::DenseMap<Operation *, Value> linear;
    llvm::SmallPtrSet<Operation *, 4> scoped;
    auto bytesOf = [](MemRefType type) -> int64_t {
      int64_t bits = type.getElementTypeBitWidth();
      if (bits % 8 != 0)
        return -1;
      return llvm::alignTo(type.getNumElements() * (bits / 8), kAlign);
    };
    // The scratch of one iteration of each loop, all its allocations.
    llvm::DenseMap<Operation *, int64_t> perIteration;
    for (auto [alloc, loop] : allocs)
      perIteration[loop] += std::max<int64_t>(bytesOf(alloc.getType()), 0);
    // Scratch too large for the stack, of a loop with too many iterations
    // for a part each (an attention tile's blocks of a long sequence): the
    // iterations are regrouped into max-iterations slots, each running its
    // share in order, and each slot gets a part; the scratch joins the
    // workspace instead of a malloc and free per iteration (past glibc's
    // trim threshold, each one moved the heap's end: page faults on every
    // iteration).
    llvm::DenseMap<Operation *, SmallVector<memref::AllocOp>> byLoop;
    for (auto [alloc, loop] : allocs)
      byLoop[loop].push_back(alloc);
    llvm::SmallPtrSet<Operation *, 4> slotted;
    for (auto &[op, loopAllocs] : byLoop) {
      auto loop = cast<scf::ForallOp>(op);
      int64_t bytes = perIteration[loop];
      std::optional<TripCounts> count = tripCounts(loop);
      if (bytes <= maxStackBytes || !count || count->total < 1 ||
          (count->total <= maxIterations && bytes <= maxBytes / count->total) ||
          llvm::any_of(loopAllocs, [&](memref::AllocOp a) {
            return bytesOf(a.getType()) < 0;
          }))
        continue;
      int64_t slots = std::min<int64_t>(maxIterations, maxBytes / bytes);
      if (slots < 2)
        continue;
      slotted.insert(loop);
      scf::ForallOp outer = intoSlots(loop, *count, slots);
      int64_t parts = outer.getStaticUpperBound()[0];
      OpBuilder b(outer);
      Location loc = outer.getLoc();
      auto allType = MemRefType::get({parts * bytes}, b.getI8Type());
      Value all =
          memref::AllocOp::create(b, loc, allType, b.getI64IntegerAttr(kAlign));
      b.setInsertionPointToStart(outer.getBody());
      Value base =
          arith::MulIOp::create(b, loc, outer.getInductionVar(0),
                                arith::ConstantIndexOp::create(b, loc, bytes));
      int64_t offset = 0;
      for (memref::AllocOp alloc : loopAllocs) {
        OpBuilder at(alloc);
        Value where = arith::AddIOp::create(
            at, alloc.getLoc(), base,
            arith::ConstantIndexOp::create(at, alloc.getLoc(), offset));
        Value view = memref::ViewOp::create(at, alloc.getLoc(), alloc.getType(),
                                            all, where, ValueRange{});
        alloc.getResult().replaceAllUsesWith(view);
        offset += bytesOf(alloc.getType());
        alloc.erase();
      }
    }
    llvm::erase_if(allocs, [&](auto &entry) {
      return slotted.contains(entry.second.getOperation());
    });
    // The stack each loop's iteration takes so far: at most max-stack-bytes
    // in all (the least stack a thread that runs iterations has; see
    // docs/runtime.md).
    llvm::DenseMap<Operation *, int64_t> onStack;
    for (auto [alloc, loop] : allocs) {
      MemRefType type = alloc.getType();
      int64_t bytes = bytesOf(type);
      if (bytes < 0)
        continue;
      // Scratch that fits the stack goes there whatever the iteration
      // count: the iterations a thread runs then reuse one block while it
      // is in its cache, where hoisted parts would each be new memory (an
      // attention tile's scores, rows x keys per iteration, would add up
      // to the whole scores again).
      if (perIteration[loop] <= maxStackBytes) {
        toStack(loop, alloc, scoped);
        onStack[loop] += bytes;
        continue;
      }
      // All iterations' parts are live for the whole run of the loop (where
      // malloc held one per thread at a time): bounded.
      std::optional<TripCounts> count = tripCounts(loop);
      if (!count || count->total < 1 || count->total > maxIterations ||
          bytes > maxBytes / count->total) {
        // Too many iterations (or bytes) for a part each: small scratch
        // goes on the iterating thread's stack instead of a malloc and
        // free per iteration (the im2col panel of a first convolution:
        // 1.7 KB, 3,136 times a run), while the iteration's stack stays
        // within max-stack-bytes; the rest stays a malloc.
        if (onStack[loop] + bytes <= maxStackBytes) {
          toStack(loop, alloc, scoped);
          onStack[loop] += bytes;
        }
        continue;
      }
      Location loc = alloc.getLoc();
      OpBuilder b(loop);
      auto allType = MemRefType::get({count->total * bytes}, b.getI8Type());
      Value all = memref::AllocOp::create(
          b, loc, allType,
          b.getI64IntegerAttr(
              std::max<int64_t>(kAlign, alloc.getAlignment().value_or(0))));
      Value &index = linear[loop];
      if (!index)
        index = linearIndex(loop, count->dims);
      b.setInsertionPoint(alloc);
      Value offset = arith::MulIOp::create(
          b, loc, index, arith::ConstantIndexOp::create(b, loc, bytes));
      Value view =
          memref::ViewOp::create(b, loc, type, all, offset, ValueRange{});
      alloc.getResult().replaceAllUsesWith(view);
      alloc.erase();
    }
    // The sequential batch loops of split convolutions (ConvToMatmul.h):
    // an iteration's scratch is dead when the next one starts, so one
    // allocation before the loop serves them all (the forall scratch above
    // now sits in their body).
    SmallVector<memref::AllocOp> batchScratch;
    getOperation().walk([&](memref::AllocOp alloc) {
      auto loop = dyn_cast<scf::ForOp>(alloc->getParentOp());
      MemRefType type = alloc.getType();
      if (loop && loop->hasAttr(hodu::cpu::kBatchLoop) && type.hasStaticShape() &&
          alloc.getDynamicSizes().empty() &&
          alloc.getSymbolOperands().empty() && !escapes(alloc.getResult()))
        batchScratch.push_back(alloc);
    });
    for (memref::AllocOp alloc : batchScratch)
      alloc->moveBefore(alloc->getParentOp());
  }
};
} // namespace
