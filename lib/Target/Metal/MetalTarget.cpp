//===- MetalTarget.cpp - the Metal back end -------------------------------===//
//
// linalg -> gpu (the shared GPU kernels and the launch plan) -> spirv (the
// SPIR-V lowering the vulkan target uses, without 64-bit floats, which
// Metal lacks) -> the artifact: Metal Shading Language translated from the
// SPIR-V by SPIRV-Cross (its C API), a .metallib from Apple's compiler
// where it exists, or a bundle holding the MSL and the launch plan.
//
// SPIRV-Cross translates one entry point at a time; every translation of
// the same module declares the same types under the same names, so the
// .metal file is the union of the translations' top-level declarations,
// each once.
//
// hodu::gpu::GPUTargetBackend holds what the GPU targets share, among it
// the named pipelines hodu-metal-linalg, hodu-metal-gpu and
// hodu-metal-spirv, and hodu::spirv::SPIRVTargetBackend the spirv phase;
// this file holds the validation (one message) and the serialisation.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/Metal/MetalTarget.h"

#include "hodu/Support/Output.h"
#include "hodu/Target/GPU/Bundle.h"
#include "hodu/Target/SPIRV/SPIRVTarget.h"
#include "hodu/bundle.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"

#ifdef HODU_HAVE_SPIRV_CROSS
#include <spirv_cross/spirv_cross_c.h>
#endif

using namespace mlir;
using namespace hodu;

namespace {

/// The top-level declarations of an MSL translation unit as SPIRV-Cross
/// prints them: separated by blank lines outside braces.
std::vector<std::string> topLevelChunks(StringRef msl) {
  std::vector<std::string> chunks;
  std::string current;
  int depth = 0;
  SmallVector<StringRef> lines;
  msl.split(lines, '\n');
  for (StringRef line : lines) {
    if (line.trim().empty() && depth == 0) {
      if (!current.empty())
        chunks.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += line;
    current += '\n';
    depth += line.count('{') - line.count('}');
  }
  if (!current.empty())
    chunks.push_back(std::move(current));
  return chunks;
}

#ifdef HODU_HAVE_SPIRV_CROSS
/// The MSL of every entry point of `spv`, each declaration once.
FailureOr<std::string> translateToMSL(StringRef spv, Location loc) {
  spvc_context context = nullptr;
  if (spvc_context_create(&context) != SPVC_SUCCESS)
    return emitError(loc, "SPIRV-Cross: cannot create a context");
  auto fail = [&](StringRef what) {
    InFlightDiagnostic d = emitError(loc, "SPIRV-Cross: ")
                           << what << ": "
                           << spvc_context_get_last_error_string(context);
    spvc_context_destroy(context);
    return d;
  };
  spvc_parsed_ir ir = nullptr;
  if (spvc_context_parse_spirv(
          context, reinterpret_cast<const SpvId *>(spv.data()),
          spv.size() / sizeof(SpvId), &ir) != SPVC_SUCCESS)
    return fail("cannot parse the SPIR-V");

  auto compilerFor = [&](spvc_compiler *compiler) {
    spvc_compiler_options options = nullptr;
    return spvc_context_create_compiler(context, SPVC_BACKEND_MSL, ir,
                                        SPVC_CAPTURE_MODE_COPY,
                                        compiler) == SPVC_SUCCESS &&
           spvc_compiler_create_compiler_options(*compiler, &options) ==
               SPVC_SUCCESS &&
           spvc_compiler_options_set_uint(options,
                                          SPVC_COMPILER_OPTION_MSL_VERSION,
                                          SPVC_MAKE_MSL_VERSION(2, 3, 0)) ==
               SPVC_SUCCESS &&
           spvc_compiler_install_compiler_options(*compiler, options) ==
               SPVC_SUCCESS;
  };
  spvc_compiler lister = nullptr;
  const spvc_entry_point *entries = nullptr;
  size_t numEntries = 0;
  if (!compilerFor(&lister) ||
      spvc_compiler_get_entry_points(lister, &entries, &numEntries) !=
          SPVC_SUCCESS)
    return fail("cannot list the entry points");
  std::vector<std::string> names;
  for (size_t i = 0; i < numEntries; ++i)
    names.push_back(entries[i].name);

  std::string msl;
  llvm::StringSet<> seen;
  for (const std::string &name : names) {
    spvc_compiler compiler = nullptr;
    const char *source = nullptr;
    if (!compilerFor(&compiler) ||
        spvc_compiler_set_entry_point(compiler, name.c_str(),
                                      SpvExecutionModelGLCompute) !=
            SPVC_SUCCESS ||
        spvc_compiler_compile(compiler, &source) != SPVC_SUCCESS)
      return fail("cannot translate kernel '" + name + "'");
    for (std::string &chunk : topLevelChunks(source))
      if (seen.insert(chunk).second)
        msl += chunk + "\n";
  }
  spvc_context_destroy(context);
  return msl;
}
#else
FailureOr<std::string> translateToMSL(StringRef, Location loc) {
  return emitError(loc, "this hoduc was built without SPIRV-Cross, which "
                        "translates SPIR-V to Metal (apt-get install "
                        "libspirv-cross-c-shared-dev, then rebuild)");
}
#endif

class MetalTarget final : public hodu::spirv::SPIRVTargetBackend {
public:
  std::string name() const override { return "metal"; }
  std::string description() const override {
    return "Apple GPUs through SPIR-V and SPIRV-Cross (Metal Shading "
           "Language; .metallib where Apple's compiler exists)";
  }
  std::vector<ToolRequirement> tools() const override {
    return {{{"xcrun"},
             "metallib",
             "Apple's Xcode command-line tools, on macOS only"}};
  }

  /// Metal takes none of the options, and says so in one message rather
  /// than the base's two (test/Target/Metal/errors.test).
  LogicalResult validate(const TargetOptions &options,
                         Location loc) const override {
    if (!options.triple.empty() || !options.cpu.empty() ||
        !options.features.empty() || !options.gpuArchs.empty())
      return emitError(loc, "--target, -mcpu, -mattr and --gpu-arch do not "
                            "apply to 'metal'");
    return validatePrecision(options, loc);
  }

protected:
  std::string displayName() const override { return "Metal"; }

  std::vector<ArtifactKind> kernelArtifactKinds() const override {
    return {
        {"metal", {"msl"}, ".metal", "", true,
         "Metal Shading Language source, one kernel function per kernel "
         "(buffer arguments at [[buffer(i)]])"},
        {"metallib", {}, ".metallib", "", false,
         "a Metal library from Apple's compiler (xcrun metal, metallib)"},
    };
  }
  hodu::gpu::GPUElementTypes elementTypes() const override {
    return {/*bf16=*/false, /*f64=*/false};
  }

  LogicalResult writeArtifact(ModuleOp module, const SerializeRequest &request,
                              const TargetOptions &options) const override {
    Location loc = module.getLoc();
    StringRef kind = request.kind->name;
    bool hasKernels = !module.getOps<mlir::spirv::ModuleOp>().empty();
    if (!hasKernels && kind != "bundle")
      return emitError(loc, "the model has no kernels to write as Metal");
    std::string msl;
    if (hasKernels) {
      FailureOr<std::string> spv = hodu::spirv::serializeKernels(module);
      if (failed(spv))
        return failure();
      FailureOr<std::string> translated = translateToMSL(*spv, loc);
      if (failed(translated))
        return failure();
      msl = std::move(*translated);
    }
    if (kind == "metal")
      return writeText(request.outputPath, msl, loc);
    if (request.outputPath == "-")
      return emitError(loc, "refusing to write a binary artifact (")
             << kind << ") to stdout";
    if (kind == "bundle") {
      std::vector<hodu::gpu::CodeObject> code;
      if (hasKernels)
        code.push_back({HODU_CODE_MSL, "", msl + '\0'});
      return hodu::gpu::writeBundle(module, request, HODU_DEVICE_METAL, code);
    }
    return writeMetallib(msl, request.outputPath, loc);
  }

private:
  /// xcrun metal -c, then xcrun metallib, where Apple's tools exist.
  LogicalResult writeMetallib(StringRef msl, StringRef path,
                              Location loc) const {
    std::optional<std::string> xcrun = findTool({"xcrun"});
    if (!xcrun)
      return emitError(loc, "--emit=metallib needs Apple's Metal compiler "
                            "('xcrun metal', from Xcode on macOS), which is "
                            "not on this machine; --emit=metal writes the "
                            "source for it");
    SmallString<128> source, air;
    if (llvm::sys::fs::createTemporaryFile("hoduc", "metal", source) ||
        llvm::sys::fs::createTemporaryFile("hoduc", "air", air))
      return emitError(loc, "cannot create a temporary file");
    llvm::FileRemover removeSource(source), removeAir(air);
    if (failed(writeText(source, msl, loc)))
      return failure();
    OutputFile out(path.str());
    return success(
        succeeded(out.open(loc)) &&
        succeeded(runTool(*xcrun,
                          {*xcrun, "-sdk", "macosx", "metal", "-c",
                           source.str().str(), "-o", air.str().str()},
                          loc)) &&
        succeeded(runTool(*xcrun,
                          {*xcrun, "-sdk", "macosx", "metallib",
                           air.str().str(), "-o", out.path()},
                          loc)) &&
        succeeded(out.commit(loc)));
  }
};
} // namespace

void hodu::registerMetalTarget() {
  static bool done = [] {
    hodu::spirv::registerSPIRVLowering();
    hodu::gpu::registerGPUTarget(std::make_unique<MetalTarget>());
    return true;
  }();
  (void)done;
}
