/* Fake artifact matching ONNX's node test `test_add`: sum = x + y over
 * f32[3,4,5], so hodu-run --test-data can check real ONNX test files. */
#include "hodu/abi.h"

static int32_t add_entry(void *const *inputs, void *const *outputs,
                         void *ctx) {
  (void)ctx;
  const float *x = (const float *)inputs[0], *y = (const float *)inputs[1];
  float *sum = (float *)outputs[0];
  for (int i = 0; i < 60; ++i)
    sum[i] = x[i] + y[i];
  return 0;
}

static const int64_t shape[] = {3, 4, 5};
static const hodu_tensor_desc add_inputs[] = {
    {"x", HODU_DTYPE_F32, 3, shape}, {"y", HODU_DTYPE_F32, 3, shape}};
static const hodu_tensor_desc add_outputs[] = {
    {"sum", HODU_DTYPE_F32, 3, shape}};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "test_add", "cpu", 2, 1,
    add_inputs,       add_outputs,             add_entry};
