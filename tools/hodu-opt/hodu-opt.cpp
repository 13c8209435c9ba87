//===- hodu-opt.cpp - mlir-opt with the hodu dialect and passes -----------===//
//
// The hodu dialect, every upstream dialect Hodu lowers through, all Hodu and
// upstream passes, and the named pipelines of the shared phases and of every
// target (hodu-shared-hodu, hodu-cpu-llvm, ...), so each step hoduc takes
// can be replayed on the IR `hoduc --compile-to` prints.
//
//===----------------------------------------------------------------------===//

#include "hodu/Driver/Compiler.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  hodu::registerCompilerDialects(registry);
  hodu::registerAllCompilerPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Hodu optimizer driver\n", registry));
}
