/*===- spirv.c - reading a SPIR-V module's header and entry points
 * ---------===*/
#include "spirv.h"

#include <stdlib.h>
#include <string.h>

enum {
  OP_ENTRY_POINT = 15,
  OP_EXECUTION_MODE = 16,
  OP_CAPABILITY = 17,
  OP_FUNCTION = 54,
  EXECUTION_MODE_LOCAL_SIZE = 17,
};

const char *hodu_spirv_capability_name(uint32_t capability) {
  switch (capability) {
  case 0:
    return "Matrix";
  case 1:
    return "Shader";
  case 4:
    return "Addresses";
  case 5:
    return "Linkage";
  case 6:
    return "Kernel";
  case 8:
    return "Float16Buffer";
  case 9:
    return "Float16";
  case 10:
    return "Float64";
  case 11:
    return "Int64";
  case 12:
    return "Int64Atomics";
  case 22:
    return "Int16";
  case 39:
    return "Int8";
  case 61:
    return "GroupNonUniform";
  case 62:
    return "GroupNonUniformVote";
  case 63:
    return "GroupNonUniformArithmetic";
  case 64:
    return "GroupNonUniformBallot";
  case 65:
    return "GroupNonUniformShuffle";
  case 66:
    return "GroupNonUniformShuffleRelative";
  case 67:
    return "GroupNonUniformClustered";
  case 68:
    return "GroupNonUniformQuad";
  case 4433:
    return "StorageBuffer16BitAccess";
  case 4434:
    return "UniformAndStorageBuffer16BitAccess";
  case 4441:
    return "VariablePointersStorageBuffer";
  case 4442:
    return "VariablePointers";
  case 4448:
    return "StorageBuffer8BitAccess";
  case 4449:
    return "UniformAndStorageBuffer8BitAccess";
  case 5345:
    return "VulkanMemoryModel";
  case 5346:
    return "VulkanMemoryModelDeviceScope";
  case 5347:
    return "PhysicalStorageBufferAddresses";
  }
  return NULL;
}

void hodu_spirv_info_free(hodu_spirv_info *info) {
  free(info->entries);
  free(info->names);
  memset(info, 0, sizeof *info);
}

const hodu_spirv_entry *hodu_spirv_find_compute(const hodu_spirv_info *info,
                                                const char *name) {
  for (uint32_t i = 0; i < info->num_entries; ++i)
    if (info->entries[i].model == 5 && strcmp(info->entries[i].name, name) == 0)
      return &info->entries[i];
  return NULL;
}

hodu_status hodu_spirv_parse(const uint8_t *bytes, uint64_t size,
                             const char *origin, hodu_spirv_info *info) {
  memset(info, 0, sizeof *info);
  if (size % 4 || size < 20)
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "%s: SPIR-V module of %llu bytes is not 5 or more "
                            "whole words",
                            origin, (unsigned long long)size);
  uint64_t count = size / 4;
  uint32_t *words = malloc((size_t)size);
  /* The names are at most the module's bytes. */
  info->names = malloc((size_t)size);
  info->entries = calloc((size_t)(count / 3 + 1), sizeof *info->entries);
  if (!words || !info->names || !info->entries) {
    free(words);
    hodu_spirv_info_free(info);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  memcpy(words, bytes, (size_t)size);
  hodu_status status = NULL;
  size_t names_used = 0;
  if (words[0] != 0x07230203u)
    status = hodu_make_status(HODU_INVALID_ARTIFACT,
                              "%s: not a SPIR-V module (magic 0x%08x)", origin,
                              (unsigned)words[0]);
  info->version = words[1];
  for (uint64_t at = 5; at < count && !status;) {
    uint32_t length = words[at] >> 16, op = words[at] & 0xffffu;
    if (length == 0 || length > count - at) {
      status =
          hodu_make_status(HODU_INVALID_ARTIFACT,
                           "%s: malformed SPIR-V: instruction at word "
                           "%llu has length %u",
                           origin, (unsigned long long)at, (unsigned)length);
      break;
    }
    const uint32_t *operands = words + at + 1;
    uint32_t n = length - 1;
    if (op == OP_FUNCTION)
      break; /* declarations end where functions begin */
    if (op == OP_CAPABILITY && n >= 1 &&
        info->num_capabilities < HODU_SPIRV_MAX_CAPABILITIES)
      info->capabilities[info->num_capabilities++] = operands[0];
    if (op == OP_ENTRY_POINT && n >= 3) {
      /* model, id, a NUL-terminated literal string, interface ids */
      const char *name = (const char *)(operands + 2);
      size_t limit = (size_t)(n - 2) * 4;
      size_t len = strnlen(name, limit);
      if (len == limit) {
        status = hodu_make_status(HODU_INVALID_ARTIFACT,
                                  "%s: malformed SPIR-V: entry point name at "
                                  "word %llu is not terminated",
                                  origin, (unsigned long long)at);
        break;
      }
      hodu_spirv_entry *entry = &info->entries[info->num_entries++];
      memcpy(info->names + names_used, name, len + 1);
      entry->name = info->names + names_used;
      names_used += len + 1;
      entry->model = operands[0];
      entry->id = operands[1];
    }
    if (op == OP_EXECUTION_MODE && n >= 5 &&
        operands[1] == EXECUTION_MODE_LOCAL_SIZE)
      for (uint32_t e = 0; e < info->num_entries; ++e)
        if (info->entries[e].id == operands[0])
          memcpy(info->entries[e].local, operands + 2, sizeof(uint32_t) * 3);
    at += length;
  }
  free(words);
  if (status)
    hodu_spirv_info_free(info);
  return status;
}
