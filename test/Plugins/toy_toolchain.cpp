//===- toy_toolchain.cpp - an importer and a target as a C++ plugin -------===//
//
// A toolchain-tier plugin (hodu/plugin.h, HODU_PLUGIN_IMPORTER |
// HODU_PLUGIN_TARGET) for the plugin host's tests. hoduc loads it into
// itself and it registers, through the component registry hoduc's own
// importers and targets use:
//  - an importer for ".toyc" files, the .toylin dense-layer text format
//    (test/Plugins/toy_format.c), which it builds with the C++ capture API
//    and imports as hoduc's .hdss importer does;
//  - a target "toysummary" that writes a text summary of the IR the shared
//    phases leave (an op histogram).
// It links nothing of Hodu: Hodu's classes resolve from hoduc, which
// exports them. TOY_OLD_TOOLCHAIN builds a variant that claims another
// toolchain string, which hoduc must refuse.
//
//===----------------------------------------------------------------------===//
#include "hodu/Capture/Capture.h"
#include "hodu/Import/Hdss.h"
#include "hodu/Registry/Registry.h"
#include "hodu/Registry/Toolchain.h"
#include "hodu/Target/Target.h"
#include "hodu/plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <map>
#include <sstream>

#ifdef TOY_OLD_TOOLCHAIN
#define TOY_TOOLCHAIN                                                          \
  "hodu 0.0.1; LLVM 21.1.0; abi-breaking-checks 0; C++ ABI 1"
#else
#define TOY_TOOLCHAIN HODU_TOOLCHAIN
#endif
#ifndef TOY_ID
#define TOY_ID "toy-toolchain"
#endif

using namespace mlir;

namespace {

const hodu_host_api *host;

/// Reads a .toyc (.toylin) file into a captured dense layer; "" or why not.
std::string readDense(const std::string &path, hodu::capture::Board &board) {
  std::ifstream in(path);
  std::string word;
  int64_t batch = 0, inputs = 0, outputs = 0, relu = 0, version = 0;
  std::vector<float> weights, bias;
  if (!(in >> word) || word != "toylin" || !(in >> version) || version != 1)
    return "not a toylin 1 file";
  while (in >> word) {
    if (word == "batch")
      in >> batch;
    else if (word == "inputs")
      in >> inputs;
    else if (word == "outputs")
      in >> outputs;
    else if (word == "relu")
      in >> relu;
    else if (word == "weights" || word == "bias") {
      std::vector<float> &into = word == "weights" ? weights : bias;
      size_t want =
          word == "weights" ? size_t(inputs * outputs) : size_t(outputs);
      float v;
      while (into.size() < want && in >> v)
        into.push_back(v);
    } else {
      return "unknown key '" + word + "'";
    }
    if (!in)
      return "a bad value after '" + word + "'";
  }
  if (batch < 1 || inputs < 1 || outputs < 1 ||
      weights.size() != size_t(inputs * outputs) ||
      bias.size() != size_t(outputs))
    return "batch, inputs, outputs, weights and bias must all be given";
  auto x = board.input("x", {batch, inputs});
  auto y =
      hodu::capture::matmul(x, board.constant({inputs, outputs}, weights)) +
      board.constant({outputs}, bias);
  board.addTarget("y", relu ? hodu::capture::relu(y) : y);
  return "";
}

OwningOpRef<ModuleOp> importToyc(const std::string &path, MLIRContext &context,
                                 const hodu::ImportOptions &) {
  hodu::capture::Board board("toyc");
  std::string problem;
  try {
    problem = readDense(path, board);
    if (problem.empty()) {
      hodu::capture::Script script = board.capture();
      return hodu::importHdssSnapshot(script.snapshot(), context, "toyc");
    }
  } catch (const hodu::capture::Error &e) {
    problem = e.what();
  }
  emitError(FileLineColLoc::get(&context, path, 0, 0), "toyc: ") << problem;
  return nullptr;
}

/// A target that writes what the shared phases made of the model.
class SummaryTarget : public hodu::TargetBackend {
public:
  std::string name() const override { return "toysummary"; }
  std::string description() const override {
    return "a test target plugin: an op histogram of the lowered IR";
  }
  std::vector<hodu::ArtifactKind> artifactKinds() const override {
    return {{"summary", {}, ".summary", "", true, "op counts (text)"}};
  }
  std::string defaultArtifactKind() const override { return "summary"; }
  LogicalResult validate(const hodu::TargetOptions &, Location) const override {
    return success();
  }
  std::vector<std::string> phases() const override { return {}; }
  bool partitions() const override { return false; }
  LogicalResult buildPhase(llvm::StringRef phase, OpPassManager &,
                           const hodu::PipelineRequest &) const override {
    return success();
  }
  std::vector<hodu::OpSupport> opSupport() const override {
    std::vector<hodu::OpSupport> all;
    for (const std::string &op : hodu::hoduComputeOps())
      all.push_back({op, {}, "", nullptr});
    return all;
  }
  LogicalResult serialize(ModuleOp module,
                          const hodu::SerializeRequest &request,
                          const hodu::TargetOptions &) const override {
    std::map<std::string, int> counts;
    module.walk([&](Operation *op) {
      if (op != module.getOperation())
        ++counts[op->getName().getStringRef().str()];
    });
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "model " << request.prefix << "\n";
    for (auto &[op, n] : counts)
      os << op << " " << n << "\n";
    std::error_code ec;
    llvm::raw_fd_ostream out(request.outputPath, ec);
    if (ec)
      return emitError(module.getLoc(), "cannot write '")
             << request.outputPath << "': " << ec.message();
    out << text;
    return success();
  }
};

hodu_status registerComponents(void *registry) {
  auto &r = *static_cast<hodu::ComponentRegistry *>(registry);
  if (!r.addImporter({"toyc",
                      "dense layers from .toyc text (a test importer plugin)",
                      {".toyc"},
                      importToyc}))
    return host->make_status(HODU_INVALID_ARGUMENT,
                             "an importer 'toyc' is already registered");
  if (!r.addTarget(std::make_unique<SummaryTarget>()))
    return host->make_status(HODU_INVALID_ARGUMENT,
                             "a target 'toysummary' is already registered");
  return nullptr;
}

const hodu_toolchain_plugin_v1 table = {sizeof(hodu_toolchain_plugin_v1),
                                        registerComponents};

const void *getInterface(uint32_t kind, uint32_t version) {
  return (kind == HODU_PLUGIN_IMPORTER || kind == HODU_PLUGIN_TARGET) &&
                 version == 1
             ? &table
             : nullptr;
}

const hodu_plugin_header header = {
    sizeof(hodu_plugin_header),
    HODU_PLUGIN_ABI_VERSION,
    TOY_ID,
    "1.0.0",
    "a test importer (.toyc) and target (toysummary) in C++",
    HODU_PLUGIN_IMPORTER | HODU_PLUGIN_TARGET,
    0,
    TOY_TOOLCHAIN,
    getInterface,
    nullptr};

} // namespace

extern "C" __attribute__((visibility("default"))) const hodu_plugin_header *
hodu_plugin_query(uint32_t maxAbiVersion, const hodu_host_api *api) {
  if (maxAbiVersion < 1)
    return nullptr;
  host = api;
  return &header;
}
