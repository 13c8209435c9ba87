//===- Stats.cpp - hoduc --print-stats ------------------------------------===//
#include "Driver.h"

#include "hodu/Support/Diagnostics.h"
#include "hodu/Transforms/FusionGroups.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace hodu;

void hodu::driver::printKernelStats(ModuleOp module) {
  int64_t checks = 0;
  module.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "hodu.assert")
      ++checks;
  });
  if (checks)
    llvm::errs() << "hoduc: stats: run-time checks: " << checks
                 << " (what the model assumes of its data; hodu-run --info "
                    "lists them)\n";
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  PassManager pm(module->getName());
  if (!PassInfo::lookup("hodu-form-fusion-groups") ||
      failed(parsePassPipeline("hodu-form-fusion-groups", pm)) ||
      failed(pm.run(*copy))) {
    llvm::errs() << "hoduc: stats: fusion groups unavailable\n";
    return;
  }
  FusionStats stats = computeFusionStats(*copy);
  llvm::errs() << "hoduc: stats: kernels: " << stats.opsBefore
               << " without fusion, " << stats.kernelsAfter << " with "
               << stats.groups << " fusion groups (" << stats.groupedOps
               << " ops grouped)\n";
}

/// "9.4 MiB", "12.0 KiB", "300 B".
static std::string formatBytes(int64_t bytes) {
  if (bytes >= (1 << 20))
    return llvm::formatv("{0:f1} MiB", bytes / double(1 << 20)).str();
  if (bytes >= (1 << 10))
    return llvm::formatv("{0:f1} KiB", bytes / double(1 << 10)).str();
  return std::to_string(bytes) + " B";
}

bool hodu::driver::printMemoryPlan(ModuleOp module) {
  int64_t buffers = 0, bufferBytes = 0, arenaBytes = 0, liveBytes = 0;
  bool any = false;
  module.walk([&](func::FuncOp func) {
    auto plan = func->getAttrOfType<DictionaryAttr>("hodu.memory_plan");
    if (!plan)
      return;
    any = true;
    auto get = [&](StringRef name) {
      auto v = plan.getAs<IntegerAttr>(name);
      return v ? v.getInt() : 0;
    };
    buffers += get("buffers");
    bufferBytes += get("buffer_bytes");
    arenaBytes += get("arena_bytes");
    liveBytes += get("live_bytes");
  });
  if (!any)
    return false;
  llvm::errs() << "hoduc: stats: memory plan: " << buffers << " buffers, "
               << formatBytes(bufferBytes) << " -> arena "
               << formatBytes(arenaBytes) << " (largest live set "
               << formatBytes(liveBytes) << ")\n";
  return true;
}

void hodu::driver::printPartitionStats(ModuleOp module) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  auto stats =
      main ? main->getAttrOfType<DictionaryAttr>("hodu.partitions") : nullptr;
  if (!stats) {
    llvm::errs() << "hoduc: stats: partitions: 1 (the whole model on the "
                    "target)\n";
    return;
  }
  auto get = [](DictionaryAttr d, StringRef name) -> int64_t {
    auto v = d ? d.getAs<IntegerAttr>(name) : nullptr;
    return v ? v.getInt() : 0;
  };
  auto seed = stats.getAs<DictionaryAttr>("before_merge");
  llvm::errs() << "hoduc: stats: partitions: " << get(stats, "partitions")
               << ", " << get(stats, "transfers") << " transfers of "
               << formatBytes(get(stats, "transfer_bytes"))
               << " (consecutive grouping, seed 004: "
               << get(seed, "partitions") << " partitions, "
               << get(seed, "transfers") << " transfers of "
               << formatBytes(get(seed, "transfer_bytes")) << ")\n";
}

namespace {
/// Prints the remarks the targets named (TargetBackend::statsRemarks):
/// "hoduc: stats: <label> <where>: <text>", or "hoduc: stats: <text>" for
/// a remark without a label.
struct StatsRemarkStreamer : remark::detail::MLIRRemarkStreamerBase {
  explicit StatsRemarkStreamer(std::vector<StatsRemark> remarks)
      : remarks(std::move(remarks)) {}

  void streamOptimizationRemark(const remark::detail::Remark &r) override {
    const StatsRemark *known = nullptr;
    for (const StatsRemark &candidate : remarks)
      if (candidate.name == r.getRemarkName())
        known = &candidate;
    if (!known)
      return;
    std::string what;
    for (const remark::detail::Remark::Arg &arg : r.getArgs())
      what += arg.val;
    if (known->label.empty()) {
      llvm::errs() << "hoduc: stats: " << what << "\n";
      return;
    }
    Location loc = r.getLocation();
    std::string where = modelLocationPrefix(loc);
    if (where.empty()) {
      llvm::raw_string_ostream os(where);
      loc.print(os);
    }
    llvm::errs() << "hoduc: stats: " << known->label << " " << where << ": "
                 << what << "\n";
  }

  std::vector<StatsRemark> remarks;
};
} // namespace

void hodu::driver::enableStatsRemarks(MLIRContext &context,
                                      ArrayRef<const TargetBackend *> targets) {
  if (context.getRemarkEngine())
    return;
  std::vector<StatsRemark> remarks;
  std::vector<std::string> categories;
  for (const TargetBackend *target : targets)
    for (StatsRemark &remark : target->statsRemarks()) {
      categories.push_back(remark.category);
      remarks.push_back(std::move(remark));
    }
  if (remarks.empty())
    return;
  remark::RemarkCategories cats;
  cats.analysis = llvm::join(categories, "|");
  (void)remark::enableOptimizationRemarks(
      context, std::make_unique<StatsRemarkStreamer>(std::move(remarks)),
      std::make_unique<remark::RemarkEmittingPolicyAll>(), cats);
}
