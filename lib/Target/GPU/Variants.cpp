//===- Variants.cpp - a bundle's plans at smaller padded sizes ------------===//
//
// See mergeVariant in include/hodu/Target/GPU/Bundle.h. The module of a
// variant (the model compiled with its padded symbols at smaller sizes, a
// "bucket") has gone through the same phases as the bound's up to the
// kernel lowering: a host function @main, constant globals, and one
// gpu.module of kernels. It joins the bound's module before the kernel
// phase, so one code object holds every plan's kernels: its kernels and
// their helpers renamed apart into the bound's gpu.module, its constants
// shared with the bound's where they are equal (the weights of a model
// do not depend on its sizes), and its @main as a function of its own
// that the bundle writer reads as one more plan (docs/bundle.md,
// "Variants").
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Bundle.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace {

/// The one gpu.module of a module after the `gpu` phase (null without
/// kernels; an error with several).
FailureOr<mlir::gpu::GPUModuleOp> kernelModule(ModuleOp module) {
  auto modules = llvm::to_vector(module.getOps<mlir::gpu::GPUModuleOp>());
  if (modules.size() > 1)
    return module.emitError("internal error: ")
           << modules.size()
           << " kernel modules after the gpu phase, expected one";
  return modules.empty() ? mlir::gpu::GPUModuleOp() : modules.front();
}

/// Whether two constant globals hold the same data in the same type.
bool sameConstant(memref::GlobalOp a, memref::GlobalOp b) {
  return a.getConstant() && b.getConstant() && a.getType() == b.getType() &&
         a.getInitialValueAttr() == b.getInitialValueAttr() &&
         a.getAlignmentAttr() == b.getAlignmentAttr();
}

} // namespace

LogicalResult hodu::gpu::mergeVariant(ModuleOp module, ModuleOp variant,
                                      StringRef suffix,
                                      ArrayRef<int64_t> sizes) {
  MLIRContext *context = module.getContext();
  auto main = variant.lookupSymbol<func::FuncOp>("main");
  if (!main || main.isExternal())
    return variant.emitError("internal error: the variant has no @main");
  FailureOr<mlir::gpu::GPUModuleOp> into = kernelModule(module);
  FailureOr<mlir::gpu::GPUModuleOp> from = kernelModule(variant);
  if (failed(into) || failed(from))
    return failure();
  if (*from && !*into)
    return module.emitError("internal error: the variant has kernels, the "
                            "bound's plan none");
  SymbolTable top(module);

  // Kernels and their helpers, renamed apart: @from::@k -> @into::@k<suffix>.
  DenseMap<Attribute, SymbolRefAttr> kernels;
  if (*from) {
    SymbolTable table(*into);
    StringAttr fromName = from->getSymNameAttr();
    SmallVector<Operation *> moved;
    SmallVector<std::pair<StringAttr, StringAttr>> renamed;
    for (Operation &op :
         llvm::make_early_inc_range(from->getBody()->getOperations())) {
      auto symbol = dyn_cast<SymbolOpInterface>(&op);
      if (!symbol)
        continue;
      StringAttr name = symbol.getNameAttr();
      op.moveBefore(into->getBody(), into->getBody()->end());
      moved.push_back(&op);
      symbol.setName(StringAttr::get(context, name.getValue() + suffix));
      StringAttr unique = table.insert(&op);
      renamed.push_back({name, unique});
      auto func = dyn_cast<mlir::gpu::GPUFuncOp>(op);
      if (func && func.isKernel())
        kernels[SymbolRefAttr::get(fromName, FlatSymbolRefAttr::get(name))] =
            SymbolRefAttr::get(into->getSymNameAttr(),
                               FlatSymbolRefAttr::get(unique));
    }
    for (auto [old, now] : renamed)
      for (Operation *op : moved)
        if (failed(SymbolTable::replaceAllSymbolUses(old, now, op)))
          return op->emitError("internal error: cannot rename @")
                 << old.getValue() << " in a variant's kernels";
  }

  // Constants: the bound's where equal, else moved under a new name.
  DenseMap<StringAttr, StringAttr> globals;
  SmallVector<memref::GlobalOp> bound =
      llvm::to_vector(module.getOps<memref::GlobalOp>());
  for (memref::GlobalOp g :
       llvm::make_early_inc_range(variant.getOps<memref::GlobalOp>())) {
    StringAttr name = g.getSymNameAttr();
    auto same = llvm::find_if(
        bound, [&](memref::GlobalOp b) { return sameConstant(g, b); });
    if (same != bound.end()) {
      globals[name] = same->getSymNameAttr();
      continue;
    }
    g->moveBefore(module.getBody(), module.getBody()->end());
    g.setSymName((name.getValue() + suffix).str());
    globals[name] = top.insert(g);
  }
  main.walk([&](memref::GetGlobalOp get) {
    if (StringAttr to = globals.lookup(get.getNameAttr().getAttr()))
      get.setNameAttr(FlatSymbolRefAttr::get(to));
  });
  main.walk([&](mlir::gpu::LaunchFuncOp launch) {
    if (SymbolRefAttr to = kernels.lookup(launch.getKernel()))
      launch.setKernelAttr(to);
  });

  // The plan, a function of its own that nothing calls.
  main->moveBefore(module.getBody(), module.getBody()->end());
  main.setSymName(("main" + suffix).str());
  top.insert(main);
  main->setAttr(kVariantSizesAttr, DenseI64ArrayAttr::get(context, sizes));
  for (unsigned i = 0; i < main.getNumArguments(); ++i)
    main.setArgAttrs(i, DictionaryAttr::get(context));
  return success();
}
