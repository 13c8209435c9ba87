//===- VulkanTarget.cpp - the Vulkan back end -----------------------------===//
//
// linalg (+ elementwise fusion) -> gpu (the shared GPU kernels of
// lib/Target/GPU, with the host function reduced to a launch plan over one
// device arena) -> spirv (the kernels as one SPIR-V module for Vulkan, one
// entry point per kernel, lib/Target/SPIRV) -> the artifact: the SPIR-V
// binary, or a bundle (the binary, the launch plan and the weights) that
// libhodurt runs on any Vulkan 1.1 device.
//
// hodu::gpu::GPUTargetBackend holds what the GPU targets share, among it
// the named pipelines (hodu-vulkan-linalg, hodu-vulkan-gpu,
// hodu-vulkan-spirv), so `hoduc --device=vulkan --compile-to=P | hodu-opt
// --hodu-vulkan-NEXT` replays each step, and hodu::spirv::SPIRVTargetBackend
// the spirv phase; this file holds the serialisation.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/Vulkan/VulkanTarget.h"

#include "hodu/Support/Output.h"
#include "hodu/Target/GPU/Bundle.h"
#include "hodu/Target/SPIRV/SPIRVTarget.h"
#include "hodu/bundle.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace hodu;

namespace {

class VulkanTarget final : public hodu::spirv::SPIRVTargetBackend {
public:
  std::string name() const override { return "vulkan"; }
  std::string description() const override {
    return "Vulkan 1.1 compute through SPIR-V (any Vulkan device; Mesa's "
           "lavapipe runs it on the CPU)";
  }

protected:
  std::string displayName() const override { return "Vulkan"; }
  std::string whyNoArchitectures() const override {
    return "SPIR-V runs on any Vulkan 1.1 device";
  }

  std::vector<ArtifactKind> kernelArtifactKinds() const override {
    return {{"spv", {"spirv"}, ".spv", "", false,
             "the kernels as one SPIR-V module (one entry point per kernel; "
             "buffer arguments at set 0, binding i)"}};
  }
  hodu::gpu::GPUElementTypes elementTypes() const override {
    return {/*bf16=*/false, /*f64=*/true};
  }

  LogicalResult writeArtifact(ModuleOp module, const SerializeRequest &request,
                              const TargetOptions &options) const override {
    Location loc = module.getLoc();
    bool hasKernels = !module.getOps<mlir::spirv::ModuleOp>().empty();
    if (request.kind->name == "spv") {
      if (!hasKernels)
        return emitError(loc, "the model has no kernels to write as SPIR-V");
      if (request.outputPath == "-")
        return emitError(loc, "refusing to write SPIR-V (binary) to stdout");
      FailureOr<std::string> spv = hodu::spirv::serializeKernels(module);
      if (failed(spv))
        return failure();
      OutputFile out(request.outputPath);
      return success(succeeded(out.open(loc)) &&
                     succeeded(out.write(*spv, loc)) &&
                     succeeded(out.commit(loc)));
    }
    std::vector<hodu::gpu::CodeObject> code;
    if (hasKernels) {
      FailureOr<std::string> spv = hodu::spirv::serializeKernels(module);
      if (failed(spv))
        return failure();
      code.push_back({HODU_CODE_SPIRV, "", std::move(*spv)});
    }
    return hodu::gpu::writeBundle(module, request, HODU_DEVICE_VULKAN, code);
  }
};
} // namespace

void hodu::registerVulkanTarget() {
  static bool done = [] {
    hodu::spirv::registerSPIRVLowering();
    hodu::gpu::registerGPUTarget(std::make_unique<VulkanTarget>());
    return true;
  }();
  (void)done;
}
