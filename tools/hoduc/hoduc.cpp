//===- hoduc.cpp - the Hodu ahead-of-time compiler ------------------------===//
//
//   hoduc MODEL -o OUT [--emit=KIND] [-O0..-O3] [--target=TRIPLE] [-mcpu=CPU]
//         [--name=PREFIX] [--input-shape=NAME:DIMS]... [--compile-to=PHASE]
//
// See docs/hoduc.md.
//
//===----------------------------------------------------------------------===//

#include "hodu/Driver/Compiler.h"
#include "hodu/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory category("hoduc options");

static cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model>"),
                                      cl::cat(category));
static cl::opt<std::string> outputPath("o", cl::desc("Output file"),
                                       cl::value_desc("path"), cl::cat(category));
static cl::opt<std::string>
    emitKind("emit",
             cl::desc("What to write: so (default), o, a, exe, ll, bc, s, mlir. "
                      "Default: from the -o extension"),
             cl::value_desc("kind"), cl::cat(category));
static cl::opt<unsigned> optLevel("O", cl::desc("Optimisation level 0-3 (default 2)"),
                                  cl::Prefix, cl::init(2), cl::cat(category));
static cl::opt<std::string> triple("target",
                                   cl::desc("Target triple, e.g. "
                                            "x86_64-linux-gnu, aarch64-linux-gnu "
                                            "(default: host)"),
                                   cl::value_desc("triple"), cl::cat(category));
static cl::opt<std::string> mcpu("mcpu",
                                 cl::desc("Target CPU (default: host CPU for "
                                          "host builds, generic otherwise)"),
                                 cl::value_desc("cpu"), cl::cat(category));
static cl::opt<std::string> mattr("mattr", cl::desc("Extra CPU features (+avx2,-fma)"),
                                  cl::value_desc("features"), cl::cat(category));
static cl::opt<std::string> device("device",
                                   cl::desc("Device target: cpu (default)"),
                                   cl::init("cpu"), cl::cat(category));
static cl::opt<std::string>
    modelName("name",
              cl::desc("Symbol prefix of the artifact (default: the model file's "
                       "stem); lets several models link into one program"),
              cl::value_desc("prefix"), cl::cat(category));
static cl::list<std::string>
    inputShapes("input-shape",
                cl::desc("Pin an input's dims: NAME:1x3x224x224 (repeatable; "
                         "split at the last ':')"),
                cl::value_desc("name:dims"), cl::cat(category));
static cl::opt<bool> stats("print-stats",
                           cl::desc("Print phase times, kernel counts without "
                                    "and with fusion groups, and the artifact "
                                    "size to stderr"),
                           cl::cat(category));
static cl::opt<std::string>
    headerPath("header",
               cl::desc("Also write a C header declaring the descriptor and a "
                        "typed <prefix>_run() entry point"),
               cl::value_desc("path"), cl::cat(category));
static cl::opt<std::string>
    compileTo("compile-to",
              cl::desc("Stop after a phase and print its IR: input, hodu, "
                       "linalg, bufferized, llvm"),
              cl::value_desc("phase"), cl::cat(category));

static int usageError(const Twine &msg) {
  errs() << "hoduc: error: " << msg << "\n";
  return 1;
}

/// "x:1x3x48x320" -> ("x", [1,3,48,320]); split at the last ':'.
static bool parseInputShape(StringRef spec,
                            std::pair<std::string, std::vector<int64_t>> &out,
                            std::string &error) {
  size_t colon = spec.rfind(':');
  if (colon == StringRef::npos || colon == 0 || colon + 1 == spec.size()) {
    error = "--input-shape expects NAME:DIMS (e.g. input:1x3x224x224), got '" +
            spec.str() + "'";
    return false;
  }
  out.first = spec.take_front(colon).str();
  SmallVector<StringRef> parts;
  spec.drop_front(colon + 1).split(parts, 'x');
  for (StringRef p : parts) {
    int64_t v;
    if (p.getAsInteger(10, v) || v < 0) {
      error = "--input-shape '" + spec.str() + "': '" + p.str() +
              "' is not a non-negative dimension";
      return false;
    }
    out.second.push_back(v);
  }
  return true;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // MLIR's printing and context options (--mlir-print-debuginfo, ...).
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "hoduc (Hodu) 0.1.0, built with LLVM " LLVM_VERSION_STRING "\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "hoduc: the Hodu ahead-of-time model compiler\n\n"
                              "  hoduc model.onnx -o libmodel.so\n");

  if (inputPath.empty())
    return usageError("no input model (see --help)");

  hodu::CompileOptions opts;
  opts.inputPath = inputPath;
  opts.optLevel = optLevel;
  if (opts.optLevel > 3)
    return usageError("-O" + Twine(opts.optLevel) + " is not a level (0-3)");
  opts.triple = triple;
  opts.cpu = mcpu;
  opts.features = mattr;
  opts.target = device;
  opts.name = modelName;
  opts.headerPath = headerPath;
  opts.stats = stats;
  if (!opts.name.empty() && !(isAlpha(opts.name[0]) || opts.name[0] == '_'))
    return usageError("--name '" + opts.name + "' is not a C identifier");
  for (char c : opts.name)
    if (!isAlnum(c) && c != '_')
      return usageError("--name '" + opts.name + "' is not a C identifier");

  for (const std::string &spec : inputShapes) {
    std::pair<std::string, std::vector<int64_t>> pin;
    std::string error;
    if (!parseInputShape(spec, pin, error))
      return usageError(error);
    opts.import.inputShapes.push_back(std::move(pin));
  }

  if (!compileTo.empty()) {
    auto phase = hodu::parsePhase(compileTo);
    if (!phase)
      return usageError("unknown phase '" + compileTo + "' (phases: " +
                        hodu::phaseList() + ")");
    opts.compileTo = phase;
  }

  // Emit kind: --emit wins, else the -o extension, else a shared library.
  if (!emitKind.empty()) {
    auto kind = hodu::parseEmitKind(emitKind);
    if (!kind)
      return usageError("unknown --emit kind '" + emitKind +
                        "' (kinds: so, o, a, exe, ll, bc, s, mlir)");
    opts.emit = *kind;
  } else if (auto kind = hodu::emitKindForPath(outputPath)) {
    opts.emit = *kind;
  } else if (opts.compileTo) {
    opts.emit = hodu::EmitKind::Mlir;
  }
  opts.outputPath = outputPath;
  if (!opts.headerPath.empty() && (opts.emit == hodu::EmitKind::Mlir || opts.compileTo))
    return usageError("--header needs a compiled artifact, not --emit=mlir or --compile-to");
  if (opts.outputPath.empty()) {
    bool text = opts.emit == hodu::EmitKind::Mlir ||
                opts.emit == hodu::EmitKind::LLVMIR ||
                opts.emit == hodu::EmitKind::Assembly;
    if (text) {
      opts.outputPath = "-";
    } else {
      std::string stem = hodu::defaultModelName(inputPath);
      switch (opts.emit) {
      case hodu::EmitKind::Shared: opts.outputPath = "lib" + stem + ".so"; break;
      case hodu::EmitKind::Static: opts.outputPath = "lib" + stem + ".a"; break;
      case hodu::EmitKind::Object: opts.outputPath = stem + ".o"; break;
      case hodu::EmitKind::Bitcode: opts.outputPath = stem + ".bc"; break;
      default: opts.outputPath = stem; break;
      }
    }
  }

  mlir::DialectRegistry registry;
  hodu::registerCompilerDialects(registry);
  mlir::registerAllPasses();
  hodu::registerHoduPasses();
  mlir::MLIRContext context(registry);
  // Diagnostics name the op and its location; dumping a whole model's IR
  // with every error helps nobody.
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  return hodu::compile(context, opts) ? 0 : 1;
}
