//===- ExpandStridedCopies.cpp - memref.copy without the runner library ---===//
//
// hodu-cpu-expand-strided-copies: a `memref.copy` between buffers that are
// not both contiguous lowers to a call to `memrefCopy` from MLIR's runner
// utilities, which artifacts must not depend on. Such copies become
// `linalg.copy`, which lowers to loops.
//
//===----------------------------------------------------------------------===//

#include "CPUTarget.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {
struct ExpandStridedCopiesPass
    : PassWrapper<ExpandStridedCopiesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandStridedCopiesPass)

  StringRef getArgument() const override {
    return "hodu-cpu-expand-strided-copies";
  }
  StringRef getDescription() const override {
    return "Strided memref.copy as linalg.copy, so that artifacts need no "
           "runner library (CPU)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect>();
  }
  void runOnOperation() override {
    getOperation().walk([](memref::CopyOp copy) {
      auto identity = [](Value v) {
        return cast<MemRefType>(v.getType()).getLayout().isIdentity();
      };
      if (identity(copy.getSource()) && identity(copy.getTarget()))
        return;
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    });
  }
};
} // namespace

void hodu::cpu::registerExpandStridedCopiesPass() {
  PassRegistration<ExpandStridedCopiesPass>();
}
