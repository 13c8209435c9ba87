/* Runs a model library without libhodurt, as abi.h allows: dlopen, the
 * descriptor, its entry.
 *   dlopen_entry MODEL.so OUT_DIR
 * Input i, element k holds (((k + 1) * (7919 + 104729 i)) % 23 - 11) / 8,
 * as inputs_for.py writes them; each output goes to OUT_DIR/<name>.npy.
 * f32 and f64 tensors only. */
#include "hodu/abi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t count(const hodu_tensor_desc *t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->rank; ++i)
    n *= t->shape[i];
  return n;
}

static int write_npy(const char *dir, const hodu_tensor_desc *t,
                     const void *data) {
  char path[4096], header[512], shape[256] = "";
  snprintf(path, sizeof path, "%s/%s.npy", dir, t->name);
  for (int32_t i = 0; i < t->rank; ++i)
    snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%lld,%s",
             (long long)t->shape[i], i + 1 < t->rank ? " " : "");
  int f64 = t->dtype == HODU_DTYPE_F64;
  int n = snprintf(header, sizeof header,
                   "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                   f64 ? "<f8" : "<f4", shape);
  while ((10 + n + 1) % 64)
    header[n++] = ' ';
  header[n++] = '\n';
  FILE *f = fopen(path, "wb");
  if (!f)
    return 0;
  unsigned char magic[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)(n & 0xff), (unsigned char)(n >> 8)};
  fwrite(magic, 1, 10, f);
  fwrite(header, 1, (size_t)n, f);
  fwrite(data, f64 ? 8 : 4, (size_t)count(t), f);
  return fclose(f) == 0;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  const hodu_model_desc *d = dlsym(lib, HODU_DESCRIPTOR_SYMBOL);
  if (!d)
    return 1;
  void **in = calloc((size_t)d->num_inputs + 1, sizeof *in);
  void **out = calloc((size_t)d->num_outputs + 1, sizeof *out);
  for (int32_t i = 0; i < d->num_inputs; ++i) {
    int64_t n = count(&d->inputs[i]);
    int f64 = d->inputs[i].dtype == HODU_DTYPE_F64;
    void *x = malloc((size_t)n * (f64 ? 8 : 4));
    for (int64_t k = 0; k < n; ++k) {
      double v = (double)(((k + 1) * (7919 + 104729 * (int64_t)i)) % 23 - 11) / 8.0;
      if (f64)
        ((double *)x)[k] = v;
      else
        ((float *)x)[k] = (float)v;
    }
    in[i] = x;
  }
  for (int32_t i = 0; i < d->num_outputs; ++i)
    out[i] = calloc((size_t)count(&d->outputs[i]), 8);
  int32_t rc = d->entry(in, out, NULL);
  printf("entry returned %d\n", rc);
  for (int32_t i = 0; i < d->num_outputs && rc == 0; ++i)
    if (!write_npy(argv[2], &d->outputs[i], out[i]))
      return 1;
  return rc != 0;
}
