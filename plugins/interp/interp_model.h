//===- interp_model.h - a model the interpreter engine runs -----*- C++ -*-===//
//
// The C++ inside of the interp engine plugin (interp_engine.cpp is its C
// ABI): a model file imported into its own MLIRContext and run op by op on
// the hodu evaluator. No MLIR header here, so the ABI side compiles fast.
//
// Errors are thrown as InterpError (a hodu_status_code and a message);
// interp_engine.cpp catches everything at the ABI boundary. Nothing is
// thrown through MLIR's own frames (walk callbacks, diagnostic handlers).
//
//===----------------------------------------------------------------------===//
#ifndef HODU_PLUGINS_INTERP_MODEL_H
#define HODU_PLUGINS_INTERP_MODEL_H

#include "hodu/plugin.h"

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hodu::interp {

/// A failure with the status code it becomes.
class InterpError : public std::runtime_error {
public:
  InterpError(hodu_status_code code, const std::string &message)
      : std::runtime_error(message), code(code) {}
  hodu_status_code code;
};

/// One input or output of the entry function.
struct ValueInfo {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> shape;
};

/// What load takes besides the path (the plugin's options).
struct LoadOptions {
  /// `NAME -> N`: dynamic dims pinned by name (the option "dims").
  std::map<std::string, int64_t> dims;
  /// Rebuild the context after this many computed tensors (0: never; -1:
  /// from what building it cost, interp_model.cpp).
  int64_t rebuildAfter = -1;
  /// For warnings (host->log); may be null.
  const hodu_host_api *host = nullptr;
};

class Model {
public:
  /// Imports `path`; throws InterpError.
  static std::unique_ptr<Model> load(const std::string &path,
                                     const LoadOptions &options);
  virtual ~Model();

  const std::vector<ValueInfo> &inputs() const { return inputs_; }
  const std::vector<ValueInfo> &outputs() const { return outputs_; }
  /// The bytes of the model's constants.
  uint64_t constantBytes() const { return constantBytes_; }

  /// One run (plugin.h's contract: inputs checked by the host, outputs
  /// given or allocated with host->alloc); throws InterpError.
  virtual void run(const hodu_engine_tensor *inputs, int32_t numInputs,
                   hodu_engine_tensor *outputs, int32_t numOutputs,
                   const hodu_host_api *host) = 0;

protected:
  Model() = default;
  std::vector<ValueInfo> inputs_, outputs_;
  uint64_t constantBytes_ = 0;
};

/// The importers built into the plugin (once).
void registerImporters();

} // namespace hodu::interp

#endif // HODU_PLUGINS_INTERP_MODEL_H
