//===- KernelsToPTX.h - the kernel module serialised to PTX -----*- C++ -*-===//
//
// Internal to lib/Target/CUDA: hodu-cuda-kernels-to-ptx, the last pass of
// the nvvm phase.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CUDA_KERNELSTOPTX_H
#define HODU_LIB_TARGET_CUDA_KERNELSTOPTX_H

namespace hodu::cuda {
void registerKernelsToPTXPass();
} // namespace hodu::cuda

#endif // HODU_LIB_TARGET_CUDA_KERNELSTOPTX_H
