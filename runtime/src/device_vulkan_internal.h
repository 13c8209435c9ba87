/*===- device_vulkan_internal.h - what the Vulkan device's files share -----===*
 *
 * The Vulkan device is split by concern: device_vulkan.c opens the loader,
 * the instance and the device and holds the vtable; device_vulkan_buffers.c
 * the buffers and host transfers; device_vulkan_code.c the SPIR-V modules
 * and pipelines; device_vulkan_program.c the programs, their command
 * buffers, capture and replay. This header has the loader's function table
 * (vk_device), the buffer and code objects, and the functions one file
 * defines for another. Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_DEVICE_VULKAN_INTERNAL_H
#define HODU_RUNTIME_DEVICE_VULKAN_INTERNAL_H

#include "device.h"
#include "internal.h"

#ifndef HODU_NO_VULKAN_HEADERS

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <pthread.h>

/* A wait longer than this is reported as a device error, not a hang. */
#define VK_TIMEOUT_NS (UINT64_C(300) * 1000 * 1000 * 1000)

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
  struct {
    char name[256]; /* the device's name, for messages and describe */
  } base;
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

struct hodu_device_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  uint64_t size;
  void *mapped; /* host-visible, coherent memory; else NULL */
};

struct hodu_device_code {
  VkShaderModule module;
  uint32_t num_kernels;
  VkDescriptorSetLayout *set_layouts; /* per plan kernel */
  VkPipelineLayout *layouts;
  VkPipeline *pipelines;
};

/* A status for a failed Vulkan call: "Vulkan device '<name>': <what>
 * failed (VkResult <result>)"; OUT_OF_MEMORY for the out-of-memory
 * results. */
hodu_status hodu_vk_error(vk_device *vk, const char *what, VkResult result);

/* device_vulkan_buffers.c: buffers and the host's transfers. */
hodu_status hodu_vk_buffer_create(hodu_device_instance *device, uint64_t size,
                                  hodu_buffer **out);
void hodu_vk_buffer_free(hodu_device_instance *device, hodu_buffer *buffer);
void *hodu_vk_buffer_host(hodu_buffer *buffer);
hodu_status hodu_vk_write(hodu_device_instance *device, hodu_buffer *buffer,
                          uint64_t offset, const void *data, uint64_t size);
hodu_status hodu_vk_read(hodu_device_instance *device, hodu_buffer *buffer,
                         uint64_t offset, void *data, uint64_t size);
hodu_status hodu_vk_copy(hodu_device_instance *device, const hodu_binding *from,
                         const hodu_binding *to, uint64_t size);
/* Makes transfer and shader writes visible to everything after. */
void hodu_vk_full_barrier(vk_device *vk, VkCommandBuffer cb,
                          VkPipelineStageFlags after);

/* device_vulkan_code.c: SPIR-V modules and compute pipelines. */
hodu_status hodu_vk_code_load(hodu_device_instance *device,
                              const hodu_device_plan *plan, uint32_t index,
                              const char *origin, hodu_code **out);
void hodu_vk_code_free(hodu_device_instance *device, hodu_code *code);

/* device_vulkan_program.c: programs, capture and replay. */
hodu_status hodu_vk_program_create(hodu_device_instance *device,
                                   hodu_code *code,
                                   const hodu_device_plan *plan, uint32_t first,
                                   uint32_t count, const hodu_binding *bindings,
                                   const int64_t *symbol_values,
                                   hodu_program **out);
void hodu_vk_program_free(hodu_device_instance *device, hodu_program *program);
hodu_status hodu_vk_program_run(hodu_device_instance *device,
                                hodu_program *program, hodu_exec_stats *stats);
hodu_status hodu_vk_program_capture(hodu_device_instance *device,
                                    hodu_program *program);
hodu_status hodu_vk_program_replay(hodu_device_instance *device,
                                   hodu_program *program, int64_t count,
                                   hodu_exec_stats *stats);
void hodu_vk_program_release_capture(hodu_device_instance *device,
                                     hodu_program *program);

#endif /* HODU_NO_VULKAN_HEADERS */

#endif /* HODU_RUNTIME_DEVICE_VULKAN_INTERNAL_H */
