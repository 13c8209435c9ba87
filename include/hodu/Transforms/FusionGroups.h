//===- FusionGroups.h - fusion groups and kernel counts ---------*- C++ -*-===//
//
// `hodu-form-fusion-groups` marks each op of a fusion group with the
// discardable attribute `hodu.fusion_group = <i64 id>` and the group's root
// (the one op whose result leaves the group) with `hodu.fusion_root`. A
// group is what a GPU target turns into one kernel; the CPU path inlines it.
// This header gives the attribute names and a kernel count over a module.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_TRANSFORMS_FUSIONGROUPS_H
#define HODU_TRANSFORMS_FUSIONGROUPS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir {
class ModuleOp;
class Operation;
} // namespace mlir

namespace hodu {

/// The i64 group id on every member of a fusion group.
inline constexpr llvm::StringLiteral kFusionGroupAttr = "hodu.fusion_group";
/// A unit attribute on the group's root.
inline constexpr llvm::StringLiteral kFusionRootAttr = "hodu.fusion_root";

/// Kernel counts of a module, as marked by hodu-form-fusion-groups.
struct FusionStats {
  /// Ops that need a kernel of their own without fusion: every hodu op except
  /// constants and the metadata-only shape ops (reshape, flatten, squeeze,
  /// unsqueeze, contiguous, dummy).
  int64_t opsBefore = 0;
  /// Kernels with the fusion groups: one per group plus one per ungrouped op
  /// counted in `opsBefore`.
  int64_t kernelsAfter = 0;
  /// Number of fusion groups.
  int64_t groups = 0;
  /// Ops (of any kind) that are members of some group.
  int64_t groupedOps = 0;
};

/// Counts kernels before and after fusion from the attributes in `module`.
/// Without groups, `kernelsAfter == opsBefore`.
FusionStats computeFusionStats(mlir::ModuleOp module);

/// Whether `op` needs its own kernel when not fused (see `opsBefore`).
bool needsKernel(mlir::Operation *op);

} // namespace hodu

#endif // HODU_TRANSFORMS_FUSIONGROUPS_H
