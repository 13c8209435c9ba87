//===- Safetensors.cpp - weights from .safetensors files ------------------===//
//
// The header is read whole (at most 100 MB, the format's own limit) and
// checked before any data is touched; tensors are read one at a time, from
// their checked ranges, when asked for.
//
//===----------------------------------------------------------------------===//
#include "hodu/Capture/Safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>

namespace hodu {
namespace capture {
namespace {

constexpr uint64_t kMaxHeaderBytes = uint64_t(100) << 20;
constexpr int kMaxDepth = 64;

/// Bytes per element of a safetensors dtype; 0 for one Hodu does not read.
uint64_t elementBytes(const std::string &dtype) {
  static const std::pair<const char *, uint64_t> sizes[] = {
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
      {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U64", 8},  {"U32", 4},
      {"U16", 2}, {"U8", 1},  {"BOOL", 1}};
  for (const auto &[name, size] : sizes)
    if (dtype == name)
      return size;
  return 0;
}

[[noreturn]] void fail(const std::string &path, const std::string &what) {
  throw Error("'" + path + "': " + what);
}

/// The deepest nesting of `text`'s arrays and objects (strings skipped), so
/// that a hostile header cannot exhaust the parser.
int nesting(const std::string &text) {
  int depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  int exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  float value;
  if (exponent == 0)
    value = std::ldexp(float(mantissa), -24);
  else if (exponent == 31)
    value = mantissa ? std::numeric_limits<float>::quiet_NaN()
                     : std::numeric_limits<float>::infinity();
  else
    value = std::ldexp(float(mantissa | 0x400), exponent - 25);
  return sign ? -value : value;
}

float bf16ToFloat(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

template <typename T> T load(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof value); // little-endian hosts only
  return value;
}

} // namespace

Safetensors Safetensors::open(const std::string &path) {
  Safetensors file;
  file.path_ = path;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(path, "cannot open it");
  in.seekg(0, std::ios::end);
  uint64_t size = uint64_t(in.tellg());
  in.seekg(0);
  uint8_t prefix[8];
  if (size < 8 || !in.read(reinterpret_cast<char *>(prefix), 8))
    fail(path, "shorter than the 8-byte header length of a .safetensors "
               "file");
  uint64_t headerBytes = 0;
  for (int i = 7; i >= 0; --i)
    headerBytes = headerBytes << 8 | prefix[i];
  if (headerBytes > kMaxHeaderBytes)
    fail(path, "its header claims " + std::to_string(headerBytes) +
                   " bytes, more than the format's 100 MB");
  if (headerBytes > size - 8)
    fail(path, "its header claims " + std::to_string(headerBytes) +
                   " bytes, but the file has " + std::to_string(size - 8) +
                   " after the length");
  std::string header(size_t(headerBytes), '\0');
  if (!in.read(header.data(), std::streamsize(headerBytes)))
    fail(path, "cannot read its header");
  if (nesting(header) > kMaxDepth)
    fail(path, "its header is nested deeper than " +
                   std::to_string(kMaxDepth));
  file.dataOffset_ = 8 + headerBytes;
  uint64_t dataBytes = size - file.dataOffset_;

  // Duplicate names are refused (the JSON parser would keep the last).
  std::set<std::string> seen;
  std::string duplicate;
  auto callback = [&](int depth, nlohmann::json::parse_event_t event,
                      nlohmann::json &parsed) {
    if (event == nlohmann::json::parse_event_t::key && depth == 1 &&
        !seen.insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(header, callback);
  } catch (const nlohmann::json::exception &e) {
    fail(path, std::string("its header is not JSON: ") + e.what());
  }
  if (!duplicate.empty())
    fail(path, "its header names tensor '" + duplicate + "' twice");
  if (!json.is_object())
    fail(path, "its header is not a JSON object");

  for (auto &[name, value] : json.items()) {
    if (name == "__metadata__") {
      if (!value.is_object())
        fail(path, "\"__metadata__\" is not an object");
      for (auto &[key, text] : value.items()) {
        if (!text.is_string())
          fail(path, "\"__metadata__\" value '" + key + "' is not a string");
        file.metadata_[key] = text.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + name + "'";
    if (!value.is_object() || !value.contains("dtype") ||
        !value.contains("shape") || !value.contains("data_offsets"))
      fail(path, where + " needs \"dtype\", \"shape\" and \"data_offsets\"");
    Entry entry;
    entry.name = name;
    if (!value["dtype"].is_string())
      fail(path, where + ": \"dtype\" is not a string");
    entry.dtype = value["dtype"].get<std::string>();
    uint64_t element = elementBytes(entry.dtype);
    if (!element)
      fail(path, where + " has dtype '" + entry.dtype +
                     "', which Hodu does not read (F64, F32, F16, BF16, "
                     "I64, I32, I16, I8, U64, U32, U16, U8, BOOL)");
    const nlohmann::json &shape = value["shape"];
    if (!shape.is_array() || shape.size() > 16)
      fail(path, where + ": \"shape\" is not an array of at most 16 dims");
    uint64_t count = 1;
    for (const nlohmann::json &dim : shape) {
      if (!dim.is_number_unsigned() ||
          dim.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
        fail(path, where + ": a dim of \"shape\" is not an integer >= 0");
      uint64_t d = dim.get<uint64_t>();
      entry.shape.push_back(int64_t(d));
      if (d && count > std::numeric_limits<uint64_t>::max() / d)
        fail(path, where + ": its shape's element count overflows");
      count *= d;
    }
    const nlohmann::json &offsets = value["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 ||
        !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
      fail(path, where + ": \"data_offsets\" is not [begin, end]");
    entry.begin = offsets[0].get<uint64_t>();
    entry.end = offsets[1].get<uint64_t>();
    if (entry.begin > entry.end || entry.end > dataBytes)
      fail(path, where + ": bytes [" + std::to_string(entry.begin) + ", " +
                     std::to_string(entry.end) + ") are outside the " +
                     std::to_string(dataBytes) + " bytes of data");
    if (count > std::numeric_limits<uint64_t>::max() / element ||
        count * element != entry.end - entry.begin)
      fail(path, where + ": " + entry.dtype + " of its shape is " +
                     std::to_string(count) + " elements, but it has " +
                     std::to_string(entry.end - entry.begin) + " bytes");
    file.entries_.push_back(std::move(entry));
  }
  // The data is covered exactly, without holes or overlaps (as the
  // format's own reader checks).
  std::sort(file.entries_.begin(), file.entries_.end(),
            [](const Entry &a, const Entry &b) {
              return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
            });
  uint64_t at = 0;
  for (const Entry &entry : file.entries_) {
    if (entry.begin < at)
      fail(path, "tensor '" + entry.name + "' overlaps the tensor before it");
    if (entry.begin > at)
      fail(path, "bytes [" + std::to_string(at) + ", " +
                     std::to_string(entry.begin) +
                     ") of the data belong to no tensor");
    at = entry.end;
  }
  if (at != dataBytes)
    fail(path, "bytes [" + std::to_string(at) + ", " +
                   std::to_string(dataBytes) +
                   ") of the data belong to no tensor");
  for (size_t i = 0; i < file.entries_.size(); ++i)
    file.index_[file.entries_[i].name] = i;
  return file;
}

bool Safetensors::contains(const std::string &name) const {
  return index_.count(name) != 0;
}

const Safetensors::Entry &Safetensors::entry(const std::string &name) const {
  auto found = index_.find(name);
  if (found != index_.end())
    return entries_[found->second];
  std::string names;
  for (size_t i = 0; i < entries_.size() && i < 8; ++i)
    names += (i ? ", '" : "'") + entries_[i].name + "'";
  if (entries_.size() > 8)
    names += ", ...";
  fail(path_, "no tensor '" + name + "' (it has " +
                  (names.empty() ? std::string("none") : names) + ")");
}

std::vector<uint8_t> Safetensors::bytes(const std::string &name) const {
  const Entry &e = entry(name);
  std::vector<uint8_t> data(size_t(e.end - e.begin));
  std::ifstream in(path_, std::ios::binary);
  in.seekg(std::streamoff(dataOffset_ + e.begin));
  if (!in || !in.read(reinterpret_cast<char *>(data.data()),
                      std::streamsize(data.size())))
    fail(path_, "cannot read tensor '" + name + "' (did the file change?)");
  return data;
}

std::vector<float> Safetensors::floats(const std::string &name) const {
  const Entry &e = entry(name);
  std::vector<uint8_t> raw = bytes(name);
  uint64_t element = elementBytes(e.dtype);
  std::vector<float> values(raw.size() / element);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint8_t *p = raw.data() + i * element;
    if (e.dtype == "F32")
      values[i] = load<float>(p);
    else if (e.dtype == "F64")
      values[i] = float(load<double>(p));
    else if (e.dtype == "F16")
      values[i] = halfToFloat(load<uint16_t>(p));
    else if (e.dtype == "BF16")
      values[i] = bf16ToFloat(load<uint16_t>(p));
    else
      fail(path_, "tensor '" + name + "' is " + e.dtype +
                      ", not a float dtype (use ints)");
  }
  return values;
}

std::vector<int32_t> Safetensors::ints(const std::string &name) const {
  const Entry &e = entry(name);
  std::vector<uint8_t> raw = bytes(name);
  uint64_t element = elementBytes(e.dtype);
  std::vector<int32_t> values(raw.size() / element);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint8_t *p = raw.data() + i * element;
    int64_t v;
    if (e.dtype == "I32")
      v = load<int32_t>(p);
    else if (e.dtype == "I16")
      v = load<int16_t>(p);
    else if (e.dtype == "I8")
      v = load<int8_t>(p);
    else if (e.dtype == "U8" || e.dtype == "BOOL")
      v = *p;
    else if (e.dtype == "U16")
      v = load<uint16_t>(p);
    else if (e.dtype == "U32")
      v = int64_t(load<uint32_t>(p));
    else if (e.dtype == "I64")
      v = load<int64_t>(p);
    else
      fail(path_, "tensor '" + name + "' is " + e.dtype +
                      ", not an integer dtype Hodu narrows to I32");
    if (v < std::numeric_limits<int32_t>::min() ||
        v > std::numeric_limits<int32_t>::max())
      fail(path_, "tensor '" + name + "' element " + std::to_string(i) +
                      " (" + std::to_string(v) + ") does not fit in I32");
    values[i] = int32_t(v);
  }
  return values;
}

Tensor Safetensors::constant(Board &board, const std::string &name) const {
  const Entry &e = entry(name);
  bool isFloat = e.dtype == "F32" || e.dtype == "F64" || e.dtype == "F16" ||
                 e.dtype == "BF16";
  if (isFloat)
    return board.constant(e.shape, floats(name), name);
  return board.constant(e.shape, ints(name), name);
}

void Safetensors::write(
    const std::string &path,
    const std::vector<std::pair<
        std::string, std::pair<std::vector<int64_t>, std::vector<float>>>>
        &tensors,
    const std::map<std::string, std::string> &metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty())
    header["__metadata__"] = metadata;
  uint64_t at = 0;
  for (const auto &[name, value] : tensors) {
    uint64_t bytes = value.second.size() * sizeof(float);
    header[name] = {{"dtype", "F32"},
                    {"shape", value.first},
                    {"data_offsets", {at, at + bytes}}};
    at += bytes;
  }
  std::string text = header.dump();
  // The data starts 8-byte aligned, as the format's writers do.
  text.append((8 - text.size() % 8) % 8, ' ');
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  uint64_t length = text.size();
  for (int i = 0; i < 8; ++i)
    out.put(char(length >> (8 * i)));
  out.write(text.data(), std::streamsize(text.size()));
  for (const auto &[name, value] : tensors)
    out.write(reinterpret_cast<const char *>(value.second.data()),
              std::streamsize(value.second.size() * sizeof(float)));
  if (!out)
    throw Error("'" + path + "': cannot write it");
}

} // namespace capture
} // namespace hodu
