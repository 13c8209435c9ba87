/*===- model_query.c - what a loaded model says about itself ---------------===*
 *
 * The queries of runtime.h on a hodu_model: its name, target and
 * descriptor; its inputs, outputs and meta slots by index or name, and
 * tensors made like them (on the host or on the model's device); the
 * device it runs on; and a bundle's launch plan, table by table. All read
 * the immutable plan and need no locks.
 *
 *===----------------------------------------------------------------------===*/
#include "session.h"
#include "symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*===--------------------------------------------------------------------===*
 * Queries
 *===--------------------------------------------------------------------===*/

const char *hodu_model_name(const hodu_model *model) {
  return model ? model->plan->name : "";
}

const char *hodu_model_target(const hodu_model *model) {
  return model ? model->target : "";
}

const hodu_model_desc *hodu_model_descriptor(const hodu_model *model) {
  return model ? model->desc : NULL;
}

int32_t hodu_model_num_inputs(const hodu_model *model) {
  return model ? (int32_t)model->plan->num_inputs : 0;
}

int32_t hodu_model_num_outputs(const hodu_model *model) {
  return model ? (int32_t)model->plan->num_outputs : 0;
}

int32_t hodu_model_num_checks(const hodu_model *model) {
  const hodu_model_desc *desc = model ? model->desc : NULL;
  if (!desc || !DESC_HAS(desc, check_messages) || desc->num_checks <= 0 ||
      !desc->check_messages)
    return 0;
  return desc->num_checks;
}

const char *hodu_model_check_message(const hodu_model *model, int32_t index) {
  if (index < 0 || index >= hodu_model_num_checks(model))
    return NULL;
  return model->desc->check_messages[index];
}

int32_t hodu_model_num_meta_slots(const hodu_model *model) {
  return model ? (int32_t)model->plan->num_meta : 0;
}

enum { ROLE_INPUT, ROLE_OUTPUT, ROLE_META, ROLE_STATE };

int32_t hodu_model_num_state_tensors(const hodu_model *model) {
  return model ? (int32_t)model->plan->num_state : 0;
}

static uint32_t role_count(const hodu_plan *plan, int role) {
  return role == ROLE_INPUT    ? plan->num_inputs
         : role == ROLE_OUTPUT ? plan->num_outputs
         : role == ROLE_META   ? plan->num_meta
                               : plan->num_state;
}

static const hodu_plan_tensor *role_tensor(const hodu_model *model, int role,
                                           int32_t index) {
  if (!model || index < 0 || (uint32_t)index >= role_count(model->plan, role))
    return NULL;
  const hodu_plan *plan = model->plan;
  uint32_t first = role == ROLE_INPUT    ? 0
                   : role == ROLE_OUTPUT ? plan->num_inputs
                   : role == ROLE_META   ? plan->num_inputs + plan->num_outputs
                                         : hodu_plan_state_tensor(plan, 0);
  return &plan->tensors[first + (uint32_t)index];
}

#define TENSOR_QUERIES(prefix, role)                                           \
  const char *hodu_model_##prefix##_name(const hodu_model *model,              \
                                         int32_t index) {                      \
    const hodu_plan_tensor *t = role_tensor(model, role, index);               \
    return t ? t->desc.name : NULL;                                            \
  }                                                                            \
  hodu_dtype hodu_model_##prefix##_dtype(const hodu_model *model,              \
                                         int32_t index) {                      \
    const hodu_plan_tensor *t = role_tensor(model, role, index);               \
    return t ? (hodu_dtype)t->desc.dtype : (hodu_dtype)-1;                     \
  }                                                                            \
  int32_t hodu_model_##prefix##_rank(const hodu_model *model,                  \
                                     int32_t index) {                          \
    const hodu_plan_tensor *t = role_tensor(model, role, index);               \
    return t ? t->desc.rank : -1;                                              \
  }                                                                            \
  const int64_t *hodu_model_##prefix##_shape(const hodu_model *model,          \
                                             int32_t index) {                  \
    const hodu_plan_tensor *t = role_tensor(model, role, index);               \
    return t ? t->desc.shape : NULL;                                           \
  }
TENSOR_QUERIES(input, ROLE_INPUT)
TENSOR_QUERIES(output, ROLE_OUTPUT)
TENSOR_QUERIES(meta_slot, ROLE_META)
TENSOR_QUERIES(state_tensor, ROLE_STATE)
#undef TENSOR_QUERIES

int32_t hodu_model_output_dims_index(const hodu_model *model,
                                     int32_t index) {
  const hodu_plan_tensor *t = role_tensor(model, ROLE_OUTPUT, index);
  if (!t)
    return -1;
  size_t length = strlen(t->desc.name);
  for (int32_t i = 0; i < (int32_t)model->plan->num_outputs; ++i) {
    const hodu_tensor_desc *d = &role_tensor(model, ROLE_OUTPUT, i)->desc;
    if (i != index && d->dtype == HODU_DTYPE_I64 && d->rank == 1 &&
        d->shape[0] == t->desc.rank &&
        strncmp(d->name, t->desc.name, length) == 0 &&
        strcmp(d->name + length, HODU_OUTPUT_DIMS_SUFFIX) == 0)
      return i;
  }
  return -1;
}

size_t hodu_model_meta_slot_bytes(const hodu_model *model, int32_t index) {
  const hodu_plan_tensor *t = role_tensor(model, ROLE_META, index);
  return t ? (size_t)t->bytes : 0;
}

size_t hodu_model_state_tensor_bytes(const hodu_model *model, int32_t index) {
  const hodu_plan_tensor *t = role_tensor(model, ROLE_STATE, index);
  return t ? (size_t)t->bytes : 0;
}

static hodu_status find_index(const hodu_model *model, int role,
                              const char *name, int32_t *index) {
  static const char *const kinds[] = {"input", "output", "meta slot",
                                      "state tensor"};
  const char *kind = kinds[role];
  if (!model || !name || !index)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "model, name and index must not be NULL");
  int32_t count = (int32_t)role_count(model->plan, role);
  for (int32_t i = 0; i < count; ++i) {
    if (strcmp(role_tensor(model, role, i)->desc.name, name) == 0) {
      *index = i;
      return NULL;
    }
  }
  /* List the names so a typo is easy to spot. */
  char names[512] = "";
  size_t used = 0;
  for (int32_t i = 0; i < count && used < sizeof(names); ++i) {
    int written = snprintf(names + used, sizeof(names) - used, "%s'%s'",
                           i ? ", " : "", role_tensor(model, role, i)->desc.name);
    if (written < 0)
      break;
    used += (size_t)written;
  }
  return hodu_make_status(HODU_NOT_FOUND,
                          "model '%s' has no %s named '%s' (%ss: %s)",
                          hodu_model_name(model), kind, name, kind,
                          count ? names : "none");
}

hodu_status hodu_model_input_index(const hodu_model *model, const char *name,
                                   int32_t *index) {
  return find_index(model, ROLE_INPUT, name, index);
}

hodu_status hodu_model_output_index(const hodu_model *model, const char *name,
                                    int32_t *index) {
  return find_index(model, ROLE_OUTPUT, name, index);
}

hodu_status hodu_model_meta_slot_index(const hodu_model *model,
                                       const char *name, int32_t *index) {
  return find_index(model, ROLE_META, name, index);
}

int32_t hodu_model_meta_slot_symbol(const hodu_model *model, int32_t index) {
  if (!model || index < 0 || (uint32_t)index >= model->plan->num_meta)
    return -1;
  const hodu_plan *plan = model->plan;
  for (uint32_t j = 0; j < plan->num_padded; ++j)
    if (plan->value_slots[j] == (uint32_t)index)
      return plan->pad_symbols[j];
  return -1;
}

hodu_status hodu_model_state_tensor_index(const hodu_model *model,
                                          const char *name, int32_t *index) {
  return find_index(model, ROLE_STATE, name, index);
}

/* A tensor like `t` at `shape` (its own, or resolved from symbol values). */
static hodu_status create_at(const hodu_model *model, const hodu_plan_tensor *t,
                             const int64_t *shape, int on_device,
                             hodu_tensor **out) {
  if (!model->devices) {
    /* Inspection only: host tensors, no device. */
    if (on_device) {
      hodu_status status = hodu_check_runnable(model);
      if (status)
        return status;
    }
    return hodu_tensor_create((hodu_dtype)t->desc.dtype, t->desc.rank, shape,
                              out);
  }
  hodu_device *device = model->devices[t->device];
  if (on_device && device->kind != HODU_DEVICE_CPU)
    return hodu_tensor_create_on(device, (hodu_dtype)t->desc.dtype,
                                 t->desc.rank, shape, out);
  return hodu_tensor_create((hodu_dtype)t->desc.dtype, t->desc.rank, shape,
                            out);
}

static hodu_status create_like(const hodu_model *model, int role,
                               int32_t index, int on_device,
                               hodu_tensor **out) {
  static const char *const kinds[] = {"input", "output", "meta slot"};
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  const hodu_plan_tensor *t = role_tensor(model, role, index);
  if (!t)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "no %s %d in the model",
                            kinds[role], (int)index);
  /* A dynamic dim has no extent until the symbols have values. */
  const hodu_model_desc *desc = hodu_plan_symbols(model->plan);
  for (int32_t d = 0; desc && d < t->desc.rank; ++d) {
    if (t->desc.shape[d] != HODU_DIM_DYNAMIC)
      continue;
    const char *symbol = "?";
    for (int32_t r = 0; r < desc->num_dynamic_dims; ++r)
      if (desc->dynamic_dims[r].is_output == (role == ROLE_OUTPUT) &&
          desc->dynamic_dims[r].tensor == index &&
          desc->dynamic_dims[r].dim == d)
        symbol = desc->symbols[desc->dynamic_dims[r].symbol].name;
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "model '%s': %s '%s' dim %d is symbol '%s', "
                            "which has no value here: create it with "
                            "hodu_model_create_%s_with_symbols",
                            hodu_model_name(model), kinds[role], t->desc.name,
                            (int)d, symbol, kinds[role]);
  }
  return create_at(model, t, t->desc.shape, on_device, out);
}

hodu_status hodu_model_create_input(const hodu_model *model, int32_t index,
                                    hodu_tensor **out) {
  return create_like(model, ROLE_INPUT, index, 0, out);
}

hodu_status hodu_model_create_output(const hodu_model *model, int32_t index,
                                     hodu_tensor **out) {
  return create_like(model, ROLE_OUTPUT, index, 0, out);
}

hodu_status hodu_model_create_device_input(const hodu_model *model,
                                           int32_t index, hodu_tensor **out) {
  return create_like(model, ROLE_INPUT, index, 1, out);
}

hodu_status hodu_model_create_device_output(const hodu_model *model,
                                            int32_t index, hodu_tensor **out) {
  return create_like(model, ROLE_OUTPUT, index, 1, out);
}

/*===--------------------------------------------------------------------===*
 * Symbols
 *===--------------------------------------------------------------------===*/

int32_t hodu_model_num_symbols(const hodu_model *model) {
  return model ? hodu_desc_num_symbols(hodu_plan_symbols(model->plan)) : 0;
}

const hodu_symbol_desc *hodu_model_symbol(const hodu_model *model,
                                          int32_t index) {
  if (index < 0 || index >= hodu_model_num_symbols(model))
    return NULL;
  return &hodu_plan_symbols(model->plan)->symbols[index];
}

const char *hodu_model_symbol_name(const hodu_model *model, int32_t index) {
  const hodu_symbol_desc *symbol = hodu_model_symbol(model, index);
  return symbol ? symbol->name : NULL;
}

hodu_status hodu_model_symbol_index(const hodu_model *model, const char *name,
                                    int32_t *index) {
  if (!model || !name || !index)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "model, name and index must not be NULL");
  int32_t count = hodu_model_num_symbols(model);
  char names[512] = "";
  size_t used = 0;
  for (int32_t k = 0; k < count; ++k) {
    const char *symbol = hodu_plan_symbols(model->plan)->symbols[k].name;
    if (strcmp(symbol, name) == 0) {
      *index = k;
      return NULL;
    }
    if (used < sizeof names) {
      int written = snprintf(names + used, sizeof names - used, "%s'%s'",
                             k ? ", " : "", symbol);
      if (written > 0)
        used += (size_t)written;
    }
  }
  return hodu_make_status(HODU_NOT_FOUND,
                          "model '%s' has no symbol named '%s' (symbols: %s)",
                          hodu_model_name(model), name, count ? names : "none");
}

const hodu_dynamic_dim *hodu_model_dynamic_dim(const hodu_model *model,
                                               int is_output, int32_t index,
                                               int32_t dim) {
  const hodu_model_desc *desc = model ? hodu_plan_symbols(model->plan) : NULL;
  if (!desc || index < 0 ||
      index >= (is_output ? desc->num_outputs : desc->num_inputs))
    return NULL;
  return hodu_dynamic_dim_of(desc, is_output, index, dim);
}

int64_t hodu_model_dynamic_dim_divisor(const hodu_model *model, int is_output,
                                       int32_t index, int32_t dim) {
  const hodu_dynamic_dim *record =
      hodu_model_dynamic_dim(model, is_output, index, dim);
  return record
             ? hodu_dynamic_dim_divisor(hodu_plan_symbols(model->plan), record)
             : 1;
}

/* Checks a caller's symbol values array against the model. */
static hodu_status check_values_argument(const hodu_model *model,
                                         const int64_t *values,
                                         size_t num_values) {
  if (!model)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "model is NULL");
  int32_t count = hodu_model_num_symbols(model);
  if (num_values != (size_t)count)
    return hodu_make_status(
        HODU_INVALID_ARGUMENT, "model '%s' has %d symbol%s, got %zu values",
        hodu_model_name(model), (int)count, count == 1 ? "" : "s", num_values);
  if (num_values && !values)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "the symbol values are NULL");
  return NULL;
}

hodu_status hodu_model_bind_symbols(const hodu_model *model,
                                    const hodu_tensor *const *inputs,
                                    size_t num_inputs, int64_t *values,
                                    size_t num_values) {
  hodu_status status = check_values_argument(model, values, num_values);
  if (status)
    return status;
  const hodu_plan *plan = model->plan;
  status = hodu_check_input_count(plan, num_inputs);
  if (status)
    return status;
  if (num_inputs && !inputs)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "the input array is NULL");
  if (!num_values)
    return NULL;
  return hodu_bind_symbols(hodu_plan_symbols(plan), plan->name, inputs,
                           num_inputs, 1, values);
}

static hodu_status resolve_like(const hodu_model *model, int role,
                                int32_t index, const int64_t *values,
                                size_t num_values, int64_t *shape) {
  static const char *const kinds[] = {"input", "output"};
  hodu_status status = check_values_argument(model, values, num_values);
  if (status)
    return status;
  const hodu_plan_tensor *t = role_tensor(model, role, index);
  if (!t)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "no %s %d in the model",
                            kinds[role], (int)index);
  if (t->desc.rank > 0 && !shape)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'shape' is NULL");
  if (!num_values) {
    memcpy(shape, t->desc.shape, sizeof(int64_t) * (size_t)t->desc.rank);
    return NULL;
  }
  const hodu_model_desc *desc = hodu_plan_symbols(model->plan);
  status =
      hodu_check_symbol_values(desc, model->plan->name, values, num_values);
  if (status)
    return status;
  return hodu_resolve_shape(desc, model->plan->name, role == ROLE_OUTPUT, index,
                            values, shape);
}

hodu_status hodu_model_resolve_input_shape(const hodu_model *model,
                                           int32_t index, const int64_t *values,
                                           size_t num_values, int64_t *shape) {
  return resolve_like(model, ROLE_INPUT, index, values, num_values, shape);
}

hodu_status hodu_model_resolve_output_shape(const hodu_model *model,
                                            int32_t index,
                                            const int64_t *values,
                                            size_t num_values, int64_t *shape) {
  return resolve_like(model, ROLE_OUTPUT, index, values, num_values, shape);
}

static hodu_status create_with_symbols(const hodu_model *model, int role,
                                       int32_t index, const int64_t *values,
                                       size_t num_values, hodu_tensor **out) {
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  const hodu_plan_tensor *t = role_tensor(model, role, index);
  int32_t rank = t ? t->desc.rank : 0;
  int64_t stack_shape[16];
  int64_t *shape =
      rank <= 16 ? stack_shape : malloc(sizeof(int64_t) * (size_t)rank);
  if (!shape)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  hodu_status status =
      resolve_like(model, role, index, values, num_values, shape);
  if (!status)
    status = create_at(model, t, shape, 0, out);
  if (shape != stack_shape)
    free(shape);
  return status;
}

hodu_status hodu_model_create_input_with_symbols(const hodu_model *model,
                                                 int32_t index,
                                                 const int64_t *values,
                                                 size_t num_values,
                                                 hodu_tensor **out) {
  return create_with_symbols(model, ROLE_INPUT, index, values, num_values, out);
}

hodu_status hodu_model_create_output_with_symbols(const hodu_model *model,
                                                  int32_t index,
                                                  const int64_t *values,
                                                  size_t num_values,
                                                  hodu_tensor **out) {
  return create_with_symbols(model, ROLE_OUTPUT, index, values, num_values,
                             out);
}

hodu_status hodu_model_create_device_tensor(const hodu_model *model,
                                            hodu_dtype dtype, int32_t rank,
                                            const int64_t *shape,
                                            hodu_tensor **out) {
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  if (!model)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "model is NULL");
  hodu_status status = hodu_check_runnable(model);
  if (status)
    return status;
  hodu_device *device = hodu_model_main_device(model);
  if (device->kind == HODU_DEVICE_CPU)
    return hodu_tensor_create(dtype, rank, shape, out);
  return hodu_tensor_create_on(device, dtype, rank, shape, out);
}

/*===--------------------------------------------------------------------===*
 * Devices and plans
 *===--------------------------------------------------------------------===*/

hodu_device_kind hodu_model_device_kind(const hodu_model *model) {
  if (!model)
    return HODU_DEVICE_CPU;
  const hodu_device *device = hodu_model_main_device(model);
  return device ? device->kind
                : (hodu_device_kind)model->plan
                      ->devices[model->plan->main_device]
                      .kind;
}

int32_t hodu_model_device_ordinal(const hodu_model *model) {
  if (!model)
    return 0;
  const hodu_device *device = hodu_model_main_device(model);
  return device ? device->ordinal : model->ordinal;
}

const char *hodu_model_device_name(const hodu_model *model) {
  const hodu_device *device = model ? hodu_model_main_device(model) : NULL;
  return device ? device->name : "";
}

int hodu_model_is_bundle(const hodu_model *model) {
  return model && model->plan->file != NULL;
}

uint64_t hodu_model_plan_count(const hodu_model *model,
                               hodu_bundle_section_kind section) {
  if (!hodu_model_is_bundle(model))
    return 0;
  const hodu_plan *plan = model->plan;
  switch (section) {
  case HODU_BUNDLE_SECTION_STRINGS:
    return plan->strings_size;
  case HODU_BUNDLE_SECTION_MODEL:
    return 1;
  case HODU_BUNDLE_SECTION_DEVICES:
    return plan->num_devices;
  case HODU_BUNDLE_SECTION_TENSORS:
    return (uint64_t)plan->num_inputs + plan->num_outputs + plan->num_meta +
           2 * (uint64_t)plan->num_state;
  case HODU_BUNDLE_SECTION_DIMS:
    return plan->num_dims;
  case HODU_BUNDLE_SECTION_CODE:
    return plan->num_codes;
  case HODU_BUNDLE_SECTION_KERNELS:
    return plan->num_kernels;
  case HODU_BUNDLE_SECTION_STEPS:
    return plan->num_variants ? plan->variants[0].count : plan->num_steps;
  case HODU_BUNDLE_SECTION_ARGS:
    return plan->num_args;
  case HODU_BUNDLE_SECTION_WEIGHTS:
    return plan->weights_size;
  case HODU_BUNDLE_SECTION_BLOBS:
    return plan->blobs_size;
  case HODU_BUNDLE_SECTION_SYMBOLS:
    return plan->num_symbols;
  case HODU_BUNDLE_SECTION_DYNAMIC_DIMS:
    return plan->num_dynamic_dims;
  case HODU_BUNDLE_SECTION_VARIANTS:
    return plan->num_variants ? plan->num_variants - 1u : 0;
  case HODU_BUNDLE_SECTION_VARIANT_STEPS:
    return plan->num_variants ? plan->num_steps - plan->variants[0].count : 0;
  }
  return 0;
}

const void *hodu_model_plan_table(const hodu_model *model,
                                  hodu_bundle_section_kind section) {
  if (!hodu_model_is_bundle(model) || !hodu_model_plan_count(model, section))
    return NULL;
  const hodu_plan *plan = model->plan;
  switch (section) {
  case HODU_BUNDLE_SECTION_STRINGS:
    return plan->strings;
  case HODU_BUNDLE_SECTION_DEVICES:
    return plan->devices;
  case HODU_BUNDLE_SECTION_DIMS:
    return plan->dims;
  case HODU_BUNDLE_SECTION_CODE:
    return plan->codes;
  case HODU_BUNDLE_SECTION_KERNELS:
    return plan->kernels;
  case HODU_BUNDLE_SECTION_STEPS:
    return plan->steps;
  case HODU_BUNDLE_SECTION_ARGS:
    return plan->args;
  case HODU_BUNDLE_SECTION_WEIGHTS:
    return plan->weights;
  case HODU_BUNDLE_SECTION_BLOBS:
    return plan->blobs;
  case HODU_BUNDLE_SECTION_VARIANTS:
    return plan->variant_records;
  case HODU_BUNDLE_SECTION_VARIANT_STEPS:
    return plan->steps + plan->variants[0].count;
  default: /* MODEL, TENSORS, SYMBOLS and DYNAMIC_DIMS have their own
              queries (hodu_model_symbol, hodu_model_dynamic_dim) */
    return NULL;
  }
}

const char *hodu_model_plan_string(const hodu_model *model,
                                   hodu_bundle_string string) {
  if (!hodu_model_is_bundle(model) || string >= model->plan->strings_size)
    return "";
  /* Any offset into a validated STRINGS section ends at a NUL within it
   * only if a NUL follows; check. */
  const char *text = model->plan->strings + string;
  return memchr(text, '\0', model->plan->strings_size - string) ? text : "";
}
