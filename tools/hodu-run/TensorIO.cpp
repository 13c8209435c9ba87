//===- TensorIO.cpp - tensor files for hodu-run ---------------------------===//
#include "TensorIO.h"

#include "Elements.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hodu_run {

int64_t HostTensor::numElements() const {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  return count;
}

std::string formatShape(int32_t rank, const int64_t *shape) {
  std::string text = "[";
  for (int32_t i = 0; i < rank; ++i) {
    if (i)
      text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

std::string formatShape(const std::vector<int64_t> &shape) {
  return formatShape(static_cast<int32_t>(shape.size()), shape.data());
}

bool parseTensorFormat(const std::string &text, TensorFormat &format) {
  if (text == "pb")
    format = TensorFormat::Pb;
  else if (text == "npy")
    format = TensorFormat::Npy;
  else if (text == "json")
    format = TensorFormat::Json;
  else if (text == "hdt")
    format = TensorFormat::Hdt;
  else
    return false;
  return true;
}

const char *tensorFormatExtension(TensorFormat format) {
  switch (format) {
  case TensorFormat::Pb:
    return "pb";
  case TensorFormat::Npy:
    return "npy";
  case TensorFormat::Json:
    return "json";
  case TensorFormat::Hdt:
    return "hdt";
  }
  return "";
}

namespace {

/// Validates a decoded shape and sizes the data: false (with `error`) when
/// an extent is negative or the byte size overflows.
bool checkedByteSize(const std::vector<int64_t> &shape, hodu_dtype dtype,
                     size_t &bytes, std::string &error) {
  uint64_t count = 1;
  for (int64_t extent : shape) {
    if (extent < 0) {
      error = "negative extent in shape " + formatShape(shape);
      return false;
    }
    if (extent != 0 && count > (uint64_t(1) << 48) / uint64_t(extent)) {
      error = "shape " + formatShape(shape) + " is too large";
      return false;
    }
    count *= uint64_t(extent);
  }
  bytes = size_t(count) * hodu_dtype_size(dtype);
  return true;
}

//===--------------------------------------------------------------------===//
// Protocol buffer wire format (TensorProto)
//===--------------------------------------------------------------------===//

/// Reads protobuf wire-format primitives; every read is bounds-checked.
class WireReader {
public:
  WireReader(const uint8_t *begin, const uint8_t *end)
      : pos(begin), end(end) {}
  bool atEnd() const { return pos >= end; }
  bool varint(uint64_t &value) {
    value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos >= end)
        return false;
      uint8_t byte = *pos++;
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return false;
  }
  bool fixed32(uint32_t &value) { return raw(&value, 4); }
  bool fixed64(uint64_t &value) { return raw(&value, 8); }
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
      return fixed64(ignored);
    case 2:
      return lengthDelimited(data, size);
    case 5: {
      uint32_t word;
      return fixed32(word);
    }
    default: // groups (3, 4) are not used by onnx.proto
      return false;
    }
  }

private:
  bool raw(void *out, size_t size) {
    if (size_t(end - pos) < size)
      return false;
    std::memcpy(out, pos, size); // little-endian host assumed
    pos += size;
    return true;
  }
  const uint8_t *pos;
  const uint8_t *end;
};

/// Appends the values of a repeated varint field, packed or not.
bool readVarints(WireReader &reader, uint32_t wireType,
                 std::vector<uint64_t> &values) {
  uint64_t value;
  if (wireType == 0) {
    if (!reader.varint(value))
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
    if (!packed.varint(value))
      return false;
    values.push_back(value);
  }
  return true;
}

/// Appends the values of a repeated fixed-width field, packed or not.
template <typename Word>
bool readFixed(WireReader &reader, uint32_t wireType, uint32_t scalarWireType,
               std::vector<Word> &values) {
  if (wireType == scalarWireType) {
    uint32_t word32 = 0;
    uint64_t word64 = 0;
    bool ok = sizeof(Word) == 4 ? reader.fixed32(word32)
                                : reader.fixed64(word64);
    Word value;
    if (sizeof(Word) == 4)
      std::memcpy(&value, &word32, sizeof(Word));
    else
      std::memcpy(&value, &word64, sizeof(Word));
    if (ok)
      values.push_back(value);
    return ok;
  }
  if (wireType != 2)
    return false;
  const uint8_t *data;
  size_t size;
  if (!reader.lengthDelimited(data, size) || size % sizeof(Word) != 0)
    return false;
  size_t first = values.size();
  values.resize(first + size / sizeof(Word));
  if (size)
    std::memcpy(&values[first], data, size);
  return true;
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

void appendVarint(std::string &out, uint64_t value) {
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    out.push_back(char(value ? byte | 0x80 : byte));
  } while (value);
}

void appendBytesField(std::string &out, uint32_t field, const void *data,
                      size_t size) {
  appendVarint(out, (uint64_t(field) << 3) | 2);
  appendVarint(out, size);
  out.append(static_cast<const char *>(data), size);
}

//===--------------------------------------------------------------------===//
// JSON
//===--------------------------------------------------------------------===//

struct JsonValue {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  std::string text; // a number's token or a string's contents
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;

  const JsonValue *member(const char *key) const {
    for (const auto &entry : members)
      if (entry.first == key)
        return &entry.second;
    return nullptr;
  }
};

/// A strict JSON reader, plus the NaN/Infinity/-Infinity tokens Python's
/// json module writes. Keeps number tokens as text so integers stay exact.
class JsonParser {
public:
  explicit JsonParser(const std::string &text) : text(text) {}

  bool parse(JsonValue &value, std::string &error) {
    if (!parseValue(value, 0) || (skipSpace(), pos != text.size())) {
      if (message.empty())
        message = "unexpected trailing text";
      size_t line = 1, column = 1;
      for (size_t i = 0; i < pos && i < text.size(); ++i) {
        if (text[i] == '\n') {
          ++line;
          column = 1;
        } else {
          ++column;
        }
      }
      error = "invalid JSON at line " + std::to_string(line) + ", column " +
              std::to_string(column) + ": " + message;
      return false;
    }
    return true;
  }

private:
  void skipSpace() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool fail(const char *what) {
    message = what;
    return false;
  }
  bool consume(const char *word) {
    size_t length = std::strlen(word);
    if (text.compare(pos, length, word) != 0)
      return false;
    pos += length;
    return true;
  }
  bool parseValue(JsonValue &value, int depth) {
    if (depth > 64)
      return fail("nested too deeply");
    skipSpace();
    if (pos >= text.size())
      return fail("unexpected end of input");
    char c = text[pos];
    if (c == '{')
      return parseObject(value, depth);
    if (c == '[')
      return parseArray(value, depth);
    if (c == '"') {
      value.kind = JsonValue::String;
      return parseString(value.text);
    }
    if (consume("true") || consume("false")) {
      value.kind = JsonValue::Bool;
      value.boolean = text[pos - 1] == 'e' && text[pos - 2] == 'u';
      return true;
    }
    if (consume("null")) {
      value.kind = JsonValue::Null;
      return true;
    }
    size_t start = pos;
    if (consume("NaN") || consume("Infinity") || consume("-Infinity")) {
      value.kind = JsonValue::Number;
      value.text = text.substr(start, pos - start);
      return true;
    }
    if (c == '-' || std::isdigit((unsigned char)c)) {
      if (c == '-')
        ++pos;
      if (pos >= text.size() || !std::isdigit((unsigned char)text[pos]))
        return fail("invalid number");
      while (pos < text.size() &&
             (std::isdigit((unsigned char)text[pos]) || text[pos] == '.' ||
              text[pos] == 'e' || text[pos] == 'E' || text[pos] == '+' ||
              text[pos] == '-'))
        ++pos;
      value.kind = JsonValue::Number;
      value.text = text.substr(start, pos - start);
      return true;
    }
    return fail("expected a value");
  }
  bool parseString(std::string &out) {
    ++pos; // opening quote
    while (pos < text.size() && text[pos] != '"') {
      char c = text[pos++];
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos >= text.size())
        break;
      char escaped = text[pos++];
      switch (escaped) {
      case 'n':
        out.push_back('\n');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'u': // names are ASCII in practice; keep the escape verbatim
        out += "\\u";
        break;
      default:
        out.push_back(escaped);
      }
    }
    if (pos >= text.size())
      return fail("unterminated string");
    ++pos;
    return true;
  }
  bool parseArray(JsonValue &value, int depth) {
    value.kind = JsonValue::Array;
    ++pos;
    skipSpace();
    if (pos < text.size() && text[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      value.items.emplace_back();
      if (!parseValue(value.items.back(), depth + 1))
        return false;
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }
  bool parseObject(JsonValue &value, int depth) {
    value.kind = JsonValue::Object;
    ++pos;
    skipSpace();
    if (pos < text.size() && text[pos] == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (pos >= text.size() || text[pos] != '"')
        return fail("expected a string key");
      std::string key;
      if (!parseString(key))
        return false;
      skipSpace();
      if (pos >= text.size() || text[pos] != ':')
        return fail("expected ':'");
      ++pos;
      value.members.emplace_back(key, JsonValue());
      if (!parseValue(value.members.back().second, depth + 1))
        return false;
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  const std::string &text;
  size_t pos = 0;
  std::string message;
};

/// Flattens nested arrays into `leaves` in row-major order.
void flatten(const JsonValue &value, std::vector<const JsonValue *> &leaves) {
  if (value.kind == JsonValue::Array) {
    for (const JsonValue &item : value.items)
      flatten(item, leaves);
    return;
  }
  leaves.push_back(&value);
}

/// Stores JSON element `value` at `index`, converting to `dtype`.
bool storeJsonElement(const JsonValue &value, hodu_dtype dtype, void *data,
                      int64_t index, std::string &error) {
  std::string where = "data[" + std::to_string(index) + "]";
  if (value.kind == JsonValue::Bool) {
    if (isFloat(dtype))
      storeFloat(dtype, data, index, value.boolean ? 1.0 : 0.0);
    else
      storeUnsigned(dtype, data, index, value.boolean ? 1 : 0);
    return true;
  }
  if (value.kind != JsonValue::Number) {
    error = where + " is not a number";
    return false;
  }
  const std::string &token = value.text;
  if (isFloat(dtype)) {
    double number;
    if (token == "NaN")
      number = NAN;
    else if (token == "Infinity")
      number = INFINITY;
    else if (token == "-Infinity")
      number = -INFINITY;
    else
      number = std::strtod(token.c_str(), nullptr);
    storeFloat(dtype, data, index, number);
    return true;
  }
  // Integers are parsed from the token so that 64-bit values stay exact.
  bool integral = token.find_first_of(".eEIN") == std::string::npos;
  bool stored;
  errno = 0;
  if (integral && token[0] == '-') {
    long long number = std::strtoll(token.c_str(), nullptr, 10);
    stored = errno == 0 && storeSigned(dtype, data, index, number);
  } else if (integral) {
    unsigned long long number = std::strtoull(token.c_str(), nullptr, 10);
    stored = errno == 0 && storeUnsigned(dtype, data, index, number);
  } else {
    double number = std::strtod(token.c_str(), nullptr);
    if (!std::isfinite(number) || number != std::floor(number)) {
      error = where + " = " + token + " is not an integer, but the dtype is " +
              hodu_dtype_name(dtype);
      return false;
    }
    stored = number < 0
                 ? number >= -9.2233720368547758e18 &&
                       storeSigned(dtype, data, index, (int64_t)number)
                 : number < 1.8446744073709552e19 &&
                       storeUnsigned(dtype, data, index, (uint64_t)number);
  }
  if (!stored)
    error = where + " = " + token + " does not fit " + hodu_dtype_name(dtype);
  return stored;
}

//===--------------------------------------------------------------------===//
// NumPy
//===--------------------------------------------------------------------===//

struct NpyType {
  const char *code; // descr without the byte-order character
  hodu_dtype dtype;
};
const NpyType npyTypes[] = {
    {"b1", HODU_DTYPE_BOOL}, {"f2", HODU_DTYPE_F16}, {"f4", HODU_DTYPE_F32},
    {"f8", HODU_DTYPE_F64},  {"u1", HODU_DTYPE_U8},  {"u2", HODU_DTYPE_U16},
    {"u4", HODU_DTYPE_U32},  {"u8", HODU_DTYPE_U64}, {"i1", HODU_DTYPE_I8},
    {"i2", HODU_DTYPE_I16},  {"i4", HODU_DTYPE_I32}, {"i8", HODU_DTYPE_I64},
};

/// Finds `'key':` in a .npy header dict and returns the position after ':'.
size_t findNpyKey(const std::string &header, const char *key) {
  std::string quoted[2] = {std::string("'") + key + "'",
                           std::string("\"") + key + "\""};
  for (const std::string &candidate : quoted) {
    size_t at = header.find(candidate);
    if (at == std::string::npos)
      continue;
    size_t colon = header.find(':', at + candidate.size());
    if (colon != std::string::npos)
      return colon + 1;
  }
  return std::string::npos;
}

//===--------------------------------------------------------------------===//
// postcard (hdt)
//===--------------------------------------------------------------------===//

bool readPostcardVarint(const uint8_t *&pos, const uint8_t *end,
                        uint64_t &value) {
  value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= end)
      return false;
    uint8_t byte = *pos++;
    value |= uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return true;
  }
  return false;
}

bool readFile(const std::string &path, std::string &contents,
              std::string &error) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  char buffer[1 << 16];
  size_t count;
  while ((count = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    contents.append(buffer, count);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed) {
    error = "cannot read '" + path + "'";
    return false;
  }
  return true;
}

bool endsWith(const std::string &text, const char *suffix) {
  size_t length = std::strlen(suffix);
  if (text.size() < length)
    return false;
  for (size_t i = 0; i < length; ++i)
    if (std::tolower((unsigned char)text[text.size() - length + i]) !=
        suffix[i])
      return false;
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

bool decodeTensorProto(const uint8_t *bytes, size_t size, HostTensor &tensor,
                       std::string &error) {
  WireReader reader(bytes, bytes + size);
  std::vector<uint64_t> dims, int32Data, int64Data, uint64Data;
  std::vector<float> floatData;
  std::vector<double> doubleData;
  const uint8_t *raw = nullptr;
  size_t rawSize = 0;
  bool hasRaw = false;
  uint64_t dataType = 0;
  auto malformed = [&](const char *what) {
    error = std::string("not a valid TensorProto (") + what + ")";
    return false;
  };
  while (!reader.atEnd()) {
    uint64_t key;
    if (!reader.varint(key))
      return malformed("truncated field key");
    uint32_t field = uint32_t(key >> 3), wireType = uint32_t(key & 7);
    bool ok = true;
    const uint8_t *data;
    size_t length;
    switch (field) {
    case 1:
      ok = readVarints(reader, wireType, dims);
      break;
    case 2:
      ok = wireType == 0 && reader.varint(dataType);
      break;
    case 4:
      ok = readFixed<float>(reader, wireType, 5, floatData);
      break;
    case 5:
      ok = readVarints(reader, wireType, int32Data);
      break;
    case 6:
      error = "string tensors (string_data) are not supported";
      return false;
    case 7:
      ok = readVarints(reader, wireType, int64Data);
      break;
    case 8:
      ok = wireType == 2 && reader.lengthDelimited(data, length);
      if (ok)
        tensor.name.assign(reinterpret_cast<const char *>(data), length);
      break;
    case 9:
      ok = wireType == 2 && reader.lengthDelimited(raw, rawSize);
      hasRaw = ok;
      break;
    case 10:
      ok = readFixed<double>(reader, wireType, 1, doubleData);
      break;
    case 11:
      ok = readVarints(reader, wireType, uint64Data);
      break;
    case 14: {
      uint64_t location;
      ok = wireType == 0 && reader.varint(location);
      if (ok && location == 1) {
        error = "tensors with external data are not supported";
        return false;
      }
      break;
    }
    default: // segment, doc_string, external_data, metadata ...
      ok = reader.skip(wireType);
    }
    if (!ok)
      return malformed(("bad or truncated field " + std::to_string(field))
                           .c_str());
  }

  const OnnxType *type = nullptr;
  for (const OnnxType &candidate : onnxTypes)
    if (uint64_t(candidate.onnx) == dataType)
      type = &candidate;
  if (!type) {
    error = dataType == 0 ? "TensorProto has no data_type (not a tensor file?)"
                          : "unsupported ONNX data_type " +
                                std::to_string(dataType);
    return false;
  }
  tensor.dtype = type->dtype;
  tensor.shape.clear();
  for (uint64_t dim : dims)
    tensor.shape.push_back(int64_t(dim));
  size_t bytesNeeded;
  if (!checkedByteSize(tensor.shape, tensor.dtype, bytesNeeded, error))
    return false;
  int64_t count = tensor.numElements();
  tensor.data.assign(bytesNeeded, 0);

  if (hasRaw) {
    if (rawSize != bytesNeeded) {
      error = "raw_data holds " + std::to_string(rawSize) + " bytes, but a " +
              type->name + " tensor of shape " + formatShape(tensor.shape) +
              " needs " + std::to_string(bytesNeeded);
      return false;
    }
    if (rawSize)
      std::memcpy(tensor.data.data(), raw, rawSize);
    return true;
  }

  // Typed fields: which one holds the values depends on the data type.
  size_t found;
  const char *fieldName;
  switch (tensor.dtype) {
  case HODU_DTYPE_F32:
    found = floatData.size();
    fieldName = "float_data";
    break;
  case HODU_DTYPE_F64:
    found = doubleData.size();
    fieldName = "double_data";
    break;
  case HODU_DTYPE_I64:
    found = int64Data.size();
    fieldName = "int64_data";
    break;
  case HODU_DTYPE_U32:
  case HODU_DTYPE_U64:
    found = uint64Data.size();
    fieldName = "uint64_data";
    break;
  default: // int32_data carries all narrower types, one value per entry
    found = int32Data.size();
    fieldName = "int32_data";
  }
  if (int64_t(found) != count) {
    error = std::string(fieldName) + " holds " + std::to_string(found) +
            " values, but shape " + formatShape(tensor.shape) + " needs " +
            std::to_string(count);
    return false;
  }
  void *out = tensor.data.data();
  for (int64_t i = 0; i < count; ++i) {
    switch (tensor.dtype) {
    case HODU_DTYPE_F32:
      std::memcpy((char *)out + 4 * i, &floatData[i], 4);
      break;
    case HODU_DTYPE_F64:
      std::memcpy((char *)out + 8 * i, &doubleData[i], 8);
      break;
    case HODU_DTYPE_I64:
      std::memcpy((char *)out + 8 * i, &int64Data[i], 8);
      break;
    case HODU_DTYPE_U32: {
      uint32_t value = uint32_t(uint64Data[i]);
      std::memcpy((char *)out + 4 * i, &value, 4);
      break;
    }
    case HODU_DTYPE_U64:
      std::memcpy((char *)out + 8 * i, &uint64Data[i], 8);
      break;
    default: {
      // Bits of f16/bf16/f8 or the integer itself; keep the low bytes.
      uint64_t value = int32Data[i];
      size_t width = hodu_dtype_size(tensor.dtype);
      if (tensor.dtype == HODU_DTYPE_BOOL)
        value = value != 0;
      std::memcpy((char *)out + width * i, &value, width);
    }
    }
  }
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

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

bool decodeNpy(const uint8_t *bytes, size_t size, HostTensor &tensor,
               std::string &error) {
  if (size < 10 || std::memcmp(bytes, "\x93NUMPY", 6) != 0) {
    error = "not a .npy file (bad magic)";
    return false;
  }
  uint8_t major = bytes[6];
  size_t headerLength, start;
  if (major == 1) {
    headerLength = size_t(bytes[8]) | size_t(bytes[9]) << 8;
    start = 10;
  } else if ((major == 2 || major == 3) && size >= 12) {
    headerLength = size_t(bytes[8]) | size_t(bytes[9]) << 8 |
                   size_t(bytes[10]) << 16 | size_t(bytes[11]) << 24;
    start = 12;
  } else {
    error = "unsupported .npy format version " + std::to_string(major);
    return false;
  }
  if (headerLength > size - start) {
    error = "truncated .npy header";
    return false;
  }
  std::string header(reinterpret_cast<const char *>(bytes) + start,
                     headerLength);

  size_t at = findNpyKey(header, "descr");
  size_t quote = at == std::string::npos ? at : header.find_first_of("'\"", at);
  size_t close = quote == std::string::npos
                     ? quote
                     : header.find(header[quote], quote + 1);
  if (close == std::string::npos) {
    error = ".npy header has no 'descr'";
    return false;
  }
  std::string descr = header.substr(quote + 1, close - quote - 1);
  char order = descr.empty() ? '?' : descr[0];
  std::string code = descr.size() > 1 ? descr.substr(1) : "";
  if (order != '<' && order != '>' && order != '|' && order != '=')
    code = "";
  bool found = false;
  for (const NpyType &type : npyTypes) {
    if (code == type.code) {
      tensor.dtype = type.dtype;
      found = true;
    }
  }
  if (!found) {
    error = "unsupported .npy dtype '" + descr + "'";
    return false;
  }
  bool swap = order == '>' && hodu_dtype_size(tensor.dtype) > 1;

  at = findNpyKey(header, "fortran_order");
  while (at < header.size() && header[at] == ' ')
    ++at;
  bool fortran = at != std::string::npos && header.compare(at, 4, "True") == 0;

  at = findNpyKey(header, "shape");
  size_t open = at == std::string::npos ? at : header.find('(', at);
  size_t end = open == std::string::npos ? open : header.find(')', open);
  if (end == std::string::npos) {
    error = ".npy header has no 'shape'";
    return false;
  }
  tensor.shape.clear();
  std::string dims = header.substr(open + 1, end - open - 1);
  for (size_t pos = 0; pos < dims.size();) {
    while (pos < dims.size() && (dims[pos] == ' ' || dims[pos] == ','))
      ++pos;
    if (pos >= dims.size())
      break;
    char *next;
    long long extent = std::strtoll(dims.c_str() + pos, &next, 10);
    if (next == dims.c_str() + pos || extent < 0) {
      error = "bad .npy shape '(" + dims + ")'";
      return false;
    }
    tensor.shape.push_back(extent);
    pos = size_t(next - dims.c_str());
  }

  size_t bytesNeeded;
  if (!checkedByteSize(tensor.shape, tensor.dtype, bytesNeeded, error))
    return false;
  size_t dataStart = start + headerLength;
  if (size - dataStart < bytesNeeded) {
    error = ".npy data is truncated: " + std::to_string(size - dataStart) +
            " bytes for shape " + formatShape(tensor.shape) + ", need " +
            std::to_string(bytesNeeded);
    return false;
  }
  const uint8_t *data = bytes + dataStart;
  size_t width = hodu_dtype_size(tensor.dtype);
  int64_t count = tensor.numElements();
  tensor.data.assign(data, data + bytesNeeded);
  if (swap)
    for (int64_t i = 0; i < count; ++i)
      for (size_t b = 0; b < width / 2; ++b)
        std::swap(tensor.data[i * width + b],
                  tensor.data[i * width + width - 1 - b]);
  if (fortran && tensor.shape.size() > 1) {
    // Column-major on disk: element (i0..in) sits at sum(ik * stride_k)
    // with strides growing from the first dimension.
    std::vector<uint8_t> rowMajor(bytesNeeded);
    size_t rank = tensor.shape.size();
    std::vector<int64_t> index(rank, 0);
    for (int64_t flat = 0; flat < count; ++flat) {
      int64_t offset = 0, stride = 1;
      for (size_t d = 0; d < rank; ++d) {
        offset += index[d] * stride;
        stride *= tensor.shape[d];
      }
      std::memcpy(&rowMajor[flat * width], &tensor.data[offset * width],
                  width);
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < tensor.shape[d])
          break;
        index[d] = 0;
      }
    }
    tensor.data.swap(rowMajor);
  }
  return true;
}

bool formatSupports(TensorFormat format, hodu_dtype dtype,
                    std::string &error) {
  if (format != TensorFormat::Npy)
    return true;
  for (const NpyType &type : npyTypes)
    if (type.dtype == dtype)
      return true;
  error = std::string("NumPy has no ") + hodu_dtype_name(dtype) +
          " type; write it with --output-format pb, json or hdt";
  return false;
}

bool encodeNpy(const HostTensor &tensor, std::string &out,
               std::string &error) {
  if (!formatSupports(TensorFormat::Npy, tensor.dtype, error))
    return false;
  const char *code = nullptr;
  for (const NpyType &type : npyTypes)
    if (type.dtype == tensor.dtype)
      code = type.code;
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    shape += std::to_string(tensor.shape[i]) + (i + 1 < tensor.shape.size() ? ", " : ",");
  if (tensor.shape.size() > 1)
    shape.pop_back(); // "(2, 3)", but "(3,)" for rank 1
  shape += ")";
  std::string header = std::string("{'descr': '") +
                       (hodu_dtype_size(tensor.dtype) == 1 ? "|" : "<") + code +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so the data starts 64-byte aligned, ending in '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  if (header.size() > 0xffff) {
    error = "shape too long for a .npy v1 header";
    return false;
  }
  out.assign("\x93NUMPY\x01\x00", 8);
  out.push_back(char(header.size() & 0xff));
  out.push_back(char(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char *>(tensor.data.data()),
             tensor.data.size());
  return true;
}

//===----------------------------------------------------------------------===//
// JSON tensors
//===----------------------------------------------------------------------===//

bool decodeJsonTensor(const std::string &text, HostTensor &tensor,
                      std::string &error) {
  JsonValue root;
  JsonParser parser(text);
  if (!parser.parse(root, error))
    return false;
  if (root.kind != JsonValue::Object) {
    error = "a JSON tensor must be an object {\"shape\", \"dtype\", \"data\"}";
    return false;
  }
  const JsonValue *shape = root.member("shape");
  const JsonValue *dtype = root.member("dtype");
  const JsonValue *data = root.member("data");
  if (!shape || !dtype || !data) {
    error = std::string("JSON tensor has no \"") +
            (!shape ? "shape" : !dtype ? "dtype" : "data") + "\" member";
    return false;
  }
  if (dtype->kind != JsonValue::String ||
      !hodu_dtype_from_name(dtype->text.c_str(), &tensor.dtype)) {
    error = "unknown dtype \"" + dtype->text +
            "\" (expected bool, f8e4m3, f8e5m2, bf16, f16, f32, f64, u8, "
            "u16, u32, u64, i8, i16, i32 or i64)";
    return false;
  }
  if (shape->kind != JsonValue::Array) {
    error = "\"shape\" must be an array of integers";
    return false;
  }
  tensor.shape.clear();
  for (const JsonValue &extent : shape->items) {
    char *end = nullptr;
    long long value = extent.kind == JsonValue::Number
                          ? std::strtoll(extent.text.c_str(), &end, 10)
                          : -1;
    if (!end || *end || value < 0) {
      error = "\"shape\" must be an array of non-negative integers";
      return false;
    }
    tensor.shape.push_back(value);
  }
  size_t bytesNeeded;
  if (!checkedByteSize(tensor.shape, tensor.dtype, bytesNeeded, error))
    return false;
  std::vector<const JsonValue *> leaves;
  flatten(*data, leaves);
  if (int64_t(leaves.size()) != tensor.numElements()) {
    error = "\"data\" has " + std::to_string(leaves.size()) +
            " values, but shape " + formatShape(tensor.shape) + " needs " +
            std::to_string(tensor.numElements());
    return false;
  }
  tensor.data.assign(bytesNeeded, 0);
  for (size_t i = 0; i < leaves.size(); ++i)
    if (!storeJsonElement(*leaves[i], tensor.dtype, tensor.data.data(),
                          int64_t(i), error))
      return false;
  return true;
}

std::string encodeJsonTensor(const HostTensor &tensor) {
  std::string out = "{\"shape\":[";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    out += (i ? "," : "") + std::to_string(tensor.shape[i]);
  out += std::string("],\"dtype\":\"") + hodu_dtype_name(tensor.dtype) +
         "\",\"data\":[";
  int64_t count = tensor.numElements();
  for (int64_t i = 0; i < count; ++i) {
    if (i)
      out += ",";
    out += formatElement(tensor.dtype, tensor.data.data(), i, /*exact=*/true);
  }
  return out + "]}\n";
}

//===----------------------------------------------------------------------===//
// .hdt (postcard)
//===----------------------------------------------------------------------===//

bool decodeHdt(const uint8_t *bytes, size_t size, HostTensor &tensor,
               std::string &error) {
  const uint8_t *pos = bytes, *end = bytes + size;
  uint64_t rank;
  if (!readPostcardVarint(pos, end, rank) || rank > 64) {
    error = "not a valid .hdt file (bad shape length)";
    return false;
  }
  tensor.shape.clear();
  for (uint64_t i = 0; i < rank; ++i) {
    uint64_t extent;
    if (!readPostcardVarint(pos, end, extent) || extent > (uint64_t(1) << 48)) {
      error = "not a valid .hdt file (bad shape)";
      return false;
    }
    tensor.shape.push_back(int64_t(extent));
  }
  if (pos >= end || *pos >= HODU_DTYPE_COUNT) {
    error = "not a valid .hdt file (bad dtype)";
    return false;
  }
  tensor.dtype = hodu_dtype(*pos++);
  uint64_t length;
  size_t bytesNeeded;
  if (!readPostcardVarint(pos, end, length) || length > uint64_t(end - pos)) {
    error = "not a valid .hdt file (truncated data)";
    return false;
  }
  if (!checkedByteSize(tensor.shape, tensor.dtype, bytesNeeded, error))
    return false;
  if (length != bytesNeeded) {
    error = ".hdt data holds " + std::to_string(length) + " bytes, but a " +
            hodu_dtype_name(tensor.dtype) + " tensor of shape " +
            formatShape(tensor.shape) + " needs " +
            std::to_string(bytesNeeded);
    return false;
  }
  tensor.data.assign(pos, pos + length);
  return true;
}

std::string encodeHdt(const HostTensor &tensor) {
  std::string out;
  appendVarint(out, tensor.shape.size());
  for (int64_t extent : tensor.shape)
    appendVarint(out, uint64_t(extent));
  out.push_back(char(tensor.dtype));
  appendVarint(out, tensor.data.size());
  out.append(reinterpret_cast<const char *>(tensor.data.data()),
             tensor.data.size());
  return out;
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &error) {
  std::string contents;
  if (!readFile(path, contents, error))
    return false;
  const uint8_t *bytes = reinterpret_cast<const uint8_t *>(contents.data());
  TensorFormat format;
  if (endsWith(path, ".npy"))
    format = TensorFormat::Npy;
  else if (endsWith(path, ".json"))
    format = TensorFormat::Json;
  else if (endsWith(path, ".hdt"))
    format = TensorFormat::Hdt;
  else if (endsWith(path, ".pb"))
    format = TensorFormat::Pb;
  else if (contents.compare(0, 6, "\x93NUMPY") == 0)
    format = TensorFormat::Npy;
  else if (contents.find_first_not_of(" \t\r\n") != std::string::npos &&
           contents[contents.find_first_not_of(" \t\r\n")] == '{')
    format = TensorFormat::Json;
  else
    format = TensorFormat::Pb;

  bool ok = false;
  switch (format) {
  case TensorFormat::Pb:
    ok = decodeTensorProto(bytes, contents.size(), tensor, error);
    break;
  case TensorFormat::Npy:
    ok = decodeNpy(bytes, contents.size(), tensor, error);
    break;
  case TensorFormat::Json:
    ok = decodeJsonTensor(contents, tensor, error);
    break;
  case TensorFormat::Hdt:
    ok = decodeHdt(bytes, contents.size(), tensor, error);
    break;
  }
  if (!ok)
    error = "'" + path + "': " + error;
  return ok;
}

bool writeTensorFile(const std::string &path, TensorFormat format,
                     const HostTensor &tensor, std::string &error) {
  std::string contents;
  switch (format) {
  case TensorFormat::Pb:
    contents = encodeTensorProto(tensor);
    break;
  case TensorFormat::Npy:
    if (!encodeNpy(tensor, contents, error)) {
      error = "'" + path + "': " + error;
      return false;
    }
    break;
  case TensorFormat::Json:
    contents = encodeJsonTensor(tensor);
    break;
  case TensorFormat::Hdt:
    contents = encodeHdt(tensor);
    break;
  }
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(contents.data(), 1, contents.size(), file) ==
            contents.size();
  ok = std::fclose(file) == 0 && ok;
  if (!ok)
    error = "cannot write '" + path + "'";
  return ok;
}

} // namespace hodu_run
