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

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUKERNELLOOPHINTS
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {

/// Whether `loop` is a register kernel's k loop: vector accumulators
/// carried, fused multiply-adds in its own body, no loop inside.
bool isKernelLoop(scf::ForOp loop) {
  if (!llvm::any_of(loop.getInitArgs().getTypes(), llvm::IsaPred<VectorType>))
    return false;
  bool fma = false;
  for (Operation &op : *loop.getBody()) {
    if (op.getNumRegions() != 0)
      return false;
    fma |= isa<vector::FMAOp>(op);
  }
  return fma;
}

struct CpuKernelLoopHints
    : hodu::cpu::impl::CpuKernelLoopHintsBase<CpuKernelLoopHints> {
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
      if (isKernelLoop(loop))
        loop->setAttr("loop_annotation", noUnroll);
    });
  }
};
} // namespace
