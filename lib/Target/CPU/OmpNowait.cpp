//===- OmpNowait.cpp - no barrier where a parallel region ends ------------===//
//
// hodu-cpu-omp-nowait: convert-scf-to-openmp makes each parallel tile loop
// an omp.parallel holding one omp.wsloop, which ends with a barrier
// (__kmpc_barrier) before the region's own end, where the fork waits for
// every thread anyway (runtime/src/threads.c, libomp alike). A worksharing
// loop that is the last thing of its parallel region and has no reductions
// gets `nowait`: one synchronisation of the team per region instead of two.
//
//===----------------------------------------------------------------------===//

#include "CPUTarget.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {
struct OmpNowaitPass : PassWrapper<OmpNowaitPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OmpNowaitPass)

  StringRef getArgument() const override { return "hodu-cpu-omp-nowait"; }
  StringRef getDescription() const override {
    return "No barrier after a worksharing loop that ends its parallel region "
           "(the region's end waits for the team) (CPU)";
  }
  void runOnOperation() override {
    getOperation().walk([](omp::WsloopOp loop) {
      Operation *next = loop->getNextNode();
      if (loop.getNowait() || !loop.getReductionVars().empty() ||
          !isa_and_nonnull<omp::TerminatorOp>(next) ||
          !isa<omp::ParallelOp>(loop->getParentOp()))
        return;
      loop.setNowait(true);
    });
  }
};
} // namespace

void hodu::cpu::registerOmpNowaitPass() { PassRegistration<OmpNowaitPass>(); }
