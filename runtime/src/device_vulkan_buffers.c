/*===- device_vulkan_buffers.c - Vulkan buffers and transfers --------------===*
 *
 * The Vulkan device's buffers (storage buffers in device-local memory,
 * mapped when that memory is also host-visible and coherent) and the
 * host's writes, reads and copies: directly through the mapping, or
 * through a staging buffer and the device's one transfer command buffer.
 *
 *===----------------------------------------------------------------------===*/
#include "device_vulkan_internal.h"

#ifndef HODU_NO_VULKAN_HEADERS

#include <stdlib.h>
#include <string.h>

/* The first memory type in `bits` with all of `flags`, or UINT32_MAX. */
static uint32_t memory_type(const vk_device *vk, uint32_t bits,
                            VkMemoryPropertyFlags flags) {
  for (uint32_t i = 0; i < vk->memory.memoryTypeCount; ++i)
    if ((bits & (1u << i)) &&
        (vk->memory.memoryTypes[i].propertyFlags & flags) == flags)
      return i;
  return UINT32_MAX;
}

void hodu_vk_buffer_free(hodu_device_instance *device, hodu_buffer *buffer) {
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
    hodu_vk_buffer_free((hodu_device_instance *)vk, buffer);
    return hodu_vk_error(vk, "vkCreateBuffer", result);
  }
  VkMemoryRequirements needs;
  vk->vkGetBufferMemoryRequirements(vk->device, buffer->buffer, &needs);
  uint32_t type = memory_type(vk, needs.memoryTypeBits, preferred);
  if (type == UINT32_MAX)
    type = memory_type(vk, needs.memoryTypeBits, required);
  if (type == UINT32_MAX) {
    hodu_vk_buffer_free((hodu_device_instance *)vk, buffer);
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
    hodu_vk_buffer_free((hodu_device_instance *)vk, buffer);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
        result == VK_ERROR_OUT_OF_HOST_MEMORY)
      return hodu_make_status(HODU_OUT_OF_MEMORY,
                              "Vulkan device '%s': out of memory for a "
                              "%llu-byte buffer",
                              vk->base.name, (unsigned long long)size);
    return hodu_vk_error(vk, "vkAllocateMemory", result);
  }
  VkMemoryPropertyFlags flags = vk->memory.memoryTypes[type].propertyFlags;
  VkMemoryPropertyFlags mappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (map && (flags & mappable) == mappable) {
    result = vk->vkMapMemory(vk->device, buffer->memory, 0, VK_WHOLE_SIZE, 0,
                             &buffer->mapped);
    if (result != VK_SUCCESS) {
      buffer->mapped = NULL;
      hodu_vk_buffer_free((hodu_device_instance *)vk, buffer);
      return hodu_vk_error(vk, "vkMapMemory", result);
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
  return result == VK_SUCCESS ? NULL : hodu_vk_error(vk, "a transfer", result);
}

/* Makes transfer and shader writes visible to everything after. */
void hodu_vk_full_barrier(vk_device *vk, VkCommandBuffer cb,
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
  hodu_vk_full_barrier(vk, cb,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                           VK_PIPELINE_STAGE_TRANSFER_BIT |
                           VK_PIPELINE_STAGE_HOST_BIT);
}

hodu_status hodu_vk_buffer_create(hodu_device_instance *device, uint64_t size,
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
    hodu_vk_buffer_free(device, buffer);
    *out = NULL;
  }
  return status;
}

void *hodu_vk_buffer_host(hodu_buffer *buffer) {
  (void)buffer;
  return NULL; /* device memory: never bound as host memory */
}

static hodu_status staging(vk_device *vk, uint64_t size, hodu_buffer **out) {
  VkMemoryPropertyFlags mappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  return make_buffer(vk, size, mappable, mappable, 1, out);
}

hodu_status hodu_vk_write(hodu_device_instance *device, hodu_buffer *buffer,
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
  hodu_vk_buffer_free(device, stage);
  return status;
}

hodu_status hodu_vk_read(hodu_device_instance *device, hodu_buffer *buffer,
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
  hodu_vk_buffer_free(device, stage);
  return status;
}

hodu_status hodu_vk_copy(hodu_device_instance *device, const hodu_binding *from,
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

#endif /* HODU_NO_VULKAN_HEADERS */
