//===- VulkanTarget.h - the Vulkan back end ---------------------*- C++ -*-===//
//
// lib/Target/Vulkan: the shared GPU kernels as SPIR-V for Vulkan, written as
// a .spv module or a bundle (runtime/include/hodu/bundle.h).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_VULKAN_VULKANTARGET_H
#define HODU_TARGET_VULKAN_VULKANTARGET_H

namespace hodu {

/// Adds the `vulkan` target to the ComponentRegistry and registers its
/// passes and named pipelines (once).
void registerVulkanTarget();

} // namespace hodu

#endif // HODU_TARGET_VULKAN_VULKANTARGET_H
