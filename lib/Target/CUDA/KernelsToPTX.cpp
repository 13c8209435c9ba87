//===- KernelsToPTX.cpp - the kernel module serialised to PTX -------------===//
//
// `gpu-module-to-binary{format=isa}` with the LLVM IR translations of the
// GPU and NVVM dialects as the pass's dependencies: the serialiser
// translates each gpu.module to LLVM IR, and hoduc's context registers only
// the translations the CPU needs. The CUDA toolkit passed on is where
// libdevice is linked from when kernels call math functions.
//
//===----------------------------------------------------------------------===//

#include "KernelsToPTX.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

using namespace mlir;

namespace {
struct KernelsToPTXPass
    : PassWrapper<KernelsToPTXPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(KernelsToPTXPass)

  KernelsToPTXPass() = default;
  KernelsToPTXPass(const KernelsToPTXPass &other) : PassWrapper(other) {}

  StringRef getArgument() const override { return "hodu-cuda-kernels-to-ptx"; }
  StringRef getDescription() const override {
    return "Serialise every gpu.module to PTX, one object per #nvvm.target "
           "(gpu-module-to-binary{format=isa} with its translations)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    registerGPUDialectTranslation(registry);
    registerNVVMDialectTranslation(registry);
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  }
  void runOnOperation() override {
    gpu::TargetOptions options(toolkit, /*librariesToLink=*/{},
                               /*cmdOptions=*/{}, /*elfSection=*/{},
                               gpu::CompilationTarget::Assembly);
    if (failed(gpu::transformGpuModulesToBinaries(getOperation(), nullptr,
                                                  options)))
      signalPassFailure();
  }

  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit root, for libdevice (default: MLIR's "
                     "search: $CUDA_HOME, ...)")};
};
} // namespace

void hodu::cuda::registerKernelsToPTXPass() {
  PassRegistration<KernelsToPTXPass>();
}
