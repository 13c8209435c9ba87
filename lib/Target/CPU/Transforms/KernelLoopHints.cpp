//===- KernelLoopHints.cpp - keep register-kernel k loops as they are -----===//
//
// See hodu-cpu-kernel-loop-hints in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUKERNELLOOPHINTS
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {

/// Whether `loop` is the k loop of a register kernel one vector wide:
/// vector accumulators carried, no loop inside, and in its own body at
/// least two fused multiply-adds that all multiply one B row of at most
/// `vectorBits` (by the broadcasts of A's column). Kernels of two vectors per
/// row (two B vectors, half as many broadcasts) fit the registers unrolled, and
/// ran 1% faster so (the matmul, MLP and transformer on AVX2).
bool isNarrowKernelLoop(scf::ForOp loop, int64_t vectorBits) {
  if (!llvm::any_of(loop.getInitArgs().getTypes(), llvm::IsaPred<VectorType>))
    return false;
  llvm::SmallPtrSet<Value, 4> lhs, rhs;
  int64_t fmas = 0;
  for (Operation &op : *loop.getBody()) {
    if (op.getNumRegions() != 0)
      return false;
    if (auto fma = dyn_cast<vector::FMAOp>(op)) {
      ++fmas;
      lhs.insert(fma.getLhs());
      rhs.insert(fma.getRhs());
    }
  }
  if (fmas < 2)
    return false;
  // The operand every FMA shares is B's row (not a broadcast of A, which a
  // row of several B vectors shares): one register of the target at most
  // (a 16-lane f32 row on AVX2 is a two-vector tile).
  auto isRow = [&](const llvm::SmallPtrSet<Value, 4> &operands) {
    if (operands.size() != 1)
      return false;
    Value b = *operands.begin();
    auto type = cast<VectorType>(b.getType());
    return !b.getDefiningOp<vector::BroadcastOp>() &&
           type.getNumElements() * type.getElementTypeBitWidth() <= vectorBits;
  };
  return isRow(rhs) || isRow(lhs);
}

struct CpuKernelLoopHints
    : hodu::cpu::impl::CpuKernelLoopHintsBase<CpuKernelLoopHints> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto noUnroll = LLVM::LoopAnnotationAttr::get(
        ctx, /*disableNonforced=*/nullptr, /*vectorize=*/nullptr,
        /*interleave=*/nullptr,
        LLVM::LoopUnrollAttr::get(ctx, /*disable=*/BoolAttr::get(ctx, true),
                                  /*count=*/nullptr, /*runtimeDisable=*/nullptr,
                                  /*full=*/nullptr,
                                  /*followupUnrolled=*/nullptr,
                                  /*followupRemainder=*/nullptr,
                                  /*followupAll=*/nullptr),
        /*unrollAndJam=*/nullptr, /*licm=*/nullptr, /*distribute=*/nullptr,
        /*pipeline=*/nullptr, /*peeled=*/nullptr, /*unswitch=*/nullptr,
        /*mustProgress=*/nullptr, /*isVectorized=*/nullptr,
        /*startLoc=*/nullptr, /*endLoc=*/nullptr, /*parallelAccesses=*/{});
    getOperation().walk([&](scf::ForOp loop) {
      // The name of llvm.cond_br's attribute: scf-to-cf moves the LLVM
      // dialect's attributes of a loop to its condition branch, and
      // cf-to-llvm keeps them.
      if (isNarrowKernelLoop(loop, vectorBits))
        loop->setAttr("loop_annotation", noUnroll);
    });
  }
};
} // namespace
