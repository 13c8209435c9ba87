//===- DType.cpp - element types as the artifact ABI numbers them ---------===//
#include "hodu/Support/DType.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;
using namespace hodu;

std::optional<hodu_dtype> hodu::dtypeOf(Type t) {
  if (t.isInteger(1))
    return HODU_DTYPE_BOOL;
  if (isa<Float8E4M3FNType>(t))
    return HODU_DTYPE_F8E4M3;
  if (isa<Float8E5M2Type>(t))
    return HODU_DTYPE_F8E5M2;
  if (t.isBF16())
    return HODU_DTYPE_BF16;
  if (t.isF16())
    return HODU_DTYPE_F16;
  if (t.isF32())
    return HODU_DTYPE_F32;
  if (t.isF64())
    return HODU_DTYPE_F64;
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool u = i.isUnsigned();
    switch (i.getWidth()) {
    case 8: return u ? HODU_DTYPE_U8 : HODU_DTYPE_I8;
    case 16: return u ? HODU_DTYPE_U16 : HODU_DTYPE_I16;
    case 32: return u ? HODU_DTYPE_U32 : HODU_DTYPE_I32;
    case 64: return u ? HODU_DTYPE_U64 : HODU_DTYPE_I64;
    default: break;
    }
  }
  return std::nullopt;
}

Type hodu::elementTypeOf(MLIRContext *ctx, int32_t dtype) {
  auto uint = [&](unsigned w) {
    return IntegerType::get(ctx, w, IntegerType::Unsigned);
  };
  switch (dtype) {
  case HODU_DTYPE_BOOL: return IntegerType::get(ctx, 1);
  case HODU_DTYPE_F8E4M3: return Float8E4M3FNType::get(ctx);
  case HODU_DTYPE_F8E5M2: return Float8E5M2Type::get(ctx);
  case HODU_DTYPE_BF16: return BFloat16Type::get(ctx);
  case HODU_DTYPE_F16: return Float16Type::get(ctx);
  case HODU_DTYPE_F32: return Float32Type::get(ctx);
  case HODU_DTYPE_F64: return Float64Type::get(ctx);
  case HODU_DTYPE_U8: return uint(8);
  case HODU_DTYPE_U16: return uint(16);
  case HODU_DTYPE_U32: return uint(32);
  case HODU_DTYPE_U64: return uint(64);
  case HODU_DTYPE_I8: return IntegerType::get(ctx, 8);
  case HODU_DTYPE_I16: return IntegerType::get(ctx, 16);
  case HODU_DTYPE_I32: return IntegerType::get(ctx, 32);
  case HODU_DTYPE_I64: return IntegerType::get(ctx, 64);
  default: return {};
  }
}

namespace {
struct DTypeFacts {
  const char *name;
  const char *cType;
  unsigned size;
};
// abi.h's one table, indexed by hodu_dtype.
#define HODU_DTYPE_FACTS_(id, value, name, size, storage)                     \
  {name, #storage, size},
constexpr DTypeFacts kFacts[] = {HODU_DTYPE_LIST(HODU_DTYPE_FACTS_)};
#undef HODU_DTYPE_FACTS_
static_assert(sizeof(kFacts) / sizeof(kFacts[0]) == HODU_DTYPE_COUNT,
              "one entry per hodu_dtype");
} // namespace

const char *hodu::dtypeName(int32_t dtype) {
  return dtype >= 0 && dtype < HODU_DTYPE_COUNT ? kFacts[dtype].name : "?";
}

const char *hodu::dtypeCType(int32_t dtype) {
  return dtype >= 0 && dtype < HODU_DTYPE_COUNT ? kFacts[dtype].cType : "void";
}

unsigned hodu::dtypeSize(int32_t dtype) {
  return dtype >= 0 && dtype < HODU_DTYPE_COUNT ? kFacts[dtype].size : 0;
}

std::optional<std::pair<ArrayRef<char>, bool>>
hodu::constantStorage(Attribute value) {
  if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(value)) {
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return std::pair(blob->getData(), false);
    return std::nullopt;
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value))
    return std::pair(dense.getRawData(), dense.isSplat());
  return std::nullopt;
}

TypedAttr hodu::transposedConstant(Attribute value, int64_t rows, int64_t cols,
                                   RankedTensorType type,
                                   llvm::StringRef name) {
  Type elt = type.getElementType();
  if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() % 8 != 0)
    return {};
  if (auto dense = dyn_cast<DenseElementsAttr>(value); dense && dense.isSplat())
    return dense.resizeSplat(type);
  std::optional<std::pair<ArrayRef<char>, bool>> stored =
      constantStorage(value);
  size_t bytes = elt.getIntOrFloatBitWidth() / 8;
  size_t count = static_cast<size_t>(rows) * static_cast<size_t>(cols);
  if (!stored || stored->second || stored->first.size() < count * bytes)
    return {};
  const char *src = stored->first.data();
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocate(count * bytes, alignof(uint64_t));
  char *dst = blob.getMutableData().data();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(dst + (c * rows + r) * bytes, src + (r * cols + c) * bytes,
                  bytes);
  return DenseResourceElementsAttr::get(type, name, std::move(blob));
}

bool hodu::constantBytes(Attribute value, std::string &bytes) {
  bytes.clear();
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (dense && dense.getElementType().isInteger(1)) {
    for (bool b : dense.getValues<bool>())
      bytes.push_back(b ? 1 : 0);
    return true;
  }
  std::optional<std::pair<ArrayRef<char>, bool>> stored =
      constantStorage(value);
  if (!stored)
    return false;
  auto [raw, splat] = *stored;
  if (splat) {
    for (int64_t i = 0, e = dense.getNumElements(); i < e; ++i)
      bytes.append(raw.begin(), raw.end());
    return true;
  }
  bytes.assign(raw.begin(), raw.end());
  return true;
}

std::optional<std::string>
hodu::elementCountOverLimit(llvm::ArrayRef<int64_t> shape, int64_t limit) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (__builtin_mul_overflow(count, d, &count))
      return std::string("more than 2^63");
  }
  if (count > limit)
    return std::to_string(count);
  return std::nullopt;
}
