//===- DType.h - element types as the artifact ABI numbers them -*- C++ -*-===//
//
// The compiler's side of the one dtype table: runtime/include/hodu/abi.h
// defines the numbering (upstream Hodu's DType), names and sizes; this maps
// MLIR element types onto it and back. Every place in the compiler that
// needs a dtype number, name or C type asks here.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_SUPPORT_DTYPE_H
#define HODU_SUPPORT_DTYPE_H

#include "hodu/abi.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

#include <string>
#include <utility>

namespace mlir {
class Attribute;
class MLIRContext;
class RankedTensorType;
class Type;
class TypedAttr;
} // namespace mlir

namespace hodu {

/// The ABI dtype of an MLIR element type (i1 is bool; signless and signed
/// integers are signed, unsigned integers unsigned); nullopt for element
/// types the ABI cannot describe.
std::optional<hodu_dtype> dtypeOf(mlir::Type type);

/// The MLIR element type of an ABI dtype (unsigned integers as `uiN`);
/// a null type for numbers outside the table.
mlir::Type elementTypeOf(mlir::MLIRContext *context, int32_t dtype);

/// "f32", "i64", ...; "?" for numbers outside the table.
const char *dtypeName(int32_t dtype);

/// The elements of a constant (`dense` or `dense_resource`) as the ABI
/// stores them: row-major, little-endian, splats expanded, i1 one byte per
/// element. False for other attributes and missing resource blobs.
bool constantBytes(mlir::Attribute value, std::string &bytes);

/// The bytes a constant (`dense` or `dense_resource`) is stored in, without
/// copying them, and whether they are a splat's one element (a dense i1's
/// are packed in bits). None for other attributes and missing blobs.
std::optional<std::pair<llvm::ArrayRef<char>, bool>>
constantStorage(mlir::Attribute value);

/// The constant `value` (`dense` or `dense_resource`, of byte-sized
/// elements), read as a row-major [rows, cols] matrix, transposed into
/// `type` ([cols, rows] elements): a splat stays a splat, other data is a
/// new `dense_resource` named `name`. Null for other attributes, missing
/// blobs, i1 elements or data shorter than rows x cols. Weights laid out
/// at compile time the way a kernel reads them.
mlir::TypedAttr transposedConstant(mlir::Attribute value, int64_t rows,
                                   int64_t cols, mlir::RankedTensorType type,
                                   llvm::StringRef name);

/// Bytes per element (bool: one); 0 outside the table.
/// The element count of `shape` when it is more than `limit`, as text
/// ("1100585369600", or "more than 2^63" when the product overflows), else
/// nullopt; nullopt too for a shape with a dynamic (negative) dim before the
/// product overflows. hoduc --max-tensor-elements: the driver's check of
/// every tensor and the ONNX importer's of each node.
std::optional<std::string> elementCountOverLimit(llvm::ArrayRef<int64_t> shape,
                                                 int64_t limit);

unsigned dtypeSize(int32_t dtype);

/// The C type that stores one element ("float", "uint16_t" for bf16/f16,
/// "uint8_t" for bool and the f8 types); "void" outside the table.
const char *dtypeCType(int32_t dtype);

} // namespace hodu

#endif // HODU_SUPPORT_DTYPE_H
