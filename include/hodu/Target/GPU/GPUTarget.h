//===- GPUTarget.h - what every GPU back end shares -------------*- C++ -*-===//
//
// The four GPU targets (cuda, rocm, vulkan, metal) run the same phases up to
// outlined kernels (hodu/Target/GPU/Pipelines.h) and differ only in their
// architectures, the lowering of the kernel module (NVVM, ROCDL, SPIR-V),
// the options of the shared kernels, the element types their code has, and
// the serialisation of their code objects. GPUTargetBackend holds the rest
// once: the refusal of CPU options and unknown architectures, the linalg
// extension and the `gpu` phase, the op support table, the bundle artifact,
// the refusal of `--header`, and the named pipelines `hodu-<target>-<phase>`
// (IREE's GPU targets share a base the same way).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_GPU_GPUTARGET_H
#define HODU_TARGET_GPU_GPUTARGET_H

#include "hodu/Target/GPU/Passes.h"
#include "hodu/Target/GPU/Pipelines.h"
#include "hodu/Target/Target.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

#include <memory>
#include <string>
#include <vector>

namespace hodu::gpu {

/// What a GPU target's phase pipelines are built from: hoduc's command line
/// or the options of a named pipeline.
struct GPUPipelineConfig {
  unsigned optLevel = 2;
  /// --gpu-arch; empty: the target's default architecture (if it has any).
  std::vector<std::string> archs;
  /// --gpu-math (only the CUDA target reads it).
  std::string gpuMath = "3xtf32";
  /// --gpu-multiprocessors (CUDA and ROCm; 0: per architecture).
  int64_t multiprocessors = 0;
  /// --precision: f32, or f16 / bf16 for the contractions' operands.
  std::string precision = "f32";
};

/// The blocks a contraction's kernel should leave so that each
/// multiprocessor of the GPU (NVIDIA's SMs, AMD's CUs) gets one:
/// --gpu-multiprocessors where given, else the most that `ofArch` gives for
/// the bundle's architectures (`defaultArch` where none is named), else 64.
int64_t fillBlocks(const GPUPipelineConfig &c, llvm::StringRef defaultArch,
                   llvm::function_ref<int64_t(llvm::StringRef)> ofArch);

/// The options of a GPU target's named pipelines: opt-level, which all
/// take. A target with more (gpu-arch, gpu-math) derives and overrides
/// config().
struct GPUPipelineOptions
    : public mlir::PassPipelineOptions<GPUPipelineOptions> {
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("Optimisation level 0-3"),
                            llvm::cl::init(2)};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("f32, or f16 / bf16: the operands of f32 matmuls and "
                     "convolutions (hoduc --precision)"),
      llvm::cl::init("f32")};
  virtual GPUPipelineConfig config() const {
    return {optLevel, {}, "fma", 0, precision};
  }
};

/// A GPU target. A derived target overrides name(), description(), tools()
/// and the protected questions below, and nothing else; the overrides of
/// the four targets look alike (`duplicates` pairs them) because they are
/// the same questions answered with each target's data.
class GPUTargetBackend : public TargetBackend {
public:
  // What every GPU target does the same way.
  std::vector<ArtifactKind> artifactKinds() const final;
  std::string defaultArtifactKind() const final { return "bundle"; }
  /// Refuses the CPU's options (--target, -mcpu, -mattr) and a --gpu-arch
  /// that architectures() does not list, or any for a target without them.
  llvm::LogicalResult validate(const TargetOptions &options,
                               mlir::Location loc) const override;
  /// `gpu`, then the target's lowering of the kernel module.
  std::vector<std::string> phases() const final;
  llvm::LogicalResult
  extendSharedPhase(llvm::StringRef phase, mlir::OpPassManager &pm,
                    const PipelineRequest &request) const final;
  llvm::LogicalResult buildPhase(llvm::StringRef phase, mlir::OpPassManager &pm,
                                 const PipelineRequest &request) const final;
  std::vector<OpSupport> opSupport() const final;
  /// Refuses --header (a bundle is not linked into a program), then
  /// writeArtifact.
  llvm::LogicalResult serialize(mlir::ModuleOp module,
                                const SerializeRequest &request,
                                const TargetOptions &options) const final;

  /// The pipeline of `phase`: "linalg" (the target's additions to the shared
  /// phase) or one of phases(). hoduc and the named pipelines both call it.
  llvm::LogicalResult buildPipeline(llvm::StringRef phase,
                                    mlir::OpPassManager &pm,
                                    GPUPipelineConfig config) const;

  /// The phases with a named pipeline (pipelineName): "linalg", then
  /// phases().
  std::vector<std::string> pipelinePhases() const;
  /// What `hodu-opt --help` says of pipelineName(phase).
  std::string pipelineDescription(llvm::StringRef phase) const;
  /// buildPipeline for a named pipeline, which has no way to report a
  /// failure but a fatal error.
  void buildNamedPipeline(llvm::StringRef phase, mlir::OpPassManager &pm,
                          const GPUPipelineConfig &config) const;

protected:
  /// "CUDA": how messages and pipeline descriptions name the target.
  virtual std::string displayName() const = 0;
  /// The architectures --gpu-arch takes, and the one compiled for when none
  /// is given; none for a target whose code runs on any of its devices.
  virtual std::vector<std::string> architectures() const { return {}; }
  virtual std::string defaultArchitecture() const { return ""; }
  /// For a target without architectures: why --gpu-arch does not apply.
  virtual std::string whyNoArchitectures() const { return ""; }

  /// The artifact kinds besides the bundle (the code objects alone).
  virtual std::vector<ArtifactKind> kernelArtifactKinds() const = 0;
  /// The element types the target's kernels can hold.
  virtual GPUElementTypes elementTypes() const { return {}; }
  /// Whether --precision names a precision this target computes in (f32;
  /// f16; bf16 where its kernels have bf16); else an error at `loc`.
  llvm::LogicalResult validatePrecision(const TargetOptions &options,
                                        mlir::Location loc) const;
  /// What the target tells the shared kernel passes of the `gpu` phase.
  virtual KernelOptions kernelOptions(const GPUPipelineConfig &config) const {
    return {};
  }
  /// The phase after `gpu` ("nvvm") and its pipeline, which lowers the
  /// kernel module and makes the code objects.
  virtual std::string kernelPhase() const = 0;
  virtual std::string
  kernelPhasePipeline(const GPUPipelineConfig &config) const = 0;
  /// Writes `request.kind` (a bundle or one of kernelArtifactKinds()).
  virtual llvm::LogicalResult
  writeArtifact(mlir::ModuleOp module, const SerializeRequest &request,
                const TargetOptions &options) const = 0;

private:
  static GPUPipelineConfig configOf(const PipelineRequest &request);
};

/// Adds `target` to the ComponentRegistry (once per name).
void addGPUTarget(std::unique_ptr<GPUTargetBackend> target);

/// Registers the shared GPU passes and `target`'s named pipelines, one per
/// pipelinePhases() with the options `Options` (GPUPipelineOptions or a
/// target's extension of it), then adds the target to the registry.
template <typename Options = GPUPipelineOptions>
void registerGPUTarget(std::unique_ptr<GPUTargetBackend> target) {
  registerGPUPasses();
  // The registry owns the target for the life of the program, so the
  // pipeline builders may keep a pointer to it.
  const GPUTargetBackend *t = target.get();
  for (const std::string &phase : t->pipelinePhases())
    mlir::PassPipelineRegistration<Options>(
        t->pipelineName(phase), t->pipelineDescription(phase),
        [t, phase](mlir::OpPassManager &pm, const Options &o) {
          t->buildNamedPipeline(phase, pm, o.config());
        });
  addGPUTarget(std::move(target));
}

} // namespace hodu::gpu

#endif // HODU_TARGET_GPU_GPUTARGET_H
