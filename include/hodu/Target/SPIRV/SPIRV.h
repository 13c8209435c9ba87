//===- SPIRV.h - the SPIR-V lowering the vulkan and metal targets share ---===//
//
// lib/Target/SPIRV: the shared GPU kernels (lib/Target/GPU) to one SPIR-V
// module for Vulkan (Shader capability, one entry point per kernel, buffer
// arguments as storage buffers at set 0, binding i), and its binary.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_SPIRV_SPIRV_H
#define HODU_TARGET_SPIRV_SPIRV_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/LogicalResult.h"

#include <string>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace hodu::spirv {

/// The pipeline from the shared `gpu` phase to a `spirv.module` next to the
/// host function: hodu-spirv-prepare-kernels, the alias folding and affine
/// lowering SPIR-V's logical addressing needs, then upstream's math and
/// GPU conversions and the ABI and VCE passes.
std::string kernelsToSPIRVPipeline(bool float64);

/// The binary of the module's one `spirv.module` (the words, as bytes).
mlir::FailureOr<std::string> serializeKernels(mlir::ModuleOp module);

/// Registers the passes (once).
void registerSPIRVLowering();

} // namespace hodu::spirv

#endif // HODU_TARGET_SPIRV_SPIRV_H
