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

#include "hodu/Target/Target.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

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
  /// Contractions on matrix units: empty for none; NVIDIA's tensor cores
  /// (CUDA, sm_80 and later): how f32 contractions compute there ("3xtf32"
  /// or "tf32"; f16 and bf16 multiply as themselves); AMD's matrix cores
  /// (ROCm, CDNA): "mfma", "+bf16" where every architecture has the bf16
  /// MFMA, "+xf32" for f32 as xf32 (gfx940-942).
  std::string tensorCores;
  /// Blocks a contraction's (and a split attention loop's) kernel should
  /// leave, so that they fill the GPU: CUDA's and ROCm's multiprocessor
  /// count (fillBlocks), 64 elsewhere.
  int64_t minBlocks = 64;
};

/// What a GPU target adds to the shared linalg phase: at -O2 attention
/// chains as one loop each (hodu-gpu-fuse-attention, within
/// `workgroupMemory`); with `precision`
/// f16 or bf16 (hoduc --precision), f32 contractions on narrowed operands
/// (both of them for `tensorCores`); elementwise fusion (not into
/// contractions), so that each fused op becomes one kernel.
std::string linalgExtension(unsigned optLevel, llvm::StringRef precision = "",
                            bool tensorCores = false,
                            int64_t workgroupMemory = 32768,
                            int64_t minBlocks = 64);

/// The `gpu` phase as pipeline text: linalg ops grouped into kernels and
/// tiled into blocks and threads (contractions through workgroup memory,
/// workgroup reductions), bufferised, mapped to `gpu.launch`, register
/// tiles kept in registers and vectors lowered, outlined into one
/// `gpu.module @kernels`. `target` is named in errors.
std::string kernelsPipeline(llvm::StringRef target,
                            const KernelOptions &options = {});

/// What a GPU target's kernels can hold: the element types its code
/// generation has (SPIR-V has no bf16, Metal no f64; no target here does
/// f8 arithmetic).
struct GPUElementTypes {
  bool bf16 = true, f64 = true;
};

/// The op support table of the shared GPU kernels for a target with these
/// element types: every hodu compute op with the element types the target
/// has, on static shapes. Every op lowers to linalg, which the GPU path maps:
/// contractions of any rank through workgroup memory, convolutions through
/// im2col, reductions by workgroups, the rest a thread per element;
/// hodu-gpu-tile refuses dynamic shapes.
std::vector<hodu::OpSupport> opSupport(GPUElementTypes types);

} // namespace hodu::gpu

#endif // HODU_TARGET_GPU_PIPELINES_H
