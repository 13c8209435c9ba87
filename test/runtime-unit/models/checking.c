/* Fake artifact with two run-time checks: the entry returns what v[0]
 * says (0: success, 1: no workspace, 2 and 3: checks 0 and 1 failed, 9: a
 * code past the checks). */
#include "hodu/abi.h"

#include <stddef.h>

static int32_t checking_entry(void *const *inputs, void *const *outputs,
                              void *ctx) {
  (void)outputs;
  (void)ctx;
  return (int32_t)((const float *)inputs[0])[0];
}

static const int64_t shape[] = {1};
static const hodu_tensor_desc io[] = {{"v", HODU_DTYPE_F32, 1, shape}};
static const char *const messages[] = {
    "node 'r' (Reshape): the first assumption",
    "node 'l' (Loop): the second assumption"};

const hodu_model_desc hodu_model_descriptor = {HODU_ABI_VERSION,
                                               sizeof(hodu_model_desc),
                                               "checking",
                                               "cpu",
                                               1,
                                               1,
                                               io,
                                               io,
                                               checking_entry,
                                               0,
                                               0,
                                               NULL,
                                               2,
                                               messages};
