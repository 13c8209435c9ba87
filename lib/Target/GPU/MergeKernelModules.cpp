//===- MergeKernelModules.cpp - all kernels in one gpu.module -------------===//
//
// See hodu-gpu-merge-kernel-modules in include/hodu/Target/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace hodu::gpu {
#define GEN_PASS_DEF_GPUMERGEKERNELMODULES
#include "hodu/Target/GPU/Passes.h.inc"
} // namespace hodu::gpu

using namespace mlir;

namespace {
struct GpuMergeKernelModules
    : hodu::gpu::impl::GpuMergeKernelModulesBase<GpuMergeKernelModules> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto modules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
    if (modules.empty())
      return;
    SymbolTable top(module);
    OpBuilder b(modules.front());
    auto merged = gpu::GPUModuleOp::create(b, module.getLoc(), moduleName);
    top.insert(merged); // renamed should a model symbol have the name
    SymbolTable table(merged);

    // Kernel renames: @old_module::@kernel -> @merged::@old_module.
    DenseMap<Attribute, SymbolRefAttr> kernels;
    for (gpu::GPUModuleOp old : modules) {
      StringAttr oldName = old.getSymNameAttr();
      SmallVector<Operation *> moved;
      SmallVector<std::pair<StringAttr, StringAttr>> renamed;
      for (Operation &op : llvm::make_early_inc_range(old.getBody()->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(&op);
        if (!symbol)
          continue;
        StringAttr name = symbol.getNameAttr();
        op.moveBefore(merged.getBody(), merged.getBody()->end());
        moved.push_back(&op);
        auto func = dyn_cast<gpu::GPUFuncOp>(op);
        if (func && func.isKernel()) {
          // Kernels are all named after their function; their modules'
          // names are unique.
          symbol.setName(oldName);
          kernels[SymbolRefAttr::get(oldName, FlatSymbolRefAttr::get(name))] =
              SymbolRefAttr::get(merged.getSymNameAttr(),
                                 FlatSymbolRefAttr::get(table.insert(&op)));
          continue;
        }
        StringAttr unique = table.insert(&op);
        if (unique != name)
          renamed.push_back({name, unique});
      }
      for (auto [from, to] : renamed)
        for (Operation *op : moved)
          if (failed(SymbolTable::replaceAllSymbolUses(from, to, op)))
            return signalPassFailure();
      old.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (SymbolRefAttr to = kernels.lookup(launch.getKernel()))
        launch.setKernelAttr(to);
    });
  }
};
} // namespace
