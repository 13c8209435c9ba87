//===- Passes.h - shared GPU code-generation passes -------------*- C++ -*-===//
//
// The passes declared in include/hodu/Target/GPU/Passes.td:
// hodu::gpu::createGpuFuseElementwise(), createGpuTile(),
// createGpuMapToLaunches(), createGpuLowerVectors(),
// createGpuMergeKernelModules() and hodu::gpu::registerGPUPasses().
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_GPU_PASSES_H
#define HODU_TARGET_GPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace hodu::gpu {
#define GEN_PASS_DECL
#include "hodu/Target/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hodu/Target/GPU/Passes.h.inc"
} // namespace hodu::gpu

#endif // HODU_TARGET_GPU_PASSES_H
