//===- RegisterAll.cpp - importers and targets built into hoduc -----------===//
#include "hodu/Driver/Compiler.h"
#include "hodu/Import/Hdss.h"
#include "hodu/Registry/Registry.h"

#ifdef HODU_HAVE_ONNX_IMPORTER
#include "hodu/Import/Onnx.h"
#endif

void hodu::registerAllComponents() {
  static bool done = [] {
    registerBuiltinComponents();
    registerHdssImporter();
#ifdef HODU_HAVE_ONNX_IMPORTER
    registerOnnxImporter();
#endif
    ComponentRegistry::get().addTarget(
        {"cpu", "host or cross-compiled CPU code through LLVM",
         {"so", "o", "a", "exe", "ll", "bc", "s", "mlir"}});
    return true;
  }();
  (void)done;
}
