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

/// Whether the shared GPU kernels can run `op` (a hodu op): every op lowers
/// to linalg the GPU path maps, except batched matmuls (only 2-D matmuls
/// are tiled through workgroup memory, and one thread per output element
/// would be far too slow).
bool canRun(mlir::Operation *op);

} // namespace hodu::gpu

#endif // HODU_TARGET_GPU_PIPELINES_H
