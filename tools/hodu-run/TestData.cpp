//===- TestData.cpp - hodu-run --test-data --------------------------------===//
//
// --test-data DIR: each set of ONNX test data (DIR itself, or each
// DIR/test_data_set_*) is read -- TensorProto, SequenceProto and
// OptionalProto files numbered input_N.pb and output_N.pb -- run, and
// compared output by output within --rtol and --atol, naming the worst
// element of each output that differs.
//
//===----------------------------------------------------------------------===//
#include "HoduRun.h"

#include "Elements.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace hodu_run {

namespace {

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

} // namespace

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
    // Each set may have its own shapes: the symbols bind per set.
    std::vector<bool> generated(size_t(numInputs), false);
    for (size_t v : absentInputs)
      if (v < generated.size())
        generated[v] = true;
    std::vector<int64_t> values;
    if (!bindSymbols(model, options, inputs, generated, values, message))
      return error(message);
    std::vector<HostTensor> outputs = makeOutputs(model, values);
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

} // namespace hodu_run
