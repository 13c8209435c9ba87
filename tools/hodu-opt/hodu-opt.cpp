//===- hodu-opt.cpp - mlir-opt with the hodu dialect and passes -----------===//
//
// The hodu dialect, every upstream dialect Hodu lowers through, and all Hodu
// and upstream passes.
//
//===----------------------------------------------------------------------===//

#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<hodu::HoduDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  hodu::registerHoduPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Hodu optimizer driver\n", registry));
}
