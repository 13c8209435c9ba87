//===- tensor_fuzz.cpp - libFuzzer target for hodu-run's tensor readers ---===//
//
// The first byte picks the reader (.pb TensorProto, .npy, JSON, .hdt; 'S'
// an ONNX SequenceProto of tensors, 'O' an OptionalProto), the rest is the
// file. Each must give a
// tensor whose data matches its shape and dtype, or an error message: never a
// crash, an out-of-bounds read or an allocation larger than the input could
// describe. A tensor that was read is written back in the same format and must
// read back the same. Seeds: test/fuzz/corpus/tensor.
//
//===----------------------------------------------------------------------===//
#include "TensorIO.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace hodu_run;

namespace {

[[noreturn]] void fail(const char *what, const std::string &detail) {
  fprintf(stderr, "%s: %s\n", what, detail.c_str());
  abort();
}

bool decode(TensorFormat format, const uint8_t *data, size_t size,
            HostTensor &tensor, std::string &error) {
  switch (format) {
  case TensorFormat::Pb:
    return decodeTensorProto(data, size, tensor, error);
  case TensorFormat::Npy:
    return decodeNpy(data, size, tensor, error);
  case TensorFormat::Json:
    return decodeJsonTensor(std::string(reinterpret_cast<const char *>(data), size),
                            tensor, error);
  case TensorFormat::Hdt:
    return decodeHdt(data, size, tensor, error);
  }
  return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  if (data[0] == 'S' || data[0] == 'O') {
    std::vector<HostTensor> elements;
    std::string error;
    OptionalValue optional;
    bool ok = data[0] == 'S'
                  ? decodeSequenceProto(data + 1, size - 1, elements, error)
                  : decodeOptionalProto(data + 1, size - 1, optional, error);
    if (!ok) {
      if (error.empty())
        fail("the sequence or optional reader failed without a message", "");
      return 0;
    }
    if (data[0] == 'O') {
      if (optional.present != !optional.elements.empty() && !optional.sequence)
        fail("an optional tensor that is present has no tensor", "");
      elements = std::move(optional.elements);
    }
    for (const HostTensor &t : elements) {
      int64_t n = t.numElements();
      if (n < 0 ||
          t.data.size() != static_cast<uint64_t>(n) * hodu_dtype_size(t.dtype))
        fail("a sequence element's data does not match its shape and dtype",
             std::to_string(n));
    }
    return 0;
  }
  const TensorFormat formats[] = {TensorFormat::Pb, TensorFormat::Npy,
                                  TensorFormat::Json, TensorFormat::Hdt};
  TensorFormat format = formats[data[0] % 4];
  HostTensor tensor;
  std::string error;
  if (!decode(format, data + 1, size - 1, tensor, error)) {
    if (error.empty())
      fail("a reader failed without a message", "");
    return 0;
  }
  int64_t elements = tensor.numElements();
  if (elements < 0 ||
      tensor.data.size() != static_cast<uint64_t>(elements) *
                                hodu_dtype_size(tensor.dtype))
    fail("data does not match shape and dtype", std::to_string(elements));
  std::string written;
  if (!encodeTensor(format, tensor, written, error))
    return 0; // a dtype .npy cannot hold (bf16, f8) read from the header
  HostTensor again;
  if (!decode(format, reinterpret_cast<const uint8_t *>(written.data()),
              written.size(), again, error))
    fail("a written tensor does not read back", error);
  if (again.dtype != tensor.dtype || again.shape != tensor.shape ||
      (format != TensorFormat::Json && again.data != tensor.data))
    fail("a written tensor reads back different", "");
  return 0;
}
