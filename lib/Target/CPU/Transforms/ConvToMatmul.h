//===- ConvToMatmul.h - convolutions as matmuls -----------------*- C++ -*-===//
//
// Internal to hodu-cpu-vectorize (Vectorize.cpp); defined in
// ConvToMatmul.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_CONVTOMATMUL_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_CONVTOMATMUL_H

#include "Packing.h"

#include <optional>
#include <string>

namespace mlir::linalg {
class Conv2DNchwFchwOp;
} // namespace mlir::linalg

namespace hodu::cpu {

/// Marks the matmul of an im2col convolution, whose B is not packed.
inline constexpr llvm::StringLiteral kIm2col = "hodu.im2col";

/// conv_2d_nchw_fchw with batch 1 and static shapes -> an im2col copy and a
/// named matmul, so that convolutions take the vectorised matmul path:
///   col[c, kh, kw, oh, ow] = in[0, c, oh*sh + kh*dh, ow*sw + kw*dw]
///   out[f, oh*ow] = filter[f, c*kh*kw] x col[c*kh*kw, oh*ow]
/// The col buffer is filled by one strided slice copy per filter tap.
void convToIm2colMatmul(mlir::linalg::Conv2DNchwFchwOp conv);

/// A convolution of a batch larger than 1 becomes a loop over the batch of
/// batch-1 convolutions (the strategies below take batch 1 only: without
/// this, a batch of 3 fell to the generic lowering, 30-50 times slower than
/// three batch-1 runs). Returns the convolution inside the loop, or `conv`
/// itself when there is nothing to split.
mlir::linalg::Conv2DNchwFchwOp
splitConvBatch(mlir::linalg::Conv2DNchwFchwOp conv);

/// The unit attribute on the loops splitConvBatch makes, whose static
/// scratch hodu-cpu-hoist-parallel-allocs moves out of them.
inline constexpr llvm::StringLiteral kBatchLoop = "hodu.cpu.batch_loop";

/// A batch-1 conv with a constant filter whose output plane is narrower than
/// a vector (P = OH*OW < `lanes`) and whose filters fill at least two vectors
/// (F >= 2 * lanes): an STFT front end (257 filters of 512 taps, 5 output
/// frames), a squeeze-and-excitation 1x1 conv on a 1x1 plane (P = 1). The
/// packed path vectorises over the output columns and would compute a whole
/// vector of them (16 for 5: 3x the work, 16x for 1); this computes
///   out^T [P, F] = col^T [P, K] x W^T [K, F]
/// with the filters as the vector dimension (W^T transposed at compile time,
/// then packed like any constant B), and transposes the small result back.
/// Returns the strategy, or none (nothing changed) if the conv does not
/// qualify.
std::optional<std::string>
convToTransposedMatmul(mlir::linalg::Conv2DNchwFchwOp conv, int64_t lanes);

/// conv_2d_nchw_fchw with batch 1 and static shapes -> a packed matmul whose
/// column panels are written by the im2col taps inside the panel loop, each
/// just before the register kernels read it, on the thread that reads it
/// (so the copies run in parallel and their output is still in cache):
///   Bp[(oh, q), (c, kh, kw), r] = in[0, c, oh*sh + kh*dh, (q*nr + r)*sw + kw*dw]
///   out[f, oh, q*nr + r] = sum Ap[f/mr, (c, kh, kw), f%mr] * Bp[...]
/// Output rows are computed OWp = OW rounded up to nr wide (the input is
/// widened with zeros if needed, the extra columns are dropped), so panels
/// never straddle rows; or, at stride 1 when that computes fewer columns
/// (rows narrower than a panel), over the flattened input plane:
///   Bp[q, (c, kh, kw), r] = in_flat[c, (q*nr + r) + kh*dh*W + kw*dw]
/// whose output column p is (p / W, p % W), the W - OW last of each row
/// dropped. The filter (usually a constant) is packed at compile time.
/// False (nothing changed) if the conv does not qualify; else `what` says
/// which form and tile it took.
bool convToPackedMatmul(mlir::linalg::Conv2DNchwFchwOp conv, RegisterTile tile,
                        int64_t maxKc, bool parallel, std::string &what);

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_CONVTOMATMUL_H
