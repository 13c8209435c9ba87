//===- ROCmTarget.h - the ROCm back end -------------------------*- C++ -*-===//
//
// lib/Target/ROCm: the shared GPU kernels through ROCDL to HSA code objects
// (.hsaco) for AMD GPUs, written alone or as a bundle.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_ROCM_ROCMTARGET_H
#define HODU_TARGET_ROCM_ROCMTARGET_H

namespace hodu {

/// Adds the `rocm` target to the ComponentRegistry and registers its
/// passes and named pipelines (once).
void registerROCmTarget();

} // namespace hodu

#endif // HODU_TARGET_ROCM_ROCMTARGET_H
