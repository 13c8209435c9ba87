/*===- session.c - run contexts: binding, eager runs, capture and replay
 *----===*
 *
 * The plan executor. A session owns what one run needs -- an arena per
 * plan device, the meta slots, device mirrors of bound host tensors -- and
 * the programs: the plan's steps cut into segments of consecutive steps on
 * one device (TRANSFER steps between devices are run by the executor
 * itself, through host memory). A program is made once per set of bound
 * addresses and reused by every run; capture records each program once and
 * replay resubmits the recordings. A bundle with a symbol runs its
 * programs once per chunk of the value, its tensors' slices copied through
 * pass-sized mirrors. The checks of a run's tensors are in run_checks.c.
 *
 * The state machine (created -> warmed -> captured -> reset, seed 002's
 * AICF) is checked here; internal sessions, which hodu_model_run keeps in
 * the model's cache, skip it.
 *
 *===----------------------------------------------------------------------===*/
#include "session.h"
#include "state_file.h"
#include "symbols.h"

#include <stdlib.h>
#include <string.h>

typedef struct segment {
  uint32_t device; /* plan device */
  uint32_t first;  /* steps [first, first + count) */
  uint32_t count;
  int transfer; /* one TRANSFER step, run by the executor */
  hodu_program *program;
} segment;

struct hodu_session {
  const hodu_model *model;
  const hodu_plan *plan;
  hodu_session_state state;
  int internal;
  hodu_buffer **arenas;       /* per plan device; NULL without an arena */
  /* The tensors the session owns, on their devices: the meta slots, then
   * the state tensors' values, then their next values (plan tensors from
   * num_inputs + num_outputs on). */
  hodu_buffer **owned;
  uint32_t num_owned;
  const hodu_tensor **inputs; /* bound; all NULL until bound */
  hodu_tensor **outputs;
  hodu_buffer **input_mirrors;  /* host inputs of GPU devices */
  hodu_buffer **output_mirrors; /* host outputs of GPU devices */
  int bound;
  hodu_binding *bindings; /* per plan arg */
  segment *segments;
  uint32_t num_segments;
  int programs_ready;
  hodu_session_stats stats;
  /* Models with symbols: the values of the bound tensors (one per
   * symbol; NULL without symbols), which descriptor programs read at every
   * run and bundle runs cut into passes. */
  int64_t *symbol_values;
  int32_t num_symbols;
  /* A padded symbol's bundle: per input, the extent its mirror's last run
   * wrote (what lies past it up to there is stale, not zero). */
  int64_t *padded_rows;
};

static hodu_device *tensor_device(const hodu_session *s, uint32_t tensor) {
  return s->model->devices[s->plan->tensors[tensor].device];
}

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
  s->programs_ready = 0;
}

void hodu_session_free(hodu_session *s) {
  if (!s)
    return;
  const hodu_plan *plan = s->plan;
  if (s->segments)
    free_programs(s);
  free(s->segments);
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

/* Cuts the steps into segments: runs of steps on one device, and each
 * TRANSFER on its own. */
static hodu_status make_segments(hodu_session *s) {
  const hodu_plan *plan = s->plan;
  s->segments =
      calloc(plan->num_steps ? plan->num_steps : 1, sizeof *s->segments);
  if (!s->segments)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  for (uint32_t i = 0; i < plan->num_steps; ++i) {
    const hodu_bundle_step *step = &plan->steps[i];
    int transfer = step->op == HODU_STEP_TRANSFER;
    segment *last = s->num_segments ? &s->segments[s->num_segments - 1] : NULL;
    if (last && !transfer && !last->transfer && last->device == step->device) {
      ++last->count;
      continue;
    }
    segment *seg = &s->segments[s->num_segments++];
    seg->device = step->device;
    seg->first = i;
    seg->count = 1;
    seg->transfer = transfer;
  }
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
  if (plan->padded) {
    s->padded_rows = calloc(n_in, sizeof *s->padded_rows);
    for (uint32_t i = 0; s->padded_rows && i < plan->num_inputs; ++i)
      s->padded_rows[i] = plan->tensors[i].full;
  }
  hodu_status status =
      s->arenas && s->owned && s->inputs && s->outputs && s->input_mirrors &&
              s->output_mirrors && s->bindings &&
              (s->symbol_values || !s->num_symbols) &&
              (s->padded_rows || !plan->padded)
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
  /* The programs read the values where they are: no new program needed. */
  if (!status && s->num_symbols)
    memcpy(s->symbol_values, values, values_bytes);
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
  if (s->programs_ready)
    return NULL;
  for (uint32_t i = 0; i < s->num_segments; ++i) {
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
  s->programs_ready = 1;
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

/*===--------------------------------------------------------------------===*
 * Passes of a bundle's symbols
 *
 * A bundle with a chunked symbol was compiled for `chunk` units of it; a
 * run at value n is ceil(n / chunk) passes of the plan, pass k on units
 * [k * chunk, k * chunk + rows) of every tensor with the symbol, staged
 * through the session's mirrors (one pass's size): in each of the
 * tensor's `outer` blocks, `rows` units in, the last one repeated up to
 * the chunk (doubling copies on the device: a partial pass costs a few
 * copies, not one per unit), and `rows` units out.
 *
 * A padded symbol's plan was compiled at its bound and masks what lies
 * past the real extent of each of its dims: the value goes to a meta slot
 * the kernels read, and each tensor with its dim is staged as a box, the
 * real extent followed by zeros up to the bound (box_copy). With both, a
 * run is the chunked symbol's passes, each on boxes of `rows` units.
 *===--------------------------------------------------------------------===*/

static int64_t num_passes(const hodu_session *s) {
  int64_t chunk = s->plan->chunk;
  return chunk ? (s->symbol_values[s->plan->chunk_symbol] + chunk - 1) / chunk
               : 1;
}

/* The units pass k (starting at unit `off`) covers: the chunk, or what is
 * left of the value; 0 without a symbol. */
static int64_t pass_rows(const hodu_session *s, int64_t off) {
  int64_t chunk = s->plan->chunk;
  if (!chunk)
    return 0;
  int64_t left = s->symbol_values[s->plan->chunk_symbol] - off;
  return left < chunk ? left : chunk;
}

static hodu_binding binding_of(hodu_buffer *buffer, uint64_t offset,
                               uint64_t size) {
  hodu_binding b = {buffer, NULL, offset, size};
  return b;
}

/* Units [rows, chunk) of the block at `base` in `mirror` become copies of
 * unit rows - 1. */
static hodu_status pad_block(hodu_device *device, hodu_buffer *mirror,
                             uint64_t base, uint64_t unit, int64_t rows,
                             int64_t chunk) {
  int64_t filled = rows;
  while (filled < chunk) {
    int64_t have = filled - (rows - 1);
    int64_t count = have < chunk - filled ? have : chunk - filled;
    hodu_binding from =
        binding_of(mirror, base + (uint64_t)(rows - 1) * unit, count * unit);
    hodu_binding to =
        binding_of(mirror, base + (uint64_t)filled * unit, count * unit);
    hodu_status status =
        device->ops->copy(device->instance, &from, &to, (uint64_t)count * unit);
    if (status)
      return status;
    filled += count;
  }
  return NULL;
}

/* The real extent of tensor t's padded dim at value n. */
static int64_t padded_extent(const hodu_plan_tensor *t, int64_t n) {
  return t->scale * n / t->divisor + t->offset;
}

/* Writes zeros to `bytes` bytes of `buffer` from `at`. */
static hodu_status write_zeros(hodu_device *device, hodu_buffer *buffer,
                               uint64_t at, uint64_t bytes) {
  static const uint8_t zeros[1 << 16];
  while (bytes) {
    uint64_t count = bytes < sizeof zeros ? bytes : sizeof zeros;
    hodu_status status =
        device->ops->write(device->instance, buffer, at, zeros, count);
    if (status)
      return status;
    at += count;
    bytes -= count;
  }
  return NULL;
}

/* Moves `bytes` between tensor `tensor` (at byte `at`: host memory or a
 * device buffer) and `mirror` (at `in_mirror`): into the mirror (`out` 0)
 * or out of it (`out` 1). */
static hodu_status move_part(hodu_device *device, const hodu_tensor *tensor,
                             uint64_t at, hodu_buffer *mirror,
                             uint64_t in_mirror, uint64_t bytes, int out) {
  if (!bytes)
    return NULL;
  uint8_t *host = hodu_tensor_device(tensor) ? NULL : hodu_tensor_data(tensor);
  hodu_binding tensor_part = binding_of(hodu_tensor_buffer(tensor), at, bytes);
  hodu_binding mirror_part = binding_of(mirror, in_mirror, bytes);
  if (out)
    return host ? device->ops->read(device->instance, mirror, in_mirror,
                                    host + at, bytes)
                : device->ops->copy(device->instance, &mirror_part,
                                    &tensor_part, bytes);
  return host ? device->ops->write(device->instance, mirror, in_mirror,
                                   host + at, bytes)
              : device->ops->copy(device->instance, &tensor_part, &mirror_part,
                                  bytes);
}

/* Input or output `i` (`out`) of pass [off, off + rows) of the chunked
 * symbol, for a tensor with a padded dim: the box of its real extents --
 * the padded dim's scale * n / divisor + offset, the chunked dim's rows,
 * every other dim whole -- between the tensor and its mirror at the
 * bound, one copy per row of the innermost symbolic dim. An input's mirror
 * holds zeros past the box: past the real extent up to where the last
 * pass wrote (`padded_rows`), and past a partial chunk. */
static hodu_status box_copy(hodu_session *s, uint32_t i, int out, int64_t off,
                            int64_t rows) {
  const hodu_plan *plan = s->plan;
  uint32_t index = (out ? plan->num_inputs : 0) + i;
  const hodu_plan_tensor *t = &plan->tensors[index];
  hodu_device *device = tensor_device(s, index);
  hodu_buffer *mirror = out ? s->output_mirrors[i] : s->input_mirrors[i];
  const hodu_tensor *tensor = out ? s->outputs[i] : s->inputs[i];
  int32_t rank = t->desc.rank, pd = t->pad_dim, cd = t->chunk_dim;
  const int64_t *S = t->bound_shape;
  /* The box and the caller's extents, and both layouts' strides. */
  int64_t box[HODU_BUNDLE_MAX_RANK], caller[HODU_BUNDLE_MAX_RANK];
  uint64_t in_mirror[HODU_BUNDLE_MAX_RANK], in_tensor[HODU_BUNDLE_MAX_RANK];
  int64_t ext = padded_extent(t, s->symbol_values[plan->pad_symbol]);
  for (int32_t d = 0; d < rank; ++d)
    box[d] = caller[d] = S[d];
  box[pd] = caller[pd] = ext;
  uint64_t start = 0; /* the pass's first unit along the chunked dim */
  if (cd >= 0) {
    box[cd] = rows * t->chunk_scale;
    caller[cd] = s->symbol_values[plan->chunk_symbol] * t->chunk_scale;
    start = (uint64_t)(off * t->chunk_scale);
  }
  uint64_t size = hodu_dtype_size((hodu_dtype)t->desc.dtype);
  for (int32_t d = rank - 1; d >= 0; --d) {
    in_mirror[d] = size;
    in_tensor[d] =
        d + 1 < rank ? in_tensor[d + 1] * (uint64_t)caller[d + 1] : size;
    size = in_mirror[d] * (uint64_t)S[d];
  }
  int32_t k = cd > pd ? cd : pd;      /* the innermost symbolic dim */
  int32_t j = cd >= 0 && cd < pd ? cd /* the outer one, if two */
              : cd > pd          ? pd
                                 : -1;
  uint64_t stale = out ? 0 : (uint64_t)s->padded_rows[i];
  int partial = cd >= 0 && box[cd] < S[cd];
  /* The rows: every index of the box's dims before k. */
  int64_t idx[HODU_BUNDLE_MAX_RANK] = {0}, count = 1;
  for (int32_t d = 0; d < k; ++d)
    count *= box[d];
  hodu_status status = NULL;
  for (int64_t r = 0; r < count && !status; ++r) {
    uint64_t at = 0, base = 0;
    for (int32_t d = 0; d < k; ++d) {
      at += ((uint64_t)idx[d] + (d == cd ? start : 0)) * in_tensor[d];
      base += (uint64_t)idx[d] * in_mirror[d];
    }
    if (k == cd)
      at += start * in_tensor[k];
    uint64_t real = (uint64_t)box[k] * in_mirror[k];
    status = move_part(device, tensor, at, mirror, base, real, out);
    /* What an input's mirror holds past the box along k. */
    uint64_t upto = 0;
    if (!out && k == pd && stale > (uint64_t)ext)
      upto = (stale < (uint64_t)S[k] ? stale : (uint64_t)S[k]) * in_mirror[k];
    if (!out && k == cd && partial)
      upto = (uint64_t)S[k] * in_mirror[k];
    if (!status && upto > real)
      status = write_zeros(device, mirror, base + real, upto - real);
    for (int32_t d = k - 1; d >= 0; --d) {
      if (++idx[d] < box[d])
        break;
      idx[d] = 0;
    }
  }
  /* Past the box along the outer symbolic dim: whole slabs, per index of
   * the (static) dims before it. */
  uint64_t from = 0, upto = 0;
  if (!out && j == pd && stale > (uint64_t)ext) {
    from = (uint64_t)ext;
    upto = stale < (uint64_t)S[j] ? stale : (uint64_t)S[j];
  }
  if (!out && j >= 0 && j == cd && partial) {
    from = (uint64_t)box[j];
    upto = (uint64_t)S[j];
  }
  if (upto > from) {
    int64_t slabs = 1;
    for (int32_t d = 0; d < j; ++d)
      slabs *= S[d];
    uint64_t block = j > 0 ? in_mirror[j - 1] : size;
    for (int64_t b = 0; b < slabs && !status; ++b)
      status =
          write_zeros(device, mirror, (uint64_t)b * block + from * in_mirror[j],
                      (upto - from) * in_mirror[j]);
  }
  return status;
}

/* One pass's units [off, off + rows) of a chunked tensor without a padded
 * dim between it and its mirror: an input's into its mirror (`out` 0; a
 * partial chunk's rows past the real ones repeat the last, pad_block), or
 * an output's real units from its mirror into it (`out` 1). */
static hodu_status chunk_copy(hodu_session *s, uint32_t i, int out, int64_t off,
                              int64_t rows) {
  const hodu_plan *plan = s->plan;
  uint32_t index = (out ? plan->num_inputs : 0) + i;
  const hodu_plan_tensor *t = &plan->tensors[index];
  int64_t n = s->symbol_values[plan->chunk_symbol], chunk = plan->chunk;
  hodu_device *device = tensor_device(s, index);
  hodu_buffer *mirror = out ? s->output_mirrors[i] : s->input_mirrors[i];
  const hodu_tensor *tensor = out ? s->outputs[i] : s->inputs[i];
  for (uint64_t b = 0; b < t->outer; ++b) {
    uint64_t at = ((uint64_t)n * b + (uint64_t)off) * t->unit;
    uint64_t in_mirror = b * (uint64_t)chunk * t->unit;
    uint64_t bytes = (uint64_t)rows * t->unit;
    hodu_status status =
        move_part(device, tensor, at, mirror, in_mirror, bytes, out);
    if (!status && !out && rows < chunk)
      status = pad_block(device, mirror, in_mirror, t->unit, rows, chunk);
    if (status)
      return status;
  }
  return NULL;
}

/* One pass's copies between the tensors with symbols and their mirrors
 * (inputs in, `out` 0; outputs out, `out` 1), the chunked symbol's units
 * [off, off + rows); before it, a padded symbol's value goes to its meta
 * slot. */
static hodu_status pass_copy(hodu_session *s, int64_t off, int64_t rows,
                             int out) {
  const hodu_plan *plan = s->plan;
  if (!plan->num_symbols)
    return NULL;
  hodu_status status = NULL;
  if (!out && plan->padded) {
    int64_t n = s->symbol_values[plan->pad_symbol];
    uint32_t slot = plan->num_inputs + plan->num_outputs + plan->value_slot;
    hodu_device *device = tensor_device(s, slot);
    status = device->ops->write(device->instance, s->owned[plan->value_slot], 0,
                                &n, sizeof n);
  }
  uint32_t count = out ? plan->num_outputs : plan->num_inputs;
  for (uint32_t i = 0; i < count && !status; ++i) {
    const hodu_plan_tensor *t =
        &plan->tensors[(out ? plan->num_inputs : 0) + i];
    if (!t->unit)
      continue;
    if (t->pad_dim >= 0) {
      status = box_copy(s, i, out, off, rows);
      if (!status && !out)
        s->padded_rows[i] =
            padded_extent(t, s->symbol_values[plan->pad_symbol]);
    } else {
      status = chunk_copy(s, i, out, off, rows);
    }
  }
  return status;
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
  for (uint32_t i = 0; i < s->num_segments && !status; ++i) {
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
  int64_t passes = num_passes(s), chunk = s->plan->chunk;
  for (int64_t k = 0; k < passes && !status; ++k) {
    int64_t off = k * chunk, rows = pass_rows(s, off);
    status = pass_copy(s, off, rows, 0);
    if (!status)
      status = run_once(s, 0);
    if (!status)
      status = pass_copy(s, off, rows, 1);
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
  uint32_t done = 0;
  for (; done < s->num_segments && !status; ++done) {
    segment *seg = &s->segments[done];
    if (seg->transfer)
      continue;
    hodu_device *device = s->model->devices[seg->device];
    status = hodu_device_capture(device, seg->program);
  }
  if (status) {
    /* Undo the recordings made before the failure. */
    for (uint32_t i = 0; i + 1 < done; ++i) {
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
  int64_t passes = num_passes(s), chunk = s->plan->chunk;
  if (!status && passes == 1 && s->num_segments == 1 &&
      !s->segments[0].transfer) {
    /* One program and one pass: the device replays all `count` runs at
     * once. */
    int64_t rows = pass_rows(s, 0);
    hodu_exec_stats stats = {0, 0};
    hodu_device *device = s->model->devices[s->segments[0].device];
    status = pass_copy(s, 0, rows, 0);
    if (!status)
      status =
          hodu_device_replay(device, s->segments[0].program, count, &stats);
    if (!status)
      status = pass_copy(s, 0, rows, 1);
    s->stats.replay_submissions += stats.submissions;
  } else {
    for (int64_t i = 0; i < count && !status; ++i)
      for (int64_t k = 0; k < passes && !status; ++k) {
        int64_t off = k * chunk, rows = pass_rows(s, off);
        status = pass_copy(s, off, rows, 0);
        if (!status)
          status = run_once(s, 1);
        if (!status)
          status = pass_copy(s, off, rows, 1);
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
  for (uint32_t i = 0; i < s->num_segments; ++i) {
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
  if (write && !state && plan->padded && (uint32_t)index == plan->value_slot)
    return hodu_make_status(
        HODU_INVALID_ARGUMENT,
        "meta slot '%s' holds the value of symbol '%s', which the runtime "
        "writes at each run from the inputs' shapes",
        t->desc.name, plan->symbols[plan->pad_symbol].name);
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
  memcpy(stats, &s->stats, size);
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
