/*===- run_checks.c - the checks of a run's tensors against the model ----===*
 *
 * What hodu_model_run and hodu_session_bind check before anything runs:
 * the counts, NULL tensors, dtypes, shapes (or, for a model with symbols,
 * the symbols' values bound from the inputs and the outputs' resolved
 * shapes), the device a device tensor lives on, and overlaps. Shared by
 * the descriptor path (model.c) and the plan executor (session.c).
 *
 *===----------------------------------------------------------------------===*/
#include "session.h"
#include "symbols.h"

#include <stdlib.h>

/* Checks one tensor's dtype, device and (unless `check_shape` is 0, for
 * shapes checked by the symbol binding) its shape. */
static hodu_status check_tensor(const char *kind, int32_t index,
                                const hodu_plan_tensor *expected,
                                hodu_device *device, const hodu_tensor *tensor,
                                int check_shape) {
  const hodu_tensor_desc *desc = &expected->desc;
  if (!tensor)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "%s %d ('%s') is NULL", kind,
                            (int)index, desc->name);
  hodu_dtype dtype = hodu_tensor_dtype(tensor);
  if ((int32_t)dtype != desc->dtype)
    return hodu_make_status(
        HODU_MISMATCH, "%s '%s': expected dtype %s, got %s", kind, desc->name,
        hodu_dtype_name((hodu_dtype)desc->dtype), hodu_dtype_name(dtype));
  int32_t rank = hodu_tensor_rank(tensor);
  const int64_t *shape = hodu_tensor_shape(tensor);
  int same = !check_shape || rank == desc->rank;
  for (int32_t d = 0; check_shape && same && d < rank; ++d)
    same = shape[d] == desc->shape[d];
  if (!same) {
    char want[256], got[256];
    hodu_format_shape(want, sizeof(want), desc->rank, desc->shape);
    hodu_format_shape(got, sizeof(got), rank, shape);
    return hodu_make_status(HODU_MISMATCH, "%s '%s': expected shape %s, got %s",
                            kind, desc->name, want, got);
  }
  hodu_device *holder = hodu_tensor_device(tensor);
  if (holder && holder != device)
    return hodu_make_status(
        HODU_MISMATCH,
        "%s '%s' is in the memory of %s device %d (%s), "
        "but the model uses it on %s device %d (%s)",
        kind, desc->name, hodu_device_kind_name(holder->kind),
        (int)holder->ordinal, holder->name, hodu_device_kind_name(device->kind),
        (int)device->ordinal, device->name);
  return NULL;
}

static int overlaps(const hodu_tensor *a, const hodu_tensor *b) {
  if (hodu_tensor_device(a) || hodu_tensor_device(b))
    return hodu_tensor_buffer(a) &&
           hodu_tensor_buffer(a) == hodu_tensor_buffer(b);
  size_t a_bytes = hodu_tensor_bytes(a), b_bytes = hodu_tensor_bytes(b);
  if (a_bytes == 0 || b_bytes == 0)
    return 0;
  uintptr_t a_begin = (uintptr_t)hodu_tensor_data(a);
  uintptr_t b_begin = (uintptr_t)hodu_tensor_data(b);
  return a_begin < b_begin + b_bytes && b_begin < a_begin + a_bytes;
}

/* 1 when the described tensor has a HODU_DIM_DYNAMIC dim. */
static int has_dynamic_dim(const hodu_tensor_desc *desc) {
  for (int32_t d = 0; d < desc->rank; ++d)
    if (desc->shape[d] == HODU_DIM_DYNAMIC)
      return 1;
  return 0;
}

/* An output with dynamic dims must have exactly the shape the symbol
 * values give it. */
static hodu_status check_resolved_output(const hodu_model *model, int32_t o,
                                         const int64_t *values,
                                         const hodu_tensor *tensor) {
  const hodu_model_desc *desc = hodu_plan_symbols(model->plan);
  const hodu_tensor_desc *want = &desc->outputs[o];
  int64_t stack_shape[16];
  int64_t *shape = want->rank <= 16
                       ? stack_shape
                       : malloc(sizeof(int64_t) * (size_t)want->rank);
  if (!shape)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  hodu_status status =
      hodu_resolve_shape(desc, model->plan->name, 1, o, values, shape);
  int32_t rank = hodu_tensor_rank(tensor);
  int same = !status && rank == want->rank;
  for (int32_t d = 0; same && d < rank; ++d)
    same = hodu_tensor_shape(tensor)[d] == shape[d];
  if (!status && !same) {
    char need[256], got[256], bound[256];
    int64_t elements;
    size_t bytes = 0;
    hodu_shape_size(want->rank, shape, hodu_dtype_size((hodu_dtype)want->dtype),
                    &elements, &bytes);
    hodu_format_shape(need, sizeof need, want->rank, shape);
    hodu_format_shape(got, sizeof got, rank, hodu_tensor_shape(tensor));
    hodu_format_symbol_values(bound, sizeof bound, desc, values);
    status = hodu_make_status(HODU_MISMATCH,
                              "model '%s': output '%s' must have shape %s "
                              "(%zu bytes) for %s, got %s",
                              model->plan->name, want->name, need, bytes, bound,
                              got);
  }
  if (shape != stack_shape)
    free(shape);
  return status;
}

hodu_status hodu_check_input_count(const hodu_plan *plan, size_t num_inputs) {
  if (num_inputs == plan->num_inputs)
    return NULL;
  return hodu_make_status(HODU_MISMATCH,
                          "model '%s' expects %u input%s, got %zu", plan->name,
                          (unsigned)plan->num_inputs,
                          plan->num_inputs == 1 ? "" : "s", num_inputs);
}

hodu_status hodu_check_run_tensors(const hodu_model *model,
                                   const hodu_tensor *const *inputs,
                                   size_t num_inputs,
                                   hodu_tensor *const *outputs,
                                   size_t num_outputs, int64_t *values) {
  const hodu_plan *plan = model->plan;
  hodu_status status = hodu_check_input_count(plan, num_inputs);
  if (status)
    return status;
  if (num_outputs != plan->num_outputs)
    return hodu_make_status(HODU_MISMATCH,
                            "model '%s' has %u output%s, got %zu", plan->name,
                            (unsigned)plan->num_outputs,
                            plan->num_outputs == 1 ? "" : "s", num_outputs);
  if ((num_inputs && !inputs) || (num_outputs && !outputs))
    return hodu_make_status(HODU_INVALID_ARGUMENT, "the %s array is NULL",
                            num_inputs && !inputs ? "input" : "output");
  /* Models with dynamic dims: the binding checks every input's shape
   * (rank, static dims, the symbols' dims) as it goes. */
  const hodu_model_desc *desc = hodu_plan_symbols(plan);
  int symbolic = desc && hodu_desc_num_symbols(desc) > 0;
  if (symbolic) {
    hodu_status status =
        hodu_bind_symbols(desc, plan->name, inputs, num_inputs, 0, values);
    if (status)
      return status;
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    const hodu_plan_tensor *t = &plan->tensors[i];
    hodu_status status =
        check_tensor("input", (int32_t)i, t, model->devices[t->device],
                     inputs[i], !symbolic);
    if (status)
      return status;
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    const hodu_plan_tensor *t = &plan->tensors[plan->num_inputs + i];
    int dynamic = symbolic && has_dynamic_dim(&t->desc);
    hodu_status status =
        check_tensor("output", (int32_t)i, t, model->devices[t->device],
                     outputs[i], !dynamic);
    if (!status && dynamic)
      status = check_resolved_output(model, (int32_t)i, values, outputs[i]);
    if (status)
      return status;
  }
  /* The compiled code reads inputs while it writes outputs; overlapping
   * buffers would give unspecified results, so refuse them up front. */
  for (size_t o = 0; o < num_outputs; ++o) {
    const char *name = plan->tensors[plan->num_inputs + o].desc.name;
    for (size_t i = 0; i < num_inputs; ++i)
      if (overlaps(outputs[o], inputs[i]))
        return hodu_make_status(HODU_INVALID_ARGUMENT,
                                "output '%s' overlaps input '%s'", name,
                                plan->tensors[i].desc.name);
    for (size_t p = 0; p < o; ++p)
      if (overlaps(outputs[o], outputs[p]))
        return hodu_make_status(HODU_INVALID_ARGUMENT,
                                "output '%s' overlaps output '%s'", name,
                                plan->tensors[plan->num_inputs + p].desc.name);
  }
  return NULL;
}
