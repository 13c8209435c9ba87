//===- Int8Dot.h - 8-bit integer convs and matmuls in int32 ---*- C++ -*-===//
//
// Internal to hodu-cpu-vectorize (Vectorize.cpp); defined in Int8DotConv.cpp
// and Int8DotMatmul.cpp, of the pieces in Int8Dot.cpp (Int8DotCommon.h).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_INT8DOT_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_INT8DOT_H

#include <optional>
#include <string>

namespace mlir::linalg {
class Conv2DNchwFchwOp;
class MatmulOp;
class GenericOp;
} // namespace mlir::linalg

namespace hodu::cpu {

/// Marks the vector.multi_reduction of an int8 dot product (Int8Dot.cpp),
/// which hodu-cpu-vectorize-generics leaves alone and hodu-cpu-vector-to-llvm
/// turns into one vpdpbusd (bytes), or one vpmaddwd and an add (int16
/// pairs).
inline constexpr char kInt8Dot[] = "hodu.int8_dot";

/// The instructions the int8 kernels are built of.
struct Int8Isa {
  /// AVX-512 VNNI (vpdpbusd: 16 int32 lanes, each adding 4 uint8 x int8
  /// products), else int16 pairs (vpmaddwd: vectorBits / 32 lanes, each the
  /// sum of 2 int16 products, then vpaddd): AVX2, or AVX-512BW at 512.
  bool vnni = true;
  unsigned vectorBits = 512;
  /// Vector registers of the target (16 for AVX2, 32 for AVX-512).
  unsigned registers = 32;
  /// With vnni: AMX tiles where the OS grants them (see convToInt8Dot).
  bool amx = false;
};

/// Marks the linalg.generic of panels of an int8 matmul or convolution on
/// AMX tiles (Int8Dot.cpp), which the tensor passes leave alone and
/// hodu-cpu-amx-tiles lowers to tile instructions after bufferization.
inline constexpr char kAmxTiles[] = "hodu.amx_tiles";

/// The function an artifact asks, at run time, whether the OS lets it use
/// the AMX tile registers (hodu-cpu-amx-tiles defines it).
inline constexpr char kAmxReady[] = "__hodu_amx_ready";

/// Rewrites `conv`, a batch-1 float convolution of uitofp(x) - zx (x uint8,
/// zx a uint8 scalar, zero padding) by a constant filter of whole numbers
/// that fit an int8 (VNNI) or int16 (pairs), into int32 sums of dot
/// products (see Int8Dot.cpp), the same integers as the float
/// convolution's. Returns the strategy's description, or none (`conv`
/// unchanged) when it does not apply. The caller checks that the target
/// has the instructions of `kernels`. With `kernels.amx`, the products use AMX
/// tiles where the OS allows them at run time (the VNNI kernels where it
/// does not).
std::optional<std::string> convToInt8Dot(mlir::linalg::Conv2DNchwFchwOp conv,
                                         bool parallel, const Int8Isa &kernels);

/// Rewrites `mm`, a static float matmul (from zero) of uitofp(x) - zx (x
/// uint8 [M, K], or collapsed from a batch of rows; zx a uint8 scalar) by a
/// constant [K, N] of whole numbers, each column's within 255 of each other,
/// into int32 sums of dot products: the columns packed as int8 words (or
/// int16 pairs) at compile time, panels of two vectors' (or one vector's)
/// columns over threads, row blocks of rows of x broadcast a word at a
/// time. With `kernels.amx` (the target has AMX-INT8 and asks Linux for it),
/// matmuls of enough rows use tile instructions where the OS allows them
/// at run time, the VNNI kernels where it does not. Returns the strategy's
/// description, or none (`mm` unchanged) when it does not apply. The
/// caller checks the target.
std::optional<std::string> matmulToInt8Dot(mlir::linalg::MatmulOp mm,
                                           bool parallel, const Int8Isa &kernels);

/// The importer's integer matmul in K parts (MatMulInteger, QLinearMatMul
/// whose sums f32 does not hold exactly: f32 matmuls over slices of K of
/// the same A by constants, each converted to int32, added in int32) as one
/// int8 matmul over the whole K, whose int32 sums need no parts. `add` is
/// the root of the int32 adds. Returns the strategy's description, or none
/// (nothing changed) when it does not apply.
std::optional<std::string> mergedPartsToInt8Dot(mlir::linalg::GenericOp add,
                                                bool parallel,
                                                const Int8Isa &kernels);

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_INT8DOT_H
