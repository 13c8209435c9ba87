//===- Autodiff.h - the backward builder of hodu-autodiff -------*- C++ -*-===//
//
// Private to lib/Transforms: the gradients of one function being
// differentiated, and the rules (Autodiff.cpp: elementwise ops;
// AutodiffRules.cpp: reductions, matmul, shape, indexing, conv, pooling).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TRANSFORMS_AUTODIFF_H
#define HODU_LIB_TRANSFORMS_AUTODIFF_H

#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"

namespace hodu::autodiff {

inline bool isFloatTensor(mlir::Value v) {
  auto t = llvm::dyn_cast<mlir::RankedTensorType>(v.getType());
  return t && llvm::isa<mlir::FloatType>(t.getElementType());
}

inline mlir::RankedTensorType tensorOf(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType());
}

/// Builds the backward ops and keeps the gradients.
class Backward {
public:
  explicit Backward(mlir::OpBuilder &b) : loc(b.getUnknownLoc()), b(b) {}

  mlir::Value gradOf(mlir::Value v) const { return grads.lookup(v); }

  /// Adds `g` to the gradient of `v` (floating-point values only).
  void accumulate(mlir::Value v, mlir::Value g);

  /// The gradients of `op`'s operands from its result's gradient `g`;
  /// failure (with an error naming the op) where there is no rule.
  llvm::LogicalResult apply(mlir::Operation *op, mlir::Value g);

  mlir::Location loc;
  mlir::OpBuilder &b;

  // Helpers for the rules.
  mlir::Value splat(mlir::RankedTensorType t, double v);
  mlir::FloatAttr scalar(mlir::Type tensorType, double v);
  mlir::RankedTensorType boolLike(mlir::RankedTensorType t);
  mlir::RankedTensorType withShape(mlir::RankedTensorType t,
                                   llvm::ArrayRef<int64_t> shape);
  mlir::Value reshape(mlir::Value v, mlir::RankedTensorType t);
  mlir::Value broadcast(mlir::Value v, mlir::RankedTensorType t);
  mlir::Value select(mlir::Value cond, mlir::Value x, mlir::Value y);
  /// `g` (of a broadcast result's shape) summed over the dims along which
  /// a value of type `t` was broadcast, as a `t`.
  mlir::Value unbroadcast(mlir::Value g, mlir::RankedTensorType t);
  /// The last two dims of `v` swapped.
  mlir::Value transposeLast2(mlir::Value v);

private:
  /// The rules of AutodiffRules.cpp.
  llvm::LogicalResult applyStructured(mlir::Operation *op, mlir::Value g);

  llvm::DenseMap<mlir::Value, mlir::Value> grads;
};

/// The gradients of `loss` (a one-element float tensor) with respect to
/// `wrt`, built at `b`'s insertion point in `body` from the ops before it
/// (zeros for a value the loss does not depend on); failure with an error
/// naming the op where a rule is missing.
llvm::FailureOr<llvm::SmallVector<mlir::Value>>
gradients(mlir::OpBuilder &b, mlir::Location loc, mlir::Block &body,
          mlir::Value loss, llvm::ArrayRef<mlir::Value> wrt);

} // namespace hodu::autodiff

#endif // HODU_LIB_TRANSFORMS_AUTODIFF_H
