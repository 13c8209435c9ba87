//===- Hdt.cpp - Hodu's .hdt tensor files for hodu-run --------------------===//
//
// A .hdt file is upstream Hodu's TensorData {shape: Vec<usize>, dtype: u8,
// data: Vec<u8>} in postcard: each Vec is a varint length and its items,
// the shape's extents varints too.
//
//===----------------------------------------------------------------------===//
#include "TensorIO.h"

#include "Varint.h"

namespace hodu_run {

bool decodeHdt(const uint8_t *bytes, size_t size, HostTensor &tensor,
               std::string &error) {
  const uint8_t *pos = bytes, *end = bytes + size;
  uint64_t rank;
  if (!readVarint(pos, end, rank) || rank > 64) {
    error = "not a valid .hdt file (bad shape length)";
    return false;
  }
  tensor.shape.clear();
  for (uint64_t i = 0; i < rank; ++i) {
    uint64_t extent;
    if (!readVarint(pos, end, extent) || extent > (uint64_t(1) << 48)) {
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
  if (!readVarint(pos, end, length) || length > uint64_t(end - pos)) {
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

} // namespace hodu_run
