//===- Int8Conv.h - convolutions of 8-bit integers on int8 dots -*- C++ -*-===//
//
// Internal to hodu-cpu-vectorize (Vectorize.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_INT8CONV_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_INT8CONV_H

#include <optional>
#include <string>

namespace mlir::linalg {
class Conv2DNchwFchwOp;
} // namespace mlir::linalg

namespace hodu::cpu {

/// Marks the vector.multi_reduction of an int8 dot product (Int8Conv.cpp),
/// which hodu-cpu-vectorize-generics leaves alone and hodu-cpu-vector-to-llvm
/// turns into one vpdpbusd.
inline constexpr char kInt8Dot[] = "hodu.int8_dot";

/// Rewrites `conv`, a batch-1 float convolution of uitofp(x) - zx (x uint8,
/// zx a uint8 scalar, zero padding) by a constant filter of whole numbers
/// that fit an int8, into int32 sums of AVX-512 VNNI dot products (see
/// Int8Conv.cpp), the same integers as the float convolution's. Returns the
/// strategy's description, or none (`conv` unchanged) when it does not
/// apply. The caller checks that the target has AVX-512 VNNI and BW.
std::optional<std::string> convToInt8Dot(mlir::linalg::Conv2DNchwFchwOp conv,
                                         bool parallel);

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_INT8CONV_H
