//===- Safetensors.h - weights from .safetensors files ----------*- C++ -*-===//
//
// The weights of a graph built with the capture API, from the format most
// published weights come in (Hugging Face's safetensors): an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype,
// shape and byte range, then the data. Nothing in it runs code (unlike a
// pickled .pt), and the reader trusts nothing: the header's size and
// nesting, every range against the file, ranges that overlap, sizes that do
// not match the dtype and shape, and unknown dtypes are errors that name
// the file and the tensor.
//
//   auto weights = hodu::capture::Safetensors::open("model.safetensors");
//   Tensor w = weights.constant(board, "fc.weight");     // F32 on the board
//   Tensor b = weights.constant(board, "fc.bias");
//
//===----------------------------------------------------------------------===//
#ifndef HODU_CAPTURE_SAFETENSORS_H
#define HODU_CAPTURE_SAFETENSORS_H

#include "hodu/Capture/Capture.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hodu {
namespace capture {

class Safetensors {
public:
  /// One tensor of the file.
  struct Entry {
    std::string name;
    std::string dtype; // the file's name for it: "F32", "BF16", "I64" ...
    std::vector<int64_t> shape;
    uint64_t begin = 0, end = 0; // its bytes, relative to the data
  };

  /// Reads and checks the header (the data is read by `bytes`). Throws
  /// Error naming the file and what is wrong.
  static Safetensors open(const std::string &path);

  const std::string &path() const { return path_; }
  /// The tensors in the order of their data.
  const std::vector<Entry> &entries() const { return entries_; }
  /// The header's "__metadata__" (string values only, as the format says).
  const std::map<std::string, std::string> &metadata() const {
    return metadata_;
  }
  bool contains(const std::string &name) const;
  /// Throws Error naming the file and the tensors it has.
  const Entry &entry(const std::string &name) const;

  /// The tensor's raw bytes, little-endian as stored.
  std::vector<uint8_t> bytes(const std::string &name) const;
  /// Its values as floats: F32, F64, F16 and BF16 are converted; other
  /// dtypes throw.
  std::vector<float> floats(const std::string &name) const;
  /// Its values as 32-bit integers: I32, I16, I8, U8, U16, BOOL, and I64 /
  /// U32 when every value fits; others throw.
  std::vector<int32_t> ints(const std::string &name) const;

  /// A constant of `board` named like the tensor, with its shape: F32 for
  /// the float dtypes, I32 for the integer ones.
  Tensor constant(Board &board, const std::string &name) const;

  /// Writes a file of F32 tensors (name, shape, values), for tests and for
  /// tools that export weights.
  static void
  write(const std::string &path,
        const std::vector<std::pair<std::string,
                                    std::pair<std::vector<int64_t>,
                                              std::vector<float>>>> &tensors,
        const std::map<std::string, std::string> &metadata = {});

private:
  std::string path_;
  uint64_t dataOffset_ = 0; // where the data starts in the file
  std::vector<Entry> entries_;
  std::map<std::string, size_t> index_;
  std::map<std::string, std::string> metadata_;
};

} // namespace capture
} // namespace hodu

#endif // HODU_CAPTURE_SAFETENSORS_H
