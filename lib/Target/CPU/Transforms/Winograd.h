//===- Winograd.h - 3x3 convolutions by Winograd F(2x2,3x3) -----*- C++ -*-===//
//
// Internal to hodu-cpu-vectorize (Vectorize.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_WINOGRAD_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_WINOGRAD_H

#include "Packing.h"

#include <optional>
#include <string>

namespace mlir::linalg {
class Conv2DNchwFchwOp;
} // namespace mlir::linalg

namespace hodu::cpu {

/// Rewrites `conv`, a batch-1 f32 3x3 stride-1 convolution with a constant
/// filter and a filled output, as Winograd F(2x2,3x3) or (with `allowF4`)
/// F(4x4,3x3) (see Winograd.cpp), whichever its cost model finds cheapest,
/// if that is cheaper than the packed im2col matmul with register tile
/// `tile`, whose lanes do `directPairs` multiply-adds per instruction (2
/// where the bf16 dot products take it, --precision=bf16). Returns a
/// one-line description for --print-stats if it did; none (nothing
/// changed) if not.
std::optional<std::string> convToWinograd(mlir::linalg::Conv2DNchwFchwOp conv,
                                          RegisterTile tile, bool parallel,
                                          bool allowF4,
                                          int64_t directPairs = 1);

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_WINOGRAD_H
