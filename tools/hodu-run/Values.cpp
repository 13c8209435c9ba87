//===- Values.cpp - the model's ONNX values and --input -------------------===//
//
// A model compiled from ONNX takes and returns tensors only: a sequence is
// consecutive tensors "NAME[0]", "NAME[1]" ... (or, at run-time length,
// three tensors), an optional its tensor or elements and "NAME#present".
// Slots map the ONNX values back onto those tensors; this file finds them,
// reads SequenceProto and OptionalProto files into them, decodes sequences
// of run-time length, and gathers and checks the --input files.
//
//===----------------------------------------------------------------------===//
#include "HoduRun.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

namespace fs = std::filesystem;

namespace hodu_run {

/// Whether `names[i]` starts the three outputs of a sequence of run-time
/// length ("NAME#sequence_data", "#sequence_shapes", "#sequence_length");
/// `base` gets NAME.
static bool runtimeSequenceAt(const std::vector<std::string> &names, size_t i,
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
static std::optional<std::pair<std::string, size_t>>
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
static bool checkSequenceLength(const std::string &path, size_t got,
                                size_t count, std::string &message) {
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
static HostTensor presentFlag(const std::string &name, bool present) {
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
  for (int64_t &extent : t.shape)
    extent = extent == HODU_DIM_DYNAMIC ? 0 : extent;
  t.data.assign(size_t(t.numElements()) * hodu_dtype_size(t.dtype), 0);
  return t;
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
  // Dynamic dims are checked when the symbols bind (bindSymbols), with
  // messages naming the dim and its symbol.
  const int64_t *shape = hodu_model_input_shape(model, index);
  int32_t rank = hodu_model_input_rank(model, index);
  if (std::find(shape, shape + rank, int64_t(HODU_DIM_DYNAMIC)) != shape + rank)
    return "";
  std::string expectedShape = formatShape(rank, shape);
  if (formatShape(tensor.shape) != expectedShape)
    return prefix + "expected shape " + expectedShape + ", got " +
           formatShape(tensor.shape);
  return "";
}

/// Reads --input files into model order.
int gatherInputs(const hodu_model *model, const Options &options,
                 std::vector<HostTensor> &inputs,
                 std::vector<bool> &generated) {
  int32_t count = hodu_model_num_inputs(model);
  inputs.assign(size_t(count), HostTensor());
  generated.assign(size_t(count), false);
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
          generated[at] =
              std::find(absent.begin(), absent.end(), v) != absent.end();
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
      bytes = shape[d] == HODU_DIM_DYNAMIC ? kMaxTensorFileBytes
              : shape[d] > 0 && bytes > kMaxTensorFileBytes / uint64_t(shape[d])
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

bool bindSymbols(const hodu_model *model, const Options &options,
                 std::vector<HostTensor> &inputs,
                 const std::vector<bool> &generated,
                 std::vector<int64_t> &values, std::string &message) {
  int32_t count = hodu_model_num_symbols(model);
  values.assign(size_t(count), -1);
  std::vector<hodu_tensor *> wrapped(inputs.size(), nullptr);
  struct Guard {
    std::vector<hodu_tensor *> &tensors;
    ~Guard() {
      for (hodu_tensor *tensor : tensors)
        hodu_tensor_free(tensor);
    }
  } guard{wrapped};
  hodu_status status = nullptr;
  for (size_t i = 0; i < inputs.size() && !status && count; ++i)
    if (!generated[i])
      status = hodu_tensor_wrap(
          inputs[i].dtype, int32_t(inputs[i].shape.size()),
          inputs[i].shape.data(),
          inputs[i].data.empty() ? nullptr : inputs[i].data.data(),
          inputs[i].data.size(), &wrapped[i]);
  if (!status && count)
    status = hodu_model_bind_symbols(model, wrapped.data(), wrapped.size(),
                                     values.data(), values.size());
  for (const auto &[name, value] : options.dims) {
    int32_t k = -1;
    if (!status)
      status = hodu_model_symbol_index(model, name.c_str(), &k);
    if (status)
      break;
    if (values[size_t(k)] >= 0 && values[size_t(k)] != value) {
      message = "--dim " + name + "=" + std::to_string(value) +
                ", but the input files make symbol '" + name + "' " +
                std::to_string(values[size_t(k)]);
      return false;
    }
    values[size_t(k)] = value;
  }
  for (int32_t k = 0; k < count && !status; ++k)
    if (values[size_t(k)] < 0) {
      message = std::string("symbol '") + hodu_model_symbol_name(model, k) +
                "' has no value: no input file gives it; pass --dim=" +
                hodu_model_symbol_name(model, k) + "=N";
      return false;
    }
  // The generated inputs at the values' shapes (which checks the values
  // that came from --dim against their bounds).
  for (size_t i = 0; i < inputs.size() && !status && count; ++i) {
    if (!generated[i])
      continue;
    HostTensor &t = inputs[i];
    status = hodu_model_resolve_input_shape(model, int32_t(i), values.data(),
                                            values.size(), t.shape.data());
    if (!status)
      t.data.assign(size_t(t.numElements()) * hodu_dtype_size(t.dtype), 0);
  }
  if (status) {
    message = consume(status);
    return false;
  }
  return true;
}

} // namespace hodu_run
