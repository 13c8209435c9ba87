/* Runs a bundle with one symbol (a batch, first input and first output)
 * through libhodurt's C API at several values: host tensors, device
 * tensors (which must give the same bits: the same kernels run on the same
 * slices), and a captured session replayed, then bound at another value. */
#include "../try.h"
#include "hodu/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fill(hodu_tensor *t) {
  float *data = hodu_tensor_data(t);
  size_t n = hodu_tensor_bytes(t) / sizeof(float);
  for (size_t i = 0; i < n; ++i)
    data[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
}

static int run_at(const hodu_model *m, int64_t n) {
  int64_t values[1] = {n};
  hodu_tensor *x = NULL, *y = NULL, *dx = NULL, *dy = NULL;
  TRY(hodu_model_create_input_with_symbols(m, 0, values, 1, &x));
  fill(x);
  const hodu_tensor *inputs[] = {x};
  TRY(hodu_model_run_alloc(m, inputs, 1, &y, 1));
  /* Device tensors at the resolved shapes. */
  TRY(hodu_model_create_device_tensor(
      m, hodu_tensor_dtype(x), hodu_tensor_rank(x), hodu_tensor_shape(x), &dx));
  TRY(hodu_model_create_device_tensor(
      m, hodu_tensor_dtype(y), hodu_tensor_rank(y), hodu_tensor_shape(y), &dy));
  TRY(hodu_tensor_write(dx, hodu_tensor_data(x), hodu_tensor_bytes(x)));
  const hodu_tensor *device_inputs[] = {dx};
  hodu_tensor *device_outputs[] = {dy};
  TRY(hodu_model_run(m, device_inputs, 1, device_outputs, 1));
  size_t bytes = hodu_tensor_bytes(y);
  float *got = malloc(bytes ? bytes : 1);
  TRY(hodu_tensor_read(dy, got, bytes));
  int same = memcmp(got, hodu_tensor_data(y), bytes) == 0;
  printf("n=%lld: y[%lld,...] device tensors %s\n", (long long)n,
         (long long)hodu_tensor_shape(y)[0], same ? "same" : "DIFFER");
  free(got);
  hodu_tensor_free(x);
  hodu_tensor_free(y);
  hodu_tensor_free(dx);
  hodu_tensor_free(dy);
  return 0;
}

static int replay_at(const hodu_model *m, int64_t n, int64_t other) {
  int64_t values[1] = {n};
  hodu_tensor *x = NULL, *y = NULL, *ref = NULL;
  TRY(hodu_model_create_input_with_symbols(m, 0, values, 1, &x));
  TRY(hodu_model_create_output_with_symbols(m, 0, values, 1, &y));
  fill(x);
  const hodu_tensor *inputs[] = {x};
  TRY(hodu_model_run_alloc(m, inputs, 1, &ref, 1));
  hodu_session *s = NULL;
  TRY(hodu_session_create(m, &s));
  TRY(hodu_session_bind(s, inputs, 1, &y, 1));
  TRY(hodu_session_run(s));
  TRY(hodu_session_capture(s));
  memset(hodu_tensor_data(y), 0, hodu_tensor_bytes(y));
  TRY(hodu_session_replay(s, 2));
  printf("n=%lld: replay %s\n", (long long)n,
         memcmp(hodu_tensor_data(y), hodu_tensor_data(ref),
                hodu_tensor_bytes(y)) == 0
             ? "same"
             : "DIFFER");
  /* Another value while captured: the recording is of n's passes. */
  int64_t other_values[1] = {other};
  hodu_tensor *x2 = NULL, *y2 = NULL;
  TRY(hodu_model_create_input_with_symbols(m, 0, other_values, 1, &x2));
  TRY(hodu_model_create_output_with_symbols(m, 0, other_values, 1, &y2));
  const hodu_tensor *inputs2[] = {x2};
  hodu_status status = hodu_session_bind(s, inputs2, 1, &y2, 1);
  printf("bind at %lld: %s\n", (long long)other,
         status ? hodu_status_message(status) : "ok");
  hodu_status_free(status);
  hodu_session_free(s);
  hodu_tensor_free(x);
  hodu_tensor_free(y);
  hodu_tensor_free(ref);
  hodu_tensor_free(x2);
  hodu_tensor_free(y2);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  hodu_model *m = NULL;
  TRY(hodu_model_load(argv[1], &m));
  const hodu_symbol_desc *symbol = hodu_model_symbol(m, 0);
  const hodu_dynamic_dim *dim = hodu_model_dynamic_dim(m, 0, 0, 0);
  if (!symbol || !dim)
    return printf("no symbol\n"), 1;
  printf("symbol %s chunk %lld, input 0 dim 0 is %lld*%s\n", symbol->name,
         (long long)symbol->chunk, (long long)dim->scale,
         hodu_model_symbol_name(m, dim->symbol));
  int64_t ns[] = {1, 2, 3, 5, 8};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; ++i)
    if (run_at(m, ns[i]))
      return 1;
  if (replay_at(m, 5, 3) || replay_at(m, 2, 4))
    return 1;
  hodu_model_free(m);
  return 0;
}
