//===- TensorProto.cpp - ONNX TensorProto files for hodu-run --------------===//
//
// The protobuf wire format of onnx.proto's TensorProto, decoded by hand: the
// fields a tensor file uses are few, and a protobuf library would be the
// tool's only dependency beyond libhodurt.
//
//===----------------------------------------------------------------------===//
#include "TensorIO.h"

#include "Varint.h"

#include <cstring>

namespace hodu_run {
namespace {

/// Reads protobuf wire-format primitives; every read is bounds-checked.
class WireReader {
public:
  WireReader(const uint8_t *begin, const uint8_t *end)
      : pos(begin), end(end) {}
  bool atEnd() const { return pos >= end; }
  bool varint(uint64_t &value) { return readVarint(pos, end, value); }
  /// A fixed32 or fixed64 field (`size` 4 or 8), little-endian like the
  /// host.
  bool fixed(void *value, size_t size) {
    if (size_t(end - pos) < size)
      return false;
    std::memcpy(value, pos, size);
    pos += size;
    return true;
  }
  bool lengthDelimited(const uint8_t *&data, size_t &size) {
    uint64_t length;
    if (!varint(length) || length > uint64_t(end - pos))
      return false;
    data = pos;
    size = size_t(length);
    pos += length;
    return true;
  }
  bool skip(uint32_t wireType) {
    uint64_t ignored;
    const uint8_t *data;
    size_t size;
    switch (wireType) {
    case 0:
      return varint(ignored);
    case 1:
      return fixed(&ignored, 8);
    case 2:
      return lengthDelimited(data, size);
    case 5:
      return fixed(&ignored, 4);
    default: // groups (3, 4) are not used by onnx.proto
      return false;
    }
  }

private:
  const uint8_t *pos;
  const uint8_t *end;
};

/// Appends the values of a repeated field, packed or not: wire type
/// `scalarWireType` carries one value, wire type 2 a packed run of them.
/// `readOne` reads one value from a WireReader.
template <typename T, typename ReadOne>
bool readRepeated(WireReader &reader, uint32_t wireType,
                  uint32_t scalarWireType, std::vector<T> &values,
                  ReadOne readOne) {
  T value;
  if (wireType == scalarWireType) {
    if (!readOne(reader, value))
      return false;
    values.push_back(value);
    return true;
  }
  if (wireType != 2)
    return false;
  const uint8_t *data;
  size_t size;
  if (!reader.lengthDelimited(data, size))
    return false;
  WireReader packed(data, data + size);
  while (!packed.atEnd()) {
    if (!readOne(packed, value))
      return false;
    values.push_back(value);
  }
  return true;
}

/// Appends the values of a repeated varint field.
bool readVarints(WireReader &reader, uint32_t wireType,
                 std::vector<uint64_t> &values) {
  return readRepeated(reader, wireType, 0, values,
                      [](WireReader &r, uint64_t &v) { return r.varint(v); });
}

/// Appends the values of a repeated fixed32 (`scalarWireType` 5) or fixed64
/// (1) field; a packed run that is no whole number of words fails on its
/// last, short word.
template <typename Word>
bool readFixed(WireReader &reader, uint32_t wireType, uint32_t scalarWireType,
               std::vector<Word> &values) {
  return readRepeated(
      reader, wireType, scalarWireType, values,
      [](WireReader &r, Word &v) { return r.fixed(&v, sizeof(Word)); });
}

struct OnnxType {
  int onnx;
  hodu_dtype dtype;
  const char *name;
};
const OnnxType onnxTypes[] = {
    {1, HODU_DTYPE_F32, "FLOAT"},       {2, HODU_DTYPE_U8, "UINT8"},
    {3, HODU_DTYPE_I8, "INT8"},         {4, HODU_DTYPE_U16, "UINT16"},
    {5, HODU_DTYPE_I16, "INT16"},       {6, HODU_DTYPE_I32, "INT32"},
    {7, HODU_DTYPE_I64, "INT64"},       {9, HODU_DTYPE_BOOL, "BOOL"},
    {10, HODU_DTYPE_F16, "FLOAT16"},    {11, HODU_DTYPE_F64, "DOUBLE"},
    {12, HODU_DTYPE_U32, "UINT32"},     {13, HODU_DTYPE_U64, "UINT64"},
    {16, HODU_DTYPE_BF16, "BFLOAT16"},  {17, HODU_DTYPE_F8E4M3, "FLOAT8E4M3FN"},
    {19, HODU_DTYPE_F8E5M2, "FLOAT8E5M2"},
};

int onnxTypeOf(hodu_dtype dtype) {
  for (const OnnxType &type : onnxTypes)
    if (type.dtype == dtype)
      return type.onnx;
  return 0;
}

void appendBytesField(std::string &out, uint32_t field, const void *data,
                      size_t size) {
  appendVarint(out, (uint64_t(field) << 3) | 2);
  appendVarint(out, size);
  out.append(static_cast<const char *>(data), size);
}

/// The fields of a TensorProto that hodu reads, as found on the wire.
struct TensorProtoFields {
  std::vector<uint64_t> dims, int32Data, int64Data, uint64Data;
  std::vector<float> floatData;
  std::vector<double> doubleData;
  const uint8_t *raw = nullptr;
  size_t rawSize = 0;
  bool hasRaw = false;
  uint64_t dataType = 0;
  std::string name;
};

/// Reads one field, with key `field` and `wireType`, into `fields`. False
/// for bad wire data, and for what hodu refuses, with `refusal` set.
bool readField(WireReader &reader, uint32_t field, uint32_t wireType,
               TensorProtoFields &fields, std::string &refusal) {
  const uint8_t *data;
  size_t length;
  switch (field) {
  case 1:
    return readVarints(reader, wireType, fields.dims);
  case 2:
    return wireType == 0 && reader.varint(fields.dataType);
  case 4:
    return readFixed<float>(reader, wireType, 5, fields.floatData);
  case 5:
    return readVarints(reader, wireType, fields.int32Data);
  case 6:
    refusal = "string tensors (string_data) are not supported";
    return false;
  case 7:
    return readVarints(reader, wireType, fields.int64Data);
  case 8:
    if (wireType != 2 || !reader.lengthDelimited(data, length))
      return false;
    fields.name.assign(reinterpret_cast<const char *>(data), length);
    return true;
  case 9:
    fields.hasRaw =
        wireType == 2 && reader.lengthDelimited(fields.raw, fields.rawSize);
    return fields.hasRaw;
  case 10:
    return readFixed<double>(reader, wireType, 1, fields.doubleData);
  case 11:
    return readVarints(reader, wireType, fields.uint64Data);
  case 14: {
    uint64_t location;
    if (wireType != 0 || !reader.varint(location))
      return false;
    if (location == 1)
      refusal = "tensors with external data are not supported";
    return location != 1;
  }
  default: // segment, doc_string, external_data, metadata ...
    return reader.skip(wireType);
  }
}

bool readFields(const uint8_t *bytes, size_t size, TensorProtoFields &fields,
                std::string &error) {
  WireReader reader(bytes, bytes + size);
  while (!reader.atEnd()) {
    uint64_t key;
    if (!reader.varint(key)) {
      error = "not a valid TensorProto (truncated field key)";
      return false;
    }
    uint32_t field = uint32_t(key >> 3), wireType = uint32_t(key & 7);
    std::string refusal;
    if (!readField(reader, field, wireType, fields, refusal)) {
      error = !refusal.empty()
                  ? refusal
                  : "not a valid TensorProto (bad or truncated field " +
                        std::to_string(field) + ")";
      return false;
    }
  }
  return true;
}

/// Fills `tensor.data` (sized already) from the typed field that carries
/// values of its dtype.
bool copyTypedData(const TensorProtoFields &fields, HostTensor &tensor,
                   std::string &error) {
  size_t found;
  const char *fieldName;
  switch (tensor.dtype) {
  case HODU_DTYPE_F32:
    found = fields.floatData.size();
    fieldName = "float_data";
    break;
  case HODU_DTYPE_F64:
    found = fields.doubleData.size();
    fieldName = "double_data";
    break;
  case HODU_DTYPE_I64:
    found = fields.int64Data.size();
    fieldName = "int64_data";
    break;
  case HODU_DTYPE_U32:
  case HODU_DTYPE_U64:
    found = fields.uint64Data.size();
    fieldName = "uint64_data";
    break;
  default: // int32_data carries all narrower types, one value per entry
    found = fields.int32Data.size();
    fieldName = "int32_data";
  }
  int64_t count = tensor.numElements();
  if (int64_t(found) != count) {
    error = std::string(fieldName) + " holds " + std::to_string(found) +
            " values, but shape " + formatShape(tensor.shape) + " needs " +
            std::to_string(count);
    return false;
  }
  // Allocated only now that the file holds as many values as the shape
  // needs: a shape of 2^56 elements in a 20-byte file is an error above,
  // not an allocation.
  size_t width = hodu_dtype_size(tensor.dtype);
  tensor.data.assign(size_t(count) * width, 0);
  char *out = reinterpret_cast<char *>(tensor.data.data());
  for (int64_t i = 0; i < count; ++i) {
    switch (tensor.dtype) {
    case HODU_DTYPE_F32:
      std::memcpy(out + 4 * i, &fields.floatData[i], 4);
      break;
    case HODU_DTYPE_F64:
      std::memcpy(out + 8 * i, &fields.doubleData[i], 8);
      break;
    case HODU_DTYPE_I64:
      std::memcpy(out + 8 * i, &fields.int64Data[i], 8);
      break;
    case HODU_DTYPE_U32: {
      uint32_t value = uint32_t(fields.uint64Data[i]);
      std::memcpy(out + 4 * i, &value, 4);
      break;
    }
    case HODU_DTYPE_U64:
      std::memcpy(out + 8 * i, &fields.uint64Data[i], 8);
      break;
    default: {
      // Bits of f16/bf16/f8 or the integer itself; keep the low bytes.
      uint64_t value = fields.int32Data[i];
      if (tensor.dtype == HODU_DTYPE_BOOL)
        value = value != 0;
      std::memcpy(out + width * i, &value, width);
    }
    }
  }
  return true;
}

} // namespace

bool decodeTensorProto(const uint8_t *bytes, size_t size, HostTensor &tensor,
                       std::string &error) {
  TensorProtoFields fields;
  if (!readFields(bytes, size, fields, error))
    return false;
  const OnnxType *type = nullptr;
  for (const OnnxType &candidate : onnxTypes)
    if (uint64_t(candidate.onnx) == fields.dataType)
      type = &candidate;
  if (!type) {
    error = fields.dataType == 0
                ? "TensorProto has no data_type (not a tensor file?)"
                : "unsupported ONNX data_type " +
                      std::to_string(fields.dataType);
    return false;
  }
  tensor.name = fields.name;
  tensor.dtype = type->dtype;
  tensor.shape.assign(fields.dims.begin(), fields.dims.end());
  size_t bytesNeeded;
  if (!checkedByteSize(tensor.shape, tensor.dtype, bytesNeeded, error))
    return false;
  // The data is allocated only once the file is known to hold that much.
  if (fields.hasRaw && fields.rawSize != bytesNeeded) {
    error = "raw_data holds " + std::to_string(fields.rawSize) +
            " bytes, but a " + type->name + " tensor of shape " +
            formatShape(tensor.shape) + " needs " +
            std::to_string(bytesNeeded);
    return false;
  }
  if (fields.hasRaw) {
    tensor.data.assign(fields.raw, fields.raw + fields.rawSize);
    return true;
  }
  return copyTypedData(fields, tensor, error);
}

bool decodeSequenceProto(const uint8_t *bytes, size_t size,
                         std::vector<HostTensor> &elements,
                         std::string &error) {
  elements.clear();
  WireReader reader(bytes, bytes + size);
  while (!reader.atEnd()) {
    uint64_t key;
    if (!reader.varint(key)) {
      error = "not a valid SequenceProto (truncated field key)";
      return false;
    }
    uint32_t field = uint32_t(key >> 3), wireType = uint32_t(key & 7);
    const uint8_t *data;
    size_t length;
    uint64_t value;
    bool ok;
    switch (field) {
    case 2: // elem_type: TENSOR (1) or UNDEFINED (0, an empty sequence)
      ok = wireType == 0 && reader.varint(value);
      if (ok && value > 1) {
        error = "sequences of sequences, maps or optionals are not supported";
        return false;
      }
      break;
    case 3: // tensor_values
      ok = wireType == 2 && reader.lengthDelimited(data, length);
      if (ok) {
        elements.emplace_back();
        if (!decodeTensorProto(data, length, elements.back(), error)) {
          error =
              "element " + std::to_string(elements.size() - 1) + ": " + error;
          return false;
        }
      }
      break;
    case 4:
    case 5:
    case 6:
    case 7:
      error = "sequences of sparse tensors, sequences, maps or optionals are "
              "not supported";
      return false;
    default: // name, and what later versions add
      ok = reader.skip(wireType);
    }
    if (!ok) {
      error = "not a valid SequenceProto (bad or truncated field " +
              std::to_string(field) + ")";
      return false;
    }
  }
  return true;
}

bool decodeOptionalProto(const uint8_t *bytes, size_t size,
                         OptionalValue &value, std::string &error) {
  value = OptionalValue();
  WireReader reader(bytes, bytes + size);
  uint64_t elemType = 0;
  bool sawType = false;
  const uint8_t *tensorData = nullptr, *sequenceData = nullptr;
  size_t tensorLength = 0, sequenceLength = 0;
  while (!reader.atEnd()) {
    uint64_t key;
    if (!reader.varint(key)) {
      error = "not a valid OptionalProto (truncated field key)";
      return false;
    }
    uint32_t field = uint32_t(key >> 3), wireType = uint32_t(key & 7);
    const uint8_t *data;
    size_t length;
    bool ok;
    switch (field) {
    case 1: // name
      ok = wireType == 2 && reader.lengthDelimited(data, length);
      break;
    case 2: // elem_type: UNDEFINED (0, empty), TENSOR (1), SEQUENCE (3)
      ok = wireType == 0 && reader.varint(elemType);
      sawType = true;
      break;
    case 3: // tensor_value
      ok = wireType == 2 && reader.lengthDelimited(tensorData, tensorLength);
      break;
    case 5: // sequence_value
      ok =
          wireType == 2 && reader.lengthDelimited(sequenceData, sequenceLength);
      break;
    case 4:
    case 6:
    case 7:
      error = "optionals of sparse tensors, maps or optionals are not "
              "supported";
      return false;
    default:
      error = "not a valid OptionalProto (unexpected field " +
              std::to_string(field) + ")";
      return false;
    }
    if (!ok) {
      error = "not a valid OptionalProto (bad or truncated field " +
              std::to_string(field) + ")";
      return false;
    }
  }
  if (!sawType || elemType > 5 || (elemType == 1) != (tensorData != nullptr) ||
      (elemType == 3) != (sequenceData != nullptr) ||
      (elemType != 0 && elemType != 1 && elemType != 3)) {
    error = "not a valid OptionalProto (its elem_type " +
            std::to_string(elemType) +
            " does not match its value, or is not a tensor or sequence)";
    return false;
  }
  value.present = elemType != 0;
  value.sequence = elemType == 3;
  if (tensorData) {
    value.elements.emplace_back();
    return decodeTensorProto(tensorData, tensorLength, value.elements.back(),
                             error);
  }
  if (sequenceData)
    return decodeSequenceProto(sequenceData, sequenceLength, value.elements,
                               error);
  return true;
}

std::string encodeTensorProto(const HostTensor &tensor) {
  std::string out;
  for (int64_t dim : tensor.shape) {
    appendVarint(out, (1 << 3) | 0);
    appendVarint(out, uint64_t(dim));
  }
  appendVarint(out, (2 << 3) | 0);
  appendVarint(out, uint64_t(onnxTypeOf(tensor.dtype)));
  if (!tensor.name.empty())
    appendBytesField(out, 8, tensor.name.data(), tensor.name.size());
  appendBytesField(out, 9, tensor.data.data(), tensor.data.size());
  return out;
}

} // namespace hodu_run
