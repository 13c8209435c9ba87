//===- Strategies.h - how hodu-gpu-tile maps kernels ------------*- C++ -*-===//
//
// Internal to lib/Target/GPU. hodu-gpu-tile (Tile.cpp) groups the linalg ops
// of a function into kernels and hands each kernel to one strategy, which
// picks the sizes from the static shapes and appends the tiling to a
// transform script:
//  - contraction (Contraction.cpp): block tiles, K steps through workgroup
//    memory, a register tile per thread, the elementwise epilogue fused;
//  - workgroup reduction (Reduction.cpp): a block per row (or a few rows),
//    finished after bufferisation by hodu-gpu-map-to-launches;
//  - per element (Elementwise.cpp): a thread per output element, reduction
//    loops (pooling windows, short rows) serial in the thread.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_GPU_STRATEGIES_H
#define HODU_LIB_TARGET_GPU_STRATEGIES_H

#include "hodu/Target/TransformScript.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace mlir {
class IRMapping;
} // namespace mlir

namespace hodu::gpu {

/// The largest divisor of `n` that is at most `most` (at least 1).
inline int64_t largestDivisor(int64_t n, int64_t most) {
  for (int64_t d = std::min(n, most); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// The largest power of two that is at most `n` (at least 1).
inline int64_t powerOfTwoBelow(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n)
    p *= 2;
  return p;
}

/// What the strategies read from hodu-gpu-tile's options.
struct TileOptions {
  int64_t maxThreads = 256;       // threads of a block
  int64_t minBlocks = 64;         // blocks a contraction should spread over
  int64_t workgroupBytes = 32768; // workgroup memory of a block
  int64_t tileK = 16;             // most K of a contraction's shared tiles
  int64_t reduceThreads = 256;    // most threads reducing one row
  int64_t minWorkgroupReduction = 32; // shortest row for a workgroup
  /// Contractions on matrix units (TensorCore.cpp, MatrixCores.cpp): ""
  /// none; NVIDIA's tensor cores: how f32 contractions compute there
  /// ("3xtf32" or "tf32"), with "+wgmma" where every architecture is
  /// sm_90a; AMD's matrix cores: "mfma", with "+bf16" and "+xf32" where
  /// every architecture has those. "+emulate" (a test hook) computes the
  /// MFMAs or wgmmas with the threads on any GPU.
  std::string tensorCores;
  /// Convolutions on the FMA units as implicit GEMMs: each K step gathers
  /// its tile of the input into workgroup memory (no im2col tensor).
  bool implicitGemm = true;
};

/// The discardable attribute on a contraction that runs on tensor cores:
/// its plan (TensorCore.cpp), from hodu-gpu-tile to
/// hodu-gpu-map-to-launches.
constexpr llvm::StringLiteral kTensorCore = "hodu.gpu.mma";

/// The discardable attribute on the gather of a convolution's input that
/// makes it a contraction (im2col), from prepareContractions to planning:
/// a contraction on the FMA units computes its tile of it in each K step
/// (the implicit GEMM), instead of a kernel of its own writing it whole.
constexpr llvm::StringLiteral kIm2col = "hodu.gpu.im2col";
/// An im2col gather fused into a matrix-unit contraction's block, which
/// the kernel computes in its K steps instead of reading a tensor (kept
/// through bufferisation for lowerTensorCoreContractions).
constexpr llvm::StringLiteral kMmaGather = "hodu.gpu.mma_gather";

/// The discardable attribute on the scf.forall of a fused attention chain
/// (hodu-gpu-fuse-attention), which hodu-gpu-tile makes one kernel.
constexpr llvm::StringLiteral kAttentionBlock = "hodu.gpu.attention";

/// The discardable attribute on a reduction that hodu-gpu-map-to-launches
/// turns into a workgroup reduction after bufferisation:
/// [row dim (-1: none), rows per block, threads per row].
constexpr llvm::StringLiteral kWorkgroupReduce = "hodu.gpu.workgroup_reduce";

/// Block or thread mapping attributes for the dims of `sizes` that are
/// tiled (non-zero), in loop order; `ids` gives each dim its mapping id
/// (x, y, z, then linear dims, which hodu-gpu-map-to-launches folds into z).
llvm::SmallVector<mlir::Attribute> mappingOf(mlir::MLIRContext *ctx,
                                             llvm::ArrayRef<int64_t> sizes,
                                             llvm::ArrayRef<int64_t> ids,
                                             bool blocks);

/// Block mapping ids for the tiled dims of `sizes`: `order` lists loops
/// from the one mapped to x outwards; dims of size 1 are left untiled.
llvm::SmallVector<int64_t> blockIds(llvm::ArrayRef<int64_t> ranges,
                                    llvm::SmallVectorImpl<int64_t> &sizes,
                                    llvm::ArrayRef<unsigned> order);

/// A contraction: two inputs, one output, a multiply-add body (possibly
/// widening), projected-permutation maps.
bool isContraction(mlir::linalg::LinalgOp op);
/// Whether the body of `op` is `out + a * b` over its two inputs (with
/// widening casts allowed).
bool hasMultiplyAddBody(mlir::linalg::LinalgOp op);

/// Rewrites done before tiling, on the ops of one function: named
/// contractions and convolutions generalised, a convolution's input
/// gathered into an im2col tensor so that what remains is a contraction,
/// consecutive K dims collapsed into one; with `collapseParallel` (the
/// tensor-core strategy, whose tiles want long rows) consecutive M dims and
/// consecutive N dims too. With `implicitGemm` an im2col gather reads its
/// input in its body and, where the contraction runs on the FMA units, is
/// collapsed like it, so that a K step of the contraction can compute its
/// tile of it (tileContraction).
void prepareContractions(mlir::RewriterBase &rewriter, mlir::Block &body,
                         const TileOptions &o);

/// If `consumer` can be the epilogue of its producer contraction (one use,
/// same tile, no type change), rewrites it to read the contraction's result
/// through its own output (in place; `consumer` is updated to the new op)
/// and returns the contraction.
mlir::linalg::LinalgOp fuseableEpilogue(mlir::RewriterBase &rewriter,
                                        mlir::linalg::LinalgOp &consumer);

/// The linalg op initialising `op`'s output (a fill or a parallel generic
/// with one use in the same block), which is fused into `op`'s kernel.
mlir::linalg::LinalgOp fuseableInit(mlir::linalg::LinalgOp op);
/// The scalar body of linalg `op` cloned at `b`'s insertion point, its
/// block arguments as `map` has them (the caller maps those it reads) and
/// each `linalg.index` as `indices` (by dim); returns what it yields.
mlir::Value cloneBodyAt(mlir::OpBuilder &b, mlir::linalg::LinalgOp op,
                        mlir::IRMapping &map, mlir::ValueRange indices);

/// Whether `op` is a reduction a workgroup reduces: one output, a known
/// combiner, rows long enough.
bool isWorkgroupReduction(mlir::linalg::LinalgOp op, const TileOptions &o);

/// The strategies: each appends the tiling of one kernel to `s`. `root` is
/// the handle of the op whose result leaves the kernel, `init` (may be
/// null) of the fused initialiser; a contraction's `gather` (may be null)
/// is the im2col gather of one of its operands, computed tile by tile in
/// its K steps.
void tileContraction(TransformScript &s, mlir::linalg::LinalgOp contraction,
                     mlir::Value contractionHandle,
                     mlir::linalg::LinalgOp epilogue,
                     mlir::Value epilogueHandle, mlir::linalg::LinalgOp init,
                     mlir::Value initHandle, mlir::linalg::LinalgOp gather,
                     mlir::Value gatherHandle, const TileOptions &o);
/// The im2col gather (kIm2col, one use) that contraction `op` reads, which
/// its kernel can compute in its K steps; else null.
mlir::linalg::LinalgOp fuseableGather(mlir::linalg::LinalgOp op);
void tileWorkgroupReduction(TransformScript &s, mlir::linalg::LinalgOp op,
                            mlir::Value handle, mlir::linalg::LinalgOp init,
                            mlir::Value initHandle, const TileOptions &o);
/// A thread per element of `op`'s output; with a `producer` (a reduction
/// that `op`, elementwise, reads element for element: the bias and
/// activation after a depthwise convolution), each thread computes its
/// elements of the producer first, initialised by `producerInit` (may be
/// null), into its private memory: one kernel for both.
void tilePerElement(TransformScript &s, mlir::linalg::LinalgOp op,
                    mlir::Value handle, mlir::linalg::LinalgOp init,
                    mlir::Value initHandle, const TileOptions &o,
                    mlir::Value producerHandle = mlir::Value(),
                    mlir::Value producerInitHandle = mlir::Value());
/// Whether `op` is a reduction a thread per output element computes (a
/// depthwise convolution, a pooling window): no contraction.
bool isPerElementReduction(mlir::linalg::LinalgOp op);
/// The reduction that elementwise `op` reads element for element and can
/// compute in its own kernel (tilePerElement), if any.
mlir::linalg::LinalgOp fuseableProducer(mlir::linalg::LinalgOp op,
                                        const TileOptions &o);

/// Whether contraction `op` can run on tensor cores under `o`.
bool runsOnTensorCores(mlir::linalg::LinalgOp op, const TileOptions &o);
/// Whether contraction `op` runs on tensor cores under `o`; if so, marks
/// it with its plan (and drops a zero fill of its output, which the
/// kernel's accumulators replace).
bool planTensorCore(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                    const TileOptions &o);
/// Constant weights laid out at compile time the way the matrix units read
/// them: each contraction of `body` that runs on NVIDIA tensor cores in
/// TF32 or 3xTF32, or on AMD matrix cores in any kind, and reads a
/// constant B stored [K][N] gets it as a new constant [N][K] (its map
/// swapped), so that the kernel loads B's fragments as it loads A's
/// (`ldmatrix`; 8-byte K-contiguous reads on AMD) instead of element by
/// element. NVIDIA's f16 and bf16 B [K][N] take `ldmatrix.trans` already.
void packWeightsForTensorCores(mlir::RewriterBase &rewriter, mlir::Block &body,
                               const TileOptions &o);
/// Split-K for matrix units: each contraction of `body` that runs on them
/// but fills too few blocks for the GPU (`minBlocks`) is split into slices
/// of K (upstream's linalg::splitReduction): one contraction over the
/// slices as a batch, then a kernel that sums the slices' partial results.
void splitKForMatrixUnits(mlir::RewriterBase &rewriter, mlir::Block &body,
                          const TileOptions &o);
/// Whether elementwise `epilogue` can be computed on a tensor-core
/// kernel's registers: inputs read at the output's position or broadcast,
/// a body of side-effect-free scalar ops without linalg.index.
bool epilogueOnRegisters(mlir::linalg::LinalgOp epilogue);
/// The im2col gather that the contraction planTensorCore marked reads as
/// its B stored [K][N], which the matrix-unit kernel can compute in its K
/// steps (an implicit GEMM: no im2col tensor, no gather kernel); else null.
mlir::linalg::LinalgOp fuseableTensorCoreGather(mlir::linalg::LinalgOp op);
/// The block loops of a contraction planTensorCore marked, with its
/// epilogue (may be null) tiled the same way and its gather (may be null,
/// fuseableTensorCoreGather) fused into each block.
void tileTensorCore(TransformScript &s, mlir::linalg::LinalgOp op,
                    mlir::Value handle, mlir::linalg::LinalgOp epilogue,
                    mlir::Value epilogueHandle, mlir::linalg::LinalgOp gather,
                    mlir::Value gatherHandle);
/// `sizes` over the contraction's loops as sizes over the loops of `op`,
/// whose output has the contraction's output shape through a permutation.
llvm::SmallVector<int64_t> onOutput(mlir::linalg::LinalgOp contraction,
                                    mlir::linalg::LinalgOp op,
                                    llvm::ArrayRef<int64_t> sizes);
/// The attention loop `loop` (kAttentionBlock) as one kernel: normalised
/// and mapped to blocks, each linalg op of its body tiled to threads (an
/// element, or a few, per thread; reductions serial in the thread).
mlir::LogicalResult tileAttentionBlock(mlir::RewriterBase &rewriter,
                                       mlir::scf::ForallOp loop,
                                       const TileOptions &o);

/// After bufferisation: the marked contraction in `block` becomes the
/// matrix-unit kernel body (128 threads on NVIDIA, 256 on AMD).
mlir::LogicalResult lowerTensorCoreContractions(mlir::scf::ForallOp block);

/// After bufferisation: every op hodu-gpu-tile marked for a workgroup
/// reduction under `root` becomes thread loops (partials, the tree levels,
/// the write of each row) in its block loop.
mlir::LogicalResult lowerWorkgroupReductions(mlir::Operation *root);

} // namespace hodu::gpu

#endif // HODU_LIB_TARGET_GPU_STRATEGIES_H
