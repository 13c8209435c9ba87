//===- SPIRVTarget.h - GPU targets whose kernels are SPIR-V -----*- C++ -*-===//
//
// The vulkan and metal targets lower the kernel module the same way, to one
// SPIR-V module (hodu/Target/SPIRV/SPIRV.h), in a phase named `spirv`; they
// differ in their element types (Metal has no f64, which the lowering then
// leaves out) and in what they write from the SPIR-V.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_SPIRV_SPIRVTARGET_H
#define HODU_TARGET_SPIRV_SPIRVTARGET_H

#include "hodu/Target/GPU/GPUTarget.h"
#include "hodu/Target/SPIRV/SPIRV.h"

namespace hodu::spirv {

class SPIRVTargetBackend : public gpu::GPUTargetBackend {
protected:
  std::string kernelPhase() const final { return "spirv"; }
  std::string kernelPhasePipeline(const gpu::GPUPipelineConfig &) const final {
    return kernelsToSPIRVPipeline(/*float64=*/elementTypes().f64);
  }
};

} // namespace hodu::spirv

#endif // HODU_TARGET_SPIRV_SPIRVTARGET_H
