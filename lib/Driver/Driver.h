//===- Driver.h - the driver's parts -----------------------*- C++ -*-===//
//
// Private to lib/Driver:
//   Compiler.cpp   import, the phase loop, hand-over to the target
//   Pipelines.cpp  the shared phases' pipelines (also named pipelines)
//   Stats.cpp      --print-stats
//   Symbols.cpp    importing a model with a symbolic dim
//   PaddedSymbols.cpp  ... one that ops mix, compiled at its bound
//   Buckets.cpp    ... at several sizes, merged behind a dispatcher
//
//===----------------------------------------------------------------------===//
#ifndef HODU_LIB_DRIVER_DRIVER_H
#define HODU_LIB_DRIVER_DRIVER_H

#include "hodu/Dialect/Hodu/Symbols.h"
#include "hodu/Driver/Compiler.h"
#include "hodu/Support/Timer.h"
#include "hodu/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>


namespace mlir {
class ModuleOp;
class OpPassManager;
class PassManager;
} // namespace mlir

namespace hodu::driver {

/// The padded symbols' code compiled at sizes below their bounds (a
/// bucket): one artifact runs values on the first bucket, the smallest,
/// that holds them all (mergeBuckets).
struct PaddedBucket {
  /// Each padded symbol's size, in the order of `symbolIndices`.
  llvm::SmallVector<int64_t, 2> sizes;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The padded symbols' indices in a run's symbol values, and their count.
  llvm::SmallVector<unsigned, 2> symbolIndices = {0};
  unsigned numSymbols = 1;
  /// "64", or "256x512" with two padded symbols: names and messages.
  std::string label() const {
    std::string s;
    for (int64_t v : sizes)
      s += (s.empty() ? "" : "x") + std::to_string(v);
    return s;
  }
};

/// Builds shared phase `phase` ("input", "hodu" or "linalg") for `target`:
/// the shared passes, with the target's extension where it has one.
llvm::LogicalResult buildSharedPhase(llvm::StringRef phase,
                                     mlir::OpPassManager &pm,
                                     const TargetBackend &target,
                                     const PipelineRequest &request);

/// Runs one phase's pipeline on `module`. Unless `request.verifyEach`, the
/// verifier runs once at the end of the phase instead of after every pass
/// (the per-pass verification was a third of a large model's MLIR time:
/// memref.subview's verifier solves stride equations for each slice).
llvm::LogicalResult runPhase(mlir::PassManager &pm, mlir::ModuleOp module,
                             const PipelineRequest &request);

/// Registers hodu-shared-hodu and hodu-shared-linalg (after the targets,
/// whose pipeline names hodu-shared-linalg's description gives).
void registerSharedPipelines();

/// Imports `opts.inputPath` with `importer`; a model that keeps a symbolic
/// dim is imported at a probe size, checked by hodu-chunk-symbols, and
/// imported again at its chunk size, with `hodu.dims` on the entry's
/// arguments and results and the module attribute `hodu.symbols`. Null
/// after an error.
mlir::OwningOpRef<mlir::ModuleOp>
importWithSymbols(const Importer &importer, mlir::MLIRContext &context,
                  const CompileOptions &opts, ImportOptions io,
                  llvm::SmallVectorImpl<PaddedBucket> *buckets = nullptr);

/// Up to `count` sizes `multiple * q` for primes q within [max(min, 2),
/// max] (max < 0: no bound), q = 29, 31 and 37 first where they fit: the
/// sizes a model is imported at to see how its dims follow a symbol.
llvm::SmallVector<int64_t> probeSizes(int64_t min, int64_t max,
                                      int64_t multiple, unsigned count);

/// Whether two constants of a model imported at two sizes of a symbol hold
/// the same values wherever both have an element (a Range over the symbol
/// grows, but its first values stay; a constant computed from the
/// symbol's value differs).
bool constantsAgree(mlir::ElementsAttr a, mlir::ElementsAttr b);

/// Symbols that ops mix, each with an upper bound, compiled padded:
/// `probed`, when given, is the model imported with the first at `probe`
/// (and any others at their first probes); it is imported again with each
/// symbol moved alone to two more probes, and at the bounds; the dims that
/// change with a symbol are checked to be `scale * symbol / divisor +
/// offset` of that one symbol and recorded (`hodu.extents`), and
/// hodu-pad-symbols masks the module compiled at the bounds. Null after an
/// error (lib/Driver/PaddedSymbols.cpp).
/// With `bucketSizes` (per symbol, sizes below its bound), the model is
/// also compiled at every combination of them and the bounds (but the
/// bounds' own), into `buckets` (PaddedBucket), smallest first.
mlir::OwningOpRef<mlir::ModuleOp>
importPadded(mlir::OwningOpRef<mlir::ModuleOp> probed, int64_t probe,
             const Importer &importer, mlir::MLIRContext &context,
             const CompileOptions &opts, ImportOptions io,
             llvm::ArrayRef<ChunkedSymbol> symbols,
             llvm::ArrayRef<llvm::SmallVector<int64_t>> bucketSizes,
             llvm::SmallVectorImpl<PaddedBucket> *buckets);

/// Merges the buckets' modules, each lowered to the LLVM dialect with the
/// prefix `prefix__b<size>`, into `module` (the bound's, lowered with
/// `prefix`): their symbols renamed apart, the workspace the largest, and
/// the descriptor's entry a dispatcher that runs a value on the smallest
/// bucket that holds it (lib/Driver/Buckets.cpp).
llvm::LogicalResult mergeBuckets(mlir::ModuleOp module,
                                 llvm::MutableArrayRef<PaddedBucket> buckets,
                                 llvm::StringRef prefix, mlir::Location loc);

/// The same for a module already in the hodu dialect (the capture API's
/// in-memory path, hodu::compile(ModuleOp)): its arguments' `hodu.dims`,
/// proved at the sizes it has, which are the chunk.
llvm::LogicalResult applySymbols(mlir::ModuleOp module,
                                 const CompileOptions &opts);

/// Kernel counts without and with fusion groups (on a copy of the module).
/// The entry point's signature (hodu.entry_point), read before the target
/// lowers it.
EntrySignature readSignature(mlir::ModuleOp module);

/// Whether hodu-partition put some of the model on the CPU.
bool hasHostPartitions(mlir::ModuleOp module);

/// Compiles a model that hodu-partition split between `target` and the CPU
/// (lib/Driver/Heterogeneous.cpp) into one bundle.
bool compileHeterogeneous(mlir::ModuleOp module, const CompileOptions &opts,
                          const TargetBackend &target,
                          PipelineRequest request, const std::string &prefix,
                          StatsTimer &timer);

void printKernelStats(mlir::ModuleOp module);
/// Partitions and transfers after hodu-partition, and under seed 004's
/// consecutive grouping.
void printPartitionStats(mlir::ModuleOp module);
/// What hodu-plan-memory recorded; false when it recorded nothing.
bool printMemoryPlan(mlir::ModuleOp module);
/// Prints the analysis remarks that --print-stats shows as they are made:
/// those the passes of `targets` emit (TargetBackend::statsRemarks; the
/// CPU's: each convolution's strategy, the subnormal weights flushed).
void enableStatsRemarks(mlir::MLIRContext &context,
                        llvm::ArrayRef<const TargetBackend *> targets);


} // namespace hodu::driver

#endif // HODU_LIB_DRIVER_DRIVER_H
