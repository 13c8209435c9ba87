/*===- session.h - models and sessions, between model.c and session.c ------===*
 *
 * A model is a plan (read from a bundle, or made from a CPU descriptor)
 * plus what loading it opened: a device per plan device, the code loaded on
 * each, and the weights uploaded once per device. Sessions (session.c) hold
 * everything per run: arenas, meta slots, bound tensors and programs.
 * model.c loads and runs models, model_query.c answers queries on them.
 * Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_SESSION_H
#define HODU_RUNTIME_SESSION_H

#include "device.h"
#include "internal.h"

#include <stddef.h>

/* The fields of hodu_model_desc present in a descriptor of `struct_size`. */
#define DESC_HAS(desc, field)                                                  \
  ((desc)->struct_size >=                                                      \
   offsetof(hodu_model_desc, field) + sizeof((desc)->field))

/* Sessions hodu_model_run keeps for reuse, and CPU workspaces likewise. */
#define HODU_RUN_CACHE_SLOTS 8

struct hodu_model {
  hodu_plan *plan; /* owned */
  /* Shared-library and linked models: the descriptor (borrowed from the
   * library or the caller) and the dlopen handle (NULL when linked). */
  const hodu_model_desc *desc;
  void *library;
  uint64_t workspace_size;
  const void **meta_init; /* descriptor models: per slot, never NULL */
  void *meta_zeros;       /* zeros for slots without an initial value */
  /* Per plan device: the opened device, its code, its copy of WEIGHTS. */
  hodu_device **devices;
  hodu_code **codes;
  hodu_buffer **weights;
  char *origin; /* "'path'" for messages */
  char *target; /* the bundle's main device kind name, or the descriptor's */
  /* A bundle loaded with hodu_load_options.inspect_only: no device opened
   * (devices, codes and weights are NULL); the requested ordinal. */
  int inspect_only;
  int32_t ordinal;
  _Atomic(void *) workspaces[HODU_RUN_CACHE_SLOTS];
  _Atomic(hodu_session *) sessions[HODU_RUN_CACHE_SLOTS];
  /* Engine models (engine.c): the engine plugin that runs it, its loaded
   * model, and the descriptor made of its signature (owned; `desc` points
   * to it). NULL for Hodu artifacts. */
  struct hodu_engine_state *engine;
  /* hodu_model_source: how a compiled-on-load model came to be (owned). */
  char *source;
};

/* The model's main device (where device tensors are made); NULL for a
 * model loaded for inspection only. */
static inline hodu_device *hodu_model_main_device(const hodu_model *model) {
  return model->devices ? model->devices[model->plan->main_device] : NULL;
}

/* The error of a run, session or device tensor asked of a model loaded for
 * inspection only; NULL for other models. */
hodu_status hodu_check_runnable(const hodu_model *model);

/* MISMATCH unless a run gives the plan's number of inputs. */
hodu_status hodu_check_input_count(const hodu_plan *plan, size_t num_inputs);

/* run_checks.c: checks run arguments against the model: counts, NULL,
 * dtypes, shapes, overlaps and (for device tensors) the device. For a
 * model with symbols (a descriptor's, or a bundle's) it binds their values
 * from the inputs into `values` (room for one per symbol; NULL when the
 * model has none) and checks the outputs against the shapes those values
 * give. */
hodu_status hodu_check_run_tensors(const hodu_model *model,
                                   const hodu_tensor *const *inputs,
                                   size_t num_inputs,
                                   hodu_tensor *const *outputs,
                                   size_t num_outputs, int64_t *values);

/* hodu_model_run for bundles: through a cached internal session whose meta
 * slots are reset to their initial values first. */
hodu_status hodu_bundle_run(const hodu_model *model,
                            const hodu_tensor *const *inputs, size_t num_inputs,
                            hodu_tensor *const *outputs, size_t num_outputs);

/* The INVALID_STATE of a call that runs a model with state tensors outside
 * a session (`call`: "hodu_model_run", ...). */
hodu_status hodu_state_refusal(const hodu_model *model, const char *call);

/* tensor.c: a device tensor's device and buffer (NULL for host tensors),
 * and the creation of one. */
hodu_device *hodu_tensor_device(const hodu_tensor *tensor);
hodu_buffer *hodu_tensor_buffer(const hodu_tensor *tensor);
hodu_status hodu_tensor_create_on(hodu_device *device, hodu_dtype dtype,
                                  int32_t rank, const int64_t *shape,
                                  hodu_tensor **out);

#endif /* HODU_RUNTIME_SESSION_H */
