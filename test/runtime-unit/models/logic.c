/* Fake artifact over bool: n = not m, m and n: bool[2,2]. */
#include "hodu/abi.h"

static int32_t logic_entry(void *const *inputs, void *const *outputs,
                           void *ctx) {
  (void)ctx;
  const uint8_t *m = (const uint8_t *)inputs[0];
  uint8_t *n = (uint8_t *)outputs[0];
  for (int i = 0; i < 4; ++i)
    n[i] = !m[i];
  return 0;
}

static const int64_t shape[] = {2, 2};
static const hodu_tensor_desc logic_inputs[] = {
    {"m", HODU_DTYPE_BOOL, 2, shape}};
static const hodu_tensor_desc logic_outputs[] = {
    {"n", HODU_DTYPE_BOOL, 2, shape}};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "logic", "cpu", 1, 1,
    logic_inputs,     logic_outputs,           logic_entry};
