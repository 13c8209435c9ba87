//===- Driver.h - the driver's parts -----------------------------*- C++ -*-===//
//
// Private to lib/Driver:
//   Compiler.cpp   import, the phase loop, hand-over to the target
//   Pipelines.cpp  the shared phases' pipelines (also named pipelines)
//   Stats.cpp      --print-stats
//
//===----------------------------------------------------------------------===//
#ifndef HODU_LIB_DRIVER_DRIVER_H
#define HODU_LIB_DRIVER_DRIVER_H

#include "hodu/Target/Target.h"


namespace mlir {
class ModuleOp;
class OpPassManager;
} // namespace mlir

namespace hodu::driver {

/// Builds shared phase `phase` ("input", "hodu" or "linalg") for `target`:
/// the shared passes, with the target's extension where it has one.
llvm::LogicalResult buildSharedPhase(llvm::StringRef phase,
                                     mlir::OpPassManager &pm,
                                     const TargetBackend &target,
                                     const PipelineRequest &request);

/// Registers hodu-shared-hodu and hodu-shared-linalg.
void registerSharedPipelines();

/// Kernel counts without and with fusion groups (on a copy of the module).
void printKernelStats(mlir::ModuleOp module);
/// What hodu-plan-memory recorded; false when it recorded nothing.
bool printMemoryPlan(mlir::ModuleOp module);


} // namespace hodu::driver

#endif // HODU_LIB_DRIVER_DRIVER_H
