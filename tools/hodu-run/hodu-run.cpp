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
//===----------------------------------------------------------------------===//
#include "Elements.h"
#include "TensorIO.h"

#include "hodu/runtime.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

using namespace hodu_run;
namespace fs = std::filesystem;

namespace {

constexpr int ExitOk = 0;
constexpr int ExitMismatch = 1;
constexpr int ExitError = 2;

const char *const usageText = R"(usage: hodu-run ARTIFACT [options]

Runs a model compiled by hoduc: a shared library on the CPU, or a bundle
(hoduc --device=vulkan|cuda|rocm) on its GPU.

Inputs and outputs:
  -i, --input [NAME=]FILE   an input tensor; NAME may be left out, then files
                            fill the model's inputs in order. Repeatable.
                            FILE is .pb (ONNX TensorProto), .npy, .json
                            ({"shape":[2,3],"dtype":"f32","data":[...]}) or .hdt
  -o, --output-dir DIR      write every output to DIR/<name>.<format>
  -f, --output-format FMT   npy (default), pb, json or hdt
  -n, --print-limit N       values printed per output (default 8; 0 = all)
  -q, --quiet               do not print output values

Checking against reference data:
  --test-data DIR           feed DIR/input_<N>.pb, compare the outputs with
                            DIR/output_<N>.pb (or each DIR/test_data_set_*)
  --rtol X                  relative tolerance (default 1e-3)
  --atol X                  absolute tolerance (default 1e-5)
                            floats match when |got - expected| <= atol +
                            rtol * |expected| (NaN matches NaN); integers
                            and booleans must be equal

Performance:
  --benchmark N             time N runs after warm-up; print median, min and
                            p90 latency in microseconds
  --warmup N                warm-up runs before timing (default 3)
  --threads N               threads a run may use (default: all CPUs)
  --replay N                capture the model once (after the warm-up runs)
                            and replay it N times: host microseconds and
                            device submissions per run, eager and replayed

Devices:
  --device KIND[:N]         cpu, vulkan, cuda or hip (rocm), and which device
                            of that kind (default: the artifact's own, 0)

Other:
  --info                    print the model's inputs, outputs and meta slots
                            (and a bundle's launch plan) and exit
  -h, --help                print this help
  --version                 print versions

Exit status: 0 success, 1 --test-data mismatch, 2 error.
)";

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
  long warmup = 3;
  int32_t deviceKind = -1;
  long deviceOrdinal = 0;
  long threads = -1;
  long printLimit = 8;
  bool quiet = false;
  bool info = false;
};

int error(const std::string &message) {
  std::fprintf(stderr, "hodu-run: error: %s\n", message.c_str());
  return ExitError;
}

int usageError(const std::string &message) {
  std::fprintf(stderr,
               "hodu-run: error: %s\nTry 'hodu-run --help' for usage.\n",
               message.c_str());
  return ExitError;
}

/// Takes the status's message and frees it.
std::string consume(hodu_status status) {
  std::string message = hodu_status_message(status);
  hodu_status_free(status);
  return message;
}

bool parseLong(const std::string &text, long minimum, long &value) {
  char *end = nullptr;
  errno = 0;
  long parsed = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || parsed < minimum)
    return false;
  value = parsed;
  return true;
}

bool parseDouble(const std::string &text, double &value) {
  char *end = nullptr;
  double parsed = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !std::isfinite(parsed) || parsed < 0)
    return false;
  value = parsed;
  return true;
}

/// Parses the command line; returns -1 to go on, else an exit status.
int parseOptions(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(usageText, stdout);
      return ExitOk;
    }
    if (arg == "--version") {
      std::printf("hodu-run %s (libhodurt %s, artifact ABI %u)\n",
                  HODU_RUNTIME_VERSION, hodu_runtime_version(),
                  hodu_runtime_abi_version());
      return ExitOk;
    }
    if (arg == "-q" || arg == "--quiet") {
      options.quiet = true;
      continue;
    }
    if (arg == "--info") {
      options.info = true;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      // Options with a value: "--name value" or "--name=value".
      std::string name = arg, value;
      size_t eq = arg.find('=');
      bool inlineValue = arg.rfind("--", 0) == 0 && eq != std::string::npos;
      if (inlineValue) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
      }
      static const char *const valued[] = {
          "-i",       "--input",  "-o",           "--output-dir",
          "-f",       "--output-format", "-n",    "--print-limit",
          "--test-data", "--rtol", "--atol",      "--benchmark",
          "--warmup", "--threads", "--replay", "--device"};
      bool known = false;
      for (const char *candidate : valued)
        known |= name == candidate;
      if (!known)
        return usageError("unknown option '" + arg + "'");
      if (!inlineValue) {
        if (i + 1 >= argc)
          return usageError("option '" + name + "' needs a value");
        value = argv[++i];
      }
      if (name == "-i" || name == "--input") {
        options.inputs.push_back(value);
      } else if (name == "-o" || name == "--output-dir") {
        options.outputDir = value;
      } else if (name == "-f" || name == "--output-format") {
        if (!parseTensorFormat(value, options.outputFormat))
          return usageError("unknown output format '" + value +
                            "' (expected npy, pb, json or hdt)");
      } else if (name == "-n" || name == "--print-limit") {
        if (!parseLong(value, 0, options.printLimit))
          return usageError("--print-limit needs a count >= 0, got '" +
                            value + "'");
      } else if (name == "--test-data") {
        options.testData = value;
      } else if (name == "--rtol" || name == "--atol") {
        if (!parseDouble(value, name == "--rtol" ? options.rtol
                                                 : options.atol))
          return usageError(name + " needs a number >= 0, got '" + value +
                            "'");
      } else if (name == "--benchmark") {
        if (!parseLong(value, 1, options.benchmark))
          return usageError("--benchmark needs a run count >= 1, got '" +
                            value + "'");
      } else if (name == "--warmup") {
        if (!parseLong(value, 0, options.warmup))
          return usageError("--warmup needs a count >= 0, got '" + value +
                            "'");
      } else if (name == "--replay") {
        if (!parseLong(value, 1, options.replay))
          return usageError("--replay needs a run count >= 1, got '" +
                            value + "'");
      } else if (name == "--device") {
        std::string kind = value.substr(0, value.find(':'));
        hodu_device_kind parsed;
        if (!hodu_device_kind_from_name(kind.c_str(), &parsed))
          return usageError("unknown device '" + kind +
                            "' (expected cpu, vulkan, cuda or hip)");
        options.deviceKind = int32_t(parsed);
        if (kind.size() < value.size() &&
            !parseLong(value.substr(kind.size() + 1), 0,
                       options.deviceOrdinal))
          return usageError("--device " + kind +
                            ":N needs a device number >= 0, got '" + value +
                            "'");
      } else if (name == "--threads") {
        if (!parseLong(value, 1, options.threads))
          return usageError("--threads needs a count >= 1, got '" + value +
                            "'");
      }
      continue;
    }
    if (!options.artifact.empty())
      return usageError("more than one artifact ('" + options.artifact +
                        "' and '" + arg + "'); pass inputs with --input");
    options.artifact = arg;
  }
  if (options.artifact.empty())
    return usageError("no artifact given");
  if (!options.testData.empty() && !options.inputs.empty())
    return usageError("--test-data and --input cannot be combined");
  if (!options.testData.empty() && !options.outputDir.empty())
    return usageError("--test-data and --output-dir cannot be combined");
  return -1;
}

//===--------------------------------------------------------------------===//
// Model signature
//===--------------------------------------------------------------------===//

std::string inputSignature(const hodu_model *model, int32_t index) {
  return std::string(hodu_model_input_name(model, index)) + ": " +
         hodu_dtype_name(hodu_model_input_dtype(model, index)) +
         formatShape(hodu_model_input_rank(model, index),
                     hodu_model_input_shape(model, index));
}

std::string outputSignature(const hodu_model *model, int32_t index) {
  return std::string(hodu_model_output_name(model, index)) + ": " +
         hodu_dtype_name(hodu_model_output_dtype(model, index)) +
         formatShape(hodu_model_output_rank(model, index),
                     hodu_model_output_shape(model, index));
}

std::string metaSignature(const hodu_model *model, int32_t index) {
  return std::string(hodu_model_meta_slot_name(model, index)) + ": " +
         hodu_dtype_name(hodu_model_meta_slot_dtype(model, index)) +
         formatShape(hodu_model_meta_slot_rank(model, index),
                     hodu_model_meta_slot_shape(model, index));
}

/// A bundle's launch plan: devices, code objects, kernels and steps.
void printPlan(const hodu_model *model) {
  auto table = [&](hodu_bundle_section_kind kind) {
    return hodu_model_plan_table(model, kind);
  };
  auto count = [&](hodu_bundle_section_kind kind) {
    return hodu_model_plan_count(model, kind);
  };
  auto text = [&](hodu_bundle_string ref) {
    return hodu_model_plan_string(model, ref);
  };
  static const char *const spaces[] = {"?", "INPUT", "OUTPUT", "ARENA",
                                       "WEIGHTS", "META"};
  static const char *const formats[] = {"?", "spirv", "ptx", "cubin",
                                        "fatbin", "hsaco", "msl", "elf"};
  static const char *const ops[] = {"?", "LAUNCH", "COPY", "TRANSFER",
                                    "HOST_CALL"};
  auto devices = static_cast<const hodu_bundle_device *>(
      table(HODU_BUNDLE_SECTION_DEVICES));
  std::printf("devices:\n");
  for (uint64_t d = 0; d < count(HODU_BUNDLE_SECTION_DEVICES); ++d)
    std::printf("  %llu: %s, arena %llu bytes\n", (unsigned long long)d,
                hodu_device_kind_name(hodu_device_kind(devices[d].kind)),
                (unsigned long long)devices[d].arena_size);
  std::printf("weights: %llu bytes\n",
              (unsigned long long)count(HODU_BUNDLE_SECTION_WEIGHTS));
  auto codes =
      static_cast<const hodu_bundle_code *>(table(HODU_BUNDLE_SECTION_CODE));
  std::printf("code objects:\n");
  for (uint64_t c = 0; c < count(HODU_BUNDLE_SECTION_CODE); ++c)
    std::printf("  %llu: device %u, %s%s%s, %llu bytes\n",
                (unsigned long long)c, unsigned(codes[c].device),
                codes[c].format < 8 ? formats[codes[c].format] : "?",
                *text(codes[c].arch) ? " " : "", text(codes[c].arch),
                (unsigned long long)codes[c].size);
  auto kernels = static_cast<const hodu_bundle_kernel *>(
      table(HODU_BUNDLE_SECTION_KERNELS));
  std::printf("kernels:\n");
  for (uint64_t k = 0; k < count(HODU_BUNDLE_SECTION_KERNELS); ++k)
    std::printf("  %llu: %s on device %u, block %ux%ux%u, %u argument(s)%s\n",
                (unsigned long long)k, text(kernels[k].name),
                unsigned(kernels[k].device), unsigned(kernels[k].block[0]),
                unsigned(kernels[k].block[1]), unsigned(kernels[k].block[2]),
                unsigned(kernels[k].num_args),
                kernels[k].shared_bytes
                    ? (", " + std::to_string(kernels[k].shared_bytes) +
                       " bytes of dynamic shared memory")
                          .c_str()
                    : "");
  auto steps =
      static_cast<const hodu_bundle_step *>(table(HODU_BUNDLE_SECTION_STEPS));
  auto args =
      static_cast<const hodu_bundle_arg *>(table(HODU_BUNDLE_SECTION_ARGS));
  std::printf("steps:\n");
  for (uint64_t i = 0; i < count(HODU_BUNDLE_SECTION_STEPS); ++i) {
    const hodu_bundle_step &step = steps[i];
    std::string line = "  " + std::to_string(i) + ": " +
                       (step.op < 5 ? ops[step.op] : "?");
    if (step.op == HODU_STEP_LAUNCH || step.op == HODU_STEP_HOST_CALL)
      line += std::string(" ") + text(kernels[step.kernel].name);
    if (step.op == HODU_STEP_LAUNCH)
      line += " grid " + std::to_string(step.grid[0]) + "x" +
              std::to_string(step.grid[1]) + "x" +
              std::to_string(step.grid[2]);
    line += " on device " + std::to_string(step.device) + " (";
    for (uint32_t a = 0; a < step.num_args; ++a) {
      const hodu_bundle_arg &arg = args[step.first_arg + a];
      line += std::string(a ? ", " : "") +
              (arg.space < 6 ? spaces[arg.space] : "?") + " " +
              std::to_string(arg.index);
      if (arg.space == HODU_SPACE_ARENA || arg.space == HODU_SPACE_WEIGHTS)
        line += " [" + std::to_string(arg.offset) + ", +" +
                std::to_string(arg.size) + ")";
    }
    std::printf("%s)\n", line.c_str());
  }
}

/// `noDevice`: why the bundle was loaded for inspection only ("" when its
/// device opened).
void printInfo(const hodu_model *model, const std::string &noDevice) {
  if (hodu_model_is_bundle(model) && !noDevice.empty())
    std::printf("model '%s' (bundle for %s; not opened on a device: %s)\n",
                hodu_model_name(model), hodu_model_target(model),
                noDevice.c_str());
  else if (hodu_model_is_bundle(model))
    std::printf("model '%s' (bundle for %s, running on %s %d: %s)\n",
                hodu_model_name(model), hodu_model_target(model),
                hodu_device_kind_name(hodu_model_device_kind(model)),
                int(hodu_model_device_ordinal(model)),
                hodu_model_device_name(model));
  else
    std::printf("model '%s' (target %s, ABI %u)\n", hodu_model_name(model),
                hodu_model_target(model),
                hodu_model_descriptor(model)->abi_version);
  std::printf("inputs:\n");
  for (int32_t i = 0; i < hodu_model_num_inputs(model); ++i)
    std::printf("  %s\n", inputSignature(model, i).c_str());
  std::printf("outputs:\n");
  for (int32_t i = 0; i < hodu_model_num_outputs(model); ++i)
    std::printf("  %s\n", outputSignature(model, i).c_str());
  if (hodu_model_num_meta_slots(model)) {
    std::printf("meta slots:\n");
    for (int32_t i = 0; i < hodu_model_num_meta_slots(model); ++i)
      std::printf("  %s\n", metaSignature(model, i).c_str());
  }
  if (uint64_t bytes = hodu_model_workspace_size(model))
    std::printf("workspace: %llu bytes per concurrent run\n",
                (unsigned long long)bytes);
  if (int32_t n = hodu_model_num_checks(model)) {
    std::printf("run-time checks (what the model assumes of its data):\n");
    for (int32_t i = 0; i < n; ++i) {
      const char *m = hodu_model_check_message(model, i);
      std::printf("  %s\n", m ? m : "(no message)");
    }
  }
  if (hodu_model_is_bundle(model))
    printPlan(model);
}

/// Checks a tensor read from `file` against input `index`; "" when it fits.
/// A uint16 tensor for a bfloat16 input is taken as bf16 bit patterns (the
/// ONNX backend test data stores bfloat16 that way).
std::string checkInput(const hodu_model *model, int32_t index,
                       HostTensor &tensor, const std::string &file) {
  std::string prefix = std::string("input '") +
                       hodu_model_input_name(model, index) + "' from '" +
                       file + "': ";
  hodu_dtype expected = hodu_model_input_dtype(model, index);
  if (expected == HODU_DTYPE_BF16 && tensor.dtype == HODU_DTYPE_U16)
    tensor.dtype = HODU_DTYPE_BF16;
  if (tensor.dtype != expected)
    return prefix + "expected dtype " + hodu_dtype_name(expected) + ", got " +
           hodu_dtype_name(tensor.dtype);
  std::string expectedShape = formatShape(hodu_model_input_rank(model, index),
                                          hodu_model_input_shape(model, index));
  if (formatShape(tensor.shape) != expectedShape)
    return prefix + "expected shape " + expectedShape + ", got " +
           formatShape(tensor.shape);
  return "";
}

//===--------------------------------------------------------------------===//
// Running
//===--------------------------------------------------------------------===//

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

/// Outputs shaped as the model declares them, zero-filled.
std::vector<HostTensor> makeOutputs(const hodu_model *model) {
  std::vector<HostTensor> outputs(size_t(hodu_model_num_outputs(model)));
  for (int32_t i = 0; i < hodu_model_num_outputs(model); ++i) {
    HostTensor &output = outputs[size_t(i)];
    output.name = hodu_model_output_name(model, i);
    output.dtype = hodu_model_output_dtype(model, i);
    const int64_t *shape = hodu_model_output_shape(model, i);
    output.shape.assign(shape, shape + hodu_model_output_rank(model, i));
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

int benchmarkModel(const hodu_model *model, std::vector<HostTensor> &inputs,
                   std::vector<HostTensor> &outputs, const Options &options) {
  WrappedTensors in, out;
  std::string message;
  if (!in.wrap(inputs, message) || !out.wrap(outputs, message))
    return error(message);
  std::vector<double> micros;
  using Clock = std::chrono::steady_clock;
  for (long run = 0; run < options.warmup + options.benchmark; ++run) {
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
  return ExitOk;
}

/// CPU time of the calling thread, in microseconds: the host's own work,
/// without the time it sleeps while the device runs.
double threadMicros() {
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
  hodu_session *session = nullptr;
  hodu_status status = hodu_session_create(model, &session);
  if (status)
    return error(consume(status));
  struct SessionGuard {
    hodu_session *session;
    ~SessionGuard() { hodu_session_free(session); }
  } guard{session};
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
std::string fileStem(const std::string &name, size_t index) {
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

/// Whether `names[i]` starts the three outputs of a sequence of run-time
/// length ("NAME#sequence_data", "#sequence_shapes", "#sequence_length");
/// `base` gets NAME.
bool runtimeSequenceAt(const std::vector<std::string> &names, size_t i,
                       std::string &base) {
  const std::string data = HODU_SEQUENCE_DATA_SUFFIX;
  const std::string &name = names[i];
  if (i + 2 >= names.size() || name.size() <= data.size() ||
      name.compare(name.size() - data.size(), data.size(), data) != 0)
    return false;
  base = name.substr(0, name.size() - data.size());
  return names[i + 1] == base + HODU_SEQUENCE_SHAPES_SUFFIX &&
         names[i + 2] == base + HODU_SEQUENCE_LENGTH_SUFFIX;
}

/// The elements "NAME[i]" of the sequence of run-time length `base` that
/// a run returned as `data`, `shapes` and `length`; false (with `message`)
/// if those do not describe one.
bool decodeRuntimeSequence(const std::string &base, const HostTensor &data,
                           const HostTensor &shapes, const HostTensor &length,
                           std::vector<HostTensor> &elements,
                           std::string &message) {
  if (data.shape.size() != 2 || shapes.shape.size() != 2 ||
      shapes.dtype != HODU_DTYPE_I64 || length.dtype != HODU_DTYPE_I64 ||
      length.data.size() != sizeof(int64_t) || shapes.shape[1] < 1 ||
      shapes.shape[0] != data.shape[0]) {
    message = "outputs of sequence '" + base +
              "' do not have the layout of a sequence of run-time length";
    return false;
  }
  int64_t count, capacity = data.shape[0], most = data.shape[1];
  int64_t columns = shapes.shape[1];
  std::memcpy(&count, length.data.data(), sizeof(count));
  if (count < 0 || count > capacity) {
    message = "sequence '" + base + "': the model returned a length of " +
              std::to_string(count) + ", beyond its capacity " +
              std::to_string(capacity);
    return false;
  }
  size_t elt = hodu_dtype_size(data.dtype);
  for (int64_t i = 0; i < count; ++i) {
    std::vector<int64_t> row(size_t(columns), 0);
    std::memcpy(row.data(), shapes.data.data() + size_t(i * columns) * 8,
                size_t(columns) * 8);
    HostTensor t;
    t.name = base + "[" + std::to_string(i) + "]";
    t.dtype = data.dtype;
    int64_t rank = row[0], size = 1;
    bool ok = rank >= 0 && rank < columns;
    for (int64_t k = 0; ok && k < rank; ++k) {
      int64_t d = row[size_t(k + 1)];
      ok = d >= 0 && (d == 0 || size <= most / d);
      size *= ok ? d : 1;
      t.shape.push_back(d);
    }
    if (!ok || size > most) {
      message = "sequence '" + base + "': element " + std::to_string(i) +
                " has a shape that does not fit its row";
      return false;
    }
    const uint8_t *from = data.data.data() + size_t(i * most) * elt;
    t.data.assign(from, from + size_t(size) * elt);
    elements.push_back(std::move(t));
  }
  return true;
}

/// `outputs` (in valueOutputs order) with each sequence of run-time
/// length's three tensors replaced by its elements.
bool expandRuntimeSequences(std::vector<HostTensor> &outputs,
                            std::string &message) {
  std::vector<std::string> names;
  for (const HostTensor &t : outputs)
    names.push_back(t.name);
  std::vector<HostTensor> expanded;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string base;
    if (!runtimeSequenceAt(names, i, base)) {
      expanded.push_back(std::move(outputs[i]));
      continue;
    }
    if (!decodeRuntimeSequence(base, outputs[i], outputs[i + 1], outputs[i + 2],
                               expanded, message))
      return false;
    i += 2;
  }
  outputs = std::move(expanded);
  return true;
}

/// The "NAME" of "NAME[i]", with i; nullopt for other names.
std::optional<std::pair<std::string, size_t>>
elementOf(const std::string &name) {
  if (name.size() < 4 || name.back() != ']')
    return std::nullopt;
  size_t open = name.rfind('[');
  if (open == std::string::npos || open == 0 || open + 2 >= name.size())
    return std::nullopt;
  size_t index = 0;
  for (size_t i = open + 1; i + 1 < name.size(); ++i) {
    if (!std::isdigit((unsigned char)name[i]) || index > (size_t(1) << 40))
      return std::nullopt;
    index = index * 10 + size_t(name[i] - '0');
  }
  return std::make_pair(name.substr(0, open), index);
}

std::vector<Slot> slotsOf(const std::vector<std::string> &names) {
  std::vector<Slot> slots;
  for (size_t i = 0; i < names.size();) {
    Slot slot{names[i], i, 0, false};
    std::string base;
    if (runtimeSequenceAt(names, i, base)) {
      slot.name = base;
      slot.runtime = true;
      i += 3;
      if (i < names.size() && names[i] == base + HODU_OPTIONAL_PRESENT_SUFFIX) {
        slot.optional = true;
        ++i;
      }
      slots.push_back(slot);
      continue;
    }
    auto element = elementOf(names[i]);
    if (element && element->second == 0) {
      size_t count = 1;
      while (i + count < names.size()) {
        auto next = elementOf(names[i + count]);
        if (!next || next->first != element->first || next->second != count)
          break;
        ++count;
      }
      slot.name = element->first;
      slot.elements = count;
    }
    i += std::max<size_t>(slot.elements, 1);
    if (i < names.size() &&
        names[i] == slot.name + HODU_OPTIONAL_PRESENT_SUFFIX) {
      slot.optional = true;
      ++i;
    }
    slots.push_back(slot);
  }
  return slots;
}

/// Checks that `path` held a sequence of `count` elements.
bool checkSequenceLength(const std::string &path, size_t got, size_t count,
                         std::string &message) {
  if (got == count)
    return true;
  message = "'" + path + "' is a sequence of " + std::to_string(got) +
            " element(s), but the model was compiled for " +
            std::to_string(count) + " (hoduc --sequence-length)";
  return false;
}

/// Reads `path`, the SequenceProto of a sequence slot of `count` elements.
bool readSequenceSlot(const std::string &path, size_t count,
                      std::vector<HostTensor> &elements, std::string &message) {
  return readSequenceFile(path, elements, message) &&
         checkSequenceLength(path, elements.size(), count, message);
}

/// The bool scalar NAME#present of optional `name`.
HostTensor presentFlag(const std::string &name, bool present) {
  HostTensor flag;
  flag.name = name + HODU_OPTIONAL_PRESENT_SUFFIX;
  flag.dtype = HODU_DTYPE_BOOL;
  flag.data.assign(1, present ? 1 : 0);
  return flag;
}

/// The values of optional slot `slot` that OptionalProto `value` (read from
/// `path`) gives: its tensor or elements (`zeros(i)` for the i-th of an
/// empty optional, listed in `absent`), then the flag.
bool optionalSlotValues(const Slot &slot, OptionalValue value,
                        const std::string &path,
                        const std::function<HostTensor(size_t)> &zeros,
                        std::vector<HostTensor> &values,
                        std::vector<size_t> &absent, std::string &message) {
  size_t payload = std::max<size_t>(slot.elements, 1);
  if (value.present) {
    if (value.sequence != (slot.elements > 0)) {
      message = "'" + path + "' is an optional " +
                (value.sequence ? "sequence" : "tensor") + ", but '" +
                slot.name + "' is an optional " +
                (slot.elements > 0 ? "sequence" : "tensor");
      return false;
    }
    if (value.sequence && !checkSequenceLength(path, value.elements.size(),
                                               slot.elements, message))
      return false;
    for (HostTensor &t : value.elements)
      values.push_back(std::move(t));
  } else {
    for (size_t i = 0; i < payload; ++i) {
      absent.push_back(values.size());
      values.push_back(zeros(i));
    }
  }
  values.push_back(presentFlag(slot.name, value.present));
  return true;
}

/// Input `i` of `model` as zeros.
HostTensor zeroInput(const hodu_model *model, int32_t i) {
  HostTensor t;
  t.name = hodu_model_input_name(model, i);
  t.dtype = hodu_model_input_dtype(model, i);
  const int64_t *shape = hodu_model_input_shape(model, i);
  t.shape.assign(shape, shape + hodu_model_input_rank(model, i));
  t.data.assign(size_t(t.numElements()) * hodu_dtype_size(t.dtype), 0);
  return t;
}

/// Reads --input files into model order.
int gatherInputs(const hodu_model *model, const Options &options,
                 std::vector<HostTensor> &inputs) {
  int32_t count = hodu_model_num_inputs(model);
  inputs.assign(size_t(count), HostTensor());
  std::vector<std::string> sources(static_cast<size_t>(count));
  std::vector<bool> preloaded(static_cast<size_t>(count), false);
  std::vector<std::string> names, positional;
  for (int32_t i = 0; i < count; ++i)
    names.push_back(hodu_model_input_name(model, i));
  std::vector<Slot> slots = slotsOf(names);
  // Named inputs first, so that unnamed files fill the remaining slots.
  for (const std::string &spec : options.inputs) {
    size_t eq = spec.find('=');
    std::error_code code;
    if (eq == std::string::npos || fs::exists(spec, code)) {
      positional.push_back(spec);
      continue;
    }
    int32_t index;
    std::string name = spec.substr(0, eq), file = spec.substr(eq + 1);
    // A sequence (its elements are the inputs NAME[0], NAME[1] ...) takes a
    // SequenceProto file of as many elements; an optional (its tensor or
    // elements, then NAME#present), an OptionalProto file, or its tensor
    // or sequence alone (then it holds them).
    auto slot = std::find_if(slots.begin(), slots.end(), [&](const Slot &s) {
      return s.name == name && (s.elements > 0 || s.optional);
    });
    if (slot != slots.end()) {
      std::vector<HostTensor> values;
      std::vector<size_t> absent;
      std::string message;
      OptionalValue optional;
      bool read = false;
      // A one-element SequenceProto is, byte for byte, an OptionalProto
      // holding a tensor: for an optional sequence it is the sequence.
      if (slot->optional && readOptionalFile(file, optional, message) &&
          !(slot->elements > 0 && optional.present && !optional.sequence)) {
        if (!optionalSlotValues(
                *slot, std::move(optional), file,
                [&](size_t e) {
                  return zeroInput(model, int32_t(slot->first + e));
                },
                values, absent, message))
          return error(message);
        read = true;
      } else if (slot->elements > 0) {
        if (!readSequenceSlot(file, slot->elements, values, message))
          return error(message);
        read = true;
      }
      if (read) {
        for (size_t v = 0; v < values.size(); ++v) {
          size_t at = slot->first + v;
          if (!sources[at].empty())
            return error("input '" + name + "' given twice");
          sources[at] = file + " value " + std::to_string(v);
          preloaded[at] = true;
          inputs[at] = std::move(values[v]);
        }
        continue;
      }
    }
    hodu_status status = hodu_model_input_index(model, name.c_str(), &index);
    if (status)
      return error(consume(status));
    if (!sources[size_t(index)].empty())
      return error("input '" + name + "' given twice");
    sources[size_t(index)] = file;
  }
  size_t next = 0;
  for (const std::string &file : positional) {
    while (next < sources.size() && !sources[next].empty())
      ++next;
    if (next == sources.size())
      return error("too many inputs: model '" +
                   std::string(hodu_model_name(model)) + "' takes " +
                   std::to_string(count));
    sources[next] = file;
  }
  // An optional whose tensor or sequence is given without its NAME#present
  // holds it.
  for (const Slot &slot : slots) {
    size_t at = slot.first + slot.values() - 1;
    if (slot.optional && sources[at].empty() && !sources[slot.first].empty()) {
      sources[at] = sources[slot.first];
      preloaded[at] = true;
      inputs[at] = presentFlag(slot.name, true);
    }
  }
  std::string missing;
  for (int32_t i = 0; i < count; ++i)
    if (sources[size_t(i)].empty())
      missing += (missing.empty() ? "" : ", ") + inputSignature(model, i);
  if (!missing.empty())
    return error("missing input(s) " + missing +
                 "; pass them with --input NAME=FILE");
  for (int32_t i = 0; i < count; ++i) {
    std::string message;
    // Read no more than a file for this input can need.
    uint64_t bytes = hodu_dtype_size(hodu_model_input_dtype(model, i));
    const int64_t *shape = hodu_model_input_shape(model, i);
    for (int32_t d = 0; d < hodu_model_input_rank(model, i); ++d)
      bytes = shape[d] > 0 && bytes > kMaxTensorFileBytes / uint64_t(shape[d])
                  ? kMaxTensorFileBytes
                  : bytes * uint64_t(shape[d] < 0 ? 0 : shape[d]);
    uint64_t limit = maxTensorFileBytes(bytes);
    if (!preloaded[size_t(i)] &&
        !readTensorFile(sources[size_t(i)], inputs[size_t(i)], message, limit))
      return error(message);
    message = checkInput(model, i, inputs[size_t(i)], sources[size_t(i)]);
    if (!message.empty())
      return error(message);
  }
  return ExitOk;
}

//===--------------------------------------------------------------------===//
// --test-data
//===--------------------------------------------------------------------===//

std::string formatIndex(const std::vector<int64_t> &shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return formatShape(index);
}

/// Compares one output; "" on a match, else what differs (worst element).
std::string compareOutput(const HostTensor &got, const HostTensor &expected,
                          const Options &options) {
  std::string prefix = "output '" + got.name + "': ";
  // ONNX's backend test data stores some bfloat16 references as uint16 bit
  // patterns (test_cast_FLOAT_to_BFLOAT16); ONNX's own runner compares them
  // as bfloat16, and so do we.
  bool bf16AsBits =
      got.dtype == HODU_DTYPE_BF16 && expected.dtype == HODU_DTYPE_U16;
  if (got.dtype != expected.dtype && !bf16AsBits)
    return prefix + "model gives dtype " + hodu_dtype_name(got.dtype) +
           ", reference has " + hodu_dtype_name(expected.dtype);
  if (got.shape != expected.shape)
    return prefix + "model gives shape " + formatShape(got.shape) +
           ", reference has " + formatShape(expected.shape);
  hodu_dtype dtype = got.dtype;
  bool floating = isFloat(dtype);
  int64_t count = got.numElements(), differing = 0, worst = -1;
  double worstExcess = -1;
  for (int64_t i = 0; i < count; ++i) {
    double excess; // how far past the tolerance; <= 0 is a match
    if (floating) {
      double a = loadAsDouble(dtype, got.data.data(), i);
      double b = loadAsDouble(dtype, expected.data.data(), i);
      if (std::isnan(a) || std::isnan(b))
        excess = std::isnan(a) && std::isnan(b) ? 0 : INFINITY;
      else if (a == b) // also equal infinities
        excess = 0;
      else
        excess = std::fabs(a - b) - (options.atol + options.rtol * std::fabs(b));
      if (std::isnan(excess)) // inf - inf
        excess = INFINITY;
    } else if (isSigned(dtype)) {
      int64_t a = loadAsInt64(dtype, got.data.data(), i);
      int64_t b = loadAsInt64(dtype, expected.data.data(), i);
      excess = a == b ? 0 : std::fabs(double(a) - double(b)) + 1;
    } else {
      uint64_t a = loadAsUint64(dtype, got.data.data(), i);
      uint64_t b = loadAsUint64(dtype, expected.data.data(), i);
      excess = a == b ? 0 : std::fabs(double(a) - double(b)) + 1;
    }
    if (excess > 0) {
      ++differing;
      if (excess > worstExcess) {
        worstExcess = excess;
        worst = i;
      }
    }
  }
  if (!differing)
    return "";
  std::string text = prefix + std::to_string(differing) + " of " +
                     std::to_string(count) +
                     " elements differ; worst at flat index " +
                     std::to_string(worst) + " " +
                     formatIndex(got.shape, worst) + ": got " +
                     formatElement(dtype, got.data.data(), worst, true) +
                     ", expected " +
                     formatElement(dtype, expected.data.data(), worst, true);
  if (floating) {
    double a = loadAsDouble(dtype, got.data.data(), worst);
    double b = loadAsDouble(dtype, expected.data.data(), worst);
    char tolerance[160];
    std::snprintf(tolerance, sizeof(tolerance),
                  " (|diff| %.6g > atol %g + rtol %g * |expected|)",
                  std::fabs(a - b), options.atol, options.rtol);
    text += tolerance;
  }
  return text;
}

/// Reads DIR/<prefix>_0.pb, _1.pb ... until one is missing: a TensorProto
/// for each tensor slot, a SequenceProto (of as many elements) for each
/// sequence slot, an OptionalProto for each optional slot (an empty one's
/// values are `zeros(value index)`, and listed in `absent`). `paths` gets
/// one entry per value.
bool readNumbered(const fs::path &dir, const char *prefix,
                  const std::vector<Slot> &slots,
                  const std::function<HostTensor(size_t)> &zeros,
                  std::vector<HostTensor> &tensors,
                  std::vector<std::string> &paths, std::vector<size_t> &absent,
                  size_t &files, std::string &message,
                  std::vector<size_t> *counts = nullptr) {
  // An empty sequence input has no values (nor a slot): its file, an empty
  // SequenceProto, is passed over.
  size_t skipped = 0;
  for (size_t file = 0;; ++file) {
    files = file - skipped;
    fs::path path =
        dir / (std::string(prefix) + "_" + std::to_string(file) + ".pb");
    std::error_code code;
    if (!fs::exists(path, code))
      return true;
    std::vector<HostTensor> values;
    if (files < slots.size() && slots[files].runtime) {
      // A sequence of run-time length (an output): any number of elements.
      if (slots[files].optional) {
        message = "'" + slots[files].name +
                  "' is an optional sequence of run-time length, which "
                  "--test-data does not compare";
        return false;
      }
      if (!readSequenceFile(path.string(), values, message))
        return false;
    } else if (files < slots.size() && slots[files].optional) {
      OptionalValue value;
      std::vector<size_t> empty;
      size_t first = tensors.size();
      if (!readOptionalFile(path.string(), value, message) ||
          !optionalSlotValues(
              slots[files], std::move(value), path.string(),
              [&](size_t e) { return zeros(first + e); }, values, empty,
              message))
        return false;
      for (size_t e : empty)
        absent.push_back(first + e);
    } else if (files < slots.size() && slots[files].elements > 0) {
      if (!readSequenceSlot(path.string(), slots[files].elements, values,
                            message))
        return false;
    } else {
      values.emplace_back();
      if (!readTensorFile(path.string(), values.back(), message)) {
        std::vector<HostTensor> elements;
        std::string ignored;
        if (!readSequenceFile(path.string(), elements, ignored) ||
            !elements.empty())
          return false;
        ++skipped;
        continue;
      }
      tensors.push_back(std::move(values.back()));
      paths.push_back(path.string());
      if (counts)
        counts->push_back(1);
      continue;
    }
    if (counts)
      counts->push_back(values.size());
    for (size_t v = 0; v < values.size(); ++v) {
      tensors.push_back(std::move(values[v]));
      paths.push_back(path.string() + " value " + std::to_string(v));
    }
  }
}

int runTestData(const hodu_model *model, const Options &options) {
  fs::path root(options.testData);
  std::error_code code;
  if (!fs::is_directory(root, code))
    return error("--test-data: '" + options.testData + "' is not a directory");
  std::vector<fs::path> sets;
  if (fs::exists(root / "input_0.pb", code) ||
      fs::exists(root / "output_0.pb", code)) {
    sets.push_back(root);
  } else {
    for (const fs::directory_entry &entry : fs::directory_iterator(root, code))
      if (entry.is_directory() &&
          entry.path().filename().string().rfind("test_data_set_", 0) == 0)
        sets.push_back(entry.path());
    // test_data_set_2 before test_data_set_10.
    std::sort(sets.begin(), sets.end(), [](const fs::path &a, const fs::path &b) {
      std::string x = a.filename().string(), y = b.filename().string();
      return x.size() != y.size() ? x.size() < y.size() : x < y;
    });
  }
  if (sets.empty())
    return error("--test-data: '" + options.testData +
                 "' has no input_0.pb/output_0.pb and no test_data_set_* "
                 "directories");

  int32_t numInputs = hodu_model_num_inputs(model);
  std::vector<int32_t> reported = valueOutputs(model);
  int32_t numOutputs = int32_t(reported.size());
  std::vector<std::string> inputNames, outputNames;
  for (int32_t i = 0; i < numInputs; ++i)
    inputNames.push_back(hodu_model_input_name(model, i));
  for (int32_t i : reported)
    outputNames.push_back(hodu_model_output_name(model, i));
  std::vector<Slot> inputSlots = slotsOf(inputNames);
  std::vector<Slot> outputSlots = slotsOf(outputNames);
  int status = ExitOk;
  for (const fs::path &set : sets) {
    std::vector<HostTensor> inputs, expected;
    std::vector<std::string> inputPaths, outputPaths;
    std::string message;
    size_t inputFiles, outputFiles;
    std::vector<size_t> expectedCounts; // values per output file
    // An empty optional input holds zeros; an empty optional output's
    // tensors are not compared.
    std::vector<size_t> absentInputs, absentOutputs;
    if (!readNumbered(
            set, "input", inputSlots,
            [&](size_t v) {
              return v < size_t(numInputs) ? zeroInput(model, int32_t(v))
                                           : HostTensor();
            },
            inputs, inputPaths, absentInputs, inputFiles, message) ||
        !readNumbered(
            set, "output", outputSlots, [](size_t) { return HostTensor(); },
            expected, outputPaths, absentOutputs, outputFiles, message,
            &expectedCounts))
      return error(message);
    if (inputFiles != inputSlots.size() || int32_t(inputs.size()) != numInputs)
      return error("'" + set.string() + "' has " + std::to_string(inputFiles) +
                   " input_N.pb file(s), but "
                   "model '" +
                   hodu_model_name(model) + "' takes " +
                   std::to_string(inputSlots.size()) + " input(s)");
    bool runtimeSlots =
        std::any_of(outputSlots.begin(), outputSlots.end(),
                    [](const Slot &slot) { return slot.runtime; });
    if (outputFiles != outputSlots.size() ||
        (!runtimeSlots && int32_t(expected.size()) != numOutputs))
      return error("'" + set.string() + "' has " + std::to_string(outputFiles) +
                   " output_N.pb file(s), but model '" +
                   hodu_model_name(model) + "' has " +
                   std::to_string(outputSlots.size()) + " output(s)");
    for (int32_t i = 0; i < numInputs; ++i) {
      message = checkInput(model, i, inputs[size_t(i)], inputPaths[size_t(i)]);
      if (!message.empty())
        return error(message);
    }
    std::vector<HostTensor> outputs = makeOutputs(model);
    if (!runModel(model, inputs, outputs, message) ||
        !cropOutputs(model, outputs, message))
      return error(message);
    std::vector<std::string> failures;
    // Slot by slot: a sequence of run-time length is compared element by
    // element, once its lengths agree.
    size_t at = 0; // in `expected`
    for (size_t s = 0; s < outputSlots.size(); ++s) {
      const Slot &slot = outputSlots[s];
      std::vector<HostTensor> got;
      if (slot.runtime) {
        if (!decodeRuntimeSequence(
                slot.name, outputs[size_t(reported[slot.first])],
                outputs[size_t(reported[slot.first + 1])],
                outputs[size_t(reported[slot.first + 2])], got, message))
          return error(message);
        if (got.size() != expectedCounts[s]) {
          failures.push_back("sequence '" + slot.name + "': the model gave " +
                             std::to_string(got.size()) +
                             " element(s), the test data has " +
                             std::to_string(expectedCounts[s]));
          at += expectedCounts[s];
          continue;
        }
      } else {
        for (size_t v = 0; v < slot.values(); ++v)
          got.push_back(outputs[size_t(reported[slot.first + v])]);
      }
      for (size_t v = 0; v < got.size(); ++v, ++at) {
        if (std::find(absentOutputs.begin(), absentOutputs.end(), at) !=
            absentOutputs.end())
          continue;
        std::string difference = compareOutput(got[v], expected[at], options);
        if (!difference.empty())
          failures.push_back(difference);
      }
    }
    if (failures.empty()) {
      std::printf("PASS %s (%d output(s))\n", set.string().c_str(),
                  int(numOutputs));
      continue;
    }
    status = ExitMismatch;
    std::printf("FAIL %s\n", set.string().c_str());
    for (const std::string &failure : failures)
      std::printf("  %s\n", failure.c_str());
  }
  return status;
}

} // namespace

namespace {
int runMain(int argc, char **argv) {
  Options options;
  int parsed = parseOptions(argc, argv, options);
  if (parsed >= 0)
    return parsed;

  if (options.threads > 0) {
    hodu_status status =
        hodu_runtime_set_num_threads(int32_t(options.threads));
    if (status)
      return error(consume(status));
  }

  hodu_model *model = nullptr;
  hodu_load_options loadOptions;
  hodu_load_options_init(&loadOptions);
  loadOptions.device_kind = options.deviceKind;
  loadOptions.device_ordinal = int32_t(options.deviceOrdinal);
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
  if (int result = gatherInputs(model, options, inputs))
    return result;
  std::vector<HostTensor> outputs = makeOutputs(model);
  std::string message;
  if (!runModel(model, inputs, outputs, message))
    return error(message);
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
