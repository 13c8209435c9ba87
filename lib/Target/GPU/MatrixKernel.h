//===- MatrixKernel.h - contractions on matrix units ------------*- C++ -*-===//
//
// Internal to lib/Target/GPU. What the two matrix-unit kernels share: the
// plan hodu-gpu-tile puts on a contraction (`hodu.gpu.mma`), and the part of
// a block's kernel body that does not depend on the vendor -- the operands
// and output of the block, index helpers, the masked read of the output's
// initial value and the store of a sum through the fused elementwise
// epilogue. NVIDIA's tensor cores (`mma.sync`, `wgmma`: TensorCoreKernel.cpp)
// and AMD's matrix cores (MFMA, MatrixCores.cpp) each build their K loop on
// it.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_GPU_MATRIXKERNEL_H
#define HODU_LIB_TARGET_GPU_MATRIXKERNEL_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace hodu::gpu {

/// The element kinds the matrix units multiply. F16 and BF16 on both
/// vendors; TF32 and TF32x3 (big + small, f32-accurate) on NVIDIA; F32 (the
/// full-precision f32 MFMA) and XF32 (gfx940-942's reduced-precision one)
/// on AMD.
enum class MmaKind { F16, BF16, TF32, TF32x3, F32, XF32 };

llvm::StringRef nameOf(MmaKind k);
std::optional<MmaKind> kindNamed(llvm::StringRef s);
inline bool isHalf(MmaKind k) {
  return k == MmaKind::F16 || k == MmaKind::BF16;
}

/// The plan of one contraction, kept on it as `hodu.gpu.mma` between
/// tiling and lowering: D[.., i, .., j] (+)= X[.., i, .., k] * Y[.., k, j]
/// (`kn`) or Y[.., j, k]; j is the output's innermost dim.
struct MmaPlan {
  MmaKind kind;
  int64_t bm, bn;   // the output tile: rows (i) x columns (j)
  unsigned i, j, k; // loops
  unsigned x;       // which input is X (0 or 1)
  bool kn;          // Y stored [K][N] (else [N][K])
  bool zeroInit;    // accumulate from zero (the fill was dropped)
  bool amd;         // AMD matrix cores (else NVIDIA tensor cores)
  /// AMD only: each MFMA computed by the wavefront's threads through
  /// workgroup memory, with scalar memory accesses -- the same kernel on
  /// any GPU, which is how lavapipe checks the MFMA kernel's tiles, stages
  /// and fragment layouts (hoduc --hodu-gpu-emulate-mfma, hidden).
  bool emulate = false;
  /// NVIDIA sm_90a: the block is one warpgroup of `wgmma.mma_async`
  /// (BM a multiple of 64) reading both operands K-major from swizzled
  /// workgroup memory; else 4 warps of `mma.sync`. With `emulate`, each
  /// wgmma is computed by the threads from the same descriptors
  /// (hoduc --hodu-gpu-emulate-wgmma, hidden: lavapipe runs the kernel).
  bool wgmma = false;

  mlir::DictionaryAttr toAttr(mlir::MLIRContext *ctx) const;
  static std::optional<MmaPlan> fromAttr(mlir::DictionaryAttr d);
};

/// Threads of a block: 4 warps of 32 (NVIDIA), 4 wavefronts of 64 (AMD).
constexpr int64_t kNvidiaThreads = 128, kAmdThreads = 256;
inline int64_t blockThreadsOf(const MmaPlan &p) {
  return p.amd ? kAmdThreads : kNvidiaThreads;
}
/// Elements of a 16-byte chunk, the unit the operands are copied in.
inline int64_t chunkElements(MmaKind k) { return isHalf(k) ? 8 : 4; }
/// K of a stage: 64 bytes of each row.
inline int64_t stageK(MmaKind k) { return isHalf(k) ? 32 : 16; }

/// The position of loop `d` among the results of `map`, or -1.
int64_t positionOf(mlir::AffineMap map, unsigned d);

/// What a matrix-unit kernel body of one block builds on: the block's views
/// of X, Y and D, and the output's epilogue.
class MatrixKernelBase {
public:
  /// `gather`: the im2col gather whose tile the block's Y is (may be
  /// null): Y's elements are computed from its body, not read.
  MatrixKernelBase(mlir::OpBuilder &b, mlir::Location loc, const MmaPlan &p,
                   mlir::linalg::LinalgOp op, mlir::linalg::LinalgOp epilogue,
                   mlir::linalg::LinalgOp gather = nullptr);

protected:
  mlir::OpBuilder &b;
  mlir::Location loc;
  const MmaPlan &p;
  mlir::linalg::LinalgOp op;
  /// The elementwise consumer computed on the registers (may be null).
  mlir::linalg::LinalgOp epilogue;
  /// The gather computing Y (may be null; Y is then its output tile, which
  /// nothing writes).
  mlir::linalg::LinalgOp gather;

  mlir::Value X, Y, D;
  mlir::AffineMap xMap, yMap, dMap;
  int64_t K = 0;
  /// Elements of a 16-byte chunk, K of a stage, the stages of K, and the
  /// 16-row accumulator tiles of a warp's (or wavefront's) rows: BM / 32.
  int64_t chunk = 0, bk = 0, kSteps = 0, mi = 0;
  mlir::Type et;          // the operands' element type
  mlir::Value mExt, nExt; // the output tile's rows and columns

  mlir::Value c(int64_t v) {
    return mlir::arith::ConstantIndexOp::create(b, loc, v);
  }
  mlir::Value add(mlir::Value a, mlir::Value x) {
    return mlir::arith::AddIOp::create(b, loc, a, x);
  }
  mlir::Value mul(mlir::Value a, int64_t v) {
    return mlir::arith::MulIOp::create(b, loc, a, c(v));
  }
  mlir::Value div(mlir::Value a, int64_t v) {
    return mlir::arith::DivUIOp::create(b, loc, a, c(v));
  }
  mlir::Value rem(mlir::Value a, int64_t v) {
    return mlir::arith::RemUIOp::create(b, loc, a, c(v));
  }
  mlir::Value ult(mlir::Value a, mlir::Value x) {
    return mlir::arith::CmpIOp::create(b, loc, mlir::arith::CmpIPredicate::ult,
                                       a, x);
  }
  mlir::Value both(mlir::Value a, mlir::Value x) {
    return mlir::arith::AndIOp::create(b, loc, a, x);
  }
  mlir::Value select(mlir::Value cond, mlir::Value a, mlir::Value x) {
    return mlir::arith::SelectOp::create(b, loc, cond, a, x);
  }

  /// Indices into an operand tile of `map`: `row`/`col` at the positions
  /// of loops `rowDim`/`colDim`, zero for every other (unit) dim.
  llvm::SmallVector<mlir::Value> at(mlir::AffineMap map, unsigned rowDim,
                                    mlir::Value row, unsigned colDim,
                                    mlir::Value col);

  /// Binds X, Y, D, their maps, K and its steps, the element type and the
  /// tile's extents.
  mlir::LogicalResult bind();
  /// Y's element at indices `idx` of Y (the gather's loops), from the
  /// gather's body: its reads of the input and its bounds checks.
  mlir::Value gathered(mlir::OpBuilder &nb, mlir::ValueRange idx);
  /// `n` consecutive elements of `src` from `idx` (along its innermost
  /// index) where `valid`, else zeros: loads, or for Y with a gather the
  /// gather's body (one region, so that what the elements share -- the K
  /// position's channel and window offset -- is computed once).
  llvm::SmallVector<mlir::Value> loadElements(mlir::Value src,
                                              mlir::ValueRange idx,
                                              mlir::Value valid, int64_t n);
  /// The output's element at tile position (row, col) as f32, or 0 where
  /// the position lies outside the tile (the initial value of a sum that
  /// accumulates onto the output).
  mlir::Value initialValue(mlir::Value row, mlir::Value col);
  /// The output's value at tile position (row, col) from its f32 sum: the
  /// sum rounded to the output's type, then the epilogue's body (bias,
  /// activation, residual) on it, its other inputs read at the position.
  mlir::Value finalValue(mlir::OpBuilder &nb, mlir::Value sum, mlir::Value row,
                         mlir::Value col);
  /// Stores the f32 `sum` at tile position (row, col) through finalValue,
  /// where the position lies inside the tile.
  void storeMasked(mlir::Value sum, mlir::Value row, mlir::Value col);
};

/// The MFMA kernel body of one block (256 threads, `tid` the thread) for
/// the marked contraction `op` (MatrixCores.cpp).
mlir::LogicalResult emitMfmaKernel(mlir::OpBuilder &b, mlir::Location loc,
                                   const MmaPlan &p, mlir::linalg::LinalgOp op,
                                   mlir::linalg::LinalgOp epilogue,
                                   mlir::linalg::LinalgOp gather,
                                   mlir::Value tid);

/// The tensor-core kernel body of one block (128 threads: 4 warps of
/// mma.sync, or one warpgroup of wgmma) for the marked contraction `op`
/// (TensorCoreKernel.cpp).
mlir::LogicalResult
emitTensorCoreKernel(mlir::OpBuilder &b, mlir::Location loc, const MmaPlan &p,
                     mlir::linalg::LinalgOp op, mlir::linalg::LinalgOp epilogue,
                     mlir::linalg::LinalgOp gather, mlir::Value tid);

} // namespace hodu::gpu

#endif // HODU_LIB_TARGET_GPU_MATRIXKERNEL_H
