/* Fake artifact matching ONNX's node test `test_and2d`: and = x && y over
 * bool[3,4]. */
#include "hodu/abi.h"

static int32_t and_entry(void *const *inputs, void *const *outputs,
                         void *ctx) {
  (void)ctx;
  const uint8_t *x = (const uint8_t *)inputs[0], *y = (const uint8_t *)inputs[1];
  uint8_t *out = (uint8_t *)outputs[0];
  for (int i = 0; i < 12; ++i)
    out[i] = x[i] && y[i];
  return 0;
}

static const int64_t shape[] = {3, 4};
static const hodu_tensor_desc and_inputs[] = {
    {"x", HODU_DTYPE_BOOL, 2, shape}, {"y", HODU_DTYPE_BOOL, 2, shape}};
static const hodu_tensor_desc and_outputs[] = {
    {"and", HODU_DTYPE_BOOL, 2, shape}};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "test_and2d", "cpu", 2, 1,
    and_inputs,       and_outputs,             and_entry};
