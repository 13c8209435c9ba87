//===- Run.cpp - running the model and its outputs ------------------------===//
//
// One run of the model on host tensors wrapped without copies, --benchmark
// (latency over N runs after warm-up), --replay (eager session runs against
// one capture replayed: host time and device submissions per run), and what
// becomes of the outputs: cropped to their run-time dims, printed, or
// written to --output-dir.
//
//===----------------------------------------------------------------------===//
#include "HoduRun.h"

#include "Elements.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>

namespace fs = std::filesystem;

namespace hodu_run {

namespace {

/// Owns wrapped hodu_tensors over HostTensor buffers.
class WrappedTensors {
public:
  ~WrappedTensors() {
    for (hodu_tensor *tensor : tensors)
      hodu_tensor_free(tensor);
  }
  bool wrap(std::vector<HostTensor> &hosts, std::string &message) {
    for (HostTensor &host : hosts) {
      hodu_tensor *tensor = nullptr;
      hodu_status status = hodu_tensor_wrap(
          host.dtype, int32_t(host.shape.size()), host.shape.data(),
          host.data.empty() ? nullptr : host.data.data(), host.data.size(),
          &tensor);
      if (status) {
        message = consume(status);
        return false;
      }
      tensors.push_back(tensor);
    }
    return true;
  }
  const hodu_tensor *const *inputs() const { return tensors.data(); }
  hodu_tensor *const *outputs() const { return tensors.data(); }
  size_t size() const { return tensors.size(); }

private:
  std::vector<hodu_tensor *> tensors;
};

/// A session of a model, freed with its owner.
using Session = std::unique_ptr<hodu_session, void (*)(hodu_session *)>;

/// A new session of `model`; null with `message` set when it fails.
Session createSession(const hodu_model *model, std::string &message) {
  hodu_session *session = nullptr;
  if (hodu_status status = hodu_session_create(model, &session))
    message = consume(status);
  return Session(session, hodu_session_free);
}

} // namespace

/// Outputs shaped as the model declares them (at the symbol values
/// `values`, which bindSymbols checked), zero-filled.
std::vector<HostTensor> makeOutputs(const hodu_model *model,
                                    const std::vector<int64_t> &values) {
  std::vector<HostTensor> outputs(size_t(hodu_model_num_outputs(model)));
  for (int32_t i = 0; i < hodu_model_num_outputs(model); ++i) {
    HostTensor &output = outputs[size_t(i)];
    output.name = hodu_model_output_name(model, i);
    output.dtype = hodu_model_output_dtype(model, i);
    output.shape.assign(size_t(hodu_model_output_rank(model, i)), 0);
    hodu_status_free(hodu_model_resolve_output_shape(
        model, i, values.empty() ? nullptr : values.data(), values.size(),
        output.shape.data()));
    // A dim known only after the run (engine models) stays -1: runModel
    // lets the model allocate that output.
    bool known = true;
    for (int64_t extent : output.shape)
      known &= extent >= 0;
    if (known)
      output.data.assign(size_t(output.numElements()) *
                             hodu_dtype_size(output.dtype),
                         0);
  }
  return outputs;
}

/// The outputs a model's user sees, in order: all but the ones that hold
/// another output's run-time dims.
std::vector<int32_t> valueOutputs(const hodu_model *model) {
  int32_t count = hodu_model_num_outputs(model);
  std::vector<bool> isDims(size_t(count), false);
  for (int32_t i = 0; i < count; ++i)
    if (int32_t d = hodu_model_output_dims_index(model, i); d >= 0)
      isDims[size_t(d)] = true;
  std::vector<int32_t> indices;
  for (int32_t i = 0; i < count; ++i)
    if (!isDims[size_t(i)])
      indices.push_back(i);
  return indices;
}

/// Cuts each output whose size depends on the data, computed at its bound,
/// to the dims its companion output holds after the run. False (with
/// `message`) when those dims do not fit in the bound.
bool cropOutputs(const hodu_model *model, std::vector<HostTensor> &outputs,
                 std::string &message) {
  for (int32_t i = 0; i < hodu_model_num_outputs(model); ++i) {
    int32_t d = hodu_model_output_dims_index(model, i);
    if (d < 0)
      continue;
    HostTensor &t = outputs[size_t(i)];
    const HostTensor &dimsTensor = outputs[size_t(d)];
    std::vector<int64_t> dims(t.shape.size());
    std::memcpy(dims.data(), dimsTensor.data.data(),
                dims.size() * sizeof(int64_t));
    for (size_t k = 0; k < dims.size(); ++k)
      if (dims[k] < 0 || dims[k] > t.shape[k]) {
        message = "output '" + t.name + "': the model returned dims " +
                  formatShape(dims) + " beyond its bound " +
                  formatShape(t.shape);
        return false;
      }
    // Copy the leading block row by row (innermost dim contiguous).
    size_t elt = hodu_dtype_size(t.dtype), rank = dims.size();
    int64_t count = 1;
    for (int64_t v : dims)
      count *= v;
    std::vector<uint8_t> data(size_t(count) * elt);
    if (count > 0) {
      std::vector<int64_t> index(rank, 0);
      size_t row = size_t(dims[rank - 1]) * elt, at = 0;
      for (;;) {
        int64_t offset = 0;
        for (size_t k = 0; k < rank; ++k)
          offset = offset * t.shape[k] + index[k];
        std::memcpy(data.data() + at, t.data.data() + size_t(offset) * elt,
                    row);
        at += row;
        size_t k = rank - 1;
        while (k-- > 0 && ++index[k] == dims[k])
          index[k] = 0;
        if (k == size_t(-1))
          break;
      }
    }
    t.shape = dims;
    t.data = std::move(data);
  }
  return true;
}

/// Runs `model` on `inputs` into `outputs` (caller memory, no copies).
bool runModel(const hodu_model *model, std::vector<HostTensor> &inputs,
              std::vector<HostTensor> &outputs, std::string &message) {
  bool allKnown = true;
  for (const HostTensor &output : outputs)
    for (int64_t extent : output.shape)
      allKnown &= extent >= 0;
  if (!allKnown) {
    // Outputs whose dims only the run gives: the model allocates them, and
    // later runs (--benchmark) reuse their shapes.
    WrappedTensors in;
    if (!in.wrap(inputs, message))
      return false;
    std::vector<hodu_tensor *> made(outputs.size(), nullptr);
    hodu_status status = hodu_model_run_alloc(model, in.inputs(), in.size(),
                                              made.data(), made.size());
    if (status) {
      message = consume(status);
      return false;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      HostTensor &output = outputs[i];
      const int64_t *shape = hodu_tensor_shape(made[i]);
      output.shape.assign(shape, shape + hodu_tensor_rank(made[i]));
      const uint8_t *data =
          static_cast<const uint8_t *>(hodu_tensor_data(made[i]));
      output.data.assign(data, data + hodu_tensor_bytes(made[i]));
      hodu_tensor_free(made[i]);
    }
    return true;
  }
  WrappedTensors in, out;
  if (!in.wrap(inputs, message) || !out.wrap(outputs, message))
    return false;
  hodu_status status = hodu_model_run(model, in.inputs(), in.size(),
                                      out.outputs(), out.size());
  if (status) {
    message = consume(status);
    return false;
  }
  return true;
}

namespace {
/// The share of a loop of `units` iterations that its busiest thread runs
/// at `threads` threads under the static schedule (ceil(units / threads)
/// of them), against an even split: 1 is perfect, 0.5 one thread doing
/// twice its share.
double balanceAt(uint64_t units, int threads) {
  if (units == 0)
    return 1;
  uint64_t most = (units + uint64_t(threads) - 1) / uint64_t(threads);
  return double(units) / double(threads) / double(most);
}

/// --thread-report: the thread profile of `runs` runs of mean `meanMicros`.
void printThreadReport(double runs, double meanMicros) {
  size_t n = hodu_runtime_thread_profile(nullptr, 0);
  std::vector<hodu_thread_region> regions(n);
  n = hodu_runtime_thread_profile(regions.data(), regions.size());
  regions.resize(std::min(n, regions.size()));
  std::sort(regions.begin(), regions.end(),
            [](const hodu_thread_region &a, const hodu_thread_region &b) {
              return a.wall_ns > b.wall_ns;
            });
  const int counts[] = {2, 4, 8, 16, 64};
  double wall = 0;
  for (const hodu_thread_region &r : regions)
    wall += r.wall_ns / runs / 1000;
  std::printf("thread report: %zu parallel region(s); per run %.1f us in "
              "them, %.1f us outside (serial code, copies, the run's own "
              "cost)\n",
              regions.size(), wall, std::max(0.0, meanMicros - wall));
  std::printf("  %-28s %5s %7s %4s %9s %6s %9s %7s  %s\n", "region", "calls",
              "units", "thr", "wall us", "run %", "busy us", "even",
              "balance at 2/4/8/16/64 threads");
  // Work (every thread's busy time) per run, and what the static split of
  // each region's units allows at each thread count.
  double work = 0, projected[5] = {0, 0, 0, 0, 0};
  for (const hodu_thread_region &r : regions) {
    std::string name = r.name ? r.name : "?";
    if (size_t dots = name.find(".."); dots != std::string::npos)
      name.resize(dots);
    double calls = double(r.calls) / runs;
    double w = r.wall_ns / runs / 1000, busy = r.busy_ns / runs / 1000;
    // Mean busy over busiest: how evenly the threads of this run shared it.
    double even = r.busiest_ns > 0 && r.threads > 0
                      ? r.busy_ns / double(r.threads) / r.busiest_ns
                      : 1;
    std::string balance;
    for (int i = 0; i < 5; ++i) {
      double b = balanceAt(r.iterations, counts[i]);
      balance += (i ? " " : "") + std::to_string(int(std::lround(b * 100)));
      projected[i] += busy / counts[i] / (r.iterations ? b : 1);
    }
    work += busy;
    std::printf("  %-28s %5.3g %7llu %4d %9.1f %6.1f %9.1f %6.0f%%  %s%%\n",
                name.c_str(), calls, (unsigned long long)r.iterations,
                r.threads, w, meanMicros > 0 ? 100 * w / meanMicros : 0, busy,
                even * 100, balance.c_str());
  }
  double serial = std::max(0.0, meanMicros - wall);
  std::printf("  what the splits allow (serial part as measured, each region's "
              "work spread by its units, no other cost):");
  for (int i = 0; i < 5; ++i)
    std::printf(" %d threads %.2fx%s", counts[i],
                (serial + work) / (serial + projected[i]), i < 4 ? "," : "\n");
}
} // namespace

int benchmarkModel(const hodu_model *model, std::vector<HostTensor> &inputs,
                   std::vector<HostTensor> &outputs, const Options &options) {
  WrappedTensors in, out;
  std::string message;
  if (!in.wrap(inputs, message) || !out.wrap(outputs, message))
    return error(message);
  std::vector<double> micros;
  using Clock = std::chrono::steady_clock;
  for (long run = 0; run < options.warmup + options.benchmark; ++run) {
    if (options.threadReport && run == options.warmup)
      if (hodu_status status = hodu_runtime_set_thread_profile(1))
        return error(consume(status));
    Clock::time_point start = Clock::now();
    hodu_status status = hodu_model_run(model, in.inputs(), in.size(),
                                        out.outputs(), out.size());
    Clock::time_point end = Clock::now();
    if (status)
      return error(consume(status));
    if (run >= options.warmup)
      micros.push_back(
          std::chrono::duration<double, std::micro>(end - start).count());
  }
  std::sort(micros.begin(), micros.end());
  size_t count = micros.size();
  double median = count % 2 ? micros[count / 2]
                            : (micros[count / 2 - 1] + micros[count / 2]) / 2;
  size_t p90Index = size_t(std::ceil(0.9 * double(count))) - 1;
  double mean = 0;
  for (double value : micros)
    mean += value / double(count);
  std::string threads = options.threads > 0
                            ? std::to_string(options.threads) + " thread(s)"
                            : std::string("automatic threads");
  std::printf("benchmark: %zu runs after %ld warm-up, %s: median %.1f us, "
              "min %.1f us, p90 %.1f us, mean %.1f us\n",
              count, options.warmup, threads.c_str(), median, micros.front(),
              micros[p90Index], mean);
  if (options.threadReport) {
    if (hodu_status status = hodu_runtime_set_thread_profile(0))
      return error(consume(status));
    printThreadReport(double(count), mean);
  }
  return ExitOk;
}

int stepModel(const hodu_model *model, std::vector<HostTensor> &inputs,
              std::vector<HostTensor> &outputs, const Options &options) {
  // Which output feeds which input: equal names, dtypes and shapes.
  std::vector<std::pair<size_t, size_t>> feed;
  for (size_t o = 0; o < outputs.size(); ++o)
    for (size_t i = 0; i < inputs.size(); ++i) {
      const char *out = hodu_model_output_name(model, int32_t(o));
      if (std::strcmp(out, hodu_model_input_name(model, int32_t(i))) != 0)
        continue;
      if (outputs[o].dtype != inputs[i].dtype ||
          outputs[o].shape != inputs[i].shape)
        return error(std::string("--steps: output '") + out +
                     "' cannot feed the input of its name: its type or "
                     "shape differs");
      feed.emplace_back(o, i);
    }
  if (feed.empty())
    return error("--steps: no output is named like an input, so nothing "
                 "would carry over from one run to the next");
  const HostTensor &first = outputs.front();
  bool printFirst = first.numElements() == 1 && isFloat(first.dtype);
  const char *firstName = hodu_model_output_name(model, 0);
  std::string message;
  for (long step = 1;; ++step) {
    if (printFirst)
      std::printf("step %ld: %s %s\n", step, firstName,
                  formatElement(first.dtype, first.data.data(), 0, true)
                      .c_str());
    if (step == options.steps)
      return ExitOk;
    for (auto [o, i] : feed)
      inputs[i].data = outputs[o].data;
    if (!runModel(model, inputs, outputs, message))
      return error("--steps: run " + std::to_string(step + 1) + ": " +
                   message);
  }
}

/// --meta NAME=VALUE into its one-element slot's bytes.
static bool metaBytes(const hodu_model *model, int32_t slot,
                      const std::string &name, const std::string &text,
                      std::vector<uint8_t> &bytes, std::string &message) {
  hodu_dtype dtype = hodu_model_meta_slot_dtype(model, slot);
  size_t size = hodu_model_meta_slot_bytes(model, slot);
  if (size != hodu_dtype_size(dtype)) {
    message = "--meta " + name + ": the slot holds " + std::to_string(size) +
              " bytes, not one element; write it through the session API";
    return false;
  }
  bytes.assign(size, 0);
  std::string why;
  if (decodeJsonElement(text, dtype, bytes.data(), why))
    return true;
  message = "--meta " + name + ": '" + text + "' is not a " +
            hodu_dtype_name(dtype) + " value (" + why + ")";
  return false;
}

int sessionModel(const hodu_model *model, std::vector<HostTensor> &inputs,
                 std::vector<HostTensor> &outputs, const Options &options) {
  WrappedTensors in, out;
  std::string message;
  if (!in.wrap(inputs, message) || !out.wrap(outputs, message))
    return error(message);
  Session owned = createSession(model, message);
  if (!owned)
    return error(message);
  hodu_session *session = owned.get();
  hodu_status status = nullptr;
  for (const auto &[name, text] : options.meta) {
    int32_t slot = -1;
    if ((status = hodu_model_meta_slot_index(model, name.c_str(), &slot)))
      return error("--meta: " + consume(status));
    std::vector<uint8_t> bytes;
    if (!metaBytes(model, slot, name, text, bytes, message))
      return error(message);
    if ((status = hodu_session_write_meta_slot(session, slot, bytes.data(),
                                               bytes.size())))
      return error(consume(status));
  }
  if (!options.loadState.empty() && (status = hodu_session_load_state_tensors(
                                         session, options.loadState.c_str())))
    return error("--load-state: " + consume(status));
  if ((status = hodu_session_bind(session, in.inputs(), in.size(),
                                  out.outputs(), out.size())))
    return error(consume(status));
  const HostTensor *first = outputs.empty() ? nullptr : &outputs.front();
  bool print = options.steps > 0 && first && first->numElements() == 1 &&
               isFloat(first->dtype);
  long steps = options.steps > 0 ? options.steps : 1;
  for (long step = 1; step <= steps; ++step) {
    if ((status = hodu_session_run(session)))
      return error((options.steps > 0 ? "step " + std::to_string(step) + ": "
                                      : std::string()) +
                   consume(status));
    if (print)
      std::printf(
          "step %ld: %s %s\n", step, first->name.c_str(),
          formatElement(first->dtype, first->data.data(), 0, true).c_str());
  }
  if (!options.saveState.empty() && (status = hodu_session_save_state_tensors(
                                         session, options.saveState.c_str())))
    return error("--save-state: " + consume(status));
  return ExitOk;
}

/// CPU time of the calling thread, in microseconds: the host's own work,
/// without the time it sleeps while the device runs.
static double threadMicros() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) * 1e6 + double(now.tv_nsec) / 1e3;
}

/// --replay N: eager session runs against one capture replayed, in wall
/// and host-CPU microseconds per run and device submissions per run.
int replayModel(const hodu_model *model, std::vector<HostTensor> &inputs,
                std::vector<HostTensor> &outputs, const Options &options) {
  WrappedTensors in, out;
  std::string message;
  if (!in.wrap(inputs, message) || !out.wrap(outputs, message))
    return error(message);
  Session owned = createSession(model, message);
  if (!owned)
    return error(message);
  hodu_session *session = owned.get();
  hodu_status status = nullptr;
  if ((status = hodu_session_bind(session, in.inputs(), in.size(),
                                  out.outputs(), out.size())))
    return error(consume(status));
  using Clock = std::chrono::steady_clock;
  long warmup = std::max(options.warmup, 1L), runs = options.replay;
  for (long i = 0; i < warmup; ++i)
    if ((status = hodu_session_run(session)))
      return error(consume(status));
  hodu_session_stats before{}, after{};
  before.struct_size = after.struct_size = sizeof(hodu_session_stats);
  hodu_session_get_stats(session, &before);
  Clock::time_point start = Clock::now();
  double cpu = threadMicros();
  for (long i = 0; i < runs; ++i)
    if ((status = hodu_session_run(session)))
      return error(consume(status));
  double eagerCpu = (threadMicros() - cpu) / double(runs);
  double eagerWall =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
      double(runs);
  hodu_session_get_stats(session, &after);
  double eagerSubmissions =
      double(after.run_submissions - before.run_submissions) / double(runs);
  double eagerCommands =
      double(after.run_commands - before.run_commands) / double(runs);

  if ((status = hodu_session_capture(session)))
    return error(consume(status));
  hodu_session_get_stats(session, &before);
  start = Clock::now();
  cpu = threadMicros();
  if ((status = hodu_session_replay(session, runs)))
    return error(consume(status));
  double replayCpu = (threadMicros() - cpu) / double(runs);
  double replayWall =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
      double(runs);
  hodu_session_get_stats(session, &after);
  double replaySubmissions =
      double(after.replay_submissions - before.replay_submissions) /
      double(runs);
  // One replay per call, as a loop that changes meta slots between
  // replays would make them.
  start = Clock::now();
  cpu = threadMicros();
  long single = std::min(runs, 1000L);
  for (long i = 0; i < single; ++i)
    if ((status = hodu_session_replay(session, 1)))
      return error(consume(status));
  double singleCpu = (threadMicros() - cpu) / double(single);
  double singleWall =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
      double(single);
  if ((status = hodu_session_reset(session)))
    return error(consume(status));
  std::printf("replay on %s (%s), %ld runs after %ld warm-up:\n",
              hodu_device_kind_name(hodu_model_device_kind(model)),
              hodu_model_device_name(model), runs, warmup);
  std::printf("  eager:              %10.1f us/run wall, %8.2f us/run host "
              "CPU, %6.3f submissions/run, %5.1f commands/run\n",
              eagerWall, eagerCpu, eagerSubmissions, eagerCommands);
  std::printf("  replay(%ld):%*s%10.1f us/run wall, %8.2f us/run host CPU, "
              "%6.3f submissions/run, %5.1f commands/run\n",
              runs, int(std::max<size_t>(1, 9 - std::to_string(runs).size())),
              "", replayWall, replayCpu, replaySubmissions, 0.0);
  std::printf("  replay(1) x %-5ld   %10.1f us/run wall, %8.2f us/run host "
              "CPU\n",
              single, singleWall, singleCpu);
  return ExitOk;
}

void printTensor(const HostTensor &tensor, long limit) {
  int64_t count = tensor.numElements();
  int64_t shown = limit == 0 ? count : std::min<int64_t>(count, limit);
  std::string text = tensor.name + ": " + hodu_dtype_name(tensor.dtype) +
                     formatShape(tensor.shape) + " = [";
  for (int64_t i = 0; i < shown; ++i)
    text += (i ? ", " : "") +
            formatElement(tensor.dtype, tensor.data.data(), i, false);
  if (shown < count)
    text += ", ... (" + std::to_string(count) + " values)";
  std::printf("%s]\n", text.c_str());
}

/// A file name for output `name`: unsafe characters become '_'.
static std::string fileStem(const std::string &name, size_t index) {
  std::string stem;
  for (char c : name)
    stem += (std::isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.')
                ? c
                : '_';
  if (stem.empty() || stem[0] == '.')
    stem = "output_" + std::to_string(index);
  return stem;
}

int writeOutputs(const std::vector<HostTensor> &outputs,
                 const Options &options) {
  // Refuse before writing anything, so a failure leaves no partial set.
  for (const HostTensor &output : outputs) {
    std::string message;
    if (!formatSupports(options.outputFormat, output.dtype, message))
      return error("output '" + output.name + "': " + message);
  }
  std::error_code code;
  fs::create_directories(options.outputDir, code);
  if (code)
    return error("cannot create '" + options.outputDir +
                 "': " + code.message());
  std::vector<std::string> used;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string stem = fileStem(outputs[i].name, i);
    if (std::find(used.begin(), used.end(), stem) != used.end())
      stem += "_" + std::to_string(i); // two names that sanitize alike
    used.push_back(stem);
    std::string path = (fs::path(options.outputDir) /
                        (stem + "." + tensorFormatExtension(options.outputFormat)))
                           .string();
    std::string message;
    if (!writeTensorFile(path, options.outputFormat, outputs[i], message))
      return error(message);
    if (!options.quiet)
      std::printf("wrote %s (%s: %s%s)\n", path.c_str(),
                  outputs[i].name.c_str(), hodu_dtype_name(outputs[i].dtype),
                  formatShape(outputs[i].shape).c_str());
  }
  return ExitOk;
}


} // namespace hodu_run
