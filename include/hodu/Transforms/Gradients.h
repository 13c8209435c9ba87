//===- Gradients.h - reverse-mode gradients of hodu ops ---------*- C++ -*-===//
//
// The gradient builder of hodu-autodiff and hodu-train-step, for builders
// outside lib/Transforms: the ONNX importer's Gradient op
// (ai.onnx.preview.training) differentiates the graph it has built so far
// with it.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TRANSFORMS_GRADIENTS_H
#define HODU_TRANSFORMS_GRADIENTS_H

#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"

namespace hodu {

/// The gradients of `y` (a floating-point tensor; of the sum of its
/// elements when it has several) with respect to each of `wrt`
/// (floating-point tensors), as hodu ops built at `b`'s insertion point in
/// `body` from the ops before it, by hodu-autodiff's rules: zeros for a
/// value `y` does not depend on, and failure, with an error at the op (for
/// an ONNX model, its node), where a rule is missing.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
buildGradients(mlir::OpBuilder &b, mlir::Location loc, mlir::Block &body,
               mlir::Value y, llvm::ArrayRef<mlir::Value> wrt);

} // namespace hodu

#endif // HODU_TRANSFORMS_GRADIENTS_H
