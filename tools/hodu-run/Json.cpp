//===- Json.cpp - Hodu's JSON tensor files for hodu-run -------------------===//
//
// {"shape":[2,3],"dtype":"f32","data":[...]}, parsed by nlohmann-json. Two
// things it does not do are added here: the NaN, Infinity and -Infinity
// tokens that Python's json module writes, and error positions at the start
// of the offending token, as the messages of hodu-run have always given them.
//
//===----------------------------------------------------------------------===//
#include "TensorIO.h"

#include "Elements.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

namespace hodu_run {
namespace {

using Json = nlohmann::json;

/// Deeper "data" nesting is refused rather than flattened by recursion.
constexpr int kMaxDataDepth = 64;

/// JSON text with Python's NaN, Infinity and -Infinity quoted as strings,
/// which JSON has, and a way back to positions in the original text.
struct QuotedSpecials {
  std::string text;
  std::vector<size_t> insertedAt; // positions in `text` of added quotes

  explicit QuotedSpecials(const std::string &original) {
    static const char *const specials[] = {"NaN", "Infinity", "-Infinity"};
    text.reserve(original.size());
    bool inString = false;
    for (size_t pos = 0; pos < original.size();) {
      char c = original[pos];
      if (inString || c == '"') {
        // Inside a string an escaped character is copied with its '\'.
        if (inString && c == '\\' && pos + 1 < original.size())
          text += original[pos++];
        else if (c == '"')
          inString = !inString;
        text += original[pos++];
        continue;
      }
      const char *special = nullptr;
      for (const char *candidate : specials)
        if (original.compare(pos, std::strlen(candidate), candidate) == 0)
          special = candidate;
      if (!special) {
        text += original[pos++];
        continue;
      }
      insertedAt.push_back(text.size());
      text += '"';
      text += special;
      insertedAt.push_back(text.size());
      text += '"';
      pos += std::strlen(special);
    }
  }

  /// The position in the original text of position `pos` in `text`.
  size_t originalPosition(size_t pos) const {
    size_t before = 0;
    while (before < insertedAt.size() && insertedAt[before] < pos)
      ++before;
    return pos - before;
  }
};

/// Turns nlohmann's description of a syntax error into hodu-run's words.
std::string describeSyntaxError(const std::string &what, bool atEnd) {
  if (atEnd)
    return "unexpected end of input";
  static const std::pair<const char *, const char *> contexts[] = {
      {"while parsing object key", "expected a string key"},
      {"while parsing object separator", "expected ':'"},
      {"while parsing object -", "expected ',' or '}'"},
      {"while parsing array -", "expected ',' or ']'"},
  };
  for (const auto &[context, description] : contexts)
    if (what.find(context) != std::string::npos)
      return description;
  // Bad tokens and trailing text: nlohmann's own words, without the
  // position it puts first.
  size_t at = what.find("while parsing value - ");
  if (at != std::string::npos)
    return what.substr(at + std::strlen("while parsing value - "));
  at = what.find("] ");
  return at == std::string::npos ? what : what.substr(at + 2);
}

/// The start of the token that ends just before `end` in `text`: nlohmann
/// reports where it stopped reading, after the offending token.
size_t tokenStart(const std::string &text, size_t end) {
  if (end == 0)
    return 0;
  size_t last = end - 1;
  if (std::strchr("{}[],:", text[last]))
    return last;
  if (text[last] == '"' && last > 0) {
    for (size_t pos = last; pos-- > 0;) {
      size_t backslashes = 0;
      while (pos >= backslashes + 1 && text[pos - backslashes - 1] == '\\')
        ++backslashes;
      if (text[pos] == '"' && backslashes % 2 == 0)
        return pos;
    }
    return 0;
  }
  size_t pos = last;
  while (pos > 0 && !std::isspace((unsigned char)text[pos - 1]) &&
         !std::strchr("{}[],:\"", text[pos - 1]))
    --pos;
  return pos;
}

/// Records the first syntax error of a parse; accepts everything else.
class SyntaxErrorLocator : public Json::json_sax_t {
public:
  size_t position = 0;
  std::string what;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t pos, const std::string &,
                   const Json::exception &error) override {
    position = pos;
    what = error.what();
    return false;
  }
};

/// Parses `original` into `root`, or says where and why it is not JSON.
bool parseJson(const std::string &original, Json &root, std::string &error) {
  QuotedSpecials quoted(original);
  root = Json::parse(quoted.text, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (!root.is_discarded())
    return true;
  // Parsed again to learn the position, which only the SAX interface gives
  // without exceptions. It counts the end of input as a character read.
  SyntaxErrorLocator locator;
  Json::sax_parse(quoted.text, &locator);
  size_t end = std::min(locator.position, quoted.text.size());
  bool atEnd = locator.position > quoted.text.size();
  size_t pos =
      quoted.originalPosition(atEnd ? end : tokenStart(quoted.text, end));
  size_t line = 1, column = 1;
  for (size_t i = 0; i < pos && i < original.size(); ++i) {
    if (original[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  error = "invalid JSON at line " + std::to_string(line) + ", column " +
          std::to_string(column) + ": " +
          describeSyntaxError(locator.what, atEnd);
  return false;
}

/// Flattens nested arrays into `leaves` in row-major order.
bool flatten(const Json &value, int depth, std::vector<const Json *> &leaves,
             std::string &error) {
  if (!value.is_array()) {
    leaves.push_back(&value);
    return true;
  }
  if (depth == kMaxDataDepth) {
    error = "\"data\" is nested more than " + std::to_string(kMaxDataDepth) +
            " deep";
    return false;
  }
  for (const Json &item : value)
    if (!flatten(item, depth + 1, leaves, error))
      return false;
  return true;
}

/// The special float a quoted "NaN", "Infinity" or "-Infinity" stands for.
bool specialFloat(const Json &value, double &number) {
  if (!value.is_string())
    return false;
  const std::string &text = value.get_ref<const std::string &>();
  if (text == "NaN")
    number = NAN;
  else if (text == "Infinity")
    number = INFINITY;
  else if (text == "-Infinity")
    number = -INFINITY;
  else
    return false;
  return true;
}

/// Stores an integer-dtype element, exactly: nlohmann keeps integers that
/// fit 64 bits as integers, so an i64 beyond 2^53 is not rounded.
bool storeInteger(const Json &value, hodu_dtype dtype, void *data,
                  int64_t index, const std::string &where,
                  std::string &error) {
  bool stored;
  if (value.is_number_unsigned()) {
    stored = storeUnsigned(dtype, data, index, value.get<uint64_t>());
  } else if (value.is_number_integer()) {
    stored = storeSigned(dtype, data, index, value.get<int64_t>());
  } else {
    // A float, NaN or an infinity: only a whole number in range is stored.
    double number = NAN;
    if (value.is_number())
      number = value.get<double>();
    else
      specialFloat(value, number);
    std::string token =
        value.is_string() ? value.get<std::string>() : value.dump();
    if (!std::isfinite(number) || number != std::floor(number)) {
      error = where + " = " + token + " is not an integer, but the dtype is " +
              hodu_dtype_name(dtype);
      return false;
    }
    stored = number < 0 ? number >= -9.2233720368547758e18 &&
                              storeSigned(dtype, data, index, int64_t(number))
                        : number < 1.8446744073709552e19 &&
                              storeUnsigned(dtype, data, index,
                                            uint64_t(number));
  }
  if (!stored)
    error = where + " = " + value.dump() + " does not fit " +
            hodu_dtype_name(dtype);
  return stored;
}

/// Stores JSON element `value` at `index`, converting it to `dtype`.
bool storeElement(const Json &value, hodu_dtype dtype, void *data,
                  int64_t index, std::string &error) {
  std::string where = "data[" + std::to_string(index) + "]";
  double special;
  bool isSpecial = specialFloat(value, special);
  if (!value.is_boolean() && !value.is_number() && !isSpecial) {
    error = where + " is not a number";
    return false;
  }
  if (value.is_boolean()) {
    if (isFloat(dtype))
      storeFloat(dtype, data, index, value.get<bool>() ? 1.0 : 0.0);
    else
      storeUnsigned(dtype, data, index, value.get<bool>() ? 1 : 0);
    return true;
  }
  if (isFloat(dtype)) {
    storeFloat(dtype, data, index, isSpecial ? special : value.get<double>());
    return true;
  }
  return storeInteger(value, dtype, data, index, where, error);
}

/// "bool, f8e4m3, ... i32 or i64", from the dtype table.
std::string dtypeNames() {
  std::string names;
#define HODU_DTYPE_NAME_(id, value, name, size, storage)                       \
  names += std::string(value == 0                       ? ""                   \
                       : value == HODU_DTYPE_COUNT - 1 ? " or "               \
                                                        : ", ") +              \
           name;
  HODU_DTYPE_LIST(HODU_DTYPE_NAME_)
#undef HODU_DTYPE_NAME_
  return names;
}

/// Reads "shape": non-negative integers.
bool readShape(const Json &shape, std::vector<int64_t> &extents,
               std::string &error) {
  if (!shape.is_array()) {
    error = "\"shape\" must be an array of integers";
    return false;
  }
  extents.clear();
  for (const Json &extent : shape) {
    if (!extent.is_number_unsigned() ||
        extent.get<uint64_t>() > uint64_t(INT64_MAX)) {
      error = "\"shape\" must be an array of non-negative integers";
      return false;
    }
    extents.push_back(extent.get<int64_t>());
  }
  return true;
}

} // namespace

bool decodeJsonTensor(const std::string &text, HostTensor &tensor,
                      std::string &error) {
  Json root;
  if (!parseJson(text, root, error))
    return false;
  if (!root.is_object()) {
    error = "a JSON tensor must be an object {\"shape\", \"dtype\", \"data\"}";
    return false;
  }
  auto shape = root.find("shape"), dtype = root.find("dtype"),
       data = root.find("data");
  if (shape == root.end() || dtype == root.end() || data == root.end()) {
    error = std::string("JSON tensor has no \"") +
            (shape == root.end()   ? "shape"
             : dtype == root.end() ? "dtype"
                                   : "data") +
            "\" member";
    return false;
  }
  if (!dtype->is_string() ||
      !hodu_dtype_from_name(dtype->get_ref<const std::string &>().c_str(),
                            &tensor.dtype)) {
    error = "unknown dtype " + dtype->dump() + " (expected " + dtypeNames() +
            ")";
    return false;
  }
  size_t bytesNeeded;
  if (!readShape(*shape, tensor.shape, error) ||
      !checkedByteSize(tensor.shape, tensor.dtype, bytesNeeded, error))
    return false;
  std::vector<const Json *> leaves;
  if (!flatten(*data, 0, leaves, error))
    return false;
  if (int64_t(leaves.size()) != tensor.numElements()) {
    error = "\"data\" has " + std::to_string(leaves.size()) +
            " values, but shape " + formatShape(tensor.shape) + " needs " +
            std::to_string(tensor.numElements());
    return false;
  }
  tensor.data.assign(bytesNeeded, 0);
  for (size_t i = 0; i < leaves.size(); ++i)
    if (!storeElement(*leaves[i], tensor.dtype, tensor.data.data(),
                      int64_t(i), error))
      return false;
  return true;
}

bool decodeJsonElement(const std::string &text, hodu_dtype dtype, void *data,
                       std::string &error) {
  Json value;
  if (!parseJson(text, value, error))
    return false;
  return storeElement(value, dtype, data, 0, error);
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

} // namespace hodu_run
