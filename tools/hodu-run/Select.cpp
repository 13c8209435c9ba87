//===- Select.cpp - hodu-run --select: pick how to run by measuring -------===//
//
// Hands the candidates to libhodurt's hodu_select (each measured in a child
// process, the figures kept in the selection database), prints its report
// -- what ran, what was chosen and why -- and points the options at the
// chosen candidate, which hodu-run then runs like any artifact.
//
//===----------------------------------------------------------------------===//
#include "HoduRun.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace hodu_run {

int selectCandidate(Options &options) {
  // Sample inputs: files given with -i, by name where one is given.
  std::vector<HostTensor> tensors;
  std::vector<std::string> names;
  for (const std::string &spec : options.inputs) {
    size_t eq = spec.find('=');
    std::string name, file = spec;
    if (eq != std::string::npos) {
      name = spec.substr(0, eq);
      file = spec.substr(eq + 1);
    }
    HostTensor tensor;
    std::string message;
    if (!readTensorFile(file, tensor, message))
      return error(message);
    tensors.push_back(std::move(tensor));
    names.push_back(name);
  }
  std::vector<hodu_tensor *> wrapped;
  struct Guard {
    std::vector<hodu_tensor *> &tensors;
    ~Guard() {
      for (hodu_tensor *t : tensors)
        hodu_tensor_free(t);
    }
  } guard{wrapped};
  for (HostTensor &t : tensors) {
    hodu_tensor *tensor = nullptr;
    if (hodu_status status =
            hodu_tensor_wrap(t.dtype, int32_t(t.shape.size()), t.shape.data(),
                             t.data.data(), t.data.size(), &tensor))
      return error(consume(status));
    wrapped.push_back(tensor);
  }
  std::vector<const char *> inputNames;
  for (const std::string &name : names)
    inputNames.push_back(name.empty() ? nullptr : name.c_str());

  hodu_select_options select;
  hodu_select_options_init(&select);
  select.objective = options.objective == "memory" ? HODU_SELECT_MEMORY
                                                   : HODU_SELECT_LATENCY;
  select.benchmark = options.registerOnly  ? HODU_BENCHMARK_ALWAYS
                     : options.noBenchmark ? HODU_BENCHMARK_NEVER
                                           : HODU_BENCHMARK_ON_MISS;
  if (options.benchmark > 0)
    select.runs = int32_t(options.benchmark);
  select.warmup = int32_t(options.warmup);
  select.timeout_s = int32_t(options.selectTimeout);
  select.memory_limit = uint64_t(options.memoryLimit);
  if (!options.benchDb.empty())
    select.database = options.benchDb.c_str();
  select.inputs = wrapped.data();
  select.input_names = inputNames.data();
  select.num_inputs = wrapped.size();
  for (const auto &[name, value] : options.dims)
    select.symbol_value = value; // seeded inputs: one size for every symbol

  std::vector<const char *> candidates;
  for (const std::string &c : options.candidates)
    candidates.push_back(c.c_str());
  hodu_selection *selection = nullptr;
  if (hodu_status status = hodu_select(candidates.data(), candidates.size(),
                                       &select, &selection))
    return error(consume(status));
  std::unique_ptr<hodu_selection, void (*)(hodu_selection *)> owner(
      selection, hodu_selection_free);
  std::fputs(hodu_selection_report(selection), stdout);
  int32_t chosen = hodu_selection_chosen(selection);
  if (chosen < 0)
    return error("no candidate can run this model (the table above says "
                 "why)");
  if (options.registerOnly)
    return ExitOk;

  // Run the chosen one: its path, and its engine or device.
  std::string text = options.candidates[size_t(chosen)];
  size_t at = text.rfind('@');
  options.artifact = text.substr(0, at);
  options.engine.clear();
  if (at != std::string::npos) {
    std::string what = text.substr(at + 1);
    std::string kind = what.substr(0, what.find(':'));
    hodu_device_kind parsed;
    if (hodu_device_kind_from_name(kind.c_str(), &parsed)) {
      options.deviceKind = int32_t(parsed);
      options.deviceOrdinal =
          kind.size() < what.size() ? std::stol(what.substr(kind.size() + 1))
                                    : 0;
    } else {
      options.engine = what;
    }
  }
  std::printf("running %s\n", text.c_str());
  std::fflush(stdout);
  options.benchmark = 0; // the figures are in the table
  return -1;
}

} // namespace hodu_run
