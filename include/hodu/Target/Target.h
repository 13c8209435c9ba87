//===- Target.h - target back ends ------------------------------*- C++ -*-===//
//
// A target back end (the model: IREE's Dialect/HAL/Target/TargetBackend.h)
// owns everything after the shared phases `input -> hodu -> linalg`:
//
//   - its options (triple, CPU, features; for GPUs the arch list),
//   - the pass pipelines of its phases, built by C++ functions that are also
//     registered as named pipelines, so `hodu-opt` replays every step,
//   - what it adds to the shared linalg phase (CPU: tiling, packing,
//     vectorisation, which must run before elementwise fusion),
//   - which ops it can run (the legality query the partitioner will use),
//   - its artifact kinds, their serialisation and link step,
//   - the external tools it needs.
//
// The driver (lib/Driver) imports, runs the shared phases, and hands the
// module over; it holds no target code. A new target is a folder under
// lib/Target that registers a TargetBackend (docs/architecture.md).
//
// This header stays light: MLIR types are forward-declared.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_TARGET_TARGET_H
#define HODU_TARGET_TARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Location;
class ModuleOp;
class OpPassManager;
class Operation;
} // namespace mlir

namespace hodu {

/// Options every target understands, as given on hoduc's command line.
struct TargetOptions {
  std::string triple;   // CPU: empty = host
  std::string cpu;      // CPU: empty = host CPU for the host, else generic
  std::string features; // CPU: extra "+avx2,-fma" style features
  std::vector<std::string> gpuArchs; // GPU targets: sm_80, gfx942, ...
  unsigned optLevel = 2;
  /// CPU: Winograd convolutions, "auto" (F(2x2,3x3) and F(4x4,3x3) where the
  /// cost model prefers them), "f2" (F(2x2,3x3) only) or "off".
  std::string winograd = "auto";
  /// CPU: which multiplies and adds become fused multiply-adds (one
  /// rounding instead of two). "on" (default): within an op only (the
  /// matmul and convolution kernels' accumulations, polynomial
  /// approximations), so every op's result rounds as ONNX defines it.
  /// "fast" (-O2 and up): also a multiply of one op and an add of the next
  /// in a fused kernel (a scale then a bias), as LLVM's fp-contract=fast.
  std::string fpContract = "on";
  /// CUDA: whether matmuls and convolutions run on tensor cores (sm_80 and
  /// later) and how f32 ones multiply there: "3xtf32" (default: three TF32
  /// products per f32 product, f32-accurate; checked on an H200,
  /// docs/device-runs.md), "tf32" (one, about 10 bits of mantissa), or
  /// "fma" (no tensor cores: the FMA kernels).
  std::string gpuMath = "3xtf32";
  /// CUDA, ROCm: the multiprocessors (SMs, compute units) of the GPU the
  /// artifact is for (--gpu-multiprocessors): contractions are tiled so
  /// that their blocks fill them. 0: those of each --gpu-arch's largest
  /// part (the most of the bundle's architectures).
  int64_t gpuMultiprocessors = 0;
  /// How f32 models compute: "f32" (default), or "bf16": the CPU's f32
  /// matmuls and batch matmuls on bf16 dot products (AVX512-BF16), their
  /// operands rounded to bf16 and their sums in f32; everything else
  /// (normalisations, softmax, reductions, elementwise ops, convolutions)
  /// stays f32.
  std::string precision = "f32";
};

/// One kind of artifact a target writes (`hoduc --emit=NAME`).
struct ArtifactKind {
  std::string name;                 // "so"
  std::vector<std::string> aliases; // "shared"
  std::string extension;            // ".so"; "" for executables
  std::string defaultPrefix;        // "lib": libmodel.so
  bool text = false;                // may be written to stdout
  std::string description;
};

/// An external program a target runs for some of its artifact kinds.
struct ToolRequirement {
  std::vector<std::string> candidates; // names looked up, in order
  std::string neededFor;               // "so, exe"
  std::string provider;                // "apt-get install lld-22"
};

/// One row of a target's op support table: a hodu op it runs, the element
/// types it runs it with, and any further condition. The partitioner
/// (hodu-partition), the target's legality check and `hoduc
/// --print-op-support` all read the same table, so they cannot disagree.
struct OpSupport {
  std::string op;              // "hodu.matmul"
  std::vector<int32_t> dtypes; // hodu_dtypes of every operand and result;
                               // empty: any
  std::string condition;       // what `check` requires, for people; "" none
  std::function<bool(mlir::Operation *)> check; // null: no condition
};

/// What the driver hands to a target's phase pipelines.
struct PipelineRequest {
  TargetOptions target;
  std::string prefix; // the artifact's symbol prefix
  /// The artifact kind being built, when the pipeline runs to the end.
  std::string artifactKind;
  /// Partitioning (accelerator targets): where the ops the target cannot run
  /// go ("cpu" or "": an error), op types forced onto the CPU, a placement
  /// file to read and one to write (hodu-partition).
  std::string fallback;
  std::vector<std::string> forceCpuOps;
  std::string placement, dumpPlacement;
  /// Run-time index checks (hodu-check-indices): "error" or "clamp".
  std::string indexChecks = "error";
  /// Nodes (by name) that run on the CPU: the driver's retry of those
  /// whose kernels the target could not build.
  std::vector<std::string> cpuNodes;
  /// The module holds a heterogeneous plan's partitions of this target's
  /// device, public functions called by the plan, rather than a model with
  /// an entry point: no entry point is recorded or lowered (the CPU target
  /// exports each partition for a bundle's HOST_CALL steps instead).
  bool library = false;
  /// Verify the IR after every pass (hoduc --verify-each) rather than once
  /// at the end of each phase.
  bool verifyEach = false;
};

/// One input or output of the model's entry point.
struct TensorSignature {
  std::string name;
  int32_t dtype = 0; // a hodu_dtype (abi.h)
  std::vector<int64_t> shape;
  /// Meta slots and state inputs: the initial value's bytes (empty: zeros).
  std::string init;
  /// Symbolic dims: per dim, "" (static, `shape`) or the symbol it is
  /// ("batch", "4*batch"); `shape` then holds its size at the chunk.
  std::vector<std::string> dims;
  /// A meta slot that holds a padded symbol's value (an accelerator's:
  /// the runtime writes it at each run): the symbol's name, else "".
  std::string symbolValue;
};

/// The model's entry point as `hodu.entry_point` recorded it (the driver
/// reads it at the end of the shared phases, before lowering erases it).
struct EntrySignature {
  std::string modelName;
  /// The last `numMetaSlots` inputs are meta slots (hodu.entry_point lists
  /// them last, and the entry function takes them there).
  std::vector<TensorSignature> inputs, outputs;
  unsigned numMetaSlots = 0;
  /// State tensors (a train step's): the last `numStateTensors` inputs
  /// before the meta slots and the last `numStateTensors` outputs.
  unsigned numStateTensors = 0;
  /// The symbols (hodu.symbols), in the descriptor's order: each one's
  /// name, bounds and how it is compiled (a model may have one run in
  /// chunks and one padded).
  struct Symbol {
    std::string name;
    int64_t min = 0, max = -1, multiple = 1, chunk = 1;
    bool padded = false;
  };
  std::vector<Symbol> symbols;
};

/// A heterogeneous plan as hodu-partition left the entry function: the
/// model's inputs and outputs, and in order, calls of partitions (the
/// target's functions, or CPU partitions compiled into `hostCode`) and
/// transfers between devices, over values numbered by `values`.
struct ScheduleValue {
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};
struct ScheduleStep {
  bool transfer = false;  // else a partition call
  std::string callee;     // call: the partition function
  bool host = false;      // call: a CPU partition (a bundle's HOST_CALL)
  std::string hostSymbol; // host call: what hostCode exports for it
  std::string to;         // transfer: "cpu" or the target's name
  std::vector<unsigned> operands, results; // value numbers
};
struct Schedule {
  std::vector<ScheduleValue> values;
  std::vector<unsigned> inputs, outputs; // value numbers
  std::vector<ScheduleStep> steps;
  std::string hostCode; // the CPU partitions: a shared library (ELF)
};

/// What the driver hands to serialisation.
struct SerializeRequest {
  const ArtifactKind *kind = nullptr;
  std::string outputPath; // "-": stdout (text kinds only)
  std::string prefix;
  std::string sourcePath; // the model file, for comments
  std::string headerPath; // also write a C header, when not empty
  EntrySignature signature;
  bool stats = false;     // print per-step times to stderr
  /// A heterogeneous plan: the module holds the target's partitions as
  /// functions (PipelineRequest::library), and this says how to run them.
  const Schedule *schedule = nullptr;
  /// A device plugin's device that runs the bundle (hoduc --device=NAME
  /// of a plugin): the bundle names it (HODU_DEVICE_PLUGIN) in place of
  /// the target's device, or with `pluginHostCode`, in place of the CPU
  /// of a plan whose every node is on the CPU (a plugin that runs ELF
  /// code objects).
  std::string pluginDevice;
  bool pluginHostCode = false;
};

/// A remark a target's passes emit for `hoduc --print-stats`: an MLIR
/// analysis remark, which costs nothing until a client enables its
/// category, and which the driver prints without knowing the pass.
struct StatsRemark {
  std::string category; // the emitting pass: "hodu-cpu-vectorize"
  std::string name;     // the remark's name: "conv-strategy"
  /// Printed as "hoduc: stats: <label> <where>: <text>", where <where> is
  /// the remark's location (the model's node); with no label, as
  /// "hoduc: stats: <text>".
  std::string label;
};

class TargetBackend {
public:
  virtual ~TargetBackend();

  /// "cpu", "cuda", "rocm", "vulkan", "metal".
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<ArtifactKind> artifactKinds() const = 0;
  /// The artifact kind written when neither --emit nor -o names one.
  virtual std::string defaultArtifactKind() const = 0;
  virtual std::vector<ToolRequirement> tools() const { return {}; }

  /// Checks the options (an unknown triple, an arch list for a target that
  /// has none) before anything is compiled.
  virtual llvm::LogicalResult validate(const TargetOptions &options,
                                       mlir::Location loc) const = 0;

  /// The target's phases after the shared ones, in order.
  virtual std::vector<std::string> phases() const = 0;

  /// Whether the shared phases include `partition` for this target: an
  /// accelerator, whose models may put some ops on the CPU.
  virtual bool partitions() const { return true; }

  /// Passes the target adds at the end of shared phase `phase` (today only
  /// "linalg" is extended).
  virtual llvm::LogicalResult
  extendSharedPhase(llvm::StringRef phase, mlir::OpPassManager &pm,
                    const PipelineRequest &request) const {
    return llvm::success();
  }
  /// The pipeline of one of the target's own phases.
  virtual llvm::LogicalResult
  buildPhase(llvm::StringRef phase, mlir::OpPassManager &pm,
             const PipelineRequest &request) const = 0;

  /// The named pipeline that replays `phase` of this target under
  /// `hodu-opt` ("linalg": its additions to the shared phase):
  /// "hodu-<target>-<phase>".
  std::string pipelineName(llvm::StringRef phase) const;

  /// The remarks of the target's passes that `hoduc --print-stats` prints.
  virtual std::vector<StatsRemark> statsRemarks() const { return {}; }

  /// The hodu ops the target runs (its op support table).
  virtual std::vector<OpSupport> opSupport() const = 0;

  /// Whether the target can run `op` (an op of the hodu dialect, with its
  /// dtypes and attributes), by its op support table; when it cannot and
  /// `why` is given, says why. Ops of other dialects (models given already
  /// lowered past hodu) are left to the target's pipeline: legal.
  bool isLegal(mlir::Operation *op, std::string *why = nullptr) const;

  /// Writes the artifact from the module after the last phase.
  virtual llvm::LogicalResult serialize(mlir::ModuleOp module,
                                        const SerializeRequest &request,
                                        const TargetOptions &options) const = 0;

private:
  mutable std::shared_ptr<std::vector<OpSupport>> supportCache;

public:
  /// Looks up an artifact kind by name or alias.
  std::optional<ArtifactKind> findArtifactKind(llvm::StringRef name) const;
  /// The kind whose extension `path` has, if any.
  std::optional<ArtifactKind> artifactKindForPath(llvm::StringRef path) const;
};

/// Appends a textual pass pipeline (no `builtin.module(...)` anchor: the
/// passes go straight into `pm`) built by a phase builder; an empty text adds
/// nothing. A pipeline that does not parse is an internal error, reported on
/// stderr.
llvm::LogicalResult addPassPipeline(mlir::OpPassManager &pm,
                                    llvm::StringRef text);

/// Every op of the hodu dialect except the ABI and partition ops (the ops an
/// op support table may list), by name.
std::vector<std::string> hoduComputeOps();

/// "f16 f32 ...", or "any dtype" for an empty list.
std::string dtypeList(llvm::ArrayRef<int32_t> dtypes);

/// A table listing every hodu compute op with `dtypes` (empty: any).
std::vector<OpSupport> opSupportForAll(std::vector<int32_t> dtypes = {});

/// Where each of a target's tools was found ("" where it was not).
std::vector<std::string> locateTools(const TargetBackend &target);

} // namespace hodu

#endif // HODU_TARGET_TARGET_H
