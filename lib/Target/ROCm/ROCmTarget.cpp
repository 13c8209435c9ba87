//===- ROCmTarget.cpp - the ROCm back end ---------------------------------===//
//
// linalg (+ elementwise fusion) -> gpu (the shared GPU kernels of
// lib/Target/GPU and the launch plan) -> rocdl (the kernels in the ROCDL and
// LLVM dialects, one #rocdl.target per --gpu-arch, serialised by
// hodu-rocm-kernels-to-hsaco into HSA code objects) -> the artifact: one
// .hsaco, or a bundle of one per architecture that libhodurt runs through
// HIP.
//
// Every phase pipeline is built here and registered as a named pipeline
// (hodu-rocm-linalg, hodu-rocm-gpu, hodu-rocm-rocdl), so
// `hoduc --device=rocm --compile-to=P | hodu-opt --hodu-rocm-NEXT` replays
// each step.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/ROCm/ROCmTarget.h"
#include "hodu/Target/ROCm/Passes.h"

#include "hodu/Registry/Registry.h"
#include "hodu/Support/Output.h"
#include "hodu/Target/GPU/Bundle.h"
#include "hodu/Target/GPU/Passes.h"
#include "hodu/Target/GPU/Pipelines.h"
#include "hodu/Target/Target.h"
#include "hodu/bundle.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace hodu;

namespace {

/// The gfx architectures LLVM 22's AMDGPU back end compiles for and HIP
/// runs (CDNA and RDNA). Debian's device libraries lack some of their
/// oclc_isa_version files, which only kernels that ask for the ISA version
/// need.
constexpr llvm::StringLiteral kArchs[] = {
    "gfx900",  "gfx906",  "gfx908",  "gfx90a",  "gfx940",  "gfx941",
    "gfx942",  "gfx950",  "gfx1030", "gfx1100", "gfx1101", "gfx1102",
    "gfx1200", "gfx1201",
};
constexpr llvm::StringLiteral kDefaultArch = "gfx942";

bool knownArch(StringRef name) { return llvm::is_contained(kArchs, name); }

struct ROCmPipelineOptions : public PassPipelineOptions<ROCmPipelineOptions> {
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("Optimisation level 0-3"),
                            llvm::cl::init(2)};
  ListOption<std::string> gpuArchs{
      *this, "gpu-arch",
      llvm::cl::desc("Architectures to compile for (default gfx942)")};
};

struct ROCmPipelineConfig {
  unsigned optLevel = 2;
  std::vector<std::string> archs;
};

ROCmPipelineConfig configOf(unsigned optLevel, ArrayRef<std::string> archs) {
  ROCmPipelineConfig c{optLevel, {archs.begin(), archs.end()}};
  if (c.archs.empty())
    c.archs.push_back(kDefaultArch.str());
  return c;
}

/// One #rocdl.target per architecture, code object version 5 (which ROCm
/// 5 and 6 runtimes load; LLVM 22's default, 6, needs ROCm 6.3), the
/// kernels lowered with bare-pointer arguments (one pointer per buffer, as
/// the launch plan passes them), then serialised.
std::string rocdlPipeline(const ROCmPipelineConfig &c) {
  std::string p;
  for (const std::string &arch : c.archs)
    p += "rocdl-attach-target{chip=" + arch + " abi=500 O=" +
         std::to_string(std::min(c.optLevel, 3u)) + "},";
  // The maths LLVM's AMDGPU back end has no instruction for (tanh, sinh,
  // atan, ...) become OCML calls first; convert-gpu-to-rocdl would leave
  // them as LLVM intrinsics the back end cannot select. (A module pass: the
  // host function holds no maths by now.)
  return p + "convert-math-to-rocdl{chipset=" + c.archs.front() + "}," +
         "gpu.module(convert-scf-to-cf{allow-pattern-rollback=false},"
         "expand-strided-metadata,lower-affine,"
         "arith-expand,"
         "convert-gpu-to-rocdl{use-bare-ptr-memref-call-conv=1 runtime=HIP "
         "chipset=" +
         c.archs.front() +
         "},canonicalize,cse,reconcile-unrealized-casts),"
         "hodu-rocm-kernels-to-hsaco";
}

/// AMD GPUs load 16-byte vectors and give a workgroup 64 KiB of LDS.
const hodu::gpu::KernelOptions kKernelOptions = {/*vectorMemory=*/true,
                                                 /*workgroupMemory=*/65536,
                                                 /*maxThreads=*/256};

LogicalResult buildROCmPhase(StringRef phase, OpPassManager &pm,
                             const ROCmPipelineConfig &c) {
  if (phase == "linalg")
    return addPassPipeline(pm, hodu::gpu::linalgExtension(c.optLevel));
  if (phase == "gpu")
    return addPassPipeline(pm, hodu::gpu::kernelsPipeline("rocm", kKernelOptions));
  if (phase == "rocdl")
    return addPassPipeline(pm, rocdlPipeline(c));
  llvm::errs() << "hoduc: internal error: the ROCm target has no phase '"
               << phase << "'\n";
  return failure();
}

class ROCmTarget final : public TargetBackend {
public:
  std::string name() const override { return "rocm"; }
  std::string description() const override {
    return "AMD GPUs through ROCDL and HSA code objects (libhodurt runs its "
           "bundles through HIP)";
  }
  std::vector<ArtifactKind> artifactKinds() const override {
    return {
        hodu::gpu::bundleArtifactKind(),
        {"hsaco", {}, ".hsaco", "", false,
         "HSA code object (one --gpu-arch), for hipModuleLoad"},
    };
  }
  std::string defaultArtifactKind() const override { return "bundle"; }
  std::vector<ToolRequirement> tools() const override {
    return {{{"ld.lld-22", "ld.lld"}, "hsaco, bundle", "apt-get install lld-22"}};
  }

  LogicalResult validate(const TargetOptions &options,
                         Location loc) const override {
    if (!options.triple.empty() || !options.cpu.empty() ||
        !options.features.empty())
      return emitError(loc, "--target, -mcpu and -mattr apply to the CPU: the 'cpu' "
                            "target, or the CPU part with --fallback=cpu; "
                            "'rocm' takes --gpu-arch");
    for (const std::string &arch : options.gpuArchs)
      if (!knownArch(arch)) {
        std::vector<std::string> known(std::begin(kArchs), std::end(kArchs));
        return emitError(loc, "unknown ROCm architecture '")
               << arch << "' (known: " << llvm::join(known, ", ") << ")";
      }
    return success();
  }

  std::vector<std::string> phases() const override { return {"gpu", "rocdl"}; }
  LogicalResult extendSharedPhase(StringRef phase, OpPassManager &pm,
                                  const PipelineRequest &request) const override {
    if (phase != "linalg")
      return success();
    return buildROCmPhase(phase, pm, configOf(request));
  }
  LogicalResult buildPhase(StringRef phase, OpPassManager &pm,
                           const PipelineRequest &request) const override {
    return buildROCmPhase(phase, pm, configOf(request));
  }

  std::vector<OpSupport> opSupport() const override {
    return hodu::gpu::opSupport({});
  }

  LogicalResult serialize(ModuleOp module, const SerializeRequest &request,
                          const TargetOptions &options) const override {
    Location loc = module.getLoc();
    if (!request.headerPath.empty())
      return emitError(loc, "--header is for native artifacts; a bundle is "
                            "run through libhodurt (docs/runtime.md)");
    if (request.outputPath == "-")
      return emitError(loc, "refusing to write a binary artifact (")
             << request.kind->name << ") to stdout";
    std::vector<hodu::gpu::CodeObject> code;
    for (auto binary : module.getOps<mlir::gpu::BinaryOp>())
      for (Attribute a : binary.getObjects()) {
        auto object = cast<mlir::gpu::ObjectAttr>(a);
        auto target = dyn_cast<ROCDL::ROCDLTargetAttr>(object.getTarget());
        if (!target ||
            object.getFormat() != mlir::gpu::CompilationTarget::Binary)
          return emitError(loc, "internal error: expected HSA code objects "
                                "from the rocdl phase");
        code.push_back({HODU_CODE_HSACO, target.getChip().str(),
                        object.getObject().str()});
      }
    if (request.kind->name == "bundle")
      return hodu::gpu::writeBundle(module, request, HODU_DEVICE_HIP, code);
    if (code.empty())
      return emitError(loc, "the model has no kernels to compile for 'rocm'");
    if (code.size() != 1)
      return emitError(loc, "--emit=hsaco holds one architecture, not ")
             << code.size() << " (give one --gpu-arch, or write a bundle)";
    OutputFile out(request.outputPath);
    return success(succeeded(out.open(loc)) &&
                   succeeded(out.write(code.front().bytes, loc)) &&
                   succeeded(out.commit(loc)));
  }

private:
  static ROCmPipelineConfig configOf(const PipelineRequest &request) {
    return ::configOf(request.target.optLevel, request.target.gpuArchs);
  }
};
} // namespace

void hodu::registerROCmTarget() {
  static bool done = [] {
    hodu::gpu::registerGPUPasses();
    rocm::registerROCmPasses();
    for (StringRef phase : {"linalg", "gpu", "rocdl"}) {
      std::string name = ("hodu-rocm-" + phase).str();
      std::string desc =
          phase == "linalg"
              ? "The ROCm target's additions to the shared linalg phase (run "
                "after convert-hodu-to-linalg)"
              : ("The ROCm target's " + phase + " phase, as hoduc runs it")
                    .str();
      PassPipelineRegistration<ROCmPipelineOptions>(
          name, desc,
          [phase](OpPassManager &pm, const ROCmPipelineOptions &o) {
            if (failed(buildROCmPhase(phase, pm,
                                      configOf(o.optLevel, o.gpuArchs))))
              llvm::report_fatal_error("cannot build the ROCm pipeline");
          });
    }
    ComponentRegistry::get().addTarget(std::make_unique<ROCmTarget>());
    return true;
  }();
  (void)done;
}
