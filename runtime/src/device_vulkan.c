/*===- device_vulkan.c - Vulkan compute through a loader found at run time
 *--===*
 *
 * libvulkan.so.1 is opened with dlopen (VK_NO_PROTOTYPES: no link-time
 * dependency), so libhodurt loads where Vulkan is missing and says so when
 * a bundle needs it. On a machine without a GPU, Mesa's lavapipe is a real
 * Vulkan device.
 *
 * A kernel's buffer arguments are storage buffers at set 0, binding i, each
 * bound as (buffer, offset, range) from the plan; its workgroup size is in
 * the SPIR-V. Every kernel gets one compute pipeline. A program gets one
 * descriptor set per launch, written once when it is made. An eager run
 * records a command buffer (bind, bind, dispatch, barrier per step) and
 * submits it; a capture records a second command buffer once
 * (SIMULTANEOUS_USE), and replay(n) resubmits it n times in batches, with
 * no recording at all.
 *
 * Memory: device-local memory that is also host-visible and coherent (all
 * of lavapipe's, and the "BAR" heaps of discrete GPUs) is mapped and
 * written directly; otherwise writes and reads go through a staging buffer.
 *
 * This file opens the loader, the instance and the device, and holds the
 * device's vtable; buffers and transfers are in device_vulkan_buffers.c,
 * modules and pipelines in device_vulkan_code.c, programs, capture and
 * replay in device_vulkan_program.c (device_vulkan_internal.h).
 *
 *===----------------------------------------------------------------------===*/
#include "device_vulkan_internal.h"

#ifdef HODU_NO_VULKAN_HEADERS
/* Built without Vulkan's headers: the device says so. */
static hodu_status left_out(void) {
  return hodu_make_status(HODU_NO_DEVICE,
                          "no Vulkan support: this libhodurt was built "
                          "without Vulkan's headers (libvulkan-dev)");
}
hodu_status hodu_vulkan_device_count(int32_t *count) {
  (void)count;
  return left_out();
}
hodu_status hodu_vulkan_device_open(int32_t ordinal,
                                    hodu_device_instance **out) {
  (void)ordinal;
  *out = NULL;
  return left_out();
}
static const uint32_t vk_formats[] = {HODU_CODE_SPIRV, 0};
/* Only count and open are ever called: open fails. */
const hodu_device_ops hodu_vulkan_device_table = {
    .struct_size = sizeof(hodu_device_ops),
    .name = "vulkan",
    .code_formats = vk_formats,
    .count = hodu_vulkan_device_count,
    .open = hodu_vulkan_device_open};
#else

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hodu_status hodu_vk_error(vk_device *vk, const char *what, VkResult result) {
  return hodu_make_status(result == VK_ERROR_OUT_OF_HOST_MEMORY ||
                                  result == VK_ERROR_OUT_OF_DEVICE_MEMORY
                              ? HODU_OUT_OF_MEMORY
                              : HODU_DEVICE_ERROR,
                          "Vulkan device '%s': %s failed (VkResult %d)",
                          vk->base.name, what, (int)result);
}

/*===--------------------------------------------------------------------===*
 * Opening
 *===--------------------------------------------------------------------===*/

static void *open_loader(void) {
  void *loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!loader)
    loader = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
  return loader;
}

static hodu_status no_driver(void) {
  return hodu_make_status(HODU_NO_DEVICE,
                          "no Vulkan driver: libvulkan.so.1 not found "
                          "(install the Vulkan loader, libvulkan1, and a "
                          "driver such as mesa-vulkan-drivers)");
}

/* Creates an instance; `*instance` and the instance functions on success. */
static hodu_status create_instance(vk_device *vk) {
  vk->loader = open_loader();
  if (!vk->loader)
    return no_driver();
  void *symbol = dlsym(vk->loader, "vkGetInstanceProcAddr");
  if (!symbol)
    return hodu_make_status(HODU_NO_DEVICE,
                            "no Vulkan driver: libvulkan.so.1 has no "
                            "vkGetInstanceProcAddr");
  memcpy(&vk->vkGetInstanceProcAddr, &symbol, sizeof symbol);
  PFN_vkCreateInstance create = (PFN_vkCreateInstance)vk->vkGetInstanceProcAddr(
      VK_NULL_HANDLE, "vkCreateInstance");
  PFN_vkEnumerateInstanceVersion version_of =
      (PFN_vkEnumerateInstanceVersion)vk->vkGetInstanceProcAddr(
          VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
  uint32_t version = VK_API_VERSION_1_0;
  if (version_of)
    version_of(&version);
  if (!create || version < VK_API_VERSION_1_1)
    return hodu_make_status(HODU_NO_DEVICE,
                            "no Vulkan 1.1: the Vulkan loader supports only "
                            "version %u.%u",
                            VK_API_VERSION_MAJOR(version),
                            VK_API_VERSION_MINOR(version));
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "libhodurt";
  app.pEngineName = "hodu";
  app.apiVersion = version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : version;
  VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VkResult result = create(&info, NULL, &vk->instance);
  if (result != VK_SUCCESS)
    return hodu_make_status(result == VK_ERROR_INCOMPATIBLE_DRIVER
                                ? HODU_NO_DEVICE
                                : HODU_DEVICE_ERROR,
                            "no Vulkan device: vkCreateInstance failed "
                            "(VkResult %d)",
                            (int)result);
#define X(name)                                                                \
  vk->name = (PFN_##name)vk->vkGetInstanceProcAddr(vk->instance, #name);       \
  if (!vk->name)                                                               \
    return hodu_make_status(HODU_NO_DEVICE, "the Vulkan loader has "           \
                                            "no " #name);
  VK_FUNCTIONS(X)
#undef X
  return NULL;
}

static hodu_status physical_devices(vk_device *vk, uint32_t *count,
                                    VkPhysicalDevice **out) {
  *out = NULL;
  VkResult result = vk->vkEnumeratePhysicalDevices(vk->instance, count, NULL);
  if (result != VK_SUCCESS && result != VK_INCOMPLETE)
    return hodu_make_status(HODU_DEVICE_ERROR,
                            "vkEnumeratePhysicalDevices failed (VkResult %d)",
                            (int)result);
  if (*count == 0)
    return NULL;
  *out = calloc(*count, sizeof **out);
  if (!*out)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  result = vk->vkEnumeratePhysicalDevices(vk->instance, count, *out);
  if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
    free(*out);
    *out = NULL;
    return hodu_make_status(HODU_DEVICE_ERROR,
                            "vkEnumeratePhysicalDevices failed (VkResult %d)",
                            (int)result);
  }
  return NULL;
}

static void vk_destroy(hodu_device_instance *device) {
  vk_device *vk = (vk_device *)device;
  if (vk->device) {
    vk->vkDeviceWaitIdle(vk->device);
    if (vk->transfer_fence)
      vk->vkDestroyFence(vk->device, vk->transfer_fence, NULL);
    if (vk->transfer_pool)
      vk->vkDestroyCommandPool(vk->device, vk->transfer_pool, NULL);
    vk->vkDestroyDevice(vk->device, NULL);
  }
  if (vk->instance && vk->vkDestroyInstance)
    vk->vkDestroyInstance(vk->instance, NULL);
  /* The loader stays loaded: drivers may keep threads that outlive us. */
  pthread_mutex_destroy(&vk->lock);
  free(vk);
}

hodu_status hodu_vulkan_device_count(int32_t *count) {
  vk_device *vk = calloc(1, sizeof *vk);
  if (!vk)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  pthread_mutex_init(&vk->lock, NULL);
  hodu_status status = create_instance(vk);
  uint32_t n = 0;
  VkPhysicalDevice *devices = NULL;
  if (!status)
    status = physical_devices(vk, &n, &devices);
  free(devices);
  vk_destroy((hodu_device_instance *)vk);
  if (!status)
    *count = (int32_t)n;
  return status;
}

static hodu_status create_device(vk_device *vk) {
  uint32_t families = 0;
  vk->vkGetPhysicalDeviceQueueFamilyProperties(vk->physical, &families, NULL);
  VkQueueFamilyProperties *props =
      calloc(families ? families : 1, sizeof *props);
  if (!props)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  vk->vkGetPhysicalDeviceQueueFamilyProperties(vk->physical, &families, props);
  uint32_t chosen = UINT32_MAX;
  for (uint32_t i = 0; i < families && chosen == UINT32_MAX; ++i)
    if (props[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
      chosen = i;
  free(props);
  if (chosen == UINT32_MAX)
    return hodu_make_status(HODU_NO_DEVICE,
                            "Vulkan device '%s' has no compute queue",
                            vk->base.name);
  vk->queue_family = chosen;

  /* Every feature the device has among those kernels may need. */
  memset(&vk->features, 0, sizeof vk->features);
  vk->features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  vk->features11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  vk->features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  vk->has12 = vk->properties.apiVersion >= VK_API_VERSION_1_2;
  if (vk->has12) {
    vk->features.pNext = &vk->features11;
    vk->features11.pNext = &vk->features12;
  }
  vk->vkGetPhysicalDeviceFeatures2(vk->physical, &vk->features);
  VkPhysicalDeviceFeatures2 enabled = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features enabled11 = vk->features11;
  VkPhysicalDeviceVulkan12Features enabled12 = vk->features12;
  enabled.features.shaderFloat64 = vk->features.features.shaderFloat64;
  enabled.features.shaderInt64 = vk->features.features.shaderInt64;
  enabled.features.shaderInt16 = vk->features.features.shaderInt16;
  if (vk->has12) {
    enabled.pNext = &enabled11;
    enabled11.pNext = &enabled12;
    enabled12.pNext = NULL;
    /* Capture-replay addresses are for tools, not for us. */
    enabled12.bufferDeviceAddressCaptureReplay = VK_FALSE;
    enabled12.bufferDeviceAddressMultiDevice = VK_FALSE;
  }

  VkPhysicalDeviceSubgroupProperties subgroup = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 properties2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
      .pNext = &subgroup};
  vk->vkGetPhysicalDeviceProperties2(vk->physical, &properties2);
  vk->subgroup_operations = subgroup.supportedOperations;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = chosen;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &enabled;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  VkResult result = vk->vkCreateDevice(vk->physical, &info, NULL, &vk->device);
  if (result != VK_SUCCESS)
    return hodu_vk_error(vk, "vkCreateDevice", result);
#define X(fn)                                                                  \
  vk->fn = (PFN_##fn)vk->vkGetDeviceProcAddr(vk->device, #fn);                 \
  if (!vk->fn)                                                                 \
    return hodu_make_status(HODU_NO_DEVICE, "Vulkan device '%s' has no " #fn,  \
                            vk->base.name);
  VK_DEVICE_FUNCTIONS(X)
#undef X
  vk->vkGetDeviceQueue(vk->device, chosen, 0, &vk->queue);

  VkCommandPoolCreateInfo pool = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = chosen;
  result = vk->vkCreateCommandPool(vk->device, &pool, NULL, &vk->transfer_pool);
  if (result != VK_SUCCESS)
    return hodu_vk_error(vk, "vkCreateCommandPool", result);
  VkCommandBufferAllocateInfo alloc = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = vk->transfer_pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  result = vk->vkAllocateCommandBuffers(vk->device, &alloc, &vk->transfer);
  if (result != VK_SUCCESS)
    return hodu_vk_error(vk, "vkAllocateCommandBuffers", result);
  VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  result = vk->vkCreateFence(vk->device, &fence, NULL, &vk->transfer_fence);
  if (result != VK_SUCCESS)
    return hodu_vk_error(vk, "vkCreateFence", result);
  return NULL;
}

hodu_status hodu_vulkan_device_open(int32_t ordinal,
                                    hodu_device_instance **out) {
  *out = NULL;
  vk_device *vk = calloc(1, sizeof *vk);
  if (!vk)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  pthread_mutex_init(&vk->lock, NULL);
  snprintf(vk->base.name, sizeof vk->base.name, "vulkan:%d", (int)ordinal);
  hodu_status status = create_instance(vk);
  uint32_t n = 0;
  VkPhysicalDevice *devices = NULL;
  if (!status)
    status = physical_devices(vk, &n, &devices);
  if (!status && n == 0)
    status = hodu_make_status(HODU_NO_DEVICE,
                              "no Vulkan device: the Vulkan loader found none "
                              "(for a CPU-only machine, install Mesa's "
                              "lavapipe: mesa-vulkan-drivers)");
  else if (!status && (uint32_t)ordinal >= n)
    status = hodu_make_status(HODU_NO_DEVICE,
                              "no Vulkan device %d: this machine has %u",
                              (int)ordinal, (unsigned)n);
  if (!status) {
    vk->physical = devices[ordinal];
    vk->vkGetPhysicalDeviceProperties(vk->physical, &vk->properties);
    vk->vkGetPhysicalDeviceMemoryProperties(vk->physical, &vk->memory);
    snprintf(vk->base.name, sizeof vk->base.name, "%s",
             vk->properties.deviceName);
    uint32_t api = vk->properties.apiVersion;
    vk->spirv_version = api >= VK_API_VERSION_1_3   ? 0x00010600u
                        : api >= VK_API_VERSION_1_2 ? 0x00010500u
                        : api >= VK_API_VERSION_1_1 ? 0x00010300u
                                                    : 0x00010000u;
    if (api < VK_API_VERSION_1_1)
      status = hodu_make_status(HODU_NO_DEVICE,
                                "Vulkan device '%s' supports Vulkan %u.%u; "
                                "Hodu needs 1.1",
                                vk->base.name, VK_API_VERSION_MAJOR(api),
                                VK_API_VERSION_MINOR(api));
  }
  free(devices);
  if (!status)
    status = create_device(vk);
  if (status) {
    vk_destroy((hodu_device_instance *)vk);
    return status;
  }
  const char *staging = getenv("HODU_VULKAN_STAGING");
  vk->force_staging = staging && strcmp(staging, "1") == 0;
  *out = (hodu_device_instance *)vk;
  return NULL;
}

static hodu_status vk_describe(hodu_device_instance *device,
                               hodu_device_info *out) {
  vk_device *vk = (vk_device *)device;
  snprintf(out->name, sizeof out->name, "%s", vk->base.name);
  out->memory_bytes = 0;
  for (uint32_t h = 0; h < vk->memory.memoryHeapCount; ++h)
    if (vk->memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      out->memory_bytes += vk->memory.memoryHeaps[h].size;
  uint32_t api = vk->properties.apiVersion;
  snprintf(out->driver, sizeof out->driver,
           "Vulkan %u.%u.%u, driver 0x%x (vendor 0x%x)",
           VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api),
           VK_API_VERSION_PATCH(api), vk->properties.driverVersion,
           vk->properties.vendorID);
  return NULL;
}

static const uint32_t vk_formats[] = {HODU_CODE_SPIRV, 0};

const hodu_device_ops hodu_vulkan_device_table = {
    .struct_size = sizeof(hodu_device_ops),
    .name = "vulkan",
    .code_formats = vk_formats,
    .count = hodu_vulkan_device_count,
    .open = hodu_vulkan_device_open,
    .describe = vk_describe,
    .close = vk_destroy,
    .buffer_create = hodu_vk_buffer_create,
    .buffer_free = hodu_vk_buffer_free,
    .buffer_host = hodu_vk_buffer_host,
    .write = hodu_vk_write,
    .read = hodu_vk_read,
    .copy = hodu_vk_copy,
    .code_load = hodu_vk_code_load,
    .code_free = hodu_vk_code_free,
    .program_create = hodu_vk_program_create,
    .program_free = hodu_vk_program_free,
    .program_run = hodu_vk_program_run,
    .program_capture = hodu_vk_program_capture,
    .program_replay = hodu_vk_program_replay,
    .program_release_capture = hodu_vk_program_release_capture};

#endif /* HODU_NO_VULKAN_HEADERS */
