//===- TileLoop.h - a loop over tiles carrying one tensor -------*- C++ -*-===//
//
// Internal to hodu-cpu-vectorize (Packing.cpp, DirectConv.cpp, Bf16Dot.cpp,
// Int8DotConv.cpp, Int8DotMatmul.cpp, Winograd.cpp); defined in
// TileLoop.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_TILELOOP_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_TILELOOP_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace hodu::cpu {

/// Loop over [0, count) carrying one tensor: an scf.forall when `parallel`
/// (the body's result is inserted at `offsets`/`sizes` by the terminator),
/// else an scf.for. `body(builder, iv, carried, offsets, sizes)` returns the
/// tile and sets where it goes.
using TileBody = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Value, mlir::Value,
    llvm::SmallVector<mlir::OpFoldResult> &,
    llvm::SmallVector<mlir::OpFoldResult> &)>;
mlir::Value tileLoop(mlir::OpBuilder &b, mlir::Location loc, int64_t count,
                     int64_t step, mlir::Value init, bool parallel,
                     TileBody body);

/// The most rows of a register block of `vecs` accumulator vectors per row
/// in `registers` vector registers, beside the `vecs` B vectors and `spare`
/// more (the A broadcast; vpmaddwd's product): at most 16 rows of one
/// vector, 12 of two, 8 of three (threeVectorPanels).
int64_t registerRows(int64_t registers, int64_t vecs, int64_t spare);

/// Whether a register kernel of an `m` x `n` product (the int8 and bf16
/// dot-product matmuls, 32 registers of `lanes` sums) takes panels of three
/// vectors, in blocks of up to `maxRows3` rows, rather than two (up to
/// `maxRows2`): where N has three and they pad no more of the product
/// (rows to whole blocks, columns to whole panels). Three load fewer values
/// per product (8 rows: 11 loads per 24 products; 11 rows of two: 13 per
/// 22); at M = 64 they are 8 blocks of 8 rows against 6 of 11 (66 rows):
/// the bench's qmlp 5-11% faster on a Zen 4 (docs/performance.md).
bool threeVectorPanels(int64_t m, int64_t n, int64_t lanes, int64_t maxRows2,
                       int64_t maxRows3);

/// One panel of a register kernel (the int8 and bf16 dot-product matmuls):
/// for each of `blocks` blocks of `mr` rows, `mr` x `vecs` accumulators
/// starting at `zero`, carried over `steps` steps of K; per step the
/// panel's `vecs` vectors of B (`readB(builder, step)`), per row its A
/// (`readA(builder, row, step)`) and per vector `dot(builder, acc, a, b)`;
/// the sums written into `tile` at (row, v * `lanes`). Returns the tile.
mlir::Value registerBlocks(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value tile, int64_t blocks,
    int64_t mr, int64_t vecs, int64_t lanes, int64_t steps, mlir::Value zero,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::OpBuilder &,
                                                      mlir::Value)>
        readB,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value, mlir::Value)>
        readA,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value, mlir::Value,
                                   mlir::Value)>
        dot);

/// The index `base` * `scale` + `offset`, folding a scale of 1 and an offset
/// of 0 (the index arithmetic of the hand-built kernels).
mlir::Value scaledIndex(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value base, int64_t scale, int64_t offset);

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_TILELOOP_H
