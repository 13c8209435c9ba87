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

/// How skipDeadKeys splits a loop: the keys a run computes are a multiple
/// of `quantum` (0: no splitting), doubled while there would be more than
/// `maxRuns` runs; neighbouring runs are joined until each has at least
/// `minIterations` iterations (batch x blocks of rows), so that a run still
/// fills the threads or the GPU.
struct DeadKeyOptions {
  int64_t quantum = 0;
  int64_t minIterations = 1;
  int64_t maxRuns = 8;
};

/// Fuses every attention chain of `func` into one scf.forall over the
/// second product's batch (one per iteration) and blocks of
/// `rowsFor(queries, keys)` query rows (0: leave that chain unfused). A
/// loop is kept only if every op of the chain is inside it, its tiles add
/// up to no more than the chain computed whole, and `accept` takes it.
/// Each loop then goes through skipDeadKeys with `deadKeys`.
/// Returns the loops made (lower bounds 0, steps the tile sizes).
llvm::SmallVector<mlir::scf::ForallOp> fuseAttentionChains(
    mlir::func::FuncOp func,
    llvm::function_ref<int64_t(int64_t queries, int64_t keys)> rowsFor,
    llvm::function_ref<bool(mlir::scf::ForallOp)> accept,
    const mlir::FrozenRewritePatternSet &canonicalization,
    const DeadKeyOptions &deadKeys = {});

/// Where a constant mask (causal, a window, constant padding) kills the
/// trailing keys of blocks of query rows, splits the fused attention `loop`
/// into runs of consecutive blocks (see DeadKeyOptions), each a loop that
/// computes only the keys its blocks can see, chained through the output.
/// The dead keys' exclusion is proved on the body (lib/Target/
/// AttentionDeadKeys.cpp): they would add exact zeros. Returns the loops
/// (`loop` itself where nothing is dead or nothing is proved).
llvm::SmallVector<mlir::scf::ForallOp>
skipDeadKeys(mlir::scf::ForallOp loop, const DeadKeyOptions &options);

/// The keys per block blockKeys takes: the largest divisor of `keys` from
/// 16 to `most` (and at most half the keys); 0 if there is none.
int64_t keyBlockSize(int64_t keys, int64_t most);

/// Rewrites the body of a fused attention `loop` as flash attention does:
/// an scf.for over blocks of keys (keyBlockSize(keys, most)) carrying each
/// row's running max, running sum and output, each step computing only its
/// keys' scores (lib/Target/AttentionKeyBlocks.cpp). Fails, changing
/// nothing, unless the chain ends in the plain softmax (max, subtract, exp,
/// sum, divide) and the keys have such a block.
mlir::LogicalResult blockKeys(mlir::scf::ForallOp loop, int64_t most);

} // namespace hodu

#endif // HODU_TARGET_ATTENTIONTILES_H
