//===- Heterogeneous.cpp - models split between an accelerator and the CPU ===//
//
// When hodu-partition (the `partition` phase) puts some of a model's nodes
// on the CPU, one module holds three things: the entry function, now a
// schedule of partition calls and transfers; the accelerator's partitions;
// and the CPU's. They part ways here. The CPU partitions are compiled by the
// `cpu` target as a library (each exported for a bundle's HOST_CALL step)
// into one shared library; the accelerator's by the target as a library
// (its kernels, a launch plan per partition); and the target's bundle
// writer joins them, by the schedule, into one plan with the transfers.
// The driver orchestrates two targets here but knows neither.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Partition/Passes.h"
#include "hodu/Registry/Registry.h"
#include "hodu/Support/DType.h"
#include "hodu/Support/Names.h"
#include "hodu/Support/Timer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace hodu;

bool driver::hasHostPartitions(ModuleOp module) {
  return llvm::any_of(module.getOps<func::FuncOp>(), [](func::FuncOp f) {
    return partitionDevice(f) == "cpu";
  });
}

namespace {

/// Runs the shared linalg phase and the target's phases on `module`.
LogicalResult lower(ModuleOp module, const TargetBackend &target,
                    const PipelineRequest &request, StatsTimer &timer,
                    StringRef what) {
  std::vector<std::string> phases = {"linalg"};
  for (std::string &p : target.phases())
    phases.push_back(std::move(p));
  for (size_t i = 0; i < phases.size(); ++i) {
    PassManager pm(module->getName());
    LogicalResult built =
        i == 0 ? driver::buildSharedPhase(phases[i], pm, target, request)
               : target.buildPhase(phases[i], pm, request);
    if (failed(built))
      return failure();
    if (failed(driver::runPhase(pm, module, request)))
      return emitError(module.getLoc(), "compilation of the ")
             << what << " failed in phase '" << phases[i] << "'";
    timer.lap((what + " " + phases[i]).str().c_str());
  }
  return success();
}

/// A module holding copies of the partition functions of one side, made
/// public (the plan calls them).
OwningOpRef<ModuleOp> partitionsOf(ModuleOp module, bool host) {
  OpBuilder b(module.getContext());
  OwningOpRef<ModuleOp> out = ModuleOp::create(module.getLoc());
  if (Attribute name = module->getAttr("hodu.model_name"))
    (*out)->setAttr("hodu.model_name", name);
  b.setInsertionPointToEnd(out->getBody());
  for (auto f : module.getOps<func::FuncOp>()) {
    StringRef device = partitionDevice(f);
    if (device.empty() || (device == "cpu") != host)
      continue;
    auto copy = cast<func::FuncOp>(b.clone(*f));
    copy.setPublic();
    copy->removeAttr("hodu.device");
    if (host)
      copy->setAttr("hodu.host_call", b.getUnitAttr());
  }
  return out;
}

/// The entry function read as a Schedule.
FailureOr<Schedule> readSchedule(ModuleOp module) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  Schedule schedule;
  DenseMap<Value, unsigned> number;
  auto add = [&](Value v) -> FailureOr<unsigned> {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    std::optional<hodu_dtype> dtype =
        type ? dtypeOf(type.getElementType()) : std::nullopt;
    if (!type || !type.hasStaticShape() || !dtype)
      return emitError(v.getLoc(), "internal error: a value between "
                                   "partitions of type ")
             << v.getType();
    ScheduleValue value{*dtype,
                        {type.getShape().begin(), type.getShape().end()},
                        dtypeSize(*dtype) *
                            static_cast<uint64_t>(type.getNumElements())};
    schedule.values.push_back(std::move(value));
    number[v] = schedule.values.size() - 1;
    return schedule.values.size() - 1;
  };
  auto use = [&](Value v, Operation *user) -> FailureOr<unsigned> {
    auto it = number.find(v);
    if (it == number.end())
      return user->emitError("a model output or partition input that is not "
                             "computed by a partition (a constant) is not "
                             "supported in a heterogeneous bundle yet");
    return it->second;
  };
  for (BlockArgument arg : main.getArguments()) {
    FailureOr<unsigned> n = add(arg);
    if (failed(n))
      return failure();
    schedule.inputs.push_back(*n);
  }
  for (Operation &op : main.getBody().front()) {
    if (isa<func::ReturnOp>(op)) {
      for (Value v : op.getOperands()) {
        FailureOr<unsigned> n = use(v, &op);
        if (failed(n))
          return failure();
        schedule.outputs.push_back(*n);
      }
      continue;
    }
    if (op.hasTrait<OpTrait::ConstantLike>())
      continue; // a constant a partition reads was copied into it
    ScheduleStep step;
    if (auto transfer = dyn_cast<TransferOp>(op)) {
      step.transfer = true;
      step.to = transfer.getTo().str();
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      step.callee = call.getCallee().str();
      step.host = callee && partitionDevice(callee) == "cpu";
      if (step.host)
        step.hostSymbol = "hodu_host_" + step.callee;
    } else {
      return op.emitError("internal error: '")
             << op.getName() << "' in a partitioned entry function";
    }
    for (Value v : op.getOperands()) {
      FailureOr<unsigned> n = use(v, &op);
      if (failed(n))
        return failure();
      step.operands.push_back(*n);
    }
    for (Value v : op.getResults()) {
      FailureOr<unsigned> n = add(v);
      if (failed(n))
        return failure();
      step.results.push_back(*n);
    }
    schedule.steps.push_back(std::move(step));
  }
  return schedule;
}

/// The CPU partitions compiled by the `cpu` target into one shared
/// library, returned as bytes.
FailureOr<std::string> compileHostPartitions(ModuleOp host,
                                             const CompileOptions &opts,
                                             const std::string &prefix,
                                             StatsTimer &timer) {
  Location loc = host.getLoc();
  const TargetBackend *cpu = ComponentRegistry::get().findTarget("cpu");
  if (!cpu)
    return emitError(loc, "a heterogeneous model needs the 'cpu' target, "
                          "which this hoduc lacks");
  PipelineRequest request;
  request.target = opts.fallbackOptions;
  request.target.optLevel = opts.targetOptions.optLevel;
  request.prefix = prefix + "_host";
  request.artifactKind = "so";
  request.library = true;
  if (failed(lower(host, *cpu, request, timer, "CPU partitions")))
    return failure();
  SmallString<128> path;
  if (llvm::sys::fs::createTemporaryFile("hoduc-host", "so", path))
    return emitError(loc, "cannot create a temporary file");
  llvm::FileRemover remover(path);
  std::optional<ArtifactKind> kind = cpu->findArtifactKind("so");
  SerializeRequest serialize;
  serialize.kind = &*kind;
  serialize.outputPath = path.str().str();
  serialize.prefix = request.prefix;
  serialize.sourcePath = opts.inputPath;
  serialize.stats = opts.stats;
  if (failed(cpu->serialize(host, serialize, request.target)))
    return failure();
  auto bytes = llvm::MemoryBuffer::getFile(path);
  if (!bytes)
    return emitError(loc, "cannot read the CPU partitions' library");
  return (*bytes)->getBuffer().str();
}

} // namespace

bool driver::compileHeterogeneous(ModuleOp module, const CompileOptions &opts,
                                  const TargetBackend &target,
                                  PipelineRequest request,
                                  const std::string &prefix,
                                  StatsTimer &timer) {
  Location loc = FileLineColLoc::get(module.getContext(), opts.inputPath, 0, 0);
  if (opts.emit != "bundle") {
    emitError(loc, "a model split between '")
        << target.name() << "' and the CPU is written as a bundle "
        << "(--emit=bundle, -o model.hodu), not as '" << opts.emit << "'";
    return false;
  }
  // The signature, as the entry point records it.
  PassManager record(module->getName());
  if (failed(addPassPipeline(record, "hodu-record-entry-point{target=" +
                                         target.name() + " prefix=" + prefix +
                                         "}")) ||
      failed(record.run(module)))
    return false;
  EntrySignature signature = readSignature(module);
  FailureOr<Schedule> schedule = readSchedule(module);
  if (failed(schedule))
    return false;
  // A bundle passes tensors of at least one element (each step's args are
  // buffers): refuse one here, by name, as the device-only path does,
  // rather than write a bundle libhodurt calls malformed.
  {
    std::vector<bool> passed(schedule->values.size(), false);
    for (const ScheduleStep &step : schedule->steps)
      for (const auto *list : {&step.operands, &step.results})
        for (unsigned n : *list)
          passed[n] = true;
    for (unsigned n : schedule->outputs)
      passed[n] = true;
    auto describe = [&](unsigned n) -> std::string {
      for (auto [i, v] : llvm::enumerate(schedule->inputs))
        if (v == n && i < signature.inputs.size())
          return "input '" + signature.inputs[i].name + "'";
      for (auto [i, v] : llvm::enumerate(schedule->outputs))
        if (v == n && i < signature.outputs.size())
          return "output '" + signature.outputs[i].name + "'";
      return "a value passed between partitions";
    };
    for (auto [n, value] : llvm::enumerate(schedule->values)) {
      if (!passed[n] || value.bytes != 0)
        continue;
      emitError(loc, describe(n))
          << " has no elements (shape " << dimsString(value.shape)
          << "); a bundle for '" << target.name()
          << "' and the CPU passes tensors of at least one "
          << "element to its steps";
      return false;
    }
  }

  OwningOpRef<ModuleOp> host = partitionsOf(module, /*host=*/true);
  FailureOr<std::string> hostCode =
      compileHostPartitions(*host, opts, prefix, timer);
  if (failed(hostCode))
    return false;
  schedule->hostCode = std::move(*hostCode);

  OwningOpRef<ModuleOp> device = partitionsOf(module, /*host=*/false);
  request.library = true;
  if (failed(lower(*device, target, request, timer,
                   "'" + target.name() + "' partitions")))
    return false;

  SerializeRequest req;
  auto kind = target.findArtifactKind("bundle");
  req.kind = &*kind;
  req.outputPath = opts.outputPath;
  req.prefix = prefix;
  req.sourcePath = opts.inputPath;
  req.headerPath = opts.headerPath;
  req.signature = std::move(signature);
  req.stats = opts.stats;
  req.schedule = &*schedule;
  req.pluginDevice = opts.pluginDevice;
  req.pluginHostCode = opts.pluginHostCode;
  timer.restart();
  return succeeded(target.serialize(*device, req, opts.targetOptions));
}
