//===- Compiler.cpp - import, shared phases, hand-over to a target --------===//
#include "hodu/Driver/Compiler.h"
#include "hodu/Driver/ToolchainPlugins.h"

#include "Driver.h"

#include "hodu/ABI/Passes.h"
#include "hodu/Conversion/Passes.h"
#include "hodu/Dialect/Hodu/Entry.h"
#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Dialect/Hodu/Symbols.h"
#include "hodu/Partition/Passes.h"
#include "hodu/Registry/Registry.h"
#include "hodu/Support/DType.h"
#include "hodu/Support/Names.h"
#include "hodu/Support/Output.h"
#include "hodu/Support/Timer.h"
#include "hodu/Target/GPU/Bundle.h"
#include "hodu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"

#include "hodu/runtime.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <utility>

using namespace mlir;
using namespace hodu;

std::vector<std::string> hodu::sharedPhases(const TargetBackend &target) {
  if (target.partitions())
    return {"input", "hodu", "partition", "linalg"};
  return {"input", "hodu", "linalg"};
}

void hodu::registerCompilerDialects(DialectRegistry &registry) {
  registry.insert<HoduDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

void hodu::registerAllCompilerPasses() {
  static bool done = [] {
    mlir::registerAllPasses();
    registerHoduPasses();
    registerConversionPasses();
    registerHoduABIPasses();
    registerPartitionPasses();
    registerAllComponents(); // targets register their passes and pipelines
    driver::registerSharedPipelines(); // after: it names the CPU's pipeline
    return true;
  }();
  (void)done;
}

std::vector<std::string> hodu::phaseNames(const TargetBackend &target) {
  std::vector<std::string> names = sharedPhases(target);
  for (std::string &p : target.phases())
    names.push_back(std::move(p));
  return names;
}

static std::string joined(const std::vector<std::string> &items) {
  return llvm::join(items, ", ");
}

/// The registered target `name`; null with `error` naming the known ones.
static const TargetBackend *lookupTarget(const std::string &name,
                                         std::string &error) {
  registerAllComponents();
  auto &registry = ComponentRegistry::get();
  if (const TargetBackend *target = registry.findTarget(name))
    return target;
  // A target plugin whose manifest claims the name (docs/plugins.md).
  std::vector<std::string> problems = loadToolchainPlugins("", name);
  if (const TargetBackend *target = registry.findTarget(name))
    return target;
  std::vector<std::string> known;
  for (auto &t : registry.targets())
    known.push_back(t->name());
  error = "unknown target '" + name + "' (known: " + joined(known) + ")";
  for (const std::string &problem : problems)
    error += "; " + problem;
  return nullptr;
}

bool hodu::resolveOutput(CompileOptions &opts, std::string &error) {
  const TargetBackend *target = lookupTarget(opts.target, error);
  if (!target)
    return false;
  std::vector<std::string> phases = phaseNames(*target);
  if (opts.compileTo && !llvm::is_contained(phases, *opts.compileTo)) {
    error = "unknown phase '" + *opts.compileTo + "' (phases: " +
            joined(phases) + ")";
    return false;
  }
  std::vector<std::string> kinds = {"mlir"};
  for (const ArtifactKind &k : target->artifactKinds())
    kinds.push_back(k.name);
  if (!opts.emit.empty()) {
    if (opts.emit != "mlir") {
      auto kind = target->findArtifactKind(opts.emit);
      if (!kind) {
        error = "unknown --emit kind '" + opts.emit + "' for target '" +
                target->name() + "' (kinds: " + joined(kinds) + ")";
        return false;
      }
      opts.emit = kind->name;
    }
  } else if (llvm::StringRef(opts.outputPath).ends_with_insensitive(".mlir")) {
    opts.emit = "mlir";
  } else if (auto kind = target->artifactKindForPath(opts.outputPath)) {
    opts.emit = kind->name;
  } else {
    opts.emit = opts.compileTo ? "mlir" : target->defaultArtifactKind();
  }
  if (!opts.headerPath.empty() && (opts.emit == "mlir" || opts.compileTo)) {
    error = "--header needs a compiled artifact, not --emit=mlir or "
            "--compile-to";
    return false;
  }
  if (opts.outputPath.empty()) {
    auto kind = target->findArtifactKind(opts.emit);
    if (opts.emit == "mlir" || (kind && kind->text)) {
      opts.outputPath = "-";
    } else {
      std::string stem = defaultModelName(opts.inputPath);
      opts.outputPath = kind->defaultPrefix + stem + kind->extension;
    }
  }
  return true;
}

void hodu::printTargets(llvm::raw_ostream &os) {
  registerAllComponents();
  // Target plugins too; a refused one says why.
  for (const std::string &problem : loadToolchainPlugins("", ""))
    os << "(" << problem << ")\n";
  for (const auto &target : ComponentRegistry::get().targets()) {
    os << target->name() << ": " << target->description() << "\n";
    std::vector<std::string> kinds;
    for (const ArtifactKind &k : target->artifactKinds())
      kinds.push_back(k.name);
    os << "  emit kinds: " << joined(kinds) << ", mlir\n";
    os << "  phases:     " << joined(phaseNames(*target)) << "\n";
    std::vector<ToolRequirement> tools = target->tools();
    std::vector<std::string> found = locateTools(*target);
    for (size_t i = 0; i < tools.size(); ++i) {
      os << "  tool:       " << tools[i].candidates.front() << " (for "
         << tools[i].neededFor << "): ";
      if (found[i].empty())
        os << "not found; " << tools[i].provider << "\n";
      else
        os << found[i] << "\n";
    }
  }
}

bool hodu::isTargetName(const std::string &name, std::string &error) {
  return lookupTarget(name, error) != nullptr;
}

bool hodu::printOpSupport(const std::string &name, llvm::raw_ostream &os,
                          std::string &error) {
  const TargetBackend *target = lookupTarget(name, error);
  if (!target)
    return false;
  std::vector<OpSupport> table = target->opSupport();
  os << "ops target '" << target->name() << "' runs (" << table.size()
     << "; the rest fall back to the CPU with --fallback=cpu):\n";
  size_t width = 0;
  for (const OpSupport &row : table)
    width = std::max(width, row.op.size());
  for (const OpSupport &row : table) {
    os << "  " << row.op << std::string(width + 2 - row.op.size(), ' ')
       << dtypeList(row.dtypes);
    if (!row.condition.empty())
      os << "; " << row.condition;
    os << "\n";
  }
  return true;
}

//===----------------------------------------------------------------------===//
// compile()
//===----------------------------------------------------------------------===//

EntrySignature driver::readSignature(ModuleOp module) {
  EntrySignature sig;
  for (auto ep : module.getOps<EntryPointOp>()) {
    sig.modelName = ep.getModelName().str();
    auto read = [&](ArrayAttr list, std::vector<TensorSignature> &out,
                    bool inputs) {
      for (Attribute a : list) {
        auto dict = cast<DictionaryAttr>(a);
        auto type =
            cast<RankedTensorType>(dict.getAs<TypeAttr>("type").getValue());
        TensorSignature t{dict.getAs<StringAttr>("name").str(),
                          *dtypeOf(type.getElementType()),
                          std::vector<int64_t>(type.getShape().begin(),
                                               type.getShape().end()),
                          {}};
        if (auto dims = dict.getAs<ArrayAttr>("dims"))
          for (Attribute d : dims)
            t.dims.push_back(cast<StringAttr>(d).str());
        if (dict.get("meta"))
          ++sig.numMetaSlots;
        if (auto symbol = dict.getAs<StringAttr>("symbol_value"))
          t.symbolValue = symbol.str();
        if (inputs && dict.get("state"))
          ++sig.numStateTensors;
        if (Attribute init = dict.get("init"))
          constantBytes(init, t.init);
        out.push_back(std::move(t));
      }
    };
    read(ep.getInputs(), sig.inputs, true);
    read(ep.getOutputs(), sig.outputs, false);
  }
  SmallVector<ChunkedSymbol> symbols;
  std::string error; // malformed: the entry point's lowering says so
  if (succeeded(readSymbols(module, symbols, error)))
    for (const ChunkedSymbol &s : symbols)
      sig.symbols.push_back(
          {s.name, s.min, s.max, s.multiple, s.chunk, s.padded});
  return sig;
}

/// Marks the entry function's inputs named in `names` as meta slots
/// (`hodu.meta_slot`), the same way for every model format.
static LogicalResult markMetaSlots(ModuleOp module,
                                   ArrayRef<std::string> names, Location loc) {
  if (names.empty())
    return success();
  func::FuncOp entry = findEntryFunction(module);
  if (!entry)
    return emitError(loc, "--meta-slots: the model has no entry function");
  Builder b(module.getContext());
  std::vector<std::string> known;
  for (const std::string &name : names) {
    bool found = false;
    known.clear();
    for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
      auto n = entry.getArgAttrOfType<StringAttr>(i, "hodu.name");
      std::string argName = n ? n.str() : "input_" + std::to_string(i);
      known.push_back(argName);
      if (argName == name) {
        if (!entry.getArgAttr(i, "hodu.meta_slot"))
          entry.setArgAttr(i, "hodu.meta_slot", b.getUnitAttr());
        found = true;
      }
    }
    if (!found)
      return emitError(loc, "--meta-slots: the model has no input '")
             << name << "' (inputs: " << joined(known) << ")";
  }
  return success();
}

/// hoduc --train: the module's entry function becomes its train step
/// (hodu-train-step{stateful=true}), before every phase, for every model
/// format; the parameters are the arguments the import marked `hodu.param`.
static LogicalResult makeTrainStep(ModuleOp module, const TrainOptions &train,
                                   const ImportOptions &io, Location loc) {
  func::FuncOp entry = findEntryFunction(module);
  if (!entry)
    return emitError(loc, "--train: the model has no entry function");
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    if (entry.getArgAttr(i, "hodu.dims")) {
      auto n = entry.getArgAttrOfType<StringAttr>(i, "hodu.name");
      return emitError(loc, "--train: input '")
             << (n ? n.getValue() : StringRef("?"))
             << "' has a symbolic dim; a train step has static shapes: pin "
                "it with --input-shape";
    }
  // The parameters: the arguments with `hodu.param` (what the ONNX import
  // lifted, or what an .mlir model marks), as --train-params and --freeze
  // choose among them.
  SmallVector<unsigned> params;
  std::vector<std::string> names;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    if (!entry.getArgAttr(i, "hodu.param"))
      continue;
    auto n = entry.getArgAttrOfType<StringAttr>(i, "hodu.name");
    std::string name = n ? n.str() : "input_" + std::to_string(i);
    names.push_back(name);
    bool chosen = io.trainParams.empty()
                      ? !llvm::is_contained(io.frozenParams, name)
                      : llvm::is_contained(io.trainParams, name);
    if (chosen)
      params.push_back(i);
  }
  for (const auto *list : {&io.trainParams, &io.frozenParams})
    for (const std::string &name : *list)
      if (!llvm::is_contained(names, name))
        return emitError(loc)
               << (list == &io.trainParams ? "--train-params" : "--freeze")
               << " names '" << name
               << "', which is no parameter of the model (its arguments "
                  "marked hodu.param: "
               << (names.empty() ? std::string("none") : joined(names)) << ")";
  if (params.empty())
    return emitError(loc, "--train: nothing to train: the model has no "
                          "floating-point initializer (an ONNX model that "
                          "keeps its weights in Constant nodes names them "
                          "with --train-params; an .mlir model marks its "
                          "parameters' arguments hodu.param)");
  TrainStepOptions options;
  options.function = entry.getSymName().str();
  options.output = train.output;
  options.loss = train.loss;
  options.optimizer = train.optimizer;
  options.momentum = train.momentum;
  options.beta1 = train.beta1;
  options.beta2 = train.beta2;
  options.epsilon = train.epsilon;
  options.weightDecay = train.weightDecay;
  options.stateful = true;
  options.lr = train.lr;
  options.lossScale = train.lossScale;
  options.params.assign(params.begin(), params.end());
  PassManager pm(module.getContext());
  pm.addPass(createTrainStep(options));
  return pm.run(module);
}

/// Refuses a model with a tensor of more than `limit` elements (or whose
/// element count overflows), at the op or argument that has it.
static LogicalResult checkTensorSizes(ModuleOp module, int64_t limit) {
  auto tooLarge = [&](Type type) -> std::optional<std::string> {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank())
      return std::nullopt;
    return elementCountOverLimit(shaped.getShape(), limit);
  };
  auto fail = [&](Location loc, Type type, const std::string &count) {
    std::string node;
    loc->walk([&](Location l) {
      if (auto n = dyn_cast<NameLoc>(l)) {
        node = "node '" + n.getName().str() + "': ";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return emitError(loc) << node << "a tensor of type " << type << " has "
                          << count
                          << " elements; the limit is " << limit
                          << " (--max-tensor-elements)";
  };
  WalkResult result = module.walk([&](Operation *op) {
    if (auto func = dyn_cast<FunctionOpInterface>(op))
      for (Type t : func.getArgumentTypes())
        if (auto count = tooLarge(t)) {
          (void)fail(op->getLoc(), t, *count);
          return WalkResult::interrupt();
        }
    for (Type t : op->getResultTypes())
      if (auto count = tooLarge(t)) {
        (void)fail(op->getLoc(), t, *count);
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Runs phases [0, end) of `target` on each padded symbol's bucket (with
/// a prefix of its own); each is the model at other sizes, so it is
/// checked as the bound's module was.
static bool compileBuckets(ModuleOp module, const CompileOptions &opts,
                           const TargetBackend &target,
                           const PipelineRequest &request, size_t end,
                           StatsTimer &timer,
                           MutableArrayRef<driver::PaddedBucket> buckets) {
  Location loc = FileLineColLoc::get(module.getContext(), opts.inputPath, 0, 0);
  std::vector<std::string> phases = phaseNames(target);
  size_t shared = sharedPhases(target).size();
  bool bundle = target.defaultArtifactKind() == "bundle";
  for (driver::PaddedBucket &bucket : buckets) {
    PipelineRequest r = request;
    r.prefix = request.prefix + "__b" + bucket.label();
    if (!bundle)
      r.artifactKind = "o"; // no descriptor alias of its own
    ModuleOp m = *bucket.module;
    m->setAttr("hodu.model_name", module->getAttr("hodu.model_name"));
    if (failed(verify(m)) ||
        failed(checkTensorSizes(m, opts.maxTensorElements)) ||
        (bundle && failed(markMetaSlots(m, opts.metaSlots, loc))))
      return false;
    for (size_t i = 0; i < end; ++i) {
      PassManager pm(m->getName());
      if (failed(i < shared ? driver::buildSharedPhase(phases[i], pm, target, r)
                            : target.buildPhase(phases[i], pm, r)) ||
          failed(driver::runPhase(pm, m, r))) {
        emitError(loc, "compilation of the code at ")
            << bucket.label() << " failed in phase '" << phases[i] << "'";
        return false;
      }
    }
    timer.lap("bucket");
  }
  return true;
}

/// A bundle's buckets (format 1.6, docs/bundle.md "Variants"): each
/// compiled up to the kernel lowering (phase `kernelPhase`), then moved
/// into the bound's module, whose kernel lowering then makes one code
/// object of every plan's kernels, and whose writer reads each bucket's
/// plan as a variant.
static bool mergeBundleBuckets(ModuleOp module, const CompileOptions &opts,
                               const TargetBackend &target,
                               const PipelineRequest &request,
                               size_t kernelPhase, StatsTimer &timer,
                               MutableArrayRef<driver::PaddedBucket> buckets) {
  if (!compileBuckets(module, opts, target, request, kernelPhase, timer,
                      buckets))
    return false;
  for (driver::PaddedBucket &bucket : buckets) {
    SmallVector<int64_t> sizes(bucket.numSymbols, -1);
    for (auto [k, index] : llvm::enumerate(bucket.symbolIndices))
      sizes[index] = bucket.sizes[k];
    if (failed(gpu::mergeVariant(module, *bucket.module, "__b" + bucket.label(),
                                 sizes)))
      return false;
  }
  return true;
}

/// Runs phases [first, last) of `target` on `module`, then (when the last
/// phase ran) writes the artifact.
static bool runPhases(ModuleOp module, const CompileOptions &opts,
                      const TargetBackend &target,
                      const PipelineRequest &request, size_t first, size_t last,
                      StatsTimer &timer,
                      MutableArrayRef<driver::PaddedBucket> buckets = {}) {
  Location loc = FileLineColLoc::get(module.getContext(), opts.inputPath, 0, 0);
  std::vector<std::string> phases = phaseNames(target);
  // A phase to stop at: the last one for .mlir output, else as asked.
  bool mlirOut = opts.emit == "mlir";
  std::string stop = opts.compileTo.value_or(mlirOut ? "hodu" : phases.back());
  size_t shared = sharedPhases(target).size();
  bool planPrinted = false;
  bool stopped = false;
  // The entry signature as the shared phases leave it: the target's phases
  // may lower hodu.entry_point away before the artifact is written.
  std::optional<EntrySignature> signature;
  bool bundleBuckets =
      !buckets.empty() && target.defaultArtifactKind() == "bundle";
  for (size_t i = first; i < last; ++i) {
    const std::string &phase = phases[i];
    // A bundle's buckets join before the kernel lowering.
    if (bundleBuckets && i + 1 == phases.size() && i >= shared &&
        !mergeBundleBuckets(module, opts, target, request, i, timer, buckets))
      return false;
    PassManager pm(module->getName());
    LogicalResult built =
        i < shared ? driver::buildSharedPhase(phase, pm, target, request)
                   : target.buildPhase(phase, pm, request);
    if (failed(built))
      return false;
    if (failed(driver::runPhase(pm, module, request))) {
      emitError(loc, "compilation failed in phase '") << phase << "'";
      return false;
    }
    timer.lap(phase.c_str());
    if (i + 1 == shared) {
      signature = driver::readSignature(module);
      // A device kernel cannot take a tensor without elements: refuse one
      // here, by name, rather than fail in the device's code generation.
      // An input that nothing reads (ReduceSum's empty `axes`, known at
      // import) reaches no kernel, and the bundle passes it as 0 bytes.
      func::FuncOp entry;
      for (auto ep : module.getOps<EntryPointOp>())
        entry = module.lookupSymbol<func::FuncOp>(ep.getFunction());
      auto unread = [&](size_t input) {
        return entry && !entry.isExternal() &&
               input < entry.getNumArguments() &&
               entry.getArgument(input).use_empty();
      };
      if (target.defaultArtifactKind() == "bundle")
        for (const auto *list : {&signature->inputs, &signature->outputs})
          for (auto [index, t] : llvm::enumerate(*list))
            if (llvm::is_contained(t.shape, 0) &&
                !(list == &signature->inputs && unread(index))) {
              emitError(loc,
                        list == &signature->inputs ? "input '" : "output '")
                  << t.name << "' has no elements (shape "
                  << dimsString(t.shape) << "); target '" << target.name()
                  << "' passes tensors of at least one element to its "
                     "kernels";
              return false;
            }
    }
    if (phase == "hodu" && opts.stats) {
      driver::printKernelStats(module);
      timer.restart();
    }
    if (phase == "partition" && opts.stats) {
      driver::printPartitionStats(module);
      timer.restart();
    }
    if (opts.stats && !planPrinted)
      planPrinted = driver::printMemoryPlan(module);
    if (phase == "partition" && phase != stop &&
        driver::hasHostPartitions(module)) {
      if (mlirOut) {
        emitError(loc, "--compile-to=")
            << stop << ": a model split between '" << target.name()
            << "' and the CPU shows its partitions up to 'partition'; the "
            << "later phases run per device";
        return false;
      }
      return driver::compileHeterogeneous(module, opts, target, request,
                                          request.prefix, timer);
    }
    if (phase == stop) {
      stopped = true;
      break;
    }
  }
  if (!stopped && last < phases.size())
    return true; // the caller runs the rest
  if (mlirOut) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    os << "\n";
    return succeeded(writeText(
        opts.outputPath.empty() ? "-" : opts.outputPath, text, loc));
  }

  // A padded symbol's buckets on the CPU: each compiled whole with a
  // prefix of its own, then merged in behind a dispatcher
  // (lib/Driver/Buckets.cpp).
  if (!buckets.empty() && !bundleBuckets &&
      (!compileBuckets(module, opts, target, request, phases.size(), timer,
                       buckets) ||
       failed(driver::mergeBuckets(module, buckets, request.prefix, loc))))
    return false;

  SerializeRequest req;
  auto kind = target.findArtifactKind(opts.emit);
  if (!kind) {
    emitError(loc, "unknown artifact kind '") << opts.emit << "'";
    return false;
  }
  req.kind = &*kind;
  req.outputPath = opts.outputPath;
  req.prefix = request.prefix;
  req.sourcePath = opts.inputPath;
  req.headerPath = opts.headerPath;
  req.pluginDevice = opts.pluginDevice;
  req.pluginHostCode = opts.pluginHostCode;
  req.signature = signature ? *signature : driver::readSignature(module);
  req.stats = opts.stats;
  timer.restart();
  return succeeded(target.serialize(module, req, opts.targetOptions));
}

/// The node an error is located at: the first name in its location that
/// names a node of the model (the ONNX importer's loc("node"(file))).
static std::string nodeOfDiagnostic(const Diagnostic &d) {
  std::string name;
  d.getLocation()->walk([&](Location l) {
    if (auto n = dyn_cast<NameLoc>(l)) {
      name = n.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

/// --index-checks: as given, else "error" where the checks run (a target
/// whose op table has hodu.assert, or an accelerator with --fallback=cpu,
/// which runs them on the CPU) and "clamp" elsewhere, so a model whose
/// indices are known only at run time still compiles for a GPU alone.
static std::string indexChecksFor(const CompileOptions &opts,
                                  const TargetBackend &target) {
  if (!opts.indexChecks.empty())
    return opts.indexChecks;
  if (opts.fallback == "cpu" && target.partitions())
    return "error";
  bool runsChecks = llvm::any_of(target.opSupport(), [](const OpSupport &r) {
    return r.op == AssertOp::getOperationName();
  });
  return runsChecks ? "error" : "clamp";
}

static bool compileModule(ModuleOp module, const CompileOptions &opts,
                          StatsTimer &timer,
                          MutableArrayRef<driver::PaddedBucket> buckets = {}) {
  MLIRContext &context = *module.getContext();
  Location loc = FileLineColLoc::get(&context, opts.inputPath, 0, 0);
  std::string error;
  const TargetBackend *target = lookupTarget(opts.target, error);
  if (!target) {
    emitError(loc, error);
    return false;
  }
  const TargetBackend *cpu = lookupTarget("cpu", error);
  if (opts.stats) {
    // The CPU compiles the host partitions of a heterogeneous plan, so its
    // remarks count with --fallback=cpu.
    std::vector<const TargetBackend *> reporting = {target};
    if (opts.fallback == "cpu" && cpu && cpu != target)
      reporting.push_back(cpu);
    driver::enableStatsRemarks(context, reporting);
  }
  if (failed(target->validate(opts.targetOptions, loc)) ||
      (opts.fallback == "cpu" && target != cpu && cpu &&
       failed(cpu->validate(opts.fallbackOptions, loc))) ||
      failed(verify(module)) ||
      failed(checkTensorSizes(module, opts.maxTensorElements)) ||
      failed(markMetaSlots(module, opts.metaSlots, loc)) ||
      (opts.train.enabled &&
       failed(makeTrainStep(module, opts.train, opts.import, loc))))
    return false;

  std::string prefix =
      opts.name.empty() ? defaultModelName(opts.inputPath) : opts.name;
  if (!module->hasAttr("hodu.model_name"))
    module->setAttr("hodu.model_name", StringAttr::get(&context, prefix));

  // IR printed at a phase is what the default artifact would be built from.
  PipelineRequest request{opts.targetOptions, prefix,
                          opts.emit == "mlir" ? target->defaultArtifactKind()
                                              : opts.emit};
  request.fallback = opts.fallback;
  request.verifyEach = opts.verifyEach;
  request.forceCpuOps = opts.forceCpuOps;
  request.placement = opts.placement;
  request.dumpPlacement = opts.dumpPlacement;
  request.indexChecks = indexChecksFor(opts, *target);
  std::vector<std::string> phases = phaseNames(*target);
  std::string stop = opts.compileTo.value_or(
      opts.emit == "mlir" ? "hodu" : phases.back());
  size_t partitionAt = llvm::find(phases, "partition") - phases.begin();
  size_t stopAt = llvm::find(phases, stop) - phases.begin();
  if (opts.fallback != "cpu" || partitionAt >= phases.size() ||
      stopAt <= partitionAt)
    return runPhases(module, opts, *target, request, 0, phases.size(), timer,
                     buckets);
  if (!buckets.empty()) {
    emitError(loc, "sizes to compile at (@) and --fallback=cpu: a bundle "
                   "whose model may be split between '")
        << target->name() << "' and the CPU runs one plan at the bounds; "
        << "drop the @ sizes or --fallback=cpu";
    return false;
  }

  // With --fallback=cpu, a node whose kernels the target's code generation
  // cannot build after all (its op support table is about ops, not about
  // every shape) moves to the CPU, and the compile runs again from the
  // partition phase; the diagnostics of the attempts that failed are
  // dropped, those of the last one kept.
  if (!runPhases(module, opts, *target, request, 0, partitionAt, timer))
    return false;
  OwningOpRef<ModuleOp> snapshot(cast<ModuleOp>(module->clone()));
  std::vector<std::string> cpuNodes;
  for (;;) {
    OwningOpRef<ModuleOp> attempt(cast<ModuleOp>(snapshot->clone()));
    request.cpuNodes = cpuNodes;
    std::vector<Diagnostic> captured;
    bool ok;
    {
      ScopedDiagnosticHandler capture(&context, [&](Diagnostic &d) {
        captured.push_back(std::move(d));
        return success();
      });
      ok = runPhases(*attempt, opts, *target, request, partitionAt,
                     phases.size(), timer);
    }
    std::string node;
    for (const Diagnostic &d : captured)
      if (!ok && node.empty() && d.getSeverity() == DiagnosticSeverity::Error)
        node = nodeOfDiagnostic(d);
    if (ok || node.empty() || llvm::is_contained(cpuNodes, node)) {
      for (Diagnostic &d : captured)
        context.getDiagEngine().emit(std::move(d));
      if (ok && !cpuNodes.empty())
        llvm::errs() << "hoduc: note: '" << target->name()
                     << "' could not build the kernels of "
                     << cpuNodes.size() << " node(s), which run on the CPU: "
                     << llvm::join(cpuNodes, ", ") << "\n";
      return ok;
    }
    cpuNodes.push_back(node);
  }
}

static bool finish(bool ok, const CompileOptions &opts,
                   std::chrono::steady_clock::time_point start) {
  if (ok && opts.stats) {
    uint64_t size = 0;
    if (opts.outputPath != "-" &&
        !llvm::sys::fs::file_size(opts.outputPath, size))
      llvm::errs() << "hoduc: stats: artifact    " << size << " bytes\n";
    llvm::errs() << llvm::format(
        "hoduc: stats: total       %8.1f ms\n",
        std::chrono::duration<double, std::milli>(
            std::chrono::steady_clock::now() - start)
            .count());
  }
  return ok;
}

/// With --fallback=cpu on an accelerator target, the CPU options (--target,
/// -mcpu, -mattr) are the CPU part's: a bundle built for another machine
/// (an aarch64 host, an older x86-64 server) names that machine's CPU.
static CompileOptions splitFallbackOptions(const CompileOptions &options) {
  CompileOptions opts = options;
  if (opts.fallback != "cpu" || opts.target == "cpu")
    return opts;
  TargetOptions &t = opts.targetOptions;
  opts.fallbackOptions.triple = std::exchange(t.triple, "");
  opts.fallbackOptions.cpu = std::exchange(t.cpu, "");
  opts.fallbackOptions.features = std::exchange(t.features, "");
  opts.fallbackOptions.optLevel = t.optLevel;
  opts.fallbackOptions.winograd = t.winograd;
  opts.fallbackOptions.fpContract = t.fpContract;
  return opts;
}

bool hodu::compile(ModuleOp module, const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  StatsTimer timer{options.stats};
  CompileOptions opts = splitFallbackOptions(options);
  if (failed(driver::applySymbols(module, opts)))
    return false;
  return finish(compileModule(module, opts, timer), opts, start);
}

bool hodu::compileToMemory(ModuleOp module, const CompileOptions &options,
                           std::vector<uint8_t> &bytes) {
  Location loc = module.getLoc();
  std::string error;
  const TargetBackend *target = lookupTarget(options.target, error);
  if (!target)
    return emitError(loc, error), false;
  if (!options.outputPath.empty() || !options.headerPath.empty())
    return emitError(loc, "internal error: compileToMemory takes no output "
                          "or header path"),
           false;
  std::string kindName =
      options.emit.empty() ? target->defaultArtifactKind() : options.emit;
  std::optional<ArtifactKind> kind = target->findArtifactKind(kindName);
  if (!kind)
    return emitError(loc, "unknown artifact kind '")
               << kindName << "' for target '" << target->name() << "'",
           false;
  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("hodu-compile", dir))
    return emitError(loc, "cannot create a temporary directory: ")
               << ec.message(),
           false;
  struct RemoveDir {
    llvm::SmallString<128> &path;
    ~RemoveDir() { llvm::sys::fs::remove_directories(path); }
  } remove{dir};
  CompileOptions opts = options;
  opts.emit = kind->name;
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, "model" + kind->extension);
  opts.outputPath = std::string(path);
  if (!compile(module, opts))
    return false;
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return emitError(loc, "cannot read the artifact back: ")
               << file.getError().message(),
           false;
  llvm::StringRef data = (*file)->getBuffer();
  bytes.assign(data.begin(), data.end());
  return true;
}

bool hodu::compile(MLIRContext &context, const CompileOptions &opts) {
  auto start = std::chrono::steady_clock::now();
  StatsTimer timer{opts.stats};
  Location loc = FileLineColLoc::get(&context, opts.inputPath, 0, 0);
  std::string error;
  if (!lookupTarget(opts.target, error)) {
    emitError(loc, error);
    return false;
  }
  auto &registry = ComponentRegistry::get();
  if (!llvm::sys::fs::exists(opts.inputPath)) {
    emitError(loc, "no such file: '") << opts.inputPath << "'";
    return false;
  }
  const Importer *importer = registry.findImporterForPath(opts.inputPath);
  // A format no built-in importer reads: an importer plugin whose manifest
  // claims the extension, else a format plugin (docs/plugins.md) may
  // convert it into one that is read, through a temporary file.
  std::vector<std::string> importerProblems;
  if (!importer) {
    importerProblems = loadToolchainPlugins(
        llvm::sys::path::extension(opts.inputPath).lower(), "");
    importer = registry.findImporterForPath(opts.inputPath);
  }
  CompileOptions importOpts = opts;
  struct RemoveFile {
    std::string path;
    ~RemoveFile() {
      if (!path.empty())
        llvm::sys::fs::remove(path);
    }
  } converted;
  if (!importer) {
    void *bytes = nullptr;
    size_t size = 0;
    const char *format = nullptr, *plugin = nullptr;
    hodu_status status = hodu_plugin_convert(opts.inputPath.c_str(), &bytes,
                                             &size, &format, &plugin);
    if (status && hodu_status_get_code(status) == HODU_NOT_FOUND) {
      hodu_status_free(status);
      std::vector<std::string> known;
      for (auto &i : registry.importers())
        for (auto &e : i.extensions)
          known.push_back(e);
      InFlightDiagnostic d = emitError(loc, "unknown model format for '")
                             << opts.inputPath
                             << "' (known extensions: " << joined(known)
                             << "; no format plugin claims it)";
      for (const std::string &problem : importerProblems)
        d << "; " << problem;
      return false;
    }
    if (status) {
      emitError(loc, hodu_status_message(status));
      hodu_status_free(status);
      return false;
    }
    llvm::SmallString<256> path;
    int fd = -1;
    std::error_code ec = llvm::sys::fs::createTemporaryFile(
        "hodu-format", format + 1, fd, path);
    if (!ec) {
      converted.path = std::string(path);
      llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
      out.write(static_cast<const char *>(bytes), size);
      out.close();
      if (out.has_error())
        ec = out.error();
    }
    hodu_plugin_free(bytes);
    if (ec) {
      emitError(loc, "cannot write the converted model: ") << ec.message();
      return false;
    }
    importer = registry.findImporterForPath(converted.path);
    if (!importer) {
      emitError(loc, "format plugin '")
          << plugin << "' converted it to '" << format
          << "', which this hoduc cannot import";
      return false;
    }
    importOpts.inputPath = converted.path;
  }
  SmallVector<driver::PaddedBucket> buckets;
  OwningOpRef<ModuleOp> module = driver::importWithSymbols(
      *importer, context, importOpts,
      [&] {
        ImportOptions io = opts.import;
        io.maxTensorElements = opts.maxTensorElements;
        return io;
      }(),
      &buckets);
  if (!module && !converted.path.empty())
    emitError(loc, "the format plugin's conversion of it did not import "
                   "(the errors above are in its output)");
  if (!module)
    return false;
  timer.lap("import");
  return finish(
      compileModule(*module, splitFallbackOptions(opts), timer, buckets), opts,
      start);
}
