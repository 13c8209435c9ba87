/* Fake artifact that copies its inputs: x2 = x (f32[2,3]), b2 = b (f32[3]).
 * The lit tests use it to turn JSON tensors into .pb/.npy/.hdt files. */
#include "hodu/abi.h"

#include <string.h>

static int32_t identity_entry(void *const *inputs, void *const *outputs,
                              void *ctx) {
  (void)ctx;
  memcpy(outputs[0], inputs[0], 6 * sizeof(float));
  memcpy(outputs[1], inputs[1], 3 * sizeof(float));
  return 0;
}

static const int64_t x_shape[] = {2, 3};
static const int64_t b_shape[] = {3};
static const hodu_tensor_desc identity_inputs[] = {
    {"x", HODU_DTYPE_F32, 2, x_shape}, {"b", HODU_DTYPE_F32, 1, b_shape}};
static const hodu_tensor_desc identity_outputs[] = {
    {"x2", HODU_DTYPE_F32, 2, x_shape}, {"b2", HODU_DTYPE_F32, 1, b_shape}};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "identity", "cpu", 2, 2,
    identity_inputs,  identity_outputs,        identity_entry};
