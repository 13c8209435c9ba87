//===- Int8DotCommon.h - what the int8 kernels share ------------*- C++ -*-===//
//
// Internal to the int8 kernels of hodu-cpu-vectorize (Int8Dot.cpp,
// Int8DotConv.cpp, Int8DotMatmul.cpp). Int8Dot.cpp defines what the
// convolution and matmul kernels share: the matching of the uint8 operands
// and constant weights, the vectors and dot products the kernels are built
// of, the correction of their int32 sums, and the AMX panels.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_INT8DOTCOMMON_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_INT8DOTCOMMON_H

#include "Int8Dot.h"
#include "TileLoop.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace hodu::cpu::int8dot {

// AMX: a tile is 16 rows of 64 bytes (K: 16 words of 4 bytes; an int32
// accumulator: 16 columns). Below kAmxMinRows rows of x, the padding to 16
// costs more than the tiles gain over VNNI (a quarter of the rows used is
// about VNNI's peak).
constexpr int64_t kTileRows = 16;
constexpr int64_t kAmxMinRows = 4;
constexpr int64_t kAmxGroups = 8; // most panel groups of one matmul

//===----------------------------------------------------------------------===//
// The operands
//===----------------------------------------------------------------------===//

/// The single op of `g`'s body before its yield, if it has exactly one and
/// the yield returns it.
mlir::Operation *singleBodyOp(mlir::linalg::GenericOp g);

/// Whether `g` is elementwise: all loops parallel, all maps identities.
bool allParallelIdentity(mlir::linalg::GenericOp g);

/// Where a convolution's input comes from: the uint8 tensor, its zero point
/// (a 0-d uint8 tensor, or a constant), the static slice taken of it.
struct Uint8Input {
  mlir::Value x;          // tensor of i8, uint8 values
  mlir::Value zeroTensor; // tensor<i8> (uint8) or null
  int64_t zeroConst = 0;  // when zeroTensor is null
  // A slice of x (the importer's channel parts), else empty.
  llvm::SmallVector<mlir::OpFoldResult> offsets, sizes;
};

/// Matches the conv input (after its zero padding) as uitofp(x) - zx, or
/// uitofp(x), or a static unit-stride slice of either.
std::optional<Uint8Input> matchUint8Input(mlir::Value v);

/// The values of a constant f32/f64/i32/i64 tensor, if it is one.
std::optional<std::vector<double>> constantValues(mlir::Value v);

/// Whether `init` (a conv's or matmul's output operand) is a fill of 0.
bool startsAtZero(mlir::Value init);

//===----------------------------------------------------------------------===//
// The kernels' vectors, dot products and weights
//===----------------------------------------------------------------------===//

/// The kernels' vectors for an Int8Isa: 32-bit words of `per` values of
/// type `elt` (4 bytes, or 2 int16), `lanes` words to a vector.
struct Dot {
  bool vnni;
  int64_t lanes, per;
  mlir::Type elt;
  int64_t registers;
  Dot(mlir::MLIRContext *ctx, const hodu::cpu::Int8Isa &kernels)
      : vnni(kernels.vnni), lanes(kernels.vnni ? 16 : kernels.vectorBits / 32),
        per(kernels.vnni ? 4 : 2),
        elt(mlir::IntegerType::get(ctx, kernels.vnni ? 8 : 16)),
        registers(kernels.registers) {}
  /// One vector of words, as values.
  mlir::VectorType values() const {
    return mlir::VectorType::get({per * lanes}, elt);
  }
  /// One vector of int32 sums.
  mlir::VectorType sums() const {
    return mlir::VectorType::get({lanes},
                                 mlir::IntegerType::get(elt.getContext(), 32));
  }
  /// The range of a weight.
  int64_t lowest() const { return vnni ? -128 : -32768; }
  int64_t highest() const { return vnni ? 127 : 32767; }
  /// Rows of a register block of `vecs` accumulators per row: they, the
  /// `vecs` B vectors, a broadcast word (and vpmaddwd's product) in the
  /// registers.
  int64_t maxRows(int64_t vecs) const {
    return registerRows(registers, vecs, vnni ? 1 : 2);
  }
  /// Its name in strategies.
  llvm::StringRef name() const {
    return vnni          ? "int8 dot products (AVX-512 VNNI)"
           : lanes == 16 ? "int16 pair products (AVX-512BW vpmaddwd)"
                         : "int16 pair products (AVX2 vpmaddwd)";
  }
};

/// acc + the sums of `per` products zext(u) * sext(s) per int32 lane, as
/// vector ops marked kInt8Dot: one vpdpbusd (or vpmaddwd and an add) once
/// hodu-cpu-vector-to-llvm sees it (after bufferization, which takes no
/// LLVM intrinsic calls). With int16 pairs, u's values are uint8 (so that
/// its zero extension is its sign extension, as vpmaddwd's is).
mlir::Value int8Dot(mlir::OpBuilder &b, mlir::Location loc, const Dot &d,
                    mlir::Value acc, mlir::Value u, mlir::Value s);

/// Constant weights as int8 (int16 for pairs): per output, the offset `off`
/// that brings its whole-number weights W' into [lowest, highest] (0 where
/// they already are; none if some output's span more or a value is not
/// whole), and the sums of W'. With an offset,
/// sum W' x = sum (W' - off) x + off * sum x.
struct Int8Weights {
  llvm::SmallVector<int32_t> offsets, sums;
  bool needSums = false; // some offset is not 0
};

/// The Int8Weights of `outputs` outputs of `terms` weights each, weight k
/// of output o being value(o, k); none if they do not fit (see
/// Int8Weights).
std::optional<Int8Weights>
int8Weights(const Dot &d, int64_t outputs, int64_t terms,
            llvm::function_ref<double(int64_t, int64_t)> value);

/// The result of an int8 product: y = acc + off * inputSums - zx * sum W'
/// per element, as `type` (float: converted; int32: as it is). `acc` is
/// read through `accMap`, the per-output constants (`w.sums`, `w.offsets`)
/// through `outputMap`, `inputSums` (with offsets only) through `inputMap`.
mlir::Value correctedSums(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::RankedTensorType type, mlir::Value acc,
                          mlir::AffineMap accMap, const Int8Weights &w,
                          mlir::AffineMap outputMap, mlir::Value inputSums,
                          mlir::AffineMap inputMap, mlir::Value zx32);

/// The zero point of `in` as an i8 value (uint8).
mlir::Value zeroPoint(mlir::OpBuilder &b, mlir::Location loc,
                      const Uint8Input &in);

/// The uint8 tensor of `in`, sliced as the float one was.
mlir::Value slicedSource(mlir::OpBuilder &b, mlir::Location loc,
                         const Uint8Input &in);

/// Static offsets, sizes or strides.
llvm::SmallVector<mlir::OpFoldResult>
indexAttrs(mlir::OpBuilder &b, llvm::ArrayRef<int64_t> values);

/// The index constant `v`.
mlir::Value idx(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

//===----------------------------------------------------------------------===//
// AMX tiles
//===----------------------------------------------------------------------===//

/// The marked generic of AMX panels, which hodu-cpu-amx-tiles lowers:
///   out += ext(a) * ext(w)
/// over `maps`' last two dims (the reductions; the others parallel), `a`
/// zero-extended and `w` sign-extended where `unsignedA`, else the reverse.
mlir::Value amxPanels(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                      mlir::Value w, mlir::Value out,
                      llvm::ArrayRef<mlir::AffineMap> maps, bool unsignedA);

/// Whether the OS lets the run use the AMX tiles: a call, before `at`, of
/// @__hodu_amx_ready (declared here, defined by hodu-cpu-amx-tiles).
mlir::Value amxReady(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::Operation *at);

/// The tile kernel where `ready`, else the VNNI one: both build the same
/// sums (into the same tensor, so that neither branch needs a buffer).
mlir::Value
tilesOrVnni(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ready,
            llvm::function_ref<mlir::Value(mlir::OpBuilder &)> tiles,
            llvm::function_ref<mlir::Value(mlir::OpBuilder &)> vnni);

} // namespace hodu::cpu::int8dot

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_INT8DOTCOMMON_H
