/*===- nulldev_device.c - a device plugin on host memory (test) ------------===*
 *
 * `nulldev` (the seed-003 test device): a device plugin whose memory is
 * malloc'ed host memory and whose code objects are host shared libraries
 * (HODU_CODE_ELF), loaded through a memfd and called by HOST_CALL steps as
 * `int32_t f(void *const *buffers)`, like libhodurt's CPU partitions. It
 * runs a bundle whose DEVICES entry names it (kind HODU_DEVICE_PLUGIN,
 * name "nulldev").
 *
 * Options (manifest "options" or HODU_PLUGIN_NULLDEV_<KEY>), which make
 * selection's verdicts certain without a real device:
 *   delay_us      sleep this long in every program run (a slower device);
 *   memory_bytes  the device's memory: describe reports it, and a buffer
 *                 that would take the device past it is OUT_OF_MEMORY;
 *   devices       how many devices it has (default 1);
 *   driver        the driver version describe reports (default 1).
 *
 * It has no capture calls, so the host's fallback (a replay runs the
 * program) is what captured sessions use on it. Broken variants for the
 * ABI tests are built with NULLDEV_NO_COPY, NULLDEV_HALF_CAPTURE and
 * NULLDEV_NAME; NULLDEV_SPIRV claims SPIR-V code (for hoduc's side).
 *
 * Only hodu/plugin.h is used: it links nothing of Hodu.
 *
 *===----------------------------------------------------------------------===*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "hodu/plugin.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef NULLDEV_ID
#define NULLDEV_ID "nulldev"
#endif
#ifndef NULLDEV_NAME
#define NULLDEV_NAME "nulldev"
#endif

static const hodu_host_api *host;

static hodu_status fail(hodu_status_code code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static hodu_status fail(hodu_status_code code, const char *format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return host->make_status(code, text);
}

static long long option(const char *key, long long fallback) {
  const char *text = host->get_option(NULLDEV_ID, key);
  if (!text || !*text)
    return fallback;
  char *end;
  long long value = strtoll(text, &end, 10);
  return *end || value < 0 ? fallback : value;
}

struct hodu_device_instance {
  int32_t ordinal;
  uint64_t memory_bytes; /* 0: unlimited */
  uint64_t delay_us;
  _Atomic uint64_t used;
};

struct hodu_device_buffer {
  void *data;
  uint64_t size;
};

typedef int32_t (*host_call_fn)(void *const *buffers);

struct hodu_device_code {
  void *library;
  host_call_fn *functions; /* per plan kernel; NULL for other devices' */
};

typedef struct step {
  uint32_t op;
  host_call_fn function;
  const char *kernel;
  void **pointers;
  uint32_t num_pointers;
  uint64_t size; /* COPY */
} step;

struct hodu_device_program {
  step *steps;
  uint32_t num_steps;
  void **pointers;
};

static hodu_status count_devices(int32_t *count) {
  *count = (int32_t)option("devices", 1);
  return NULL;
}

static hodu_status open_device(int32_t ordinal, hodu_device_instance **out) {
  int32_t n;
  count_devices(&n);
  if (ordinal >= n)
    return fail(HODU_NO_DEVICE, "no nulldev %d: there %s %d", (int)ordinal,
                n == 1 ? "is" : "are", (int)n);
  hodu_device_instance *d = calloc(1, sizeof *d);
  if (!d)
    return fail(HODU_OUT_OF_MEMORY, "out of memory");
  d->ordinal = ordinal;
  d->memory_bytes = (uint64_t)option("memory_bytes", 0);
  d->delay_us = (uint64_t)option("delay_us", 0);
  atomic_init(&d->used, 0);
  *out = d;
  return NULL;
}

static hodu_status describe(hodu_device_instance *d, hodu_device_info *out) {
  snprintf(out->name, sizeof out->name, "nulldev %d (host memory)",
           (int)d->ordinal);
  out->memory_bytes = d->memory_bytes;
  const char *driver = host->get_option(NULLDEV_ID, "driver");
  snprintf(out->driver, sizeof out->driver, "nulldev driver %s",
           driver ? driver : "1");
  return NULL;
}

static void close_device(hodu_device_instance *d) { free(d); }

static hodu_status buffer_create(hodu_device_instance *d, uint64_t size,
                                 hodu_device_buffer **out) {
  *out = NULL;
  uint64_t used = atomic_fetch_add(&d->used, size) + size;
  if (d->memory_bytes && used > d->memory_bytes) {
    atomic_fetch_sub(&d->used, size);
    return fail(HODU_OUT_OF_MEMORY,
                "nulldev %d: %llu more bytes would pass its %llu bytes",
                (int)d->ordinal, (unsigned long long)size,
                (unsigned long long)d->memory_bytes);
  }
  hodu_device_buffer *b = calloc(1, sizeof *b);
  void *data = size <= SIZE_MAX - 64 ? calloc(1, (size_t)size + 64) : NULL;
  if (!b || !data) {
    free(b);
    free(data);
    atomic_fetch_sub(&d->used, size);
    return fail(HODU_OUT_OF_MEMORY, "nulldev: cannot allocate %llu bytes",
                (unsigned long long)size);
  }
  b->data = data;
  b->size = size;
  *out = b;
  return NULL;
}

static void buffer_free(hodu_device_instance *d, hodu_device_buffer *b) {
  if (!b)
    return;
  atomic_fetch_sub(&d->used, b->size);
  free(b->data);
  free(b);
}

static void *buffer_host(hodu_device_buffer *b) { return b->data; }

/* The host checked every range against the plan; these check again, as a
 * device must not trust a caller's offsets into its memory. */
static hodu_status in_range(const hodu_device_buffer *b, uint64_t offset,
                            uint64_t size) {
  if (offset > b->size || size > b->size - offset)
    return fail(HODU_INVALID_ARGUMENT,
                "nulldev: %llu bytes at %llu lie outside a %llu-byte buffer",
                (unsigned long long)size, (unsigned long long)offset,
                (unsigned long long)b->size);
  return NULL;
}

static hodu_status write_buffer(hodu_device_instance *d, hodu_device_buffer *b,
                                uint64_t offset, const void *data,
                                uint64_t size) {
  (void)d;
  hodu_status status = in_range(b, offset, size);
  if (!status && size)
    memcpy((char *)b->data + offset, data, (size_t)size);
  return status;
}

static hodu_status read_buffer(hodu_device_instance *d, hodu_device_buffer *b,
                               uint64_t offset, void *data, uint64_t size) {
  (void)d;
  hodu_status status = in_range(b, offset, size);
  if (!status && size)
    memcpy(data, (char *)b->data + offset, (size_t)size);
  return status;
}

static char *address(const hodu_device_binding *binding) {
  char *base = binding->buffer ? binding->buffer->data : binding->host;
  return base ? base + binding->offset : NULL;
}

static hodu_status copy(hodu_device_instance *d,
                        const hodu_device_binding *from,
                        const hodu_device_binding *to, uint64_t size) {
  (void)d;
  if (size)
    memmove(address(to), address(from), (size_t)size);
  return NULL;
}

static void code_free(hodu_device_instance *d, hodu_device_code *code) {
  (void)d;
  if (!code)
    return;
  if (code->library)
    dlclose(code->library);
  free(code->functions);
  free(code);
}

/* Opens `size` bytes of an ELF shared library from memory. */
static void *open_elf(const uint8_t *bytes, uint64_t size, char *why,
                      size_t why_size) {
  int fd = memfd_create("nulldev-code", MFD_CLOEXEC);
  if (fd < 0) {
    snprintf(why, why_size, "memfd_create failed");
    return NULL;
  }
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, bytes + done, (size_t)(size - done));
    if (n <= 0) {
      close(fd);
      snprintf(why, why_size, "cannot write the code object");
      return NULL;
    }
    done += (uint64_t)n;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  close(fd);
  if (!library)
    snprintf(why, why_size, "%s", dlerror());
  return library;
}

static hodu_status code_load(hodu_device_instance *d,
                             const hodu_device_plan *plan, uint32_t index,
                             const char *origin, hodu_device_code **out) {
  (void)d;
  *out = NULL;
  const hodu_bundle_code *elf = NULL;
  for (uint32_t c = 0; c < plan->num_codes; ++c)
    if (plan->codes[c].device == index) {
      if (plan->codes[c].format != HODU_CODE_ELF)
        return fail(HODU_INCOMPATIBLE,
                    "%s: nulldev runs ELF code objects, not format %u", origin,
                    (unsigned)plan->codes[c].format);
      elf = &plan->codes[c];
    }
  hodu_device_code *code = calloc(1, sizeof *code);
  if (!code)
    return fail(HODU_OUT_OF_MEMORY, "out of memory");
  code->functions = calloc(plan->num_kernels + 1, sizeof *code->functions);
  if (!code->functions) {
    code_free(d, code);
    return fail(HODU_OUT_OF_MEMORY, "out of memory");
  }
  if (elf) {
    char why[512] = "";
    code->library =
        open_elf(plan->blobs + elf->offset, elf->size, why, sizeof why);
    if (!code->library) {
      code_free(d, code);
      return fail(HODU_INVALID_ARTIFACT,
                  "%s: nulldev cannot load its code object: %s", origin, why);
    }
  }
  for (uint32_t s = 0; s < plan->num_steps; ++s) {
    const hodu_bundle_step *st = &plan->steps[s];
    if (st->device != index)
      continue;
    if (st->op == HODU_STEP_LAUNCH) {
      code_free(d, code);
      return fail(HODU_INCOMPATIBLE,
                  "%s: step %u is a LAUNCH; nulldev runs HOST_CALL steps",
                  origin, (unsigned)s);
    }
    if (st->op != HODU_STEP_HOST_CALL || code->functions[st->kernel])
      continue;
    const char *name = plan->strings + plan->kernels[st->kernel].name;
    void *symbol = code->library ? dlsym(code->library, name) : NULL;
    if (!symbol) {
      code_free(d, code);
      return fail(HODU_INVALID_ARTIFACT,
                  "%s: kernel '%s' is not in nulldev's code object", origin,
                  name);
    }
    *(void **)&code->functions[st->kernel] = symbol;
  }
  *out = code;
  return NULL;
}

static void program_free(hodu_device_instance *d, hodu_device_program *p) {
  (void)d;
  if (!p)
    return;
  free(p->steps);
  free(p->pointers);
  free(p);
}

static hodu_status
program_create(hodu_device_instance *d, hodu_device_code *code,
               const hodu_device_plan *plan, uint32_t first, uint32_t count,
               const hodu_device_binding *bindings,
               const int64_t *symbol_values, hodu_device_program **out) {
  (void)symbol_values;
  *out = NULL;
  uint32_t total = 0;
  for (uint32_t i = 0; i < count; ++i)
    total += plan->steps[first + i].num_args;
  hodu_device_program *p = calloc(1, sizeof *p);
  if (p) {
    p->steps = calloc(count ? count : 1, sizeof *p->steps);
    p->pointers = calloc(total ? total : 1, sizeof *p->pointers);
  }
  if (!p || !p->steps || !p->pointers) {
    program_free(d, p);
    return fail(HODU_OUT_OF_MEMORY, "out of memory");
  }
  void **next = p->pointers;
  for (uint32_t i = 0; i < count; ++i) {
    const hodu_bundle_step *st = &plan->steps[first + i];
    step *s = &p->steps[i];
    s->op = st->op;
    s->pointers = next;
    s->num_pointers = st->num_args;
    if (st->op == HODU_STEP_HOST_CALL) {
      s->function = code->functions[st->kernel];
      s->kernel = plan->strings + plan->kernels[st->kernel].name;
    } else if (st->op != HODU_STEP_COPY) {
      program_free(d, p);
      return fail(HODU_INCOMPATIBLE, "nulldev cannot run a step of op %u",
                  (unsigned)st->op);
    }
    for (uint32_t a = 0; a < st->num_args; ++a)
      *next++ = address(&bindings[st->first_arg + a]);
    if (st->op == HODU_STEP_COPY)
      s->size = bindings[st->first_arg].size;
  }
  p->num_steps = count;
  *out = p;
  return NULL;
}

static hodu_status program_run(hodu_device_instance *d, hodu_device_program *p,
                               hodu_device_exec_stats *stats) {
  if (d->delay_us) {
    struct timespec wait = {(time_t)(d->delay_us / 1000000),
                            (long)(d->delay_us % 1000000) * 1000};
    nanosleep(&wait, NULL);
  }
  for (uint32_t i = 0; i < p->num_steps; ++i) {
    const step *s = &p->steps[i];
    if (s->op == HODU_STEP_COPY) {
      memmove(s->pointers[1], s->pointers[0], (size_t)s->size);
      continue;
    }
    int32_t result = s->function(s->pointers);
    if (result != 0)
      return fail(HODU_RUN_FAILED, "nulldev: kernel '%s' returned %d",
                  s->kernel, (int)result);
  }
  if (stats) {
    stats->submissions += 1;
    stats->commands += p->num_steps;
  }
  return NULL;
}

#ifdef NULLDEV_HALF_CAPTURE
static hodu_status capture(hodu_device_instance *d, hodu_device_program *p) {
  (void)d;
  (void)p;
  return NULL;
}
#endif

#ifdef NULLDEV_SPIRV
/* Claims SPIR-V, so that hoduc compiles for it with the Vulkan target;
 * its code_load still refuses anything but ELF. */
static const uint32_t formats[] = {HODU_CODE_SPIRV, 0};
#else
static const uint32_t formats[] = {HODU_CODE_ELF, 0};
#endif

static const hodu_device_plugin_v1 table = {
    .struct_size = sizeof(hodu_device_plugin_v1),
    .name = NULLDEV_NAME,
    .code_formats = formats,
    .count = count_devices,
    .open = open_device,
    .describe = describe,
    .close = close_device,
    .buffer_create = buffer_create,
    .buffer_free = buffer_free,
    .buffer_host = buffer_host,
    .write = write_buffer,
    .read = read_buffer,
#ifndef NULLDEV_NO_COPY
    .copy = copy,
#endif
    .code_load = code_load,
    .code_free = code_free,
    .program_create = program_create,
    .program_free = program_free,
    .program_run = program_run,
#ifdef NULLDEV_HALF_CAPTURE
    .program_capture = capture,
#endif
};

static const void *get_interface(uint32_t kind, uint32_t version) {
  return kind == HODU_PLUGIN_DEVICE && version == 1 ? &table : NULL;
}

static const hodu_plugin_header header = {
    sizeof(hodu_plugin_header),
    HODU_PLUGIN_ABI_VERSION,
    NULLDEV_ID,
    "1.0.0",
    "a test device on host memory that runs ELF code objects",
    HODU_PLUGIN_DEVICE,
    0,
    NULL,
    get_interface,
    NULL};

__attribute__((visibility("default"))) const hodu_plugin_header *
hodu_plugin_query(uint32_t max_abi_version, const hodu_host_api *api) {
  if (max_abi_version < 1)
    return NULL;
  host = api;
  return &header;
}
