//===- Builtin.cpp - components built into the compiler -------------------===//
#include "hodu/Registry/Registry.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

using namespace hodu;

static void registerMlirImporter() {
  ComponentRegistry::get().addImporter(
      {"mlir", "MLIR text or bytecode in the hodu dialect", {".mlir", ".mlirbc"},
       [](const std::string &path, mlir::MLIRContext &ctx,
          const ImportOptions &) -> mlir::OwningOpRef<mlir::ModuleOp> {
         return mlir::parseSourceFile<mlir::ModuleOp>(path, &ctx);
       }});
}

void hodu::registerBuiltinComponents() {
  static bool done = [] {
    registerMlirImporter();
    return true;
  }();
  (void)done;
}
