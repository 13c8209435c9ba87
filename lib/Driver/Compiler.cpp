//===- Compiler.cpp - import, shared phases, hand-over to a target --------===//
#include "hodu/Driver/Compiler.h"

#include "Driver.h"

#include "hodu/ABI/Passes.h"
#include "hodu/Conversion/Passes.h"
#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Registry/Registry.h"
#include "hodu/Support/DType.h"
#include "hodu/Support/Names.h"
#include "hodu/Support/Output.h"
#include "hodu/Support/Timer.h"
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

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace hodu;

const char *const hodu::kSharedPhases[3] = {"input", "hodu", "linalg"};

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
    driver::registerSharedPipelines();
    registerAllComponents(); // targets register their passes and pipelines
    return true;
  }();
  (void)done;
}

std::vector<std::string> hodu::phaseNames(const TargetBackend &target) {
  std::vector<std::string> names(std::begin(kSharedPhases),
                                 std::end(kSharedPhases));
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
  std::vector<std::string> known;
  for (auto &t : registry.targets())
    known.push_back(t->name());
  error = "unknown target '" + name + "' (known: " + joined(known) + ")";
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

//===----------------------------------------------------------------------===//
// compile()
//===----------------------------------------------------------------------===//

/// The entry point's signature, read before the target lowers it.
static EntrySignature readSignature(ModuleOp module) {
  EntrySignature sig;
  for (auto ep : module.getOps<EntryPointOp>()) {
    sig.modelName = ep.getModelName().str();
    auto read = [&](ArrayAttr list, std::vector<TensorSignature> &out) {
      for (Attribute a : list) {
        auto dict = cast<DictionaryAttr>(a);
        auto type =
            cast<RankedTensorType>(dict.getAs<TypeAttr>("type").getValue());
        TensorSignature t{dict.getAs<StringAttr>("name").str(),
                          *dtypeOf(type.getElementType()),
                          std::vector<int64_t>(type.getShape().begin(),
                                               type.getShape().end()),
                          {}};
        if (dict.get("meta")) {
          ++sig.numMetaSlots;
          if (Attribute init = dict.get("init"))
            constantBytes(init, t.init);
        }
        out.push_back(std::move(t));
      }
    };
    read(ep.getInputs(), sig.inputs);
    read(ep.getOutputs(), sig.outputs);
  }
  return sig;
}

/// Marks the entry function's inputs named in `names` as meta slots
/// (`hodu.meta_slot`), the same way for every model format.
static LogicalResult markMetaSlots(ModuleOp module,
                                   ArrayRef<std::string> names, Location loc) {
  if (names.empty())
    return success();
  func::FuncOp entry = module.lookupSymbol<func::FuncOp>("main");
  if (!entry)
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal())
        entry = f;
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

static bool compileModule(ModuleOp module, const CompileOptions &opts,
                          StatsTimer &timer) {
  MLIRContext &context = *module.getContext();
  Location loc = FileLineColLoc::get(&context, opts.inputPath, 0, 0);
  std::string error;
  const TargetBackend *target = lookupTarget(opts.target, error);
  if (!target) {
    emitError(loc, error);
    return false;
  }
  if (failed(target->validate(opts.targetOptions, loc)) ||
      failed(verify(module)) ||
      failed(markMetaSlots(module, opts.metaSlots, loc)))
    return false;

  std::string prefix =
      opts.name.empty() ? defaultModelName(opts.inputPath) : opts.name;
  if (!module->hasAttr("hodu.model_name"))
    module->setAttr("hodu.model_name", StringAttr::get(&context, prefix));

  // IR printed at a phase is what the default artifact would be built from.
  PipelineRequest request{opts.targetOptions, prefix,
                          opts.emit == "mlir" ? target->defaultArtifactKind()
                                              : opts.emit};
  std::vector<std::string> phases = phaseNames(*target);
  // A phase to stop at: the last one for .mlir output, else as asked.
  bool mlirOut = opts.emit == "mlir";
  std::string stop = opts.compileTo.value_or(mlirOut ? "hodu" : phases.back());
  size_t shared = std::size(kSharedPhases);
  EntrySignature signature;
  bool planPrinted = false;
  for (size_t i = 0; i < phases.size(); ++i) {
    const std::string &phase = phases[i];
    PassManager pm(module->getName());
    LogicalResult built =
        i < shared ? driver::buildSharedPhase(phase, pm, *target, request)
                   : target->buildPhase(phase, pm, request);
    if (failed(built))
      return false;
    if (failed(pm.run(module))) {
      emitError(loc, "compilation failed in phase '") << phase << "'";
      return false;
    }
    timer.lap(phase.c_str());
    if (phase == "hodu" && opts.stats) {
      driver::printKernelStats(module);
      timer.restart();
    }
    if (opts.stats && !planPrinted)
      planPrinted = driver::printMemoryPlan(module);
    if (i + 1 == shared)
      signature = readSignature(module);
    if (phase == stop)
      break;
  }
  if (mlirOut) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    os << "\n";
    return succeeded(writeText(
        opts.outputPath.empty() ? "-" : opts.outputPath, text, loc));
  }

  SerializeRequest req;
  auto kind = target->findArtifactKind(opts.emit);
  if (!kind) {
    emitError(loc, "unknown artifact kind '") << opts.emit << "'";
    return false;
  }
  req.kind = &*kind;
  req.outputPath = opts.outputPath;
  req.prefix = prefix;
  req.sourcePath = opts.inputPath;
  req.headerPath = opts.headerPath;
  req.signature = std::move(signature);
  req.stats = opts.stats;
  timer.restart();
  return succeeded(target->serialize(module, req, opts.targetOptions));
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

bool hodu::compile(ModuleOp module, const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  StatsTimer timer{options.stats};
  return finish(compileModule(module, options, timer), options, start);
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
  if (!importer) {
    std::vector<std::string> known;
    for (auto &i : registry.importers())
      for (auto &e : i.extensions)
        known.push_back(e);
    emitError(loc, "unknown model format for '")
        << opts.inputPath << "' (known extensions: " << joined(known) << ")";
    return false;
  }
  OwningOpRef<ModuleOp> module =
      importer->import(opts.inputPath, context, opts.import);
  if (!module)
    return false;
  timer.lap("import");
  return finish(compileModule(*module, opts, timer), opts, start);
}
