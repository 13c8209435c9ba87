//===- HoduRun.h - what hodu-run's files share ------------------*- C++ -*-===//
//
// hodu-run is split by concern: hodu-run.cpp (main), Options.cpp (the
// command line), Info.cpp (--info), Values.cpp (the ONNX values behind the
// model's tensors, and the --input files), Run.cpp (running, --benchmark,
// --replay, printing and writing the outputs) and TestData.cpp
// (--test-data). This header declares what one of them defines for another.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_RUN_HODURUN_H
#define HODU_RUN_HODURUN_H

#include "TensorIO.h"

#include "hodu/runtime.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hodu_run {

constexpr int ExitOk = 0;
constexpr int ExitMismatch = 1;
constexpr int ExitError = 2;

struct Options {
  std::string artifact;
  std::vector<std::string> inputs;
  std::string outputDir;
  TensorFormat outputFormat = TensorFormat::Npy;
  std::string testData;
  double rtol = 1e-3;
  double atol = 1e-5;
  long benchmark = 0;
  long replay = 0;
  /// --steps N: N runs, outputs named like inputs fed back (Run.cpp).
  long steps = 0;
  long warmup = 3;
  int32_t deviceKind = -1;
  long deviceOrdinal = 0;
  long threads = -1;
  long printLimit = 8;
  bool quiet = false;
  bool info = false;
  /// --thread-report: the thread profile of the --benchmark runs.
  bool threadReport = false;
  /// --dim NAME=VALUE: symbol values no input file gives.
  std::vector<std::pair<std::string, int64_t>> dims;
  /// --meta NAME=VALUE: one-element meta slots set before the runs.
  std::vector<std::pair<std::string, std::string>> meta;
  /// --load-state / --save-state FILE: a model's state tensors
  /// (safetensors), read before the first run and written after the last.
  std::string loadState, saveState;
  /// Plugins (Plugins.cpp): --engine, --plugin DIR, --no-plugins,
  /// --list-plugins, --plugin-info ID, --plugin-check ID.
  std::string engine;
  /// --compile-flag: flags for the compiler plugin (a model file that is no
  /// artifact is compiled on load).
  std::vector<std::string> compileFlags;
  std::vector<std::string> pluginPaths;
  bool noPlugins = false;
  bool listPlugins = false;
  std::string pluginInfo;
  std::string pluginCheck;
  /// Selection (Select.cpp): --select CANDIDATE..., --register, --objective,
  /// --bench-db, --no-benchmark, --memory-limit, --select-timeout.
  bool select = false;
  bool registerOnly = false;
  bool noBenchmark = false;
  std::vector<std::string> candidates;
  std::string objective = "latency";
  std::string benchDb;
  long memoryLimit = 0;
  long selectTimeout = 120;
};

/// Prints "hodu-run: error: MESSAGE" on stderr; returns ExitError.
int error(const std::string &message);
/// Takes the status's message and frees it.
std::string consume(hodu_status status);

//===--------------------------------------------------------------------===//
// Options.cpp
//===--------------------------------------------------------------------===//

/// Parses the command line; returns -1 to go on, else an exit status.
int parseOptions(int argc, char **argv, Options &options);

//===--------------------------------------------------------------------===//
// Plugins.cpp
//===--------------------------------------------------------------------===//

/// Applies --no-plugins and --plugin before anything loads; false (with
/// `message`) for a bad --plugin path.
bool setUpPlugins(const Options &options, std::string &message);
/// --list-plugins, --plugin-info and --plugin-check: their exit status, or
/// -1 when none was given.
int pluginCommands(const Options &options);

//===--------------------------------------------------------------------===//
// Select.cpp
//===--------------------------------------------------------------------===//

/// --select: measures the candidates and prints the report; on success
/// points `options` at the chosen one (artifact, engine, device) and
/// returns -1 to run it, else an exit status (0 after --register).
int selectCandidate(Options &options);

//===--------------------------------------------------------------------===//
// Info.cpp
//===--------------------------------------------------------------------===//

/// "NAME: DTYPE[SHAPE]" of input `index`, a dynamic dim shown by its
/// symbol: "x: f32[batch,3]".
std::string inputSignature(const hodu_model *model, int32_t index);
/// The described shape of an input or output with symbols for its dynamic
/// dims: "[batch,3]", "[2*batch+1]".
std::string symbolicShape(const hodu_model *model, bool isOutput,
                          int32_t index);
/// --info: the model's signature, checks and (bundles) launch plan.
void printInfo(const hodu_model *model, const std::string &noDevice);

//===--------------------------------------------------------------------===//
// Values.cpp
//===--------------------------------------------------------------------===//

/// The model's values as the ONNX graph has them: one file a tensor, and one
/// for the elements of a sequence, which the model takes or returns as
/// consecutive values named "NAME[0]", "NAME[1]" ..., and one for an
/// optional, whose tensor or elements come before "NAME#present".
struct Slot {
  std::string name; // the ONNX value's
  size_t first;     // its first value
  size_t elements;  // 0: a tensor; else a sequence of this many
  bool optional;    // followed by NAME#present
  /// A sequence of run-time length: its three tensors (abi.h), elements 0.
  bool runtime = false;
  size_t values() const {
    return (runtime ? 3 : std::max<size_t>(elements, 1)) + optional;
  }
};

/// The slots of a model's inputs or outputs, from their names.
std::vector<Slot> slotsOf(const std::vector<std::string> &names);
/// The elements of the sequence of run-time length `base` a run returned.
bool decodeRuntimeSequence(const std::string &base, const HostTensor &data,
                           const HostTensor &shapes, const HostTensor &length,
                           std::vector<HostTensor> &elements,
                           std::string &message);
/// Each sequence of run-time length in `outputs` as its elements.
bool expandRuntimeSequences(std::vector<HostTensor> &outputs,
                            std::string &message);
/// Reads the SequenceProto of a sequence slot of `count` elements.
bool readSequenceSlot(const std::string &path, size_t count,
                      std::vector<HostTensor> &elements, std::string &message);
/// The values an OptionalProto gives optional slot `slot`.
bool optionalSlotValues(const Slot &slot, OptionalValue value,
                        const std::string &path,
                        const std::function<HostTensor(size_t)> &zeros,
                        std::vector<HostTensor> &values,
                        std::vector<size_t> &absent, std::string &message);
/// Input `i` of `model` as zeros (a dynamic dim is 0 until bindSymbols
/// remakes it).
HostTensor zeroInput(const hodu_model *model, int32_t i);
/// Checks a tensor read from `file` against input `index`; "" when it fits.
std::string checkInput(const hodu_model *model, int32_t index,
                       HostTensor &tensor, const std::string &file);
/// Reads --input files into model order; `generated[i]` says input i holds
/// zeros made here (an empty optional's), not a file's.
int gatherInputs(const hodu_model *model, const Options &options,
                 std::vector<HostTensor> &inputs, std::vector<bool> &generated);
/// The symbols' values for `inputs`: bound from the inputs read from files
/// (checked as a run checks them), then from --dim, which must agree; a
/// symbol with no value is an error naming it. Generated inputs are then
/// remade at their shapes for those values.
bool bindSymbols(const hodu_model *model, const Options &options,
                 std::vector<HostTensor> &inputs,
                 const std::vector<bool> &generated,
                 std::vector<int64_t> &values, std::string &message);

//===--------------------------------------------------------------------===//
// Run.cpp
//===--------------------------------------------------------------------===//

/// Outputs shaped as the model declares them (at the symbol values
/// `values`), zero-filled.
std::vector<HostTensor> makeOutputs(const hodu_model *model,
                                    const std::vector<int64_t> &values);
/// The outputs a model's user sees: all but those holding run-time dims.
std::vector<int32_t> valueOutputs(const hodu_model *model);
/// Cuts outputs whose size depends on the data to their run-time dims.
bool cropOutputs(const hodu_model *model, std::vector<HostTensor> &outputs,
                 std::string &message);
/// Runs `model` on `inputs` into `outputs` (caller memory, no copies).
bool runModel(const hodu_model *model, std::vector<HostTensor> &inputs,
              std::vector<HostTensor> &outputs, std::string &message);
/// --benchmark N.
int benchmarkModel(const hodu_model *model, std::vector<HostTensor> &inputs,
                   std::vector<HostTensor> &outputs, const Options &options);
/// --steps N: the first run is done; runs N - 1 more, each output named
/// like an input copied into it first, printing one-element first outputs.
int stepModel(const hodu_model *model, std::vector<HostTensor> &inputs,
              std::vector<HostTensor> &outputs, const Options &options);
/// Models with state tensors (a train step) or --meta: runs through one
/// session, --steps N times (once without it), the state and the meta slots
/// staying in the session, printing one-element first outputs per step.
int sessionModel(const hodu_model *model, std::vector<HostTensor> &inputs,
                 std::vector<HostTensor> &outputs, const Options &options);
/// --replay N.
int replayModel(const hodu_model *model, std::vector<HostTensor> &inputs,
                std::vector<HostTensor> &outputs, const Options &options);
void printTensor(const HostTensor &tensor, long limit);
/// --output-dir: every output in its own file.
int writeOutputs(const std::vector<HostTensor> &outputs,
                 const Options &options);

//===--------------------------------------------------------------------===//
// TestData.cpp
//===--------------------------------------------------------------------===//

/// --test-data: runs each set of inputs and compares the outputs.
int runTestData(const hodu_model *model, const Options &options);

} // namespace hodu_run

#endif // HODU_RUN_HODURUN_H
