//===- Passes.td - CUDA code-generation passes -------------*- tablegen -*-===//
//
// The CUDA target's own pass: the end of its nvvm phase.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_CUDA_PASSES_TD
#define HODU_TARGET_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def CudaKernelsToPTX : Pass<"hodu-cuda-kernels-to-ptx", "mlir::ModuleOp"> {
  let summary = "Serialise every gpu.module to PTX, one object per #nvvm.target";
  let description = [{
    `gpu-module-to-binary{format=isa}` with the LLVM IR translations of the
    builtin, LLVM, GPU and NVVM dialects as the pass's dependencies: the
    serialiser translates each gpu.module to LLVM IR, and hoduc's context
    registers only the translations the CPU needs. The `toolkit` given is
    where libdevice is linked from when kernels call math functions.

    ```mlir
    gpu.module @kernels [#nvvm.target<chip = "sm_80", features = "+ptx80">] {
      llvm.func @main_kernel(...) attributes {gpu.kernel, nvvm.kernel} {...}
    }
    // becomes
    gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_80", ...>,
                                     assembly = "...\0A.target sm_80\0A...">]
    ```
  }];
  let options = [
    Option<"toolkit", "toolkit", "std::string", "",
           "CUDA toolkit root, for libdevice (default: MLIR's search, "
           "$CUDA_HOME, ...)">,
  ];
}

#endif // HODU_TARGET_CUDA_PASSES_TD
