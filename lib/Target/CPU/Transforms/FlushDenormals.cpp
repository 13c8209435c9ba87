//===- FlushDenormals.cpp - subnormal weights as zero ---------------------===//
//
// See hodu-cpu-flush-denormals in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Remarks.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUFLUSHDENORMALS
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {
/// Sets every subnormal value of `data` (elements of `T`, an unsigned
/// integer as wide as the float) to zero of its sign; returns how many.
template <typename T>
int64_t flush(MutableArrayRef<char> data, T exponent) {
  int64_t flushed = 0;
  T sign = T(1) << (sizeof(T) * 8 - 1);
  for (size_t i = 0; i + sizeof(T) <= data.size(); i += sizeof(T)) {
    T bits;
    std::memcpy(&bits, data.data() + i, sizeof(T));
    if ((bits & exponent) == 0 && (bits & ~(exponent | sign)) != 0) {
      bits &= sign;
      std::memcpy(data.data() + i, &bits, sizeof(T));
      ++flushed;
    }
  }
  return flushed;
}

/// Flushes `data` of element type `elt` (f32 or f64) in place.
int64_t flushAs(Type elt, MutableArrayRef<char> data) {
  if (elt.isF32())
    return flush<uint32_t>(data, 0x7f800000u);
  return flush<uint64_t>(data, 0x7ff0000000000000ull);
}

/// Counts the subnormal values of read-only `data` (a copy is made only for
/// a constant that has some).
int64_t countAs(Type elt, ArrayRef<char> data) {
  std::vector<char> copy(data.begin(), data.end());
  return flushAs(elt, copy);
}

struct CpuFlushDenormals
    : hodu::cpu::impl::CpuFlushDenormalsBase<CpuFlushDenormals> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    int64_t values = 0, constants = 0;
    module.walk([&](arith::ConstantOp op) {
      auto type = dyn_cast<RankedTensorType>(op.getType());
      if (!type || !(type.getElementType().isF32() ||
                     type.getElementType().isF64()))
        return;
      Type elt = type.getElementType();
      Attribute value = op.getValue();
      Attribute flushed;
      int64_t n = 0;
      if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
        ArrayRef<char> raw = dense.getRawData();
        if (!countAs(elt, raw))
          return;
        std::vector<char> copy(raw.begin(), raw.end());
        n = flushAs(elt, copy);
        if (dense.isSplat())
          n = type.getNumElements();
        flushed = DenseElementsAttr::getFromRawBuffer(type, copy);
      } else if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
        AsmResourceBlob *blob = res.getRawHandle().getBlob();
        if (!blob)
          return;
        ArrayRef<char> raw = blob->getData();
        int64_t width = elt.getIntOrFloatBitWidth() / 8;
        if (raw.size() != size_t(type.getNumElements() * width) ||
            !countAs(elt, raw))
          return;
        AsmResourceBlob copy =
            HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, alignof(uint64_t));
        n = flushAs(elt, copy.getMutableData());
        flushed = DenseResourceElementsAttr::get(type, "hodu_flushed",
                                                 std::move(copy));
      } else {
        return;
      }
      op.setValueAttr(cast<TypedAttr>(flushed));
      values += n;
      ++constants;
    });
    if (constants)
      remark::analysis(module.getLoc(),
                       remark::RemarkOpts::name("denormals").category(
                           getArgument()))
          << llvm::formatv("subnormal weights flushed to zero: {0} value(s) "
                           "in {1} constant(s)",
                           values, constants)
                 .str();
  }
};
} // namespace
