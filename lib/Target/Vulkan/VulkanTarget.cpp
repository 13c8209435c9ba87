//===- VulkanTarget.cpp - the Vulkan back end -----------------------------===//
//
// linalg (+ elementwise fusion) -> gpu (the shared GPU kernels of
// lib/Target/GPU, with the host function reduced to a launch plan over one
// device arena) -> spirv (the kernels as one SPIR-V module for Vulkan, one
// entry point per kernel, lib/Target/SPIRV) -> the artifact: the SPIR-V
// binary, or a bundle (the binary, the launch plan and the weights) that
// libhodurt runs on any Vulkan 1.1 device.
//
// Every phase pipeline is built here and registered as a named pipeline
// (hodu-vulkan-linalg, hodu-vulkan-gpu, hodu-vulkan-spirv), so
// `hoduc --device=vulkan --compile-to=P | hodu-opt --hodu-vulkan-NEXT`
// replays each step.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/Vulkan/VulkanTarget.h"

#include "hodu/Registry/Registry.h"
#include "hodu/Support/Output.h"
#include "hodu/Target/GPU/Bundle.h"
#include "hodu/Target/GPU/Passes.h"
#include "hodu/Target/GPU/Pipelines.h"
#include "hodu/Target/SPIRV/SPIRV.h"
#include "hodu/Target/Target.h"
#include "hodu/bundle.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace hodu;

namespace {

struct VulkanPipelineOptions
    : public PassPipelineOptions<VulkanPipelineOptions> {
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("Optimisation level 0-3"),
                            llvm::cl::init(2)};
};

LogicalResult buildVulkanPhase(StringRef phase, OpPassManager &pm,
                               unsigned optLevel) {
  if (phase == "linalg")
    return addPassPipeline(pm, hodu::gpu::linalgExtension(optLevel));
  if (phase == "gpu")
    return addPassPipeline(pm, hodu::gpu::kernelsPipeline("vulkan"));
  if (phase == "spirv")
    return addPassPipeline(pm,
                           hodu::spirv::kernelsToSPIRVPipeline(/*float64=*/true));
  llvm::errs() << "hoduc: internal error: the Vulkan target has no phase '"
               << phase << "'\n";
  return failure();
}

class VulkanTarget final : public TargetBackend {
public:
  std::string name() const override { return "vulkan"; }
  std::string description() const override {
    return "Vulkan 1.1 compute through SPIR-V (any Vulkan device; Mesa's "
           "lavapipe runs it on the CPU)";
  }
  std::vector<ArtifactKind> artifactKinds() const override {
    return {
        hodu::gpu::bundleArtifactKind(),
        {"spv", {"spirv"}, ".spv", "", false,
         "the kernels as one SPIR-V module (one entry point per kernel; "
         "buffer arguments at set 0, binding i)"},
    };
  }
  std::string defaultArtifactKind() const override { return "bundle"; }

  LogicalResult validate(const TargetOptions &options,
                         Location loc) const override {
    if (!options.triple.empty() || !options.cpu.empty() ||
        !options.features.empty())
      return emitError(loc, "--target, -mcpu and -mattr apply to the CPU: the 'cpu' "
                            "target, or the CPU part with --fallback=cpu; "
                            "not to 'vulkan'");
    if (!options.gpuArchs.empty())
      return emitError(loc, "--gpu-arch does not apply to 'vulkan': SPIR-V "
                            "runs on any Vulkan 1.1 device");
    return success();
  }

  std::vector<std::string> phases() const override {
    return {"gpu", "spirv"};
  }
  LogicalResult extendSharedPhase(StringRef phase, OpPassManager &pm,
                                  const PipelineRequest &request) const override {
    if (phase != "linalg")
      return success();
    return buildVulkanPhase(phase, pm, request.target.optLevel);
  }
  LogicalResult buildPhase(StringRef phase, OpPassManager &pm,
                           const PipelineRequest &request) const override {
    return buildVulkanPhase(phase, pm, request.target.optLevel);
  }

  std::vector<OpSupport> opSupport() const override {
    return hodu::gpu::opSupport({/*bf16=*/false, /*f64=*/true});
  }

  LogicalResult serialize(ModuleOp module, const SerializeRequest &request,
                          const TargetOptions &options) const override {
    Location loc = module.getLoc();
    if (!request.headerPath.empty())
      return emitError(loc, "--header is for native artifacts; a bundle is "
                            "run through libhodurt (docs/runtime.md)");
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
    hodu::gpu::registerGPUPasses();
    hodu::spirv::registerSPIRVLowering();
    for (StringRef phase : {"linalg", "gpu", "spirv"}) {
      std::string name = ("hodu-vulkan-" + phase).str();
      std::string desc =
          phase == "linalg"
              ? "The Vulkan target's additions to the shared linalg phase "
                "(run after convert-hodu-to-linalg)"
              : ("The Vulkan target's " + phase + " phase, as hoduc runs it")
                    .str();
      PassPipelineRegistration<VulkanPipelineOptions>(
          name, desc,
          [phase](OpPassManager &pm, const VulkanPipelineOptions &o) {
            if (failed(buildVulkanPhase(phase, pm, o.optLevel)))
              llvm::report_fatal_error("cannot build the Vulkan pipeline");
          });
    }
    ComponentRegistry::get().addTarget(std::make_unique<VulkanTarget>());
    return true;
  }();
  (void)done;
}
