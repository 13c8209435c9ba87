//===- hodu-run.cpp - run a compiled Hodu model from the command line -----===//
//
// hodu-run loads an artifact made by hoduc through libhodurt, feeds it tensor
// files and prints, saves, checks or times the outputs. It uses only the
// runtime's public C API (no LLVM), like any embedding application would.
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
#include <filesystem>
#include <string>
#include <vector>

using namespace hodu_run;
namespace fs = std::filesystem;

namespace {

constexpr int ExitOk = 0;
constexpr int ExitMismatch = 1;
constexpr int ExitError = 2;

const char *const usageText = R"(usage: hodu-run ARTIFACT [options]

Runs a model compiled by hoduc (a shared library) on the CPU.

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

Other:
  --info                    print the model's inputs and outputs and exit
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
  long warmup = 3;
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
          "--warmup", "--threads"};
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

void printInfo(const hodu_model *model) {
  std::printf("model '%s' (target %s, ABI %u)\n", hodu_model_name(model),
              hodu_model_target(model),
              hodu_model_descriptor(model)->abi_version);
  std::printf("inputs:\n");
  for (int32_t i = 0; i < hodu_model_num_inputs(model); ++i)
    std::printf("  %s\n", inputSignature(model, i).c_str());
  std::printf("outputs:\n");
  for (int32_t i = 0; i < hodu_model_num_outputs(model); ++i)
    std::printf("  %s\n", outputSignature(model, i).c_str());
  if (uint64_t bytes = hodu_model_workspace_size(model))
    std::printf("workspace: %llu bytes per concurrent run\n",
                (unsigned long long)bytes);
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

/// Reads --input files into model order.
int gatherInputs(const hodu_model *model, const Options &options,
                 std::vector<HostTensor> &inputs) {
  int32_t count = hodu_model_num_inputs(model);
  inputs.assign(size_t(count), HostTensor());
  std::vector<std::string> sources(static_cast<size_t>(count));
  std::vector<std::string> positional;
  // Named inputs first, so that unnamed files fill the remaining slots.
  for (const std::string &spec : options.inputs) {
    size_t eq = spec.find('=');
    std::error_code code;
    if (eq == std::string::npos || fs::exists(spec, code)) {
      positional.push_back(spec);
      continue;
    }
    int32_t index;
    hodu_status status =
        hodu_model_input_index(model, spec.substr(0, eq).c_str(), &index);
    if (status)
      return error(consume(status));
    if (!sources[size_t(index)].empty())
      return error("input '" + spec.substr(0, eq) + "' given twice");
    sources[size_t(index)] = spec.substr(eq + 1);
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
    if (!readTensorFile(sources[size_t(i)], inputs[size_t(i)], message, limit))
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

/// Reads DIR/<prefix>_0.pb, _1.pb ... until one is missing.
bool readNumbered(const fs::path &dir, const char *prefix,
                  std::vector<HostTensor> &tensors,
                  std::vector<std::string> &paths, std::string &message) {
  for (size_t i = 0;; ++i) {
    fs::path path = dir / (std::string(prefix) + "_" + std::to_string(i) + ".pb");
    std::error_code code;
    if (!fs::exists(path, code))
      return true;
    tensors.emplace_back();
    paths.push_back(path.string());
    if (!readTensorFile(path.string(), tensors.back(), message))
      return false;
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
  int32_t numOutputs = hodu_model_num_outputs(model);
  int status = ExitOk;
  for (const fs::path &set : sets) {
    std::vector<HostTensor> inputs, expected;
    std::vector<std::string> inputPaths, outputPaths;
    std::string message;
    if (!readNumbered(set, "input", inputs, inputPaths, message) ||
        !readNumbered(set, "output", expected, outputPaths, message))
      return error(message);
    if (int32_t(inputs.size()) != numInputs)
      return error("'" + set.string() + "' has " +
                   std::to_string(inputs.size()) + " input_N.pb file(s), but "
                   "model '" + hodu_model_name(model) + "' takes " +
                   std::to_string(numInputs) + " input(s)");
    if (int32_t(expected.size()) != numOutputs)
      return error("'" + set.string() + "' has " +
                   std::to_string(expected.size()) +
                   " output_N.pb file(s), but model '" +
                   hodu_model_name(model) + "' has " +
                   std::to_string(numOutputs) + " output(s)");
    for (int32_t i = 0; i < numInputs; ++i) {
      message = checkInput(model, i, inputs[size_t(i)], inputPaths[size_t(i)]);
      if (!message.empty())
        return error(message);
    }
    std::vector<HostTensor> outputs = makeOutputs(model);
    if (!runModel(model, inputs, outputs, message))
      return error(message);
    std::vector<std::string> failures;
    for (int32_t i = 0; i < numOutputs; ++i) {
      std::string difference =
          compareOutput(outputs[size_t(i)], expected[size_t(i)], options);
      if (!difference.empty())
        failures.push_back(difference);
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

int main(int argc, char **argv) {
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
  hodu_status status = hodu_model_load(options.artifact.c_str(), &model);
  if (status)
    return error(consume(status));
  struct ModelGuard {
    hodu_model *model;
    ~ModelGuard() { hodu_model_free(model); }
  } guard{model};

  if (options.info) {
    printInfo(model);
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
  if (!options.outputDir.empty())
    return writeOutputs(outputs, options);
  if (!options.quiet)
    for (const HostTensor &output : outputs)
      printTensor(output, options.printLimit);
  return ExitOk;
}
