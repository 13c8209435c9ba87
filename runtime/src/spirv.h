/*===- spirv.h - what the Vulkan device reads out of a SPIR-V module -------===*
 *
 * Just enough of a SPIR-V module to refuse, with a message, what a Vulkan
 * driver would otherwise crash or fail vaguely on: its version, the
 * capabilities it declares, its compute entry points and their workgroup
 * sizes. Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_SPIRV_H
#define HODU_RUNTIME_SPIRV_H

#include "internal.h"

#define HODU_SPIRV_MAX_CAPABILITIES 64

typedef struct hodu_spirv_entry {
  const char *name; /* borrowed from a copy held by hodu_spirv_info */
  uint32_t id;
  uint32_t model;    /* execution model (5 = GLCompute) */
  uint32_t local[3]; /* LocalSize, or 0 when not given as literals */
} hodu_spirv_entry;

typedef struct hodu_spirv_info {
  uint32_t version; /* 0x00MMmm00: 0x00010300 for SPIR-V 1.3 */
  uint32_t capabilities[HODU_SPIRV_MAX_CAPABILITIES];
  uint32_t num_capabilities;
  hodu_spirv_entry *entries;
  uint32_t num_entries;
  char *names; /* storage for the entry names */
} hodu_spirv_info;

/* Parses the module's header and instructions; INVALID_ARTIFACT (with
 * `origin` and the word offset) for a malformed one. */
hodu_status hodu_spirv_parse(const uint8_t *bytes, uint64_t size,
                             const char *origin, hodu_spirv_info *info);
void hodu_spirv_info_free(hodu_spirv_info *info);

/* The entry point called `name` of execution model GLCompute, or NULL. */
const hodu_spirv_entry *hodu_spirv_find_compute(const hodu_spirv_info *info,
                                                const char *name);

/* "Float64", "Int8" ...; NULL for a capability this file does not name. */
const char *hodu_spirv_capability_name(uint32_t capability);

#endif /* HODU_RUNTIME_SPIRV_H */
