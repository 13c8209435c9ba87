//===- AttentionTiles.h - attention chains as one tiled loop ----*- C++ -*-===//
//
// Shared by the CPU's and the GPUs' attention fusion: finds attention's
// second products (a matmul or batch matmul P V whose left operand comes,
// through generics that include a reduction and reshapes, from a product of
// two computed tensors, nothing else reading the intermediates) and tiles
// each over its batch and blocks of query rows in an scf.forall, the whole
// chain (Q K^T, scale, mask, softmax) fused into the tile.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_ATTENTIONTILES_H
#define HODU_TARGET_ATTENTIONTILES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace hodu {

/// Every loaded dialect's and op's canonicalization patterns (what the
/// canonicalize pass applies), for fuseAttentionChains.
mlir::FrozenRewritePatternSet canonicalizationPatterns(mlir::MLIRContext *ctx);

/// Fuses every attention chain of `func` into one scf.forall over the
/// second product's batch (one per iteration) and blocks of
/// `rowsFor(queries, keys)` query rows (0: leave that chain unfused). A
/// loop is kept only if every op of the chain is inside it, its tiles add
/// up to no more than the chain computed whole, and `accept` takes it.
/// Returns the loops made (lower bounds 0, steps the tile sizes).
llvm::SmallVector<mlir::scf::ForallOp> fuseAttentionChains(
    mlir::func::FuncOp func,
    llvm::function_ref<int64_t(int64_t queries, int64_t keys)> rowsFor,
    llvm::function_ref<bool(mlir::scf::ForallOp)> accept,
    const mlir::FrozenRewritePatternSet &canonicalization);

} // namespace hodu

#endif // HODU_TARGET_ATTENTIONTILES_H
