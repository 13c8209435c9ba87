/*===- device_vulkan_program.c - Vulkan programs, capture and replay -------===*
 *
 * A program is a run of plan steps on the Vulkan device: one descriptor
 * set per launch, written once when it is made. An eager run records a
 * command buffer (bind, bind, dispatch, barrier per step) and submits it;
 * a capture records a second command buffer once (SIMULTANEOUS_USE), and
 * replay(n) resubmits it n times in batches, with no recording at all.
 *
 *===----------------------------------------------------------------------===*/
#include "device_vulkan_internal.h"

#ifndef HODU_NO_VULKAN_HEADERS

#include <stdlib.h>
#include <string.h>

/* Command buffers per vkQueueSubmit in a replay. */
#define VK_REPLAY_BATCH 64

typedef struct vk_step {
  uint32_t op;
  VkPipeline pipeline;
  VkPipelineLayout layout;
  VkDescriptorSet set;
  uint32_t grid[3];
  VkBuffer from, to; /* COPY */
  VkBufferCopy region;
} vk_step;

struct hodu_device_program {
  vk_step *steps;
  uint32_t num_steps;
  VkDescriptorPool descriptors;
  VkCommandPool pool;
  VkCommandBuffer eager;
  VkCommandBuffer captured;
  VkFence fence;
  int recorded_eager;
};

void hodu_vk_program_free(hodu_device_instance *device, hodu_program *program) {
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

hodu_status hodu_vk_program_create(hodu_device_instance *device,
                                   hodu_code *code,
                                   const hodu_device_plan *plan, uint32_t first,
                                   uint32_t count, const hodu_binding *bindings,
                                   const int64_t *symbol_values,
                                   hodu_program **out) {
  (void)symbol_values; /* bundle steps never read them */
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
      status = hodu_vk_error(vk, "vkCreateDescriptorPool", result);
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
      status = hodu_vk_error(vk, "creating a command buffer", result);
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
      status = hodu_vk_error(vk, "vkAllocateDescriptorSets", result);
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
    hodu_vk_program_free(device, program);
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
  hodu_vk_full_barrier(vk, cb,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                           VK_PIPELINE_STAGE_TRANSFER_BIT);
  ++commands;
  for (uint32_t i = 0; i < program->num_steps; ++i) {
    const vk_step *step = &program->steps[i];
    if (i) {
      hodu_vk_full_barrier(vk, cb,
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
  hodu_vk_full_barrier(vk, cb,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                           VK_PIPELINE_STAGE_TRANSFER_BIT |
                           VK_PIPELINE_STAGE_HOST_BIT);
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
    return hodu_vk_error(vk, "vkQueueSubmit", result);
  result = vk->vkWaitForFences(vk->device, 1, &program->fence, VK_TRUE,
                               VK_TIMEOUT_NS);
  vk->vkResetFences(vk->device, 1, &program->fence);
  if (result == VK_TIMEOUT)
    return hodu_make_status(HODU_DEVICE_ERROR,
                            "Vulkan device '%s': a run did not finish in "
                            "%llu s",
                            vk->base.name,
                            (unsigned long long)(VK_TIMEOUT_NS / 1000000000));
  return result == VK_SUCCESS ? NULL
                              : hodu_vk_error(vk, "vkWaitForFences", result);
}

hodu_status hodu_vk_program_run(hodu_device_instance *device,
                                hodu_program *program, hodu_exec_stats *stats) {
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
    return hodu_vk_error(vk, "vkBeginCommandBuffer", result);
  stats->commands += record(vk, program, program->eager);
  result = vk->vkEndCommandBuffer(program->eager);
  if (result != VK_SUCCESS)
    return hodu_vk_error(vk, "vkEndCommandBuffer", result);
  return submit_and_wait(vk, program, program->eager, 1, stats);
}

void hodu_vk_program_release_capture(hodu_device_instance *device,
                                     hodu_program *program) {
  vk_device *vk = (vk_device *)device;
  if (program->captured)
    vk->vkFreeCommandBuffers(vk->device, program->pool, 1, &program->captured);
  program->captured = VK_NULL_HANDLE;
}

hodu_status hodu_vk_program_capture(hodu_device_instance *device,
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
    return hodu_vk_error(vk, "vkAllocateCommandBuffers", result);
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
    hodu_vk_program_release_capture(device, program);
    return hodu_vk_error(vk, "recording the capture", result);
  }
  return NULL;
}

hodu_status hodu_vk_program_replay(hodu_device_instance *device,
                                   hodu_program *program, int64_t count,
                                   hodu_exec_stats *stats) {
  return submit_and_wait((vk_device *)device, program, program->captured, count,
                         stats);
}

#endif /* HODU_NO_VULKAN_HEADERS */
