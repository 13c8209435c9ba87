/* Fake artifact with symbolic dims (ABI version 2), standing in for what
 * hoduc emits for a model compiled once for every batch:
 *   inputs  x: f32[batch, 3], mask: f32[batch], s: f32[seq]
 *   outputs y: f32[batch]         y[i] = x[i,0] + x[i,1] + x[i,2] + mask[i]
 *           z: f32[2*batch+1]     z[k] = k
 *           w: f32[seq]           w[j] = s[j] * batch
 * with batch in 1..16 and seq in 0..32, a multiple of 4. The entry reads
 * the values from ctx->symbol_values, as hoduc's entry does; without them
 * it fails check 0 ("symbol values"). */
#include "hodu/abi.h"

#include <stddef.h>

static int32_t symbolic_entry(void *const *inputs, void *const *outputs,
                              void *ctx) {
  const hodu_run_context *context = (const hodu_run_context *)ctx;
  if (!context ||
      context->struct_size <
          offsetof(hodu_run_context, num_symbol_values) + sizeof(int32_t) ||
      context->num_symbol_values != 2 || !context->symbol_values)
    return 2;
  int64_t batch = context->symbol_values[0];
  int64_t seq = context->symbol_values[1];
  const float *x = (const float *)inputs[0];
  const float *mask = (const float *)inputs[1];
  const float *s = (const float *)inputs[2];
  float *y = (float *)outputs[0];
  float *z = (float *)outputs[1];
  float *w = (float *)outputs[2];
  for (int64_t i = 0; i < batch; ++i)
    y[i] = x[i * 3] + x[i * 3 + 1] + x[i * 3 + 2] + mask[i];
  for (int64_t k = 0; k < 2 * batch + 1; ++k)
    z[k] = (float)k;
  for (int64_t j = 0; j < seq; ++j)
    w[j] = s[j] * (float)batch;
  return 0;
}

static const int64_t x_shape[] = {HODU_DIM_DYNAMIC, 3};
static const int64_t batch_shape[] = {HODU_DIM_DYNAMIC};
static const int64_t z_shape[] = {HODU_DIM_DYNAMIC};
static const int64_t seq_shape[] = {HODU_DIM_DYNAMIC};
static const hodu_tensor_desc symbolic_inputs[] = {
    {"x", HODU_DTYPE_F32, 2, x_shape},
    {"mask", HODU_DTYPE_F32, 1, batch_shape},
    {"s", HODU_DTYPE_F32, 1, seq_shape},
};
static const hodu_tensor_desc symbolic_outputs[] = {
    {"y", HODU_DTYPE_F32, 1, batch_shape},
    {"z", HODU_DTYPE_F32, 1, z_shape},
    {"w", HODU_DTYPE_F32, 1, seq_shape},
};
static const hodu_symbol_desc symbolic_symbols[] = {
    {"batch", 1, 16, 1, 0},
    {"seq", 0, 32, 4, 0},
};
static const hodu_dynamic_dim symbolic_dynamic_dims[] = {
    {0, 0, 0, 0, 1, 0}, /* x dim 0: batch */
    {0, 1, 0, 0, 1, 0}, /* mask dim 0: batch */
    {0, 2, 0, 1, 1, 0}, /* s dim 0: seq */
    {1, 0, 0, 0, 1, 0}, /* y dim 0: batch */
    {1, 1, 0, 0, 2, 1}, /* z dim 0: 2*batch+1 */
    {1, 2, 0, 1, 1, 0}, /* w dim 0: seq */
};
static const char *const symbolic_checks[] = {"symbol values"};

#define SYMBOLIC_DESC                                                          \
  {                                                                            \
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "symbolic", "cpu", 3, 3,        \
        symbolic_inputs, symbolic_outputs, symbolic_entry, 0, 0, NULL, 1,      \
        symbolic_checks, 2, symbolic_symbols, 6, symbolic_dynamic_dims         \
  }

const hodu_model_desc symbolic_hodu_descriptor = SYMBOLIC_DESC;
#ifndef HODU_FAKE_NO_ALIAS
const hodu_model_desc hodu_model_descriptor = SYMBOLIC_DESC;
#endif
