/*===- hodu_exe_main.c - main() of executables made by hoduc --emit=exe ----===*
 *
 *   ./model [INPUT.npy ...] [-o OUTDIR]
 *
 * Reads one .npy file per model input (in model order; dtype and shape must
 * match the model), runs the model once and writes each output to
 * OUTDIR/<output name>.npy (default: the current directory), printing a
 * one-line summary per output. A model with symbolic dims takes the shapes
 * of its files: the symbols bind from them with libhodurt's checks and
 * messages (runtime/src/dims.c), the entry gets their values, and the
 * outputs are written at the shapes those give. bf16 and f8 tensors, which
 * NumPy has no type for, are read and written as their bits (u2, u1). Exit
 * codes: 0 ok, 2 error (message on stderr; no output written). Depends
 * only on hodu/abi.h and libc: the model's descriptor is linked in, and
 * lib/Driver/CMakeLists.txt compiles the runtime's .npy and dims code
 * (runtime/src/npy.c, shape.c, dims.c) into the same object.
 *
 *===----------------------------------------------------------------------===*/
#include "dims.h"
#include "hodu/abi.h"
#include "npy.h"
#include "shape.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const hodu_model_desc hodu_model_descriptor;

#define HODU_DTYPE_NAME_(id, value, name, size, storage) [value] = name,
static const char *const kDtypeName[HODU_DTYPE_COUNT] = {
    HODU_DTYPE_LIST(HODU_DTYPE_NAME_)};
#undef HODU_DTYPE_NAME_
#define HODU_DTYPE_SIZE_(id, value, name, size, storage) [value] = size,
static const size_t kDtypeSize[HODU_DTYPE_COUNT] = {
    HODU_DTYPE_LIST(HODU_DTYPE_SIZE_)};
#undef HODU_DTYPE_SIZE_

/* Bytes of a tensor of `t`'s dtype at `shape` (the descriptor's, checked
 * by the compiler, or one resolved from symbol values within their bounds,
 * so they do not overflow). */
static size_t tensor_bytes(const hodu_tensor_desc *t, const int64_t *shape) {
  int64_t elements;
  size_t bytes = 0;
  hodu_shape_size(t->rank, shape, kDtypeSize[t->dtype], &elements, &bytes);
  return bytes;
}

static int fail(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "error: ");
  fprintf(stderr, fmt, a, b);
  fprintf(stderr, "\n");
  return 2;
}

/* The dtype of the .npy file for a model tensor of `dtype`: NumPy has no
 * bf16 or f8, so those travel as their bits, in the unsigned type of their
 * width. */
static hodu_dtype npy_dtype(int32_t dtype) {
  switch (dtype) {
  case HODU_DTYPE_BF16:
    return HODU_DTYPE_U16;
  case HODU_DTYPE_F8E4M3:
  case HODU_DTYPE_F8E5M2:
    return HODU_DTYPE_U8;
  default:
    return (hodu_dtype)dtype;
  }
}

/* Whether a file of `info` holds input `t`: the same dtype and (where
 * `t` has no dynamic dim; those are checked when the symbols bind) shape,
 * where booleans may also come as u1, as many tools write them. */
static int holds_input(const hodu_npy_info *info, const hodu_tensor_desc *t) {
  int dtype_ok = info->dtype == npy_dtype(t->dtype) ||
                 (t->dtype == HODU_DTYPE_BOOL && info->dtype == HODU_DTYPE_U8);
  for (int32_t d = 0; d < t->rank; ++d)
    if (t->shape[d] == HODU_DIM_DYNAMIC)
      return dtype_ok;
  return dtype_ok && info->rank == t->rank &&
         memcmp(info->shape, t->shape, sizeof(int64_t) * (size_t)t->rank) == 0;
}

/* Opens the .npy file at `path` and reads its header into `info`,
 * checking it against input `index`; the file is left at the data. */
static FILE *open_input(const hodu_model_desc *m, int32_t index,
                        const char *path, hodu_npy_info *info) {
  const hodu_tensor_desc *t = &m->inputs[index];
  FILE *f = fopen(path, "rb");
  if (!f) {
    fail("cannot open input '%s'%s", path, "");
    return NULL;
  }
  char error[256];
  if (!hodu_npy_read_header(f, info, error, sizeof(error))) {
    fclose(f);
    fail("'%s': %s", path, error);
    return NULL;
  }
  if (!holds_input(info, t)) {
    char expected[256], got[128];
    hodu_format_symbolic_shape(expected, sizeof(expected), m, 0, index);
    hodu_format_shape(got, sizeof(got), info->rank, info->shape);
    fclose(f);
    fprintf(stderr,
            "error: '%s' does not hold the model's input '%s': expected %s "
            "%s, got %s %s\n",
            path, t->name, kDtypeName[npy_dtype(t->dtype)], expected,
            kDtypeName[info->dtype], got);
    return NULL;
  }
  return f;
}

static int write_output(const char *path, const hodu_tensor_desc *t,
                        const int64_t *shape, const void *data) {
  char header[HODU_NPY_HEADER_BUFFER];
  size_t length = hodu_npy_format_header(header, sizeof(header),
                                         npy_dtype(t->dtype), t->rank, shape);
  if (length == 0)
    return fail("output '%s' has more extents than a .npy header holds%s",
                t->name, "");
  FILE *f = fopen(path, "wb");
  if (!f)
    return fail("cannot write '%s'%s", path, "");
  size_t bytes = tensor_bytes(t, shape);
  int ok = fwrite(header, 1, length, f) == length &&
           fwrite(data, 1, bytes, f) == bytes;
  ok &= fclose(f) == 0;
  return ok ? 0 : fail("error writing '%s'%s", path, "");
}

int main(int argc, char **argv) {
  const hodu_model_desc *m = &hodu_model_descriptor;
  const char *outdir = ".";
  const char *inputs[256];
  int n_in = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf("usage: %s [INPUT.npy ...] [-o OUTDIR]\nmodel '%s': %d input(s), %d output(s)\n",
             argv[0], m->model_name, m->num_inputs, m->num_outputs);
      for (int k = 0; k < m->num_inputs; ++k) {
        char shape[256];
        hodu_format_symbolic_shape(shape, sizeof(shape), m, 0, k);
        printf("  input %d: %s %s%s\n", k, m->inputs[k].name,
               kDtypeName[m->inputs[k].dtype], shape);
      }
      /* A symbol's value comes from the input files' shapes. */
      for (int32_t k = 0; k < hodu_desc_num_symbols(m); ++k) {
        const hodu_symbol_desc *symbol = &m->symbols[k];
        printf("  symbol %s: %lld..", symbol->name, (long long)symbol->min);
        if (symbol->max >= 0)
          printf("%lld", (long long)symbol->max);
        if (symbol->multiple > 1)
          printf(", a multiple of %lld", (long long)symbol->multiple);
        printf("\n");
      }
      return 0;
    }
    if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      outdir = argv[++i];
    } else if (n_in < 256) {
      inputs[n_in++] = argv[i];
    }
  }
  if (n_in != m->num_inputs) {
    fprintf(stderr, "error: model '%s' takes %d input file(s), got %d (see --help)\n",
            m->model_name, m->num_inputs, n_in);
    return 2;
  }
  size_t n = (size_t)m->num_inputs, n_out = (size_t)m->num_outputs;
  int32_t n_symbols = hodu_desc_num_symbols(m);
  void **in = calloc(n + 1, sizeof(void *));
  void **out = calloc(n_out + 1, sizeof(void *));
  FILE **files = calloc(n + 1, sizeof(FILE *));
  hodu_npy_info *infos = calloc(n + 1, sizeof(hodu_npy_info));
  int32_t *ranks = calloc(n + 1, sizeof(int32_t));
  const int64_t **shapes = calloc(n + 1, sizeof(int64_t *));
  int64_t *values = calloc((size_t)n_symbols + 1, sizeof(int64_t));
  /* Every output's shape, resolved from the symbol values. */
  int64_t **out_shapes = calloc(n_out + 1, sizeof(int64_t *));
  int rc =
      in && out && files && infos && ranks && shapes && values && out_shapes
          ? 0
          : fail("out of memory%s%s", "", "");
  for (size_t i = 0; i < n && !rc; ++i) {
    files[i] = open_input(m, (int32_t)i, inputs[i], &infos[i]);
    rc = files[i] ? 0 : 2;
    ranks[i] = infos[i].rank;
    shapes[i] = infos[i].shape;
  }
  char message[1024];
  if (!rc && n_symbols &&
      !hodu_dims_bind(m, m->model_name, n, ranks, shapes, values, message,
                      sizeof(message)))
    rc = fail("%s%s", message, "");
  for (size_t i = 0; i < n_out && !rc; ++i) {
    const hodu_tensor_desc *t = &m->outputs[i];
    out_shapes[i] = calloc((size_t)t->rank + 1, sizeof(int64_t));
    if (!out_shapes[i])
      rc = fail("out of memory%s%s", "", "");
    else if (!hodu_dims_resolve(m, m->model_name, 1, (int32_t)i,
                                n_symbols ? values : NULL, out_shapes[i],
                                message, sizeof(message)))
      rc = fail("%s%s", message, "");
  }
  for (size_t i = 0; i < n && !rc; ++i) {
    char error[256];
    in[i] = malloc(infos[i].bytes + 1);
    if (!in[i])
      rc = fail("out of memory%s%s", "", "");
    else if (!hodu_npy_read_data(files[i], &infos[i], in[i], error,
                                 sizeof(error)))
      rc = fail("'%s': %s", inputs[i], error);
  }
  for (size_t i = 0; i < n_out && !rc; ++i)
    if (!(out[i] = malloc(tensor_bytes(&m->outputs[i], out_shapes[i]) + 1)))
      rc = 2;
  /* The entry reads the symbols' values from its context (NULL and 0 for
   * a model without them); the rest is the defaults of a NULL ctx. */
  hodu_run_context context = {sizeof(hodu_run_context),  0,        NULL, 0,
                              n_symbols ? values : NULL, n_symbols};
  int code = rc ? 0 : m->entry((void *const *)in, (void *const *)out, &context);
  if (code) {
    int has_checks =
        m->struct_size >=
        offsetof(hodu_model_desc, check_messages) + sizeof(m->check_messages);
    if (code >= 2 && has_checks && code - 2 < m->num_checks &&
        m->check_messages)
      fprintf(stderr,
              "error: model '%s': the input data breaks a run-time check: %s\n",
              m->model_name, m->check_messages[code - 2]);
    else if (code == 1)
      fprintf(stderr, "error: model '%s' failed to run: out of memory\n",
              m->model_name);
    else
      fprintf(stderr, "error: model '%s' failed to run (code %d)\n",
              m->model_name, code);
    rc = 2;
  }
  for (int i = 0; i < m->num_outputs && !rc; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", outdir, m->outputs[i].name);
    for (char *p = path + strlen(outdir) + 1; *p; ++p)
      if (*p == '/' || *p == ':')
        *p = '_';
    rc = write_output(path, &m->outputs[i], out_shapes[i], out[i]);
    if (!rc)
      printf("%s -> %s\n", m->outputs[i].name, path);
  }
  for (size_t i = 0; i < n; ++i) {
    if (files && files[i])
      fclose(files[i]);
    if (in)
      free(in[i]);
  }
  for (size_t i = 0; i < n_out; ++i) {
    if (out)
      free(out[i]);
    if (out_shapes)
      free(out_shapes[i]);
  }
  free(in);
  free(out);
  free(files);
  free(infos);
  free(ranks);
  free(shapes);
  free(values);
  free(out_shapes);
  return rc;
}
