//===- Passes.h - CUDA code-generation passes -------------------*- C++ -*-===//
//
// The pass declared in include/hodu/Target/CUDA/Passes.td:
// hodu::cuda::createCudaKernelsToPTX() and hodu::cuda::registerCUDAPasses().
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_CUDA_PASSES_H
#define HODU_TARGET_CUDA_PASSES_H

#include "mlir/Pass/Pass.h"

namespace hodu::cuda {
#define GEN_PASS_DECL
#include "hodu/Target/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hodu/Target/CUDA/Passes.h.inc"
} // namespace hodu::cuda

#endif // HODU_TARGET_CUDA_PASSES_H
