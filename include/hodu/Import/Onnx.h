//===- Onnx.h - the ONNX importer -------------------------------*- C++ -*-===//
//
// Imports an ONNX model (opsets 1-18, the default `ai.onnx` domain) into a
// module of the hodu dialect with the module convention every backend
// consumes: a public `func.func @main` whose arguments and results are the
// graph inputs and outputs, each named by a `hodu.name` attribute, and
// `hodu.model_name` on the module.
//
// This header stays light: no MLIR or ONNX headers.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_IMPORT_ONNX_H
#define HODU_IMPORT_ONNX_H

#include "hodu/Registry/Registry.h"

#include <cstddef>
#include <string>
#include <vector>

namespace hodu {

/// A graph input imported as a constant instead of a function argument, for
/// models that take at run time what an ahead-of-time compiler needs at
/// compile time (a Reshape's shape, a Pad's pads given as graph inputs).
/// `tensorFile` is a serialized TensorProto, or a directory (an ONNX test's
/// `test_data_set_N`) whose `input_*.pb` file of that name is used.
struct OnnxFrozenInput {
  std::string name;
  std::string tensorFile;
};

/// Imports the ONNX model at `path`. Errors (unreadable or corrupt file,
/// missing external data, an unsupported op or attribute, a dynamic input dim
/// without a pin in `options.inputShapes`) are reported as diagnostics on
/// `context`, and the result is then null. Loads the dialects it uses.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxModel(const std::string &path,
                                                  mlir::MLIRContext &context,
                                                  const ImportOptions &options,
                                                  const std::vector<OnnxFrozenInput> &frozen = {});

/// Imports a model held in memory (`size` bytes at `data`), as if read from
/// `path`: the path names the model in diagnostics and its directory is
/// where external data is looked up (and confined to). The fuzzing harness
/// and callers that already hold the bytes use this.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxModelFromMemory(const void *data, size_t size, const std::string &path,
                          mlir::MLIRContext &context, const ImportOptions &options,
                          const std::vector<OnnxFrozenInput> &frozen = {});

/// Adds the "onnx" importer (extension ".onnx") to the ComponentRegistry.
/// Idempotent.
void registerOnnxImporter();

} // namespace hodu

#endif // HODU_IMPORT_ONNX_H
