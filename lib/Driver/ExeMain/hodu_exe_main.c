/*===- hodu_exe_main.c - main() of executables made by hoduc --emit=exe ----===*
 *
 *   ./model [INPUT.npy ...] [-o OUTDIR]
 *
 * Reads one .npy file per model input (in model order; dtype and shape must
 * match the model), runs the model once and writes each output to
 * OUTDIR/<output name>.npy (default: the current directory), printing a
 * one-line summary per output. bf16 and f8 tensors, which NumPy has no type
 * for, are read and written as their bits (u2, u1). Exit codes: 0 ok, 2
 * error (message on stderr). Depends only on hodu/abi.h and libc: the
 * model's descriptor is linked in, and lib/Driver/CMakeLists.txt compiles
 * the runtime's .npy code (runtime/src/npy.c, shape.c) into the same
 * object.
 *
 *===----------------------------------------------------------------------===*/
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

/* Bytes of a tensor the descriptor declares (its shapes are static and
 * were checked by the compiler, so they do not overflow). */
static size_t tensor_bytes(const hodu_tensor_desc *t) {
  int64_t elements;
  size_t bytes = 0;
  hodu_shape_size(t->rank, t->shape, kDtypeSize[t->dtype], &elements, &bytes);
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

/* Whether a file of `info` holds input `t`: the same dtype and shape, where
 * booleans may also come as u1, as many tools write them. */
static int holds_input(const hodu_npy_info *info, const hodu_tensor_desc *t) {
  int dtype_ok = info->dtype == npy_dtype(t->dtype) ||
                 (t->dtype == HODU_DTYPE_BOOL && info->dtype == HODU_DTYPE_U8);
  return dtype_ok && info->rank == t->rank &&
         memcmp(info->shape, t->shape, sizeof(int64_t) * (size_t)t->rank) == 0;
}

/* Reads the .npy file at `path` into `data` after checking it against `t`. */
static int read_input(const char *path, const hodu_tensor_desc *t,
                      void *data) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail("cannot open input '%s'%s", path, "");
  hodu_npy_info info;
  char error[256];
  int ok = hodu_npy_read_header(f, &info, error, sizeof(error));
  if (ok && !holds_input(&info, t)) {
    char expected[128], got[128];
    hodu_format_shape(expected, sizeof(expected), t->rank, t->shape);
    hodu_format_shape(got, sizeof(got), info.rank, info.shape);
    fclose(f);
    fprintf(stderr,
            "error: '%s' does not hold the model's input '%s': expected %s "
            "%s, got %s %s\n",
            path, t->name, kDtypeName[npy_dtype(t->dtype)], expected,
            kDtypeName[info.dtype], got);
    return 2;
  }
  ok = ok && hodu_npy_read_data(f, &info, data, error, sizeof(error));
  fclose(f);
  return ok ? 0 : fail("'%s': %s", path, error);
}

static int write_output(const char *path, const hodu_tensor_desc *t,
                        const void *data) {
  char header[HODU_NPY_HEADER_BUFFER];
  size_t length = hodu_npy_format_header(header, sizeof(header),
                                         npy_dtype(t->dtype), t->rank,
                                         t->shape);
  if (length == 0)
    return fail("output '%s' has more extents than a .npy header holds%s",
                t->name, "");
  FILE *f = fopen(path, "wb");
  if (!f)
    return fail("cannot write '%s'%s", path, "");
  size_t bytes = tensor_bytes(t);
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
      for (int k = 0; k < m->num_inputs; ++k)
        printf("  input %d: %s\n", k, m->inputs[k].name);
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
  void **in = calloc((size_t)m->num_inputs + 1, sizeof(void *));
  void **out = calloc((size_t)m->num_outputs + 1, sizeof(void *));
  int rc = 0;
  for (int i = 0; i < m->num_inputs && !rc; ++i) {
    in[i] = malloc(tensor_bytes(&m->inputs[i]) + 1);
    rc = in[i] ? read_input(inputs[i], &m->inputs[i], in[i]) : 2;
  }
  for (int i = 0; i < m->num_outputs && !rc; ++i)
    if (!(out[i] = malloc(tensor_bytes(&m->outputs[i]) + 1)))
      rc = 2;
  int code = rc ? 0 : m->entry((void *const *)in, (void *const *)out, NULL);
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
    rc = write_output(path, &m->outputs[i], out[i]);
    if (!rc)
      printf("%s -> %s\n", m->outputs[i].name, path);
  }
  for (int i = 0; i < m->num_inputs; ++i)
    free(in[i]);
  for (int i = 0; i < m->num_outputs; ++i)
    free(out[i]);
  free(in);
  free(out);
  return rc;
}
