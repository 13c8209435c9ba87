//===- DistinctResults.cpp - one buffer per function result ---------------===//
//
// buffer-results-to-out-params replaces the allocation of each returned
// buffer by an out-parameter; a buffer returned twice would be replaced
// twice (upstream MLIR crashes on it). Each repeat becomes a copy into an
// allocation of its own, which then becomes its own out-parameter.
//
//===----------------------------------------------------------------------===//

#include "hodu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseSet.h"

namespace hodu {
#define GEN_PASS_DEF_DISTINCTRESULTS
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;

namespace {

struct DistinctResults
    : hodu::impl::DistinctResultsBase<DistinctResults> {
  void runOnOperation() override {
    // Only the body's own blocks return (no walk through every op).
    for (Block &block : getOperation().getBody()) {
      auto ret = dyn_cast_or_null<func::ReturnOp>(
          block.empty() ? nullptr : &block.back());
      if (!ret)
        continue;
      llvm::DenseSet<Value> seen;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<MemRefType>(v.getType());
        if (!type || seen.insert(v).second)
          continue;
        if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
          ret.emitError("a buffer of type ")
              << type << " is returned more than once";
          return signalPassFailure();
        }
        Value copy = memref::AllocOp::create(b, ret.getLoc(), type);
        memref::CopyOp::create(b, ret.getLoc(), v, copy);
        operand.set(copy);
      }
    }
  }
};

} // namespace
