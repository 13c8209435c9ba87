//===- HoduOpsCommon.h - helpers shared by the op files ---------*- C++ -*-===//
//
// Shared by the per-family op files (Hodu<Family>Ops.cpp) of the dialect.
// Private to lib/Dialect/Hodu.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_LIB_DIALECT_HODU_HODUOPSCOMMON_H
#define HODU_LIB_DIALECT_HODU_HODUOPSCOMMON_H

#include "hodu/Dialect/Hodu/HoduOps.h"

#include <string>

namespace hodu::detail {
/// Prints a shape for diagnostics: `[2, ?, 3]`.
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

inline mlir::RankedTensorType rankedType(mlir::Type t) {
  return llvm::cast<mlir::RankedTensorType>(t);
}

inline bool isBool(mlir::Type t) { return t.isInteger(1); }

/// Checks that every entry of `dims` is in [0, rank) and appears once.
llvm::LogicalResult checkDims(std::optional<mlir::Location> loc,
                              llvm::ArrayRef<int64_t> dims, int64_t rank,
                              llvm::StringRef what);

/// Checks that `dim` is in [0, rank) (shape inference: "dim D is out of
/// range for rank R" at `loc`).
inline llvm::LogicalResult checkDim(std::optional<mlir::Location> loc,
                                    int64_t dim, int64_t rank) {
  return checkDims(loc, dim, rank, "dim");
}

/// The same check in a verifier, reported on `op`.
llvm::LogicalResult verifyDim(mlir::Operation *op, int64_t dim, int64_t rank);

/// Checks that the element type of `op`'s (single) result is `expected`.
llvm::LogicalResult verifyResultElementType(mlir::Operation *op,
                                            mlir::Type expected);

/// Output size of a window of `k` taps with dilation `d` and stride `s` over
/// `in` padded by `pb`/`pe` (pooling and convolution).
int64_t windowOutSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb,
                      int64_t pe);
} // namespace hodu::detail

#endif // HODU_LIB_DIALECT_HODU_HODUOPSCOMMON_H
