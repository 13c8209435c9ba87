//===- AttentionKeys.h - the key dims of a fused attention loop -*- C++ -*-===//
//
// Internal to lib/Target: what skipDeadKeys (AttentionDeadKeys.cpp) and
// the GPUs' key blocks (AttentionKeyBlocks.cpp) both read from a fused
// attention loop's body (AttentionTiles.cpp): its second product and which
// dims of its tensors are the keys.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_ATTENTIONKEYS_H
#define HODU_LIB_TARGET_ATTENTIONKEYS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace hodu::attention {

/// The key dims of the loop body's tensors, found from the second
/// product's reduction loop through the linalg ops' indexing maps, the
/// reshapes and the slices of the body.
struct KeyDims {
  llvm::DenseMap<mlir::Value, llvm::SmallVector<int64_t, 2>> dims;
  mlir::Block *body = nullptr;
  int64_t keys = 0;
  bool failed = false;

  bool inBody(mlir::Value v) const {
    mlir::Operation *d = v.getDefiningOp();
    return d && d->getBlock() == body;
  }
  bool has(mlir::Value v, int64_t d) const {
    auto it = dims.find(v);
    return it != dims.end() && llvm::is_contained(it->second, d);
  }
  /// Marks dim `d` of `v` a key dim; true if it was not.
  bool add(mlir::Value v, int64_t d) {
    if (!inBody(v) || has(v, d))
      return false;
    auto t = mlir::cast<mlir::RankedTensorType>(v.getType());
    if (t.getDimSize(d) != keys)
      failed = true;
    dims[v].push_back(d);
    return true;
  }
  /// The type of `v` (a body value) with its key dims `keys` long.
  mlir::RankedTensorType narrowedType(mlir::Value v, int64_t keys) const;
};

/// Gives `v` type `t` (of the same rank) and the op that defines it the
/// static sizes that type needs: a slice's sizes, an expand_shape's output
/// shape. Other ops take their result types from their operands.
void retype(mlir::Value v, mlir::RankedTensorType t);

/// The second product of `loop`: the (batch) matmul whose result its
/// terminator inserts, with one reduction loop (the keys); none otherwise.
mlir::linalg::LinalgOp secondProduct(mlir::scf::ForallOp loop);

/// Propagates the key dims from `pv`'s reduction loop to a fixed point.
/// Fails (`failed`) where a key dim reaches an op that cannot be narrowed,
/// or a dim that is not the keys' length. A tensor from outside the loop
/// that a linalg op reads along the keys is first read through a whole
/// `tensor.extract_slice` at the top of the body (the same values), which
/// narrowing can take a part of.
KeyDims findKeyDims(mlir::scf::ForallOp loop, mlir::linalg::LinalgOp pv);

} // namespace hodu::attention

#endif // HODU_LIB_TARGET_ATTENTIONKEYS_H
