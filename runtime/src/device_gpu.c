/*===- device_gpu.c - the device vtable for CUDA and HIP
 *---------------------===*
 *
 * Buffers are device pointers. Code: the first of the plan device's code
 * objects, in the order the API prefers for this device (CUDA: the cubin
 * of its sm_XY, then a fatbin, then PTX; HIP: the hsaco the runtime
 * accepts for its gfx arch), loaded from memory, with one function per
 * kernel. A program holds each launch's parameters (one device pointer per
 * argument) and a stream of its own. An eager run launches every kernel
 * from the host and synchronises; capture records the same launches into a
 * graph by stream capture and instantiates it; replay(n) launches the
 * graph n times and synchronises once.
 *
 *===----------------------------------------------------------------------===*/
#include "gpu.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hodu_device_buffer {
  uint64_t pointer;
  uint64_t size;
};

struct hodu_device_code {
  void *module;
  void **functions; /* per plan kernel */
};

typedef struct gpu_step {
  uint32_t op;
  void *function;
  uint32_t grid[3], block[3], shared;
  uint64_t *values;        /* LAUNCH: the argument pointers */
  void **params;           /* pointers to `values`, as cuLaunchKernel wants */
  uint64_t from, to, size; /* COPY */
} gpu_step;

struct hodu_device_program {
  gpu_step *steps;
  uint32_t num_steps;
  uint64_t *values;
  void **params;
  void *stream;
  void *graph;
  void *exec;
};

hodu_status hodu_gpu_error(const gpu_device *device, const char *what,
                           int error) {
  char text[256];
  device->api->describe(error, text, sizeof text);
  return hodu_make_status(strstr(text, "OUT_OF_MEMORY") ||
                                  strstr(text, "OutOfMemory")
                              ? HODU_OUT_OF_MEMORY
                              : HODU_DEVICE_ERROR,
                          "%s device '%s': %s failed (%s)", device->api->name,
                          device->base.name, what, text);
}

#define CALL(device, what, expr)                                               \
  do {                                                                         \
    int error_ = (expr);                                                       \
    if (error_)                                                                \
      return hodu_gpu_error((device), (what), error_);                         \
  } while (0)

static void gpu_destroy(hodu_device_instance *base) {
  gpu_device *device = (gpu_device *)base;
  device->api->close(device);
}

static hodu_status gpu_buffer_create(hodu_device_instance *base, uint64_t size,
                                     hodu_buffer **out) {
  gpu_device *device = (gpu_device *)base;
  *out = NULL;
  hodu_buffer *buffer = calloc(1, sizeof *buffer);
  if (!buffer)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  buffer->size = size;
  uint64_t rounded = size < 256 ? 256 : size;
  int error = device->api->make_current(device);
  if (!error)
    error = device->api->alloc(&buffer->pointer, rounded);
  if (!error)
    error = device->api->zero(buffer->pointer, rounded);
  if (error) {
    if (buffer->pointer)
      device->api->free(buffer->pointer);
    free(buffer);
    return hodu_gpu_error(device, "allocating device memory", error);
  }
  *out = buffer;
  return NULL;
}

static void gpu_buffer_free(hodu_device_instance *base, hodu_buffer *buffer) {
  gpu_device *device = (gpu_device *)base;
  if (!buffer)
    return;
  if (!device->api->make_current(device))
    device->api->free(buffer->pointer);
  free(buffer);
}

static void *gpu_buffer_host(hodu_buffer *buffer) {
  (void)buffer;
  return NULL;
}

static hodu_status gpu_write(hodu_device_instance *base, hodu_buffer *buffer,
                             uint64_t offset, const void *data, uint64_t size) {
  gpu_device *device = (gpu_device *)base;
  if (!size)
    return NULL;
  CALL(device, "setting the context", device->api->make_current(device));
  CALL(device, "copying to the device",
       device->api->to_device(buffer->pointer + offset, data, size));
  return NULL;
}

static hodu_status gpu_read(hodu_device_instance *base, hodu_buffer *buffer,
                            uint64_t offset, void *data, uint64_t size) {
  gpu_device *device = (gpu_device *)base;
  if (!size)
    return NULL;
  CALL(device, "setting the context", device->api->make_current(device));
  CALL(device, "copying from the device",
       device->api->to_host(data, buffer->pointer + offset, size));
  return NULL;
}

static hodu_status gpu_copy(hodu_device_instance *base,
                            const hodu_binding *from, const hodu_binding *to,
                            uint64_t size) {
  gpu_device *device = (gpu_device *)base;
  if (!size)
    return NULL;
  CALL(device, "setting the context", device->api->make_current(device));
  CALL(device, "copying on the device",
       device->api->on_device(to->buffer->pointer + to->offset,
                              from->buffer->pointer + from->offset, size));
  return NULL;
}

static void gpu_code_free(hodu_device_instance *base, hodu_code *code) {
  gpu_device *device = (gpu_device *)base;
  if (!code)
    return;
  if (code->module && !device->api->make_current(device))
    device->api->module_unload(code->module);
  free(code->functions);
  free(code);
}

static hodu_status gpu_code_load(hodu_device_instance *base,
                                 const hodu_device_plan *plan, uint32_t index,
                                 const char *origin, hodu_code **out) {
  gpu_device *device = (gpu_device *)base;
  *out = NULL;
  hodu_code *code = calloc(1, sizeof *code);
  if (!code)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  int has_kernels = 0;
  for (uint32_t k = 0; k < plan->num_kernels; ++k)
    has_kernels |= plan->kernels[k].device == index;
  if (!has_kernels) {
    *out = code;
    return NULL;
  }
  code->functions = calloc(plan->num_kernels, sizeof *code->functions);
  uint32_t *order =
      calloc(plan->num_codes ? plan->num_codes : 1, sizeof *order);
  if (!code->functions || !order) {
    free(order);
    gpu_code_free(base, code);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  uint32_t candidates = device->api->order_codes(device, plan, index, order);
  hodu_status status = NULL;
  int error = device->api->make_current(device);
  if (error)
    status = hodu_gpu_error(device, "setting the context", error);
  char tried[512] = "";
  size_t used = 0;
  for (uint32_t i = 0; i < candidates && !status && !code->module; ++i) {
    const hodu_bundle_code *object = &plan->codes[order[i]];
    /* PTX must be a NUL-terminated string: the reader checked it. */
    error =
        device->api->module_load(&code->module, plan->blobs + object->offset);
    if (error) {
      code->module = NULL;
      char text[160];
      device->api->describe(error, text, sizeof text);
      int n = snprintf(tried + used, sizeof tried - used, "%s%s %s: %s",
                       used ? "; " : "", hodu_code_format_name(object->format),
                       plan->strings + object->arch, text);
      if (n > 0 && (size_t)n < sizeof tried - used)
        used += (size_t)n;
    }
  }
  free(order);
  if (!status && !code->module) {
    char available[256] = "";
    size_t have = 0;
    for (uint32_t c = 0; c < plan->num_codes; ++c) {
      if (plan->codes[c].device != index)
        continue;
      int n = snprintf(available + have, sizeof available - have, "%s%s %s",
                       have ? ", " : "",
                       hodu_code_format_name(plan->codes[c].format),
                       plan->strings + plan->codes[c].arch);
      if (n > 0 && (size_t)n < sizeof available - have)
        have += (size_t)n;
    }
    status = hodu_make_status(
        HODU_INCOMPATIBLE,
        "%s: no code object fits %s device '%s'%s%s (the bundle has: %s)%s%s",
        origin, device->api->name, device->base.name,
        device->arch[0] ? ", arch " : "", device->arch,
        have ? available : "none", used ? "; tried " : "", tried);
  }
  for (uint32_t k = 0; k < plan->num_kernels && !status; ++k) {
    const hodu_bundle_kernel *kernel = &plan->kernels[k];
    if (kernel->device != index)
      continue;
    const char *name = plan->strings + kernel->name;
    error = device->api->function(&code->functions[k], code->module, name);
    if (error) {
      char text[160];
      device->api->describe(error, text, sizeof text);
      status = hodu_make_status(HODU_INVALID_ARTIFACT,
                                "%s: kernel '%s' is not in its %s module (%s)",
                                origin, name, device->api->name, text);
    } else if (kernel->shared_bytes > 48 * 1024 && device->api->allow_shared) {
      error =
          device->api->allow_shared(code->functions[k], kernel->shared_bytes);
      if (error)
        status = hodu_gpu_error(device, "allowing a kernel its shared memory",
                                error);
    }
  }
  if (status) {
    gpu_code_free(base, code);
    return status;
  }
  *out = code;
  return NULL;
}

static void gpu_program_release_capture(hodu_device_instance *base,
                                        hodu_program *program) {
  gpu_device *device = (gpu_device *)base;
  if (device->api->make_current(device))
    return;
  if (program->exec)
    device->api->exec_destroy(program->exec);
  if (program->graph)
    device->api->graph_destroy(program->graph);
  program->exec = NULL;
  program->graph = NULL;
}

static void gpu_program_free(hodu_device_instance *base,
                             hodu_program *program) {
  gpu_device *device = (gpu_device *)base;
  if (!program)
    return;
  gpu_program_release_capture(base, program);
  if (program->stream && !device->api->make_current(device))
    device->api->stream_destroy(program->stream);
  free(program->steps);
  free(program->values);
  free(program->params);
  free(program);
}

static hodu_status
gpu_program_create(hodu_device_instance *base, hodu_code *code,
                   const hodu_device_plan *plan, uint32_t first, uint32_t count,
                   const hodu_binding *bindings, const int64_t *symbol_values,
                   hodu_program **out) {
  (void)symbol_values; /* bundle steps never read them */
  gpu_device *device = (gpu_device *)base;
  *out = NULL;
  hodu_program *program = calloc(1, sizeof *program);
  uint64_t total = 0;
  for (uint32_t s = first; s < first + count; ++s)
    total += plan->steps[s].num_args;
  if (program) {
    program->steps = calloc(count ? count : 1, sizeof *program->steps);
    program->values = calloc(total ? (size_t)total : 1, sizeof(uint64_t));
    program->params = calloc(total ? (size_t)total : 1, sizeof(void *));
  }
  if (!program || !program->steps || !program->values || !program->params) {
    gpu_program_free(base, program);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  program->num_steps = count;
  int error = device->api->make_current(device);
  if (!error)
    error = device->api->stream_create(&program->stream);
  if (error) {
    program->stream = NULL;
    gpu_program_free(base, program);
    return hodu_gpu_error(device, "creating a stream", error);
  }
  uint64_t *values = program->values;
  void **params = program->params;
  for (uint32_t i = 0; i < count; ++i) {
    const hodu_bundle_step *step = &plan->steps[first + i];
    const hodu_binding *args = &bindings[step->first_arg];
    gpu_step *out_step = &program->steps[i];
    out_step->op = step->op;
    if (step->op == HODU_STEP_COPY) {
      out_step->from = args[0].buffer->pointer + args[0].offset;
      out_step->to = args[1].buffer->pointer + args[1].offset;
      out_step->size = args[0].size;
      continue;
    }
    const hodu_bundle_kernel *kernel = &plan->kernels[step->kernel];
    out_step->function = code->functions[step->kernel];
    memcpy(out_step->grid, step->grid, sizeof out_step->grid);
    memcpy(out_step->block, kernel->block, sizeof out_step->block);
    out_step->shared = kernel->shared_bytes;
    out_step->values = values;
    out_step->params = params;
    for (uint32_t a = 0; a < step->num_args; ++a) {
      values[a] = args[a].buffer->pointer + args[a].offset;
      params[a] = &values[a];
    }
    values += step->num_args;
    params += step->num_args;
  }
  *out = program;
  return NULL;
}

/* Issues every step on the program's stream. */
static int issue(gpu_device *device, hodu_program *program) {
  for (uint32_t i = 0; i < program->num_steps; ++i) {
    gpu_step *step = &program->steps[i];
    int error =
        step->op == HODU_STEP_COPY
            ? device->api->on_device_async(step->to, step->from, step->size,
                                           program->stream)
            : device->api->launch(step->function, step->grid, step->block,
                                  step->shared, program->stream, step->params);
    if (error)
      return error;
  }
  return 0;
}

static hodu_status gpu_program_run(hodu_device_instance *base,
                                   hodu_program *program,
                                   hodu_exec_stats *stats) {
  gpu_device *device = (gpu_device *)base;
  CALL(device, "setting the context", device->api->make_current(device));
  CALL(device, "launching a kernel", issue(device, program));
  stats->submissions += program->num_steps;
  stats->commands += program->num_steps;
  CALL(device, "running the model", device->api->stream_sync(program->stream));
  return NULL;
}

static hodu_status gpu_program_capture(hodu_device_instance *base,
                                       hodu_program *program) {
  gpu_device *device = (gpu_device *)base;
  CALL(device, "setting the context", device->api->make_current(device));
  CALL(device, "beginning the stream capture",
       device->api->begin_capture(program->stream));
  int error = issue(device, program);
  void *graph = NULL;
  int ended = device->api->end_capture(program->stream, &graph);
  if (error || ended) {
    if (graph)
      device->api->graph_destroy(graph);
    return hodu_gpu_error(device, "capturing the plan", error ? error : ended);
  }
  program->graph = graph;
  error = device->api->instantiate(&program->exec, graph);
  if (error) {
    program->exec = NULL;
    gpu_program_release_capture(base, program);
    return hodu_gpu_error(device, "instantiating the graph", error);
  }
  return NULL;
}

static hodu_status gpu_program_replay(hodu_device_instance *base,
                                      hodu_program *program, int64_t count,
                                      hodu_exec_stats *stats) {
  gpu_device *device = (gpu_device *)base;
  CALL(device, "setting the context", device->api->make_current(device));
  for (int64_t i = 0; i < count; ++i) {
    int error = device->api->graph_launch(program->exec, program->stream);
    if (error)
      return hodu_gpu_error(device, "launching the graph", error);
    ++stats->submissions;
  }
  CALL(device, "running the graph", device->api->stream_sync(program->stream));
  return NULL;
}

static hodu_status gpu_describe(hodu_device_instance *base,
                                hodu_device_info *out) {
  gpu_device *device = (gpu_device *)base;
  snprintf(out->name, sizeof out->name, "%s", device->base.name);
  out->memory_bytes = 0; /* not asked of the driver */
  snprintf(out->driver, sizeof out->driver, "%s", device->driver);
  return NULL;
}

/* The table of a GPU API: its own count and open, the shared rest. */
#define GPU_TABLE(NAME, FORMATS, COUNT, OPEN)                                  \
  {                                                                            \
    .struct_size = sizeof(hodu_device_ops), .name = NAME,                      \
    .code_formats = FORMATS, .count = COUNT, .open = OPEN,                     \
    .describe = gpu_describe, .close = gpu_destroy,                            \
    .buffer_create = gpu_buffer_create, .buffer_free = gpu_buffer_free,        \
    .buffer_host = gpu_buffer_host, .write = gpu_write, .read = gpu_read,      \
    .copy = gpu_copy, .code_load = gpu_code_load, .code_free = gpu_code_free,  \
    .program_create = gpu_program_create, .program_free = gpu_program_free,    \
    .program_run = gpu_program_run, .program_capture = gpu_program_capture,    \
    .program_replay = gpu_program_replay,                                      \
    .program_release_capture = gpu_program_release_capture                     \
  }

static const uint32_t cuda_formats[] = {HODU_CODE_PTX, HODU_CODE_CUBIN,
                                        HODU_CODE_FATBIN, 0};
static const uint32_t hip_formats[] = {HODU_CODE_HSACO, 0};

const hodu_device_ops hodu_cuda_device_table = GPU_TABLE(
    "cuda", cuda_formats, hodu_cuda_device_count, hodu_cuda_device_open);
const hodu_device_ops hodu_hip_device_table =
    GPU_TABLE("hip", hip_formats, hodu_hip_device_count, hodu_hip_device_open);

void hodu_gpu_device_init(gpu_device *device, const gpu_api *api) {
  device->api = api;
}
