/*===- select.c - picking how to run a model by measuring it ---------------===*
 *
 * Seed 003's engine host: the candidates (artifacts of one model, engines,
 * devices) are measured on this machine and the best one by the objective
 * is chosen. Each candidate runs in a child process (fork), which loads it,
 * runs it and sends back its figures and outputs through a pipe, so a
 * plugin or an artifact that crashes or hangs is recorded as such and the
 * caller goes on. The parent never loads a candidate itself.
 *
 * Records go to a JSON-lines database, appended under an exclusive lock
 * (flock) one line per write, so concurrent writers lose nothing; a line
 * that does not parse is skipped and counted. A record is used only when
 * every field of its key equals the candidate's: the artifact's SHA-256,
 * the engine plugins' ids and versions, the device, the thread budget, the
 * CPU and the runtime's version (the TensorRT timing cache's rule: a stale
 * record is measured again, never trusted).
 *
 *===----------------------------------------------------------------------===*/
#include "select.h"
#include "device.h"
#include "internal.h"
#include "json.h"
#include "plugin.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_OUTPUT_BYTES (UINT64_C(256) << 20) /* compared up to this */


struct hodu_selection {
  candidate *candidates;
  int32_t count;
  int32_t chosen;
  char *report;
};

void hodu_select_options_init(hodu_select_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
  o->runs = 20;
  o->warmup = 3;
  o->timeout_s = 120;
  o->rtol = 1e-3;
  o->atol = 1e-4;
  o->symbol_value = 1;
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/*===--------------------------------------------------------------------===*
 * The child: load, run, report
 *===--------------------------------------------------------------------===*/

/* What the child sends first, then each output's header and bytes. */
typedef struct report {
  int32_t ok;
  int32_t code; /* the failure's hodu_status_code */
  int32_t runs;
  int32_t num_outputs;
  double load_ms, first_run_us, p50, p90, p99, min, mean, mad;
  uint64_t peak_bytes;
  char message[1024];
  char engine[128];
  char device[256];
} report;

int hodu_select_write_all(int fd, const void *data, size_t size) {
  const uint8_t *p = data;
  while (size) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return 0;
    p += n;
    size -= (size_t)n;
  }
  return 1;
}

static uint64_t rss_bytes(void) {
  FILE *file = fopen("/proc/self/statm", "r");
  unsigned long pages = 0, resident = 0;
  if (file) {
    if (fscanf(file, "%lu %lu", &pages, &resident) != 2)
      resident = 0;
    fclose(file);
  }
  return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double percentile(const double *sorted, int32_t n, double q) {
  /* ceil(q * n) - 1, without libm (static users link no -lm). */
  double at = q * n;
  int32_t i = (int32_t)at;
  i += (double)i < at;
  i -= 1;
  return sorted[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* Seeded values in [-1, 1) (integers: 0..3, booleans 0/1). */
static void fill_seeded(hodu_tensor *t, uint64_t seed) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  int64_t n = hodu_tensor_num_elements(t);
  uint8_t *data = hodu_tensor_data(t);
  size_t element = hodu_dtype_size(hodu_tensor_dtype(t));
  for (int64_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double v = (double)(x >> 11) / 9007199254740992.0 * 2 - 1;
    uint8_t *p = data + (size_t)i * element;
    switch (hodu_tensor_dtype(t)) {
    case HODU_DTYPE_F32: {
      float f = (float)v;
      memcpy(p, &f, 4);
      break;
    }
    case HODU_DTYPE_F64:
      memcpy(p, &v, 8);
      break;
    case HODU_DTYPE_BOOL:
      *p = (uint8_t)(x & 1);
      break;
    default: {
      /* Small non-negative integers (indices stay in range for most
       * models); the float types without a C type get zeros. */
      if (hodu_tensor_dtype(t) == HODU_DTYPE_F16 ||
          hodu_tensor_dtype(t) == HODU_DTYPE_BF16 ||
          hodu_tensor_dtype(t) == HODU_DTYPE_F8E4M3 ||
          hodu_tensor_dtype(t) == HODU_DTYPE_F8E5M2)
        break;
      uint64_t k = x & 3;
      memcpy(p, &k, element); /* little-endian: the low bytes */
    }
    }
  }
}

/* The child's inputs: the sample tensors (by name or order), else seeded
 * tensors with every symbol at `symbol_value`. */
static hodu_status child_inputs(const hodu_model *model,
                                const hodu_select_options *o,
                                hodu_tensor **made,
                                const hodu_tensor **inputs) {
  int32_t n = hodu_model_num_inputs(model);
  if (o->num_inputs) {
    if (o->num_inputs != (size_t)n)
      return hodu_make_status(HODU_MISMATCH, "the model has %d input%s, %zu "
                                             "were given",
                              (int)n, n == 1 ? "" : "s", o->num_inputs);
    for (int32_t i = 0; i < n; ++i) {
      inputs[i] = NULL;
      const char *name = hodu_model_input_name(model, i);
      for (size_t k = 0; k < o->num_inputs && !inputs[i]; ++k)
        if (o->input_names && o->input_names[k] &&
            strcmp(o->input_names[k], name) == 0)
          inputs[i] = o->inputs[k];
      if (!inputs[i] && (!o->input_names || !o->input_names[i]))
        inputs[i] = o->inputs[i];
      if (!inputs[i])
        return hodu_make_status(HODU_MISMATCH, "no sample input named '%s'",
                                name);
    }
    return NULL;
  }
  int32_t num_symbols = hodu_model_num_symbols(model);
  int64_t *values = calloc((size_t)(num_symbols ? num_symbols : 1),
                           sizeof *values);
  if (!values)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  for (int32_t s = 0; s < num_symbols; ++s) {
    const hodu_symbol_desc *symbol = hodu_model_symbol(model, s);
    int64_t v = o->symbol_value > symbol->min ? o->symbol_value : symbol->min;
    if (symbol->multiple > 1)
      v = (v + symbol->multiple - 1) / symbol->multiple * symbol->multiple;
    values[s] = v;
  }
  hodu_status status = NULL;
  for (int32_t i = 0; i < n && !status; ++i) {
    status = hodu_model_create_input_with_symbols(
        model, i, num_symbols ? values : NULL, (size_t)num_symbols, &made[i]);
    if (!status) {
      fill_seeded(made[i], (uint64_t)i + 1);
      inputs[i] = made[i];
    }
  }
  free(values);
  return status;
}

/* Runs in the child; writes one report (and the outputs) to `fd`. */
static void child_measure(const candidate *c, const hodu_select_options *o,
                          int fd) {
  report r;
  memset(&r, 0, sizeof r);
  uint64_t baseline = rss_bytes();
  hodu_load_options load;
  hodu_load_options_init(&load);
  load.device_kind = c->device_kind;
  load.device_ordinal = c->device_ordinal;
  load.engine = c->engine_name;
  hodu_model *model = NULL;
  double start = now_us();
  hodu_status status = hodu_model_load_with_options(c->path, &load, &model);
  r.load_ms = (now_us() - start) / 1e3;
  int32_t num_in = model ? hodu_model_num_inputs(model) : 0;
  int32_t num_out = model ? hodu_model_num_outputs(model) : 0;
  hodu_tensor **made = calloc((size_t)num_in + 1, sizeof *made);
  const hodu_tensor **inputs = calloc((size_t)num_in + 1, sizeof *inputs);
  hodu_tensor **outputs = calloc((size_t)num_out + 1, sizeof *outputs);
  double *times = calloc((size_t)o->runs + 1, sizeof *times);
  if (!status && (!made || !inputs || !outputs || !times))
    status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  if (!status) {
    const char *engine = hodu_model_engine(model);
    snprintf(r.engine, sizeof r.engine, "%s", engine ? engine : "");
    snprintf(r.device, sizeof r.device, "%s:%d (%s)",
             hodu_device_kind_name(hodu_model_device_kind(model)),
             (int)hodu_model_device_ordinal(model),
             hodu_model_device_name(model));
    status = child_inputs(model, o, made, inputs);
  }
  /* The first run allocates the outputs; every later one reuses them. */
  if (!status) {
    start = now_us();
    status = hodu_model_run_alloc(model, inputs, (size_t)num_in, outputs,
                                  (size_t)num_out);
    r.first_run_us = now_us() - start;
  }
  for (int32_t k = 0; !status && k < o->warmup + o->runs; ++k) {
    start = now_us();
    status = hodu_model_run(model, inputs, (size_t)num_in,
                            (hodu_tensor *const *)outputs, (size_t)num_out);
    double took = now_us() - start;
    if (k >= o->warmup)
      times[k - o->warmup] = took;
  }
  if (!status && o->runs > 0) {
    int32_t n = o->runs;
    qsort(times, (size_t)n, sizeof *times, compare_double);
    r.runs = n;
    r.min = times[0];
    r.p50 = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    r.p90 = percentile(times, n, 0.9);
    r.p99 = percentile(times, n, 0.99);
    for (int32_t k = 0; k < n; ++k)
      r.mean += times[k] / n;
    for (int32_t k = 0; k < n; ++k)
      times[k] = __builtin_fabs(times[k] - r.p50);
    qsort(times, (size_t)n, sizeof *times, compare_double);
    r.mad = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  }
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    uint64_t peak = (uint64_t)usage.ru_maxrss * 1024;
    r.peak_bytes = peak > baseline ? peak - baseline : 0;
  }
  r.ok = !status;
  r.code = status ? (int32_t)hodu_status_get_code(status) : 0;
  r.num_outputs = status ? 0 : num_out;
  snprintf(r.message, sizeof r.message, "%s",
           status ? hodu_status_message(status) : "");
  int ok = hodu_select_write_all(fd, &r, sizeof r);
  for (int32_t i = 0; ok && i < r.num_outputs; ++i) {
    struct output header = {hodu_tensor_dtype(outputs[i]),
                            hodu_tensor_rank(outputs[i]),
                            {0},
                            hodu_tensor_bytes(outputs[i]),
                            NULL};
    if (header.rank > 16 || header.bytes > MAX_OUTPUT_BYTES)
      header.bytes = 0, header.rank = header.rank > 16 ? 16 : header.rank;
    memcpy(header.shape, hodu_tensor_shape(outputs[i]),
           sizeof(int64_t) * (size_t)header.rank);
    ok = hodu_select_write_all(fd, &header, sizeof header) &&
         hodu_select_write_all(fd, hodu_tensor_data(outputs[i]),
                               (size_t)header.bytes);
  }
  /* No cleanup: _exit ends the child, and freeing could only add risk. */
  _exit(ok ? 0 : 3);
}

/*===--------------------------------------------------------------------===*
 * The parent: one child per candidate
 *===--------------------------------------------------------------------===*/

/* Reads exactly `size` bytes before `deadline` (microseconds); 0 on EOF,
 * error or timeout (*timed_out set). */
static int read_all(int fd, void *data, size_t size, double deadline,
                    int *timed_out) {
  uint8_t *p = data;
  while (size) {
    double left = deadline - now_us();
    if (left <= 0) {
      *timed_out = 1;
      return 0;
    }
    struct pollfd wait = {fd, POLLIN, 0};
    int ready = poll(&wait, 1, (int)(left / 1e3) + 1);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready == 0)
      continue;
    ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return 0;
    p += n;
    size -= (size_t)n;
  }
  return 1;
}

void hodu_select_set_status(candidate *c, const char *status,
                             const char *message) {
  snprintf(c->status, sizeof c->status, "%s", status);
  free(c->message);
  c->message = hodu_copy_string(message ? message : "");
}

static void measure(candidate *c, const hodu_select_options *o) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    hodu_select_set_status(c, "failed",
                           "cannot make a pipe to a child process");
    return;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t child = fork();
  if (child < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    hodu_select_set_status(c, "failed", "cannot fork a child process");
    return;
  }
  if (child == 0) {
    close(pipe_fds[0]);
    hodu_threads_after_fork();
    child_measure(c, o, pipe_fds[1]);
  }
  close(pipe_fds[1]);
  c->measured = 1;
  double deadline = now_us() + (o->timeout_s > 0 ? o->timeout_s : 120) * 1e6;
  report r;
  int timed_out = 0;
  int got = read_all(pipe_fds[0], &r, sizeof r, deadline, &timed_out);
  if (got) {
    r.message[sizeof r.message - 1] = '\0';
    r.engine[sizeof r.engine - 1] = '\0';
    r.device[sizeof r.device - 1] = '\0';
    int32_t n = r.ok && r.num_outputs > 0 && r.num_outputs < 100000
                    ? r.num_outputs
                    : 0;
    c->outputs = calloc((size_t)n + 1, sizeof *c->outputs);
    for (int32_t i = 0; got && c->outputs && i < n; ++i) {
      struct output *out = &c->outputs[i];
      got = read_all(pipe_fds[0], out, sizeof *out, deadline, &timed_out);
      out->data = NULL;
      if (got && (out->rank < 0 || out->rank > 16 ||
                  out->bytes > MAX_OUTPUT_BYTES))
        got = 0;
      if (got && !(out->data = malloc(out->bytes ? out->bytes : 1)))
        got = 0;
      if (got)
        got = read_all(pipe_fds[0], out->data, (size_t)out->bytes, deadline,
                       &timed_out);
      if (got)
        c->num_outputs = i + 1;
    }
  }
  if (timed_out)
    kill(child, SIGKILL);
  close(pipe_fds[0]);
  int wstatus = 0;
  while (waitpid(child, &wstatus, 0) < 0 && errno == EINTR)
    ;
  free(c->engine);
  free(c->device);
  c->engine = hodu_copy_string(got ? r.engine : "");
  c->device = hodu_copy_string(got ? r.device : c->device_text);
  char message[1200];
  if (timed_out) {
    snprintf(message, sizeof message, "no result within %d s; stopped",
             o->timeout_s > 0 ? o->timeout_s : 120);
    hodu_select_set_status(c, "timeout", message);
  } else if (WIFSIGNALED(wstatus) && !got) {
    int signal = WTERMSIG(wstatus);
    snprintf(message, sizeof message, "the child process died of signal %d "
                                      "(%s)",
             signal, strsignal(signal));
    hodu_select_set_status(c, "crashed", message);
  } else if (!got) {
    /* A sanitizer catches a crash and exits instead of dying of it. */
    snprintf(message, sizeof message,
             "the child process exited with code %d and sent no result",
             WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
    hodu_select_set_status(c, "failed", message);
  } else if (!r.ok) {
    /* A device that runs out of memory (seed 003: excluded). */
    hodu_select_set_status(
        c, r.code == HODU_OUT_OF_MEMORY ? "out-of-memory" : "failed",
        r.message);
  } else {
    hodu_select_set_status(c, "ok", "");
    hodu_candidate_result *x = &c->result;
    x->runs = r.runs;
    x->load_ms = r.load_ms;
    x->first_run_us = r.first_run_us;
    x->p50_us = r.p50, x->p90_us = r.p90, x->p99_us = r.p99;
    x->min_us = r.min, x->mean_us = r.mean, x->mad_us = r.mad;
    x->peak_bytes = r.peak_bytes;
  }
}

/*===--------------------------------------------------------------------===*
 * Output agreement
 *===--------------------------------------------------------------------===*/

static double element(const uint8_t *data, int32_t dtype, uint64_t i) {
  switch (dtype) {
#define HODU_READ_(id, value, name, size, storage)                             \
  case HODU_DTYPE_##id: {                                                      \
    storage v;                                                                 \
    memcpy(&v, data + i * size, size);                                         \
    return (double)v;                                                          \
  }
    HODU_DTYPE_LIST(HODU_READ_)
#undef HODU_READ_
  }
  return 0;
}

/* The largest |a - b| over `c`'s outputs against `ref`'s, or -1 with
 * `why` when they cannot be compared element by element. Float types
 * without a C type (f16, bf16, f8) are compared bit for bit. */
static double max_error(const candidate *c, const candidate *ref,
                        const hodu_select_options *o, char *why,
                        size_t size, int *agree) {
  *agree = 1;
  if (c->num_outputs != ref->num_outputs) {
    snprintf(why, size, "%d outputs against %d", (int)c->num_outputs,
             (int)ref->num_outputs);
    *agree = 0;
    return -1;
  }
  double worst = 0;
  for (int32_t i = 0; i < c->num_outputs; ++i) {
    const struct output *a = &c->outputs[i], *b = &ref->outputs[i];
    int same = a->dtype == b->dtype && a->rank == b->rank &&
               a->bytes == b->bytes;
    for (int32_t d = 0; same && d < a->rank; ++d)
      same = a->shape[d] == b->shape[d];
    if (!same) {
      snprintf(why, size, "output %d differs in dtype or shape", (int)i);
      *agree = 0;
      return -1;
    }
    int bits = a->dtype == HODU_DTYPE_F16 || a->dtype == HODU_DTYPE_BF16 ||
               a->dtype == HODU_DTYPE_F8E4M3 || a->dtype == HODU_DTYPE_F8E5M2;
    size_t esize = hodu_dtype_size((hodu_dtype)a->dtype);
    uint64_t n = esize ? a->bytes / esize : 0;
    for (uint64_t k = 0; k < n; ++k) {
      if (bits) {
        if (memcmp(a->data + k * esize, b->data + k * esize, esize) != 0) {
          worst = INFINITY;
          *agree = 0;
        }
        continue;
      }
      double x = element(a->data, a->dtype, k);
      double y = element(b->data, b->dtype, k);
      if (isnan(x) && isnan(y))
        continue;
      double error = __builtin_fabs(x - y);
      if (isnan(error))
        error = INFINITY;
      worst = error > worst ? error : worst;
      if (!(error <= o->atol + o->rtol * __builtin_fabs(y)))
        *agree = 0;
    }
  }
  if (!*agree)
    snprintf(why, size, "outputs differ from the reference's by up to %g",
             worst);
  return worst;
}

/*===--------------------------------------------------------------------===*
 * Selection
 *===--------------------------------------------------------------------===*/

/* c->driver: the name and driver of the GPU or plugin device the bundle
 * `plan` runs on, asked of the device in a child process (so that no
 * driver is initialised in the caller before the measuring children are
 * forked); "" on the CPU, and when the child says nothing in 30 s (the
 * measurement then reports the failure). */
static void probe_driver(candidate *c, const hodu_plan *plan) {
  const hodu_bundle_device *d = &plan->devices[plan->main_device];
  hodu_device_kind kind = (hodu_device_kind)d->kind;
  const char *name = plan->strings + d->name;
  if (kind == HODU_DEVICE_CPU)
    return;
  int fds[2];
  if (pipe(fds) != 0)
    return;
  fflush(NULL);
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    hodu_threads_after_fork();
    char text[sizeof c->driver] = "";
    hodu_status s =
        hodu_device_identity(kind, name, c->device_ordinal, text, sizeof text);
    if (s)
      snprintf(text, sizeof text, "unavailable: %s", hodu_status_message(s));
    hodu_select_write_all(fds[1], text, strlen(text));
    _exit(0);
  }
  close(fds[1]);
  size_t used = 0;
  struct pollfd p = {fds[0], POLLIN, 0};
  while (child > 0 && used + 1 < sizeof c->driver && poll(&p, 1, 30000) > 0) {
    ssize_t n = read(fds[0], c->driver + used, sizeof c->driver - 1 - used);
    if (n <= 0)
      break;
    used += (size_t)n;
  }
  c->driver[used] = '\0';
  close(fds[0]);
  if (child > 0) {
    kill(child, SIGKILL);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
      ;
  }
}

static hodu_status parse_candidate(const char *text, candidate *c) {
  c->text = hodu_copy_string(text);
  const char *at = strrchr(text, '@');
  size_t path_length = at ? (size_t)(at - text) : strlen(text);
  c->path = malloc(path_length + 1);
  if (!c->text || !c->path)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  memcpy(c->path, text, path_length);
  c->path[path_length] = '\0';
  c->device_kind = -1;
  if (!*c->path)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "candidate '%s' names no file", text);
  if (at) {
    const char *what = at + 1;
    char kind[32];
    size_t n = strcspn(what, ":");
    if (!*what)
      return hodu_make_status(HODU_INVALID_ARGUMENT,
                              "candidate '%s': nothing after '@'", text);
    snprintf(kind, sizeof kind, "%.*s", (int)(n < 31 ? n : 31), what);
    hodu_device_kind parsed;
    if (n < sizeof kind && hodu_device_kind_from_name(kind, &parsed)) {
      c->device_kind = (int32_t)parsed;
      if (what[n] == ':') {
        char *end;
        long ordinal = strtol(what + n + 1, &end, 10);
        if (*end || end == what + n + 1 || ordinal < 0 || ordinal > 1 << 20)
          return hodu_make_status(HODU_INVALID_ARGUMENT,
                                  "candidate '%s': bad device ordinal", text);
        c->device_ordinal = (int32_t)ordinal;
      }
    } else {
      c->engine_name = hodu_copy_string(what);
    }
  }
  struct stat info;
  if (stat(c->path, &info) != 0 || !S_ISREG(info.st_mode))
    return hodu_make_status(HODU_NOT_FOUND, "candidate '%s': cannot open "
                                            "'%s'",
                            text, c->path);
  if (!hodu_sha256_file(c->path, c->sha))
    return hodu_make_status(HODU_NOT_FOUND, "candidate '%s': cannot read "
                                            "'%s'",
                            text, c->path);
  hodu_plugin_engine_key(c->engine_name, c->path, c->key_engine,
                         sizeof c->key_engine);
  /* A bundle (read once for both): a device plugin's id and version are
   * part of the key, so a new version is measured again; so is the
   * device's driver. */
  c->driver[0] = '\0';
  hodu_plan *plan = NULL;
  if (hodu_is_bundle_file(c->path)) {
    hodu_status status = hodu_bundle_read_file(c->path, &plan);
    hodu_status_free(status);
  }
  if (plan) {
    hodu_plugin_device_key(plan, c->key_engine, sizeof c->key_engine);
    probe_driver(c, plan);
    hodu_plan_free(plan);
  }
  snprintf(c->device_text, sizeof c->device_text, "%s:%d",
           c->device_kind >= 0
               ? hodu_device_kind_name((hodu_device_kind)c->device_kind)
               : "default",
           (int)c->device_ordinal);
  snprintf(c->status, sizeof c->status, "not-measured");
  return NULL;
}

static uint64_t machine_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

/* The static rule, when nothing is measured: engines (plugins) before Hodu
 * artifacts (seed 003), a GPU device before the CPU, then the order given. */
static int static_rank(const candidate *c) {
  int engine = c->engine_name || *c->key_engine;
  int gpu = c->device_kind > 0;
  return (engine ? 0 : 2) + (gpu ? 0 : 1);
}

static void append(char **text, size_t *size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char **text, size_t *size, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(NULL, 0, format, args);
  va_end(args);
  if (n < 0)
    return;
  char *grown = realloc(*text, *size + (size_t)n + 1);
  if (!grown)
    return;
  *text = grown;
  va_start(args, format);
  vsnprintf(*text + *size, (size_t)n + 1, format, args);
  va_end(args);
  *size += (size_t)n;
}

static void make_report(hodu_selection *s, const hodu_select_options *o,
                        const char *why, int skipped) {
  char *text = NULL;
  size_t size = 0;
  append(&text, &size,
         "%-3s %-34s %-13s %-10s %10s %10s %10s %10s %9s %9s %s\n", "#",
         "candidate", "status", "source", "p50 us", "p90 us", "min us",
         "first us", "load ms", "peak MiB", "max error");
  for (int32_t i = 0; i < s->count; ++i) {
    const candidate *c = &s->candidates[i];
    const hodu_candidate_result *r = &c->result;
    int figures = strcmp(c->status, "ok") == 0 ||
                  strcmp(c->status, "mismatch") == 0 ||
                  strcmp(c->status, "over-memory") == 0;
    append(&text, &size, "%-3d %-34s %-13s %-10s", (int)i, c->text, c->status,
           r->from_database ? "database"
           : c->measured    ? "measured"
                            : "-");
    if (figures)
      append(&text, &size, " %10.1f %10.1f %10.1f %10.1f %9.2f %9.1f %g",
             r->p50_us, r->p90_us, r->min_us, r->first_run_us, r->load_ms,
             (double)r->peak_bytes / 1048576.0, r->max_error);
    append(&text, &size, "\n");
    if (c->engine && *c->engine)
      append(&text, &size, "      engine %s", c->engine);
    if (c->device && *c->device)
      append(&text, &size, "%s device %s\n",
             c->engine && *c->engine ? ";" : "     ", c->device);
    else if (c->engine && *c->engine)
      append(&text, &size, "\n");
    if (c->message && *c->message)
      append(&text, &size, "      %s\n", c->message);
  }
  if (skipped)
    append(&text, &size, "the database had %d line%s that are not records "
                         "(skipped)\n",
           skipped, skipped == 1 ? "" : "s");
  if (s->chosen >= 0)
    append(&text, &size, "chosen: %d (%s): %s\n", (int)s->chosen,
           s->candidates[s->chosen].text, why);
  else
    append(&text, &size, "chosen: none: %s\n", why);
  (void)o;
  s->report = text;
}

hodu_status hodu_select(const char *const *candidates, size_t num_candidates,
                        const hodu_select_options *options,
                        hodu_selection **out) {
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  if (!candidates || num_candidates == 0)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "no candidates to select "
                                                   "from");
  if (num_candidates > 1024)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "%zu candidates: at most "
                                                   "1024",
                            num_candidates);
  hodu_select_options o;
  hodu_select_options_init(&o);
  if (options) {
    if (options->struct_size < sizeof o)
      return hodu_make_status(HODU_INVALID_ARGUMENT,
                              "select options: struct_size %u is too small "
                              "(use hodu_select_options_init)",
                              (unsigned)options->struct_size);
    o = *options;
  }
  if (o.runs < 1 || o.warmup < 0 || o.runs > 1000000)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "select options: runs must be >= 1 and warmup "
                            ">= 0");
  hodu_selection *s = calloc(1, sizeof *s);
  if (!s)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  s->candidates = calloc(num_candidates, sizeof *s->candidates);
  s->count = (int32_t)num_candidates;
  s->chosen = -1;
  if (!s->candidates) {
    free(s);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  for (size_t i = 0; i < num_candidates; ++i) {
    hodu_status status =
        candidates[i] ? parse_candidate(candidates[i], &s->candidates[i])
                      : hodu_make_status(HODU_INVALID_ARGUMENT,
                                         "candidate %zu is NULL", i);
    if (status) {
      hodu_selection_free(s);
      return status;
    }
  }

  char *db = hodu_select_database_path(&o);
  char cpu[256];
  hodu_cpu_name(cpu, sizeof cpu);
  int32_t threads = hodu_effective_num_threads();
  uint64_t limit = o.memory_limit ? o.memory_limit
                                  : machine_memory() / 10 * 9;
  int skipped = 0;
  const candidate *reference = NULL;
  for (int32_t i = 0; i < s->count; ++i) {
    candidate *c = &s->candidates[i];
    int known = o.benchmark != HODU_BENCHMARK_ALWAYS && db &&
                hodu_select_lookup(db, c, threads, cpu, &skipped);
    c->result.from_database = known;
    if (!known && o.benchmark != HODU_BENCHMARK_NEVER) {
      measure(c, &o);
      if (strcmp(c->status, "ok") == 0) {
        if (!reference) {
          reference = c;
        } else {
          char why[256];
          int agree;
          c->result.max_error = max_error(c, reference, &o, why, sizeof why,
                                          &agree);
          if (!agree) {
            char message[400];
            snprintf(message, sizeof message, "%s (candidate %d)", why,
                     (int)(reference - s->candidates));
            hodu_select_set_status(c, "mismatch", message);
          }
        }
      }
      if (strcmp(c->status, "ok") == 0 && c->result.peak_bytes > limit) {
        char message[200];
        snprintf(message, sizeof message,
                 "peak memory %llu bytes is above the limit of %llu",
                 (unsigned long long)c->result.peak_bytes,
                 (unsigned long long)limit);
        hodu_select_set_status(c, "over-memory", message);
      }
      if (db)
        hodu_select_store(db, c, threads, cpu);
    }
    c->result.candidate = c->text;
    c->result.status = c->status;
    c->result.message = c->message ? c->message : "";
    c->result.engine = c->engine ? c->engine : "";
    c->result.device = c->device ? c->device : c->device_text;
  }
  /* A stored record may be over this call's limit. */
  for (int32_t i = 0; i < s->count; ++i) {
    candidate *c = &s->candidates[i];
    if (strcmp(c->status, "ok") == 0 && c->result.peak_bytes > limit) {
      char message[200];
      snprintf(message, sizeof message,
               "peak memory %llu bytes is above the limit of %llu",
               (unsigned long long)c->result.peak_bytes,
               (unsigned long long)limit);
      hodu_select_set_status(c, "over-memory", message);
      c->result.status = c->status;
      c->result.message = c->message;
    }
  }

  char why[256] = "no candidate ran";
  int any_ok = 0, any_known = 0;
  for (int32_t i = 0; i < s->count; ++i) {
    const candidate *c = &s->candidates[i];
    any_known |= strcmp(c->status, "not-measured") != 0;
    if (strcmp(c->status, "ok") != 0)
      continue;
    any_ok = 1;
    if (s->chosen < 0) {
      s->chosen = i;
      continue;
    }
    const hodu_candidate_result *a = &c->result;
    const hodu_candidate_result *b = &s->candidates[s->chosen].result;
    double x = o.objective == HODU_SELECT_MEMORY ? (double)a->peak_bytes
                                                 : a->p50_us;
    double y = o.objective == HODU_SELECT_MEMORY ? (double)b->peak_bytes
                                                 : b->p50_us;
    /* Gaps under 5% are ties (run-to-run drift is that large): the lower
     * other figure wins them, then the order given. */
    if (x < y * 0.95) {
      s->chosen = i;
    } else if (x <= y * 1.05) {
      double u = o.objective == HODU_SELECT_MEMORY ? a->p50_us
                                                   : (double)a->peak_bytes;
      double v = o.objective == HODU_SELECT_MEMORY ? b->p50_us
                                                   : (double)b->peak_bytes;
      if (u < v * 0.95)
        s->chosen = i;
    }
  }
  if (any_ok) {
    const hodu_candidate_result *r = &s->candidates[s->chosen].result;
    if (o.objective == HODU_SELECT_MEMORY)
      snprintf(why, sizeof why, "the lowest peak memory (%.1f MiB)",
               (double)r->peak_bytes / 1048576.0);
    else
      snprintf(why, sizeof why, "the lowest median latency (%.1f us)",
               r->p50_us);
  } else if (!any_known) {
    for (int32_t i = 0; i < s->count; ++i)
      if (s->chosen < 0 ||
          static_rank(&s->candidates[i]) <
              static_rank(&s->candidates[s->chosen]))
        s->chosen = i;
    snprintf(why, sizeof why, "nothing was measured: the static rule "
                              "(engine plugins first, then GPUs, then the "
                              "order given)");
  }
  make_report(s, &o, why, skipped);
  free(db);
  *out = s;
  return NULL;
}

void hodu_selection_free(hodu_selection *s) {
  if (!s)
    return;
  for (int32_t i = 0; i < s->count; ++i) {
    candidate *c = &s->candidates[i];
    free(c->text);
    free(c->path);
    free(c->engine_name);
    free(c->message);
    free(c->engine);
    free(c->device);
    for (int32_t k = 0; k < c->num_outputs; ++k)
      free(c->outputs[k].data);
    free(c->outputs);
  }
  free(s->candidates);
  free(s->report);
  free(s);
}

int32_t hodu_selection_count(const hodu_selection *s) {
  return s ? s->count : 0;
}

const hodu_candidate_result *hodu_selection_result(const hodu_selection *s,
                                                   int32_t index) {
  return s && index >= 0 && index < s->count ? &s->candidates[index].result
                                             : NULL;
}

int32_t hodu_selection_chosen(const hodu_selection *s) {
  return s ? s->chosen : -1;
}

const char *hodu_selection_report(const hodu_selection *s) {
  return s && s->report ? s->report : "";
}
