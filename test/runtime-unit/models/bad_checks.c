/* Fake artifact with a corrupt descriptor: run-time checks without their
 * messages. */
#include "hodu/abi.h"

#include <stddef.h>

static int32_t entry(void *const *inputs, void *const *outputs, void *ctx) {
  (void)inputs;
  (void)outputs;
  (void)ctx;
  return 0;
}

static const int64_t shape[] = {1};
static const hodu_tensor_desc io[] = {{"v", HODU_DTYPE_F32, 1, shape}};

const hodu_model_desc hodu_model_descriptor = {HODU_ABI_VERSION,
                                               sizeof(hodu_model_desc),
                                               "bad_checks",
                                               "cpu",
                                               1,
                                               1,
                                               io,
                                               io,
                                               entry,
                                               0,
                                               0,
                                               NULL,
                                               3,
                                               NULL};
