/*===- toy_format.c - a format plugin for the plugin host's tests ----------===*
 *
 * Converts ".toylin" files, a text format made for these tests, into
 * hodu-dialect MLIR that hoduc compiles:
 *
 *   toylin 1
 *   batch 2
 *   inputs 4
 *   outputs 3
 *   relu 1
 *   weights 0.5 -1 ...   # inputs x outputs, row-major
 *   bias 0.1 ...         # outputs
 *
 * y = relu?(x @ weights + bias), x: f32[batch, inputs]. TOY_FORMAT_BROKEN
 * builds a variant that converts into text hoduc cannot parse.
 *
 *===----------------------------------------------------------------------===*/
#include "hodu/plugin.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_VALUES 65536

static const hodu_host_api *host;

static hodu_status fail(const char *message) {
  char text[512];
  snprintf(text, sizeof text, "toylin format: %s", message);
  return host->make_status(HODU_INVALID_ARTIFACT, text);
}

static int32_t probe(const char *path, const uint8_t *head, size_t size) {
  return size >= 7 && memcmp(head, "toylin ", 7) == 0 ? 50 : 0;
}

/* Appends printf output to a growing buffer. */
typedef struct buffer {
  char *data;
  size_t size, capacity;
  int failed;
} buffer;

static void put(buffer *b, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void put(buffer *b, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(NULL, 0, format, args);
  va_end(args);
  if (n < 0 || b->failed)
    return;
  if (b->size + (size_t)n + 1 > b->capacity) {
    size_t capacity = (b->size + (size_t)n + 1) * 2;
    char *grown = realloc(b->data, capacity);
    if (!grown) {
      b->failed = 1;
      return;
    }
    b->data = grown;
    b->capacity = capacity;
  }
  va_start(args, format);
  vsnprintf(b->data + b->size, (size_t)n + 1, format, args);
  va_end(args);
  b->size += (size_t)n;
}

static void put_values(buffer *b, const float *v, long rows, long cols) {
  put(b, "dense<[");
  for (long r = 0; r < rows; ++r) {
    put(b, "%s", r ? ", " : "");
    if (cols)
      put(b, "[");
    long n = cols ? cols : 1;
    for (long c = 0; c < n; ++c)
      put(b, "%s%.9e", c ? ", " : "", (double)v[r * n + c]);
    if (cols)
      put(b, "]");
  }
  put(b, "]>");
}

static hodu_status convert(const char *path, void **bytes, uint64_t *size,
                           const char **format) {
  FILE *file = fopen(path, "r");
  if (!file)
    return fail("cannot open the file");
  long batch = 0, in = 0, out = 0, relu = 0;
  int version = 0;
  int ok = fscanf(file, "toylin %d", &version) == 1 && version == 1;
  ok = ok && fscanf(file, " batch %ld inputs %ld outputs %ld relu %ld",
                    &batch, &in, &out, &relu) == 4;
  ok = ok && batch > 0 && in > 0 && out > 0 && in * out <= MAX_VALUES &&
       batch <= MAX_VALUES;
  float *w = ok ? calloc((size_t)(in * out), sizeof *w) : NULL;
  float *bias = ok ? calloc((size_t)out, sizeof *bias) : NULL;
  ok = ok && w && bias && fscanf(file, " weights") == 0;
  for (long i = 0; ok && i < in * out; ++i)
    ok = fscanf(file, "%f", &w[i]) == 1;
  ok = ok && fscanf(file, " bias") == 0;
  for (long i = 0; ok && i < out; ++i)
    ok = fscanf(file, "%f", &bias[i]) == 1;
  fclose(file);
  if (!ok) {
    free(w);
    free(bias);
    return fail("malformed .toylin file");
  }
  buffer b = {0};
  char x[64], wt[64], y[64], bt[64];
  snprintf(x, sizeof x, "tensor<%ldx%ldxf32>", batch, in);
  snprintf(wt, sizeof wt, "tensor<%ldx%ldxf32>", in, out);
  snprintf(y, sizeof y, "tensor<%ldx%ldxf32>", batch, out);
  snprintf(bt, sizeof bt, "tensor<%ldxf32>", out);
#ifdef TOY_FORMAT_BROKEN
  put(&b, "this is not MLIR {\n");
#endif
  put(&b, "module attributes {hodu.model_name = \"toylin\"} {\n");
  put(&b, "  func.func @main(%%x: %s {hodu.name = \"x\"}) -> (%s {hodu.name "
          "= \"y\"}) {\n",
      x, y);
  put(&b, "    %%w = hodu.constant ");
  put_values(&b, w, in, out);
  put(&b, " : %s\n    %%b = hodu.constant ", wt);
  put_values(&b, bias, out, 0);
  put(&b, " : %s\n", bt);
  put(&b, "    %%m = hodu.matmul %%x, %%w : (%s, %s) -> %s\n", x, wt, y);
  put(&b, "    %%a = hodu.add %%m, %%b : (%s, %s) -> %s\n", y, bt, y);
  if (relu)
    put(&b, "    %%r = hodu.relu %%a : (%s) -> %s\n    return %%r : %s\n", y,
        y, y);
  else
    put(&b, "    return %%a : %s\n", y);
  put(&b, "  }\n}\n");
  free(w);
  free(bias);
  if (b.failed || !b.data) {
    free(b.data);
    return fail("out of memory");
  }
  /* The host frees what host->alloc gave. */
  void *copy = host->alloc(b.size, 16);
  if (!copy) {
    free(b.data);
    return fail("out of memory");
  }
  memcpy(copy, b.data, b.size);
  free(b.data);
  *bytes = copy;
  *size = b.size;
  *format = ".mlir";
  return NULL;
}

static const char *const extensions[] = {".toylin", NULL};
static const hodu_format_plugin_v1 format_table = {
    sizeof(hodu_format_plugin_v1), "toylin", extensions, probe, convert};

static const void *get_interface(uint32_t kind, uint32_t version) {
  return kind == HODU_PLUGIN_FORMAT && version == 1 ? &format_table : NULL;
}

static const hodu_plugin_header header = {
    sizeof(hodu_plugin_header),
    HODU_PLUGIN_ABI_VERSION,
    TOY_FORMAT_ID,
    "1.0.0",
    "converts .toylin dense layers into hodu MLIR",
    HODU_PLUGIN_FORMAT,
    0,
    NULL,
    get_interface,
    NULL};

EXPORT const hodu_plugin_header *
hodu_plugin_query(uint32_t max_abi_version, const hodu_host_api *api) {
  if (max_abi_version < 1 || !api)
    return NULL;
  host = api;
  return &header;
}
