/* Fake artifact: y = x * 2 + b, x: f32[2,3], b: f32[3] (broadcast over
 * rows), y: f32[2,3]. Stands in for hoduc output in the runtime tests. */
#include "hodu/abi.h"

static int32_t affine_entry(void *const *inputs, void *const *outputs,
                            void *ctx) {
  (void)ctx;
  const float *x = (const float *)inputs[0];
  const float *b = (const float *)inputs[1];
  float *y = (float *)outputs[0];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      y[i * 3 + j] = x[i * 3 + j] * 2.0f + b[j];
  return 0;
}

static const int64_t x_shape[] = {2, 3};
static const int64_t b_shape[] = {3};
static const hodu_tensor_desc affine_inputs[] = {
    {"x", HODU_DTYPE_F32, 2, x_shape},
    {"b", HODU_DTYPE_F32, 1, b_shape},
};
static const hodu_tensor_desc affine_outputs[] = {
    {"y", HODU_DTYPE_F32, 2, x_shape},
};

#define AFFINE_DESC                                                            \
  {HODU_ABI_VERSION, sizeof(hodu_model_desc), "affine", "cpu", 2, 1,           \
   affine_inputs, affine_outputs, affine_entry}

const hodu_model_desc affine_hodu_descriptor = AFFINE_DESC;
#ifndef HODU_FAKE_NO_ALIAS
const hodu_model_desc hodu_model_descriptor = AFFINE_DESC;
#endif
