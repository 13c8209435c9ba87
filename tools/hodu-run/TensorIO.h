//===- TensorIO.h - tensor files for hodu-run -------------------*- C++ -*-===//
//
// Reads and writes one tensor per file in four formats:
//   .pb    ONNX TensorProto (the ONNX backend test data format)
//   .npy   NumPy arrays, format versions 1-3
//   .json  Hodu's JSON tensor {"shape":[2,3],"dtype":"f32","data":[...]}
//   .hdt   Hodu's postcard TensorData {shape: Vec<usize>, dtype: u8,
//          data: Vec<u8>}
// .npy is the runtime's C code (runtime/src/npy.h), JSON is nlohmann-json's
// parser (header-only); the .pb and .hdt codecs are written here, so the
// tool links nothing beyond libhodurt and the C++ standard library.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_RUN_TENSORIO_H
#define HODU_RUN_TENSORIO_H

#include "hodu/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hodu_run {

// A tensor held by the tool: dense, row-major, little-endian.
struct HostTensor {
  std::string name; // from the file where the format has one (.pb)
  hodu_dtype dtype = HODU_DTYPE_F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  int64_t numElements() const;
};

// An ONNX OptionalProto of a tensor or a sequence of tensors: whether it
// holds a value and, when it does, the tensor (one element) or the
// sequence's elements.
struct OptionalValue {
  bool present = false;
  bool sequence = false;
  std::vector<HostTensor> elements;
};

enum class TensorFormat { Pb, Npy, Json, Hdt };

// Parses "pb", "npy", "json" or "hdt".
bool parseTensorFormat(const std::string &text, TensorFormat &format);
const char *tensorFormatExtension(TensorFormat format);

// False (with `error`) when `format` cannot hold `dtype` (.npy has no bf16
// or f8), so callers can refuse before writing anything.
bool formatSupports(TensorFormat format, hodu_dtype dtype, std::string &error);

// The most bytes a tensor file may have when nothing better is known.
constexpr uint64_t kMaxTensorFileBytes = uint64_t(16) << 30;

// The most bytes a file holding `dataBytes` of tensor data may have in any
// format: JSON text takes up to ~64 characters per byte of data, plus
// headers.
inline uint64_t maxTensorFileBytes(uint64_t dataBytes) {
  return dataBytes > (kMaxTensorFileBytes >> 6) ? kMaxTensorFileBytes
                                                : dataBytes * 64 + (1 << 20);
}

// Reads `path`, choosing the format by extension (.pb, .npy, .json, .hdt)
// or, for other names, by the file's first bytes. Reads at most `maxBytes`
// (so /dev/zero or a FIFO is an error, not an endless read). On failure
// returns false and sets `error` (which names the file).
bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &error,
                    uint64_t maxBytes = kMaxTensorFileBytes);
// Reads an ONNX SequenceProto file (.pb) of tensors.
bool readSequenceFile(const std::string &path,
                      std::vector<HostTensor> &elements, std::string &error,
                      uint64_t maxBytes = kMaxTensorFileBytes);
// Reads an ONNX OptionalProto file (.pb) of a tensor or sequence.
bool readOptionalFile(const std::string &path, OptionalValue &value,
                      std::string &error,
                      uint64_t maxBytes = kMaxTensorFileBytes);
bool writeTensorFile(const std::string &path, TensorFormat format,
                     const HostTensor &tensor, std::string &error);

// The file's bytes of `tensor` in `format`; false (with `error`) where the
// format cannot hold its dtype (.npy: bf16, f8).
bool encodeTensor(TensorFormat format, const HostTensor &tensor,
                  std::string &out, std::string &error);

// In-memory codecs, exposed for testing.
bool decodeTensorProto(const uint8_t *bytes, size_t size, HostTensor &tensor,
                       std::string &error);
std::string encodeTensorProto(const HostTensor &tensor);
// An ONNX SequenceProto of tensors (the test data of a sequence input or
// output): its elements, in order.
bool decodeSequenceProto(const uint8_t *bytes, size_t size,
                         std::vector<HostTensor> &elements, std::string &error);
bool decodeOptionalProto(const uint8_t *bytes, size_t size,
                         OptionalValue &value, std::string &error);
bool decodeNpy(const uint8_t *bytes, size_t size, HostTensor &tensor,
               std::string &error);
bool encodeNpy(const HostTensor &tensor, std::string &out, std::string &error);
bool decodeJsonTensor(const std::string &text, HostTensor &tensor,
                      std::string &error);
std::string encodeJsonTensor(const HostTensor &tensor);
/// One element written as JSON ("0.5", "3", "true", "NaN"), stored as
/// `dtype` at `data` with the rules of a JSON tensor's "data".
bool decodeJsonElement(const std::string &text, hodu_dtype dtype, void *data,
                       std::string &error);
bool decodeHdt(const uint8_t *bytes, size_t size, HostTensor &tensor,
               std::string &error);
std::string encodeHdt(const HostTensor &tensor);

// Checks that `shape` has no negative extent and sizes its data as
// `bytes`; false (with `error`) when that overflows. For the decoders.
bool checkedByteSize(const std::vector<int64_t> &shape, hodu_dtype dtype,
                     size_t &bytes, std::string &error);

// "[2,3]".
std::string formatShape(const std::vector<int64_t> &shape);
std::string formatShape(int32_t rank, const int64_t *shape);

} // namespace hodu_run

#endif // HODU_RUN_TENSORIO_H
