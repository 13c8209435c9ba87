/* Fake artifact over 16-bit floats: copies h (f16[4]) to g and k (bf16[2])
 * to l, bit for bit, so tests see exactly what the tool decoded. */
#include "hodu/abi.h"

#include <string.h>

static int32_t half_entry(void *const *inputs, void *const *outputs,
                          void *ctx) {
  (void)ctx;
  memcpy(outputs[0], inputs[0], 4 * 2);
  memcpy(outputs[1], inputs[1], 2 * 2);
  return 0;
}

static const int64_t h_shape[] = {4};
static const int64_t k_shape[] = {2};
static const hodu_tensor_desc half_inputs[] = {
    {"h", HODU_DTYPE_F16, 1, h_shape},
    {"k", HODU_DTYPE_BF16, 1, k_shape},
};
static const hodu_tensor_desc half_outputs[] = {
    {"g", HODU_DTYPE_F16, 1, h_shape},
    {"l", HODU_DTYPE_BF16, 1, k_shape},
};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "half", "cpu", 2, 2,
    half_inputs,      half_outputs,            half_entry};
