//===- CUDATarget.h - the CUDA back end -------------------------*- C++ -*-===//
#ifndef HODU_TARGET_CUDA_CUDATARGET_H
#define HODU_TARGET_CUDA_CUDATARGET_H

namespace hodu {

/// Registers the `cuda` target, its named pipelines (hodu-cuda-linalg,
/// hodu-cuda-gpu, hodu-cuda-nvvm) and the shared GPU passes (idempotent).
void registerCUDATarget();

} // namespace hodu

#endif // HODU_TARGET_CUDA_CUDATARGET_H
