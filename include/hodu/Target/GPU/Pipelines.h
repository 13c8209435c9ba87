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

namespace mlir {
class Operation;
} // namespace mlir

#include <string>

namespace hodu::gpu {

/// What a GPU target adds to the shared linalg phase: elementwise fusion, so
/// that each fused op becomes one kernel.
std::string linalgExtension(unsigned optLevel);

/// The `gpu` phase as pipeline text: every top-level linalg op tiled into
/// blocks and threads (matmuls through workgroup memory), bufferised,
/// mapped to `gpu.launch` and outlined into one `gpu.module @kernels`.
/// `target` is named in errors.
std::string kernelsPipeline(llvm::StringRef target);

/// What a GPU target's kernels can hold: the element types its code
/// generation has (SPIR-V has no bf16, Metal no f64; no target here does
/// f8 arithmetic).
struct GPUElementTypes {
  bool bf16 = true, f64 = true;
};

/// The op support table of the shared GPU kernels for a target with these
/// element types: every hodu compute op (they all lower to linalg, which the
/// GPU path maps), with the element types the target has, except batched
/// matmuls (only 2-D matmuls are tiled through workgroup memory, and one
/// thread per output element would be far too slow).
std::vector<hodu::OpSupport> opSupport(GPUElementTypes types);

} // namespace hodu::gpu

#endif // HODU_TARGET_GPU_PIPELINES_H
