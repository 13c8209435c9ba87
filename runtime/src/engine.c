/*===- engine.c - models run by engine plugins -----------------------------===*
 *
 * A file an engine plugin loads (a .onnx run by ONNX Runtime ...) becomes a
 * hodu_model like any artifact: its signature is made into a version-2
 * descriptor, so every query (names, dtypes, shapes, symbols) works as it
 * does for compiled models. Dynamic dims become symbols by their names (ONNX
 * dim_params; an unnamed input dim is "INPUT_dimD", as hoduc names it), so
 * two inputs with one name must agree in a run, and an output dim named
 * like an input dim has its size. An output dim named like no input dim is
 * known only after the run: hodu_model_resolve_output_shape gives -1 for
 * it, and hodu_model_run_alloc lets the engine allocate that output.
 *
 * Runs go straight to the engine's `run`, one at a time per model (the
 * plugin ABI lets an engine assume that; hodu_model_run promises callers
 * that any thread may run a model, so the host serialises them). Sessions
 * (capture and replay) are for compiled models and are refused.
 *
 *===----------------------------------------------------------------------===*/
#include "plugin.h"
#include "session.h"
#include "symbols.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hodu_engine_state {
  hodu_engine_ref ref;
  hodu_engine_model *loaded;
  pthread_mutex_t run_lock; /* one run at a time */
  hodu_model_desc desc;
  hodu_tensor_desc *tensors; /* inputs, then outputs */
  int64_t *shapes;           /* every tensor's dims, one block */
  hodu_symbol_desc *symbols;
  char **symbol_names;
  hodu_dynamic_dim *dims;
};

static void state_free(struct hodu_engine_state *state) {
  if (!state)
    return;
  if (state->loaded)
    state->ref.table->unload(state->loaded);
  pthread_mutex_destroy(&state->run_lock);
  for (int32_t i = 0; i < state->desc.num_symbols; ++i)
    free(state->symbol_names[i]);
  free(state->symbol_names);
  free(state->symbols);
  free(state->dims);
  free(state->shapes);
  free(state->tensors);
  free(state);
}

void hodu_engine_state_free(struct hodu_engine_state *state) {
  state_free(state);
}

/* The index of symbol `name`, adding it when `add`; -1 when absent (or out
 * of memory). */
static int32_t symbol_index(struct hodu_engine_state *s, const char *name,
                            int add) {
  for (int32_t i = 0; i < s->desc.num_symbols; ++i)
    if (strcmp(s->symbol_names[i], name) == 0)
      return i;
  if (!add)
    return -1;
  int32_t i = s->desc.num_symbols;
  char *copy = malloc(strlen(name) + 1);
  if (!copy)
    return -1;
  strcpy(copy, name);
  s->symbol_names[i] = copy;
  s->symbols[i] = (hodu_symbol_desc){copy, 0, -1, 1, 0};
  s->desc.num_symbols = i + 1;
  return i;
}

/* The descriptor of the engine model's signature. */
static hodu_status describe(struct hodu_engine_state *s, const char *origin) {
  const hodu_engine_plugin_v1 *t = s->ref.table;
  int32_t counts[2] = {t->num_values(s->loaded, 0),
                       t->num_values(s->loaded, 1)};
  if (counts[0] < 0 || counts[1] < 0)
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "engine '%s': %s has %d inputs and %d outputs",
                            t->name, origin, (int)counts[0], (int)counts[1]);
  int32_t total = counts[0] + counts[1];
  hodu_engine_value *values = calloc(total ? (size_t)total : 1,
                                     sizeof *values);
  s->tensors = calloc(total ? (size_t)total : 1, sizeof *s->tensors);
  if (!values || !s->tensors) {
    free(values);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  size_t num_dims = 0;
  hodu_status status = NULL;
  for (int32_t i = 0; i < total && !status; ++i) {
    int is_output = i >= counts[0];
    int32_t index = is_output ? i - counts[0] : i;
    status = t->value(s->loaded, is_output, index, &values[i]);
    const hodu_engine_value *v = &values[i];
    if (!status && (!v->name || hodu_dtype_size((hodu_dtype)v->dtype) == 0 ||
                    v->rank < 0 || v->rank > 64 || (v->rank && !v->shape)))
      status = hodu_make_status(
          HODU_INVALID_ARTIFACT,
          "engine '%s' describes %s %d of %s badly (name %s, dtype %d, rank "
          "%d)",
          t->name, is_output ? "output" : "input", (int)index, origin,
          v->name ? v->name : "NULL", (int)v->dtype, (int)v->rank);
    if (!status)
      num_dims += (size_t)v->rank;
  }
  if (!status) {
    s->shapes = calloc(num_dims ? num_dims : 1, sizeof *s->shapes);
    s->symbols = calloc(num_dims ? num_dims : 1, sizeof *s->symbols);
    s->symbol_names = calloc(num_dims ? num_dims : 1,
                             sizeof *s->symbol_names);
    s->dims = calloc(num_dims ? num_dims : 1, sizeof *s->dims);
    if (!s->shapes || !s->symbols || !s->symbol_names || !s->dims)
      status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  int64_t *next = s->shapes;
  int32_t num_records = 0;
  for (int32_t i = 0; i < total && !status; ++i) {
    int is_output = i >= counts[0];
    const hodu_engine_value *v = &values[i];
    s->tensors[i] = (hodu_tensor_desc){v->name, v->dtype, v->rank, next};
    for (int32_t d = 0; d < v->rank && !status; ++d) {
      int64_t extent = v->shape[d];
      next[d] = extent < 0 ? HODU_DIM_DYNAMIC : extent;
      if (extent >= 0)
        continue;
      const char *dim_name =
          v->dim_names && v->dim_names[d] && *v->dim_names[d]
              ? v->dim_names[d]
              : NULL;
      char fresh[320];
      if (!dim_name && !is_output) {
        snprintf(fresh, sizeof fresh, "%s_dim%d", v->name, (int)d);
        dim_name = fresh;
      }
      int32_t symbol = dim_name ? symbol_index(s, dim_name, !is_output) : -1;
      if (symbol < 0 && !is_output)
        status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
      else if (symbol >= 0)
        s->dims[num_records++] = (hodu_dynamic_dim){
            is_output, is_output ? i - counts[0] : i, d, symbol, 1, 0};
    }
    next += v->rank;
  }
  free(values);
  if (status)
    return status;
  hodu_model_desc *desc = &s->desc;
  desc->abi_version = HODU_ABI_VERSION;
  desc->struct_size = sizeof *desc;
  desc->target = "cpu";
  desc->num_inputs = counts[0];
  desc->num_outputs = counts[1];
  desc->inputs = s->tensors;
  desc->outputs = s->tensors + counts[0];
  desc->symbols = s->symbols;
  desc->num_dynamic_dims = num_records;
  desc->dynamic_dims = s->dims;
  return NULL;
}

hodu_status hodu_engine_model_load(const hodu_engine_ref *engine,
                                   const char *path, hodu_model **out) {
  *out = NULL;
  struct hodu_engine_state *s = calloc(1, sizeof *s);
  if (!s)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  s->ref = *engine;
  pthread_mutex_init(&s->run_lock, NULL);
  hodu_engine_load_options options = {sizeof options,
                                      hodu_effective_num_threads()};
  hodu_status status = engine->table->load(path, &options, &s->loaded);
  if (!status && !s->loaded)
    status = hodu_make_status(HODU_INVALID_ARTIFACT,
                              "engine '%s' loaded '%s' but returned no model",
                              engine->table->name, path);
  if (!status)
    status = describe(s, path);
  if (!status) {
    const char *slash = strrchr(path, '/');
    s->desc.model_name = slash ? slash + 1 : path;
    status = hodu_model_from_engine(&s->desc, s, path, out);
    s = NULL; /* the model owns it, or freed it on failure */
  }
  state_free(s);
  return status;
}

const char *hodu_model_engine(const hodu_model *model) {
  return model && model->engine ? model->engine->ref.table->name : NULL;
}

/*===--------------------------------------------------------------------===*
 * Runs
 *===--------------------------------------------------------------------===*/

/* Checks the inputs (binding the symbols into `values`) and, for outputs
 * the caller gave, their dtypes and the dims known before the run. */
static hodu_status check_tensors(const hodu_model *model,
                                 const hodu_tensor *const *inputs,
                                 size_t num_inputs,
                                 hodu_tensor *const *outputs,
                                 size_t num_outputs, int64_t *values) {
  const hodu_model_desc *desc = model->desc;
  const char *name = hodu_model_name(model);
  hodu_status status = hodu_check_input_count(model->plan, num_inputs);
  if (status)
    return status;
  if (num_outputs != (size_t)desc->num_outputs)
    return hodu_make_status(HODU_MISMATCH, "model '%s' has %d output%s, got "
                                           "%zu",
                            name, (int)desc->num_outputs,
                            desc->num_outputs == 1 ? "" : "s", num_outputs);
  if (num_inputs && !inputs)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "the input array is NULL");
  for (size_t i = 0; i < num_inputs; ++i) {
    const hodu_tensor_desc *want = &desc->inputs[i];
    if (!inputs[i])
      return hodu_make_status(HODU_INVALID_ARGUMENT, "input %zu ('%s') is "
                                                     "NULL",
                              i, want->name);
    if ((int32_t)hodu_tensor_dtype(inputs[i]) != want->dtype)
      return hodu_make_status(
          HODU_MISMATCH, "input '%s': expected dtype %s, got %s", want->name,
          hodu_dtype_name((hodu_dtype)want->dtype),
          hodu_dtype_name(hodu_tensor_dtype(inputs[i])));
    if (!hodu_tensor_data(inputs[i]) && hodu_tensor_bytes(inputs[i]))
      return hodu_make_status(HODU_INVALID_ARGUMENT,
                              "input '%s' is a device tensor: models run by "
                              "engine '%s' take host tensors",
                              want->name, hodu_model_engine(model));
  }
  /* The binding checks ranks, static dims and the symbols' dims. */
  status = hodu_bind_symbols(desc, name, inputs, num_inputs, 0, values);
  for (size_t o = 0; o < num_outputs && !status && outputs; ++o) {
    const hodu_tensor_desc *want = &desc->outputs[o];
    const hodu_tensor *tensor = outputs[o];
    if (!tensor)
      continue; /* run_alloc: the engine allocates it */
    int64_t shape[64];
    status = hodu_resolve_shape(desc, name, 1, (int32_t)o, values, shape);
    if (status)
      break;
    int same = (int32_t)hodu_tensor_dtype(tensor) == want->dtype &&
               hodu_tensor_rank(tensor) == want->rank;
    for (int32_t d = 0; same && d < want->rank; ++d)
      same = shape[d] < 0 || hodu_tensor_shape(tensor)[d] == shape[d];
    if (!same) {
      char need[256], got[256];
      hodu_format_shape(need, sizeof need, want->rank, shape);
      hodu_format_shape(got, sizeof got, hodu_tensor_rank(tensor),
                        hodu_tensor_shape(tensor));
      status = hodu_make_status(
          HODU_MISMATCH, "model '%s': output '%s' must be %s %s, got %s %s",
          name, want->name, hodu_dtype_name((hodu_dtype)want->dtype), need,
          hodu_dtype_name(hodu_tensor_dtype(tensor)), got);
    } else if (!hodu_tensor_data(tensor) && hodu_tensor_bytes(tensor)) {
      status = hodu_make_status(HODU_INVALID_ARGUMENT,
                                "output '%s' is a device tensor: models run "
                                "by engine '%s' take host tensors",
                                want->name, hodu_model_engine(model));
    }
  }
  return status;
}

/* Runs the engine; outputs[o] NULL means the engine allocates it, and a new
 * tensor is made of what it gives. */
static hodu_status engine_run(const hodu_model *model,
                              const hodu_tensor *const *inputs,
                              size_t num_inputs, hodu_tensor **outputs,
                              size_t num_outputs, int allocate) {
  struct hodu_engine_state *s = model->engine;
  int32_t num_symbols = s->desc.num_symbols;
  int64_t stack_values[HODU_STACK_SYMBOLS];
  int64_t *values = hodu_symbol_values_alloc(num_symbols, stack_values);
  hodu_engine_tensor *tensors =
      calloc(num_inputs + num_outputs + 1, sizeof *tensors);
  int64_t *shapes = NULL;
  hodu_status status =
      values && tensors ? NULL
                        : hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  if (!status)
    status = check_tensors(model, inputs, num_inputs,
                           allocate ? NULL : outputs, num_outputs, values);
  size_t out_dims = 0;
  for (size_t o = 0; o < num_outputs; ++o)
    out_dims += (size_t)s->desc.outputs[o].rank;
  if (!status && !(shapes = calloc(out_dims + 1, sizeof *shapes)))
    status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  hodu_engine_tensor *in = tensors, *out = tensors + num_inputs;
  for (size_t i = 0; i < num_inputs && !status; ++i)
    in[i] = (hodu_engine_tensor){
        hodu_tensor_dtype(inputs[i]), hodu_tensor_rank(inputs[i]),
        (int64_t *)hodu_tensor_shape(inputs[i]), hodu_tensor_data(inputs[i]),
        hodu_tensor_bytes(inputs[i])};
  int64_t *next = shapes;
  for (size_t o = 0; o < num_outputs && !status; ++o) {
    const hodu_tensor_desc *want = &s->desc.outputs[o];
    out[o] = (hodu_engine_tensor){want->dtype, want->rank, next, NULL, 0};
    if (!allocate) {
      memcpy(next, hodu_tensor_shape(outputs[o]),
             sizeof(int64_t) * (size_t)want->rank);
      out[o].data = hodu_tensor_data(outputs[o]);
      out[o].bytes = hodu_tensor_bytes(outputs[o]);
    }
    next += want->rank;
  }
  if (!status) {
    pthread_mutex_lock(&s->run_lock);
    status = s->ref.table->run(s->loaded, in, (int32_t)num_inputs, out,
                               (int32_t)num_outputs,
                               hodu_effective_num_threads());
    pthread_mutex_unlock(&s->run_lock);
  }
  /* Engine-allocated outputs become tensors (their memory is copied once;
   * the engine's is the host's to free). */
  for (size_t o = 0; allocate && o < num_outputs && tensors; ++o) {
    void *data = out[o].data;
    if (!status && !data)
      status = hodu_make_status(HODU_RUN_FAILED,
                                "engine '%s' returned no data for output "
                                "'%s'",
                                s->ref.table->name, s->desc.outputs[o].name);
    if (!status)
      status = hodu_tensor_create((hodu_dtype)out[o].dtype, out[o].rank,
                                  out[o].shape, &outputs[o]);
    if (!status && hodu_tensor_bytes(outputs[o]) != out[o].bytes)
      status = hodu_make_status(
          HODU_RUN_FAILED,
          "engine '%s' gave output '%s' %llu bytes for its shape's %zu",
          s->ref.table->name, s->desc.outputs[o].name,
          (unsigned long long)out[o].bytes, hodu_tensor_bytes(outputs[o]));
    if (!status && out[o].bytes)
      memcpy(hodu_tensor_data(outputs[o]), data, (size_t)out[o].bytes);
    free(data); /* host_alloc is posix_memalign */
  }
  if (status && allocate)
    for (size_t o = 0; o < num_outputs; ++o) {
      hodu_tensor_free(outputs[o]);
      outputs[o] = NULL;
    }
  free(shapes);
  free(tensors);
  if (values)
    hodu_symbol_values_free(values, stack_values);
  return status;
}

hodu_status hodu_engine_run(const hodu_model *model,
                            const hodu_tensor *const *inputs,
                            size_t num_inputs, hodu_tensor *const *outputs,
                            size_t num_outputs) {
  if (num_outputs && !outputs)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "the output array is NULL");
  for (size_t o = 0; o < num_outputs; ++o)
    if (!outputs[o])
      return hodu_make_status(HODU_INVALID_ARGUMENT,
                              "output %zu ('%s') is NULL", o,
                              o < (size_t)model->desc->num_outputs
                                  ? model->desc->outputs[o].name
                                  : "?");
  return engine_run(model, inputs, num_inputs, (hodu_tensor **)outputs,
                    num_outputs, 0);
}

hodu_status hodu_engine_run_alloc(const hodu_model *model,
                                  const hodu_tensor *const *inputs,
                                  size_t num_inputs, hodu_tensor **outputs,
                                  size_t num_outputs) {
  return engine_run(model, inputs, num_inputs, outputs, num_outputs, 1);
}
