//===- Passes.td - ROCm code-generation passes --------------*- tablegen -*-===//
#ifndef HODU_TARGET_ROCM_PASSES_TD
#define HODU_TARGET_ROCM_PASSES_TD

include "mlir/Pass/PassBase.td"

def RocmKernelsToHSACO : Pass<"hodu-rocm-kernels-to-hsaco", "mlir::ModuleOp"> {
  let summary = "Serialise the ROCDL kernel module to one HSA code object per target";
  let description = [{
    Runs `gpu-module-to-binary`'s ROCDL serialiser on every `gpu.module`
    with `#rocdl.target`s (one per `--gpu-arch`): the kernels are
    compiled by LLVM's AMDGPU back end, linked with the ROCm device
    libraries they call (`ocml`, `ockl`), and linked into an HSA code
    object by `ld.lld`. The result is a `gpu.binary` holding one `.hsaco`
    per target.

    Upstream's serialiser looks for `<root>/amdgcn/bitcode` and
    `<root>/llvm/bin/ld.lld` under one ROCm root. Debian installs the
    device libraries elsewhere (`rocm-device-libs`: `/usr/lib/<multiarch>/
    amdgcn/bitcode`) and lld as `ld.lld-22`, so unless `toolkit` (or
    `$ROCM_PATH`) names a real ROCm root, the pass builds a private one of
    symbolic links in a fresh temporary directory and removes it after.
    Kernels that call into the device libraries when none are installed,
    or a missing `ld.lld`, are errors that name the package to install.
  }];
  let options = [
    Option<"toolkit", "toolkit", "std::string", "\"\"",
           "A ROCm root holding amdgcn/bitcode and llvm/bin/ld.lld (default: "
           "$ROCM_PATH, else one made from Debian's packages)">,
  ];
}

#endif // HODU_TARGET_ROCM_PASSES_TD
