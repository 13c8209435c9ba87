//===- TensorIO.cpp - tensor files for hodu-run ---------------------------===//
//
// What the formats share: the format names, shape checks, and reading and
// writing files by format. The codecs are TensorProto.cpp, Npy.cpp,
// Json.cpp and Hdt.cpp.
//
//===----------------------------------------------------------------------===//
#include "TensorIO.h"

#include "npy.h"
#include "shape.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
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


bool checkedByteSize(const std::vector<int64_t> &shape, hodu_dtype dtype,
                     size_t &bytes, std::string &error) {
  for (int64_t extent : shape) {
    if (extent < 0) {
      error = "negative extent in shape " + formatShape(shape);
      return false;
    }
  }
  int64_t elements;
  if (!hodu_shape_size(int32_t(shape.size()), shape.data(),
                       hodu_dtype_size(dtype), &elements, &bytes)) {
    error = "shape " + formatShape(shape) + " is too large";
    return false;
  }
  return true;
}

bool formatSupports(TensorFormat format, hodu_dtype dtype,
                    std::string &error) {
  if (format != TensorFormat::Npy || hodu_npy_type_code(dtype))
    return true;
  error = std::string("NumPy has no ") + hodu_dtype_name(dtype) +
          " type; write it with --output-format pb, json or hdt";
  return false;
}

namespace {

bool readFile(const std::string &path, std::string &contents,
              uint64_t maxBytes, std::string &error) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  char buffer[1 << 16];
  size_t count;
  while ((count = std::fread(buffer, 1, sizeof(buffer), file)) > 0) {
    if (count > maxBytes - contents.size()) {
      std::fclose(file);
      error = "'" + path + "' holds more than the " + std::to_string(maxBytes) +
              " bytes a file for this tensor may have (is it a device or a "
              "stream?); nothing more is read";
      return false;
    }
    contents.append(buffer, count);
  }
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

bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &error, uint64_t maxBytes) {
  std::string contents;
  if (!readFile(path, contents, maxBytes, error))
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

/// Reads `path` and decodes it with `decode` (bytes, size, out, error); an
/// error names the file.
template <typename T, typename Decode>
static bool readDecoded(const std::string &path, T &out, std::string &error,
                        uint64_t maxBytes, Decode decode) {
  std::string contents;
  if (!readFile(path, contents, maxBytes, error))
    return false;
  if (!decode(reinterpret_cast<const uint8_t *>(contents.data()),
              contents.size(), out, error)) {
    error = "'" + path + "': " + error;
    return false;
  }
  return true;
}

bool readSequenceFile(const std::string &path,
                      std::vector<HostTensor> &elements, std::string &error,
                      uint64_t maxBytes) {
  return readDecoded(path, elements, error, maxBytes, decodeSequenceProto);
}

bool readOptionalFile(const std::string &path, OptionalValue &value,
                      std::string &error, uint64_t maxBytes) {
  return readDecoded(path, value, error, maxBytes, decodeOptionalProto);
}

bool encodeTensor(TensorFormat format, const HostTensor &tensor,
                  std::string &out, std::string &error) {
  switch (format) {
  case TensorFormat::Pb:
    out = encodeTensorProto(tensor);
    return true;
  case TensorFormat::Npy:
    return encodeNpy(tensor, out, error);
  case TensorFormat::Json:
    out = encodeJsonTensor(tensor);
    return true;
  case TensorFormat::Hdt:
    out = encodeHdt(tensor);
    return true;
  }
  return false;
}

bool writeTensorFile(const std::string &path, TensorFormat format,
                     const HostTensor &tensor, std::string &error) {
  std::string contents;
  if (!encodeTensor(format, tensor, contents, error)) {
    error = "'" + path + "': " + error;
    return false;
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
