/*===- plan_state.c - a plan's state tensors
 * --------------------------------===*
 *
 * A compiled train step is a pure function: (inputs, state) -> (outputs,
 * next state). The artifact says which of its inputs and outputs are state
 * (abi.h's num_state_tensors, the bundle's MODEL record); this file turns
 * them into tensors that sessions own, so that callers bind only their
 * inputs and outputs, and appends to the plan the copies that make each
 * next value the value of the next run. Being steps of the plan, the
 * copies are recorded by a capture and replayed with it: n replays are n
 * steps.
 *
 *===----------------------------------------------------------------------===*/
#include "dims.h"
#include "internal.h"
#include "plan.h"

#include <stdlib.h>
#include <string.h>

static int same_shape(const hodu_tensor_desc *a, const hodu_tensor_desc *b) {
  if (a->dtype != b->dtype || a->rank != b->rank)
    return 0;
  for (int32_t d = 0; d < a->rank; ++d)
    if (a->shape[d] != b->shape[d] || a->shape[d] == HODU_DIM_DYNAMIC)
      return 0;
  return 1;
}

hodu_status hodu_plan_split_state(hodu_plan *plan, uint32_t num_state,
                                  const uint8_t *const *inits,
                                  const char *origin) {
  /* The count against the inputs and outputs is each format's check
   * (validate_descriptor, check_model), in that format's terms. */
  if (!num_state)
    return NULL;
  if (plan->num_symbols || hodu_desc_num_symbols(plan->desc))
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "%s: a model with state tensors and symbolic "
                            "dims is not supported: compile the train step "
                            "with every dim pinned (hoduc --input-shape)",
                            origin);
  uint32_t in = plan->num_inputs - num_state;
  uint32_t out = plan->num_outputs - num_state;
  uint32_t meta_begin = plan->num_inputs + plan->num_outputs;
  /* Check every pair first: a refused plan is left as it was. */
  for (uint32_t k = 0; k < num_state; ++k) {
    const hodu_plan_tensor *value = &plan->tensors[in + k];
    const hodu_plan_tensor *next = &plan->tensors[plan->num_inputs + out + k];
    if (!same_shape(&value->desc, &next->desc) || value->bytes != next->bytes)
      return hodu_make_status(
          HODU_INVALID_ARTIFACT,
          "%s: malformed model: state tensor %u is input '%s' and output "
          "'%s', which differ in dtype or shape (or have a dynamic dim)",
          origin, (unsigned)k, value->desc.name, next->desc.name);
    if (value->device != next->device)
      return hodu_make_status(
          HODU_INVALID_ARTIFACT,
          "%s: state tensor '%s' is read on plan device %u and written on "
          "%u: a state tensor lives on one device",
          origin, value->desc.name, (unsigned)value->device,
          (unsigned)next->device);
  }

  /* Tensors: inputs, outputs, meta, values, next values. */
  uint32_t count = meta_begin + plan->num_meta;
  hodu_plan_tensor *tensors = calloc(count + num_state, sizeof *tensors);
  hodu_bundle_step *steps =
      realloc(plan->steps, sizeof *steps * (plan->num_steps + num_state));
  if (steps)
    plan->steps = steps;
  hodu_bundle_arg *args =
      steps ? realloc(plan->args,
                      sizeof *args * (plan->num_args + 2 * (size_t)num_state))
            : NULL;
  if (args)
    plan->args = args;
  if (!tensors || !steps || !args) {
    free(tensors);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  uint32_t at = 0;
  for (uint32_t i = 0; i < in; ++i)
    tensors[at++] = plan->tensors[i];
  for (uint32_t o = 0; o < out; ++o)
    tensors[at++] = plan->tensors[plan->num_inputs + o];
  for (uint32_t m = 0; m < plan->num_meta; ++m)
    tensors[at++] = plan->tensors[meta_begin + m];
  for (uint32_t k = 0; k < num_state; ++k) {
    tensors[at] = plan->tensors[in + k];
    if (inits)
      tensors[at].init = inits[k];
    ++at;
  }
  for (uint32_t k = 0; k < num_state; ++k)
    tensors[at++] = plan->tensors[plan->num_inputs + out + k];

  /* Arguments into the state move to the STATE_ spaces. */
  for (uint32_t a = 0; a < plan->num_args; ++a) {
    hodu_bundle_arg *arg = &plan->args[a];
    if (arg->space == HODU_SPACE_INPUT && arg->index >= in) {
      arg->space = HODU_SPACE_STATE_;
      arg->index -= in;
    } else if (arg->space == HODU_SPACE_OUTPUT && arg->index >= out) {
      arg->space = HODU_SPACE_STATE_NEXT_;
      arg->index -= out;
    }
  }
  free(plan->tensors);
  plan->tensors = tensors;
  plan->num_inputs = in;
  plan->num_outputs = out;
  plan->num_state = num_state;

  /* After the plan's own steps: next value -> value, on its device. */
  for (uint32_t k = 0; k < num_state; ++k) {
    const hodu_plan_tensor *value =
        &plan->tensors[hodu_plan_state_tensor(plan, k)];
    hodu_bundle_step *step = &plan->steps[plan->num_steps++];
    memset(step, 0, sizeof *step);
    step->op = HODU_STEP_COPY;
    step->device = value->device;
    step->first_arg = plan->num_args;
    step->num_args = 2;
    plan->args[plan->num_args++] =
        (hodu_bundle_arg){HODU_SPACE_STATE_NEXT_, k, 0, value->bytes};
    plan->args[plan->num_args++] =
        (hodu_bundle_arg){HODU_SPACE_STATE_, k, 0, value->bytes};
  }
  return NULL;
}
