//===- DirectConv.h - direct kernels for grouped convolutions ---*- C++ -*-===//
//
// Internal to hodu-cpu-vectorize (Vectorize.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_DIRECTCONV_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_DIRECTCONV_H

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class Operation;
namespace linalg {
class Conv2DNchwFchwOp;
} // namespace linalg
} // namespace mlir

namespace hodu::cpu {

/// Rewrites `op`, if it is the grouped 2-D convolution HoduToLinalg builds
/// (a linalg.generic over [N, G, C, Hp, Wp] x [G, M, C, KH, KW] ->
/// [N, G, M, OH, OW] summing C, KH and KW, from a filled output) with few
/// enough channels per group, into a direct register-blocked vector kernel
/// (see DirectConv.cpp). Returns a one-line description of the strategy
/// (for --print-stats): the kernel, or why the generic lowering keeps it;
/// none if `op` is not such a convolution.
std::optional<std::string> groupedConvToDirect(mlir::Operation *op,
                                               int64_t vectorBits,
                                               bool parallel);

/// Rewrites `conv`, an ungrouped f32/f64 convolution with at most 3 filters
/// (too few for the packed matmul's register tiles) and output rows of at
/// least 4 columns, from a filled output,
/// into the same direct kernel, as one group; the rows of a plane are split
/// over threads when there are few planes. Returns the strategy's
/// description, or none (`conv` unchanged) when it does not apply.
std::optional<std::string> convToDirect(mlir::linalg::Conv2DNchwFchwOp conv,
                                        int64_t vectorBits, bool parallel);

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_DIRECTCONV_H
