//===- CPUTarget.cpp - the CPU back end -----------------------------------===//
//
// linalg (+ CPU tiling, packing and vectorisation) -> bufferized -> llvm
// (MLIR's LLVM dialect, with the artifact's entry point) -> LLVM IR ->
// optimised LLVM IR -> object code -> linked artifact.
//
// Every phase pipeline is built here and registered as a named pipeline
// (hodu-cpu-linalg, hodu-cpu-bufferized, hodu-cpu-llvm), so
// `hoduc --compile-to=P | hodu-opt --hodu-cpu-NEXT` replays each step.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/CPUTarget.h"
#include "hodu/Target/CPU/Passes.h"

#include "CPUTarget.h"

#include "hodu/Registry/Registry.h"
#include "hodu/Support/Output.h"
#include "hodu/Support/Timer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"


using namespace mlir;
using namespace hodu;
using namespace hodu::cpu;

//===----------------------------------------------------------------------===//
// Phase pipelines
//===----------------------------------------------------------------------===//

namespace {
/// Options of the CPU's named pipelines; hoduc fills them from its command
/// line, `hodu-opt --hodu-cpu-llvm='opt-level=1 ...'` from the user's.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("Optimisation level 0-3"),
                            llvm::cl::init(2)};
  Option<unsigned> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Widest vector register of the target, in bits"),
      llvm::cl::init(512)};
  Option<unsigned> vectorRegisters{
      *this, "vector-registers",
      llvm::cl::desc("Number of vector registers of the target"),
      llvm::cl::init(32)};
  Option<bool> int8Dot{
      *this, "int8-dot",
      llvm::cl::desc("The target has AVX-512 VNNI and BW: 8-bit integer "
                     "convolutions on int8 dot products"),
      llvm::cl::init(false)};
  Option<bool> int16Dot{
      *this, "int16-dot",
      llvm::cl::desc("The target has AVX2 (AVX-512BW at 512 bits) and no "
                     "VNNI: 8-bit integer convolutions on int16 pair "
                     "products"),
      llvm::cl::init(false)};
  Option<bool> amx{
      *this, "amx",
      llvm::cl::desc("The target has AMX-INT8 and runs Linux: int8 matmuls "
                     "and convolutions on tiles where the OS grants them, "
                     "VNNI otherwise"),
      llvm::cl::init(false)};
  Option<bool> bf16Dot{
      *this, "bf16-dot",
      llvm::cl::desc("The target has AVX512-BF16 and the model asks for "
                     "bf16 (hoduc --precision=bf16): f32 matmuls and "
                     "batch matmuls on bf16 dot products"),
      llvm::cl::init(false)};
  Option<std::string> winograd{
      *this, "winograd",
      llvm::cl::desc("Winograd 3x3 convolutions: auto, f2 or off"),
      llvm::cl::init("auto")};
  Option<bool> exportAlias{
      *this, "export-alias",
      llvm::cl::desc("Export the descriptor as hodu_model_descriptor too "
                     "(shared libraries and executables)"),
      llvm::cl::init(true)};
  Option<bool> library{
      *this, "library",
      llvm::cl::desc("The CPU partitions of a heterogeneous bundle: export "
                     "each for HOST_CALL instead of an entry point"),
      llvm::cl::init(false)};
};

/// Tests of the VNNI branch of AMX matmuls on a host that grants AMX.
llvm::cl::opt<bool> amxFallback(
    "hodu-amx-fallback", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("CPU: the artifact's AMX check answers no without asking "
                   "the OS, so that its int8 matmuls and convolutions take "
                   "their VNNI "
                   "kernels (for tests)"));

/// Tests and benchmarks compare the padded tensors written in place with
/// the pads that bufferization copies.
llvm::cl::opt<bool> noPadInPlace(
    "hodu-no-pad-in-place", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("CPU: leave tensor.pad to bufferization (a filled copy) "
                   "instead of hodu-cpu-pad-in-place (for tests)"));

/// Benchmarks compare the copies spread over threads with serial ones.
llvm::cl::opt<bool> noParallelCopies(
    "hodu-no-parallel-copies", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("CPU: leave the copies of the function body on the "
                   "calling thread (for benchmarks and tests)"));

/// Tests and benchmarks compare attention fused into one tiled loop with
/// the op-by-op lowering.
llvm::cl::opt<bool> noFuseAttention(
    "hodu-no-fuse-attention", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("CPU: lower attention op by op instead of "
                   "hodu-cpu-fuse-attention's tiled loop (for tests)"));

/// What the phase builders need; the named pipelines' options and hoduc's
/// request both become this.
struct CPUPipelineConfig {
  unsigned optLevel = 2;
  unsigned vectorBits = 512;
  unsigned vectorRegisters = 32;
  bool int8Dot = false;
  bool int16Dot = false;
  bool amx = false;
  std::string winograd = "auto";
  bool exportAlias = true;
  bool library = false;
  bool bf16Dot = false;
};

CPUPipelineConfig configOf(const CPUPipelineOptions &o) {
  return {o.optLevel, o.vectorBits, o.vectorRegisters,     o.int8Dot,
          o.int16Dot, o.amx,        o.winograd.getValue(), o.exportAlias,
          o.library,  o.bf16Dot};
}


/// What the CPU adds to the shared linalg phase: matmuls and convolutions
/// tiled, packed and vectorised before elementwise fusion (whose reshape
/// propagation would otherwise turn the named matmuls into generics the
/// vectoriser does not take), then fused kernels spread over threads and
/// the remaining elementwise/reduction kernels vectorised.
std::string linalgExtension(const CPUPipelineConfig &o) {
  std::string shape = "{vector-bits=" + std::to_string(o.vectorBits) +
                      " vector-registers=" +
                      std::to_string(o.vectorRegisters) + "}";
  std::string p;
  if (o.optLevel >= 1)
    p += "hodu-cpu-flush-denormals,";
  // Attention's chain fused into its second product's tiles, before the
  // products are tiled for registers (which then take the tiles' products).
  if (o.optLevel >= 2 && !noFuseAttention)
    p += "func.func(hodu-cpu-fuse-attention),";
  if (o.optLevel >= 2)
    p += "hodu-cpu-vectorize{vector-bits=" + std::to_string(o.vectorBits) +
         " vector-registers=" + std::to_string(o.vectorRegisters) +
         " winograd=" + o.winograd + (o.int8Dot ? " int8-dot=1" : "") +
         (!o.int8Dot && o.int16Dot ? " int16-dot=1" : "") +
         (o.int8Dot && o.amx ? " amx=1" : "") +
         (o.bf16Dot ? " bf16-dot=1" : "") + "},canonicalize,";
  if (o.optLevel >= 1)
    p += "func.func(linalg-fuse-elementwise-ops),canonicalize,cse,";
  if (o.optLevel >= 2)
    p += "hodu-cpu-parallelize,canonicalize,hodu-cpu-vectorize-generics" +
         shape + ",canonicalize,cse,";
  return p;
}

/// Tensors become buffers: results become out-parameters, intermediates
/// share one arena per call reused by liveness, which becomes the run's
/// workspace; parallel tile loops run on OpenMP threads.
std::string bufferizedPipeline(const CPUPipelineConfig &o) {
  return std::string(
             "func.func(" +
             std::string(o.optLevel >= 1 && !noPadInPlace
                             ? "hodu-cpu-pad-in-place,"
                             : "") +
             "hodu-split-empty-tensors),"
             "eliminate-empty-tensors,one-shot-bufferize{bufferize-function-"
             "boundaries function-boundary-type-conversion=identity-layout-map "
             // A run-time loop (hodu.loop's scf.while) may carry a new
             // buffer per iteration; buffer deallocation frees the old one.
             "allow-return-allocs-from-loops},"
             "func.func(hodu-cpu-hoist-parallel-allocs,hodu-distinct-results),"
             "buffer-results-to-out-params{hoist-static-allocs "
             "modify-public-functions},") +
         // The arena before deallocation, which then frees one buffer
         // instead of every intermediate (its simplification compares the
         // buffers freed at one point pair by pair).
         (o.optLevel >= 1 ? "canonicalize,func.func(hodu-plan-memory{before-"
                            "deallocation=1}),"
                          : "") +
         // The deallocation pipeline canonicalizes first and last.
         "buffer-deallocation-pipeline,"
         "convert-bufferization-to-memref,"
         "hodu-cpu-inline-dealloc-helpers," +
         // After the memory plan, which sees the marked generics' operands
         // as used there (the tile loops use them through addresses).
         (o.optLevel >= 2 && o.amx ? std::string("hodu-cpu-amx-tiles") +
                                         (amxFallback ? "{ask-os=false}," : ",")
                                   : std::string()) +
         // Strided memref.copy -> linalg.copy first: the copies that
         // hodu-cpu-parallel-copies spreads over threads are all linalg.copy.
         "hodu-cpu-expand-strided-copies," +
         (o.optLevel >= 2 && !noParallelCopies
              ? "func.func(hodu-cpu-parallel-copies),"
              : "") +
         "scf-forall-to-parallel,convert-scf-to-openmp,hodu-cpu-omp-nowait,"
         "hodu-arena-to-workspace,hodu-lower-asserts" +
         (o.optLevel >= 2 ? ",func.func(hodu-cpu-prefetch-panels,"
                            "hodu-cpu-kernel-loop-hints{vector-bits=" +
                                std::to_string(o.vectorBits) + "})"
                          : std::string());
}

/// Buffers and loops to the LLVM dialect, ending with the entry point.
/// Every pass that works inside one function is nested on the functions
/// (func.func, then llvm.func), so the kernels that hodu-cpu-outline-kernels
/// made convert in parallel; the passes that add declarations to the module
/// (libm, malloc, OpenMP) or convert the functions themselves run on the
/// module. expand-strided-metadata creates affine.apply ops: before
/// lower-affine. Memrefs go to LLVM before scf-to-cf: the
/// memref.alloca_scope that convert-scf-to-openmp puts in each parallel
/// body must still hold a single block when it is lowered. The bare-pointer
/// function conversion must come before the OpenMP conversion, which would
/// otherwise convert @main with memref descriptors. Stride-2 vector reads
/// (pooling windows) become contiguous loads plus a deinterleave at -O2,
/// before transfers are unrolled into scalars. scf-to-cf runs without
/// pattern rollback: with it, the conversion's bookkeeping grows with the
/// ops of the function each loop is split out of (6 of the 18 s of silero
/// VAD's compile). hodu-cpu-vector-to-llvm is upstream's
/// convert-vector-to-llvm made to run per function (Passes.td). Conversions
/// between f32 and bf16 become integer arithmetic (arith-expand's bf16
/// patterns, rounding to nearest even): a CPU without AVX512-BF16 would call
/// compiler-rt's __truncsfbf2 instead, which the artifact does not link.
std::string llvmPipeline(const CPUPipelineConfig &o) {
  return std::string("hodu-cpu-outline-kernels,hodu-cpu-flatten-globals,hodu-"
                     "cpu-empty-arguments,"
                     "func.func(convert-linalg-to-loops,") +
         (o.optLevel >= 2 ? "hodu-cpu-strided-reads," : "") +
         "convert-vector-to-scf{full-unroll},expand-strided-metadata,"
         "lower-affine,convert-math-to-llvm,arith-expand{include-bf16}),"
         "convert-math-to-libm,finalize-memref-to-llvm,"
         "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
         "llvm.func(convert-scf-to-cf{allow-pattern-rollback=false},"
         "hodu-cpu-vector-to-llvm{reassociate-fp-reductions},"
         "convert-ub-to-llvm),"
         "convert-openmp-to-llvm,"
         "llvm.func(convert-arith-to-llvm,convert-index-to-llvm),"
         "convert-cf-to-llvm,reconcile-unrealized-casts," +
         (o.library ? std::string("hodu-lower-host-calls")
                    : "hodu-lower-entry-point{target=cpu export-alias=" +
                          std::string(o.exportAlias ? "true" : "false") + "}");
}

LogicalResult buildCPUPhase(StringRef phase, OpPassManager &pm,
                            const CPUPipelineConfig &o) {
  if (phase == "linalg")
    return addPassPipeline(pm, StringRef(linalgExtension(o)).rtrim(','));
  if (phase == "bufferized")
    return addPassPipeline(pm, bufferizedPipeline(o));
  if (phase == "llvm")
    return addPassPipeline(pm, llvmPipeline(o));
  llvm::errs() << "hoduc: internal error: the CPU target has no phase '"
               << phase << "'\n";
  return failure();
}

//===----------------------------------------------------------------------===//
// The back end
//===----------------------------------------------------------------------===//

class CPUTarget final : public TargetBackend {
public:
  std::string name() const override { return "cpu"; }
  std::string description() const override {
    return "host or cross-compiled CPU code through LLVM (x86-64, AArch64, "
           "any triple LLVM 22 knows)";
  }
  std::vector<ArtifactKind> artifactKinds() const override {
    return {
        {"so", {"shared"}, ".so", "lib", false, "shared library"},
        {"o", {"obj"}, ".o", "", false, "object file"},
        {"a", {"static"}, ".a", "lib", false, "static archive"},
        {"exe", {"executable"}, "", "", false,
         "executable reading and writing .npy files"},
        {"ll", {"llvm"}, ".ll", "", true, "LLVM IR"},
        {"bc", {"bitcode"}, ".bc", "", false, "LLVM bitcode"},
        {"s", {"asm"}, ".s", "", true, "assembly"},
    };
  }
  std::string defaultArtifactKind() const override { return "so"; }
  std::vector<ToolRequirement> tools() const override {
    return {{{"ld.lld-22", "ld.lld"}, "so", "apt-get install lld-22"},
            {{"cc", "clang-22", "clang", "gcc"}, "exe",
             "apt-get install clang-22"}};
  }

  LogicalResult validate(const TargetOptions &options,
                         Location loc) const override {
    if (!options.gpuArchs.empty())
      return emitError(loc, "--gpu-arch applies to GPU targets, not 'cpu' "
                            "(use --target=TRIPLE and -mcpu=CPU)");
    std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(options, loc);
    if (!tm)
      return failure();
    if (options.precision == "f16")
      return emitError(loc, "--precision=f16 is for GPU targets; the 'cpu' "
                            "target computes f32 models in f32 or, with "
                            "--precision=bf16, on bf16 dot products");
    // --precision=bf16 where the CPU has no bf16 dot products: the model
    // computes in f32 (more accurate, no faster), and says so.
    if (options.precision == "bf16" && !vectorShapeOf(*tm).bf16Dot)
      emitWarning(loc, "--precision=bf16: the target CPU '")
          << tm->getTargetCPU()
          << "' has no AVX512-BF16 dot products (vdpbf16ps); its matmuls "
             "compute in f32";
    return success();
  }

  std::vector<std::string> phases() const override {
    return {"bufferized", "llvm"};
  }

  LogicalResult extendSharedPhase(StringRef phase, OpPassManager &pm,
                                  const PipelineRequest &request) const override {
    if (phase != "linalg")
      return success();
    return buildCPUPhase(phase, pm, configOf(request));
  }
  LogicalResult buildPhase(StringRef phase, OpPassManager &pm,
                           const PipelineRequest &request) const override {
    return buildCPUPhase(phase, pm, configOf(request));
  }

  /// The CPU lowers every hodu op that convert-hodu-to-linalg lowers; the
  /// ones it does not are reported by hodu-check-lowered.
  bool partitions() const override { return false; }

  /// hodu-cpu-vectorize's choice for each convolution (Vectorize.cpp) and
  /// the subnormal weights hodu-cpu-flush-denormals set to zero.
  std::vector<StatsRemark> statsRemarks() const override {
    return {{"hodu-cpu-vectorize", "conv-strategy", "conv"},
            {"hodu-cpu-flush-denormals", "denormals", ""}};
  }

  /// Every hodu op, every dtype: the CPU is where the others fall back to.
  std::vector<OpSupport> opSupport() const override {
    return opSupportForAll();
  }

  LogicalResult serialize(ModuleOp module, const SerializeRequest &request,
                          const TargetOptions &options) const override;

private:
  /// The pipeline options for a request: the register-tile inputs come from
  /// the target machine's vector shape.
  static CPUPipelineConfig configOf(const PipelineRequest &request) {
    CPUPipelineConfig o;
    o.optLevel = request.target.optLevel;
    o.exportAlias =
        request.artifactKind == "so" || request.artifactKind == "exe";
    o.library = request.library;
    o.winograd = request.target.winograd;
    VectorShape shape;
    std::string error;
    if (auto tm = createTargetMachine(request.target, error))
      shape = vectorShapeOf(*tm);
    o.vectorBits = shape.vectorBits;
    o.vectorRegisters = shape.vectorRegisters;
    o.int8Dot = shape.int8Dot;
    o.int16Dot = shape.int16Dot;
    o.amx = shape.amx;
    o.bf16Dot = request.target.precision == "bf16" && shape.bf16Dot;
    return o;
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Serialisation
//===----------------------------------------------------------------------===//

LogicalResult CPUTarget::serialize(ModuleOp module,
                                   const SerializeRequest &request,
                                   const TargetOptions &options) const {
  Location loc = module.getLoc();
  StatsTimer timer{request.stats};

  // MLIR's LLVM dialect -> LLVM IR.
  llvm::LLVMContext llvmContext;
  auto llvmModule = translateModuleToLLVMIR(module, llvmContext, request.prefix);
  if (!llvmModule)
    return emitError(loc, "translation to LLVM IR failed");
  auto tm = createTargetMachine(options, loc);
  if (!tm)
    return failure();
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(tm->getTargetTriple());
  if (!request.headerPath.empty() &&
      failed(writeHeader(request.signature, request.prefix, request.sourcePath,
                         request.headerPath, loc)))
    return failure();
  if (llvm::verifyModule(*llvmModule, &llvm::errs()))
    return emitError(loc, "internal error: invalid LLVM IR");
  timer.lap("translate");
  StringRef kind = request.kind->name;
  const std::string &outPath = request.outputPath;

  if (outPath == "-" && kind != "ll" && kind != "s")
    return emitError(loc, "refusing to write a binary artifact (")
           << kind << ") to stdout";

  // so, exe: objects for the link step, compiled in parts on threads.
  if (kind == "so" || kind == "exe") {
    bool host = options.triple.empty();
    if (kind == "exe" && !host)
      return emitError(loc, "executables can only be linked for the host; use "
                            "--emit=o or --emit=a with --target");
    bool openmp = llvmModule->getFunction("__kmpc_fork_call") != nullptr;
    // A shared library calls libhodurt's thread teams, not libomp.
    if (kind == "so" && openmp) {
      if (failed(routeThreadCalls(*llvmModule, loc)))
        return failure();
      openmp = false;
    }
    llvm::Triple triple = tm->getTargetTriple();
    OutputFile out(outPath);
    if (failed(out.open(loc)))
      return failure();
    std::vector<std::unique_ptr<OutputFile>> temporaries;
    auto newObject = [&]() -> FailureOr<std::string> {
      temporaries.push_back(std::make_unique<OutputFile>(outPath + ".o"));
      if (failed(temporaries.back()->open(loc)))
        return failure();
      return temporaries.back()->path();
    };
    std::vector<std::string> objects;
    if (failed(compileInParts(std::move(llvmModule), options, newObject,
                              objects, timer, loc)))
      return failure();
    LogicalResult linked =
        kind == "so"
            ? linkShared(objects, out.path(), triple, host, openmp, loc)
            : linkExecutable(objects, out.path(), openmp, loc);
    timer.lap("link");
    return success(succeeded(linked) && succeeded(out.commit(loc)));
  }

  optimize(*llvmModule, *tm, options.optLevel);
  timer.lap("optimize");
  if (outPath == "-" && kind == "ll") {
    llvmModule->print(llvm::outs(), nullptr);
    return success();
  }

  OutputFile out(outPath == "-" ? std::string() : outPath);
  if (outPath != "-" && failed(out.open(loc)))
    return failure();
  if (kind == "ll" || kind == "bc") {
    std::error_code ec;
    llvm::raw_fd_ostream os(out.path(), ec);
    if (ec)
      return emitError(loc, "cannot open '") << outPath << "': " << ec.message();
    if (kind == "ll")
      llvmModule->print(os, nullptr);
    else
      llvm::WriteBitcodeToFile(*llvmModule, os);
    os.close();
    if (os.has_error())
      return emitError(loc, "error writing '") << outPath << "'";
    return out.commit(loc);
  }
  if (kind == "s" && outPath == "-") {
    SmallString<128> tmp;
    if (llvm::sys::fs::createTemporaryFile("hoduc", "s", tmp))
      return emitError(loc, "cannot create a temporary file");
    llvm::FileRemover remover(tmp);
    if (failed(emitMachineCode(*llvmModule, *tm,
                               llvm::CodeGenFileType::AssemblyFile, tmp, loc)))
      return failure();
    if (auto buf = llvm::MemoryBuffer::getFile(tmp))
      llvm::outs() << (*buf)->getBuffer();
    return success();
  }
  if (kind == "s" || kind == "o")
    return success(
        succeeded(emitMachineCode(*llvmModule, *tm,
                                  kind == "s"
                                      ? llvm::CodeGenFileType::AssemblyFile
                                      : llvm::CodeGenFileType::ObjectFile,
                                  out.path(), loc)) &&
        succeeded(out.commit(loc)));

  // a: one object (an archive's members are linked into other programs,
  // where the hidden symbols shared by parts could meet another model's).
  OutputFile obj(outPath + ".o");
  if (failed(obj.open(loc)) ||
      failed(emitMachineCode(*llvmModule, *tm,
                             llvm::CodeGenFileType::ObjectFile, obj.path(),
                             loc)))
    return failure();
  timer.lap("codegen");
  LogicalResult written = writeArchive(obj.path(), out.path(), loc);
  timer.lap("link");
  return success(succeeded(written) && succeeded(out.commit(loc)));
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void hodu::registerCPUTarget() {
  static bool done = [] {
    cpu::registerCPUPasses();
    cpu::registerExpandStridedCopiesPass();
    cpu::registerOmpNowaitPass();
    auto target = std::make_unique<CPUTarget>();
    for (StringRef phase : {"linalg", "bufferized", "llvm"}) {
      std::string name = target->pipelineName(phase);
      std::string desc =
          phase == "linalg"
              ? "The CPU's additions to the shared linalg phase (run after "
                "convert-hodu-to-linalg)"
              : ("The CPU's " + phase + " phase, as hoduc runs it").str();
      PassPipelineRegistration<CPUPipelineOptions>(
          name, desc,
          [phase](OpPassManager &pm, const CPUPipelineOptions &o) {
            if (failed(buildCPUPhase(phase, pm, configOf(o))))
              llvm::report_fatal_error("cannot build the CPU pipeline");
          });
    }
    ComponentRegistry::get().addTarget(std::move(target));
    return true;
  }();
  (void)done;
}
