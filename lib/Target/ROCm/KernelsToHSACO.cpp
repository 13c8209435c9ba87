//===- KernelsToHSACO.cpp - the kernel module serialised to HSA code ------===//
//
// See hodu-rocm-kernels-to-hsaco in include/hodu/Target/ROCm/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/ROCm/Passes.h"

#include "hodu/Support/Output.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

namespace hodu::rocm {
#define GEN_PASS_DEF_ROCMKERNELSTOHSACO
#include "hodu/Target/ROCm/Passes.h.inc"
} // namespace hodu::rocm

using namespace mlir;

std::string hodu::rocm::findDeviceLibraries() {
  std::vector<std::string> candidates;
  // A user who names a ROCm root means that one.
  if (std::optional<std::string> root = llvm::sys::Process::GetEnv("ROCM_PATH"))
    if (!root->empty())
      return llvm::sys::fs::exists(*root + "/amdgcn/bitcode/ocml.bc")
                 ? *root + "/amdgcn/bitcode"
                 : "";
  for (const char *multiarch :
       {"x86_64-linux-gnu", "aarch64-linux-gnu", "powerpc64le-linux-gnu"})
    candidates.push_back(std::string("/usr/lib/") + multiarch +
                         "/amdgcn/bitcode");
  candidates.push_back("/opt/rocm/amdgcn/bitcode");
  for (const std::string &dir : candidates)
    if (llvm::sys::fs::exists(dir + "/ocml.bc"))
      return dir;
  return "";
}

namespace {

/// Whether the kernels call the device libraries (ocml's maths, ockl's
/// work-item queries), which the serialiser then links in.
bool callsDeviceLibraries(ModuleOp module) {
  WalkResult r = module.walk([](LLVM::LLVMFuncOp f) {
    StringRef name = f.getName();
    return f.isExternal() &&
                   (name.starts_with("__ocml_") || name.starts_with("__ockl_"))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return r.wasInterrupted();
}

/// A ROCm root made of symbolic links in a fresh private directory, removed
/// when this goes out of scope.
class ToolkitRoot {
public:
  ~ToolkitRoot() {
    if (!dir.empty())
      llvm::sys::fs::remove_directories(dir);
  }

  LogicalResult create(StringRef deviceLibs, StringRef lld, Location loc) {
    SmallString<128> root;
    if (llvm::sys::fs::createUniqueDirectory("hoduc-rocm", root))
      return emitError(loc, "cannot create a temporary directory");
    dir = root.str().str();
    SmallString<128> bin(root);
    llvm::sys::path::append(bin, "llvm", "bin");
    SmallString<128> amdgcn(root);
    llvm::sys::path::append(amdgcn, "amdgcn");
    if (llvm::sys::fs::create_directories(bin) ||
        llvm::sys::fs::create_directories(amdgcn))
      return emitError(loc, "cannot create a temporary directory");
    if (llvm::sys::fs::create_link(lld, bin + "/ld.lld") ||
        (!deviceLibs.empty() &&
         llvm::sys::fs::create_link(deviceLibs, amdgcn + "/bitcode")))
      return emitError(loc, "cannot create links in ") << dir;
    return success();
  }

  std::string dir;
};

struct RocmKernelsToHSACO
    : hodu::rocm::impl::RocmKernelsToHSACOBase<RocmKernelsToHSACO> {
  using Base::Base;

  // The translations gpu-module-to-binary's ROCDL serialiser needs; CUDA's
  // KernelsToPTX.cpp registers NVVM's the same way (alike in shape, not in
  // dialects).
  void getDependentDialects(DialectRegistry &registry) const override {
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    registerGPUDialectTranslation(registry);
    registerROCDLDialectTranslation(registry);
    ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module.getOps<gpu::GPUModuleOp>().empty())
      return;
    Location loc = module.getLoc();
    std::string root = toolkit;
    ToolkitRoot made;
    if (root.empty()) {
      std::string libs = hodu::rocm::findDeviceLibraries();
      if (libs.empty() && callsDeviceLibraries(module)) {
        emitError(loc, "the kernels call the ROCm device libraries (ocml, "
                       "ockl), which are not installed (apt-get install "
                       "rocm-device-libs, or set ROCM_PATH)");
        return signalPassFailure();
      }
      std::optional<std::string> lld = hodu::findTool({"ld.lld-22", "ld.lld"});
      if (!lld) {
        emitError(loc, "linking HSA code objects needs 'ld.lld', found "
                       "neither on PATH nor in LLVM 22's bin directory "
                       "(apt-get install lld-22)");
        return signalPassFailure();
      }
      if (failed(made.create(libs, *lld, loc)))
        return signalPassFailure();
      root = made.dir;
    }
    gpu::TargetOptions options(root, /*librariesToLink=*/{},
                               /*cmdOptions=*/{}, /*elfSection=*/{},
                               gpu::CompilationTarget::Binary);
    if (failed(gpu::transformGpuModulesToBinaries(module, nullptr, options)))
      signalPassFailure();
  }
};
} // namespace
