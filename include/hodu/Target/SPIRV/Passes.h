//===- Passes.h - SPIR-V code-generation passes -----------------*- C++ -*-===//
//
// The pass declared in include/hodu/Target/SPIRV/Passes.td:
// hodu::spirv::createSpirvPrepareKernels() and
// hodu::spirv::registerSPIRVPasses().
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_SPIRV_PASSES_H
#define HODU_TARGET_SPIRV_PASSES_H

#include "mlir/Pass/Pass.h"

namespace hodu::spirv {
#define GEN_PASS_DECL
#include "hodu/Target/SPIRV/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hodu/Target/SPIRV/Passes.h.inc"
} // namespace hodu::spirv

#endif // HODU_TARGET_SPIRV_PASSES_H
