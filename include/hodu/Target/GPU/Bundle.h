//===- Bundle.h - launch plans and bundles of GPU targets -------*- C++ -*-===//
//
// After a GPU target's phases the module holds the host function `@main`
// (function arguments for the inputs and outputs, `memref.get_global`s for
// the weights, `memref.view`s into the arena that hodu-plan-memory made,
// `gpu.launch_func`s and `memref.copy`s) and the device code. The launch
// plan is that host function read as data: kernels in order with their
// grids and block sizes, and every argument as a buffer (input, output,
// arena, weights) and a byte range. A bundle (runtime/include/hodu/bundle.h,
// docs/bundle.md) is the plan, the weights and the target's code objects in
// one file that libhodurt loads.
//
// This header stays light: MLIR types are forward-declared.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_GPU_BUNDLE_H
#define HODU_TARGET_GPU_BUNDLE_H

#include "hodu/Target/Target.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hodu::gpu {

/// A byte range of one of the plan's buffers (a hodu_bundle_arg).
struct PlanArg {
  uint32_t space = 0; // hodu_buffer_space
  uint32_t index = 0;
  uint64_t offset = 0, size = 0;
};

struct PlanKernel {
  std::string name;
  std::array<uint32_t, 3> block = {1, 1, 1};
  uint32_t numArgs = 0;
};

struct PlanStep {
  uint32_t op = 0;     // hodu_step_op
  uint32_t kernel = 0; // LAUNCH: index into LaunchPlan::kernels
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::vector<PlanArg> args;
};

struct LaunchPlan {
  std::vector<PlanKernel> kernels;
  std::vector<PlanStep> steps;
  std::string weights; // the WEIGHTS bytes, each weight 256-byte aligned
  uint64_t arenaSize = 0;
  unsigned numLaunches() const;
};

/// Reads the plan from the module's `@main` after the target's last phase.
/// `signature` splits @main's arguments: the inputs, the meta slots (the
/// last `numMetaSlots` inputs), then the outputs. Fails, with a diagnostic
/// naming the op, on host code the plan cannot express.
mlir::FailureOr<LaunchPlan> buildLaunchPlan(mlir::ModuleOp module,
                                            const EntrySignature &signature);

/// The plan of one partition function of a heterogeneous model (its
/// arguments: `numInputs` inputs, then `numOutputs` outputs).
mlir::FailureOr<LaunchPlan> buildLaunchPlan(mlir::ModuleOp module,
                                            llvm::StringRef function,
                                            unsigned numInputs,
                                            unsigned numOutputs,
                                            unsigned numMetaSlots = 0);

/// The attribute that marks a variant's plan function (mergeVariant): each
/// symbol's size in it, in the signature's order (-1 where the bound's
/// plan's size applies: a chunked symbol's chunk).
inline constexpr llvm::StringLiteral kVariantSizesAttr = "hodu.variant_sizes";

/// Moves `variant` (the model compiled with its padded symbols at smaller
/// sizes, through the same phases as `module` up to the kernel lowering)
/// into `module`: its kernels into `module`'s gpu.module, their names
/// ending in `suffix`; its constants, shared with `module`'s where equal;
/// its @main as @main<suffix>, marked with kVariantSizesAttr = `sizes`.
/// The bundle writer reads each such function as a variant (bundle format
/// 1.6, docs/bundle.md). `variant` is left empty of them.
mlir::LogicalResult mergeVariant(mlir::ModuleOp module, mlir::ModuleOp variant,
                                 llvm::StringRef suffix,
                                 llvm::ArrayRef<int64_t> sizes);

/// One code object of the bundle (hodu_bundle_code).
struct CodeObject {
  uint32_t format = 0; // hodu_code_format
  std::string arch;    // "sm_90", "gfx942", "" where it has none
  std::string bytes;
};

/// Writes a bundle for `device` (a hodu_device_kind) to
/// `request.outputPath` through an exclusive temporary. With a
/// `request.schedule` (a heterogeneous model), device 0 is the CPU running
/// the schedule's host calls from its shared library, device 1 `device`
/// running the module's partition functions, with the transfers between.
mlir::LogicalResult writeBundle(mlir::ModuleOp module,
                                const SerializeRequest &request,
                                uint32_t device,
                                llvm::ArrayRef<CodeObject> code);

/// The artifact kind every GPU target writes by default.
ArtifactKind bundleArtifactKind();

} // namespace hodu::gpu

#endif // HODU_TARGET_GPU_BUNDLE_H
