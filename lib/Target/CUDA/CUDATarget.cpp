//===- CUDATarget.cpp - the CUDA back end ---------------------------------===//
//
// linalg (+ elementwise fusion) -> gpu (the shared GPU kernels of
// lib/Target/GPU: tiled, bufferised, mapped to blocks and threads, outlined
// into one gpu.module) -> nvvm (the kernels in the NVVM and LLVM dialects,
// serialised to PTX for every --gpu-arch by gpu-module-to-binary's
// serialiser) -> the
// artifact: PTX text, a cubin (ptxas) or a fatbin of several (fatbinary).
//
// What the GPU targets share (the gpu phase, validation, the named
// pipelines hodu-cuda-linalg, hodu-cuda-gpu and hodu-cuda-nvvm, so that
// `hoduc --device=cuda --compile-to=P | hodu-opt --hodu-cuda-NEXT` replays
// each step) is hodu::gpu::GPUTargetBackend's; this file holds the
// architectures, the nvvm phase, the toolkit and the serialisation.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CUDA/CUDATarget.h"
#include "hodu/Target/CUDA/Passes.h"

#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Support/Output.h"
#include "hodu/Target/GPU/Bundle.h"
#include "hodu/Target/GPU/GPUTarget.h"
#include "hodu/bundle.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <list>

using namespace mlir;
using namespace hodu;

//===----------------------------------------------------------------------===//
// Architectures and tools
//===----------------------------------------------------------------------===//

/// Benchmarks compare sm_90a's wgmma kernels with its mma.sync ones.
static llvm::cl::opt<bool> noWgmma(
    "hodu-gpu-no-wgmma", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("CUDA: sm_90a contractions on mma.sync instead of wgmma "
                   "(for benchmarks)"));

namespace {
/// The architectures ptxas 13 and LLVM 22's NVPTX back end both take, with
/// the PTX version to emit for them (LLVM's default for a chip can be older
/// than ptxas accepts; gpu-lower-to-nvvm-pipeline's +ptx60 aborts on sm_80)
/// and the streaming multiprocessors of the architecture's largest
/// data-centre part, which the contractions' blocks are made to fill
/// (--gpu-multiprocessors names another GPU's): T4, A100, A40, Jetson AGX Orin,
/// L40S, H100 SXM, B200, RTX PRO 6000 Blackwell.
struct Arch {
  llvm::StringLiteral name, ptxFeatures;
  int64_t multiprocessors;
};
constexpr Arch kArchs[] = {
    {"sm_75", "+ptx80", 40},    {"sm_80", "+ptx80", 108},
    {"sm_86", "+ptx80", 84},    {"sm_87", "+ptx80", 16},
    {"sm_89", "+ptx80", 142},   {"sm_90", "+ptx80", 132},
    {"sm_90a", "+ptx80", 132},  {"sm_100", "+ptx86", 148},
    {"sm_100a", "+ptx86", 148}, {"sm_120", "+ptx87", 188},
    {"sm_120a", "+ptx87", 188},
};
constexpr llvm::StringLiteral kDefaultArch = "sm_80";

const Arch *findArch(StringRef name) {
  for (const Arch &arch : kArchs)
    if (arch.name == name)
      return &arch;
  return nullptr;
}

/// Where the CUDA toolkit's programs are looked for after PATH: the bin
/// directory of $CUDA_HOME, $CUDA_PATH or $CUDA_ROOT when one is set (the
/// toolkit the user chose), else /usr/local/cuda/bin.
std::vector<std::string> toolkitBinDirs() {
  std::vector<std::string> dirs;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (std::optional<std::string> root = llvm::sys::Process::GetEnv(var))
      if (!root->empty())
        dirs.push_back(*root + "/bin");
  if (dirs.empty())
    dirs.push_back("/usr/local/cuda/bin");
  return dirs;
}

/// The toolkit's root (where nvvm/libdevice is): the parent of the first
/// of toolkitBinDirs().
std::string toolkitRoot() {
  return llvm::sys::path::parent_path(toolkitBinDirs().front()).str();
}

constexpr llvm::StringLiteral kToolkit =
    "the CUDA toolkit: /usr/local/cuda/bin, or set CUDA_HOME";

/// `name` on PATH, then the toolkit's programs that exist (findTool takes a
/// name with a slash as found).
ToolRequirement toolkitTool(StringRef name, StringRef neededFor) {
  ToolRequirement tool{{name.str()}, neededFor.str(), kToolkit.str()};
  for (const std::string &dir : toolkitBinDirs()) {
    std::string path = dir + "/" + name.str();
    if (llvm::sys::fs::can_execute(path))
      tool.candidates.push_back(path);
  }
  return tool;
}

FailureOr<std::string> locate(const ToolRequirement &tool, StringRef kind,
                              Location loc) {
  SmallVector<StringRef> names(tool.candidates.begin(), tool.candidates.end());
  if (std::optional<std::string> path = findTool(names))
    return *path;
  return emitError(loc, "--emit=")
         << kind << " needs '" << tool.candidates.front()
         << "', found neither on PATH nor in "
         << llvm::join(toolkitBinDirs(), ", ") << " (" << tool.provider << ")";
}

//===----------------------------------------------------------------------===//
// Phase pipelines
//===----------------------------------------------------------------------===//

/// Options of the CUDA target's named pipelines; hoduc fills them from its
/// command line.
struct CUDAPipelineOptions : public hodu::gpu::GPUPipelineOptions {
  ListOption<std::string> gpuArchs{
      *this, "gpu-arch",
      llvm::cl::desc("Architectures to compile for (default sm_80)")};
  Option<std::string> gpuMath{
      *this, "gpu-math",
      llvm::cl::desc("Contractions on tensor cores, f32 ones as 3xtf32 "
                     "(default) or tf32; fma: none"),
      llvm::cl::init("3xtf32")};
  Option<int64_t> gpuMultiprocessors{
      *this, "gpu-multiprocessors",
      llvm::cl::desc("SMs the contractions' blocks should fill (0: the "
                     "architectures' largest data-centre parts)"),
      llvm::cl::init(0)};
  hodu::gpu::GPUPipelineConfig config() const override {
    return {optLevel,
            {gpuArchs.begin(), gpuArchs.end()},
            gpuMath,
            gpuMultiprocessors,
            precision};
  }
};

/// The kernels are shared by every architecture of the bundle, so tensor
/// cores (mma.sync m16n8k16/m16n8k8 and cp.async: sm_80) are used only
/// when every one has them.
bool allHaveTensorCores(ArrayRef<std::string> archs) {
  return llvm::all_of(archs, [](const std::string &arch) {
    unsigned major = 0;
    return StringRef(arch).starts_with("sm_") &&
           !StringRef(arch).drop_front(3).take_while(llvm::isDigit)
                .getAsInteger(10, major) &&
           major >= 80;
  });
}

//===----------------------------------------------------------------------===//
// The back end
//===----------------------------------------------------------------------===//

class CUDATarget final : public hodu::gpu::GPUTargetBackend {
public:
  std::string name() const override { return "cuda"; }
  std::string description() const override {
    return "NVIDIA GPUs through NVVM and PTX (libhodurt runs its bundles "
           "through the CUDA driver)";
  }
  std::vector<ToolRequirement> tools() const override {
    return {toolkitTool("ptxas", "cubin, fatbin, bundle"),
            toolkitTool("fatbinary", "fatbin")};
  }

protected:
  std::string displayName() const override { return "CUDA"; }
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
    return {
        {"ptx", {}, ".ptx", "", true, "PTX assembly (one --gpu-arch)"},
        {"cubin", {}, ".cubin", "", false,
         "CUDA binary from ptxas (one --gpu-arch)"},
        {"fatbin", {}, ".fatbin", "", false,
         "fat binary from fatbinary: a cubin per --gpu-arch and the PTX of "
         "the newest"},
    };
  }

  /// NVIDIA GPUs load 16-byte vectors and have 48 KiB of static shared
  /// memory per block. A contraction's blocks should fill the SMs
  /// (--gpu-multiprocessors, else the most of the architectures' table):
  /// 64, Vulkan's figure, left half of an H100 idle on a 1024^3 matmul (64
  /// blocks of 128x128).
  hodu::gpu::KernelOptions
  kernelOptions(const hodu::gpu::GPUPipelineConfig &c) const override {
    hodu::gpu::KernelOptions options = {/*vectorMemory=*/true,
                                        /*workgroupMemory=*/49152,
                                        /*maxThreads=*/256};
    options.minBlocks = hodu::gpu::fillBlocks(c, kDefaultArch, [](StringRef a) {
      const Arch *arch = findArch(a);
      return arch ? arch->multiprocessors : int64_t(0);
    });
    if (allHaveTensorCores(c.archs) && c.gpuMath != "fma") {
      options.tensorCores = c.gpuMath;
      // wgmma is sm_90a's alone (sm_100 has tcgen05 instead): one PTX per
      // architecture shares the kernels, so every one must be sm_90a.
      if (!noWgmma && llvm::all_of(c.archs, [](const std::string &a) {
            return a == "sm_90a";
          }))
        options.tensorCores += "+wgmma";
    }
    return options;
  }

  std::string kernelPhase() const override { return "nvvm"; }
  std::string
  kernelPhasePipeline(const hodu::gpu::GPUPipelineConfig &c) const override;

  LogicalResult writeArtifact(ModuleOp module, const SerializeRequest &request,
                              const TargetOptions &options) const override;
};

/// The kernel module to NVVM and PTX: one #nvvm.target per architecture,
/// so gpu-module-to-binary makes one PTX object each. Kernels take bare
/// pointers (the shapes are static), which keeps the launch ABI one pointer
/// per buffer. PTX is all the phase makes: ptxas runs at serialisation,
/// where hoduc finds it and reports it missing.
std::string
CUDATarget::kernelPhasePipeline(const hodu::gpu::GPUPipelineConfig &c) const {
  std::string p;
  for (const std::string &name : c.archs) {
    const Arch *arch = findArch(name);
    p += "nvvm-attach-target{chip=" + name +
         " features=" + (arch ? arch->ptxFeatures : "+ptx80").str() +
         " O=" + std::to_string(std::min(c.optLevel, 3u)) + "},";
  }
  // The tensor-core kernels' nvgpu ops (ldmatrix, mma.sync, cp.async) go
  // to NVVM first, with the vectors of their fragments; convert-nvvm-to-llvm
  // lowers what NVVM ops have no LLVM intrinsic for (inline PTX).
  return p +
         "gpu.module(convert-nvgpu-to-nvvm,"
         "convert-scf-to-cf{allow-pattern-rollback=false},"
         "expand-strided-metadata,lower-affine,"
         "arith-expand,"
         "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1},"
         "convert-nvvm-to-llvm,canonicalize,"
         "cse,reconcile-unrealized-casts),"
         "hodu-cuda-kernels-to-ptx{toolkit=" +
         toolkitRoot() + "}";
}
} // namespace

//===----------------------------------------------------------------------===//
// Serialisation
//===----------------------------------------------------------------------===//

namespace {
/// The PTX of one architecture, as gpu-module-to-binary left it.
struct PTXObject {
  std::string arch;
  StringRef ptx;
};

/// A temporary file holding `contents`, removed at the end of scope.
struct TempFile {
  SmallString<128> path;
  std::optional<llvm::FileRemover> remover;

  LogicalResult create(StringRef stem, StringRef suffix, StringRef contents,
                       Location loc) {
    if (llvm::sys::fs::createTemporaryFile(stem, suffix, path))
      return emitError(loc, "cannot create a temporary file");
    remover.emplace(path);
    if (contents.empty())
      return success();
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << contents;
    os.close();
    if (ec || os.has_error())
      return emitError(loc, "cannot write a temporary file");
    return success();
  }
};

/// ptxas: PTX for `arch` -> a cubin at `out`.
LogicalResult runPtxas(StringRef ptxas, const PTXObject &obj, StringRef out,
                       unsigned optLevel, Location loc) {
  TempFile ptx;
  if (failed(ptx.create("hoduc-" + obj.arch, "ptx", obj.ptx, loc)))
    return failure();
  return runTool(ptxas,
                 {ptxas.str(), "-arch=" + obj.arch,
                  "-O" + std::to_string(std::min(optLevel, 3u)),
                  ptx.path.str().str(), "-o", out.str()},
                 loc);
}
} // namespace

/// A bundle: a cubin per architecture (ptxas) and the PTX of the newest,
/// which the driver JIT-compiles on GPUs newer than every cubin.
static LogicalResult writeCUDABundle(ModuleOp module,
                                     const SerializeRequest &request,
                                     ArrayRef<PTXObject> objects,
                                     const ToolRequirement &ptxasTool,
                                     unsigned optLevel) {
  Location loc = module.getLoc();
  std::vector<hodu::gpu::CodeObject> code;
  if (!objects.empty()) {
    FailureOr<std::string> ptxas = locate(ptxasTool, "bundle", loc);
    if (failed(ptxas))
      return failure();
    for (const PTXObject &obj : objects) {
      TempFile cubin;
      if (failed(cubin.create("hoduc-" + obj.arch, "cubin", "", loc)) ||
          failed(runPtxas(*ptxas, obj, cubin.path, optLevel, loc)))
        return failure();
      auto bytes = llvm::MemoryBuffer::getFile(cubin.path);
      if (!bytes)
        return emitError(loc, "cannot read the cubin ptxas wrote");
      code.push_back({HODU_CODE_CUBIN, obj.arch, (*bytes)->getBuffer().str()});
    }
    const PTXObject &newest = objects.back();
    code.push_back({HODU_CODE_PTX, newest.arch, newest.ptx.str() + '\0'});
  }
  return hodu::gpu::writeBundle(module, request, HODU_DEVICE_CUDA, code);
}

LogicalResult CUDATarget::writeArtifact(ModuleOp module,
                                        const SerializeRequest &request,
                                        const TargetOptions &options) const {
  Location loc = module.getLoc();
  SmallVector<PTXObject> objects;
  for (auto binary : module.getOps<mlir::gpu::BinaryOp>())
    for (Attribute a : binary.getObjects()) {
      auto object = cast<mlir::gpu::ObjectAttr>(a);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      if (!target || object.getFormat() != mlir::gpu::CompilationTarget::Assembly)
        return emitError(loc, "internal error: expected PTX objects from the "
                              "nvvm phase");
      objects.push_back({target.getChip().str(), object.getObject()});
    }
  StringRef kind = request.kind->name;
  if (kind == "bundle")
    return writeCUDABundle(module, request, objects, tools()[0],
                           options.optLevel);
  if (objects.empty())
    return emitError(loc, "the model has no kernels to compile for 'cuda'");

  if (kind != "fatbin" && objects.size() != 1)
    return emitError(loc, "--emit=")
           << kind << " holds one architecture, not " << objects.size()
           << " (give one --gpu-arch, or use --emit=fatbin)";
  if (kind == "ptx")
    return writeText(request.outputPath, objects.front().ptx, loc);
  if (request.outputPath == "-")
    return emitError(loc, "refusing to write a binary artifact (")
           << kind << ") to stdout";

  FailureOr<std::string> ptxas = locate(tools()[0], kind, loc);
  if (failed(ptxas))
    return failure();
  OutputFile out(request.outputPath);
  if (failed(out.open(loc)))
    return failure();
  if (kind == "cubin")
    return success(succeeded(runPtxas(*ptxas, objects.front(), out.path(),
                                      options.optLevel, loc)) &&
                   succeeded(out.commit(loc)));

  // fatbin: a cubin per architecture, and the PTX of the newest so that
  // newer GPUs can JIT it.
  FailureOr<std::string> fatbinary = locate(tools()[1], kind, loc);
  if (failed(fatbinary))
    return failure();
  std::vector<std::string> argv = {*fatbinary, "-64",
                                   "--create=" + out.path()};
  std::list<TempFile> cubins(objects.size());
  for (auto [obj, cubin] : llvm::zip(objects, cubins)) {
    if (failed(cubin.create("hoduc-" + obj.arch, "cubin", "", loc)) ||
        failed(runPtxas(*ptxas, obj, cubin.path, options.optLevel, loc)))
      return failure();
    argv.push_back("--image3=kind=elf,sm=" +
                   StringRef(obj.arch).drop_front(3).str() +
                   ",file=" + cubin.path.str().str());
  }
  const PTXObject &newest = objects.back();
  TempFile ptx;
  if (failed(ptx.create("hoduc-" + newest.arch, "ptx", newest.ptx, loc)))
    return failure();
  argv.push_back("--image3=kind=ptx,sm=" +
                 StringRef(newest.arch).drop_front(3).str() +
                 ",file=" + ptx.path.str().str());
  return success(succeeded(runTool(*fatbinary, argv, loc)) &&
                 succeeded(out.commit(loc)));
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void hodu::registerCUDATarget() {
  static bool done = [] {
    cuda::registerCUDAPasses();
    hodu::gpu::registerGPUTarget<CUDAPipelineOptions>(
        std::make_unique<CUDATarget>());
    return true;
  }();
  (void)done;
}
