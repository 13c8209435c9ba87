//===- Packing.h - packed register-tile matmuls -----------------*- C++ -*-===//
//
// Internal to hodu-cpu-vectorize (Vectorize.cpp, ConvToMatmul.cpp,
// Winograd.cpp); defined in Packing.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_PACKING_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_PACKING_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::linalg {
class MatmulOp;
} // namespace mlir::linalg

namespace hodu::cpu {

/// Marks the register-tile contractions of a packed matmul (and the fills
/// of their accumulators), built by panelMatmul inside the panel loops.
inline constexpr llvm::StringLiteral kPanel = "hodu.packed_panel";

/// The most rows and columns of C one register kernel holds (f32), and the
/// lanes of the target's vectors.
struct RegisterTile {
  int64_t cols, lanes;
  /// The most rows a tile of `cols` columns may have, not only powers of
  /// two: a matmul whose M has a divisor up to it (10 tokens, 12, 14) takes
  /// that many rows instead of the largest power of two dividing M (2).
  int64_t maxRows;
  /// The most rows of a tile one vector wide (a narrow panel): at least
  /// maxRows, and up to 12 where the registers hold them, so that such a
  /// tile keeps as many independent accumulators as a two-vector one (on
  /// AVX2, 12 by 8 lanes instead of 6: six FMA chains do not cover the FMA
  /// latency of two pipes, which takes eight).
  int64_t maxRowsNarrow;

  /// The most rows of a tile of `nr` columns.
  int64_t maxRowsFor(int64_t nr) const {
    return nr <= lanes ? maxRowsNarrow : maxRows;
  }
};
/// The largest divisor of `m` that is at most `maxRows` (1 if none is
/// larger).
int64_t rowTile(int64_t m, int64_t maxRows);

/// The largest of `largest`, `largest`/2, ... down to `smallest` that
/// divides `dim`, `largest` first rounded down to a power of two so that the
/// sizes divide the usual power-of-two shapes; 1 if none does.
int64_t registerSize(int64_t dim, int64_t largest, int64_t smallest);

/// The widest panel, from `widest` halving down to `narrowest`, that wastes
/// at most an eighth of `width` rounded up to it (`narrowest` if none does).
int64_t panelWidth(int64_t width, int64_t widest, int64_t narrowest);

/// The largest divisor of `dim` that is at most `limit` and a multiple of
/// `step` (which divides `dim`); `step` itself if none is larger.
int64_t tileSize(int64_t dim, int64_t limit, int64_t step);

/// The constant `v` is, looked for through reshapes (which keep its
/// row-major data: a conv filter flattened to 2-D), or null.
mlir::arith::ConstantOp constantThroughReshapes(mlir::Value v);

/// The raw data of a constant that is not a splat, or none.
std::optional<llvm::ArrayRef<char>> rawData(mlir::arith::ConstantOp cst);

/// The loops of a packed matmul C[M,N] (`init`) += A B, from the panels
/// Ap [M/mr, K, mr] and Bp [N/nr, K, nr]: panel j (an scf.forall when
/// `parallel`) / k block (`kc`) / mr-row block, each a register-tile
/// contraction that hodu-cpu-vectorize turns into one vector kernel. With
/// `fillValue`, every tile starts from it (C is not read; `kc` must be K).
/// With `makePanel`, `bp` is null and panel j ([K, nr]) is built by
/// makePanel(builder, loc, j) at the start of its iteration (an im2col
/// convolution's columns: written on the thread that reads them, while
/// they are in its cache).
mlir::Value panelMatmul(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value ap, mlir::Value bp,
    mlir::Value init, mlir::Value fillValue, int64_t m, int64_t n, int64_t k,
    int64_t mr, int64_t nr, int64_t kc, bool parallel,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value)>
        makePanel = nullptr);

/// dest[d...] = src[srcMap(d...)]: a copy as an all-parallel linalg.generic,
/// which hodu-cpu-parallelize and hodu-cpu-vectorize-generics take later.
mlir::Value permutedCopy(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value src, mlir::Value dest,
                         mlir::AffineMap srcMap);

/// Panels of a 2-D matrix `src` ([R, C]), `w` wide, each contiguous:
///   B-style (`rows` false): P[j, r, c] = src[r, j*w + c]   -> [C/w, R, w]
///   A-style (`rows` true):  P[i, c, r] = src[i*w + r, c]   -> [R/w, C, w]
/// A constant is packed here, into a new resource blob (the weight is copied
/// once; the unpacked constant dies with its last use); anything else by a
/// copy, a linalg.generic that is parallelised and vectorised later.
/// A-style panels may cover `paddedRows` (> R) rows, the extra ones zero.
mlir::Value packPanels(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                       int64_t w, bool rows, int64_t paddedRows = 0);

/// A matmul whose constant B ([K, N]) has a column count no vector width
/// divides (6625 characters of an OCR head, 21 classes) gets B with zero
/// columns up to a multiple of the vector (a new constant) and a padded
/// accumulator; the extra result columns are dropped. Returns the new
/// matmul, or null if `mm` does not qualify.
mlir::linalg::MatmulOp padMatmulColumns(mlir::linalg::MatmulOp mm,
                                        int64_t lanes);

/// GotoBLAS-style packing for a static 2-D matmul C[M,N] += A[M,K] B[K,N].
/// The register kernel reads an nr-wide row of B and an mr-tall column of
/// A per k step. Unpacked, B's rows are N and A's rows K floats apart, so
/// they share L1 sets (4 KB aliasing) and pages. Packed as Bp[N/nr, K, nr]
/// and Ap[M/mr, K, mr], every kernel reads two contiguous streams. The
/// matmul becomes loops panel j (an scf.forall when `parallel`) / k block
/// (`kc`) / row block over `kPanel`-tagged register-tile matmuls
///   C[mb*mr : +mr, j*nr : +nr] += Ap[mb, kb : +kc]^T x Bp[j, kb : +kc]
/// which hodu-cpu-vectorize turns into one vector kernel each. Constants
/// (weights) are packed at compile time; a B computed at run time only when
/// M (the number of its panels' reuses) is at least `minM`, and A whenever B
/// is packed.
void packMatmul(mlir::linalg::MatmulOp mm, int64_t mr, int64_t nr, int64_t kc,
                int64_t minM, bool parallel);

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_PACKING_H
