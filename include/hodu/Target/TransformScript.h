//===- TransformScript.h - transform scripts built in C++ -------*- C++ -*-===//
//
// The code-generation passes of the targets choose tile sizes in C++, where
// the static shapes are known, and leave the tiling, fusion, promotion,
// vectorisation and mapping to upstream transform ops. Each builds a
// transform script with the transform dialect's C++ builders (no text to
// parse back), the payload ops it handles tagged so that the script can
// find them, and runs it through the transform interpreter.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_TRANSFORMSCRIPT_H
#define HODU_TARGET_TRANSFORMSCRIPT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>

namespace hodu {

/// A transform script for one payload module: the named sequence
/// `@__transform_main(%root)`, %root bound to the payload, to which the
/// methods append transform ops in order.
class TransformScript {
public:
  explicit TransformScript(mlir::ModuleOp payload);

  /// Handles of a tiling: the tiled op and the loops around it (outermost
  /// first; one per tiled dimension for scf.for, one scf.forall).
  struct Tiled {
    mlir::Value op;
    mlir::ValueRange loops;
  };

  /// `transform.structured.match attributes {tag = id}`: tags `op` with
  /// `tag = id` (an id unique per tag in this script) and returns the handle.
  mlir::Value matchTagged(mlir::Operation *op, llvm::StringRef tag, int64_t id);
  /// matchTagged with the script's own tag and the next free id.
  mlir::Value match(mlir::Operation *op);
  /// A handle to `op` bound when the script starts: an argument of the
  /// entry sequence, where a match op would walk the whole payload once per
  /// handle (a third of the CPU vectorisers' time on a 120-kernel model).
  /// For ops that no earlier step of the script replaces, clones or erases:
  /// a match finds what the payload holds when it runs, a bound handle
  /// follows only the replacements the interpreter tracks.
  mlir::Value bind(mlir::Operation *op);
  /// `transform.structured.tile_using_for`; a size of 0 leaves that
  /// dimension untiled (no loop).
  Tiled tileUsingFor(mlir::Value target, llvm::ArrayRef<int64_t> sizes);
  /// `transform.structured.tile_using_forall` with tile sizes (0: untiled)
  /// and, if given, the forall's mapping (one attribute per tiled dim).
  Tiled tileUsingForall(mlir::Value target, llvm::ArrayRef<int64_t> sizes,
                        llvm::ArrayRef<mlir::Attribute> mapping = {});
  /// `transform.structured.fuse_into_containing_op`: returns the fused op
  /// and the new containing op.
  std::pair<mlir::Value, mlir::Value> fuseIntoContainingOp(mlir::Value producer,
                                                           mlir::Value containing);
  /// `transform.get_operand` + `transform.structured.promote_tensor`: the
  /// operand `index` of `op` copied into a new tensor in `memorySpace`.
  void promoteOperand(mlir::Value op, int64_t index, mlir::Attribute memorySpace);
  /// `transform.structured.vectorize`, sizes inferred from the op; with
  /// `namedContraction`, a contraction becomes `vector.contract` rather than
  /// a broadcast, an elementwise multiply and a `vector.multi_reduction`;
  /// with `ndExtract`, `tensor.extract` of several indices in a body becomes
  /// a `vector.gather` (or a contiguous read where it provably is one).
  void vectorize(mlir::Value target, bool namedContraction = false,
                 bool ndExtract = false);
  /// `transform.loop.hoist_loop_invariant_subsets`.
  void hoistLoopInvariantSubsets(mlir::Value loop);
  /// `transform.gpu.map_forall_to_blocks ... generate_gpu_launch`: returns
  /// the launch.
  mlir::Value mapForallToBlocks(mlir::Value forall);
  /// `transform.gpu.map_nested_forall_to_threads` with `blockDims` (x, y, z);
  /// with `syncAfterDistribute` a barrier follows every thread loop.
  void mapNestedForallToThreads(mlir::Value launch,
                                llvm::ArrayRef<int64_t> blockDims,
                                bool syncAfterDistribute = true);
  /// `transform.apply_patterns` to every func.func of the payload, with the
  /// pattern descriptor ops that `patterns` builds.
  void applyPatternsToFuncs(
      llvm::function_ref<void(mlir::OpBuilder &, mlir::Location)> patterns);
  /// Canonicalisation and the tiling canonicalisation patterns, then CSE,
  /// on every func.func.
  void cleanupFuncs();

  /// Whether no op has been matched or bound (then there is nothing to run).
  bool empty() const { return tags.empty() && bound.empty(); }
  /// Runs the script on the payload and removes the tags; `pass` names the
  /// caller should the built script not verify.
  mlir::LogicalResult apply(llvm::StringRef pass);
  /// apply() for a fast path that has a slower, correct one: when the
  /// script fails (a transform that does not fit the payload), the payload
  /// is put back as it was, a remark (at `where`, else the module) names
  /// the pass and the reason unless `quiet`, and the result is success: the
  /// ops keep the generic lowering. `applied` (if given) says which it was.
  mlir::LogicalResult applyOrKeep(llvm::StringRef pass, bool *applied = nullptr,
                                  std::optional<mlir::Location> where = {},
                                  bool quiet = false);

private:
  mlir::ModuleOp payload;
  mlir::OwningOpRef<mlir::ModuleOp> script;
  mlir::OpBuilder builder;
  mlir::Operation *entry;
  mlir::Value root;
  llvm::SmallVector<mlir::StringAttr> tags;
  /// The ops bound to the entry's arguments after the root, in order.
  llvm::SmallVector<mlir::Operation *> bound;
  int64_t nextId = 0;
};

} // namespace hodu

#endif // HODU_TARGET_TRANSFORMSCRIPT_H
