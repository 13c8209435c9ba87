//===- Passes.h - ROCm code-generation passes -------------------*- C++ -*-===//
//
// The pass declared in include/hodu/Target/ROCm/Passes.td:
// hodu::rocm::createRocmKernelsToHSACO() and hodu::rocm::registerROCmPasses().
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_ROCM_PASSES_H
#define HODU_TARGET_ROCM_PASSES_H

#include "mlir/Pass/Pass.h"

namespace hodu::rocm {
#define GEN_PASS_DECL
#include "hodu/Target/ROCm/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hodu/Target/ROCm/Passes.h.inc"

/// Where the ROCm device libraries (ocml.bc, ockl.bc, ...) are:
/// $ROCM_PATH/amdgcn/bitcode when ROCM_PATH is set, else the first of
/// Debian's /usr/lib/<multiarch>/amdgcn/bitcode and
/// /opt/rocm/amdgcn/bitcode that exists; "" if there are none.
std::string findDeviceLibraries();
} // namespace hodu::rocm

#endif // HODU_TARGET_ROCM_PASSES_H
