//===- Passes.h - accelerator/CPU partitioning ------------------*- C++ -*-===//
//
// hodu-partition (include/hodu/Partition/Passes.td): the entry function
// split into partitions per device, joined by hodu.transfer ops.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_PARTITION_PASSES_H
#define HODU_PARTITION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace hodu {
#define GEN_PASS_DECL
#include "hodu/Partition/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hodu/Partition/Passes.h.inc"

/// The device of a partition function ("cpu", "vulkan", ...), or "" for
/// other functions.
llvm::StringRef partitionDevice(mlir::Operation *func);
} // namespace hodu

#endif // HODU_PARTITION_PASSES_H
