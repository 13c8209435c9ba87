/*===- toy_engine.c - an engine plugin for the plugin host's tests ---------===*
 *
 * Runs ".toy" files, a text format made for these tests:
 *
 *   toy 1
 *   width 3            # input x: f32[batch, 3]
 *   scale 2.5          # output y = x * scale: f32[batch, 3]
 *   delay_us 0         # each run sleeps this long (selection tests)
 *   crash_on_run 0     # 1: a run dies of SIGSEGV (selection's children)
 *   memory_bytes 0     # memory the loaded model holds (touched, so it is
 *                      # resident: selection's memory limit sees it)
 *
 * and a second output "positive": the elements of x above 0, f32[count],
 * whose size only the run gives (a dim named like no input dim).
 *
 * Built once as the good plugin and once per broken variant (TOY_VARIANT,
 * test/plugins/CMakeLists.txt), each of which the host must refuse with its
 * own message, or (crash_query) crash a child process instead of the host.
 *
 *===----------------------------------------------------------------------===*/
#include "hodu/plugin.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef TOY_ID
#define TOY_ID "toy"
#endif
#ifdef TOY_ID_OVERRIDE
#undef TOY_ID
#define TOY_ID "toy-other"
#endif
#ifndef TOY_VERSION
#define TOY_VERSION "1.0.0"
#endif
#ifndef TOY_ABI
#define TOY_ABI HODU_PLUGIN_ABI_VERSION
#endif

#define TOY_EXPORT __attribute__((visibility("default")))

static const hodu_host_api *host;

/* Proof of when the library is opened: loading it (not listing it)
 * creates the file TOY_MARKER names. */
__attribute__((constructor)) static void opened(void) {
  const char *marker = getenv("TOY_MARKER");
  FILE *file = marker ? fopen(marker, "w") : NULL;
  if (file)
    fclose(file);
}

struct hodu_engine_model {
  int64_t width;
  float scale;
  long delay_us;
  int crash_on_run;
  uint64_t memory;
  char *held;
  /* Runs inside `run` now: the ABI promises one at a time per model. */
  _Atomic int running;
  int64_t shape_x[2], shape_y[2], shape_positive[1];
  const char *names_x[2], *names_y[2], *names_positive[1];
};

static hodu_status fail(hodu_status_code code, const char *message) {
  char text[512];
  snprintf(text, sizeof text, "toy engine: %s", message);
  return host->make_status(code, text);
}

static int32_t toy_probe(const char *path, const uint8_t *head,
                         size_t head_size) {
  /* The option "probe" sets the score; asking the host from inside a probe
   * (which runs under the registry's lock) must not deadlock. */
  const char *score = host->get_option(TOY_ID, "probe");
  if (score)
    return atoi(score);
  return head_size >= 4 && memcmp(head, "toy ", 4) == 0 ? 50 : 0;
}

static hodu_status toy_load(const char *path,
                            const hodu_engine_load_options *options,
                            hodu_engine_model **out) {
  FILE *file = fopen(path, "r");
  if (!file)
    return fail(HODU_NOT_FOUND, "cannot open the model");
  hodu_engine_model *m = calloc(1, sizeof *m);
  if (!m) {
    fclose(file);
    return fail(HODU_OUT_OF_MEMORY, "out of memory");
  }
  m->width = 1;
  m->scale = 1;
  char key[64];
  int version = 0;
  int ok = fscanf(file, "toy %d", &version) == 1 && version == 1;
  while (ok && fscanf(file, "%63s", key) == 1) {
    if (strcmp(key, "width") == 0)
      ok = fscanf(file, "%ld", (long *)&m->width) == 1 && m->width > 0;
    else if (strcmp(key, "scale") == 0)
      ok = fscanf(file, "%f", &m->scale) == 1;
    else if (strcmp(key, "delay_us") == 0)
      ok = fscanf(file, "%ld", &m->delay_us) == 1 && m->delay_us >= 0;
    else if (strcmp(key, "crash_on_run") == 0)
      ok = fscanf(file, "%d", &m->crash_on_run) == 1;
    else if (strcmp(key, "memory_bytes") == 0)
      ok = fscanf(file, "%lu", (unsigned long *)&m->memory) == 1;
    else
      ok = 0;
  }
  fclose(file);
  /* The option "scale" (manifest, or HODU_PLUGIN_TOY_SCALE) wins. */
  const char *scale = host->get_option(TOY_ID, "scale");
  if (ok && scale)
    ok = sscanf(scale, "%f", &m->scale) == 1;
  if (!ok) {
    free(m);
    return fail(HODU_INVALID_ARTIFACT, "malformed .toy file");
  }
  if (m->memory && !(m->held = malloc(m->memory))) {
    free(m);
    return fail(HODU_OUT_OF_MEMORY, "out of memory for memory_bytes");
  }
  if (m->held)
    memset(m->held, 1, m->memory);
  m->shape_x[0] = m->shape_y[0] = HODU_DIM_DYNAMIC;
  m->shape_x[1] = m->shape_y[1] = m->width;
  m->shape_positive[0] = HODU_DIM_DYNAMIC;
  m->names_x[0] = m->names_y[0] = "batch";
  m->names_positive[0] = "count";
  *out = m;
  return NULL;
}

static void toy_unload(hodu_engine_model *model) {
  free(model->held);
  free(model);
}

static int32_t toy_num_values(const hodu_engine_model *model,
                              int32_t is_output) {
  return is_output ? 2 : 1;
}

static hodu_status toy_value(const hodu_engine_model *m, int32_t is_output,
                             int32_t index, hodu_engine_value *out) {
  if (!is_output && index == 0)
    *out = (hodu_engine_value){"x", HODU_DTYPE_F32, 2, m->shape_x, m->names_x};
  else if (is_output && index == 0)
    *out = (hodu_engine_value){"y", HODU_DTYPE_F32, 2, m->shape_y, m->names_y};
  else if (is_output && index == 1)
    *out = (hodu_engine_value){"positive", HODU_DTYPE_F32, 1,
                               m->shape_positive, m->names_positive};
  else
    return fail(HODU_INVALID_ARGUMENT, "value index out of range");
  return NULL;
}

static hodu_status run_once(hodu_engine_model *m,
                            const hodu_engine_tensor *inputs,
                            int32_t num_inputs, hodu_engine_tensor *outputs,
                            int32_t num_outputs);

static hodu_status toy_run(hodu_engine_model *m,
                           const hodu_engine_tensor *inputs,
                           int32_t num_inputs, hodu_engine_tensor *outputs,
                           int32_t num_outputs, int32_t num_threads) {
  if (atomic_fetch_add(&m->running, 1) != 0) {
    atomic_fetch_sub(&m->running, 1);
    return fail(HODU_RUN_FAILED, "two runs of one model at once");
  }
  /* Long enough for a second thread to arrive. */
  struct timespec pause = {0, 20000};
  nanosleep(&pause, NULL);
  hodu_status status = run_once(m, inputs, num_inputs, outputs, num_outputs);
  atomic_fetch_sub(&m->running, 1);
  return status;
}

static hodu_status run_once(hodu_engine_model *m,
                            const hodu_engine_tensor *inputs,
                            int32_t num_inputs, hodu_engine_tensor *outputs,
                            int32_t num_outputs) {
  if (num_inputs != 1 || num_outputs != 2)
    return fail(HODU_MISMATCH, "wrong tensor counts");
  if (m->crash_on_run) {
    volatile int *nowhere = NULL;
    *nowhere = 1;
  }
  const hodu_engine_tensor *x = &inputs[0];
  int64_t n = x->shape[0] * x->shape[1];
  const float *xs = x->data;
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i)
    count += xs[i] > 0;
  /* y: the shape the host resolved, or allocated here. */
  hodu_engine_tensor *y = &outputs[0], *p = &outputs[1];
  if (!y->data) {
    y->shape[0] = x->shape[0];
    y->shape[1] = x->shape[1];
    y->bytes = (uint64_t)n * sizeof(float);
    if (!(y->data = host->alloc(y->bytes, 64)))
      return fail(HODU_OUT_OF_MEMORY, "out of memory");
  } else if (y->shape[0] != x->shape[0] || y->shape[1] != x->shape[1]) {
    return fail(HODU_MISMATCH, "output 'y' has the wrong shape");
  }
  if (!p->data) {
    p->shape[0] = count;
    p->bytes = (uint64_t)count * sizeof(float);
    if (!(p->data = host->alloc(p->bytes, 64)))
      return fail(HODU_OUT_OF_MEMORY, "out of memory");
  } else if (p->shape[0] != count) {
    char message[160];
    snprintf(message, sizeof message,
             "output 'positive' has %lld elements, the run gives %lld",
             (long long)p->shape[0], (long long)count);
    return fail(HODU_MISMATCH, message);
  }
  float *ys = y->data, *ps = p->data;
  for (int64_t i = 0, k = 0; i < n; ++i) {
    ys[i] = xs[i] * m->scale;
    if (xs[i] > 0)
      ps[k++] = xs[i];
  }
  if (m->delay_us > 0) {
    struct timespec pause = {m->delay_us / 1000000,
                             (m->delay_us % 1000000) * 1000};
    nanosleep(&pause, NULL);
  }
  return NULL;
}

static hodu_status toy_memory_bytes(const hodu_engine_model *m,
                                    uint64_t *bytes) {
  *bytes = m->memory;
  return NULL;
}

static const char *const extensions[] = {".toy", NULL};

static const hodu_engine_plugin_v1 engine = {
#ifdef TOY_SHORT_TABLE
    /* An engine table that ends before `run`: refused. */
    offsetof(hodu_engine_plugin_v1, value),
#else
    sizeof(hodu_engine_plugin_v1),
#endif
    "toy",
    extensions,
    toy_probe,
    toy_load,
    toy_unload,
    toy_num_values,
    toy_value,
#ifdef TOY_NO_RUN
    NULL,
#else
    toy_run,
#endif
    toy_memory_bytes};

static const void *get_interface(uint32_t kind, uint32_t version) {
  return kind == HODU_PLUGIN_ENGINE && version == 1 ? &engine : NULL;
}

static const hodu_plugin_header header = {
    sizeof(hodu_plugin_header),
    TOY_ABI,
    TOY_ID,
    TOY_VERSION,
    "a test engine for .toy files",
    HODU_PLUGIN_ENGINE,
    0,
    NULL,
    get_interface,
    NULL};

#ifndef TOY_NO_QUERY
TOY_EXPORT const hodu_plugin_header *
hodu_plugin_query(uint32_t max_abi_version, const hodu_host_api *api) {
#ifdef TOY_CRASH_QUERY
  volatile int *nowhere = NULL;
  *nowhere = 1;
#endif
  if (max_abi_version < 1 || !api)
    return NULL;
  host = api;
  return &header;
}
#else
TOY_EXPORT int not_a_plugin(void) { return 0; }
#endif
