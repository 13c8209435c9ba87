//===- Npy.cpp - NumPy .npy files for hodu-run ----------------------------===//
//
// The format is read and written by the runtime's C code (runtime/src/npy.h),
// which the `hoduc --emit=exe` driver shares; this fits it to HostTensor.
//
//===----------------------------------------------------------------------===//
#include "TensorIO.h"

#include "npy.h"

#include <cstdio>

namespace hodu_run {

bool decodeNpy(const uint8_t *bytes, size_t size, HostTensor &tensor,
               std::string &error) {
  // A stream over the bytes: the C reader takes streams, and one that can
  // seek lets it check that the data is there before it is allocated.
  FILE *file = fmemopen(const_cast<uint8_t *>(bytes), size, "rb");
  if (!file) {
    error = "not a .npy file (bad magic)";
    return false;
  }
  hodu_npy_info info;
  char message[256];
  bool ok = hodu_npy_read_header(file, &info, message, sizeof(message));
  if (ok) {
    tensor.dtype = info.dtype;
    tensor.shape.assign(info.shape, info.shape + info.rank);
    tensor.data.resize(info.bytes);
    ok = hodu_npy_read_data(file, &info, tensor.data.data(), message,
                            sizeof(message));
  }
  std::fclose(file);
  if (!ok)
    error = message;
  return ok;
}

bool encodeNpy(const HostTensor &tensor, std::string &out,
               std::string &error) {
  if (!formatSupports(TensorFormat::Npy, tensor.dtype, error))
    return false;
  char header[HODU_NPY_HEADER_BUFFER];
  size_t length = hodu_npy_format_header(
      header, sizeof(header), tensor.dtype, int32_t(tensor.shape.size()),
      tensor.shape.data());
  if (length == 0) {
    error = "shape too long for a .npy header";
    return false;
  }
  out.assign(header, length);
  out.append(reinterpret_cast<const char *>(tensor.data.data()),
             tensor.data.size());
  return true;
}

} // namespace hodu_run
