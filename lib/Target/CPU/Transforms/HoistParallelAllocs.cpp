//===- HoistParallelAllocs.cpp - scratch of parallel iterations, hoisted --===//
//
// See hodu-cpu-hoist-parallel-allocs in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

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

/// The iterations of `loop`, if its bounds are static.
std::optional<int64_t> tripCount(scf::ForallOp loop) {
  int64_t count = 1;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getStaticLowerBound(), loop.getStaticUpperBound(),
                 loop.getStaticStep())) {
    if (ShapedType::isDynamic(lb) || ShapedType::isDynamic(ub) ||
        ShapedType::isDynamic(step) || step <= 0 || ub < lb)
      return std::nullopt;
    count *= llvm::divideCeil(ub - lb, step);
  }
  return count;
}

struct CpuHoistParallelAllocs
    : hodu::cpu::impl::CpuHoistParallelAllocsBase<CpuHoistParallelAllocs> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    getOperation().walk([&](memref::AllocOp alloc) {
      auto loop = dyn_cast<scf::ForallOp>(alloc->getParentOp());
      MemRefType type = alloc.getType();
      if (loop && type.hasStaticShape() && type.getLayout().isIdentity() &&
          !type.getMemorySpace() && type.getElementType().isIntOrFloat() &&
          alloc.getDynamicSizes().empty() &&
          alloc.getSymbolOperands().empty() && !escapes(alloc.getResult()))
        allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) {
      auto loop = cast<scf::ForallOp>(alloc->getParentOp());
      std::optional<int64_t> count = tripCount(loop);
      if (!count || *count < 1 || *count > maxIterations)
        continue;
      MemRefType type = alloc.getType();
      int64_t bits = type.getElementTypeBitWidth();
      if (bits % 8 != 0)
        continue;
      int64_t bytes = llvm::alignTo(type.getNumElements() * (bits / 8), kAlign);
      // All iterations' parts are live for the whole run of the loop (where
      // malloc held one per thread at a time): bounded.
      if (bytes > maxBytes / *count)
        continue;
      Location loc = alloc.getLoc();
      OpBuilder b(loop);
      Type i8 = b.getI8Type();
      auto allType = MemRefType::get({*count * bytes}, i8);
      Value all = memref::AllocOp::create(
          b, loc, allType,
          b.getI64IntegerAttr(
              std::max<int64_t>(kAlign, alloc.getAlignment().value_or(0))));
      // The iteration's linear index.
      b.setInsertionPoint(alloc);
      Value linear = arith::ConstantIndexOp::create(b, loc, 0);
      for (auto [iv, lb, ub, step] :
           llvm::zip(loop.getInductionVars(), loop.getStaticLowerBound(),
                     loop.getStaticUpperBound(), loop.getStaticStep())) {
        Value i = arith::SubIOp::create(
            b, loc, iv, arith::ConstantIndexOp::create(b, loc, lb));
        if (step != 1)
          i = arith::DivUIOp::create(
              b, loc, i, arith::ConstantIndexOp::create(b, loc, step));
        linear = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, linear,
                                  arith::ConstantIndexOp::create(
                                      b, loc, llvm::divideCeil(ub - lb, step))),
            i);
      }
      Value offset = arith::MulIOp::create(
          b, loc, linear, arith::ConstantIndexOp::create(b, loc, bytes));
      Value view =
          memref::ViewOp::create(b, loc, type, all, offset, ValueRange{});
      alloc.getResult().replaceAllUsesWith(view);
      alloc.erase();
    }
  }
};
} // namespace
