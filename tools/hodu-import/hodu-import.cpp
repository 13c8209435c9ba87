//===- hodu-import.cpp - import a model file and print the hodu module ----===//
//
// A test driver for the importers (lit tests, scripts/onnx-import-coverage.sh):
//
//   hodu-import MODEL.onnx [--input-shape=NAME:DIMS]...
//               [--freeze-input=NAME=FILE.pb]... [-o out.mlir]
//
// Imports, verifies and prints the module; exits 1 on any error. `hoduc` is
// the user-facing driver. `--input-shape` splits at the last ':' because
// ONNX value names may contain colons.
//
//===----------------------------------------------------------------------===//

#include "hodu/Import/Onnx.h"
#include "hodu/Support/Diagnostics.h"
#include "hodu/Support/Names.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model>"),
                                      cl::Required);
static cl::opt<std::string> outputPath("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"));
static cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("Pin an input's shape: NAME:D0xD1x... (repeatable)"),
                cl::value_desc("NAME:DIMS"));

static cl::list<std::string> sequenceLengths(
    "sequence-length",
    cl::desc("The length of a sequence input: NAME:N (repeatable)"),
    cl::value_desc("NAME:N"));

static cl::list<std::string> freezeInputs(
    "freeze-input",
    cl::desc("Import a graph input as a constant: NAME=FILE.pb, or "
             "NAME=DIR to pick DIR/input_*.pb by name (repeatable)"),
    cl::value_desc("NAME=FILE"));

// On by default here, the importer's test driver: libonnx's shape inference
// cross-checks the importer's types (hoduc has it off by default).
static cl::opt<bool> onnxShapeCheck(
    "onnx-shape-check",
    cl::desc("Check the importer's types against libonnx's shape inference"),
    cl::init(true));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --mlir-print-debuginfo and friends (locations are the ONNX node names).
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "Hodu model importer (test driver)\n");

  hodu::ImportOptions options;
  options.onnxShapeCheck = onnxShapeCheck;
  for (const std::string &spec : inputShapes) {
    hodu::InputShape pin;
    std::string error;
    if (!hodu::parseInputShape(spec, pin, error)) {
      llvm::errs() << "error: " << error << "\n";
      return 1;
    }
    options.inputShapes.push_back(std::move(pin));
  }
  for (const std::string &spec : sequenceLengths) {
    std::pair<std::string, int64_t> length;
    std::string error;
    if (!hodu::parseSequenceLength(spec, length, error)) {
      llvm::errs() << "error: " << error << "\n";
      return 1;
    }
    options.sequenceLengths.push_back(std::move(length));
  }

  std::vector<hodu::OnnxFrozenInput> frozen;
  for (const std::string &spec : freezeInputs) {
    size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0) {
      llvm::errs() << "error: bad --freeze-input '" << spec
                   << "', expected NAME=FILE\n";
      return 1;
    }
    frozen.push_back({spec.substr(0, eq), spec.substr(eq + 1)});
  }

  mlir::MLIRContext context;
  hodu::ModelDiagnosticHandler modelHandler(&context, llvm::errs());
  // The normal path goes through the component registry, as hoduc does;
  // frozen inputs are an ONNX-only option.
  hodu::registerOnnxImporter();
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (frozen.empty()) {
    const hodu::Importer *importer =
        hodu::ComponentRegistry::get().findImporterForPath(inputPath);
    if (!importer) {
      llvm::errs() << "error: no importer for '" << inputPath
                   << "' (expected a .onnx file)\n";
      return 1;
    }
    module = importer->import(inputPath, context, options);
  } else {
    module = hodu::importOnnxModel(inputPath, context, options, frozen);
  }
  if (!module || mlir::failed(mlir::verify(*module)))
    return 1;

  std::string error;
  auto output = mlir::openOutputFile(outputPath, &error);
  if (!output) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  module->print(output->os());
  output->keep();
  return 0;
}
