//===- KernelsToPTX.cpp - the kernel module serialised to PTX -------------===//
//
// See hodu-cuda-kernels-to-ptx in include/hodu/Target/CUDA/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

namespace hodu::cuda {
#define GEN_PASS_DEF_CUDAKERNELSTOPTX
#include "hodu/Target/CUDA/Passes.h.inc"
} // namespace hodu::cuda

using namespace mlir;

namespace {
struct CudaKernelsToPTX
    : hodu::cuda::impl::CudaKernelsToPTXBase<CudaKernelsToPTX> {
  using Base::Base;

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
};
} // namespace
