//===- Evaluator.h - hodu op semantics on constants -------------*- C++ -*-===//
//
// The one evaluator of hodu ops on constant operands. The ONNX importer
// (import-time evaluation), hodu-fold-constants and the dialect's folders
// call it, so an op means the same thing at compile time wherever it is
// evaluated. Ops are recognised by class.
//
// Constants are read in place through `ConstantView` (a `dense` attribute's
// raw storage or a `dense_resource` blob's bytes, never copied) and each
// result is written once through `ConstantWriter`. Element values are
// computed in double (floats) or 64-bit integers and rounded or truncated to
// the result dtype. Data is little-endian.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_DIALECT_HODU_EVALUATOR_H
#define HODU_DIALECT_HODU_EVALUATOR_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace mlir {
class AsmResourceBlob;
class Operation;
class Value;
} // namespace mlir

namespace hodu {

/// How the evaluator computes with an element type.
enum class ElementKind { Float, Signed, Unsigned, Bool };

/// The float formats that the evaluator reads and writes as C++ floats;
/// the others go through APFloat.
enum class FloatRepr : uint8_t { Other, F32, F64 };

/// The kind of `t`, or nullopt for types the evaluator does not handle
/// (widths that are not whole bytes, or wider than 64 bits).
std::optional<ElementKind> getElementKind(mlir::Type t);

/// A read-only view of a constant's elements (one byte per i1).
class ConstantView {
public:
  /// Views `attr`; nullopt unless it is a `dense` or `dense_resource`
  /// tensor of static shape whose element type has an ElementKind.
  static std::optional<ConstantView> get(mlir::Attribute attr);

  mlir::ElementsAttr getAttr() const { return attr; }
  mlir::RankedTensorType getType() const { return type; }
  llvm::ArrayRef<int64_t> shape() const { return type.getShape(); }
  ElementKind getKind() const { return kind; }
  int64_t size() const { return type.getNumElements(); }
  bool isSplat() const { return splat || type.getNumElements() == 1; }
  const char *ptr(int64_t i) const {
    return (useOwned ? owned.data() : data.data()) + (splat ? 0 : i * bytes);
  }
  /// The one element of a splat as a rank-0 tensor.
  ConstantView asScalar() const;

  /// The element's bytes, zero-extended.
  uint64_t raw(int64_t i) const;
  /// The value as a double (integers convert by signedness).
  double f(int64_t i) const {
    if (repr == FloatRepr::F32) {
      float v;
      std::memcpy(&v, ptr(i), 4);
      return v;
    }
    return slowF(i);
  }
  /// The integer value extended to 64 bits by the dtype's signedness.
  uint64_t s(int64_t i) const;
  /// Whether the element is nonzero.
  bool truth(int64_t i) const {
    return kind == ElementKind::Float ? f(i) != 0.0 : raw(i) != 0;
  }

private:
  double slowF(int64_t i) const;

  mlir::ElementsAttr attr;
  mlir::RankedTensorType type;
  ElementKind kind = ElementKind::Float;
  /// The float formats read without APFloat, known once per view (the
  /// folds of a large model read tens of millions of elements).
  FloatRepr repr = FloatRepr::Other;
  unsigned bytes = 0;
  llvm::ArrayRef<char> data;
  bool splat = false;
  // Unpacked i1 data (dense i1 storage is bit-packed); `data` is unused then.
  bool useOwned = false;
  std::vector<char> owned;
};

/// A result being written: into a heap resource blob when it is larger than
/// `resourceBytes`, else into a vector that becomes a `dense` attribute.
class ConstantWriter {
public:
  /// `type` must be static with an ElementKind.
  ConstantWriter(mlir::RankedTensorType type, int64_t resourceBytes);
  ~ConstantWriter();

  ElementKind getKind() const { return kind; }

  /// Stores the low bytes of `v` (any nonzero value is true for i1).
  void setRaw(int64_t i, uint64_t v);
  /// Rounds a double to the float dtype, or converts it to an integer one.
  void setF(int64_t i, double v) {
    if (repr == FloatRepr::F32) {
      float f = static_cast<float>(v);
      std::memcpy(data + i * 4, &f, 4);
      return;
    }
    slowSetF(i, v);
  }
  /// Copies element `j` of `in` (of the same dtype) to element `i`.
  void copy(int64_t i, const ConstantView &in, int64_t j);
  /// The attribute written; the writer is spent.
  mlir::ElementsAttr finish();

private:
  void slowSetF(int64_t i, double v);

  mlir::RankedTensorType type;
  ElementKind kind;
  FloatRepr repr;
  unsigned bytes;
  char *data = nullptr;
  std::vector<char> vec;
  std::unique_ptr<mlir::AsmResourceBlob> blob;
};

/// Bounds on one evaluation, so that a small model cannot make the compiler
/// compute (or allocate) 10^12 elements. Every caller chooses them.
struct EvaluationLimits {
  EvaluationLimits(int64_t maxElements, int64_t maxWork, int64_t resourceBytes)
      : maxElements(maxElements), maxWork(maxWork),
        resourceBytes(resourceBytes) {}

  /// Most elements of a result; a splat result (all inputs splat) counts
  /// as one.
  int64_t maxElements;
  /// Most elements one evaluation visits (a reduction visits its input,
  /// which may be a splat of any size).
  int64_t maxWork;
  /// Results of more bytes are written into a `dense_resource` blob.
  int64_t resourceBytes;
};

/// Evaluates the single-result hodu `op` on `operands`, the constant values
/// of all its operands. Returns null when the op is not one the evaluator
/// knows, when its value is left to run time (integer division by zero,
/// out-of-range float-to-int casts, ...) or when it is beyond `limits`.
mlir::ElementsAttr evaluate(mlir::Operation *op,
                            llvm::ArrayRef<ConstantView> operands,
                            const EvaluationLimits &limits);

/// Evaluates hodu `op` with any number of results (`split` has one per
/// piece): one attribute per result, or none when `evaluate` would give
/// null.
llvm::SmallVector<mlir::ElementsAttr>
evaluateResults(mlir::Operation *op, llvm::ArrayRef<ConstantView> operands,
                const EvaluationLimits &limits);

/// ONNX Range (numpy `arange`), which has no hodu op because its result's
/// size is its operands' value: `start + i * delta` for i in [0, n) with
/// n = max(ceil((limit - start) / delta), 0), in the dtype of the three
/// one-element operands. Null when they differ in dtype, when delta is 0 or
/// when n is beyond `limits`.
mlir::ElementsAttr evaluateRange(const ConstantView &start,
                                 const ConstantView &limit,
                                 const ConstantView &delta,
                                 const EvaluationLimits &limits);

/// The value of `v` when a `hodu.constant` defines it, else null.
mlir::ElementsAttr getConstantValue(mlir::Value v);

/// Replaces the hodu `op` by `hodu.constant`s of its results' values
/// (created just before it) when every operand is a `hodu.constant` and
/// `evaluateResults` computes them within `limits`, and erases `op`.
/// Returns the new constants, one per result, or none when `op` is left as
/// it is.
llvm::SmallVector<mlir::Value> foldToConstants(mlir::Operation *op,
                                               const EvaluationLimits &limits);

} // namespace hodu

#endif // HODU_DIALECT_HODU_EVALUATOR_H
