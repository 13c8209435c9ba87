//===- hoduc.cpp - the Hodu ahead-of-time compiler ------------------------===//
//
//   hoduc MODEL -o OUT [--emit=KIND] [-O0..-O3] [--device=TARGET]
//         [--target=TRIPLE] [-mcpu=CPU] [--gpu-arch=ARCH,...] [--name=PREFIX]
//         [--input-shape=NAME:DIMS]... [--dim=NAME=SPEC]... [--freeze-input=NAME=FILE]...
//         [--compile-to=PHASE]
//   hoduc --list-targets
//
// See docs/hoduc.md.
//
//===----------------------------------------------------------------------===//

#include "hodu/Driver/Compiler.h"
#include "hodu/runtime.h"
#include "hodu/Support/Diagnostics.h"
#include "hodu/Support/Names.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
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
             cl::desc("What to write: an artifact kind of the target (cpu: so "
                      "(default), o, a, exe, ll, bc, s) or mlir. Default: from "
                      "the -o extension"),
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
static cl::opt<std::string> fpContract(
    "fp-contract",
    cl::desc("CPU: fuse multiplies and adds into FMAs within an op only "
             "(on; default: each op rounds as ONNX defines) or also across "
             "the ops of a fused kernel (fast; -O2 and up)"),
    cl::value_desc("on|fast"), cl::init("on"), cl::cat(category));
static cl::opt<std::string> winograd(
    "winograd",
    cl::desc("CPU: Winograd 3x3 convolutions: auto (F(2x2,3x3) and "
             "F(4x4,3x3) where cheaper; default), f2 (F(2x2,3x3) only, "
             "rounding like the direct sum) or off"),
    cl::value_desc("auto|f2|off"), cl::init("auto"), cl::cat(category));
static cl::opt<std::string>
    device("device",
           cl::desc("Target back end: cpu (default); see --list-targets. "
                    "The name of a device plugin's device makes a bundle "
                    "for it (docs/plugins.md)"),
           cl::init("cpu"), cl::cat(category));
static cl::list<std::string>
    gpuArchs("gpu-arch", cl::CommaSeparated,
             cl::desc("GPU targets: the architectures to compile for "
                      "(sm_80,sm_90; gfx942)"),
             cl::value_desc("arch,..."), cl::cat(category));
static cl::opt<std::string> gpuMath(
    "gpu-math",
    cl::desc("CUDA: matmuls and convolutions on tensor cores (sm_80+), with "
             "f32 ones as 3xtf32 (default, f32-accurate) or tf32 (faster, "
             "about 1e-3 relative); ROCm: on matrix cores (MFMA, CDNA), f32 "
             "ones in f32 or, with tf32, as xf32 (gfx940-942); fma: the FMA "
             "kernels"),
    cl::value_desc("3xtf32|tf32|fma"), cl::init("3xtf32"), cl::cat(category));
static cl::opt<int> gpuMultiprocessors(
    "gpu-multiprocessors",
    cl::desc("CUDA, ROCm: the multiprocessors of the GPU to compile for "
             "(NVIDIA's SMs, AMD's compute units; an H100 PCIe: 114); "
             "matmuls and convolutions are tiled so that their blocks fill "
             "them. Default: those of each --gpu-arch's largest part "
             "(sm_80: 108, sm_90a: 132, gfx942: 304)"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<std::string> precision(
    "precision",
    cl::desc("How f32 models compute: f32 (default); bf16 (CPU: matmuls and "
             "batch matmuls on bf16 dot products, AVX512-BF16; CUDA, ROCm: "
             "matmuls and convolutions on bf16 operands); f16 (GPU targets: "
             "matmuls and convolutions on f16 operands, on CUDA's tensor "
             "cores). Sums stay f32, as do normalisations, softmax and the "
             "rest"),
    cl::value_desc("f32|f16|bf16"), cl::init("f32"), cl::cat(category));
static cl::opt<bool> printOpSupport(
    "print-op-support",
    cl::desc("Print the op support table of --device: the hodu ops it runs, "
             "with which dtypes and conditions"),
    cl::cat(category));
static cl::opt<bool> listTargets("list-targets",
                                 cl::desc("List the targets, their artifact "
                                          "kinds and phases, and whether "
                                          "their tools are found"),
                                 cl::cat(category));
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
static cl::list<std::string> dimSpecs(
    "dim",
    cl::desc("A symbolic dim (ONNX dim_param, or '?' in --input-shape): "
             "NAME=N pins it; NAME=MIN..MAX[%MULTIPLE][@CHUNK] keeps it "
             "symbolic with bounds (default 1..), values that are multiples "
             "of MULTIPLE, and code compiled for CHUNK (default: MULTIPLE); "
             "a symbol that ops mix (a sequence) needs MAX and is compiled "
             "at it, and @S1,S2,... compiles it at those sizes too; "
             "NAME=OTHER makes NAME the same symbol as OTHER (repeatable)"),
    cl::value_desc("name=spec"), cl::cat(category));
static cl::list<std::string> sequenceLengths(
    "sequence-length",
    cl::desc("ONNX: the length of a sequence input, NAME:N; its elements "
             "become the inputs NAME[0] .. NAME[N-1] (pin their shapes with "
             "--input-shape=NAME[i]:DIMS, or NAME:DIMS for all), and a "
             "sequence output's the outputs NAME[i] (repeatable)"),
    cl::value_desc("name:n"), cl::cat(category));
static cl::opt<int64_t> sequenceCapacity(
    "sequence-capacity",
    cl::desc("ONNX: the most elements a sequence whose length is known only "
             "at run time holds (one a Loop of run-time iterations grows); "
             "a run that would insert more fails with a run-time check "
             "(default 256)"),
    cl::init(256), cl::value_desc("n"), cl::cat(category));
static cl::list<std::string> freezeInputs(
    "freeze-input",
    cl::desc("ONNX: import a graph input as a constant read from FILE (a "
             "TensorProto .pb, or a test_data_set directory holding "
             "input_N.pb of that name); an If on it compiles only the branch "
             "taken (repeatable)"),
    cl::value_desc("name=file"), cl::cat(category));
static cl::list<std::string>
    metaSlots("meta-slots",
              cl::desc("Inputs that are meta slots: small tensors at fixed "
                       "device addresses that the host writes between runs "
                       "and replays (a learning rate, a step count)"),
              cl::value_desc("name,..."), cl::CommaSeparated, cl::cat(category));
static cl::opt<bool> onnxShapeCheck(
    "onnx-shape-check",
    cl::desc("ONNX: also run libonnx's shape inference and check the "
             "importer's types against it (for testing the importer; off by "
             "default, since libonnx crashes on some malformed models)"),
    cl::cat(category));
static cl::opt<int64_t> maxTensorElements(
    "max-tensor-elements",
    cl::desc("Refuse a model with a tensor of more elements than this "
             "(default 2^40)"),
    cl::init(int64_t(1) << 40), cl::value_desc("n"), cl::cat(category));
static cl::opt<std::string>
    fallback("fallback",
             cl::desc("Where the ops --device cannot run go: cpu (a "
                      "heterogeneous bundle); without it they are errors"),
             cl::value_desc("cpu"), cl::cat(category));
static cl::opt<std::string> indexChecks(
    "index-checks",
    cl::desc("Gather/scatter indices known only at run time: error (an "
             "index outside its dim fails the run, naming the node; the "
             "default where the target runs checks: the CPU, or a GPU with "
             "--fallback=cpu) or clamp (kept within the dim unchecked; the "
             "default on a GPU alone)"),
    cl::value_desc("error|clamp"), cl::cat(category));
static cl::list<std::string>
    forceCpuOps("force-cpu-ops",
                cl::desc("Op types (ONNX, e.g. Softmax, or hodu; * for all) "
                         "that run on the CPU"),
                cl::value_desc("op,..."), cl::CommaSeparated,
                cl::cat(category));
static cl::opt<std::string>
    placement("placement",
              cl::desc("JSON file pinning nodes to devices: "
                       "{\"node\": \"cpu\", ...}"),
              cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    dumpPlacement("dump-placement",
                  cl::desc("Write the chosen placement (the --placement "
                           "format) to this file"),
                  cl::value_desc("file"), cl::cat(category));
static cl::opt<bool> stats("print-stats",
                           cl::desc("Print phase times, kernel counts without "
                                    "and with fusion groups, and the artifact "
                                    "size to stderr"),
                           cl::cat(category));
static cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every pass (slower; default: once at the "
             "end of each phase)"),
    cl::cat(category));
static cl::opt<std::string>
    headerPath("header",
               cl::desc("Also write a C header declaring the descriptor and a "
                        "typed <prefix>_run() entry point"),
               cl::value_desc("path"), cl::cat(category));
static cl::opt<std::string>
    compileTo("compile-to",
              cl::desc("Stop after a phase and print its IR: input, hodu, "
                       "linalg, then the target's (cpu: bufferized, llvm)"),
              cl::value_desc("phase"), cl::cat(category));

static cl::list<std::string>
    pluginPaths("plugin",
                cl::desc("Also search DIR for plugins (format plugins convert "
                         "models of other formats; docs/plugins.md)"),
                cl::value_desc("dir"), cl::cat(category));
static cl::opt<bool> noPlugins("no-plugins",
                               cl::desc("Search no plugin directory"),
                               cl::cat(category));
static cl::opt<bool> listPlugins("list-plugins",
                                 cl::desc("List the plugins found and exit"),
                                 cl::cat(category));

// Training (docs/training.md): the model's train step instead of the model.
static cl::OptionCategory
    trainCategory("hoduc --train options (a train step; docs/training.md)");
static cl::opt<bool> train(
    "train",
    cl::desc("Compile the model's train step: the loss against an input "
             "'target', the gradients and the optimizer's update, the "
             "trained initializers and the optimizer's state kept as state "
             "tensors, lr, weight_decay and loss_scale as meta slots"),
    cl::cat(trainCategory));
static cl::opt<std::string> trainLoss(
    "loss",
    cl::desc("mse (default), l1, bce-with-logits, cross-entropy ([N, C] "
             "logits against class probabilities) or output (the model's "
             "output is the loss)"),
    cl::init("mse"), cl::cat(trainCategory));
static cl::opt<std::string>
    trainOptimizer("optimizer",
                   cl::desc("sgd (default), momentum, adam or adamw"),
                   cl::init("sgd"), cl::cat(trainCategory));
static cl::opt<double> trainLr("lr",
                               cl::desc("The initial learning rate (the lr "
                                        "meta slot; default 0.01)"),
                               cl::init(0.01), cl::cat(trainCategory));
static cl::opt<double> trainMomentum("momentum",
                                     cl::desc("momentum's mu (default 0.9)"),
                                     cl::init(0.9), cl::cat(trainCategory));
static cl::opt<double> trainBeta1("beta1",
                                  cl::desc("Adam's beta1 (default 0.9)"),
                                  cl::init(0.9), cl::cat(trainCategory));
static cl::opt<double> trainBeta2("beta2",
                                  cl::desc("Adam's beta2 (default 0.999)"),
                                  cl::init(0.999), cl::cat(trainCategory));
static cl::opt<double> trainEpsilon("epsilon",
                                    cl::desc("Adam's epsilon (default 1e-8)"),
                                    cl::init(1e-8), cl::cat(trainCategory));
static cl::opt<double> trainWeightDecay(
    "weight-decay",
    cl::desc("The initial weight decay (the weight_decay meta slot): L2 in "
             "the gradient for sgd, momentum and adam, decoupled for adamw "
             "(default 0)"),
    cl::init(0.0), cl::cat(trainCategory));
static cl::opt<double> trainLossScale(
    "loss-scale",
    cl::desc("The initial loss scale (the loss_scale meta slot; default 1)"),
    cl::init(1.0), cl::cat(trainCategory));
static cl::list<std::string> trainParams(
    "train-params",
    cl::desc("The initializers that train (default: every floating-point "
             "initializer)"),
    cl::value_desc("name,..."), cl::CommaSeparated, cl::cat(trainCategory));
static cl::list<std::string>
    trainFreeze("freeze",
                cl::desc("Initializers that stay constants (with the "
                         "default --train-params)"),
                cl::value_desc("name,..."), cl::CommaSeparated,
                cl::cat(trainCategory));
static cl::opt<unsigned>
    trainOutput("train-output",
                cl::desc("Which model output is the prediction (default 0)"),
                cl::init(0), cl::cat(trainCategory));

static int usageError(const Twine &msg) {
  errs() << "hoduc: error: " << msg << "\n";
  return 1;
}

/// --device names no target: a device plugin's device (hodu/plugin.h) is
/// compiled for by the built-in target that makes the first of its code
/// formats it can (SPIR-V: vulkan, PTX/cubin/fatbin: cuda, hsaco: rocm,
/// MSL: metal), or, for a device that runs ELF code objects, as a bundle
/// whose every node is on the CPU partitions (--fallback=cpu with every op
/// forced there); the bundle names the plugin's device.
static bool resolvePluginDevice(hodu::CompileOptions &opts,
                                const std::string &notTarget,
                                std::string &error) {
  const uint32_t *formats = nullptr;
  const char *pluginId = nullptr;
  if (hodu_status status = hodu_plugin_device_formats(opts.target.c_str(),
                                                      &formats, &pluginId)) {
    std::string message = hodu_status_message(status);
    bool missing =
        hodu_status_get_code(status) == HODU_NO_DEVICE &&
        message.find("no device plugin provides it") != std::string::npos;
    hodu_status_free(status);
    error = missing ? notTarget + "; no device plugin has a device '" +
                          opts.target + "' either (hoduc --list-plugins)"
                    : "--device '" + opts.target + "': " + message;
    return false;
  }
  for (const uint32_t *f = formats; *f; ++f) {
    const char *target =
        *f == HODU_CODE_SPIRV ? "vulkan"
        : *f == HODU_CODE_PTX || *f == HODU_CODE_CUBIN || *f == HODU_CODE_FATBIN
            ? "cuda"
        : *f == HODU_CODE_HSACO ? "rocm"
        : *f == HODU_CODE_MSL   ? "metal"
        : *f == HODU_CODE_ELF   ? "vulkan"
                                : nullptr;
    if (!target)
      continue;
    opts.pluginDevice = opts.target;
    opts.target = target;
    if (*f == HODU_CODE_ELF) {
      if (!opts.fallback.empty() || !opts.forceCpuOps.empty() ||
          !opts.placement.empty()) {
        error = "--device '" + opts.pluginDevice +
                "' runs host code: every node is on it, so --fallback, "
                "--force-cpu-ops and --placement do not apply";
        return false;
      }
      opts.pluginHostCode = true;
      opts.fallback = "cpu";
      opts.forceCpuOps = {"*"};
    }
    StringRef ext = llvm::sys::path::extension(opts.outputPath);
    if ((!opts.emit.empty() && opts.emit != "bundle") ||
        (opts.emit.empty() && !ext.empty() && ext != ".hodu")) {
      error = "--device '" + opts.pluginDevice + "' (plugin '" + pluginId +
              "') takes bundles only (.hodu), not " +
              (opts.emit.empty() ? "'" + opts.outputPath + "'"
                                 : "--emit=" + opts.emit);
      return false;
    }
    opts.emit = "bundle";
    return true;
  }
  error = "--device '" + opts.target + "' (plugin '" + pluginId +
          "') runs no code format hoduc makes";
  return false;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // MLIR's printing and context options (--mlir-print-debuginfo, ...).
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions({&category, &trainCategory});
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "hoduc (Hodu) 0.1.0, built with LLVM " LLVM_VERSION_STRING "\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "hoduc: the Hodu ahead-of-time model compiler\n\n"
                              "  hoduc model.onnx -o libmodel.so\n");

  if (noPlugins)
    setenv("HODU_NO_PLUGINS", "1", 1);
  for (const std::string &dir : pluginPaths)
    if (hodu_status status = hodu_plugin_add_path(dir.c_str())) {
      std::string message = hodu_status_message(status);
      hodu_status_free(status);
      return usageError("--plugin: " + message);
    }
  if (listPlugins) {
    outs() << hodu_plugin_listing();
    return 0;
  }
  if (listTargets) {
    hodu::printTargets(outs());
    return 0;
  }
  if (printOpSupport) {
    std::string error;
    if (!hodu::printOpSupport(device, outs(), error))
      return usageError(error);
    return 0;
  }
  if (inputPath.empty())
    return usageError("no input model (see --help)");

  hodu::CompileOptions opts;
  opts.inputPath = inputPath;
  opts.targetOptions.optLevel = optLevel;
  if (optLevel > 3)
    return usageError("-O" + Twine(optLevel) + " is not a level (0-3)");
  opts.targetOptions.triple = triple;
  opts.targetOptions.cpu = mcpu;
  opts.targetOptions.features = mattr;
  if (winograd != "auto" && winograd != "f2" && winograd != "off")
    return usageError("--winograd takes auto, f2 or off, not '" + winograd +
                      "'");
  opts.targetOptions.winograd = winograd;
  if (fpContract != "on" && fpContract != "fast")
    return usageError("--fp-contract takes on or fast, not '" + fpContract +
                      "'");
  opts.targetOptions.fpContract = fpContract;
  opts.targetOptions.gpuArchs.assign(gpuArchs.begin(), gpuArchs.end());
  if (gpuMath != "3xtf32" && gpuMath != "tf32" && gpuMath != "fma")
    return usageError("--gpu-math takes 3xtf32, tf32 or fma, not '" + gpuMath +
                      "'");
  opts.targetOptions.gpuMath = gpuMath;
  if (gpuMultiprocessors < 0 || gpuMultiprocessors > 4096)
    return usageError("--gpu-multiprocessors takes 1 to 4096, not " +
                      std::to_string(gpuMultiprocessors.getValue()));
  opts.targetOptions.gpuMultiprocessors = gpuMultiprocessors;
  if (precision != "f32" && precision != "f16" && precision != "bf16")
    return usageError("--precision takes f32, f16 or bf16, not '" + precision +
                      "'");
  opts.targetOptions.precision = precision;
  opts.target = device;
  opts.name = modelName;
  opts.headerPath = headerPath;
  opts.metaSlots.assign(metaSlots.begin(), metaSlots.end());
  // --train and its options (a train option without it is a mistake).
  for (const cl::Option *o : std::initializer_list<const cl::Option *>{
           &trainLoss, &trainOptimizer, &trainLr, &trainMomentum, &trainBeta1,
           &trainBeta2, &trainEpsilon, &trainWeightDecay, &trainLossScale,
           std::addressof(trainParams), std::addressof(trainFreeze),
           &trainOutput})
    if (o->getNumOccurrences() && !train)
      return usageError("--" + o->ArgStr + " is an option of --train");
  if (train) {
    if (!trainParams.empty() && !trainFreeze.empty())
      return usageError("--train-params and --freeze exclude each other: "
                        "--train-params lists what trains, --freeze what "
                        "does not of all the initializers");
    opts.train.enabled = true;
    opts.train.loss = trainLoss;
    opts.train.optimizer = trainOptimizer;
    opts.train.lr = trainLr;
    opts.train.momentum = trainMomentum;
    opts.train.beta1 = trainBeta1;
    opts.train.beta2 = trainBeta2;
    opts.train.epsilon = trainEpsilon;
    opts.train.weightDecay = trainWeightDecay;
    opts.train.lossScale = trainLossScale;
    opts.train.output = trainOutput;
    opts.import.trainAll = true;
    opts.import.trainParams.assign(trainParams.begin(), trainParams.end());
    opts.import.frozenParams.assign(trainFreeze.begin(), trainFreeze.end());
  }
  if (maxTensorElements < 1)
    return usageError("--max-tensor-elements must be at least 1");
  opts.maxTensorElements = maxTensorElements;
  if (!fallback.empty() && fallback != "cpu")
    return usageError("--fallback takes 'cpu', not '" + fallback + "'");
  opts.fallback = fallback;
  if (!indexChecks.empty() && indexChecks != "error" && indexChecks != "clamp")
    return usageError("--index-checks takes error or clamp, not '" +
                      indexChecks + "'");
  opts.indexChecks = indexChecks;
  opts.forceCpuOps.assign(forceCpuOps.begin(), forceCpuOps.end());
  opts.placement = placement;
  opts.dumpPlacement = dumpPlacement;
  opts.stats = stats;
  opts.verifyEach = verifyEach;
  if (!opts.name.empty() && !hodu::isCIdentifier(opts.name))
    return usageError("--name '" + opts.name + "' is not a C identifier");

  opts.import.onnxShapeCheck = onnxShapeCheck;
  if (sequenceCapacity < 1 || sequenceCapacity > (int64_t(1) << 24))
    return usageError("--sequence-capacity must be 1 to 2^24");
  opts.import.sequenceCapacity = sequenceCapacity;
  for (const std::string &spec : inputShapes) {
    hodu::InputShape pin;
    std::string error;
    if (!hodu::parseInputShape(spec, pin, error))
      return usageError(error);
    opts.import.inputShapes.push_back(std::move(pin));
  }
  for (const std::string &spec : dimSpecs) {
    hodu::DimSpec dim;
    std::string error;
    if (!hodu::parseDimSpec(spec, dim, error))
      return usageError(error);
    if (dim.size)
      opts.import.symbolSizes[dim.name] = *dim.size;
    else if (!dim.sameAs.empty())
      opts.import.symbolAliases[dim.name] = dim.sameAs;
    else
      opts.dims.push_back(std::move(dim));
  }
  for (const std::string &spec : sequenceLengths) {
    std::pair<std::string, int64_t> length;
    std::string error;
    if (!hodu::parseSequenceLength(spec, length, error))
      return usageError(error);
    opts.import.sequenceLengths.push_back(std::move(length));
  }
  for (const std::string &spec : freezeInputs) {
    size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      return usageError("bad --freeze-input '" + spec +
                        "', expected NAME=FILE");
    opts.import.frozenInputs.push_back({spec.substr(0, eq), spec.substr(eq + 1)});
  }
  if (!compileTo.empty())
    opts.compileTo = compileTo;
  opts.emit = emitKind;
  opts.outputPath = outputPath;
  std::string error;
  std::string notTarget;
  if (!hodu::isTargetName(device, notTarget) &&
      !resolvePluginDevice(opts, notTarget, error))
    return usageError(error);
  if (!hodu::resolveOutput(opts, error))
    return usageError(error);

  mlir::DialectRegistry registry;
  hodu::registerCompilerDialects(registry);
  hodu::registerAllCompilerPasses();
  mlir::MLIRContext context(registry);
  // Diagnostics name the op and its location; dumping a whole model's IR
  // with every error helps nobody.
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  // Registered last, so asked first: "model.onnx: node 'n' (Relu): error:".
  hodu::ModelDiagnosticHandler modelHandler(&context, llvm::errs());
  return hodu::compile(context, opts) ? 0 : 1;
}
