//===- SPIRV.cpp - the SPIR-V lowering the vulkan and metal targets share -===//
#include "hodu/Target/SPIRV/SPIRV.h"
#include "hodu/Target/SPIRV/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/SPIRV/Serialization.h"

using namespace mlir;

/// SPIR-V's logical addressing has no pointer arithmetic, so subviews are
/// folded into the loads and stores that use them (not expanded into
/// strided metadata, as for NVVM); loops stay structured.
std::string hodu::spirv::kernelsToSPIRVPipeline(bool float64) {
  return std::string("hodu-spirv-prepare-kernels{float64=") +
         (float64 ? "true" : "false") +
         "},gpu.module(fold-memref-alias-ops,lower-affine,arith-expand,"
         "canonicalize,cse,"
         "math-extend-to-supported-types,convert-math-to-spirv),"
         "convert-gpu-to-spirv,"
         "spirv.module(spirv-lower-abi-attrs,spirv-update-vce)";
}

FailureOr<std::string> hodu::spirv::serializeKernels(ModuleOp module) {
  auto modules = llvm::to_vector(module.getOps<mlir::spirv::ModuleOp>());
  if (modules.size() != 1)
    return emitError(module.getLoc(), "internal error: expected one "
                                      "spirv.module, found ")
           << modules.size();
  SmallVector<uint32_t> words;
  if (failed(mlir::spirv::serialize(modules.front(), words)))
    return failure();
  return std::string(reinterpret_cast<const char *>(words.data()),
                     words.size() * sizeof(uint32_t));
}

void hodu::spirv::registerSPIRVLowering() {
  static bool done = [] {
    registerSPIRVPasses();
    return true;
  }();
  (void)done;
}
