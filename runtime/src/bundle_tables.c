/*===- bundle_tables.c - validating a bundle's sections --------------------===*
 *
 * The second half of the bundle reader (bundle.c has the first): once the
 * header and the section table are sound, each section's contents are
 * checked in order -- STRINGS, MODEL, DEVICES, DIMS, TENSORS, CODE,
 * KERNELS, ARGS, STEPS, SYMBOLS and DYNAMIC_DIMS -- and copied into the
 * plan. Every string
 * reference, index, size and offset is checked against what it points
 * into, so the rest of the runtime indexes the plan's tables freely.
 *
 *===----------------------------------------------------------------------===*/
#include "bundle_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which code formats a device kind runs. */
static int format_fits_device(uint32_t format, uint32_t kind) {
  switch (kind) {
  case HODU_DEVICE_CPU:
    return format == HODU_CODE_ELF;
  case HODU_DEVICE_VULKAN:
    return format == HODU_CODE_SPIRV;
  case HODU_DEVICE_CUDA:
    return format == HODU_CODE_PTX || format == HODU_CODE_CUBIN ||
           format == HODU_CODE_FATBIN;
  case HODU_DEVICE_HIP:
    return format == HODU_CODE_HSACO;
  case HODU_DEVICE_METAL:
    return format == HODU_CODE_MSL;
  case HODU_DEVICE_PLUGIN:
    return 1; /* the plugin's code_formats are checked at load */
  }
  return 0;
}

/* A string reference: NULL unless it points at a NUL-terminated string
 * inside STRINGS. */
static const char *string_at(const parser *p, hodu_bundle_string ref) {
  const hodu_plan *plan = p->plan;
  if (ref >= plan->strings_size)
    return NULL;
  if (!memchr(plan->strings + ref, '\0', plan->strings_size - ref))
    return NULL;
  return plan->strings + ref;
}

static hodu_status check_strings(parser *p) {
  const hodu_bundle_section *s = &p->sections[HODU_BUNDLE_SECTION_STRINGS];
  if (s->size == 0 || p->data[s->offset] != '\0')
    return BAD(p, "section STRINGS: %s",
               s->size == 0 ? "it is empty (byte 0 must be "
                              "NUL, the empty string)"
                            : "byte 0 is not NUL (offset 0 "
                              "is the empty string)");
  p->plan->strings = (const char *)p->data + s->offset;
  p->plan->strings_size = s->size;
  return NULL;
}

/* Checks `ref` and returns its string in *out; `what` names the field. */
#define STRING_FIELD(p, ref, out, ...)                                         \
  do {                                                                         \
    (out) = string_at((p), (ref));                                             \
    if (!(out)) {                                                              \
      char where_[192];                                                        \
      snprintf(where_, sizeof where_, __VA_ARGS__);                            \
      return BAD((p),                                                          \
                 "%s: string reference %u is not a NUL-terminated "            \
                 "string inside STRINGS (%llu bytes)",                         \
                 where_, (unsigned)(ref),                                      \
                 (unsigned long long)(p)->plan->strings_size);                 \
    }                                                                          \
  } while (0)

static hodu_status check_model(parser *p) {
  /* Records of minor 0 and 1 end before num_state_tensors (then 0). */
  hodu_bundle_model model;
  memset(&model, 0, sizeof model);
  const hodu_bundle_section *section = &p->sections[HODU_BUNDLE_SECTION_MODEL];
  memcpy(&model, p->data + section->offset,
         section->entry_size < sizeof model ? section->entry_size
                                            : sizeof model);
  hodu_plan *plan = p->plan;
  STRING_FIELD(p, model.name, plan->name, "section MODEL: field name");
  STRING_FIELD(p, model.producer, plan->producer,
               "section MODEL: field producer");
  if (model.flags != 0)
    return BAD(p, "section MODEL: flags is 0x%x, expected 0",
               (unsigned)model.flags);
  if (model.reserved != 0)
    return BAD(p, "section MODEL: reserved is 0x%x, expected 0",
               (unsigned)model.reserved);
  if (model.num_state_tensors > model.num_inputs ||
      model.num_state_tensors > model.num_outputs)
    return BAD(p,
               "section MODEL: %u state tensors, but %u inputs and %u "
               "outputs (each state tensor is one of the last inputs and "
               "one of the last outputs)",
               (unsigned)model.num_state_tensors, (unsigned)model.num_inputs,
               (unsigned)model.num_outputs);
  plan->num_inputs = model.num_inputs;
  plan->num_outputs = model.num_outputs;
  plan->num_meta = model.num_meta_slots;
  p->num_state = model.num_state_tensors;
  return NULL;
}

static hodu_status check_devices(parser *p) {
  hodu_plan *plan = p->plan;
  hodu_status status = hodu_bundle_copy_table(
      p, HODU_BUNDLE_SECTION_DEVICES, sizeof(hodu_bundle_device),
      (void **)&plan->devices, &plan->num_devices);
  if (status)
    return status;
  if (plan->num_devices == 0)
    return BAD(p, "section DEVICES: it is empty (a plan needs a device)");
  plan->main_device = 0;
  int found = 0;
  for (uint32_t i = 0; i < plan->num_devices; ++i) {
    const hodu_bundle_device *d = &plan->devices[i];
    if (d->kind >= HODU_DEVICE_KIND_COUNT)
      return BAD(p,
                 "section DEVICES entry %u: kind is %u, not a "
                 "hodu_device_kind",
                 (unsigned)i, (unsigned)d->kind);
    if (d->flags != 0 || d->reserved != 0)
      return BAD(p, "section DEVICES entry %u: %s is 0x%x, expected 0",
                 (unsigned)i, d->flags ? "flags" : "reserved",
                 (unsigned)(d->flags ? d->flags : d->reserved));
    const char *name;
    STRING_FIELD(p, d->name, name, "section DEVICES entry %u: field name",
                 (unsigned)i);
    if ((d->kind == HODU_DEVICE_PLUGIN) != (*name != 0))
      return BAD(p, "section DEVICES entry %u: %s", (unsigned)i,
                 *name ? "only a plugin device has a name"
                       : "a plugin device needs a name");
    if (strlen(name) > HODU_PLUGIN_DEVICE_NAME_MAX)
      return BAD(p,
                 "section DEVICES entry %u: the plugin device name is %zu "
                 "bytes, more than %d",
                 (unsigned)i, strlen(name), HODU_PLUGIN_DEVICE_NAME_MAX);
    if (!found && d->kind != HODU_DEVICE_CPU) {
      plan->main_device = i;
      found = 1;
    }
  }
  return NULL;
}

static hodu_status check_dims(parser *p) {
  hodu_plan *plan = p->plan;
  return hodu_bundle_copy_table(p, HODU_BUNDLE_SECTION_DIMS, sizeof(int64_t),
                                (void **)&plan->dims, &plan->num_dims);
}

static const char *tensor_role(const hodu_plan *plan, uint32_t i) {
  return i < plan->num_inputs                       ? "input"
         : i < plan->num_inputs + plan->num_outputs ? "output"
                                                    : "meta slot";
}

static hodu_status check_tensors(parser *p) {
  hodu_plan *plan = p->plan;
  hodu_bundle_tensor *records = NULL;
  uint32_t count = 0;
  hodu_status status =
      hodu_bundle_copy_table(p, HODU_BUNDLE_SECTION_TENSORS, sizeof *records,
                             (void **)&records, &count);
  if (status)
    return status;
  uint64_t expected =
      (uint64_t)plan->num_inputs + plan->num_outputs + plan->num_meta;
  if (count != expected) {
    free(records);
    return BAD(p,
               "section TENSORS: holds %u entries, but MODEL declares %u "
               "inputs + %u outputs + %u meta slots = %llu",
               (unsigned)count, (unsigned)plan->num_inputs,
               (unsigned)plan->num_outputs, (unsigned)plan->num_meta,
               (unsigned long long)expected);
  }
  if (count) {
    plan->tensors = calloc(count, sizeof *plan->tensors);
    if (!plan->tensors) {
      free(records);
      return out_of_memory();
    }
  }
  for (uint32_t i = 0; i < count && !status; ++i) {
    const hodu_bundle_tensor *t = &records[i];
    hodu_plan_tensor *out = &plan->tensors[i];
    const char *role = tensor_role(plan, i);
    const char *name = string_at(p, t->name);
    if (!name) {
      status = BAD(p,
                   "section TENSORS entry %u (%s): field name: string "
                   "reference %u is not a NUL-terminated string inside "
                   "STRINGS",
                   (unsigned)i, role, (unsigned)t->name);
      break;
    }
#define TBAD(...)                                                              \
  do {                                                                         \
    char what_[256];                                                           \
    snprintf(what_, sizeof what_, __VA_ARGS__);                                \
    status = BAD(p, "section TENSORS entry %u (%s '%s'): %s", (unsigned)i,     \
                 role, name, what_);                                           \
  } while (0)
    if (!*name) {
      TBAD("field name is empty");
      break;
    }
    size_t element = hodu_dtype_size((hodu_dtype)t->dtype);
    uint64_t elements = 1;
    if (element == 0)
      TBAD("field dtype is %d, not a hodu_dtype", (int)t->dtype);
    else if (t->rank > HODU_BUNDLE_MAX_RANK)
      TBAD("field rank is %u, more than %u", (unsigned)t->rank,
           (unsigned)HODU_BUNDLE_MAX_RANK);
    else if (!fits(t->first_dim, t->rank, plan->num_dims))
      TBAD("fields first_dim %u and rank %u reach past the %u entries of "
           "DIMS",
           (unsigned)t->first_dim, (unsigned)t->rank, (unsigned)plan->num_dims);
    else if (t->device >= plan->num_devices)
      TBAD("field device is %u, but there are %u devices", (unsigned)t->device,
           (unsigned)plan->num_devices);
    else if (t->flags != 0)
      TBAD("flags is 0x%x, expected 0", (unsigned)t->flags);
    if (status)
      break;
    for (uint32_t d = 0; d < t->rank && !status; ++d) {
      int64_t extent = plan->dims[t->first_dim + d];
      if (extent < 0)
        TBAD("extent %u is %lld, must be >= 0", (unsigned)d, (long long)extent);
      else if (extent != 0 && elements > (uint64_t)INT64_MAX / (uint64_t)extent)
        TBAD("the shape's element count overflows");
      else
        elements *= (uint64_t)extent;
    }
    if (status)
      break;
    if (elements > UINT64_MAX / element) {
      TBAD("the shape's byte size overflows");
      break;
    }
    if (t->bytes != elements * element) {
      TBAD("field bytes is %llu, but %llu elements of %s take %llu",
           (unsigned long long)t->bytes, (unsigned long long)elements,
           hodu_dtype_name((hodu_dtype)t->dtype),
           (unsigned long long)(elements * element));
      break;
    }
    int meta = i >= plan->num_inputs + plan->num_outputs;
    /* Meta slots and state inputs (the last num_state inputs) may have an
     * initial value. */
    int initialized =
        meta || (i < plan->num_inputs && i >= plan->num_inputs - p->num_state);
    if (!initialized && t->init != HODU_BUNDLE_NONE) {
      TBAD("field init is %llu, but only meta slots and state tensors have "
           "an initial value",
           (unsigned long long)t->init);
      break;
    }
    if (initialized && t->init != HODU_BUNDLE_NONE &&
        !fits(t->init, t->bytes, plan->weights_size)) {
      TBAD("the initial value (%llu bytes at WEIGHTS offset %llu) lies "
           "outside the %llu bytes of WEIGHTS",
           (unsigned long long)t->bytes, (unsigned long long)t->init,
           (unsigned long long)plan->weights_size);
      break;
    }
    /* Names are looked up per role, so they must be unique in it. */
    uint32_t role_begin = i < plan->num_inputs ? 0
                          : !meta              ? plan->num_inputs
                                  : plan->num_inputs + plan->num_outputs;
    for (uint32_t j = role_begin; j < i && !status; ++j)
      if (strcmp(plan->tensors[j].desc.name, name) == 0)
        TBAD("its name is also the name of entry %u", (unsigned)j);
#undef TBAD
    if (status)
      break;
    out->desc.name = name;
    out->desc.dtype = t->dtype;
    out->desc.rank = (int32_t)t->rank;
    out->desc.shape = t->rank ? plan->dims + t->first_dim : NULL;
    out->device = t->device;
    out->bytes = t->bytes;
    out->init = initialized && t->init != HODU_BUNDLE_NONE
                    ? plan->weights + t->init
                    : NULL;
  }
  free(records);
  return status;
}

static hodu_status check_codes(parser *p) {
  hodu_plan *plan = p->plan;
  hodu_status status = hodu_bundle_copy_table(
      p, HODU_BUNDLE_SECTION_CODE, sizeof(hodu_bundle_code),
      (void **)&plan->codes, &plan->num_codes);
  if (status)
    return status;
  for (uint32_t i = 0; i < plan->num_codes; ++i) {
    const hodu_bundle_code *c = &plan->codes[i];
    const char *arch;
    STRING_FIELD(p, c->arch, arch, "section CODE entry %u: field arch",
                 (unsigned)i);
    if (c->device >= plan->num_devices)
      return BAD(p,
                 "section CODE entry %u: field device is %u, but there "
                 "are %u devices",
                 (unsigned)i, (unsigned)c->device, (unsigned)plan->num_devices);
    uint32_t kind = plan->devices[c->device].kind;
    if (c->format == 0 || c->format >= HODU_CODE_FORMAT_COUNT)
      return BAD(p,
                 "section CODE entry %u: format is %u, not a "
                 "hodu_code_format",
                 (unsigned)i, (unsigned)c->format);
    if (!format_fits_device(c->format, kind))
      return BAD(p,
                 "section CODE entry %u: %s code cannot run on device %u "
                 "(%s)",
                 (unsigned)i, hodu_code_format_name(c->format),
                 (unsigned)c->device, hodu_device_kind_name(kind));
    if (c->flags != 0)
      return BAD(p, "section CODE entry %u: flags is 0x%x, expected 0",
                 (unsigned)i, (unsigned)c->flags);
    if (c->size == 0 || !fits(c->offset, c->size, plan->blobs_size))
      return BAD(p,
                 "section CODE entry %u: %llu bytes at BLOBS offset %llu "
                 "%s",
                 (unsigned)i, (unsigned long long)c->size,
                 (unsigned long long)c->offset,
                 c->size == 0 ? "(a code object cannot be empty)"
                              : "lie outside BLOBS");
    const uint8_t *bytes = plan->blobs + c->offset;
    if (c->format == HODU_CODE_SPIRV) {
      uint32_t magic = 0;
      if (c->size >= 4)
        memcpy(&magic, bytes, 4);
      if (c->size % 4 != 0 || c->size < 20 || magic != 0x07230203u)
        return BAD(p, "section CODE entry %u: not a SPIR-V module (%s)",
                   (unsigned)i,
                   c->size % 4 || c->size < 20
                       ? "its size is not a whole number of words >= 5"
                       : "no SPIR-V magic number");
    } else if (c->format == HODU_CODE_PTX || c->format == HODU_CODE_MSL) {
      if (bytes[c->size - 1] != '\0')
        return BAD(p, "section CODE entry %u: %s text is not NUL-terminated",
                   (unsigned)i, hodu_code_format_name(c->format));
    } else if (c->format == HODU_CODE_ELF || c->format == HODU_CODE_CUBIN ||
               c->format == HODU_CODE_HSACO) {
      if (c->size < 4 || memcmp(bytes, "\177ELF", 4) != 0)
        return BAD(p, "section CODE entry %u: %s code is not an ELF file",
                   (unsigned)i, hodu_code_format_name(c->format));
    }
  }
  return NULL;
}

static hodu_status check_kernels(parser *p) {
  hodu_plan *plan = p->plan;
  hodu_status status = hodu_bundle_copy_table(
      p, HODU_BUNDLE_SECTION_KERNELS, sizeof(hodu_bundle_kernel),
      (void **)&plan->kernels, &plan->num_kernels);
  if (status)
    return status;
  for (uint32_t i = 0; i < plan->num_kernels; ++i) {
    const hodu_bundle_kernel *k = &plan->kernels[i];
    const char *name;
    STRING_FIELD(p, k->name, name, "section KERNELS entry %u: field name",
                 (unsigned)i);
    if (!*name)
      return BAD(p, "section KERNELS entry %u: field name is empty",
                 (unsigned)i);
    if (k->device >= plan->num_devices)
      return BAD(p,
                 "section KERNELS entry %u ('%s'): field device is %u, "
                 "but there are %u devices",
                 (unsigned)i, name, (unsigned)k->device,
                 (unsigned)plan->num_devices);
    for (int d = 0; d < 3; ++d)
      if (k->block[d] == 0)
        return BAD(p,
                   "section KERNELS entry %u ('%s'): field block[%d] is "
                   "0, must be >= 1",
                   (unsigned)i, name, d);
    if (k->flags != 0)
      return BAD(p,
                 "section KERNELS entry %u ('%s'): flags is 0x%x, "
                 "expected 0",
                 (unsigned)i, name, (unsigned)k->flags);
    int has_code = 0;
    for (uint32_t c = 0; c < plan->num_codes && !has_code; ++c)
      has_code = plan->codes[c].device == k->device;
    if (!has_code)
      return BAD(p,
                 "section KERNELS entry %u ('%s'): device %u (%s) has no "
                 "code object in CODE",
                 (unsigned)i, name, (unsigned)k->device,
                 hodu_device_kind_name(plan->devices[k->device].kind));
  }
  return NULL;
}

/* The size of the buffer `arg` points into. */
static uint64_t buffer_size(const hodu_plan *plan, const hodu_bundle_arg *arg) {
  switch (arg->space) {
  case HODU_SPACE_INPUT:
    return plan->tensors[arg->index].bytes;
  case HODU_SPACE_OUTPUT:
    return plan->tensors[plan->num_inputs + arg->index].bytes;
  case HODU_SPACE_META:
    return plan->tensors[plan->num_inputs + plan->num_outputs + arg->index]
        .bytes;
  case HODU_SPACE_ARENA:
    return plan->devices[arg->index].arena_size;
  case HODU_SPACE_WEIGHTS:
    return plan->weights_size;
  }
  return 0;
}

static hodu_status check_args(parser *p) {
  hodu_plan *plan = p->plan;
  hodu_status status = hodu_bundle_copy_table(
      p, HODU_BUNDLE_SECTION_ARGS, sizeof(hodu_bundle_arg),
      (void **)&plan->args, &plan->num_args);
  if (status)
    return status;
  for (uint32_t i = 0; i < plan->num_args; ++i) {
    const hodu_bundle_arg *a = &plan->args[i];
    if (a->space == 0 || a->space >= HODU_SPACE_COUNT)
      return BAD(p,
                 "section ARGS entry %u: space is %u, not a "
                 "hodu_buffer_space",
                 (unsigned)i, (unsigned)a->space);
    const char *space = hodu_buffer_space_name(a->space);
    uint32_t limit = a->space == HODU_SPACE_INPUT    ? plan->num_inputs
                     : a->space == HODU_SPACE_OUTPUT ? plan->num_outputs
                     : a->space == HODU_SPACE_META   ? plan->num_meta
                                                     : plan->num_devices;
    if (a->index >= limit)
      return BAD(p,
                 "section ARGS entry %u (%s): index is %u, but there are "
                 "%u %s",
                 (unsigned)i, space, (unsigned)a->index, (unsigned)limit,
                 a->space == HODU_SPACE_INPUT    ? "inputs"
                 : a->space == HODU_SPACE_OUTPUT ? "outputs"
                 : a->space == HODU_SPACE_META   ? "meta slots"
                                                 : "devices");
    uint64_t size = buffer_size(plan, a);
    if (a->size == 0)
      return BAD(p, "section ARGS entry %u (%s %u): size is 0, must be > 0",
                 (unsigned)i, space, (unsigned)a->index);
    if (!fits(a->offset, a->size, size))
      return BAD(p,
                 "section ARGS entry %u (%s %u): %llu bytes at offset "
                 "%llu lie outside the %llu-byte buffer",
                 (unsigned)i, space, (unsigned)a->index,
                 (unsigned long long)a->size, (unsigned long long)a->offset,
                 (unsigned long long)size);
    int ranged = a->space == HODU_SPACE_ARENA || a->space == HODU_SPACE_WEIGHTS;
    if (ranged && a->offset % HODU_BUNDLE_BUFFER_ALIGNMENT != 0)
      return BAD(p,
                 "section ARGS entry %u (%s %u): offset %llu is not a "
                 "multiple of %u",
                 (unsigned)i, space, (unsigned)a->index,
                 (unsigned long long)a->offset,
                 (unsigned)HODU_BUNDLE_BUFFER_ALIGNMENT);
    if (!ranged && (a->offset != 0 || a->size != size))
      return BAD(p,
                 "section ARGS entry %u (%s %u): %ss are passed whole "
                 "(offset 0, size %llu), got offset %llu size %llu",
                 (unsigned)i, space, (unsigned)a->index,
                 a->space == HODU_SPACE_META ? "meta slot" : "tensor",
                 (unsigned long long)size, (unsigned long long)a->offset,
                 (unsigned long long)a->size);
  }
  return NULL;
}

/* One step of STEPS or VARIANT_STEPS (bundle_internal.h). */
hodu_status hodu_bundle_check_step(parser *p, const char *section, uint32_t i,
                                   const hodu_bundle_step *s) {
  hodu_plan *plan = p->plan;
  if (s->op == 0 || s->op >= HODU_STEP_OP_COUNT)
    return BAD(p, "section %s entry %u: op is %u, not a hodu_step_op", section,
               (unsigned)i, (unsigned)s->op);
  const char *op = hodu_step_op_name(s->op);
  if (s->device >= plan->num_devices)
    return BAD(p,
               "section %s entry %u (%s): field device is %u, but "
               "there are %u devices",
               section, (unsigned)i, op, (unsigned)s->device,
               (unsigned)plan->num_devices);
  uint32_t kind = plan->devices[s->device].kind;
  if (!fits(s->first_arg, s->num_args, plan->num_args))
    return BAD(p,
               "section %s entry %u (%s): args [%u, +%u) reach past "
               "the %u entries of ARGS",
               section, (unsigned)i, op, (unsigned)s->first_arg,
               (unsigned)s->num_args, (unsigned)plan->num_args);
  const hodu_bundle_arg *args = plan->args + s->first_arg;
  if (s->op == HODU_STEP_LAUNCH || s->op == HODU_STEP_HOST_CALL) {
    int host = s->op == HODU_STEP_HOST_CALL;
    /* A plugin device takes both; its code says which it runs. */
    if (kind != HODU_DEVICE_PLUGIN && host != (kind == HODU_DEVICE_CPU))
      return BAD(p,
                 "section %s entry %u (%s): device %u is a %s "
                 "device; %s",
                 section, (unsigned)i, op, (unsigned)s->device,
                 hodu_device_kind_name(kind),
                 host ? "HOST_CALL runs on CPU devices"
                      : "CPU work is HOST_CALL, LAUNCH runs on GPUs");
    if (s->kernel >= plan->num_kernels)
      return BAD(p,
                 "section %s entry %u (%s): field kernel is %u, but "
                 "there are %u kernels",
                 section, (unsigned)i, op, (unsigned)s->kernel,
                 (unsigned)plan->num_kernels);
    const hodu_bundle_kernel *k = &plan->kernels[s->kernel];
    const char *name = plan->strings + k->name;
    if (k->device != s->device)
      return BAD(p,
                 "section %s entry %u (%s '%s'): the kernel is on "
                 "device %u, the step on device %u",
                 section, (unsigned)i, op, name, (unsigned)k->device,
                 (unsigned)s->device);
    if (s->num_args != k->num_args)
      return BAD(p,
                 "section %s entry %u (%s '%s'): num_args is %u, but "
                 "the kernel takes %u",
                 section, (unsigned)i, op, name, (unsigned)s->num_args,
                 (unsigned)k->num_args);
    if (!host)
      for (int d = 0; d < 3; ++d)
        if (s->grid[d] == 0)
          return BAD(p,
                     "section %s entry %u (%s '%s'): field grid[%d] "
                     "is 0, must be >= 1",
                     section, (unsigned)i, op, name, d);
    for (uint32_t a = 0; a < s->num_args; ++a) {
      uint32_t device = hodu_plan_arg_device(plan, &args[a]);
      if (device != s->device)
        return BAD(
            p,
            "section %s entry %u (%s '%s'): argument %u (ARGS "
            "entry %u, %s %u) is on device %u, the step runs on "
            "device %u",
            section, (unsigned)i, op, name, (unsigned)a,
            (unsigned)(s->first_arg + a), hodu_buffer_space_name(args[a].space),
            (unsigned)args[a].index, (unsigned)device, (unsigned)s->device);
    }
  } else { /* COPY, TRANSFER */
    if (s->num_args != 2)
      return BAD(p,
                 "section %s entry %u (%s): num_args is %u, expected "
                 "2 (source, destination)",
                 section, (unsigned)i, op, (unsigned)s->num_args);
    if (args[0].size != args[1].size)
      return BAD(p,
                 "section %s entry %u (%s): source and destination "
                 "sizes differ (%llu and %llu bytes)",
                 section, (unsigned)i, op, (unsigned long long)args[0].size,
                 (unsigned long long)args[1].size);
    if (args[1].space == HODU_SPACE_INPUT ||
        args[1].space == HODU_SPACE_WEIGHTS)
      return BAD(p,
                 "section %s entry %u (%s): the destination is %s, "
                 "which the plan only reads",
                 section, (unsigned)i, op,
                 hodu_buffer_space_name(args[1].space));
    uint32_t from = hodu_plan_arg_device(plan, &args[0]);
    uint32_t to = hodu_plan_arg_device(plan, &args[1]);
    if (s->op == HODU_STEP_COPY && (from != s->device || to != s->device))
      return BAD(p,
                 "section %s entry %u (COPY): its buffers are on "
                 "devices %u and %u, the step runs on device %u (use "
                 "TRANSFER between devices)",
                 section, (unsigned)i, (unsigned)from, (unsigned)to,
                 (unsigned)s->device);
    if (s->op == HODU_STEP_TRANSFER && from == to)
      return BAD(p,
                 "section %s entry %u (TRANSFER): both buffers are on "
                 "device %u (use COPY within a device)",
                 section, (unsigned)i, (unsigned)from);
    if (s->op == HODU_STEP_TRANSFER && s->device != from && s->device != to)
      return BAD(p,
                 "section %s entry %u (TRANSFER): runs on device %u, "
                 "which is neither end (%u to %u)",
                 section, (unsigned)i, (unsigned)s->device, (unsigned)from,
                 (unsigned)to);
  }
  return NULL;
}

static hodu_status check_steps(parser *p) {
  hodu_plan *plan = p->plan;
  hodu_status status = hodu_bundle_copy_table(
      p, HODU_BUNDLE_SECTION_STEPS, sizeof(hodu_bundle_step),
      (void **)&plan->steps, &plan->num_steps);
  for (uint32_t i = 0; i < plan->num_steps && !status; ++i)
    status = hodu_bundle_check_step(p, "STEPS", i, &plan->steps[i]);
  return status;
}

/* The symbols' tables in abi.h's form, the shapes with HODU_DIM_DYNAMIC,
 * the tensors' chunk geometry and the plan's descriptor of them, for
 * tables check_symbols accepted. */
static hodu_status describe_symbols(parser *p,
                                    const hodu_bundle_symbol *symbols,
                                    const hodu_bundle_dynamic_dim *records,
                                    uint32_t num_symbols,
                                    uint32_t num_records) {
  hodu_plan *plan = p->plan;
  uint32_t described = plan->num_inputs + plan->num_outputs;
  plan->symbols = calloc(num_symbols, sizeof *plan->symbols);
  plan->dynamic_dims =
      calloc(num_records ? num_records : 1, sizeof *plan->dynamic_dims);
  plan->divisors =
      calloc(num_records ? num_records : 1, sizeof *plan->divisors);
  plan->shapes = calloc(plan->num_dims ? plan->num_dims : 1, sizeof(int64_t));
  plan->described = calloc(described ? described : 1, sizeof *plan->described);
  if (!plan->symbols || !plan->dynamic_dims || !plan->divisors ||
      !plan->shapes || !plan->described)
    return out_of_memory();
  plan->num_symbols = num_symbols;
  for (uint32_t k = 0; k < num_symbols; ++k) {
    const hodu_bundle_symbol *sym = &symbols[k];
    if (sym->flags & HODU_BUNDLE_SYMBOL_PADDED) {
      plan->pad_symbols[plan->num_padded] = (int32_t)k;
      plan->value_slots[plan->num_padded++] = sym->value_slot;
    } else {
      plan->chunk_symbol = (int32_t)k;
      plan->chunk = sym->chunk;
    }
    plan->symbols[k] = (hodu_symbol_desc){plan->strings + sym->name, sym->min,
                                          sym->max, sym->multiple, sym->chunk};
  }
  if (plan->num_dims)
    memcpy(plan->shapes, plan->dims, sizeof(int64_t) * plan->num_dims);
  for (uint32_t i = 0; i < described; ++i) {
    hodu_plan_tensor *t = &plan->tensors[i];
    t->chunk_dim = -1;
    t->bound_shape = t->desc.shape;
  }
  for (uint32_t r = 0; r < num_records; ++r) {
    const hodu_bundle_dynamic_dim *record = &records[r];
    hodu_plan_tensor *t = &plan->tensors[record->tensor];
    int is_output = record->tensor >= plan->num_inputs;
    plan->dynamic_dims[r] = (hodu_dynamic_dim){
        is_output,
        (int32_t)(is_output ? record->tensor - plan->num_inputs
                            : record->tensor),
        (int32_t)record->dim,
        (int32_t)record->symbol,
        record->scale,
        record->offset};
    plan->divisors[r] = record->divisor;
    /* The tensor's bytes at the chunk are outer * chunk * unit (for a
     * tensor with a padded dim, a box: session.c). */
    uint64_t outer = 1, unit = hodu_dtype_size((hodu_dtype)t->desc.dtype);
    for (int32_t d = 0; d < t->desc.rank; ++d)
      if ((uint32_t)d < record->dim)
        outer *= (uint64_t)t->desc.shape[d];
      else if ((uint32_t)d > record->dim)
        unit *= (uint64_t)t->desc.shape[d];
    if (symbols[record->symbol].flags & HODU_BUNDLE_SYMBOL_PADDED) {
      t->pad[t->num_pad++] = (hodu_plan_pad){(int32_t)record->dim,
                                             (int32_t)record->symbol,
                                             t->desc.shape[record->dim],
                                             record->scale,
                                             record->offset,
                                             record->divisor};
      if (!t->unit)
        t->unit = unit;
    } else {
      t->chunk_dim = (int32_t)record->dim;
      t->chunk_scale = record->scale;
      t->outer = outer;
      t->unit = unit * (uint64_t)record->scale;
    }
  }
  plan->num_dynamic_dims = num_records;
  for (uint32_t i = 0;
       i < plan->num_inputs + plan->num_outputs + plan->num_meta; ++i) {
    hodu_plan_tensor *t = &plan->tensors[i];
    if (t->desc.rank)
      t->desc.shape = plan->shapes + (t->desc.shape - plan->dims);
  }
  for (uint32_t r = 0; r < num_records; ++r) {
    const hodu_plan_tensor *t = &plan->tensors[records[r].tensor];
    ((int64_t *)t->desc.shape)[records[r].dim] = HODU_DIM_DYNAMIC;
  }
  for (uint32_t i = 0; i < described; ++i)
    plan->described[i] = plan->tensors[i].desc;
  hodu_model_desc *desc = &plan->symbolic;
  desc->abi_version = HODU_ABI_VERSION;
  desc->struct_size = sizeof *desc;
  desc->model_name = plan->name;
  desc->target = hodu_device_kind_name(
      (hodu_device_kind)plan->devices[plan->main_device].kind);
  desc->num_inputs = (int32_t)plan->num_inputs;
  desc->num_outputs = (int32_t)plan->num_outputs;
  desc->inputs = plan->described;
  desc->outputs = plan->described + plan->num_inputs;
  desc->num_symbols = (int32_t)num_symbols;
  desc->symbols = plan->symbols;
  desc->num_dynamic_dims = (int32_t)num_records;
  desc->dynamic_dims = plan->dynamic_dims;
  desc->dynamic_dim_divisors = plan->divisors;
  return NULL;
}

/* SYMBOLS and DYNAMIC_DIMS (minor 1): one chunked symbol, and the input
 * and output dims that are it, each at scale * chunk in DIMS. */
static hodu_status check_symbols(parser *p) {
  hodu_plan *plan = p->plan;
  hodu_bundle_symbol *symbols = NULL;
  hodu_bundle_dynamic_dim *records = NULL;
  uint32_t num_symbols = 0, num_records = 0;
  hodu_status status =
      hodu_bundle_copy_table(p, HODU_BUNDLE_SECTION_SYMBOLS, sizeof *symbols,
                             (void **)&symbols, &num_symbols);
  if (!status)
    status = hodu_bundle_copy_table(p, HODU_BUNDLE_SECTION_DYNAMIC_DIMS,
                                    sizeof *records, (void **)&records,
                                    &num_records);
  /* At most one run in chunks, and HODU_PLAN_MAX_PADDED padded. */
  uint32_t chunked = 0, padded = 0;
  for (uint32_t k = 0; k < num_symbols && !status; ++k)
    ++*(symbols[k].flags & HODU_BUNDLE_SYMBOL_PADDED ? &padded : &chunked);
  if (!status && (chunked > 1 || padded > HODU_PLAN_MAX_PADDED))
    status = BAD(p,
                 "section SYMBOLS: holds %u symbols run in chunks and %u "
                 "padded; a bundle runs at most one in chunks and %u padded",
                 (unsigned)chunked, (unsigned)padded,
                 (unsigned)HODU_PLAN_MAX_PADDED);
  /* Records before minor 4 have no divisor: 1. */
  if (!status && num_records &&
      p->sections[HODU_BUNDLE_SECTION_DYNAMIC_DIMS].entry_size <
          sizeof *records)
    for (uint32_t r = 0; r < num_records; ++r)
      records[r].divisor = 1;
  if (!status && num_records && !num_symbols)
    status = BAD(p,
                 "section DYNAMIC_DIMS: holds %u entries, but there is no "
                 "SYMBOLS section",
                 (unsigned)num_records);
  for (uint32_t k = 0; k < num_symbols && !status; ++k) {
    const hodu_bundle_symbol *sym = &symbols[k];
    const char *name = string_at(p, sym->name);
    int padded = sym->flags == HODU_BUNDLE_SYMBOL_PADDED;
    const hodu_plan_tensor *slot =
        padded && sym->value_slot < plan->num_meta
            ? &plan->tensors[plan->num_inputs + plan->num_outputs +
                             sym->value_slot]
            : NULL;
    const char *problem =
        !name || !*name ? "its name is not a string"
        : sym->flags & ~HODU_BUNDLE_SYMBOL_PADDED
            ? "flags has bits this runtime does not know"
        : sym->min < 0                          ? "min < 0"
        : sym->max != -1 && sym->max < sym->min ? "max < min"
        : sym->multiple < 1                     ? "multiple < 1"
        : sym->chunk < 1                        ? "chunk < 1"
        : sym->reserved != 0                    ? "reserved is not 0"
        : padded && sym->chunk != sym->max
            ? "a padded symbol's chunk is its bound (max)"
        : padded && !slot ? "value_slot is not a meta slot"
        : padded && (slot->desc.dtype != HODU_DTYPE_I64 || slot->desc.rank)
            ? "the meta slot value_slot is not an i64 scalar"
        : !padded && sym->value_slot != 0 ? "value_slot is not 0"
                                          : NULL;
    if (problem)
      status = BAD(p,
                   "section SYMBOLS entry %u: min %lld, max %lld, multiple "
                   "%lld, chunk %lld, flags 0x%x, value_slot %u: %s",
                   (unsigned)k, (long long)sym->min, (long long)sym->max,
                   (long long)sym->multiple, (long long)sym->chunk,
                   (unsigned)sym->flags, (unsigned)sym->value_slot, problem);
  }
  uint32_t described = plan->num_inputs + plan->num_outputs;
  unsigned bound = 0;
  for (uint32_t r = 0; r < num_records && !status; ++r) {
    const hodu_bundle_dynamic_dim *record = &records[r];
#define DBAD(...)                                                              \
  do {                                                                         \
    char what_[256];                                                           \
    snprintf(what_, sizeof what_, __VA_ARGS__);                                \
    status = BAD(p, "section DYNAMIC_DIMS entry %u: %s", (unsigned)r, what_);  \
  } while (0)
    if (record->tensor >= described) {
      DBAD("field tensor is %u, but there are %u inputs and outputs (meta "
           "slots have static shapes)",
           (unsigned)record->tensor, (unsigned)described);
      break;
    }
    const hodu_plan_tensor *t = &plan->tensors[record->tensor];
    const char *role = tensor_role(plan, record->tensor);
    int64_t extent = 0;
    if (record->dim >= (uint32_t)t->desc.rank)
      DBAD("field dim is %u, but %s '%s' has rank %d", (unsigned)record->dim,
           role, t->desc.name, (int)t->desc.rank);
    else if (record->symbol >= num_symbols)
      DBAD("field symbol is %u, but there are %u symbols",
           (unsigned)record->symbol, (unsigned)num_symbols);
    else if (record->flags != 0)
      DBAD("flags is 0x%x, expected 0", (unsigned)record->flags);
    else if (!(symbols[record->symbol].flags & HODU_BUNDLE_SYMBOL_PADDED)) {
      if (record->scale < 1 || record->offset != 0 || record->divisor != 1)
        DBAD("%s '%s' dim %u has scale %lld, offset %lld and divisor %lld "
             "(a chunked symbol's: scale >= 1, offset 0, divisor 1)",
             role, t->desc.name, (unsigned)record->dim,
             (long long)record->scale, (long long)record->offset,
             (long long)record->divisor);
      else if (__builtin_mul_overflow(record->scale,
                                      symbols[record->symbol].chunk, &extent) ||
               t->desc.shape[record->dim] != extent)
        DBAD("%s '%s' dim %u is %lld in DIMS, but its scale %lld times the "
             "chunk %lld of symbol %u is %lld",
             role, t->desc.name, (unsigned)record->dim,
             (long long)t->desc.shape[record->dim], (long long)record->scale,
             (long long)symbols[record->symbol].chunk, (unsigned)record->symbol,
             (long long)extent);
    } else {
      /* A padded symbol's extent, exact at every multiple, >= 0 at min and
       * DIMS' at the bound. */
      const hodu_bundle_symbol *sym = &symbols[record->symbol];
      int64_t step = 0, at_max = 0, at_min = 0;
      int bad = record->scale < 1 || record->divisor < 1 ||
                __builtin_mul_overflow(record->scale, sym->multiple, &step) ||
                step % record->divisor != 0 ||
                __builtin_mul_overflow(record->scale, sym->chunk, &at_max) ||
                __builtin_add_overflow(at_max / record->divisor, record->offset,
                                       &at_max) ||
                __builtin_mul_overflow(record->scale, sym->min, &at_min) ||
                __builtin_add_overflow(at_min / record->divisor, record->offset,
                                       &at_min);
      if (bad || at_min < 0 || t->desc.shape[record->dim] != at_max)
        DBAD("%s '%s' dim %u is %lld in DIMS, with scale %lld, offset %lld "
             "and divisor %lld of padded symbol %u (min %lld, bound %lld, "
             "multiple %lld): the extent must be scale * n / divisor + "
             "offset, exact at every multiple, >= 0 at min and DIMS' at "
             "the bound",
             role, t->desc.name, (unsigned)record->dim,
             (long long)t->desc.shape[record->dim], (long long)record->scale,
             (long long)record->offset, (long long)record->divisor,
             (unsigned)record->symbol, (long long)sym->min,
             (long long)sym->chunk, (long long)sym->multiple);
    }
    for (uint32_t q = 0; q < r && !status; ++q)
      if (records[q].tensor == record->tensor &&
          (records[q].symbol == record->symbol ||
           records[q].dim == record->dim))
        DBAD("%s '%s' has a second dim of symbol %u or a second symbol in "
             "dim %u (entry %u); one dim per symbol and one symbol per dim",
             role, t->desc.name, (unsigned)record->symbol,
             (unsigned)record->dim, (unsigned)q);
#undef DBAD
    if (!status && record->tensor < plan->num_inputs)
      bound |= 1u << record->symbol;
  }
  /* A run binds the values from the inputs' shapes. */
  for (uint32_t k = 0; k < num_symbols && !status; ++k)
    if (!(bound & (1u << k)))
      status = BAD(p,
                   "section SYMBOLS entry %u: symbol '%s' is a dim of no "
                   "input, so a run cannot bind its value",
                   (unsigned)k, plan->strings + symbols[k].name);
  if (!status && num_symbols)
    status = describe_symbols(p, symbols, records, num_symbols, num_records);
  free(symbols);
  free(records);
  return status;
}

/* Every section after the header and the section table, in order. */
hodu_status hodu_bundle_check_tables(parser *p) {
  hodu_status status = check_strings(p);
  if (!status)
    status = check_model(p);
  if (!status)
    status = check_devices(p);
  if (!status)
    status = check_dims(p);
  if (!status)
    status = check_tensors(p);
  if (!status)
    status = check_codes(p);
  if (!status)
    status = check_kernels(p);
  if (!status)
    status = check_args(p);
  if (!status)
    status = check_steps(p);
  if (!status)
    status = check_symbols(p);
  if (!status)
    status = hodu_bundle_check_variants(p);
  /* State tensors move out of the caller's inputs and outputs last, once
   * every index has been checked against the file's counts. */
  if (!status)
    status = hodu_plan_split_state(p->plan, p->num_state, NULL, p->origin);
  return status;
}
