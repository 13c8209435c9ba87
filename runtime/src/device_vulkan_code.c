/*===- device_vulkan_code.c - Vulkan modules and pipelines -----------------===*
 *
 * Loading a plan device's code on the Vulkan device: the first SPIR-V
 * object whose version and capabilities the device has, one shader module
 * for it, and a descriptor set layout, pipeline layout and compute pipeline
 * per kernel. Workgroup sizes, workgroup memory and grids the device cannot
 * run are refused at load time.
 *
 *===----------------------------------------------------------------------===*/
#include "device_vulkan_internal.h"

#ifndef HODU_NO_VULKAN_HEADERS

#include "spirv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the device has what SPIR-V `capability` needs; else names the
 * missing feature in *feature. */
static int has_capability(const vk_device *vk, uint32_t capability,
                          const char **feature) {
  const VkPhysicalDeviceFeatures *core = &vk->features.features;
  const VkPhysicalDeviceVulkan11Features *v11 = &vk->features11;
  const VkPhysicalDeviceVulkan12Features *v12 = &vk->features12;
  int has12 = vk->has12;
  uint32_t ops = vk->subgroup_operations;
#define NEED(cond, name)                                                       \
  do {                                                                         \
    *feature = name;                                                           \
    return (cond) ? 1 : 0;                                                     \
  } while (0)
  switch (capability) {
  case 0: /* Matrix */
  case 1: /* Shader */
    return 1;
  case 9:
    NEED(has12 && v12->shaderFloat16, "shaderFloat16");
  case 10:
    NEED(core->shaderFloat64, "shaderFloat64");
  case 11:
    NEED(core->shaderInt64, "shaderInt64");
  case 12:
    NEED(has12 && v12->shaderBufferInt64Atomics, "shaderBufferInt64Atomics");
  case 22:
    NEED(core->shaderInt16, "shaderInt16");
  case 39:
    NEED(has12 && v12->shaderInt8, "shaderInt8");
  case 61:
    NEED(ops & VK_SUBGROUP_FEATURE_BASIC_BIT, "subgroup basic");
  case 62:
    NEED(ops & VK_SUBGROUP_FEATURE_VOTE_BIT, "subgroup vote");
  case 63:
    NEED(ops & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "subgroup arithmetic");
  case 64:
    NEED(ops & VK_SUBGROUP_FEATURE_BALLOT_BIT, "subgroup ballot");
  case 65:
    NEED(ops & VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "subgroup shuffle");
  case 66:
    NEED(ops & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT,
         "subgroup shuffle relative");
  case 67:
    NEED(ops & VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "subgroup clustered");
  case 68:
    NEED(ops & VK_SUBGROUP_FEATURE_QUAD_BIT, "subgroup quad");
  case 4433:
    NEED(has12 && v11->storageBuffer16BitAccess, "storageBuffer16BitAccess");
  case 4434:
    NEED(has12 && v11->uniformAndStorageBuffer16BitAccess,
         "uniformAndStorageBuffer16BitAccess");
  case 4441:
    NEED(has12 && v11->variablePointersStorageBuffer,
         "variablePointersStorageBuffer");
  case 4442:
    NEED(has12 && v11->variablePointers, "variablePointers");
  case 4448:
    NEED(has12 && v12->storageBuffer8BitAccess, "storageBuffer8BitAccess");
  case 4449:
    NEED(has12 && v12->uniformAndStorageBuffer8BitAccess,
         "uniformAndStorageBuffer8BitAccess");
  case 5345:
    NEED(has12 && v12->vulkanMemoryModel, "vulkanMemoryModel");
  case 5346:
    NEED(has12 && v12->vulkanMemoryModelDeviceScope,
         "vulkanMemoryModelDeviceScope");
  case 5347:
    NEED(has12 && v12->bufferDeviceAddress, "bufferDeviceAddress");
  }
#undef NEED
  *feature = NULL;
  return 0;
}

void hodu_vk_code_free(hodu_device_instance *device, hodu_code *code) {
  vk_device *vk = (vk_device *)device;
  if (!code)
    return;
  for (uint32_t k = 0; k < code->num_kernels; ++k) {
    if (code->pipelines && code->pipelines[k])
      vk->vkDestroyPipeline(vk->device, code->pipelines[k], NULL);
    if (code->layouts && code->layouts[k])
      vk->vkDestroyPipelineLayout(vk->device, code->layouts[k], NULL);
    if (code->set_layouts && code->set_layouts[k])
      vk->vkDestroyDescriptorSetLayout(vk->device, code->set_layouts[k], NULL);
  }
  if (code->module)
    vk->vkDestroyShaderModule(vk->device, code->module, NULL);
  free(code->pipelines);
  free(code->layouts);
  free(code->set_layouts);
  free(code);
}

/* Checks a parsed module against the device: version and capabilities. */
static hodu_status check_module(vk_device *vk, const hodu_spirv_info *info,
                                const char *origin) {
  if (info->version > vk->spirv_version)
    return hodu_make_status(
        HODU_INCOMPATIBLE,
        "%s: its SPIR-V is version %u.%u, but Vulkan device '%s' takes at "
        "most %u.%u",
        origin, (unsigned)(info->version >> 16 & 0xff),
        (unsigned)(info->version >> 8 & 0xff), vk->base.name,
        (unsigned)(vk->spirv_version >> 16 & 0xff),
        (unsigned)(vk->spirv_version >> 8 & 0xff));
  for (uint32_t i = 0; i < info->num_capabilities; ++i) {
    uint32_t capability = info->capabilities[i];
    const char *feature = NULL;
    if (has_capability(vk, capability, &feature))
      continue;
    const char *name = hodu_spirv_capability_name(capability);
    char number[32];
    if (!name) {
      snprintf(number, sizeof number, "%u", (unsigned)capability);
      name = number;
    }
    if (feature)
      return hodu_make_status(HODU_INCOMPATIBLE,
                              "%s: its kernels need SPIR-V capability %s, but "
                              "Vulkan device '%s' lacks the feature %s",
                              origin, name, vk->base.name, feature);
    return hodu_make_status(HODU_INCOMPATIBLE,
                            "%s: its kernels declare SPIR-V capability %s, "
                            "which Hodu's Vulkan runtime does not support",
                            origin, name);
  }
  return NULL;
}

hodu_status hodu_vk_code_load(hodu_device_instance *device,
                              const hodu_device_plan *plan, uint32_t index,
                              const char *origin, hodu_code **out) {
  vk_device *vk = (vk_device *)device;
  *out = NULL;
  hodu_code *code = calloc(1, sizeof *code);
  if (!code)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  code->num_kernels = plan->num_kernels;
  int has_kernels = 0;
  for (uint32_t k = 0; k < plan->num_kernels; ++k)
    has_kernels |= plan->kernels[k].device == index;
  if (!has_kernels) {
    *out = code;
    return NULL;
  }
  code->set_layouts = calloc(plan->num_kernels, sizeof *code->set_layouts);
  code->layouts = calloc(plan->num_kernels, sizeof *code->layouts);
  code->pipelines = calloc(plan->num_kernels, sizeof *code->pipelines);
  if (!code->set_layouts || !code->layouts || !code->pipelines) {
    hodu_vk_code_free(device, code);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }

  /* The first SPIR-V object of this device that the device can run; the
   * error of the first otherwise. */
  hodu_status status = NULL;
  hodu_spirv_info info;
  memset(&info, 0, sizeof info);
  const hodu_bundle_code *chosen = NULL;
  for (uint32_t c = 0; c < plan->num_codes && !chosen; ++c) {
    const hodu_bundle_code *object = &plan->codes[c];
    if (object->device != index || object->format != HODU_CODE_SPIRV)
      continue;
    hodu_spirv_info candidate;
    hodu_status problem = hodu_spirv_parse(plan->blobs + object->offset,
                                           object->size, origin, &candidate);
    if (!problem)
      problem = check_module(vk, &candidate, origin);
    if (problem) {
      hodu_spirv_info_free(&candidate);
      if (!status)
        status = problem;
      else
        hodu_status_free(problem);
      continue;
    }
    hodu_status_free(status);
    status = NULL;
    info = candidate;
    chosen = object;
  }
  if (!chosen && !status)
    status = hodu_make_status(HODU_INVALID_ARTIFACT,
                              "%s: Vulkan device %u has no SPIR-V code object",
                              origin, (unsigned)index);
  if (!status) {
    VkShaderModuleCreateInfo module = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    module.codeSize = (size_t)chosen->size;
    /* BLOBS sits in a 64-byte aligned buffer and code offsets in it are
     * checked to be whole words, so the words are aligned. */
    uint32_t *words = malloc((size_t)chosen->size);
    if (!words) {
      status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
    } else {
      memcpy(words, plan->blobs + chosen->offset, (size_t)chosen->size);
      module.pCode = words;
      VkResult result =
          vk->vkCreateShaderModule(vk->device, &module, NULL, &code->module);
      free(words);
      if (result != VK_SUCCESS)
        status = hodu_vk_error(vk, "vkCreateShaderModule", result);
    }
  }
  const VkPhysicalDeviceLimits *limits = &vk->properties.limits;
  for (uint32_t k = 0; k < plan->num_kernels && !status; ++k) {
    const hodu_bundle_kernel *kernel = &plan->kernels[k];
    if (kernel->device != index)
      continue;
    const char *name = plan->strings + kernel->name;
    const hodu_spirv_entry *entry = hodu_spirv_find_compute(&info, name);
    if (!entry) {
      char names[256] = "";
      size_t used = 0;
      for (uint32_t e = 0; e < info.num_entries && used < sizeof names; ++e) {
        int n = snprintf(names + used, sizeof names - used, "%s'%s'",
                         used ? ", " : "", info.entries[e].name);
        if (n > 0)
          used += (size_t)n;
      }
      status = hodu_make_status(HODU_INVALID_ARTIFACT,
                                "%s: kernel '%s' is not a compute entry point "
                                "of its SPIR-V module (entry points: %s)",
                                origin, name, used ? names : "none");
      break;
    }
    uint64_t invocations =
        (uint64_t)entry->local[0] * entry->local[1] * entry->local[2];
    if (entry->local[0] > limits->maxComputeWorkGroupSize[0] ||
        entry->local[1] > limits->maxComputeWorkGroupSize[1] ||
        entry->local[2] > limits->maxComputeWorkGroupSize[2] ||
        invocations > limits->maxComputeWorkGroupInvocations) {
      status = hodu_make_status(
          HODU_INCOMPATIBLE,
          "%s: kernel '%s' has workgroups of %ux%ux%u, more than Vulkan "
          "device '%s' allows (%ux%ux%u, %u invocations)",
          origin, name, (unsigned)entry->local[0], (unsigned)entry->local[1],
          (unsigned)entry->local[2], vk->base.name,
          (unsigned)limits->maxComputeWorkGroupSize[0],
          (unsigned)limits->maxComputeWorkGroupSize[1],
          (unsigned)limits->maxComputeWorkGroupSize[2],
          (unsigned)limits->maxComputeWorkGroupInvocations);
      break;
    }
    if (kernel->shared_bytes > limits->maxComputeSharedMemorySize) {
      status = hodu_make_status(
          HODU_INCOMPATIBLE,
          "%s: kernel '%s' needs %u bytes of workgroup memory, Vulkan device "
          "'%s' has %u",
          origin, name, (unsigned)kernel->shared_bytes, vk->base.name,
          (unsigned)limits->maxComputeSharedMemorySize);
      break;
    }
    VkDescriptorSetLayoutBinding *bindings =
        calloc(kernel->num_args ? kernel->num_args : 1, sizeof *bindings);
    if (!bindings) {
      status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
      break;
    }
    for (uint32_t a = 0; a < kernel->num_args; ++a) {
      bindings[a].binding = a;
      bindings[a].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[a].descriptorCount = 1;
      bindings[a].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo set = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set.bindingCount = kernel->num_args;
    set.pBindings = bindings;
    VkResult result = vk->vkCreateDescriptorSetLayout(vk->device, &set, NULL,
                                                      &code->set_layouts[k]);
    free(bindings);
    VkPipelineLayoutCreateInfo layout = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout.setLayoutCount = 1;
    layout.pSetLayouts = &code->set_layouts[k];
    if (result == VK_SUCCESS)
      result = vk->vkCreatePipelineLayout(vk->device, &layout, NULL,
                                          &code->layouts[k]);
    VkComputePipelineCreateInfo pipeline = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pipeline.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipeline.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline.stage.module = code->module;
    pipeline.stage.pName = name;
    pipeline.layout = code->layouts[k];
    if (result == VK_SUCCESS)
      result = vk->vkCreateComputePipelines(
          vk->device, VK_NULL_HANDLE, 1, &pipeline, NULL, &code->pipelines[k]);
    if (result != VK_SUCCESS)
      status = hodu_vk_error(vk, "creating the pipeline of a kernel", result);
  }
  /* Grids the device cannot dispatch are refused now, not at run time. */
  for (uint32_t s = 0; s < plan->num_steps && !status; ++s) {
    const hodu_bundle_step *step = &plan->steps[s];
    if (step->op != HODU_STEP_LAUNCH || step->device != index)
      continue;
    for (int d = 0; d < 3 && !status; ++d)
      if (step->grid[d] > limits->maxComputeWorkGroupCount[d])
        status = hodu_make_status(
            HODU_INCOMPATIBLE,
            "%s: step %u launches %u workgroups along %c, more than Vulkan "
            "device '%s' allows (%u)",
            origin, (unsigned)s, (unsigned)step->grid[d], "xyz"[d],
            vk -> base.name, (unsigned)limits->maxComputeWorkGroupCount[d]);
  }
  hodu_spirv_info_free(&info);
  if (status) {
    hodu_vk_code_free(device, code);
    return status;
  }
  *out = code;
  return NULL;
}

#endif /* HODU_NO_VULKAN_HEADERS */
