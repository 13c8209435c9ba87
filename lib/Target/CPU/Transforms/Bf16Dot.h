//===- Bf16Dot.h - f32 matmuls on bf16 dot products -------------*- C++ -*-===//
//
// Internal to hodu-cpu-vectorize (Vectorize.cpp); defined in Bf16Dot.cpp.
// hoduc --precision=bf16 on a target with AVX512-BF16.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_BF16DOT_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_BF16DOT_H

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class Location;
class OpBuilder;
class Value;
namespace linalg {
class BatchMatmulOp;
class Conv2DNchwFchwOp;
class MatmulOp;
} // namespace linalg
} // namespace mlir

namespace hodu::cpu {

/// Marks the vector.multi_reduction of a bf16 dot product (Bf16Dot.cpp),
/// which hodu-cpu-vectorize-generics leaves alone and hodu-cpu-vector-to-llvm
/// turns into one vdpbf16ps: 16 f32 lanes, each adding the products of a
/// pair of bf16 values.
inline constexpr char kBf16Dot[] = "hodu.bf16_dot";

/// Rewrites `mm`, a static f32 matmul (from zero) of A [M, K] by B [K, N],
/// into f32 sums of bf16 pair products (AVX512-BF16 vdpbf16ps): B rounded
/// to bf16 (nearest even) and packed in panels of one or two vectors'
/// columns, word g of a column holding B[2g, j] and B[2g + 1, j] (at
/// compile time for a constant B, else on every run); A rounded to bf16 on
/// every run, a row's pair broadcast per step; row blocks as many as
/// `registers` vector registers hold; panels over threads where
/// `parallel`. Returns the strategy's description, or none (`mm` unchanged)
/// when it does not apply. The caller checks that the target has the
/// instructions.
std::optional<std::string> matmulToBf16Dot(mlir::linalg::MatmulOp mm,
                                           bool parallel, int64_t registers);

/// The same for a static f32 batch matmul (attention's Q K^T and P V): each
/// batch's B packed on every run; units of one batch and one panel over
/// threads.
std::optional<std::string> batchMatmulToBf16Dot(mlir::linalg::BatchMatmulOp mm,
                                                bool parallel,
                                                int64_t registers);

/// Rewrites `conv`, a batch-1 static f32 convolution by a constant filter,
/// into f32 sums of bf16 pair products (Bf16DotConv.cpp): the filter rounded
/// and packed as words of two channels at compile time, the input rounded
/// once per run, panels of one output row's columns (or of the flattened
/// plane) written per thread, register blocks of filters by one or two
/// vectors of columns. Returns the strategy's description, or none (`conv`
/// unchanged) when it does not apply. The caller checks the target.
std::optional<std::string> convToBf16Dot(mlir::linalg::Conv2DNchwFchwOp conv,
                                         bool parallel, int64_t registers);

/// A tensor of f32 rounded to bf16 (arith.truncf: nearest even).
mlir::Value roundToBf16(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value f32Tensor);

/// The bits of `f` as bf16, rounded to nearest even (NaN stays NaN): what
/// vcvtneps2bf16 gives for a normal f32.
uint16_t bf16Bits(float f);

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_BF16DOT_H
