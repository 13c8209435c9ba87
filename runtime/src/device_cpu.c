/*===- device_cpu.c - the host as a device
 *----------------------------------===*
 *
 * Buffers are host memory. Code is either a model descriptor's entry (the
 * internal ENTRY step of a shared-library model: today's path, unchanged)
 * or the ELF code object of a bundle's CPU device, loaded from memory
 * through a memfd and dlopen, whose kernels are called by HOST_CALL steps.
 * A program is the step list with every address resolved; capture keeps it
 * as it is and replay runs it again with no checks at all.
 *
 *===----------------------------------------------------------------------===*/
#include "device.h"
#include "internal.h"
#include "symbols.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct hodu_device_buffer {
  void *data;
  uint64_t size;
};

typedef int32_t (*host_call_fn)(void *const *buffers);

struct hodu_device_code {
  void *library;               /* dlopen handle of the ELF code object */
  host_call_fn *functions;     /* per plan kernel (NULL for other devices) */
  const hodu_model_desc *desc; /* ENTRY steps */
  const char *checks;          /* HODU_HOST_CHECKS_SYMBOL, or NULL */
  int32_t num_checks;          /* HODU_HOST_NUM_CHECKS_SYMBOL */
};

typedef struct cpu_step {
  uint32_t op;
  host_call_fn function; /* HOST_CALL */
  void **pointers;       /* the args' addresses */
  uint32_t num_pointers;
  uint32_t num_inputs; /* ENTRY: inputs + meta slots, then outputs */
  uint64_t size;       /* COPY */
  uint64_t arena_size; /* ENTRY */
} cpu_step;

struct hodu_device_program {
  const hodu_code *code;
  const hodu_device_plan *plan;
  cpu_step *steps;
  uint32_t num_steps;
  void **pointers; /* storage for every step's pointers */
  /* ENTRY steps: the session's symbol values (NULL without symbols), read
   * at every run, so a session re-bound at other values runs them. */
  const int64_t *symbol_values;
  int captured;
};

/* The host has one instance, which holds nothing. */
static char cpu_instance;

static void cpu_close(hodu_device_instance *device) { (void)device; }

static hodu_status cpu_buffer_create(hodu_device_instance *device,
                                     uint64_t size, hodu_buffer **out) {
  (void)device;
  *out = NULL;
  uint64_t rounded = (size + 63) / 64 * 64;
  if (size > SIZE_MAX - 64 || rounded < size)
    return hodu_make_status(HODU_OUT_OF_MEMORY,
                            "cannot allocate %llu bytes of host memory",
                            (unsigned long long)size);
  hodu_buffer *buffer = calloc(1, sizeof *buffer);
  void *data = aligned_alloc(64, rounded ? (size_t)rounded : 64);
  if (!buffer || !data) {
    free(buffer);
    free(data);
    return hodu_make_status(HODU_OUT_OF_MEMORY,
                            "cannot allocate %llu bytes of host memory",
                            (unsigned long long)size);
  }
  memset(data, 0, rounded ? (size_t)rounded : 64);
  buffer->data = data;
  buffer->size = size;
  *out = buffer;
  return NULL;
}

static void cpu_buffer_free(hodu_device_instance *device, hodu_buffer *buffer) {
  (void)device;
  if (!buffer)
    return;
  free(buffer->data);
  free(buffer);
}

static void *cpu_buffer_host(hodu_buffer *buffer) { return buffer->data; }

static hodu_status cpu_write(hodu_device_instance *device, hodu_buffer *buffer,
                             uint64_t offset, const void *data, uint64_t size) {
  (void)device;
  if (size)
    memcpy((uint8_t *)buffer->data + offset, data, (size_t)size);
  return NULL;
}

static hodu_status cpu_read(hodu_device_instance *device, hodu_buffer *buffer,
                            uint64_t offset, void *data, uint64_t size) {
  (void)device;
  if (size)
    memcpy(data, (uint8_t *)buffer->data + offset, (size_t)size);
  return NULL;
}

static hodu_status cpu_copy(hodu_device_instance *device,
                            const hodu_binding *from, const hodu_binding *to,
                            uint64_t size) {
  (void)device;
  uint8_t *source = hodu_binding_host(&hodu_cpu_device_table, from);
  uint8_t *target = hodu_binding_host(&hodu_cpu_device_table, to);
  if (size)
    memmove(target, source, (size_t)size);
  return NULL;
}

/* dlopen of an ELF image held in memory: written to an anonymous memfd
 * (never a file on disk), checked like a model library, then opened
 * through /proc/self/fd. */
static hodu_status load_elf(const uint8_t *bytes, uint64_t size,
                            const char *origin, void **library) {
  *library = NULL;
  int fd = memfd_create("hodu-cpu-code", MFD_CLOEXEC);
  if (fd < 0)
    return hodu_make_status(
        HODU_RUN_FAILED, "%s: cannot create a memfd for its CPU code", origin);
  uint64_t done = 0;
  while (done < size) {
    ssize_t wrote = write(fd, bytes + done, (size_t)(size - done));
    if (wrote <= 0)
      break;
    done += (uint64_t)wrote;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  hodu_status status = NULL;
  int cannot_open;
  const char *why = NULL;
  if (done != size) {
    status = hodu_make_status(HODU_RUN_FAILED,
                              "%s: cannot write its CPU code to a memfd",
                              origin);
  } else if (!(why = hodu_elf_file_problem(path, &cannot_open))) {
    *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (*library)
      hodu_fill_thread_api(*library);
    else if (!(why = dlerror()))
      why = "unknown reason";
  }
  if (why)
    status = hodu_make_status(HODU_INVALID_ARTIFACT,
                              "%s: its CPU code object cannot be loaded (%s)",
                              origin, why);
  close(fd);
  return status;
}

static void cpu_code_free(hodu_device_instance *device, hodu_code *code) {
  (void)device;
  if (!code)
    return;
  if (code->library)
    dlclose(code->library);
  free(code->functions);
  free(code);
}

static hodu_status cpu_code_load(hodu_device_instance *device,
                                 const hodu_device_plan *plan, uint32_t index,
                                 const char *origin, hodu_code **out) {
  *out = NULL;
  hodu_code *code = calloc(1, sizeof *code);
  if (!code)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  code->desc = plan->desc;
  int has_kernels = 0;
  for (uint32_t k = 0; k < plan->num_kernels; ++k)
    has_kernels |= plan->kernels[k].device == index;
  if (!has_kernels) {
    *out = code;
    return NULL;
  }
  const hodu_bundle_code *object = NULL;
  for (uint32_t c = 0; c < plan->num_codes && !object; ++c)
    if (plan->codes[c].device == index)
      object = &plan->codes[c];
  /* The reader guarantees a device with kernels has a code object. */
  hodu_status status = load_elf(plan->blobs + object->offset, object->size,
                                origin, &code->library);
  if (!status) {
    code->functions = calloc(plan->num_kernels, sizeof *code->functions);
    if (!code->functions)
      status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  if (!status) {
    const int32_t *count = dlsym(code->library, HODU_HOST_NUM_CHECKS_SYMBOL);
    code->checks = dlsym(code->library, HODU_HOST_CHECKS_SYMBOL);
    code->num_checks = count && code->checks && *count > 0 ? *count : 0;
  }
  for (uint32_t k = 0; k < plan->num_kernels && !status; ++k) {
    if (plan->kernels[k].device != index)
      continue;
    const char *name = plan->strings + plan->kernels[k].name;
    void *symbol = dlsym(code->library, name);
    if (!symbol)
      status = hodu_make_status(HODU_INVALID_ARTIFACT,
                                "%s: kernel '%s' is not exported by the CPU "
                                "code object",
                                origin, name);
    else
      memcpy(&code->functions[k], &symbol, sizeof symbol);
  }
  if (status) {
    cpu_code_free(device, code);
    return status;
  }
  *out = code;
  return NULL;
}

static void cpu_program_free(hodu_device_instance *device,
                             hodu_program *program) {
  (void)device;
  if (!program)
    return;
  free(program->steps);
  free(program->pointers);
  free(program);
}

static hodu_status
cpu_program_create(hodu_device_instance *device, hodu_code *code,
                   const hodu_device_plan *plan, uint32_t first, uint32_t count,
                   const hodu_binding *bindings, const int64_t *symbol_values,
                   hodu_program **out) {
  *out = NULL;
  hodu_program *program = calloc(1, sizeof *program);
  uint64_t total = 0;
  for (uint32_t s = first; s < first + count; ++s)
    total += plan->steps[s].num_args;
  if (program) {
    program->steps = calloc(count ? count : 1, sizeof *program->steps);
    program->pointers = calloc(total ? (size_t)total : 1, sizeof(void *));
  }
  if (!program || !program->steps || !program->pointers) {
    cpu_program_free(device, program);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  program->code = code;
  program->plan = plan;
  program->symbol_values = symbol_values;
  program->num_steps = count;
  void **next = program->pointers;
  for (uint32_t i = 0; i < count; ++i) {
    const hodu_bundle_step *step = &plan->steps[first + i];
    cpu_step *out_step = &program->steps[i];
    out_step->op = step->op;
    out_step->pointers = next;
    out_step->num_pointers = step->num_args;
    for (uint32_t a = 0; a < step->num_args; ++a)
      next[a] = hodu_binding_host(&hodu_cpu_device_table,
                                  &bindings[step->first_arg + a]);
    next += step->num_args;
    if (step->op == HODU_STEP_HOST_CALL)
      out_step->function = code->functions[step->kernel];
    else if (step->op == HODU_STEP_COPY)
      out_step->size = bindings[step->first_arg].size;
    else if (step->op == HODU_STEP_ENTRY_) {
      /* INPUT..., STATE_..., META..., OUTPUT..., STATE_NEXT_..., ARENA. */
      out_step->num_inputs =
          plan->num_inputs + plan->num_state + plan->num_meta;
      uint32_t tensors =
          out_step->num_inputs + plan->num_outputs + plan->num_state;
      out_step->arena_size = step->num_args > tensors
                                 ? bindings[step->first_arg + tensors].size
                                 : 0;
    }
  }
  *out = program;
  return NULL;
}

/* Message k of a CPU code object's run-time checks, or NULL (the object is
 * the bundle's own code, trusted as far as its functions that run). */
static const char *check_message(const hodu_code *code, int32_t k) {
  if (!code->checks || k < 0 || k >= code->num_checks)
    return NULL;
  const char *m = code->checks;
  for (int32_t i = 0; i < k; ++i)
    m += strlen(m) + 1;
  return m;
}

static hodu_status run_steps(const hodu_program *program, int32_t threads) {
  for (uint32_t i = 0; i < program->num_steps; ++i) {
    const cpu_step *step = &program->steps[i];
    int32_t result = 0;
    switch (step->op) {
    case HODU_STEP_ENTRY_: {
      uint32_t tensors = step->num_inputs + program->plan->num_outputs +
                         program->plan->num_state;
      const int64_t *values = program->symbol_values;
      hodu_run_context context = {
          sizeof(hodu_run_context),
          threads,
          NULL,
          0,
          values,
          values ? hodu_desc_num_symbols(program->code->desc) : 0};
      if (step->num_pointers > tensors) {
        context.workspace = step->pointers[tensors];
        context.workspace_size = step->arena_size;
      }
      hodu_threads_run_begin(program->code->desc, threads);
      result = program->code->desc->entry(
          step->pointers, step->pointers + step->num_inputs, &context);
      hodu_threads_run_end();
      break;
    }
    case HODU_STEP_HOST_CALL:
      result = step->function(step->pointers);
      break;
    case HODU_STEP_COPY:
      memmove(step->pointers[1], step->pointers[0], (size_t)step->size);
      break;
    }
    if (result != 0 && step->op == HODU_STEP_ENTRY_)
      return hodu_entry_failure(program->code->desc, program->plan->name,
                                result);
    const char *check = result >= 2 && step->op == HODU_STEP_HOST_CALL
                            ? check_message(program->code, result - 2)
                            : NULL;
    if (check)
      return hodu_make_status(HODU_RUN_FAILED,
                              "model '%s': the input data breaks a run-time "
                              "check: %s",
                              program->plan->name, check);
    if (result != 0)
      return hodu_make_status(
          HODU_RUN_FAILED, "model '%s' failed: its %s returned %d",
          program->plan->name,
          step->op == HODU_STEP_ENTRY_ ? "entry" : "host call", (int)result);
  }
  return NULL;
}

static hodu_status cpu_program_run(hodu_device_instance *device,
                                   hodu_program *program,
                                   hodu_exec_stats *stats) {
  (void)device;
  stats->submissions += program->num_steps;
  stats->commands += program->num_steps;
  return run_steps(program, hodu_effective_num_threads());
}

static hodu_status cpu_program_capture(hodu_device_instance *device,
                                       hodu_program *program) {
  (void)device;
  program->captured = 1; /* the resolved step list is the recording */
  return NULL;
}

static hodu_status cpu_program_replay(hodu_device_instance *device,
                                      hodu_program *program, int64_t count,
                                      hodu_exec_stats *stats) {
  (void)device;
  int32_t threads = hodu_effective_num_threads();
  for (int64_t i = 0; i < count; ++i) {
    hodu_status status = run_steps(program, threads);
    if (status)
      return status;
  }
  stats->submissions += (uint64_t)count * program->num_steps;
  return NULL;
}

static void cpu_program_release_capture(hodu_device_instance *device,
                                        hodu_program *program) {
  (void)device;
  program->captured = 0;
}

static hodu_status cpu_count(int32_t *count) {
  *count = 1;
  return NULL;
}

static hodu_status cpu_open(int32_t ordinal, hodu_device_instance **out) {
  *out = NULL;
  if (ordinal != 0)
    return hodu_make_status(HODU_NO_DEVICE,
                            "no CPU device %d: the host is CPU device 0",
                            (int)ordinal);
  *out = (hodu_device_instance *)&cpu_instance;
  return NULL;
}

static hodu_status cpu_describe(hodu_device_instance *device,
                                hodu_device_info *out) {
  (void)device;
  snprintf(out->name, sizeof out->name, "host CPU");
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  out->memory_bytes =
      pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  return NULL;
}

static const uint32_t cpu_formats[] = {HODU_CODE_ELF, 0};

const hodu_device_ops hodu_cpu_device_table = {
    .struct_size = sizeof(hodu_device_ops),
    .name = "cpu",
    .code_formats = cpu_formats,
    .count = cpu_count,
    .open = cpu_open,
    .describe = cpu_describe,
    .close = cpu_close,
    .buffer_create = cpu_buffer_create,
    .buffer_free = cpu_buffer_free,
    .buffer_host = cpu_buffer_host,
    .write = cpu_write,
    .read = cpu_read,
    .copy = cpu_copy,
    .code_load = cpu_code_load,
    .code_free = cpu_code_free,
    .program_create = cpu_program_create,
    .program_free = cpu_program_free,
    .program_run = cpu_program_run,
    .program_capture = cpu_program_capture,
    .program_replay = cpu_program_replay,
    .program_release_capture = cpu_program_release_capture};
