//===- ROCmTarget.cpp - the ROCm back end ---------------------------------===//
//
// linalg (+ elementwise fusion) -> gpu (the shared GPU kernels of
// lib/Target/GPU and the launch plan) -> rocdl (the kernels in the ROCDL and
// LLVM dialects, one #rocdl.target per --gpu-arch, serialised by
// hodu-rocm-kernels-to-hsaco into HSA code objects) -> the artifact: one
// .hsaco, or a bundle of one per architecture that libhodurt runs through
// HIP.
//
// hodu::gpu::GPUTargetBackend holds what the GPU targets share, among it
// the named pipelines (hodu-rocm-linalg, hodu-rocm-gpu, hodu-rocm-rocdl),
// so `hoduc --device=rocm --compile-to=P | hodu-opt --hodu-rocm-NEXT`
// replays each step; this file holds the architectures, the rocdl phase
// and the serialisation.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/ROCm/ROCmTarget.h"
#include "hodu/Target/ROCm/Passes.h"

#include "hodu/Support/Output.h"
#include "hodu/Target/GPU/Bundle.h"
#include "hodu/Target/GPU/GPUTarget.h"
#include "hodu/bundle.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace hodu;

namespace {

/// The gfx architectures LLVM 22's AMDGPU back end compiles for and HIP
/// runs (CDNA and RDNA), with the compute units of each one's largest part,
/// which the contractions' blocks are made to fill (--gpu-multiprocessors
/// names another GPU's): Radeon Instinct MI25, MI60, MI100, an MI250X's
/// die, MI300A, MI300X (gfx941-942), MI355X, Radeon RX 6900 XT, RX 7900
/// XTX, RX 7800 XT, RX 7600, RX 9060 XT, RX 9070 XT. Debian's device
/// libraries lack some of their oclc_isa_version files, which only kernels
/// that ask for the ISA version need.
struct Arch {
  llvm::StringLiteral name;
  int64_t multiprocessors;
};
constexpr Arch kArchs[] = {
    {"gfx900", 64},  {"gfx906", 64},  {"gfx908", 120}, {"gfx90a", 110},
    {"gfx940", 228}, {"gfx941", 304}, {"gfx942", 304}, {"gfx950", 256},
    {"gfx1030", 80}, {"gfx1100", 96}, {"gfx1101", 60}, {"gfx1102", 32},
    {"gfx1200", 32}, {"gfx1201", 64},
};
constexpr llvm::StringLiteral kDefaultArch = "gfx942";

struct ROCmPipelineOptions : public hodu::gpu::GPUPipelineOptions {
  ListOption<std::string> gpuArchs{
      *this, "gpu-arch",
      llvm::cl::desc("Architectures to compile for (default gfx942)")};
  Option<std::string> gpuMath{
      *this, "gpu-math",
      llvm::cl::desc("Contractions on matrix cores (MFMA), f32 ones in full "
                     "f32 (3xtf32, the default) or as xf32 on gfx940-942 "
                     "(tf32); fma: none"),
      llvm::cl::init("3xtf32")};
  Option<int64_t> gpuMultiprocessors{
      *this, "gpu-multiprocessors",
      llvm::cl::desc("Compute units the contractions' blocks should fill (0: "
                     "the architectures' largest parts)"),
      llvm::cl::init(0)};
  hodu::gpu::GPUPipelineConfig config() const override {
    return {optLevel,
            {gpuArchs.begin(), gpuArchs.end()},
            gpuMath,
            gpuMultiprocessors,
            precision};
  }
};

/// The architectures with matrix cores (MFMA: CDNA), those of them with
/// the bf16 MFMA that reads 4 bf16 per lane (gfx90a on) and those with
/// xf32 (gfx940-942; gfx950 dropped it). RDNA's WMMA is not used.
bool hasMfma(StringRef arch) {
  return llvm::is_contained(
      {"gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950"}, arch);
}
bool hasBf16Mfma(StringRef arch) { return hasMfma(arch) && arch != "gfx908"; }
bool hasXf32Mfma(StringRef arch) {
  return llvm::is_contained({"gfx940", "gfx941", "gfx942"}, arch);
}

/// The kernels are shared by every architecture of the bundle, so MFMA is
/// used only when every one has it: "mfma", with "+bf16" and "+xf32" where
/// every one has those (hodu-gpu-tile's tensor-cores option).
std::string matrixCores(ArrayRef<std::string> archs, StringRef gpuMath) {
  auto all = [&](bool (*has)(StringRef)) {
    return llvm::all_of(archs, [&](const std::string &a) { return has(a); });
  };
  if (gpuMath == "fma" || archs.empty() || !all(hasMfma))
    return "";
  std::string cores = "mfma";
  if (all(hasBf16Mfma))
    cores += "+bf16";
  if (gpuMath == "tf32" && all(hasXf32Mfma))
    cores += "+xf32";
  return cores;
}

class ROCmTarget final : public hodu::gpu::GPUTargetBackend {
public:
  std::string name() const override { return "rocm"; }
  std::string description() const override {
    return "AMD GPUs through ROCDL and HSA code objects (libhodurt runs its "
           "bundles through HIP)";
  }
  std::vector<ToolRequirement> tools() const override {
    return {{{"ld.lld-22", "ld.lld"}, "hsaco, bundle", "apt-get install lld-22"}};
  }

protected:
  std::string displayName() const override { return "ROCm"; }
  std::vector<std::string> architectures() const override {
    std::vector<std::string> names;
    for (const Arch &arch : kArchs)
      names.push_back(arch.name.str());
    return names;
  }
  std::string defaultArchitecture() const override {
    return kDefaultArch.str();
  }

  std::vector<ArtifactKind> kernelArtifactKinds() const override {
    return {{"hsaco", {}, ".hsaco", "", false,
             "HSA code object (one --gpu-arch), for hipModuleLoad"}};
  }

  /// AMD GPUs load 16-byte vectors and give a workgroup 64 KiB of LDS;
  /// CDNA's contractions run on its matrix cores; a contraction's blocks
  /// should fill the compute units (an MI300X's 304 by default).
  hodu::gpu::KernelOptions
  kernelOptions(const hodu::gpu::GPUPipelineConfig &c) const override {
    hodu::gpu::KernelOptions options = {/*vectorMemory=*/true,
                                        /*workgroupMemory=*/65536,
                                        /*maxThreads=*/256};
    options.tensorCores = matrixCores(c.archs, c.gpuMath);
    options.minBlocks = hodu::gpu::fillBlocks(c, kDefaultArch, [](StringRef a) {
      for (const Arch &arch : kArchs)
        if (arch.name == a)
          return arch.multiprocessors;
      return int64_t(0);
    });
    return options;
  }

  std::string kernelPhase() const override { return "rocdl"; }

  /// One #rocdl.target per architecture, code object version 5 (which ROCm
  /// 5 and 6 runtimes load; LLVM 22's default, 6, needs ROCm 6.3), the
  /// kernels lowered with bare-pointer arguments (one pointer per buffer, as
  /// the launch plan passes them), then serialised.
  std::string
  kernelPhasePipeline(const hodu::gpu::GPUPipelineConfig &c) const override {
    std::string p;
    for (const std::string &arch : c.archs)
      p += "rocdl-attach-target{chip=" + arch + " abi=500 O=" +
           std::to_string(std::min(c.optLevel, 3u)) + "},";
    // The maths LLVM's AMDGPU back end has no instruction for (tanh, sinh,
    // atan, ...) become OCML calls first; convert-gpu-to-rocdl would leave
    // them as LLVM intrinsics the back end cannot select. (A module pass:
    // the host function holds no maths by now.)
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

  LogicalResult writeArtifact(ModuleOp module, const SerializeRequest &request,
                              const TargetOptions &options) const override {
    Location loc = module.getLoc();
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
};
} // namespace

void hodu::registerROCmTarget() {
  static bool done = [] {
    rocm::registerROCmPasses();
    hodu::gpu::registerGPUTarget<ROCmPipelineOptions>(
        std::make_unique<ROCmTarget>());
    return true;
  }();
  (void)done;
}
