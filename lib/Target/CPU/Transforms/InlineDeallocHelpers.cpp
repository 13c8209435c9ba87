//===- InlineDeallocHelpers.cpp - inline @dealloc_helper -------------------===//
//
// See hodu-cpu-inline-dealloc-helpers in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/InliningUtils.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUINLINEDEALLOCHELPERS
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {
struct CpuInlineDeallocHelpers
    : hodu::cpu::impl::CpuInlineDeallocHelpersBase<CpuInlineDeallocHelpers> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> helpers;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPrivate() && !f.isExternal() &&
          f.getSymName().starts_with("dealloc_helper"))
        helpers.push_back(f);
    if (helpers.empty())
      return;
    InlinerInterface interface(&getContext());
    auto clone = [](OpBuilder &, Region *src, Block *inlineBlock,
                    Block *postInsertBlock, IRMapping &mapper,
                    bool shouldClone) {
      Region *into = inlineBlock->getParent();
      if (shouldClone)
        src->cloneInto(into, postInsertBlock->getIterator(), mapper);
      else
        into->getBlocks().splice(postInsertBlock->getIterator(),
                                 src->getBlocks(), src->begin(), src->end());
    };
    for (func::FuncOp helper : helpers) {
      SmallVector<func::CallOp> calls;
      module.walk([&](func::CallOp call) {
        if (call.getCallee() == helper.getSymName())
          calls.push_back(call);
      });
      for (func::CallOp call : calls) {
        if (failed(inlineCall(interface, clone,
                              cast<CallOpInterface>(call.getOperation()),
                              cast<CallableOpInterface>(helper.getOperation()),
                              &helper.getBody()))) {
          call.emitError("cannot inline @")
              << helper.getSymName()
              << ", which the CPU calling convention cannot call";
          return signalPassFailure();
        }
        call.erase();
      }
      helper.erase();
    }
  }
};
} // namespace
