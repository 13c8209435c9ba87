//===- Compiler.h - hoduc as a library --------------------------*- C++ -*-===//
//
// The driver: a model is imported into the hodu dialect, taken through the
// shared phases
//
//   input -> hodu -> linalg
//
// and handed to a target back end (hodu/Target/Target.h), which runs its own
// phases (CPU: bufferized -> llvm) and writes the artifact. The driver holds
// no target code. `--compile-to=<phase>` stops after any phase, shared or
// the target's, and prints the IR there. Used by tools/hoduc and the capture
// API's Script::compile.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_DRIVER_COMPILER_H
#define HODU_DRIVER_COMPILER_H

#include "hodu/Registry/Registry.h"
#include "hodu/Support/Names.h"
#include "hodu/Target/Target.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class MLIRContext;
class DialectRegistry;
class ModuleOp;
} // namespace mlir

namespace hodu {

/// The shared phases of `target`, in order: input, hodu, then partition for
/// targets that partition (accelerators), and linalg; the target's own
/// phases follow them.
std::vector<std::string> sharedPhases(const TargetBackend &target);

/// hoduc --train (docs/training.md): the model's train step, by
/// hodu-train-step{stateful=true} before everything else.
struct TrainOptions {
  bool enabled = false;
  std::string loss = "mse", optimizer = "sgd";
  double lr = 0.01, momentum = 0.9, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8,
         weightDecay = 0.0, lossScale = 1.0;
  unsigned output = 0;
};

struct CompileOptions {
  std::string inputPath;
  std::string outputPath; // "-" is stdout (text kinds only)
  /// An artifact kind of the target ("so", "o", ...) or "mlir"; empty: from
  /// the -o extension, else "mlir" with --compile-to, else the target's
  /// default. `resolveOutput` fills it in.
  std::string emit;
  std::optional<std::string> compileTo; // a phase name
  std::string name;   // symbol prefix; empty: from the input file name
  std::string target = "cpu";
  TargetOptions targetOptions;
  ImportOptions import;
  /// Symbolic dims kept with bounds (hoduc --dim=NAME=MIN..MAX...); pinned
  /// ones are in `import.symbolSizes`.
  std::vector<DimSpec> dims;
  /// Also write a C header with a typed entry point `<prefix>_run(...)`.
  std::string headerPath;
  /// Inputs (by name) that are meta slots: marked `hodu.meta_slot` after
  /// import, whatever the format.
  std::vector<std::string> metaSlots;
  /// --train: compile the train step (the import lifts the parameters).
  TrainOptions train;
  /// The most elements any tensor of the model may have (--max-tensor-
  /// elements): a model that asks for more is refused after import, naming
  /// the op, before later phases spend hours on it or overflow sizes.
  int64_t maxTensorElements = int64_t(1) << 40;
  /// Partitioning (accelerator targets; hodu-partition): --fallback,
  /// --force-cpu-ops, --placement, --dump-placement.
  std::string fallback;
  /// With --fallback=cpu on an accelerator target: --target, -mcpu and
  /// -mattr, which are the CPU part's (the accelerator target takes none);
  /// `compile` moves them here from targetOptions.
  TargetOptions fallbackOptions;
  std::vector<std::string> forceCpuOps;
  std::string placement, dumpPlacement;
  /// A device plugin's device the bundle is for (hoduc --device=NAME of a
  /// plugin; SerializeRequest::pluginDevice): `target` is the built-in
  /// target that makes its code format; with `pluginHostCode` (an ELF
  /// device) every node is forced onto the CPU partitions.
  std::string pluginDevice;
  bool pluginHostCode = false;
  /// Gather and scatter indices known only at run time (--index-checks):
  /// "error" checks them when the model runs (hodu-check-indices), "clamp"
  /// keeps them within their dim unchecked; "" is "error" where the target
  /// runs checks (the CPU, or an accelerator with --fallback=cpu), else
  /// "clamp".
  std::string indexChecks;
  bool stats = false;
  /// Verify the IR after every pass (--verify-each), not once per phase.
  bool verifyEach = false;
};

/// Registers every importer and target built into this binary.
void registerAllComponents();

/// Registers every dialect, interface and translation the compiler uses.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Registers every pass and named pipeline (for hoduc and hodu-opt).
void registerAllCompilerPasses();

/// The phases of a compile for `target`: the shared ones, then its own.
std::vector<std::string> phaseNames(const TargetBackend &target);

/// hoduc --list-targets: each target, its artifact kinds and phases, and
/// where its tools were found.
void printTargets(llvm::raw_ostream &os);

/// hoduc --print-op-support: the op support table of `target`. False with
/// `error` set for an unknown target.
/// Whether a built-in target (or one registered since) is named `name`;
/// if not, `error` says so and lists the known ones.
bool isTargetName(const std::string &name, std::string &error);

bool printOpSupport(const std::string &target, llvm::raw_ostream &os,
                    std::string &error);

/// Checks the target, the emit kind and --compile-to, and fills in
/// `emit` and, when empty, `outputPath` (stdout for text kinds, else a name
/// made from the input's stem, e.g. libmodel.so). False with `error` set.
bool resolveOutput(CompileOptions &options, std::string &error);

/// Compiles `options.inputPath` to `options.outputPath`. Errors go to the
/// context's diagnostic handler; on failure no output file is left behind.
bool compile(mlir::MLIRContext &context, const CompileOptions &options);

/// Compiles a module already in the hodu dialect (the capture API's
/// in-memory path); `options.inputPath` only names it in messages.
bool compile(mlir::ModuleOp module, const CompileOptions &options);

/// The same, into `bytes`: the artifact of `options.emit` (else the
/// target's default kind), which hodu_model_load_memory loads. The
/// linker and the writers work on files, so the artifact passes through a
/// private temporary directory that is gone when this returns;
/// `outputPath` and `headerPath` must be empty.
bool compileToMemory(mlir::ModuleOp module, const CompileOptions &options,
                     std::vector<uint8_t> &bytes);

} // namespace hodu

#endif // HODU_DRIVER_COMPILER_H
