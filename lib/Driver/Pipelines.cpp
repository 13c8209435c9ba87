//===- Pipelines.cpp - the shared phases ----------------------------------===//
//
// input -> hodu -> linalg, the same for every target. Each is built here
// and registered as a named pipeline (hodu-shared-hodu, hodu-shared-linalg);
// a target adds its own passes at the end of the linalg phase.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "hodu/Partition/Passes.h"
#include "hodu/Registry/Registry.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace hodu;

namespace {
/// Per-pass times of every MLIR phase, on stderr (for profiling hoduc;
/// --print-stats times LLVM's optimisation and code generation).
llvm::cl::opt<bool> passTiming(
    "hodu-pass-timing", llvm::cl::Hidden,
    llvm::cl::desc("Print the time of each MLIR pass of every phase"));

struct SharedPipelineOptions
    : public PassPipelineOptions<SharedPipelineOptions> {
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("Optimisation level 0-3"),
                            llvm::cl::init(2)};
  Option<std::string> prefix{
      *this, "prefix",
      llvm::cl::desc("Symbol prefix of the artifact (default: the model name)")};
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("The target, named in errors"),
                             llvm::cl::init("cpu")};
  Option<std::string> indexChecks{
      *this, "index-checks",
      llvm::cl::desc("Run-time index checks: error or clamp"),
      llvm::cl::init("error")};
};


/// Strided transposed convolutions split into per-phase convolutions, then
/// constant evaluation (weights transposed, BatchNorm folded into conv
/// weights, the phase filters, ...) at -O1 and up; then the run-time
/// checks of indices that are still not constants (or, with
/// indexChecks = "clamp", none), before partitioning.
LogicalResult buildHoduPhase(OpPassManager &pm, unsigned optLevel,
                             StringRef indexChecks) {
  std::string checks =
      "hodu-check-indices{mode=" + indexChecks.str() + "},canonicalize,cse";
  return addPassPipeline(pm, optLevel >= 1
                                 ? "canonicalize,hodu-decompose-conv-transpose,"
                                   "hodu-fold-constants,canonicalize," +
                                       checks
                                 : "canonicalize," + checks);
}

/// The entry point is recorded while tensor types still carry the model's
/// dtypes; then the hodu dialect becomes linalg, tensor, arith and math.
LogicalResult buildLinalgHead(OpPassManager &pm, StringRef prefix,
                              StringRef target) {
  std::string record = "hodu-record-entry-point{target=" + target.str();
  if (!prefix.empty())
    record += " prefix=" + prefix.str();
  return addPassPipeline(pm, record + "},convert-hodu-to-linalg,canonicalize");
}

LogicalResult buildLinalgTail(OpPassManager &pm, StringRef target) {
  return addPassPipeline(pm, "hodu-check-lowered{target=" + target.str() + "}");
}
} // namespace

LogicalResult driver::runPhase(PassManager &pm, ModuleOp module,
                               const PipelineRequest &request) {
  pm.enableVerifier(request.verifyEach);
  if (passTiming)
    pm.enableTiming();
  if (failed(pm.run(module)))
    return failure();
  if (request.verifyEach || succeeded(verify(module)))
    return success();
  emitError(module.getLoc(), "internal error: a pass of this phase left "
                             "invalid IR (hoduc --verify-each names the pass)");
  return failure();
}

LogicalResult driver::buildSharedPhase(StringRef phase, OpPassManager &pm,
                                       const TargetBackend &target,
                                       const PipelineRequest &request) {
  if (phase == "input")
    return success();
  if (phase == "hodu")
    return buildHoduPhase(pm, request.target.optLevel, request.indexChecks);
  if (phase == "partition") {
    PartitionOptions options;
    options.target = target.name();
    options.fallback = request.fallback;
    options.forceCpuOps.assign(request.forceCpuOps.begin(),
                               request.forceCpuOps.end());
    options.placement = request.placement;
    options.cpuNodes.assign(request.cpuNodes.begin(), request.cpuNodes.end());
    options.dumpPlacement = request.dumpPlacement;
    pm.addPass(createPartition(options));
    return success();
  }
  if (phase == "linalg") {
    std::string name = target.name();
    if (request.library)
      return success(
          succeeded(addPassPipeline(pm, "convert-hodu-to-linalg,canonicalize")) &&
          succeeded(target.extendSharedPhase(phase, pm, request)) &&
          succeeded(buildLinalgTail(pm, name)));
    return success(succeeded(buildLinalgHead(pm, request.prefix, name)) &&
                   succeeded(target.extendSharedPhase(phase, pm, request)) &&
                   succeeded(buildLinalgTail(pm, name)));
  }
  llvm::errs() << "hoduc: internal error: no shared phase '" << phase << "'\n";
  return failure();
}

void driver::registerSharedPipelines() {
  PassPipelineRegistration<SharedPipelineOptions>(
      "hodu-shared-hodu", "The shared hodu phase, as hoduc runs it",
      [](OpPassManager &pm, const SharedPipelineOptions &o) {
        if (failed(buildHoduPhase(pm, o.optLevel, o.indexChecks)))
          llvm::report_fatal_error("cannot build the hodu phase");
      });
  // The CPU, hoduc's default device, is the example; its pipeline's name is
  // the target's to say.
  std::string example;
  if (const TargetBackend *cpu = ComponentRegistry::get().findTarget("cpu"))
    example = ": hoduc's linalg phase for the CPU is hodu-shared-linalg "
              "then " +
              cpu->pipelineName("linalg");
  PassPipelineRegistration<SharedPipelineOptions>(
      "hodu-shared-linalg",
      "The shared part of the linalg phase (a target adds its own passes "
      "before hodu-check-lowered" +
          example + ")",
      [](OpPassManager &pm, const SharedPipelineOptions &o) {
        if (failed(buildLinalgHead(pm, o.prefix, o.target)) ||
            failed(buildLinalgTail(pm, o.target)))
          llvm::report_fatal_error("cannot build the linalg phase");
      });
}
