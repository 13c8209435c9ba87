/* Fake artifact matching ONNX's node test `test_cast_FLOAT_to_FLOAT16`:
 * output = (f16)input over [3,4], converted by the compiler's _Float16. */
#include "hodu/abi.h"

#include <string.h>

static int32_t cast_entry(void *const *inputs, void *const *outputs,
                          void *ctx) {
  (void)ctx;
  const float *in = (const float *)inputs[0];
  for (int i = 0; i < 12; ++i) {
    _Float16 half = (_Float16)in[i];
    memcpy((char *)outputs[0] + 2 * i, &half, 2);
  }
  return 0;
}

static const int64_t shape[] = {3, 4};
static const hodu_tensor_desc cast_inputs[] = {
    {"input", HODU_DTYPE_F32, 2, shape}};
static const hodu_tensor_desc cast_outputs[] = {
    {"output", HODU_DTYPE_F16, 2, shape}};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "test_cast_FLOAT_to_FLOAT16",
    "cpu", 1, 1, cast_inputs, cast_outputs, cast_entry};
