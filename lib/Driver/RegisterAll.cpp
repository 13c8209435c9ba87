//===- RegisterAll.cpp - importers and targets built into hoduc -----------===//
//
// hoduc's own importers and targets register through the toolchain plugin
// table (hodu/plugin.h, hodu_toolchain_plugin_v1) and the function that
// registers a plugin's, so a plugin's components stand exactly where the
// built-in ones do.
//
//===----------------------------------------------------------------------===//
#include "hodu/Driver/Compiler.h"
#include "hodu/Driver/ToolchainPlugins.h"
#include "hodu/Import/Hdss.h"
#include "hodu/Registry/Registry.h"
#include "hodu/Target/CPU/CPUTarget.h"
#include "hodu/Target/CUDA/CUDATarget.h"
#include "hodu/Target/Metal/MetalTarget.h"
#include "hodu/Target/ROCm/ROCmTarget.h"
#include "hodu/Target/Vulkan/VulkanTarget.h"
#include "hodu/plugin.h"

#include "llvm/Support/raw_ostream.h"

#ifdef HODU_HAVE_ONNX_IMPORTER
#include "hodu/Import/Onnx.h"
#endif

namespace {

hodu_status registerImporters(void *registry) {
  (void)registry; // the registry each register function adds to
  hodu::registerBuiltinComponents();
  hodu::registerHdssImporter();
#ifdef HODU_HAVE_ONNX_IMPORTER
  hodu::registerOnnxImporter();
#endif
  return nullptr;
}

hodu_status registerTargets(void *registry) {
  (void)registry;
  hodu::registerCPUTarget();
  hodu::registerCUDATarget();
  hodu::registerROCmTarget();
  hodu::registerVulkanTarget();
  hodu::registerMetalTarget();
  return nullptr;
}

const hodu_toolchain_plugin_v1 builtinImporters = {
    sizeof(hodu_toolchain_plugin_v1), registerImporters};
const hodu_toolchain_plugin_v1 builtinTargets = {
    sizeof(hodu_toolchain_plugin_v1), registerTargets};

} // namespace

void hodu::registerAllComponents() {
  static bool done = [] {
    for (auto [table, who] : {std::pair{&builtinImporters, "hoduc's importers"},
                              std::pair{&builtinTargets, "hoduc's targets"}}) {
      std::string error;
      if (!registerToolchainTable(*table, who, error))
        llvm::report_fatal_error(llvm::StringRef(error));
    }
    return true;
  }();
  (void)done;
}
