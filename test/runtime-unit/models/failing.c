/* Fake artifact whose compiled code reports failure (entry returns 7). */
#include "hodu/abi.h"

static int32_t failing_entry(void *const *inputs, void *const *outputs,
                             void *ctx) {
  (void)inputs;
  (void)outputs;
  (void)ctx;
  return 7;
}

static const int64_t shape[] = {1};
static const hodu_tensor_desc io[] = {{"v", HODU_DTYPE_F32, 1, shape}};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "failing", "cpu", 1, 1, io, io,
    failing_entry};
