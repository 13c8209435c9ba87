//===- hodu-run.cpp - run a compiled Hodu model from the command line -----===//
//
// hodu-run loads an artifact made by hoduc through libhodurt -- a shared
// library for the CPU or a bundle for a GPU (Vulkan, CUDA, HIP) -- feeds it
// tensor files and prints, saves, checks or times the outputs, or captures
// the model once and times its replays. It uses only the runtime's public C
// API (no LLVM), like any embedding application would.
//
// Exit status: 0 success, 1 outputs differ from --test-data references,
// 2 any error (with a message on stderr).
//
// This file is the driver; the rest is split by concern (HoduRun.h):
// Options.cpp, Info.cpp, Values.cpp, Run.cpp and TestData.cpp.
//
//===----------------------------------------------------------------------===//
#include "HoduRun.h"

#include <cstdio>
#include <new>
#include <string>
#include <vector>

namespace hodu_run {

int error(const std::string &message) {
  std::fprintf(stderr, "hodu-run: error: %s\n", message.c_str());
  return ExitError;
}

/// Takes the status's message and frees it.
std::string consume(hodu_status status) {
  std::string message = hodu_status_message(status);
  hodu_status_free(status);
  return message;
}

} // namespace hodu_run

using namespace hodu_run;

namespace {
int runMain(int argc, char **argv) {
  Options options;
  int parsed = parseOptions(argc, argv, options);
  if (parsed >= 0)
    return parsed;

  std::string pluginError;
  if (!setUpPlugins(options, pluginError))
    return error(pluginError);
  if (int result = pluginCommands(options); result >= 0)
    return result;

  if (options.threads > 0) {
    hodu_status status =
        hodu_runtime_set_num_threads(int32_t(options.threads));
    if (status)
      return error(consume(status));
  }

  if (options.select)
    if (int result = selectCandidate(options); result >= 0)
      return result;

  hodu_model *model = nullptr;
  hodu_load_options loadOptions;
  hodu_load_options_init(&loadOptions);
  loadOptions.device_kind = options.deviceKind;
  loadOptions.device_ordinal = int32_t(options.deviceOrdinal);
  if (!options.engine.empty())
    loadOptions.engine = options.engine.c_str();
  std::vector<const char *> compileFlags;
  for (const std::string &flag : options.compileFlags)
    compileFlags.push_back(flag.c_str());
  loadOptions.compile_flags = compileFlags.data();
  loadOptions.num_compile_flags = int32_t(compileFlags.size());
  hodu_status status = hodu_model_load_with_options(options.artifact.c_str(),
                                                    &loadOptions, &model);
  // --info on a bundle whose device (or driver) is missing here: its
  // signature and plan still, loaded for inspection only.
  std::string noDevice;
  if (status && options.info &&
      (hodu_status_get_code(status) == HODU_NO_DEVICE ||
       hodu_status_get_code(status) == HODU_DEVICE_ERROR)) {
    noDevice = consume(status);
    loadOptions.inspect_only = 1;
    status = hodu_model_load_with_options(options.artifact.c_str(),
                                          &loadOptions, &model);
  }
  if (status)
    return error(consume(status));
  struct ModelGuard {
    hodu_model *model;
    ~ModelGuard() { hodu_model_free(model); }
  } guard{model};

  if (options.info) {
    printInfo(model, noDevice);
    return ExitOk;
  }
  if (!options.testData.empty())
    return runTestData(model, options);

  std::vector<HostTensor> inputs;
  std::vector<bool> generated;
  if (int result = gatherInputs(model, options, inputs, generated))
    return result;
  std::vector<int64_t> values;
  std::string message;
  if (!bindSymbols(model, options, inputs, generated, values, message))
    return error(message);
  std::vector<HostTensor> outputs = makeOutputs(model, values);
  bool stateful = hodu_model_num_state_tensors(model) > 0;
  if (!stateful && (!options.loadState.empty() || !options.saveState.empty()))
    return error(std::string("--load-state and --save-state need a model "
                             "with state tensors (hoduc --train); '") +
                 hodu_model_name(model) + "' has none");
  if (stateful && (options.benchmark > 0 || options.replay > 0))
    return error(std::string("model '") + hodu_model_name(model) +
                 "' keeps state tensors (a train step): --benchmark and "
                 "--replay are for models without; train it with --steps");
  if (stateful || !options.meta.empty()) {
    if (int result = sessionModel(model, inputs, outputs, options))
      return result;
  } else {
    if (!runModel(model, inputs, outputs, message))
      return error(message);
    if (options.steps > 0)
      if (int result = stepModel(model, inputs, outputs, options))
        return result;
  }
  if (options.benchmark > 0)
    if (int result = benchmarkModel(model, inputs, outputs, options))
      return result;
  if (options.replay > 0)
    if (int result = replayModel(model, inputs, outputs, options))
      return result;
  if (!cropOutputs(model, outputs, message) ||
      !expandRuntimeSequences(outputs, message))
    return error(message);
  if (!options.outputDir.empty())
    return writeOutputs(outputs, options);
  if (!options.quiet)
    for (const HostTensor &output : outputs)
      printTensor(output, options.printLimit);
  return ExitOk;
}
} // namespace

int main(int argc, char **argv) {
  // A model whose tensors do not fit in memory (an output of 4 TiB at its
  // static shape) is an error, not std::terminate.
  try {
    return runMain(argc, argv);
  } catch (const std::bad_alloc &) {
    return error("out of memory: the model's inputs and outputs do not fit "
                 "(hodu-run --info lists their shapes)");
  }
}
