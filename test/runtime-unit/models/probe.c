/* Fake artifact that reports what the runtime passed as `ctx`: out = the
 * context's num_threads (i32[], rank 0), or -1 for a NULL context. The
 * struct mirrors runtime/src/internal.h's hodu_run_context. */
#include "hodu/abi.h"

typedef struct {
  uint32_t struct_size;
  int32_t num_threads;
} probe_context;

static int32_t probe_entry(void *const *inputs, void *const *outputs,
                           void *ctx) {
  (void)inputs;
  const probe_context *context = (const probe_context *)ctx;
  *(int32_t *)outputs[0] = context ? context->num_threads : -1;
  return 0;
}

static const hodu_tensor_desc probe_outputs[] = {
    {"threads", HODU_DTYPE_I32, 0, 0}};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "probe", "cpu", 0, 1, 0,
    probe_outputs,    probe_entry};
