//===- RegisterAll.cpp - importers and targets built into hoduc -----------===//
#include "hodu/Driver/Compiler.h"
#include "hodu/Import/Hdss.h"
#include "hodu/Registry/Registry.h"
#include "hodu/Target/CPU/CPUTarget.h"
#include "hodu/Target/CUDA/CUDATarget.h"
#include "hodu/Target/Metal/MetalTarget.h"
#include "hodu/Target/ROCm/ROCmTarget.h"
#include "hodu/Target/Vulkan/VulkanTarget.h"

#ifdef HODU_HAVE_ONNX_IMPORTER
#include "hodu/Import/Onnx.h"
#endif

void hodu::registerAllComponents() {
  static bool done = [] {
    registerBuiltinComponents();
    registerHdssImporter();
#ifdef HODU_HAVE_ONNX_IMPORTER
    registerOnnxImporter();
#endif
    registerCPUTarget();
    registerCUDATarget();
    registerROCmTarget();
    registerVulkanTarget();
    registerMetalTarget();
    return true;
  }();
  (void)done;
}
