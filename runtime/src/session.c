/*===- session.c - run contexts: binding, eager runs, capture and replay
 *----===*
 *
 * The plan executor. A session owns what one run needs -- an arena per
 * plan device, the meta slots, device mirrors of bound host tensors -- and
 * the programs: the plan's steps cut into segments of consecutive steps on
 * one device (TRANSFER steps between devices are run by the executor
 * itself, through host memory). A program is made once per set of bound
 * addresses and reused by every run; capture records each program once and
 * replay resubmits the recordings. A bundle with symbols runs its
 * programs once per chunk of the value, its tensors' slices copied through
 * pass-sized mirrors (session_passes.c). The checks of a run's tensors are
 * in run_checks.c. The session's fields are in session_internal.h.
 *
 * The state machine (created -> warmed -> captured -> reset, seed 002's
 * AICF) is checked here; internal sessions, which hodu_model_run keeps in
 * the model's cache, skip it.
 *
 *===----------------------------------------------------------------------===*/
#include "session_internal.h"
#include "state_file.h"
#include "symbols.h"

#include <stdlib.h>
#include <string.h>

/*===--------------------------------------------------------------------===*
 * Creation
 *===--------------------------------------------------------------------===*/

static void free_programs(hodu_session *s) {
  for (uint32_t i = 0; i < s->num_segments; ++i) {
    segment *seg = &s->segments[i];
    if (seg->program) {
      hodu_device *device = s->model->devices[seg->device];
      device->ops->program_free(device->instance, seg->program);
      seg->program = NULL;
    }
  }
  if (s->programs_ready)
    memset(s->programs_ready, 0, hodu_plan_num_plans(s->plan));
}

void hodu_session_free(hodu_session *s) {
  if (!s)
    return;
  const hodu_plan *plan = s->plan;
  if (s->segments)
    free_programs(s);
  free(s->segments);
  free(s->variant_segments);
  free(s->programs_ready);
  for (uint32_t d = 0; s->arenas && d < plan->num_devices; ++d)
    if (s->arenas[d])
      s->model->devices[d]->ops->buffer_free(s->model->devices[d]->instance,
                                             s->arenas[d]);
  uint32_t owned_begin = plan->num_inputs + plan->num_outputs;
  for (uint32_t k = 0; s->owned && k < s->num_owned; ++k)
    if (s->owned[k]) {
      hodu_device *device = tensor_device(s, owned_begin + k);
      device->ops->buffer_free(device->instance, s->owned[k]);
    }
  for (uint32_t i = 0; s->input_mirrors && i < plan->num_inputs; ++i)
    if (s->input_mirrors[i]) {
      hodu_device *device = tensor_device(s, i);
      device->ops->buffer_free(device->instance, s->input_mirrors[i]);
    }
  for (uint32_t o = 0; s->output_mirrors && o < plan->num_outputs; ++o)
    if (s->output_mirrors[o]) {
      hodu_device *device = tensor_device(s, plan->num_inputs + o);
      device->ops->buffer_free(device->instance, s->output_mirrors[o]);
    }
  free(s->arenas);
  free(s->owned);
  free(s->inputs);
  free(s->outputs);
  free(s->input_mirrors);
  free(s->output_mirrors);
  free(s->bindings);
  free(s->symbol_values);
  free(s->padded_rows);
  free(s);
}

/* Sets `count` owned tensors from plan tensor `first` on to their initial
 * values. */
static hodu_status init_owned(hodu_session *s, uint32_t first, uint32_t count) {
  const hodu_plan *plan = s->plan;
  uint32_t owned_begin = plan->num_inputs + plan->num_outputs;
  for (uint32_t i = first; i < first + count; ++i) {
    const hodu_plan_tensor *t = &plan->tensors[i];
    if (!t->bytes)
      continue;
    /* Slots without an initial value start (and restart) at zero. */
    void *zeros = t->init ? NULL : calloc(1, (size_t)t->bytes);
    if (!t->init && !zeros)
      return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
    hodu_device *device = tensor_device(s, i);
    hodu_status status =
        device->ops->write(device->instance, s->owned[i - owned_begin], 0,
                           t->init ? (const void *)t->init : zeros, t->bytes);
    free(zeros);
    if (status)
      return status;
  }
  return NULL;
}

/* Sets every meta slot to its initial value. */
static hodu_status reset_meta(hodu_session *s) {
  return init_owned(s, s->plan->num_inputs + s->plan->num_outputs,
                    s->plan->num_meta);
}

/* Sets every state tensor to its initial value. */
static hodu_status restore_state(hodu_session *s) {
  return init_owned(s, hodu_plan_state_tensor(s->plan, 0), s->plan->num_state);
}

/* Cuts each variant's steps into segments: runs of steps on one device,
 * and each TRANSFER on its own. */
static hodu_status make_segments(hodu_session *s) {
  const hodu_plan *plan = s->plan;
  uint32_t variants = hodu_plan_num_plans(plan);
  s->segments =
      calloc(plan->num_steps ? plan->num_steps : 1, sizeof *s->segments);
  s->variant_segments = calloc(variants + 1u, sizeof *s->variant_segments);
  s->programs_ready = calloc(variants, 1);
  if (!s->segments || !s->variant_segments || !s->programs_ready)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  for (uint32_t v = 0; v < variants; ++v) {
    uint32_t first, count;
    hodu_plan_variant_steps(plan, v, &first, &count);
    s->variant_segments[v] = s->num_segments;
    for (uint32_t i = first; i < first + count; ++i) {
      const hodu_bundle_step *step = &plan->steps[i];
      int transfer = step->op == HODU_STEP_TRANSFER;
      segment *last = s->num_segments > s->variant_segments[v]
                          ? &s->segments[s->num_segments - 1]
                          : NULL;
      if (last && !transfer && !last->transfer &&
          last->device == step->device) {
        ++last->count;
        continue;
      }
      segment *seg = &s->segments[s->num_segments++];
      seg->device = step->device;
      seg->first = i;
      seg->count = 1;
      seg->transfer = transfer;
    }
  }
  s->variant_segments[variants] = s->num_segments;
  return NULL;
}

static hodu_status session_create(const hodu_model *model, int internal,
                                  hodu_session **out) {
  *out = NULL;
  hodu_status runnable = hodu_check_runnable(model);
  if (runnable)
    return runnable;
  const hodu_plan *plan = model->plan;
  hodu_session *s = calloc(1, sizeof *s);
  if (!s)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  s->model = model;
  s->plan = plan;
  s->internal = internal;
  s->state = HODU_SESSION_CREATED;
  s->stats.struct_size = sizeof s->stats;
  size_t n_in = plan->num_inputs ? plan->num_inputs : 1;
  size_t n_out = plan->num_outputs ? plan->num_outputs : 1;
  s->arenas = calloc(plan->num_devices, sizeof *s->arenas);
  s->num_owned = plan->num_meta + 2 * plan->num_state;
  s->owned = calloc(s->num_owned ? s->num_owned : 1, sizeof *s->owned);
  s->inputs = calloc(n_in, sizeof *s->inputs);
  s->outputs = calloc(n_out, sizeof *s->outputs);
  s->input_mirrors = calloc(n_in, sizeof *s->input_mirrors);
  s->output_mirrors = calloc(n_out, sizeof *s->output_mirrors);
  s->bindings =
      calloc(plan->num_args ? plan->num_args : 1, sizeof *s->bindings);
  s->num_symbols = hodu_desc_num_symbols(hodu_plan_symbols(plan));
  if (s->num_symbols)
    s->symbol_values = calloc((size_t)s->num_symbols, sizeof(int64_t));
  /* A new mirror holds anything: all of it is stale. */
  if (plan->num_padded) {
    s->padded_rows =
        calloc((size_t)n_in * HODU_SESSION_STALE, sizeof *s->padded_rows);
    if (s->padded_rows)
      hodu_session_stale_mirrors(s);
  }
  hodu_status status =
      s->arenas && s->owned && s->inputs && s->outputs && s->input_mirrors &&
              s->output_mirrors && s->bindings &&
              (s->symbol_values || !s->num_symbols) &&
              (s->padded_rows || !plan->num_padded)
          ? make_segments(s)
          : hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  for (uint32_t d = 0; d < plan->num_devices && !status; ++d) {
    if (!plan->devices[d].arena_size)
      continue;
    hodu_device *device = model->devices[d];
    status = device->ops->buffer_create(
        device->instance, plan->devices[d].arena_size, &s->arenas[d]);
  }
  uint32_t owned_begin = plan->num_inputs + plan->num_outputs;
  for (uint32_t k = 0; k < s->num_owned && !status; ++k) {
    hodu_device *device = tensor_device(s, owned_begin + k);
    status = device->ops->buffer_create(
        device->instance, plan->tensors[owned_begin + k].bytes, &s->owned[k]);
  }
  if (!status)
    status = reset_meta(s);
  if (!status)
    status = restore_state(s);
  if (status) {
    hodu_session_free(s);
    return status;
  }
  *out = s;
  return NULL;
}

hodu_status hodu_session_create(const hodu_model *model, hodu_session **out) {
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  if (!model)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "model is NULL");
  if (model->engine)
    return hodu_make_status(HODU_INVALID_STATE,
                            "model '%s' runs on engine '%s': sessions "
                            "(capture and replay) are for compiled models; "
                            "use hodu_model_run",
                            hodu_model_name(model), hodu_model_engine(model));
  return session_create(model, 0, out);
}

const char *hodu_session_state_name(hodu_session_state state) {
  switch (state) {
  case HODU_SESSION_CREATED:
    return "created";
  case HODU_SESSION_WARMED:
    return "warmed";
  case HODU_SESSION_CAPTURED:
    return "captured";
  case HODU_SESSION_RESET:
    return "reset";
  }
  return NULL;
}

hodu_session_state hodu_session_get_state(const hodu_session *s) {
  return s ? s->state : HODU_SESSION_CREATED;
}

/*===--------------------------------------------------------------------===*
 * Binding
 *===--------------------------------------------------------------------===*/

/* The binding of a tensor (input, output or meta slot) for its device. */
static hodu_status tensor_binding(hodu_session *s, uint32_t tensor,
                                  hodu_binding *out) {
  const hodu_plan *plan = s->plan;
  hodu_device *device = tensor_device(s, tensor);
  int cpu = device->kind == HODU_DEVICE_CPU;
  uint32_t owned_begin = plan->num_inputs + plan->num_outputs;
  memset(out, 0, sizeof *out);
  out->size = plan->tensors[tensor].bytes;
  if (tensor >= owned_begin) {
    hodu_buffer *buffer = s->owned[tensor - owned_begin];
    if (cpu)
      out->host = hodu_device_buffer_host(device, buffer);
    else
      out->buffer = buffer;
    return NULL;
  }
  int input = tensor < plan->num_inputs;
  const hodu_tensor *bound =
      input ? s->inputs[tensor] : s->outputs[tensor - plan->num_inputs];
  /* A tensor with a bundle's symbol is bound through its mirror, which
   * holds one pass's slice, whether it is a host or a device tensor. */
  const hodu_plan_tensor *t = &plan->tensors[tensor];
  if (hodu_tensor_device(bound) && !t->unit) {
    out->buffer = hodu_tensor_buffer(bound);
    return NULL;
  }
  if (cpu && !t->unit) {
    out->host = hodu_tensor_data(bound);
    return NULL;
  }
  /* A host tensor on a GPU, or a tensor with the symbol on the CPU (the
   * CPU part of a --fallback=cpu bundle): through a mirror kept by the
   * session. */
  hodu_buffer **mirror = input ? &s->input_mirrors[tensor]
                               : &s->output_mirrors[tensor - plan->num_inputs];
  if (!*mirror) {
    hodu_status status = device->ops->buffer_create(
        device->instance, plan->tensors[tensor].bytes, mirror);
    if (status)
      return status;
  }
  if (cpu)
    out->host = hodu_device_buffer_host(device, *mirror);
  else
    out->buffer = *mirror;
  return NULL;
}

/* Resolves every plan argument into `bindings`. */
static hodu_status resolve(hodu_session *s, hodu_binding *bindings) {
  const hodu_plan *plan = s->plan;
  for (uint32_t a = 0; a < plan->num_args; ++a) {
    const hodu_bundle_arg *arg = &plan->args[a];
    hodu_binding *b = &bindings[a];
    memset(b, 0, sizeof *b);
    uint32_t tensor = hodu_plan_arg_tensor(plan, arg);
    switch (arg->space) {
    case HODU_SPACE_ARENA: {
      hodu_device *device = s->model->devices[arg->index];
      if (device->kind == HODU_DEVICE_CPU)
        b->host = hodu_device_buffer_host(device, s->arenas[arg->index]);
      else
        b->buffer = s->arenas[arg->index];
      b->offset = arg->offset;
      b->size = arg->size;
      continue;
    }
    case HODU_SPACE_WEIGHTS:
      if (s->model->devices[arg->index]->kind == HODU_DEVICE_CPU)
        b->host = (void *)plan->weights;
      else
        b->buffer = s->model->weights[arg->index];
      b->offset = arg->offset;
      b->size = arg->size;
      continue;
    }
    hodu_status status = tensor_binding(s, tensor, b);
    if (status)
      return status;
    b->offset = arg->offset;
    b->size = arg->size;
  }
  return NULL;
}

static hodu_status bind_tensors(hodu_session *s,
                                const hodu_tensor *const *inputs,
                                size_t num_inputs, hodu_tensor *const *outputs,
                                size_t num_outputs);

/* Checks the tensors, binds the symbols' values and the tensors. */
static hodu_status bind(hodu_session *s, const hodu_tensor *const *inputs,
                        size_t num_inputs, hodu_tensor *const *outputs,
                        size_t num_outputs) {
  int64_t stack_values[HODU_STACK_SYMBOLS];
  int64_t *values = hodu_symbol_values_alloc(s->num_symbols, stack_values);
  if (!values)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  hodu_status status = hodu_check_run_tensors(s->model, inputs, num_inputs,
                                              outputs, num_outputs, values);
  size_t values_bytes = sizeof(int64_t) * (size_t)s->num_symbols;
  /* A recording is of the shapes it was captured at (as a CUDA Graph is):
   * other symbol values need a reset and a new capture. */
  if (!status && s->state == HODU_SESSION_CAPTURED && s->num_symbols &&
      memcmp(values, s->symbol_values, values_bytes) != 0) {
    char was[256], now[256];
    const hodu_model_desc *desc = hodu_plan_symbols(s->plan);
    hodu_format_symbol_values(was, sizeof was, desc, s->symbol_values);
    hodu_format_symbol_values(now, sizeof now, desc, values);
    status = hodu_make_status(HODU_INVALID_STATE,
                              "session of model '%s' is captured at %s: its "
                              "recording runs those shapes only; reset it and "
                              "capture again to run %s",
                              s->plan->name, was, now);
  }
  if (!status)
    status = bind_tensors(s, inputs, num_inputs, outputs, num_outputs);
  /* The programs read the values where they are: no new program needed.
   * Values that another variant holds better run its programs, on
   * mirrors in its layout. */
  if (!status && s->num_symbols)
    memcpy(s->symbol_values, values, values_bytes);
  if (!status && s->plan->num_variants) {
    uint32_t variant = hodu_plan_pick_variant(s->plan, s->symbol_values);
    if (variant != s->variant) {
      s->variant = variant;
      hodu_session_stale_mirrors(s);
    }
  }
  hodu_symbol_values_free(values, stack_values);
  return status;
}

/* The binding of checked tensors: the addresses the programs use. */
static hodu_status bind_tensors(hodu_session *s,
                                const hodu_tensor *const *inputs,
                                size_t num_inputs, hodu_tensor *const *outputs,
                                size_t num_outputs) {
  hodu_status status = NULL;
  const hodu_plan *plan = s->plan;
  /* Resolve into a scratch copy first: a captured session may only take
   * tensors that resolve to the same addresses. */
  const hodu_tensor **old_inputs = NULL;
  hodu_tensor **old_outputs = NULL;
  size_t in_bytes =
      sizeof *s->inputs * (plan->num_inputs ? plan->num_inputs : 1);
  size_t out_bytes =
      sizeof *s->outputs * (plan->num_outputs ? plan->num_outputs : 1);
  size_t bind_bytes =
      sizeof *s->bindings * (plan->num_args ? plan->num_args : 1);
  hodu_binding *fresh = malloc(bind_bytes);
  old_inputs = malloc(in_bytes);
  old_outputs = malloc(out_bytes);
  if (!fresh || !old_inputs || !old_outputs) {
    free(fresh);
    free(old_inputs);
    free(old_outputs);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  memcpy(old_inputs, s->inputs, in_bytes);
  memcpy(old_outputs, s->outputs, out_bytes);
  for (size_t i = 0; i < num_inputs; ++i)
    s->inputs[i] = inputs[i];
  for (size_t o = 0; o < num_outputs; ++o)
    s->outputs[o] = outputs[o];
  status = resolve(s, fresh);
  /* Programs stay valid while the addresses stay the same. */
  int changed = memcmp(fresh, s->bindings, bind_bytes) != 0;
  if (!status && changed && s->state == HODU_SESSION_CAPTURED)
    status = hodu_make_status(HODU_INVALID_STATE,
                              "session of model '%s' is captured: its "
                              "recording holds the bound addresses; reset it "
                              "before binding other tensors",
                              plan->name);
  if (status) {
    memcpy(s->inputs, old_inputs, in_bytes);
    memcpy(s->outputs, old_outputs, out_bytes);
  } else if (changed) {
    free_programs(s);
    memcpy(s->bindings, fresh, bind_bytes);
  }
  if (!status)
    s->bound = 1;
  free(fresh);
  free(old_inputs);
  free(old_outputs);
  return status;
}

hodu_status hodu_session_bind(hodu_session *s, const hodu_tensor *const *inputs,
                              size_t num_inputs, hodu_tensor *const *outputs,
                              size_t num_outputs) {
  if (!s)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "session is NULL");
  return bind(s, inputs, num_inputs, outputs, num_outputs);
}

/*===--------------------------------------------------------------------===*
 * Running
 *===--------------------------------------------------------------------===*/

static hodu_status ensure_programs(hodu_session *s) {
  if (s->programs_ready[s->variant])
    return NULL;
  uint32_t begin, end;
  session_segments(s, &begin, &end);
  for (uint32_t i = begin; i < end; ++i) {
    segment *seg = &s->segments[i];
    if (seg->transfer)
      continue;
    hodu_device *device = s->model->devices[seg->device];
    hodu_status status = device->ops->program_create(
        device->instance, s->model->codes[seg->device], &s->plan->view,
        seg->first, seg->count, s->bindings, s->symbol_values, &seg->program);
    if (status) {
      free_programs(s);
      return status;
    }
  }
  s->programs_ready[s->variant] = 1;
  return NULL;
}

/* Host tensors bound to GPU inputs go to their mirrors, and back out of
 * the output mirrors (those with a symbol pass by pass, below). */
static hodu_status stage_in(hodu_session *s) {
  for (uint32_t i = 0; i < s->plan->num_inputs; ++i) {
    if (!s->input_mirrors[i] || hodu_tensor_device(s->inputs[i]) ||
        s->plan->tensors[i].unit)
      continue;
    size_t bytes = hodu_tensor_bytes(s->inputs[i]);
    if (!bytes)
      continue;
    hodu_device *device = tensor_device(s, i);
    hodu_status status =
        device->ops->write(device->instance, s->input_mirrors[i], 0,
                           hodu_tensor_data(s->inputs[i]), bytes);
    if (status)
      return status;
  }
  return NULL;
}

static hodu_status stage_out(hodu_session *s) {
  const hodu_plan *plan = s->plan;
  for (uint32_t o = 0; o < plan->num_outputs; ++o) {
    if (!s->output_mirrors[o] || hodu_tensor_device(s->outputs[o]) ||
        plan->tensors[plan->num_inputs + o].unit)
      continue;
    size_t bytes = hodu_tensor_bytes(s->outputs[o]);
    if (!bytes)
      continue;
    hodu_device *device = tensor_device(s, plan->num_inputs + o);
    hodu_status status =
        device->ops->read(device->instance, s->output_mirrors[o], 0,
                          hodu_tensor_data(s->outputs[o]), bytes);
    if (status)
      return status;
  }
  return NULL;
}

/* A TRANSFER step: from one device's buffer to another's, via the host. */
static hodu_status run_transfer(hodu_session *s, uint32_t step_index) {
  const hodu_bundle_step *step = &s->plan->steps[step_index];
  const hodu_bundle_arg *args = &s->plan->args[step->first_arg];
  const hodu_binding *from = &s->bindings[step->first_arg];
  const hodu_binding *to = &s->bindings[step->first_arg + 1];
  hodu_device *source =
      s->model->devices[hodu_plan_arg_device(s->plan, &args[0])];
  hodu_device *target =
      s->model->devices[hodu_plan_arg_device(s->plan, &args[1])];
  uint64_t size = from->size;
  if (source->kind == HODU_DEVICE_CPU)
    return target->ops->write(target->instance, to->buffer, to->offset,
                              hodu_binding_host(source->ops, from), size);
  if (target->kind == HODU_DEVICE_CPU)
    return source->ops->read(source->instance, from->buffer, from->offset,
                             hodu_binding_host(target->ops, to), size);
  void *bounce = malloc(size ? (size_t)size : 1);
  if (!bounce)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  hodu_status status = source->ops->read(source->instance, from->buffer,
                                         from->offset, bounce, size);
  if (!status)
    status = target->ops->write(target->instance, to->buffer, to->offset,
                                bounce, size);
  free(bounce);
  return status;
}

static hodu_status run_once(hodu_session *s, int replay) {
  hodu_exec_stats stats = {0, 0};
  hodu_status status = NULL;
  uint32_t begin, end;
  session_segments(s, &begin, &end);
  for (uint32_t i = begin; i < end && !status; ++i) {
    segment *seg = &s->segments[i];
    if (seg->transfer) {
      status = run_transfer(s, seg->first);
      stats.submissions += 1;
      continue;
    }
    hodu_device *device = s->model->devices[seg->device];
    status = replay ? hodu_device_replay(device, seg->program, 1, &stats)
                    : device->ops->program_run(device->instance, seg->program,
                                               &stats);
  }
  if (replay) {
    s->stats.replay_submissions += stats.submissions;
  } else {
    s->stats.run_submissions += stats.submissions;
    s->stats.run_commands += stats.commands;
  }
  return status;
}

static hodu_status not_bound(const hodu_session *s) {
  return hodu_make_status(HODU_INVALID_STATE,
                          "session of model '%s' has no tensors bound: call "
                          "hodu_session_bind first",
                          s->plan->name);
}

hodu_status hodu_session_run(hodu_session *s) {
  if (!s)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "session is NULL");
  if (!s->bound)
    return not_bound(s);
  hodu_status status = ensure_programs(s);
  if (!status)
    status = stage_in(s);
  int64_t passes = hodu_session_num_passes(s), chunk = s->plan->chunk;
  for (int64_t k = 0; k < passes && !status; ++k) {
    int64_t off = k * chunk, rows = hodu_session_pass_rows(s, off);
    status = hodu_session_pass_copy(s, off, rows, 0);
    if (!status)
      status = run_once(s, 0);
    if (!status)
      status = hodu_session_pass_copy(s, off, rows, 1);
  }
  if (!status)
    status = stage_out(s);
  if (status)
    return status;
  ++s->stats.runs;
  if (s->state == HODU_SESSION_CREATED)
    s->state = HODU_SESSION_WARMED;
  return NULL;
}

static hodu_status state_error(const hodu_session *s, const char *call,
                               const char *why) {
  return hodu_make_status(
      HODU_INVALID_STATE, "%s of model '%s' in state %s: %s", call,
      s->plan->name, hodu_session_state_name(s->state), why);
}

hodu_status hodu_session_capture(hodu_session *s) {
  if (!s)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "session is NULL");
  if (s->state == HODU_SESSION_CREATED)
    return state_error(s, "capture",
                       "run the session at least once first "
                       "(a warm-up run), then capture");
  if (s->state == HODU_SESSION_CAPTURED)
    return state_error(s, "capture",
                       "it is already captured; reset it "
                       "before capturing again");
  hodu_status status = ensure_programs(s);
  uint32_t begin, end;
  session_segments(s, &begin, &end);
  uint32_t done = begin;
  for (; done < end && !status; ++done) {
    segment *seg = &s->segments[done];
    if (seg->transfer)
      continue;
    hodu_device *device = s->model->devices[seg->device];
    status = hodu_device_capture(device, seg->program);
  }
  if (status) {
    /* Undo the recordings made before the failure. */
    for (uint32_t i = begin; i + 1 < done; ++i) {
      segment *seg = &s->segments[i];
      if (!seg->transfer)
        hodu_device_release_capture(s->model->devices[seg->device],
                                    seg->program);
    }
    return status;
  }
  ++s->stats.captures;
  s->state = HODU_SESSION_CAPTURED;
  return NULL;
}

hodu_status hodu_session_replay(hodu_session *s, int64_t count) {
  if (!s)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "session is NULL");
  if (count < 1)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "replay count must be >= 1, got %lld",
                            (long long)count);
  if (s->state == HODU_SESSION_RESET)
    return state_error(s, "replay",
                       "its recording was freed by reset; "
                       "capture again first");
  if (s->state != HODU_SESSION_CAPTURED)
    return state_error(s, "replay", "nothing is captured; capture first");
  hodu_status status = stage_in(s);
  /* The captured symbol values give the passes of each run. */
  int64_t passes = hodu_session_num_passes(s), chunk = s->plan->chunk;
  uint32_t begin, end;
  session_segments(s, &begin, &end);
  if (!status && passes == 1 && end - begin == 1 &&
      !s->segments[begin].transfer) {
    /* One program and one pass: the device replays all `count` runs at
     * once. */
    int64_t rows = hodu_session_pass_rows(s, 0);
    hodu_exec_stats stats = {0, 0};
    hodu_device *device = s->model->devices[s->segments[begin].device];
    status = hodu_session_pass_copy(s, 0, rows, 0);
    if (!status)
      status =
          hodu_device_replay(device, s->segments[begin].program, count, &stats);
    if (!status)
      status = hodu_session_pass_copy(s, 0, rows, 1);
    s->stats.replay_submissions += stats.submissions;
  } else {
    for (int64_t i = 0; i < count && !status; ++i)
      for (int64_t k = 0; k < passes && !status; ++k) {
        int64_t off = k * chunk, rows = hodu_session_pass_rows(s, off);
        status = hodu_session_pass_copy(s, off, rows, 0);
        if (!status)
          status = run_once(s, 1);
        if (!status)
          status = hodu_session_pass_copy(s, off, rows, 1);
      }
  }
  if (!status)
    status = stage_out(s);
  if (!status)
    s->stats.replays += (uint64_t)count;
  return status;
}

hodu_status hodu_session_reset(hodu_session *s) {
  if (!s)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "session is NULL");
  if (s->state != HODU_SESSION_CAPTURED)
    return state_error(s, "reset", "nothing is captured");
  uint32_t begin, end;
  session_segments(s, &begin, &end);
  for (uint32_t i = begin; i < end; ++i) {
    segment *seg = &s->segments[i];
    if (!seg->transfer)
      hodu_device_release_capture(s->model->devices[seg->device], seg->program);
  }
  s->state = HODU_SESSION_RESET;
  return NULL;
}

/*===--------------------------------------------------------------------===*
 * Meta slots and stats
 *===--------------------------------------------------------------------===*/

/* Reads (`write` 0) or writes (`write` 1) the session's meta slot
 * (`state` 0) or state tensor (`state` 1) `index`: exactly its bytes, in
 * any state. */
static hodu_status owned_io(const hodu_session *s, int state, int32_t index,
                            void *data, size_t bytes, int write) {
  if (!s)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "session is NULL");
  const hodu_plan *plan = s->plan;
  const char *kind = state ? "state tensor" : "meta slot";
  uint32_t first = state ? plan->num_meta : 0;
  uint32_t count = state ? plan->num_state : plan->num_meta;
  if (index < 0 || (uint32_t)index >= count)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "model '%s' has no %s %d (it has %u)", plan->name,
                            kind, (int)index, (unsigned)count);
  uint32_t k = first + (uint32_t)index;
  uint32_t tensor = plan->num_inputs + plan->num_outputs + k;
  const hodu_plan_tensor *t = &plan->tensors[tensor];
  if (bytes != t->bytes)
    return hodu_make_status(HODU_MISMATCH, "%s '%s' holds %llu bytes, got %zu",
                            kind, t->desc.name, (unsigned long long)t->bytes,
                            bytes);
  if (bytes && !data)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "the host buffer is NULL");
  if (!bytes)
    return NULL;
  for (uint32_t j = 0; write && !state && j < plan->num_padded; ++j)
    if ((uint32_t)index == plan->value_slots[j])
      return hodu_make_status(
          HODU_INVALID_ARGUMENT,
          "meta slot '%s' holds the value of symbol '%s', which the runtime "
          "writes at each run from the inputs' shapes",
          t->desc.name, plan->symbols[plan->pad_symbols[j]].name);
  hodu_device *device = tensor_device(s, tensor);
  return write
             ? device->ops->write(device->instance, s->owned[k], 0, data, bytes)
             : device->ops->read(device->instance, s->owned[k], 0, data, bytes);
}

hodu_status hodu_session_write_meta_slot(hodu_session *s, int32_t index,
                                         const void *data, size_t bytes) {
  return owned_io(s, 0, index, (void *)data, bytes, 1);
}

hodu_status hodu_session_read_meta_slot(const hodu_session *s, int32_t index,
                                        void *data, size_t bytes) {
  return owned_io(s, 0, index, data, bytes, 0);
}

hodu_status hodu_session_write_meta_slot_named(hodu_session *s,
                                               const char *name,
                                               const void *data, size_t bytes) {
  int32_t index;
  hodu_status status =
      hodu_model_meta_slot_index(s ? s->model : NULL, name, &index);
  return status ? status : hodu_session_write_meta_slot(s, index, data, bytes);
}

hodu_status hodu_session_read_meta_slot_named(const hodu_session *s,
                                              const char *name, void *data,
                                              size_t bytes) {
  int32_t index;
  hodu_status status =
      hodu_model_meta_slot_index(s ? s->model : NULL, name, &index);
  return status ? status : hodu_session_read_meta_slot(s, index, data, bytes);
}

/*===--------------------------------------------------------------------===*
 * State tensors
 *===--------------------------------------------------------------------===*/

hodu_status hodu_state_refusal(const hodu_model *model, const char *call) {
  const hodu_plan *plan = model->plan;
  return hodu_make_status(
      HODU_INVALID_STATE,
      "%s: model '%s' keeps %u state tensor%s (the first is '%s'), which "
      "live in a session: create one (hodu_session_create), bind the "
      "inputs and outputs, and run it",
      call, plan->name, (unsigned)plan->num_state,
      plan->num_state == 1 ? "" : "s",
      plan->tensors[hodu_plan_state_tensor(plan, 0)].desc.name);
}

hodu_status hodu_session_read_state_tensor(const hodu_session *s, int32_t index,
                                           void *data, size_t bytes) {
  return owned_io(s, 1, index, data, bytes, 0);
}

hodu_status hodu_session_write_state_tensor(hodu_session *s, int32_t index,
                                            const void *data, size_t bytes) {
  return owned_io(s, 1, index, (void *)data, bytes, 1);
}

hodu_status hodu_session_restore_state_tensors(hodu_session *s) {
  if (!s)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "session is NULL");
  return restore_state(s);
}

/* The files themselves: state_file.c. */
hodu_status hodu_session_save_state_tensors(const hodu_session *s,
                                            const char *path) {
  if (!s)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "session is NULL");
  return hodu_state_file_save(s->model, s, path);
}

hodu_status hodu_session_load_state_tensors(hodu_session *s, const char *path) {
  if (!s)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "session is NULL");
  return hodu_state_file_load(s->model, s, path);
}

hodu_status hodu_session_get_stats(const hodu_session *s,
                                   hodu_session_stats *stats) {
  if (!s || !stats)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "session and stats must not be NULL");
  uint32_t size = stats->struct_size;
  if (size < sizeof(uint32_t))
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "stats: set struct_size to "
                            "sizeof(hodu_session_stats)");
  if (size > sizeof *stats)
    size = sizeof *stats;
  hodu_session_stats now = s->stats;
  now.plan_variant = s->variant;
  memcpy(stats, &now, size);
  stats->struct_size = size;
  return NULL;
}

/*===--------------------------------------------------------------------===*
 * hodu_model_run for bundles
 *===--------------------------------------------------------------------===*/

hodu_status hodu_bundle_run(const hodu_model *model,
                            const hodu_tensor *const *inputs, size_t num_inputs,
                            hodu_tensor *const *outputs, size_t num_outputs) {
  /* The cache is the model's only mutable state (slots taken and returned
   * atomically), as for the CPU path's workspaces. */
  hodu_model *shared = (hodu_model *)model;
  hodu_session *s = NULL;
  for (int i = 0; i < HODU_RUN_CACHE_SLOTS && !s; ++i)
    s = atomic_exchange(&shared->sessions[i], NULL);
  hodu_status status = s ? reset_meta(s) : session_create(model, 1, &s);
  if (!status)
    status = bind(s, inputs, num_inputs, outputs, num_outputs);
  if (!status)
    status = hodu_session_run(s);
  if (s) {
    /* Drop the borrowed tensors before parking the session. */
    for (uint32_t i = 0; i < model->plan->num_inputs; ++i)
      s->inputs[i] = NULL;
    for (uint32_t o = 0; o < model->plan->num_outputs; ++o)
      s->outputs[o] = NULL;
    /* The bindings and programs stay: the next run's binding compares
     * against them, and host tensors of GPU models (through the session's
     * mirrors) give the same addresses every time. */
    s->bound = 0;
  }
  for (int i = 0; s && i < HODU_RUN_CACHE_SLOTS; ++i) {
    hodu_session *expected = NULL;
    if (atomic_compare_exchange_strong(&shared->sessions[i], &expected, s))
      s = NULL;
  }
  hodu_session_free(s);
  return status;
}
