//===- Pipelines.h - the phases GPU targets share ---------------*- C++ -*-===//
//
// Every GPU target runs the same passes from linalg to outlined kernels
// (lib/Target/GPU); it adds its own lowering of the kernel module (NVVM,
// ROCDL, SPIR-V) and its serialisation. The passes themselves are in
// hodu/Target/GPU/Passes.h (hodu::gpu::registerGPUPasses()).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_GPU_PIPELINES_H
#define HODU_TARGET_GPU_PIPELINES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace hodu::gpu {

/// What a target tells the shared kernel passes about its GPUs.
struct KernelOptions {
  /// Whether 1-D vectors may be loaded and stored whole (NVVM, ROCDL); not
  /// in SPIR-V's logical addressing, where vectors stay in registers.
  bool vectorMemory = false;
  /// Bytes of workgroup memory a block may use (Vulkan guarantees 16 KiB,
  /// lavapipe and most GPUs have 32 KiB; CUDA's static limit is 48 KiB).
  int64_t workgroupMemory = 32768;
  /// Most threads of a block (Vulkan guarantees 128 per workgroup, 256 is
  /// what desktop and software Vulkan, CUDA and ROCm all take).
  int64_t maxThreads = 256;
};

/// What a GPU target adds to the shared linalg phase: elementwise fusion
/// (not into contractions), so that each fused op becomes one kernel.
std::string linalgExtension(unsigned optLevel);

/// The `gpu` phase as pipeline text: linalg ops grouped into kernels and
/// tiled into blocks and threads (contractions through workgroup memory,
/// workgroup reductions), bufferised, mapped to `gpu.launch`, register
/// tiles kept in registers and vectors lowered, outlined into one
/// `gpu.module @kernels`. `target` is named in errors.
std::string kernelsPipeline(llvm::StringRef target,
                            const KernelOptions &options = {});

/// Whether the shared GPU kernels can run `op` (a hodu op): every op lowers
/// to linalg the GPU path maps (contractions of any rank through workgroup
/// memory, convolutions through im2col, reductions by workgroups, the rest
/// a thread per element); only dynamic shapes are refused, by hodu-gpu-tile.
bool canRun(mlir::Operation *op);

} // namespace hodu::gpu

#endif // HODU_TARGET_GPU_PIPELINES_H
