//===- FlattenGlobals.cpp - constant memref globals as flat arrays --------===//
//
// See hodu-cpu-flatten-globals in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUFLATTENGLOBALS
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {
/// The global's initial value with the flat type, or null if it is not one
/// this pass takes (uninitialised, or an attribute kind it does not know).
Attribute flatValue(Attribute value, RankedTensorType flat) {
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value))
    return dense.reshape(flat);
  if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(value))
    return DenseResourceElementsAttr::get(flat, resource.getRawHandle());
  return nullptr;
}

struct CpuFlattenGlobals
    : hodu::cpu::impl::CpuFlattenGlobalsBase<CpuFlattenGlobals> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The globals taken, by name, with their original types.
    llvm::DenseMap<StringAttr, MemRefType> shapes;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      MemRefType type = global.getType();
      if (type.getRank() < 2 || !type.hasStaticShape() ||
          !type.getLayout().isIdentity())
        continue;
      MemRefType flatType =
          MemRefType::get({type.getNumElements()}, type.getElementType(),
                          MemRefLayoutAttrInterface(), type.getMemorySpace());
      Attribute value =
          flatValue(global.getInitialValue().value_or(Attribute()),
                    RankedTensorType::get({type.getNumElements()},
                                          type.getElementType()));
      if (!value)
        continue;
      global.setType(flatType);
      global.setInitialValueAttr(value);
      shapes[global.getSymNameAttr()] = type;
    }
    if (shapes.empty())
      return;
    SmallVector<memref::GetGlobalOp> uses;
    module.walk([&](memref::GetGlobalOp get) {
      if (shapes.contains(get.getNameAttr().getAttr()))
        uses.push_back(get);
    });
    for (memref::GetGlobalOp get : uses) {
      MemRefType type = shapes.lookup(get.getNameAttr().getAttr());
      OpBuilder b(get);
      auto flat = memref::GetGlobalOp::create(
          b, get.getLoc(),
          MemRefType::get({type.getNumElements()}, type.getElementType(),
                          MemRefLayoutAttrInterface(), type.getMemorySpace()),
          get.getName());
      ReassociationIndices all =
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
      Value shaped = memref::ExpandShapeOp::create(b, get.getLoc(), type, flat,
                                                   ArrayRef{all});
      get.replaceAllUsesWith(shaped);
      get.erase();
    }
  }
};
} // namespace
