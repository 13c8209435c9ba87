/* Fake artifact over i64 with a scalar output: s = a + 1 (i64[4]) and
 * total = sum(a) (i64[], rank 0). */
#include "hodu/abi.h"

static int32_t count_entry(void *const *inputs, void *const *outputs,
                           void *ctx) {
  (void)ctx;
  const int64_t *a = (const int64_t *)inputs[0];
  int64_t *s = (int64_t *)outputs[0];
  int64_t *total = (int64_t *)outputs[1];
  *total = 0;
  for (int i = 0; i < 4; ++i) {
    s[i] = a[i] + 1;
    *total += a[i];
  }
  return 0;
}

static const int64_t a_shape[] = {4};
static const hodu_tensor_desc count_inputs[] = {
    {"a", HODU_DTYPE_I64, 1, a_shape}};
static const hodu_tensor_desc count_outputs[] = {
    {"s", HODU_DTYPE_I64, 1, a_shape},
    {"total", HODU_DTYPE_I64, 0, 0},
};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "count", "cpu", 1, 2,
    count_inputs,     count_outputs,           count_entry};
