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
 *===----------------------------------------------------------------------===*/
#include "device.h"

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
hodu_status hodu_vulkan_device_open(int32_t ordinal, hodu_device **out) {
  (void)ordinal;
  *out = NULL;
  return left_out();
}
#else

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "internal.h"
#include "spirv.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A wait longer than this is reported as a device error, not a hang. */
#define VK_TIMEOUT_NS (UINT64_C(300) * 1000 * 1000 * 1000)
/* Command buffers per vkQueueSubmit in a replay. */
#define VK_REPLAY_BATCH 64

#define VK_FUNCTIONS(X)                                                        \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)

#define VK_DEVICE_FUNCTIONS(X)                                                 \
  X(vkDestroyDevice)                                                           \
  X(vkGetDeviceQueue)                                                          \
  X(vkDeviceWaitIdle)                                                          \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkMapMemory)                                                               \
  X(vkUnmapMemory)                                                             \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreateDescriptorPool)                                                    \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkUpdateDescriptorSets)                                                    \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkFreeCommandBuffers)                                                      \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkResetCommandBuffer)                                                      \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdDispatch)                                                             \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCmdFillBuffer)                                                           \
  X(vkCreateFence)                                                             \
  X(vkDestroyFence)                                                            \
  X(vkResetFences)                                                             \
  X(vkWaitForFences)                                                           \
  X(vkQueueSubmit)

typedef struct vk_device {
  hodu_device base;
  void *loader;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
#define X(name) PFN_##name name;
  VK_FUNCTIONS(X)
  VK_DEVICE_FUNCTIONS(X)
#undef X
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  uint32_t queue_family;
  VkPhysicalDeviceProperties properties;
  VkPhysicalDeviceMemoryProperties memory;
  uint32_t spirv_version; /* the newest SPIR-V the device takes */
  uint32_t subgroup_operations;
  VkPhysicalDeviceFeatures2 features;
  VkPhysicalDeviceVulkan11Features features11;
  VkPhysicalDeviceVulkan12Features features12;
  int has12; /* features12 is meaningful */
  /* Testing knob (HODU_VULKAN_STAGING=1): never map device buffers, so the
   * staging path of discrete GPUs runs on lavapipe too. */
  int force_staging;
  pthread_mutex_t lock; /* the queue and the transfer pool */
  VkCommandPool transfer_pool;
  VkCommandBuffer transfer;
  VkFence transfer_fence;
} vk_device;

struct hodu_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  uint64_t size;
  void *mapped; /* host-visible, coherent memory; else NULL */
};

struct hodu_code {
  VkShaderModule module;
  uint32_t num_kernels;
  VkDescriptorSetLayout *set_layouts; /* per plan kernel */
  VkPipelineLayout *layouts;
  VkPipeline *pipelines;
};

typedef struct vk_step {
  uint32_t op;
  VkPipeline pipeline;
  VkPipelineLayout layout;
  VkDescriptorSet set;
  uint32_t grid[3];
  VkBuffer from, to; /* COPY */
  VkBufferCopy region;
} vk_step;

struct hodu_program {
  vk_step *steps;
  uint32_t num_steps;
  VkDescriptorPool descriptors;
  VkCommandPool pool;
  VkCommandBuffer eager;
  VkCommandBuffer captured;
  VkFence fence;
  int recorded_eager;
};

static hodu_status vk_error(vk_device *vk, const char *what, VkResult result) {
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

static void vk_destroy(hodu_device *device) {
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
  vk_destroy(&vk->base);
  if (!status)
    *count = (int32_t)n;
  return status;
}

static const hodu_device_ops vk_ops;

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
    return vk_error(vk, "vkCreateDevice", result);
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
    return vk_error(vk, "vkCreateCommandPool", result);
  VkCommandBufferAllocateInfo alloc = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = vk->transfer_pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  result = vk->vkAllocateCommandBuffers(vk->device, &alloc, &vk->transfer);
  if (result != VK_SUCCESS)
    return vk_error(vk, "vkAllocateCommandBuffers", result);
  VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  result = vk->vkCreateFence(vk->device, &fence, NULL, &vk->transfer_fence);
  if (result != VK_SUCCESS)
    return vk_error(vk, "vkCreateFence", result);
  return NULL;
}

hodu_status hodu_vulkan_device_open(int32_t ordinal, hodu_device **out) {
  *out = NULL;
  vk_device *vk = calloc(1, sizeof *vk);
  if (!vk)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  vk->base.ops = &vk_ops;
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
    vk_destroy(&vk->base);
    return status;
  }
  const char *staging = getenv("HODU_VULKAN_STAGING");
  vk->force_staging = staging && strcmp(staging, "1") == 0;
  *out = &vk->base;
  return NULL;
}

/*===--------------------------------------------------------------------===*
 * Buffers
 *===--------------------------------------------------------------------===*/

/* The first memory type in `bits` with all of `flags`, or UINT32_MAX. */
static uint32_t memory_type(const vk_device *vk, uint32_t bits,
                            VkMemoryPropertyFlags flags) {
  for (uint32_t i = 0; i < vk->memory.memoryTypeCount; ++i)
    if ((bits & (1u << i)) &&
        (vk->memory.memoryTypes[i].propertyFlags & flags) == flags)
      return i;
  return UINT32_MAX;
}

static void vk_buffer_free(hodu_device *device, hodu_buffer *buffer) {
  vk_device *vk = (vk_device *)device;
  if (!buffer)
    return;
  if (buffer->mapped)
    vk->vkUnmapMemory(vk->device, buffer->memory);
  if (buffer->buffer)
    vk->vkDestroyBuffer(vk->device, buffer->buffer, NULL);
  if (buffer->memory)
    vk->vkFreeMemory(vk->device, buffer->memory, NULL);
  free(buffer);
}

/* A buffer in memory with `preferred` flags if there is such memory, else
 * with `required` flags. */
static hodu_status make_buffer(vk_device *vk, uint64_t size,
                               VkMemoryPropertyFlags preferred,
                               VkMemoryPropertyFlags required, int map,
                               hodu_buffer **out) {
  *out = NULL;
  hodu_buffer *buffer = calloc(1, sizeof *buffer);
  if (!buffer)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  /* Vulkan has no empty buffers, and fills work in words. */
  uint64_t rounded = size < 16 ? 16 : (size + 3) / 4 * 4;
  buffer->size = size;
  VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = rounded;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult result =
      vk->vkCreateBuffer(vk->device, &info, NULL, &buffer->buffer);
  if (result != VK_SUCCESS) {
    vk_buffer_free(&vk->base, buffer);
    return vk_error(vk, "vkCreateBuffer", result);
  }
  VkMemoryRequirements needs;
  vk->vkGetBufferMemoryRequirements(vk->device, buffer->buffer, &needs);
  uint32_t type = memory_type(vk, needs.memoryTypeBits, preferred);
  if (type == UINT32_MAX)
    type = memory_type(vk, needs.memoryTypeBits, required);
  if (type == UINT32_MAX) {
    vk_buffer_free(&vk->base, buffer);
    return hodu_make_status(HODU_DEVICE_ERROR,
                            "Vulkan device '%s' has no suitable memory type "
                            "for a storage buffer",
                            vk->base.name);
  }
  VkMemoryAllocateInfo alloc = {.sType =
                                    VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = needs.size;
  alloc.memoryTypeIndex = type;
  result = vk->vkAllocateMemory(vk->device, &alloc, NULL, &buffer->memory);
  if (result == VK_SUCCESS)
    result =
        vk->vkBindBufferMemory(vk->device, buffer->buffer, buffer->memory, 0);
  if (result != VK_SUCCESS) {
    vk_buffer_free(&vk->base, buffer);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
        result == VK_ERROR_OUT_OF_HOST_MEMORY)
      return hodu_make_status(HODU_OUT_OF_MEMORY,
                              "Vulkan device '%s': out of memory for a "
                              "%llu-byte buffer",
                              vk->base.name, (unsigned long long)size);
    return vk_error(vk, "vkAllocateMemory", result);
  }
  VkMemoryPropertyFlags flags = vk->memory.memoryTypes[type].propertyFlags;
  VkMemoryPropertyFlags mappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (map && (flags & mappable) == mappable) {
    result = vk->vkMapMemory(vk->device, buffer->memory, 0, VK_WHOLE_SIZE, 0,
                             &buffer->mapped);
    if (result != VK_SUCCESS) {
      buffer->mapped = NULL;
      vk_buffer_free(&vk->base, buffer);
      return vk_error(vk, "vkMapMemory", result);
    }
  }
  *out = buffer;
  return NULL;
}

/* Runs `record` on the device's transfer command buffer and waits. */
typedef void (*record_fn)(vk_device *vk, VkCommandBuffer cb, void *context);

static hodu_status run_transfer(vk_device *vk, record_fn record,
                                void *context) {
  pthread_mutex_lock(&vk->lock);
  VkCommandBufferBeginInfo begin = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VkResult result = vk->vkResetCommandBuffer(vk->transfer, 0);
  if (result == VK_SUCCESS)
    result = vk->vkBeginCommandBuffer(vk->transfer, &begin);
  if (result == VK_SUCCESS) {
    record(vk, vk->transfer, context);
    result = vk->vkEndCommandBuffer(vk->transfer);
  }
  if (result == VK_SUCCESS) {
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &vk->transfer;
    result = vk->vkQueueSubmit(vk->queue, 1, &submit, vk->transfer_fence);
  }
  if (result == VK_SUCCESS) {
    result = vk->vkWaitForFences(vk->device, 1, &vk->transfer_fence, VK_TRUE,
                                 VK_TIMEOUT_NS);
    vk->vkResetFences(vk->device, 1, &vk->transfer_fence);
  }
  pthread_mutex_unlock(&vk->lock);
  if (result == VK_TIMEOUT)
    return hodu_make_status(HODU_DEVICE_ERROR,
                            "Vulkan device '%s': a transfer did not finish "
                            "in %llu s",
                            vk->base.name,
                            (unsigned long long)(VK_TIMEOUT_NS / 1000000000));
  return result == VK_SUCCESS ? NULL : vk_error(vk, "a transfer", result);
}

/* Makes transfer and shader writes visible to everything after. */
static void full_barrier(vk_device *vk, VkCommandBuffer cb,
                         VkPipelineStageFlags after) {
  VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask =
      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask =
      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
      VK_ACCESS_HOST_READ_BIT;
  vk->vkCmdPipelineBarrier(
      cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
      after, 0, 1, &barrier, 0, NULL, 0, NULL);
}

typedef struct copy_context {
  VkBuffer from, to;
  VkBufferCopy region;
  VkBuffer fill;
  uint64_t fill_size;
} copy_context;

static void record_copy(vk_device *vk, VkCommandBuffer cb, void *opaque) {
  copy_context *c = opaque;
  if (c->fill)
    vk->vkCmdFillBuffer(cb, c->fill, 0, c->fill_size, 0);
  else
    vk->vkCmdCopyBuffer(cb, c->from, c->to, 1, &c->region);
  full_barrier(vk, cb,
               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                   VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT);
}

static hodu_status vk_buffer_create(hodu_device *device, uint64_t size,
                                    hodu_buffer **out) {
  vk_device *vk = (vk_device *)device;
  hodu_status status =
      make_buffer(vk, size,
                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, !vk->force_staging, out);
  if (status)
    return status;
  hodu_buffer *buffer = *out;
  if (buffer->mapped) {
    memset(buffer->mapped, 0, (size_t)(size < 16 ? 16 : (size + 3) / 4 * 4));
    return NULL;
  }
  copy_context fill = {0};
  fill.fill = buffer->buffer;
  fill.fill_size = VK_WHOLE_SIZE;
  status = run_transfer(vk, record_copy, &fill);
  if (status) {
    vk_buffer_free(device, buffer);
    *out = NULL;
  }
  return status;
}

static void *vk_buffer_host(hodu_buffer *buffer) {
  (void)buffer;
  return NULL; /* device memory: never bound as host memory */
}

static hodu_status staging(vk_device *vk, uint64_t size, hodu_buffer **out) {
  VkMemoryPropertyFlags mappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  return make_buffer(vk, size, mappable, mappable, 1, out);
}

static hodu_status vk_write(hodu_device *device, hodu_buffer *buffer,
                            uint64_t offset, const void *data, uint64_t size) {
  vk_device *vk = (vk_device *)device;
  if (!size)
    return NULL;
  if (buffer->mapped) {
    memcpy((uint8_t *)buffer->mapped + offset, data, (size_t)size);
    return NULL;
  }
  hodu_buffer *stage;
  hodu_status status = staging(vk, size, &stage);
  if (status)
    return status;
  memcpy(stage->mapped, data, (size_t)size);
  copy_context copy = {stage->buffer, buffer->buffer, {0, offset, size}, 0, 0};
  status = run_transfer(vk, record_copy, &copy);
  vk_buffer_free(device, stage);
  return status;
}

static hodu_status vk_read(hodu_device *device, hodu_buffer *buffer,
                           uint64_t offset, void *data, uint64_t size) {
  vk_device *vk = (vk_device *)device;
  if (!size)
    return NULL;
  if (buffer->mapped) {
    memcpy(data, (const uint8_t *)buffer->mapped + offset, (size_t)size);
    return NULL;
  }
  hodu_buffer *stage;
  hodu_status status = staging(vk, size, &stage);
  if (status)
    return status;
  copy_context copy = {buffer->buffer, stage->buffer, {offset, 0, size}, 0, 0};
  status = run_transfer(vk, record_copy, &copy);
  if (!status)
    memcpy(data, stage->mapped, (size_t)size);
  vk_buffer_free(device, stage);
  return status;
}

static hodu_status vk_copy(hodu_device *device, const hodu_binding *from,
                           const hodu_binding *to, uint64_t size) {
  vk_device *vk = (vk_device *)device;
  if (!size)
    return NULL;
  copy_context copy = {from->buffer->buffer,
                       to->buffer->buffer,
                       {from->offset, to->offset, size},
                       0,
                       0};
  return run_transfer(vk, record_copy, &copy);
}

/*===--------------------------------------------------------------------===*
 * Code
 *===--------------------------------------------------------------------===*/

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

static void vk_code_free(hodu_device *device, hodu_code *code) {
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

static hodu_status vk_code_load(hodu_device *device, const hodu_plan *plan,
                                uint32_t index, const char *origin,
                                hodu_code **out) {
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
    vk_code_free(device, code);
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
        status = vk_error(vk, "vkCreateShaderModule", result);
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
      status = vk_error(vk, "creating the pipeline of a kernel", result);
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
    vk_code_free(device, code);
    return status;
  }
  *out = code;
  return NULL;
}

/*===--------------------------------------------------------------------===*
 * Programs
 *===--------------------------------------------------------------------===*/

static void vk_program_free(hodu_device *device, hodu_program *program) {
  vk_device *vk = (vk_device *)device;
  if (!program)
    return;
  if (program->pool)
    vk->vkDestroyCommandPool(vk->device, program->pool, NULL);
  if (program->descriptors)
    vk->vkDestroyDescriptorPool(vk->device, program->descriptors, NULL);
  if (program->fence)
    vk->vkDestroyFence(vk->device, program->fence, NULL);
  free(program->steps);
  free(program);
}

static hodu_status vk_program_create(hodu_device *device, hodu_code *code,
                                     const hodu_plan *plan, uint32_t first,
                                     uint32_t count,
                                     const hodu_binding *bindings,
                                     hodu_program **out) {
  vk_device *vk = (vk_device *)device;
  *out = NULL;
  const VkPhysicalDeviceLimits *limits = &vk->properties.limits;
  hodu_program *program = calloc(1, sizeof *program);
  if (!program)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  program->steps = calloc(count ? count : 1, sizeof *program->steps);
  program->num_steps = count;
  uint32_t launches = 0, descriptors = 0;
  for (uint32_t i = first; i < first + count; ++i)
    if (plan->steps[i].op == HODU_STEP_LAUNCH) {
      ++launches;
      descriptors += plan->steps[i].num_args;
    }
  hodu_status status =
      program->steps ? NULL
                     : hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  VkResult result = VK_SUCCESS;
  if (!status && launches) {
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 descriptors ? descriptors : 1};
    VkDescriptorPoolCreateInfo pool = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool.maxSets = launches;
    pool.poolSizeCount = 1;
    pool.pPoolSizes = &size;
    result = vk->vkCreateDescriptorPool(vk->device, &pool, NULL,
                                        &program->descriptors);
    if (result != VK_SUCCESS)
      status = vk_error(vk, "vkCreateDescriptorPool", result);
  }
  if (!status) {
    VkCommandPoolCreateInfo pool = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool.queueFamilyIndex = vk->queue_family;
    result = vk->vkCreateCommandPool(vk->device, &pool, NULL, &program->pool);
    VkCommandBufferAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = program->pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    if (result == VK_SUCCESS)
      result =
          vk->vkAllocateCommandBuffers(vk->device, &alloc, &program->eager);
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (result == VK_SUCCESS)
      result = vk->vkCreateFence(vk->device, &fence, NULL, &program->fence);
    if (result != VK_SUCCESS)
      status = vk_error(vk, "creating a command buffer", result);
  }
  for (uint32_t i = 0; i < count && !status; ++i) {
    const hodu_bundle_step *step = &plan->steps[first + i];
    vk_step *out_step = &program->steps[i];
    out_step->op = step->op;
    const hodu_binding *args = &bindings[step->first_arg];
    if (step->op == HODU_STEP_COPY) {
      out_step->from = args[0].buffer->buffer;
      out_step->to = args[1].buffer->buffer;
      out_step->region.srcOffset = args[0].offset;
      out_step->region.dstOffset = args[1].offset;
      out_step->region.size = args[0].size;
      continue;
    }
    /* LAUNCH */
    out_step->pipeline = code->pipelines[step->kernel];
    out_step->layout = code->layouts[step->kernel];
    memcpy(out_step->grid, step->grid, sizeof out_step->grid);
    VkDescriptorSetAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = program->descriptors;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &code->set_layouts[step->kernel];
    result = vk->vkAllocateDescriptorSets(vk->device, &alloc, &out_step->set);
    if (result != VK_SUCCESS) {
      status = vk_error(vk, "vkAllocateDescriptorSets", result);
      break;
    }
    for (uint32_t a = 0; a < step->num_args && !status; ++a) {
      if (args[a].offset % limits->minStorageBufferOffsetAlignment)
        status = hodu_make_status(
            HODU_INCOMPATIBLE,
            "model '%s': step %u argument %u is at offset %llu, but Vulkan "
            "device '%s' needs multiples of %llu",
            plan->name, (unsigned)(first + i), (unsigned)a,
            (unsigned long long)args[a].offset, vk->base.name,
            (unsigned long long)limits->minStorageBufferOffsetAlignment);
      else if (args[a].size > limits->maxStorageBufferRange)
        status = hodu_make_status(
            HODU_INCOMPATIBLE,
            "model '%s': step %u argument %u is %llu bytes, more than the "
            "%u a storage buffer of Vulkan device '%s' may span",
            plan->name, (unsigned)(first + i), (unsigned)a,
            (unsigned long long)args[a].size,
            (unsigned)limits->maxStorageBufferRange, vk->base.name);
      if (status)
        break;
      VkDescriptorBufferInfo info = {args[a].buffer->buffer, args[a].offset,
                                     args[a].size};
      VkWriteDescriptorSet write = {.sType =
                                        VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      write.dstSet = out_step->set;
      write.dstBinding = a;
      write.descriptorCount = 1;
      write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      write.pBufferInfo = &info;
      vk->vkUpdateDescriptorSets(vk->device, 1, &write, 0, NULL);
    }
  }
  if (status) {
    vk_program_free(device, program);
    return status;
  }
  *out = program;
  return NULL;
}

/* Records the program; returns the number of vkCmd calls. */
static uint64_t record(vk_device *vk, const hodu_program *program,
                       VkCommandBuffer cb) {
  uint64_t commands = 0;
  /* Earlier submissions (and a previous replay of this very buffer) wrote
   * what the first step reads. */
  full_barrier(vk, cb,
               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                   VK_PIPELINE_STAGE_TRANSFER_BIT);
  ++commands;
  for (uint32_t i = 0; i < program->num_steps; ++i) {
    const vk_step *step = &program->steps[i];
    if (i) {
      full_barrier(vk, cb,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                       VK_PIPELINE_STAGE_TRANSFER_BIT);
      ++commands;
    }
    if (step->op == HODU_STEP_COPY) {
      vk->vkCmdCopyBuffer(cb, step->from, step->to, 1, &step->region);
      ++commands;
      continue;
    }
    vk->vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, step->pipeline);
    vk->vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE,
                                step->layout, 0, 1, &step->set, 0, NULL);
    vk->vkCmdDispatch(cb, step->grid[0], step->grid[1], step->grid[2]);
    commands += 3;
  }
  /* The host reads outputs after the fence. */
  full_barrier(vk, cb,
               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                   VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT);
  return commands + 1;
}

static hodu_status submit_and_wait(vk_device *vk, hodu_program *program,
                                   VkCommandBuffer cb, int64_t count,
                                   hodu_exec_stats *stats) {
  VkCommandBuffer batch[VK_REPLAY_BATCH];
  for (int i = 0; i < VK_REPLAY_BATCH; ++i)
    batch[i] = cb;
  VkResult result = VK_SUCCESS;
  pthread_mutex_lock(&vk->lock);
  for (int64_t done = 0; done < count && result == VK_SUCCESS;) {
    int64_t n = count - done < VK_REPLAY_BATCH ? count - done : VK_REPLAY_BATCH;
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = (uint32_t)n;
    submit.pCommandBuffers = batch;
    done += n;
    result = vk->vkQueueSubmit(vk->queue, 1, &submit,
                               done == count ? program->fence : VK_NULL_HANDLE);
    ++stats->submissions;
  }
  pthread_mutex_unlock(&vk->lock);
  if (result != VK_SUCCESS)
    return vk_error(vk, "vkQueueSubmit", result);
  result = vk->vkWaitForFences(vk->device, 1, &program->fence, VK_TRUE,
                               VK_TIMEOUT_NS);
  vk->vkResetFences(vk->device, 1, &program->fence);
  if (result == VK_TIMEOUT)
    return hodu_make_status(HODU_DEVICE_ERROR,
                            "Vulkan device '%s': a run did not finish in "
                            "%llu s",
                            vk->base.name,
                            (unsigned long long)(VK_TIMEOUT_NS / 1000000000));
  return result == VK_SUCCESS ? NULL : vk_error(vk, "vkWaitForFences", result);
}

static hodu_status vk_program_run(hodu_device *device, hodu_program *program,
                                  hodu_exec_stats *stats) {
  vk_device *vk = (vk_device *)device;
  /* Eager: the host records every step again, as a runtime without
   * capture would. */
  VkCommandBufferBeginInfo begin = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VkResult result = vk->vkResetCommandBuffer(program->eager, 0);
  if (result == VK_SUCCESS)
    result = vk->vkBeginCommandBuffer(program->eager, &begin);
  if (result != VK_SUCCESS)
    return vk_error(vk, "vkBeginCommandBuffer", result);
  stats->commands += record(vk, program, program->eager);
  result = vk->vkEndCommandBuffer(program->eager);
  if (result != VK_SUCCESS)
    return vk_error(vk, "vkEndCommandBuffer", result);
  return submit_and_wait(vk, program, program->eager, 1, stats);
}

static void vk_program_release_capture(hodu_device *device,
                                       hodu_program *program) {
  vk_device *vk = (vk_device *)device;
  if (program->captured)
    vk->vkFreeCommandBuffers(vk->device, program->pool, 1, &program->captured);
  program->captured = VK_NULL_HANDLE;
}

static hodu_status vk_program_capture(hodu_device *device,
                                      hodu_program *program) {
  vk_device *vk = (vk_device *)device;
  VkCommandBufferAllocateInfo alloc = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = program->pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkResult result =
      vk->vkAllocateCommandBuffers(vk->device, &alloc, &program->captured);
  if (result != VK_SUCCESS) {
    program->captured = VK_NULL_HANDLE;
    return vk_error(vk, "vkAllocateCommandBuffers", result);
  }
  /* Pending several times at once within one replay batch. */
  VkCommandBufferBeginInfo begin = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  result = vk->vkBeginCommandBuffer(program->captured, &begin);
  if (result == VK_SUCCESS) {
    record(vk, program, program->captured);
    result = vk->vkEndCommandBuffer(program->captured);
  }
  if (result != VK_SUCCESS) {
    vk_program_release_capture(device, program);
    return vk_error(vk, "recording the capture", result);
  }
  return NULL;
}

static hodu_status vk_program_replay(hodu_device *device, hodu_program *program,
                                     int64_t count, hodu_exec_stats *stats) {
  return submit_and_wait((vk_device *)device, program, program->captured, count,
                         stats);
}

static const hodu_device_ops vk_ops = {vk_destroy,
                                       vk_buffer_create,
                                       vk_buffer_free,
                                       vk_buffer_host,
                                       vk_write,
                                       vk_read,
                                       vk_copy,
                                       vk_code_load,
                                       vk_code_free,
                                       vk_program_create,
                                       vk_program_free,
                                       vk_program_run,
                                       vk_program_capture,
                                       vk_program_replay,
                                       vk_program_release_capture};

#endif /* HODU_NO_VULKAN_HEADERS */
