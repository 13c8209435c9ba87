//===- HoduEvaluatorConstants.cpp - constants read and written ------------===//
//
// The views and writers of Evaluator.h through which the evaluator of hodu
// ops reads its constant operands in place (a `dense` attribute's raw
// storage or a `dense_resource` blob's bytes) and writes each result once
// (a `dense` attribute, or a blob past the resource threshold), and the
// element kinds they compute with.
//
//===----------------------------------------------------------------------===//

#include "hodu/Dialect/Hodu/Evaluator.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace mlir;
using namespace hodu;

//===----------------------------------------------------------------------===//
// Element types, views and writers
//===----------------------------------------------------------------------===//

std::optional<ElementKind> hodu::getElementKind(Type t) {
  if (t.isInteger(1))
    return ElementKind::Bool;
  if (auto i = dyn_cast<IntegerType>(t)) {
    // Only whole-byte widths have a plain byte layout in dense storage.
    if (i.getWidth() % 8 != 0 || i.getWidth() > 64)
      return std::nullopt;
    return i.isUnsigned() ? ElementKind::Unsigned : ElementKind::Signed;
  }
  if (auto f = dyn_cast<FloatType>(t))
    if (f.getWidth() % 8 == 0 && f.getWidth() <= 64)
      return ElementKind::Float;
  return std::nullopt;
}

static unsigned bytesOf(Type t) {
  return t.isInteger(1) ? 1 : (t.getIntOrFloatBitWidth() + 7) / 8;
}

static FloatRepr reprOf(Type t) {
  return t.isF32()   ? FloatRepr::F32
         : t.isF64() ? FloatRepr::F64
                     : FloatRepr::Other;
}

std::optional<ConstantView> ConstantView::get(Attribute attr) {
  auto elements = dyn_cast_if_present<ElementsAttr>(attr);
  if (!elements)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(elements.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  auto kind = getElementKind(type.getElementType());
  if (!kind)
    return std::nullopt;
  ConstantView e;
  e.attr = elements;
  e.type = type;
  e.kind = *kind;
  e.repr = reprOf(type.getElementType());
  e.bytes = bytesOf(type.getElementType());
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    e.splat = dense.isSplat();
    if (*kind == ElementKind::Bool) {
      // Dense i1 storage is bit-packed; unpack (bools are small).
      for (bool b : dense.getValues<bool>()) {
        e.owned.push_back(b);
        if (e.splat)
          break;
      }
      e.useOwned = true;
    } else {
      e.data = dense.getRawData();
    }
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    e.data = blob->getData();
  } else {
    return std::nullopt;
  }
  int64_t need = e.splat ? 1 : type.getNumElements();
  size_t have = e.useOwned ? e.owned.size() : e.data.size();
  if (static_cast<int64_t>(have) < need * e.bytes)
    return std::nullopt;
  return e;
}

ConstantView ConstantView::asScalar() const {
  ConstantView e = *this;
  e.type = RankedTensorType::get({}, type.getElementType());
  e.splat = true;
  return e;
}

uint64_t ConstantView::raw(int64_t i) const {
  const char *p = ptr(i);
  switch (bytes) { // fixed-size copies, no call per element
  case 1:
    return static_cast<uint8_t>(*p);
  case 2: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  default: {
    uint64_t v = 0;
    std::memcpy(&v, p, bytes);
    return v;
  }
  }
}

double ConstantView::slowF(int64_t i) const {
  if (repr == FloatRepr::F64) {
    double v;
    std::memcpy(&v, ptr(i), 8);
    return v;
  }
  switch (kind) {
  case ElementKind::Bool:
    return raw(i) ? 1.0 : 0.0;
  case ElementKind::Signed:
    return static_cast<double>(static_cast<int64_t>(s(i)));
  case ElementKind::Unsigned:
    return static_cast<double>(raw(i));
  case ElementKind::Float:
    break;
  }
  auto ft = cast<FloatType>(type.getElementType());
  llvm::APFloat a(ft.getFloatSemantics(), llvm::APInt(ft.getWidth(), raw(i)));
  bool lost;
  a.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return a.convertToDouble();
}

uint64_t ConstantView::s(int64_t i) const {
  uint64_t v = raw(i);
  if (kind == ElementKind::Signed)
    return static_cast<uint64_t>(llvm::SignExtend64(v, bytes * 8));
  return v;
}

ConstantWriter::ConstantWriter(RankedTensorType type, int64_t resourceBytes)
    : type(type), kind(*getElementKind(type.getElementType())),
      repr(reprOf(type.getElementType())),
      bytes(bytesOf(type.getElementType())) {
  size_t total = static_cast<size_t>(type.getNumElements()) * bytes;
  if (kind != ElementKind::Bool &&
      static_cast<int64_t>(total) > resourceBytes) {
    blob = std::make_unique<AsmResourceBlob>(
        HeapAsmResourceBlob::allocate(total, alignof(uint64_t)));
    data = blob->getMutableData().data();
    std::memset(data, 0, total); // elements not written read as zero
  } else {
    vec.assign(total, 0);
    data = vec.data();
  }
}

ConstantWriter::~ConstantWriter() = default;

void ConstantWriter::setRaw(int64_t i, uint64_t v) {
  if (kind == ElementKind::Bool)
    v = v != 0;
  std::memcpy(data + i * bytes, &v, bytes);
}

void ConstantWriter::slowSetF(int64_t i, double v) {
  if (repr == FloatRepr::F64) {
    std::memcpy(data + i * 8, &v, 8);
    return;
  }
  if (kind != ElementKind::Float)
    return setRaw(i, kind == ElementKind::Signed
                         ? static_cast<uint64_t>(static_cast<int64_t>(v))
                         : static_cast<uint64_t>(v));
  llvm::APFloat a(v);
  bool lost;
  a.convert(cast<FloatType>(type.getElementType()).getFloatSemantics(),
            llvm::APFloat::rmNearestTiesToEven, &lost);
  setRaw(i, a.bitcastToAPInt().getZExtValue());
}

void ConstantWriter::copy(int64_t i, const ConstantView &in, int64_t j) {
  std::memcpy(data + i * bytes, in.ptr(j), bytes);
}

ElementsAttr ConstantWriter::finish() {
  if (kind == ElementKind::Bool)
    return DenseElementsAttr::get(
        type,
        ArrayRef<bool>(reinterpret_cast<const bool *>(vec.data()), vec.size()));
  if (blob)
    return DenseResourceElementsAttr::get(type, "hodu_folded",
                                          std::move(*blob));
  return DenseElementsAttr::getFromRawBuffer(type, vec);
}
