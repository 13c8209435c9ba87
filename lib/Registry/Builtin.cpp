//===- Builtin.cpp - components built into the compiler -------------------===//
#include "hodu/Registry/Registry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;
using namespace hodu;

/// `--input-shape` on .mlir: the pins must name entry-point inputs (by
/// `hodu.name`, else `input_<i>`) and match their types. IR carries its
/// types, and the importer does not re-infer a function body, so a pin that
/// differs from the file (or refines a dynamic dim) is an error that says so.
static LogicalResult checkPins(ModuleOp module, const ImportOptions &options) {
  if (!options.sequenceLengths.empty())
    return module.emitError("--sequence-length applies to ONNX sequence "
                            "inputs; the inputs of IR are tensors");
  if (options.inputShapes.empty())
    return success();
  func::FuncOp entry = module.lookupSymbol<func::FuncOp>("main");
  if (!entry) {
    auto isPublic = [](func::FuncOp f) {
      return !f.isPrivate() && !f.isExternal();
    };
    auto funcs = llvm::to_vector(
        llvm::make_filter_range(module.getOps<func::FuncOp>(), isPublic));
    if (funcs.size() == 1)
      entry = funcs.front();
  }
  if (!entry)
    return module.emitError("--input-shape: no entry function (@main)");
  for (const auto &[name, dims] : options.inputShapes) {
    std::optional<unsigned> index;
    for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
      auto n = entry.getArgAttrOfType<StringAttr>(i, "hodu.name");
      if (n ? n.getValue() == name : name == "input_" + std::to_string(i))
        index = i;
    }
    if (!index)
      return entry.emitError("--input-shape names '")
             << name << "', which is not an input of @" << entry.getSymName();
    auto type = dyn_cast<RankedTensorType>(entry.getArgumentTypes()[*index]);
    if (!type || type.getShape() != ArrayRef<int64_t>(dims)) {
      auto pinned = RankedTensorType::get(
          dims, type ? type.getElementType() : IntegerType::get(module.getContext(), 8));
      return entry.emitError("--input-shape for '")
             << name << "' asks for " << pinned << " but the .mlir file declares "
             << entry.getArgumentTypes()[*index]
             << "; the .mlir importer takes types as written (it does not "
                "re-infer the function), so write the static type in the file";
    }
  }
  return success();
}

static void registerMlirImporter() {
  ComponentRegistry::get().addImporter(
      {"mlir", "MLIR text or bytecode in the hodu dialect", {".mlir", ".mlirbc"},
       [](const std::string &path, MLIRContext &ctx,
          const ImportOptions &options) -> OwningOpRef<ModuleOp> {
         OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(path, &ctx);
         if (module && failed(checkPins(*module, options)))
           return nullptr;
         return module;
       }});
}

void hodu::registerBuiltinComponents() {
  static bool done = [] {
    registerMlirImporter();
    return true;
  }();
  (void)done;
}
