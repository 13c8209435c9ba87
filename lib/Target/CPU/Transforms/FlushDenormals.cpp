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
/// Whether `bits`, a float's bits as an unsigned integer as wide as it,
/// is subnormal: a zero exponent and a nonzero fraction.
template <typename T>
bool subnormal(T bits, T exponent) {
  T sign = T(1) << (sizeof(T) * 8 - 1);
  return (bits & exponent) == 0 && (bits & ~(exponent | sign)) != 0;
}

/// Visits the subnormal values of `data` (elements of `T`) with their byte
/// offsets; returns how many there are.
template <typename T>
int64_t forSubnormals(ArrayRef<char> data, T exponent,
                      function_ref<void(size_t, T)> fn) {
  int64_t n = 0;
  for (size_t i = 0; i + sizeof(T) <= data.size(); i += sizeof(T)) {
    T bits;
    std::memcpy(&bits, data.data() + i, sizeof(T));
    if (subnormal(bits, exponent)) {
      if (fn)
        fn(i, bits);
      ++n;
    }
  }
  return n;
}

/// How many values of `data` (element type `elt`, f32 or f64) are
/// subnormal; with `out` (a copy of `data`), each of them there becomes a
/// zero of its sign.
int64_t flushAs(Type elt, ArrayRef<char> data,
                MutableArrayRef<char> out = {}) {
  auto zero = [&](size_t at, auto bits) {
    decltype(bits) sign = decltype(bits)(1) << (sizeof(bits) * 8 - 1);
    bits &= sign;
    std::memcpy(out.data() + at, &bits, sizeof(bits));
  };
  if (elt.isF32())
    return forSubnormals<uint32_t>(
        data, 0x7f800000u,
        out.empty() ? function_ref<void(size_t, uint32_t)>() : zero);
  return forSubnormals<uint64_t>(
      data, 0x7ff0000000000000ull,
      out.empty() ? function_ref<void(size_t, uint64_t)>() : zero);
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
        if (!flushAs(elt, raw))
          return;
        std::vector<char> copy(raw.begin(), raw.end());
        n = flushAs(elt, raw, copy);
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
            !flushAs(elt, raw))
          return;
        AsmResourceBlob copy =
            HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, alignof(uint64_t));
        n = flushAs(elt, raw, copy.getMutableData());
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
