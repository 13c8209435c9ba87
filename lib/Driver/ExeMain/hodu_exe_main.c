/*===- hodu_exe_main.c - main() of executables made by hoduc --emit=exe ----===*
 *
 *   ./model [INPUT.npy ...] [-o OUTDIR]
 *
 * Reads one .npy file per model input (in model order; dtype and shape must
 * match the model), runs the model once and writes each output to
 * OUTDIR/<output name>.npy (default: the current directory), printing a
 * one-line summary per output. Exit codes: 0 ok, 2 error (message on stderr).
 * Depends only on hodu/abi.h and libc: the model's descriptor is linked in.
 *
 *===----------------------------------------------------------------------===*/
#include "hodu/abi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const hodu_model_desc hodu_model_descriptor;

static const char *const kDescr[HODU_DTYPE_COUNT] = {
    "|b1", "|u1", "|u1", "<u2", "<f2", "<f4", "<f8", "|u1",
    "<u2", "<u4", "<u8", "|i1", "<i2", "<i4", "<i8"};
static const int kSize[HODU_DTYPE_COUNT] = {1, 1, 1, 2, 2, 4, 8, 1,
                                            2, 4, 8, 1, 2, 4, 8};

static size_t num_elements(const hodu_tensor_desc *t) {
  size_t n = 1;
  for (int i = 0; i < t->rank; ++i)
    n *= (size_t)t->shape[i];
  return n;
}

static int fail(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "error: ");
  fprintf(stderr, fmt, a, b);
  fprintf(stderr, "\n");
  return 2;
}

/* Reads a .npy file (v1-v3, C order) and checks it against `t`. */
static int read_npy(const char *path, const hodu_tensor_desc *t, void *data) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail("cannot open input '%s'%s", path, "");
  unsigned char magic[10];
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return fail("'%s' is not a .npy file%s", path, "");
  }
  uint32_t hlen = 0;
  if (magic[6] == 1) {
    unsigned char l[2];
    if (fread(l, 1, 2, f) != 2) { fclose(f); return fail("'%s': truncated header%s", path, ""); }
    hlen = l[0] | (l[1] << 8);
  } else {
    unsigned char l[4];
    if (fread(l, 1, 4, f) != 4) { fclose(f); return fail("'%s': truncated header%s", path, ""); }
    hlen = l[0] | (l[1] << 8) | (l[2] << 16) | ((uint32_t)l[3] << 24);
  }
  char *header = calloc(1, hlen + 1);
  if (!header || fread(header, 1, hlen, f) != hlen) {
    free(header);
    fclose(f);
    return fail("'%s': truncated header%s", path, "");
  }
  char expect[64];
  snprintf(expect, sizeof expect, "'%s'", kDescr[t->dtype]);
  /* bool is also written as '|b1' or '|u1' by various tools. */
  int dtype_ok = strstr(header, expect) != NULL ||
                 (t->dtype == HODU_DTYPE_BOOL && strstr(header, "'|u1'"));
  /* numpy writes (2, 3), (3,) and (). */
  char shape[512] = "(";
  for (int i = 0; i < t->rank; ++i) {
    char d[32];
    snprintf(d, sizeof d, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
    strncat(shape, d, sizeof shape - strlen(shape) - 1);
  }
  strncat(shape, t->rank == 1 ? ",)" : ")", sizeof shape - strlen(shape) - 1);
  int shape_ok = strstr(header, shape) != NULL;
  int fortran = strstr(header, "'fortran_order': True") != NULL;
  free(header);
  if (!dtype_ok || !shape_ok || fortran) {
    fclose(f);
    return fail("'%s' does not hold the model's input '%s' (dtype, shape or order differ)",
                path, t->name);
  }
  size_t bytes = num_elements(t) * (size_t)kSize[t->dtype];
  size_t got = fread(data, 1, bytes, f);
  fclose(f);
  if (got != bytes)
    return fail("'%s': expected more data for input '%s'", path, t->name);
  return 0;
}

static int write_npy(const char *path, const hodu_tensor_desc *t, const void *data) {
  char shape[512] = "";
  for (int i = 0; i < t->rank; ++i) {
    char d[32];
    snprintf(d, sizeof d, "%lld,", (long long)t->shape[i]);
    strncat(shape, d, sizeof shape - strlen(shape) - 1);
  }
  char header[640];
  int n = snprintf(header, sizeof header,
                   "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                   kDescr[t->dtype], shape);
  int total = 10 + n + 1;
  int pad = (64 - total % 64) % 64;
  FILE *f = fopen(path, "wb");
  if (!f)
    return fail("cannot write '%s'%s", path, "");
  unsigned short hlen = (unsigned short)(n + pad + 1);
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  fputc(hlen & 0xff, f);
  fputc(hlen >> 8, f);
  fwrite(header, 1, (size_t)n, f);
  for (int i = 0; i < pad; ++i)
    fputc(' ', f);
  fputc('\n', f);
  size_t bytes = num_elements(t) * (size_t)kSize[t->dtype];
  int ok = fwrite(data, 1, bytes, f) == bytes;
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
    in[i] = malloc(num_elements(&m->inputs[i]) * (size_t)kSize[m->inputs[i].dtype] + 1);
    rc = in[i] ? read_npy(inputs[i], &m->inputs[i], in[i]) : 2;
  }
  for (int i = 0; i < m->num_outputs && !rc; ++i)
    if (!(out[i] = malloc(num_elements(&m->outputs[i]) * (size_t)kSize[m->outputs[i].dtype] + 1)))
      rc = 2;
  if (!rc && m->entry((void *const *)in, (void *const *)out, NULL) != 0) {
    fprintf(stderr, "error: model '%s' failed to run\n", m->model_name);
    rc = 2;
  }
  for (int i = 0; i < m->num_outputs && !rc; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", outdir, m->outputs[i].name);
    for (char *p = path + strlen(outdir) + 1; *p; ++p)
      if (*p == '/' || *p == ':')
        *p = '_';
    rc = write_npy(path, &m->outputs[i], out[i]);
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
