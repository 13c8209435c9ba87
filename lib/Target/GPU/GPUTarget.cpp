//===- GPUTarget.cpp - what every GPU back end shares ---------------------===//
//
// The parts of a GPU target that do not depend on the GPU: its options are
// --gpu-arch (never the CPU's), its phases are `gpu` and one lowering of the
// kernel module, its linalg extension and `gpu` phase are the shared ones
// with the target's KernelOptions, and its artifacts are a bundle or the
// code objects alone, never something a C header goes with.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/GPUTarget.h"

#include "hodu/Registry/Registry.h"
#include "hodu/Target/GPU/Bundle.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::gpu;

std::vector<ArtifactKind> GPUTargetBackend::artifactKinds() const {
  std::vector<ArtifactKind> kinds = {bundleArtifactKind()};
  for (ArtifactKind &kind : kernelArtifactKinds())
    kinds.push_back(std::move(kind));
  return kinds;
}

LogicalResult GPUTargetBackend::validate(const TargetOptions &options,
                                         Location loc) const {
  std::vector<std::string> known = architectures();
  if (!options.triple.empty() || !options.cpu.empty() ||
      !options.features.empty())
    return emitError(loc, "--target, -mcpu and -mattr apply to the CPU: the "
                          "'cpu' target, or the CPU part with "
                          "--fallback=cpu; ")
           << (known.empty() ? "not to '" + name() + "'"
                             : "'" + name() + "' takes --gpu-arch");
  if (failed(validatePrecision(options, loc)))
    return failure();
  if (known.empty() && !options.gpuArchs.empty())
    return emitError(loc, "--gpu-arch does not apply to '")
           << name() << "': " << whyNoArchitectures();
  for (const std::string &arch : options.gpuArchs)
    if (!llvm::is_contained(known, arch))
      return emitError(loc, "unknown ")
             << displayName() << " architecture '" << arch
             << "' (known: " << llvm::join(known, ", ") << ")";
  return success();
}

LogicalResult GPUTargetBackend::validatePrecision(const TargetOptions &options,
                                                  Location loc) const {
  if (options.precision == "bf16" && !elementTypes().bf16)
    return emitError(loc, "--precision=bf16: the ")
           << displayName()
           << " kernels have no bf16 type; --precision=f16 narrows their "
              "matmuls and convolutions instead";
  if (options.precision != "f32" && options.precision != "f16" &&
      options.precision != "bf16")
    return emitError(loc, "--precision takes f32, f16 or bf16, not '")
           << options.precision << "'";
  return success();
}

std::vector<std::string> GPUTargetBackend::phases() const {
  return {"gpu", kernelPhase()};
}

std::vector<std::string> GPUTargetBackend::pipelinePhases() const {
  std::vector<std::string> all = {"linalg"};
  for (std::string &phase : phases())
    all.push_back(std::move(phase));
  return all;
}

int64_t hodu::gpu::fillBlocks(const GPUPipelineConfig &c, StringRef defaultArch,
                              llvm::function_ref<int64_t(StringRef)> ofArch) {
  if (c.multiprocessors > 0)
    return c.multiprocessors;
  int64_t most = 0;
  if (c.archs.empty())
    most = ofArch(defaultArch);
  for (const std::string &arch : c.archs)
    most = std::max(most, ofArch(arch));
  return most > 0 ? most : 64;
}

GPUPipelineConfig GPUTargetBackend::configOf(const PipelineRequest &request) {
  return {request.target.optLevel, request.target.gpuArchs,
          request.target.gpuMath, request.target.gpuMultiprocessors,
          request.target.precision};
}

LogicalResult
GPUTargetBackend::extendSharedPhase(StringRef phase, OpPassManager &pm,
                                    const PipelineRequest &request) const {
  if (phase != "linalg")
    return success();
  return buildPipeline(phase, pm, configOf(request));
}

LogicalResult
GPUTargetBackend::buildPhase(StringRef phase, OpPassManager &pm,
                             const PipelineRequest &request) const {
  return buildPipeline(phase, pm, configOf(request));
}

LogicalResult GPUTargetBackend::buildPipeline(StringRef phase,
                                              OpPassManager &pm,
                                              GPUPipelineConfig config) const {
  if (config.archs.empty() && !defaultArchitecture().empty())
    config.archs.push_back(defaultArchitecture());
  KernelOptions kernels = kernelOptions(config);
  if (phase == "linalg")
    return addPassPipeline(
        pm, linalgExtension(config.optLevel, config.precision,
                            !kernels.tensorCores.empty(),
                            kernels.workgroupMemory, kernels.minBlocks));
  if (phase == "gpu")
    return addPassPipeline(pm, kernelsPipeline(name(), kernels));
  if (phase == kernelPhase())
    return addPassPipeline(pm, kernelPhasePipeline(config));
  llvm::errs() << "hoduc: internal error: the " << displayName()
               << " target has no phase '" << phase << "'\n";
  return failure();
}

std::string GPUTargetBackend::pipelineDescription(StringRef phase) const {
  if (phase == "linalg")
    return "The " + displayName() +
           " target's additions to the shared linalg phase (run after "
           "convert-hodu-to-linalg)";
  return "The " + displayName() + " target's " + phase.str() +
         " phase, as hoduc runs it";
}

void GPUTargetBackend::buildNamedPipeline(
    StringRef phase, OpPassManager &pm, const GPUPipelineConfig &config) const {
  if (failed(buildPipeline(phase, pm, config)))
    llvm::report_fatal_error(llvm::Twine("cannot build the ") + displayName() +
                             " pipeline");
}

std::vector<OpSupport> GPUTargetBackend::opSupport() const {
  return gpu::opSupport(elementTypes());
}

LogicalResult GPUTargetBackend::serialize(ModuleOp module,
                                          const SerializeRequest &request,
                                          const TargetOptions &options) const {
  if (!request.headerPath.empty())
    return emitError(module.getLoc(),
                     "--header is for native artifacts; a bundle is run "
                     "through libhodurt (docs/runtime.md)");
  return writeArtifact(module, request, options);
}

void hodu::gpu::addGPUTarget(std::unique_ptr<GPUTargetBackend> target) {
  ComponentRegistry::get().addTarget(std::move(target));
}
