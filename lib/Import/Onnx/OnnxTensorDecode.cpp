//===- OnnxTensorDecode.cpp - ONNX TensorProto to attributes --------------===//
//
// ONNX data types to MLIR element types, and GraphImporter::decodeTensor:
// a TensorProto (initializer, Constant value, attribute, frozen input) as a
// `dense<...>` attribute when small, else as a `dense_resource` blob that
// takes over its bytes (raw_data released from the proto, or the mapped
// slice of an external data file, which must lie inside the model's
// directory) without a copy where they are aligned.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporterImpl.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/onnx_pb.h"

#include <cstring>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

Type hodu::onnx_import::onnxElementType(MLIRContext &ctx, int dataType) {
  using TP = onnx::TensorProto;
  auto u = [&](unsigned w) {
    return IntegerType::get(&ctx, w, IntegerType::Unsigned);
  };
  switch (dataType) {
  case TP::FLOAT:
    return Float32Type::get(&ctx);
  case TP::DOUBLE:
    return Float64Type::get(&ctx);
  case TP::FLOAT16:
    return Float16Type::get(&ctx);
  case TP::BFLOAT16:
    return BFloat16Type::get(&ctx);
  case TP::BOOL:
    return IntegerType::get(&ctx, 1);
  case TP::INT8:
    return IntegerType::get(&ctx, 8);
  case TP::INT16:
    return IntegerType::get(&ctx, 16);
  case TP::INT32:
    return IntegerType::get(&ctx, 32);
  case TP::INT64:
    return IntegerType::get(&ctx, 64);
  case TP::UINT8:
    return u(8);
  case TP::UINT16:
    return u(16);
  case TP::UINT32:
    return u(32);
  case TP::UINT64:
    return u(64);
  default:
    return {};
  }
}

static int64_t elementBytes(Type elt) {
  return elt.isInteger(1) ? 1 : (int64_t)(elt.getIntOrFloatBitWidth() / 8);
}

/// A resource key MLIR prints without quoting: [A-Za-z0-9_.].
static std::string resourceKey(StringRef name) {
  std::string key = "onnx_";
  for (char c : name)
    key += (llvm::isAlnum(c) || c == '_' || c == '.') ? c : '_';
  return key;
}

namespace {
/// The bytes of one tensor, owned or borrowed.
struct TensorBytes {
  std::string owned;
  std::unique_ptr<std::string> released; // raw_data taken from the proto
  std::unique_ptr<llvm::MemoryBuffer> mapped; // external data
  const char *data = nullptr;
  int64_t size = 0;
};
} // namespace

/// Collects the typed repeated field of `t` as little-endian bytes of `elt`.
template <typename Field, typename Conv>
static void packField(const Field &field, int64_t eltBytes, std::string &out,
                      Conv conv) {
  out.resize(field.size() * eltBytes);
  for (int i = 0; i < field.size(); ++i) {
    uint64_t bits = conv(field.Get(i));
    std::memcpy(&out[i * eltBytes], &bits, eltBytes);
  }
}

FailureOr<ElementsAttr> GraphImporter::decodeTensor(const onnx::TensorProto &t,
                                                    Location loc) {
  using TP = onnx::TensorProto;
  auto fail = [&]() {
    return emitError(loc) << "tensor '" << t.name() << "': ";
  };
  Type elt = onnxElementType(ctx, t.data_type());
  if (!elt)
    return fail() << "data type " << t.data_type()
                  << " (" << TP::DataType_Name((TP::DataType)t.data_type())
                  << ") has no hodu dtype";
  SmallVector<int64_t> shape;
  int64_t numel = 1;
  for (int64_t d : t.dims()) {
    if (d < 0)
      return fail() << "negative dimension " << d;
    if (d != 0 && numel > (int64_t(1) << 40) / d)
      return fail() << "too many elements";
    numel *= d;
    shape.push_back(d);
  }
  int64_t eltBytes = elementBytes(elt);
  int64_t nbytes = numel * eltBytes;
  auto type = RankedTensorType::get(shape, elt);
  bool small = nbytes <= kSmallTensorBytes || elt.isInteger(1);

  TensorBytes bytes;
  if (t.data_location() == TP::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto &kv : t.external_data()) {
      if (kv.key() == "location")
        location = kv.value();
      else if (kv.key() == "offset" || kv.key() == "length") {
        int64_t v;
        if (StringRef(kv.value()).getAsInteger(10, v) || v < 0)
          return fail() << "bad external data " << kv.key() << " '"
                        << kv.value() << "'";
        (kv.key() == "offset" ? offset : length) = v;
      }
    }
    if (location.empty())
      return fail() << "external data without a location";
    SmallString<256> file(llvm::sys::path::parent_path(modelPath));
    llvm::sys::path::append(file, location);
    // As ONNX Runtime does: external data stays inside the model's
    // directory. Absolute locations and '..' are refused as written, and an
    // existing file must resolve (symlinks followed) to a regular file under
    // the model's directory.
    bool escapes = llvm::sys::path::is_absolute(location) ||
                   llvm::sys::path::has_root_name(location);
    for (auto it = llvm::sys::path::begin(location),
              end = llvm::sys::path::end(location);
         it != end; ++it)
      escapes |= *it == "..";
    SmallString<256> realDir, realFile;
    StringRef dir = llvm::sys::path::parent_path(modelPath);
    if (!escapes && !llvm::sys::fs::real_path(file, realFile)) {
      if (llvm::sys::fs::real_path(dir.empty() ? "." : dir, realDir))
        return fail() << "cannot resolve the model's directory";
      llvm::sys::path::append(realDir, "");
      escapes = !StringRef(realFile).starts_with(realDir);
      if (!escapes && !llvm::sys::fs::is_regular_file(realFile))
        return fail() << "external data '" << location
                      << "' is not a regular file";
    }
    if (escapes)
      return fail() << "external data '" << location
                    << "' is outside the model's directory; refused";
    if (length < 0)
      length = nbytes;
    if (length != nbytes)
      return fail() << "external data length " << length << " does not match "
                    << nbytes << " bytes of " << numel << " elements";
    uint64_t fileSize = 0;
    if (!llvm::sys::fs::file_size(file, fileSize) &&
        (uint64_t)offset + (uint64_t)length > fileSize)
      return fail() << "external data file '" << file << "' has " << fileSize
                    << " bytes, too few for offset " << offset << " + length "
                    << length;
    auto fileOr = llvm::MemoryBuffer::getFileSlice(file, length, offset,
                                                   /*IsVolatile=*/false);
    if (!fileOr)
      return fail() << "cannot read external data '" << file << "' (offset "
                    << offset << ", length " << length
                    << "): " << fileOr.getError().message();
    if ((int64_t)(*fileOr)->getBufferSize() != length)
      return fail() << "external data file '" << file << "' is too short";
    // Keep the (usually mapped) file slice; a large tensor's blob takes it
    // over below without copying.
    bytes.mapped = std::move(*fileOr);
    bytes.data = bytes.mapped->getBufferStart();
    bytes.size = length;
  } else if (t.has_raw_data()) {
    if ((int64_t)t.raw_data().size() != nbytes)
      return fail() << "raw_data has " << t.raw_data().size()
                    << " bytes, expected " << nbytes << " for " << numel
                    << " elements";
    if (!small) {
      // Take the bytes over without a copy; the proto is ours.
      bytes.released.reset(const_cast<TP &>(t).release_raw_data());
      bytes.data = bytes.released->data();
    } else {
      bytes.data = t.raw_data().data();
    }
    bytes.size = nbytes;
  } else {
    int64_t count = -1;
    switch (t.data_type()) {
    case TP::FLOAT:
      count = t.float_data_size();
      packField(t.float_data(), 4, bytes.owned, [](float f) {
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return (uint64_t)b;
      });
      break;
    case TP::DOUBLE:
      count = t.double_data_size();
      packField(t.double_data(), 8, bytes.owned, [](double f) {
        uint64_t b;
        std::memcpy(&b, &f, 8);
        return b;
      });
      break;
    case TP::INT64:
      count = t.int64_data_size();
      packField(t.int64_data(), 8, bytes.owned,
                [](int64_t v) { return (uint64_t)v; });
      break;
    case TP::UINT32:
    case TP::UINT64:
      count = t.uint64_data_size();
      packField(t.uint64_data(), eltBytes, bytes.owned,
                [](uint64_t v) { return v; });
      break;
    default: // int32_data holds every narrower type, f16/bf16 as bits.
      count = t.int32_data_size();
      packField(t.int32_data(), eltBytes, bytes.owned,
                [](int32_t v) { return (uint64_t)(int64_t)v; });
      break;
    }
    if (count != numel)
      return fail() << "has " << count << " values, expected " << numel;
    bytes.data = bytes.owned.data();
    bytes.size = bytes.owned.size();
  }

  if (small) {
    // Dense i1 storage is bit-packed: bools go through a vector.
    if (elt.isInteger(1)) {
      SmallVector<bool> bools;
      for (int64_t i = 0; i < numel; ++i)
        bools.push_back(bytes.data[i] != 0);
      return ElementsAttr(DenseElementsAttr::get(type, bools));
    }
    return ElementsAttr(DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(bytes.data, bytes.size)));
  }

  // A resource blob. Bytes released from the proto are handed over as they
  // are when aligned; others are copied once into an aligned heap blob.
  constexpr size_t align = alignof(uint64_t);
  AsmResourceBlob blob;
  if (bytes.released &&
      reinterpret_cast<uintptr_t>(bytes.data) % align == 0) {
    std::string *s = bytes.released.release();
    blob = AsmResourceBlob(ArrayRef<char>(s->data(), s->size()), align,
                           [s](void *, size_t, size_t) { delete s; },
                           /*dataIsMutable=*/true);
  } else if (bytes.mapped &&
             reinterpret_cast<uintptr_t>(bytes.data) % align == 0) {
    llvm::MemoryBuffer *buf = bytes.mapped.release();
    blob = AsmResourceBlob(ArrayRef<char>(bytes.data, bytes.size), align,
                           [buf](void *, size_t, size_t) { delete buf; },
                           /*dataIsMutable=*/false);
  } else {
    blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(bytes.data, bytes.size), align);
  }
  return ElementsAttr(DenseResourceElementsAttr::get(
      type, resourceKey(t.name()), std::move(blob)));
}
