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

/// What the driver hands to a target's phase pipelines.
struct PipelineRequest {
  TargetOptions target;
  std::string prefix; // the artifact's symbol prefix
  /// The artifact kind being built, when the pipeline runs to the end.
  std::string artifactKind;
};

/// One input or output of the model's entry point.
struct TensorSignature {
  std::string name;
  int32_t dtype = 0; // a hodu_dtype (abi.h)
  std::vector<int64_t> shape;
  /// Meta slots: the initial value's bytes (empty: zeros).
  std::string init;
};

/// The model's entry point as `hodu.entry_point` recorded it (the driver
/// reads it at the end of the shared phases, before lowering erases it).
struct EntrySignature {
  std::string modelName;
  /// The last `numMetaSlots` inputs are meta slots (hodu.entry_point lists
  /// them last, and the entry function takes them there).
  std::vector<TensorSignature> inputs, outputs;
  unsigned numMetaSlots = 0;
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

  /// Whether the target can run `op` (an op of the hodu dialect, with its
  /// dtypes and attributes).
  virtual bool isLegal(mlir::Operation *op) const = 0;

  /// Writes the artifact from the module after the last phase.
  virtual llvm::LogicalResult serialize(mlir::ModuleOp module,
                                        const SerializeRequest &request,
                                        const TargetOptions &options) const = 0;

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

/// Where each of a target's tools was found ("" where it was not).
std::vector<std::string> locateTools(const TargetBackend &target);

} // namespace hodu

#endif // HODU_TARGET_TARGET_H
