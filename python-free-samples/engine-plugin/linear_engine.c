/*===- linear_engine.c - a sample engine plugin for .linear files ----------===*
 *
 * An engine plugin runs a model file in its own format end to end. This one
 * runs ".linear" files, a text format for one dense layer:
 *
 *   linear 1                 # the header: always the first line
 *   inputs 4                 # input x: f32[batch, 4]
 *   outputs 3                # output y: f32[batch, 3]
 *   activation relu          # none | relu | tanh
 *   weights 0.5 -1 0.25 2 ...   # outputs * inputs values, row-major
 *   bias 0.5 2 -0.5          # outputs values
 *
 * y = activation(x . W^T + b), clamped to [-clamp, clamp] when the plugin
 * option "clamp" is set (manifest.json's "options", or the environment
 * variable HODU_PLUGIN_LINEAR_CLAMP). '#' starts a comment; the values of
 * weights and bias may go on over the lines that follow, which then start
 * with a number. Every key is given once.
 *
 * It is written to be copied: it shows every part of hodu/plugin.h an
 * engine needs (the one exported symbol, the header and the engine table,
 * errors as statuses the host makes, logging, an option, outputs the caller
 * gives and outputs the engine allocates) and links nothing of Hodu -- it
 * uses the installed headers only.
 *
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L /* getline, strtok_r */

#include "hodu/plugin.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINEAR_ID "linear" /* = manifest.json's "plugin_id" */
#define LINEAR_VERSION "1.0.0"
#define LINEAR_DESCRIPTION "runs .linear files: one dense layer (a sample)"

/* Only hodu_plugin_query is exported; the build hides everything else
 * (C_VISIBILITY_PRESET hidden), so two plugins never clash. */
#define LINEAR_EXPORT __attribute__((visibility("default")))

/* Sizes are bounded so that no product below can overflow. */
#define LINEAR_MAX_SIZE (1 << 20)     /* inputs, outputs */
#define LINEAR_MAX_VALUES (1 << 26)   /* weights */

/* The host's services; set once by hodu_plugin_query, valid until the
 * library is closed. */
static const hodu_host_api *host;

enum activation { ACTIVATION_NONE, ACTIVATION_RELU, ACTIVATION_TANH };
static const char *const activation_names[] = {"none", "relu", "tanh"};

struct hodu_engine_model {
  int64_t inputs, outputs;
  enum activation activation;
  int clamped; /* the option "clamp" was set */
  float clamp;
  float *weights; /* outputs x inputs, row-major */
  float *bias;    /* outputs */
  /* The signature value() hands out: borrowed by the host until unload. */
  int64_t shape_x[2], shape_y[2];
  const char *dim_names[2]; /* {"batch", NULL}: x and y share "batch" */
};

/* Every error is a status the host makes (the plugin cannot make one),
 * prefixed with the engine's name so the user knows who speaks. */
static hodu_status fail(hodu_status_code code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static hodu_status fail(hodu_status_code code, const char *format, ...) {
  char text[1024] = "linear engine: ";
  size_t used = strlen(text);
  va_list args;
  va_start(args, format);
  vsnprintf(text + used, sizeof text - used, format, args);
  va_end(args);
  return host->make_status(code, text);
}

/*===--------------------------------------------------------------------===*
 * probe: cheap, from the first bytes only
 *===--------------------------------------------------------------------===*/

/* 2 when `head` starts with the header line "linear 1", 1 when it starts
 * with "linear " and something else (another version: load says why it
 * cannot read it), else 0. */
static int header_kind(const uint8_t *head, size_t size) {
  static const char magic[] = "linear";
  size_t n = sizeof magic - 1, i = n;
  if (size <= n || memcmp(head, magic, n) != 0 ||
      (head[n] != ' ' && head[n] != '\t'))
    return 0;
  while (i < size && (head[i] == ' ' || head[i] == '\t'))
    ++i;
  if (i >= size || head[i] != '1')
    return 1;
  ++i;
  while (i < size && (head[i] == ' ' || head[i] == '\t'))
    ++i;
  return i == size || head[i] == '\n' || head[i] == '\r' || head[i] == '#'
             ? 2
             : 1;
}

static int32_t linear_probe(const char *path, const uint8_t *head,
                            size_t head_size) {
  int kind = header_kind(head, head_size);
  if (kind == 0)
    return 0;
  if (kind == 1)
    return 10; /* ours, but not readable: load gives the reason */
  /* The header is the real proof; a renamed file (run with --engine
   * linear) is still ours, just less surely. */
  size_t length = strlen(path);
  int named = length >= 7 && strcmp(path + length - 7, ".linear") == 0;
  return named ? 100 : 80;
}

/*===--------------------------------------------------------------------===*
 * load: strict parsing; every error names the line
 *===--------------------------------------------------------------------===*/

enum key { KEY_INPUTS, KEY_OUTPUTS, KEY_ACTIVATION, KEY_WEIGHTS, KEY_BIAS };
static const char *const key_names[] = {"inputs", "outputs", "activation",
                                        "weights", "bias"};
#define NUM_KEYS 5

typedef struct values {
  float *data;
  size_t count, capacity;
} values;

typedef struct parser {
  const char *path;
  long line;
  long key_line[NUM_KEYS]; /* where each key was given; 0: not yet */
  int64_t inputs, outputs;
  enum activation activation;
  values lists[2]; /* weights, bias */
} parser;

#define SPACES " \t\r\n\v\f"

/* A token that can only be a value, not a key. */
static int starts_number(const char *token) {
  return (*token >= '0' && *token <= '9') || *token == '-' ||
         *token == '+' || *token == '.';
}

static hodu_status parse_size(parser *p, enum key key, const char *token,
                              int64_t *out) {
  if (!token)
    return fail(HODU_INVALID_ARTIFACT, "%s:%ld: '%s' needs a value",
                p->path, p->line, key_names[key]);
  char *end;
  errno = 0;
  long long value = strtoll(token, &end, 10);
  if (errno || *end || end == token || value < 1 || value > LINEAR_MAX_SIZE)
    return fail(HODU_INVALID_ARTIFACT,
                "%s:%ld: '%s' must be an integer from 1 to %d, not '%s'",
                p->path, p->line, key_names[key], LINEAR_MAX_SIZE, token);
  *out = value;
  return NULL;
}

/* Appends the values in `token` and the tokens after it to list `key`. */
static hodu_status parse_values(parser *p, enum key key, char *token,
                                char **save) {
  values *list = &p->lists[key - KEY_WEIGHTS];
  for (; token; token = strtok_r(NULL, SPACES, save)) {
    char *end;
    errno = 0;
    float value = strtof(token, &end);
    if (*end || end == token || !isfinite(value))
      return fail(HODU_INVALID_ARTIFACT,
                  "%s:%ld: '%s' is not a finite number (in '%s')", p->path,
                  p->line, token, key_names[key]);
    if (list->count == LINEAR_MAX_VALUES)
      return fail(HODU_INVALID_ARTIFACT,
                  "%s:%ld: '%s' has more than %d values", p->path, p->line,
                  key_names[key], LINEAR_MAX_VALUES);
    if (list->count == list->capacity) {
      size_t capacity = list->capacity ? 2 * list->capacity : 64;
      float *grown = realloc(list->data, capacity * sizeof *grown);
      if (!grown)
        return fail(HODU_OUT_OF_MEMORY, "out of memory reading '%s'",
                    p->path);
      list->data = grown;
      list->capacity = capacity;
    }
    list->data[list->count++] = value;
  }
  return NULL;
}

/* Nothing may follow a one-value key on its line. */
static hodu_status expect_end(parser *p, enum key key, const char *value,
                              char **save) {
  const char *extra = strtok_r(NULL, SPACES, save);
  if (extra)
    return fail(HODU_INVALID_ARTIFACT,
                "%s:%ld: unexpected '%s' after '%s %s'", p->path, p->line,
                extra, key_names[key], value);
  return NULL;
}

/* One line after the header (comments already cut off). `continues` is
 * the list key the previous line left open, or -1; it is updated. */
static hodu_status parse_line(parser *p, char *line, int *continues) {
  char *save = NULL;
  char *token = strtok_r(line, SPACES, &save);
  if (!token)
    return NULL; /* blank or comment only */
  if (starts_number(token)) {
    if (*continues < 0)
      return fail(HODU_INVALID_ARTIFACT,
                  "%s:%ld: a value with no key before it ('%s'); only "
                  "'weights' and 'bias' go on over several lines",
                  p->path, p->line, token);
    return parse_values(p, (enum key)*continues, token, &save);
  }
  int key = -1;
  for (int k = 0; k < NUM_KEYS; ++k)
    if (strcmp(token, key_names[k]) == 0)
      key = k;
  if (key < 0)
    return fail(HODU_INVALID_ARTIFACT,
                "%s:%ld: unknown key '%s' (the keys are inputs, outputs, "
                "activation, weights and bias)",
                p->path, p->line, token);
  if (p->key_line[key])
    return fail(HODU_INVALID_ARTIFACT,
                "%s:%ld: '%s' is given twice (first on line %ld)", p->path,
                p->line, token, p->key_line[key]);
  p->key_line[key] = p->line;
  *continues = -1;
  char *value = strtok_r(NULL, SPACES, &save);
  hodu_status status = NULL;
  switch ((enum key)key) {
  case KEY_INPUTS:
  case KEY_OUTPUTS:
    status = parse_size(p, (enum key)key, value,
                        key == KEY_INPUTS ? &p->inputs : &p->outputs);
    return status ? status : expect_end(p, (enum key)key, value, &save);
  case KEY_ACTIVATION:
    if (!value)
      return fail(HODU_INVALID_ARTIFACT, "%s:%ld: 'activation' needs a value",
                  p->path, p->line);
    for (int a = 0; a < 3; ++a)
      if (strcmp(value, activation_names[a]) == 0) {
        p->activation = (enum activation)a;
        return expect_end(p, KEY_ACTIVATION, value, &save);
      }
    return fail(HODU_INVALID_ARTIFACT,
                "%s:%ld: unknown activation '%s' (none, relu or tanh)",
                p->path, p->line, value);
  case KEY_WEIGHTS:
  case KEY_BIAS:
    *continues = key;
    return parse_values(p, (enum key)key, value, &save);
  }
  return NULL;
}

/* After the last line: every key given, every list of the right length. */
static hodu_status check_complete(parser *p) {
  for (int k = 0; k < NUM_KEYS; ++k)
    if (!p->key_line[k])
      return fail(HODU_INVALID_ARTIFACT, "%s: no '%s' line", p->path,
                  key_names[k]);
  if (p->inputs * p->outputs > LINEAR_MAX_VALUES)
    return fail(HODU_INVALID_ARTIFACT,
                "%s:%ld: inputs %lld x outputs %lld is more than the %d "
                "weights this engine takes",
                p->path, p->key_line[KEY_OUTPUTS], (long long)p->inputs,
                (long long)p->outputs, LINEAR_MAX_VALUES);
  size_t weights = (size_t)(p->inputs * p->outputs);
  if (p->lists[0].count != weights)
    return fail(HODU_INVALID_ARTIFACT,
                "%s:%ld: 'weights' has %zu values; outputs %lld x inputs "
                "%lld needs %zu",
                p->path, p->key_line[KEY_WEIGHTS], p->lists[0].count,
                (long long)p->outputs, (long long)p->inputs, weights);
  if (p->lists[1].count != (size_t)p->outputs)
    return fail(HODU_INVALID_ARTIFACT,
                "%s:%ld: 'bias' has %zu values; outputs %lld needs %lld",
                p->path, p->key_line[KEY_BIAS], p->lists[1].count,
                (long long)p->outputs, (long long)p->outputs);
  return NULL;
}

/* The first line is the header, exactly "linear 1". */
static hodu_status parse_header(parser *p, char *line) {
  char *save = NULL;
  char *magic = strtok_r(line, SPACES, &save);
  char *version = magic ? strtok_r(NULL, SPACES, &save) : NULL;
  char *extra = version ? strtok_r(NULL, SPACES, &save) : NULL;
  if (!magic || strcmp(magic, "linear") != 0 || !version)
    return fail(HODU_INVALID_ARTIFACT,
                "%s:1: the first line must be the header 'linear 1'",
                p->path);
  if (strcmp(version, "1") != 0)
    return fail(HODU_INVALID_ARTIFACT,
                "%s:1: format version '%s' is not supported (this engine "
                "reads version 1)",
                p->path, version);
  if (extra)
    return fail(HODU_INVALID_ARTIFACT,
                "%s:1: unexpected '%s' after the header 'linear 1'", p->path,
                extra);
  return NULL;
}

static hodu_status parse_file(parser *p, FILE *file) {
  char *line = NULL;
  size_t capacity = 0;
  ssize_t length;
  int continues = -1;
  hodu_status status = NULL;
  while (!status && (length = getline(&line, &capacity, file)) >= 0) {
    ++p->line;
    if (strlen(line) != (size_t)length) {
      status = fail(HODU_INVALID_ARTIFACT,
                    "%s:%ld: a NUL byte: not a text file", p->path, p->line);
      break;
    }
    char *comment = strchr(line, '#');
    if (comment)
      *comment = '\0';
    status = p->line == 1 ? parse_header(p, line)
                          : parse_line(p, line, &continues);
  }
  free(line);
  if (!status && ferror(file))
    status = fail(HODU_INVALID_ARTIFACT, "cannot read '%s'", p->path);
  if (!status && p->line == 0)
    status = fail(HODU_INVALID_ARTIFACT,
                  "%s is empty: the first line must be the header "
                  "'linear 1'",
                  p->path);
  return status ? status : check_complete(p);
}

/* The option "clamp": a number >= 0, or unset. */
static hodu_status read_clamp(hodu_engine_model *m) {
  const char *text = host->get_option(LINEAR_ID, "clamp");
  if (!text)
    return NULL;
  char *end;
  float value = strtof(text, &end);
  if (end == text || *end || !isfinite(value) || value < 0)
    return fail(HODU_INVALID_ARGUMENT,
                "option 'clamp' is '%s', not a number >= 0 (set it in "
                "manifest.json's \"options\" or HODU_PLUGIN_LINEAR_CLAMP)",
                text);
  m->clamped = 1;
  m->clamp = value;
  return NULL;
}

static void linear_unload(hodu_engine_model *m) {
  if (!m)
    return;
  free(m->weights);
  free(m->bias);
  free(m);
}

static hodu_status linear_load(const char *path,
                               const hodu_engine_load_options *options,
                               hodu_engine_model **out) {
  (void)options; /* num_threads: one thread is plenty for one layer */
  *out = NULL;
  FILE *file = fopen(path, "r");
  if (!file)
    return fail(HODU_NOT_FOUND, "cannot open '%s': %s", path,
                strerror(errno));
  parser p;
  memset(&p, 0, sizeof p);
  p.path = path;
  hodu_status status = parse_file(&p, file);
  fclose(file);
  hodu_engine_model *m = NULL;
  if (!status && !(m = calloc(1, sizeof *m)))
    status = fail(HODU_OUT_OF_MEMORY, "out of memory loading '%s'", path);
  if (!status)
    status = read_clamp(m);
  if (status) {
    free(p.lists[0].data);
    free(p.lists[1].data);
    linear_unload(m);
    return status;
  }
  m->inputs = p.inputs;
  m->outputs = p.outputs;
  m->activation = p.activation;
  m->weights = p.lists[0].data;
  m->bias = p.lists[1].data;
  m->shape_x[0] = m->shape_y[0] = HODU_DIM_DYNAMIC;
  m->shape_x[1] = m->inputs;
  m->shape_y[1] = m->outputs;
  m->dim_names[0] = "batch";
  m->dim_names[1] = NULL;

  char message[512];
  snprintf(message, sizeof message, "loaded '%s': %lld -> %lld, %s", path,
           (long long)m->inputs, (long long)m->outputs,
           activation_names[m->activation]);
  host->log(HODU_LOG_INFO, LINEAR_ID, message);
  *out = m;
  return NULL;
}

/*===--------------------------------------------------------------------===*
 * The signature, the run, the memory
 *===--------------------------------------------------------------------===*/

static int32_t linear_num_values(const hodu_engine_model *m,
                                 int32_t is_output) {
  (void)m;
  (void)is_output;
  return 1; /* x in, y out */
}

static hodu_status linear_value(const hodu_engine_model *m, int32_t is_output,
                                int32_t index, hodu_engine_value *out) {
  if (index != 0)
    return fail(HODU_INVALID_ARGUMENT, "%s %d does not exist (there is one)",
                is_output ? "output" : "input", (int)index);
  *out = (hodu_engine_value){is_output ? "y" : "x", HODU_DTYPE_F32, 2,
                             is_output ? m->shape_y : m->shape_x,
                             m->dim_names};
  return NULL;
}

static float activate(const hodu_engine_model *m, float value) {
  if (m->activation == ACTIVATION_RELU)
    value = value > 0 ? value : 0;
  else if (m->activation == ACTIVATION_TANH)
    value = tanhf(value);
  if (m->clamped)
    value = fminf(fmaxf(value, -m->clamp), m->clamp);
  return value;
}

static hodu_status linear_run(hodu_engine_model *m,
                              const hodu_engine_tensor *inputs,
                              int32_t num_inputs, hodu_engine_tensor *outputs,
                              int32_t num_outputs, int32_t num_threads) {
  (void)num_threads; /* as in load */
  if (num_inputs != 1 || num_outputs != 1)
    return fail(HODU_MISMATCH, "expected 1 input and 1 output, got %d and %d",
                (int)num_inputs, (int)num_outputs);
  /* The host has checked x against the signature; a plugin that may be
   * driven by other hosts checks again (it costs nothing). */
  const hodu_engine_tensor *x = &inputs[0];
  if (x->dtype != HODU_DTYPE_F32 || x->rank != 2 || x->shape[0] < 0 ||
      x->shape[1] != m->inputs)
    return fail(HODU_MISMATCH, "input 'x' must be f32[batch, %lld]",
                (long long)m->inputs);
  int64_t batch = x->shape[0];
  int64_t widest = m->inputs > m->outputs ? m->inputs : m->outputs;
  if (batch > INT64_MAX / (int64_t)sizeof(float) / widest)
    return fail(HODU_MISMATCH, "input 'x': batch %lld is too large",
                (long long)batch);
  uint64_t x_bytes = (uint64_t)(batch * m->inputs) * sizeof(float);
  uint64_t y_bytes = (uint64_t)(batch * m->outputs) * sizeof(float);
  if (x->bytes < x_bytes || (x_bytes && !x->data))
    return fail(HODU_MISMATCH, "input 'x' holds %llu bytes; f32[%lld, %lld] "
                               "needs %llu",
                (unsigned long long)x->bytes, (long long)batch,
                (long long)m->inputs, (unsigned long long)x_bytes);

  hodu_engine_tensor *y = &outputs[0];
  if (y->dtype != HODU_DTYPE_F32 || y->rank != 2)
    return fail(HODU_MISMATCH, "output 'y' must be f32 of rank 2");
  if (!y->data) {
    /* The host wants the engine to allocate: its allocator, since the host
     * frees it. Nothing below can fail, so it is never left half made. */
    y->shape[0] = batch;
    y->shape[1] = m->outputs;
    y->bytes = y_bytes;
    if (!(y->data = host->alloc(y_bytes, 64)))
      return fail(HODU_OUT_OF_MEMORY, "out of memory for output 'y' "
                                      "(%llu bytes)",
                  (unsigned long long)y_bytes);
  } else if (y->shape[0] != batch || y->shape[1] != m->outputs ||
             y->bytes < y_bytes) {
    /* The caller's buffer: its shape must be the one the run gives. */
    return fail(HODU_MISMATCH,
                "output 'y' is f32[%lld, %lld] (%llu bytes); this run gives "
                "f32[%lld, %lld]",
                (long long)y->shape[0], (long long)y->shape[1],
                (unsigned long long)y->bytes, (long long)batch,
                (long long)m->outputs);
  }

  const float *xs = x->data;
  float *ys = y->data;
  for (int64_t b = 0; b < batch; ++b) {
    const float *row = xs + b * m->inputs;
    for (int64_t o = 0; o < m->outputs; ++o) {
      const float *w = m->weights + o * m->inputs;
      float sum = m->bias[o];
      for (int64_t i = 0; i < m->inputs; ++i)
        sum += row[i] * w[i];
      ys[b * m->outputs + o] = activate(m, sum);
    }
  }
  return NULL;
}

static hodu_status linear_memory_bytes(const hodu_engine_model *m,
                                       uint64_t *bytes) {
  *bytes = sizeof *m +
           (uint64_t)(m->outputs * m->inputs + m->outputs) * sizeof(float);
  return NULL;
}

/*===--------------------------------------------------------------------===*
 * The tables and the one exported function
 *===--------------------------------------------------------------------===*/

static const char *const extensions[] = {".linear", NULL};

static const hodu_engine_plugin_v1 engine = {
    sizeof(hodu_engine_plugin_v1),
    "linear", /* = manifest.json's "engines" */
    extensions,
    linear_probe,
    linear_load,
    linear_unload,
    linear_num_values,
    linear_value,
    linear_run,
    linear_memory_bytes};

static const void *get_interface(uint32_t kind, uint32_t version) {
  return kind == HODU_PLUGIN_ENGINE && version == 1 ? &engine : NULL;
}

/* id, version and kinds must equal manifest.json's, or the host refuses
 * the library. */
static const hodu_plugin_header header = {
    sizeof(hodu_plugin_header),
    HODU_PLUGIN_ABI_VERSION,
    LINEAR_ID,
    LINEAR_VERSION,
    LINEAR_DESCRIPTION,
    HODU_PLUGIN_ENGINE,
    0,
    NULL, /* a runtime plugin: no toolchain */
    get_interface,
    NULL}; /* shutdown: nothing global to release */

LINEAR_EXPORT const hodu_plugin_header *
hodu_plugin_query(uint32_t max_abi_version, const hodu_host_api *api) {
  /* Refuse a host too old for ABI 1, or one whose table ends before the
   * last member used here (get_option). */
  if (max_abi_version < 1 || !api ||
      api->struct_size <
          offsetof(hodu_host_api, get_option) + sizeof(api->get_option))
    return NULL;
  host = api;
  return &header;
}
