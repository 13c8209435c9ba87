//===- TransformScript.h - what the CPU passes share ------------*- C++ -*-===//
//
// Internal to lib/Target/CPU/Transforms. The tiling passes choose their
// sizes in C++, where the shapes are known, and leave the tiling,
// vectorisation and hoisting to upstream transform ops: each builds a
// transform script with the transform dialect's C++ builders, the ops it
// handles tagged so that the script can find them, and runs it through the
// transform interpreter. Also the vector width they derive tile sizes from.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_TRANSFORMSCRIPT_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_TRANSFORMSCRIPT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace hodu::cpu {

/// A transform script for one payload module: the named sequence
/// `@__transform_main(%root)`, %root bound to the payload, to which the
/// methods append transform ops in order.
class TransformScript {
public:
  explicit TransformScript(mlir::ModuleOp payload);

  /// Handles of a tiling: the tiled op and the loops around it (outermost
  /// first; one per tiled dimension).
  struct Tiled {
    mlir::Value op;
    mlir::ValueRange loops;
  };

  /// `transform.structured.match attributes {tag = id}`: tags `op` with
  /// `tag = id` (an id unique per tag in this script) and returns the handle.
  mlir::Value matchTagged(mlir::Operation *op, llvm::StringRef tag, int64_t id);
  /// `transform.structured.tile_using_for`; a size of 0 leaves that
  /// dimension untiled (no loop).
  Tiled tileUsingFor(mlir::Value target, llvm::ArrayRef<int64_t> sizes);
  /// `transform.structured.tile_using_forall` with tile sizes (0: untiled).
  Tiled tileUsingForall(mlir::Value target, llvm::ArrayRef<int64_t> sizes);
  /// `transform.structured.vectorize`, sizes inferred from the op.
  void vectorize(mlir::Value target);
  /// `transform.loop.hoist_loop_invariant_subsets`.
  void hoistLoopInvariantSubsets(mlir::Value loop);
  /// `transform.apply_patterns` to every func.func of the payload, with the
  /// pattern descriptor ops that `patterns` builds.
  void applyPatternsToFuncs(
      llvm::function_ref<void(mlir::OpBuilder &, mlir::Location)> patterns);

  /// Whether no op has been matched (then there is nothing to run).
  bool empty() const { return tags.empty(); }
  /// Runs the script on the payload and removes the tags; `pass` names the
  /// caller should the built script not verify.
  mlir::LogicalResult apply(llvm::StringRef pass);

private:
  mlir::ModuleOp payload;
  mlir::OwningOpRef<mlir::ModuleOp> script;
  mlir::OpBuilder builder;
  mlir::Operation *entry;
  mlir::Value root;
  llvm::SmallVector<mlir::StringAttr> tags;
};

/// f32 lanes of one vector register of `vectorBits` bits (at least one):
/// the unit of the tile sizes the passes derive from the target.
inline int64_t f32Lanes(int64_t vectorBits) {
  return std::max<int64_t>(vectorBits / 32, 1);
}

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_TRANSFORMSCRIPT_H
