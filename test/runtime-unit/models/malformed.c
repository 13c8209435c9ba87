/* Fake artifact with a corrupt descriptor: an unknown dtype. */
#include "hodu/abi.h"

static int32_t entry(void *const *inputs, void *const *outputs, void *ctx) {
  (void)inputs;
  (void)outputs;
  (void)ctx;
  return 0;
}

static const int64_t shape[] = {1};
static const hodu_tensor_desc io[] = {{"v", 42, 1, shape}};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "malformed", "cpu", 1, 1, io,
    io, entry};
