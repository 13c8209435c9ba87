/* Fake artifact with outputs whose size depends on the data (abi.h,
 * HODU_OUTPUT_DIMS_SUFFIX): "rows" f32[4,2] at its bound with "rows#dims"
 * (i64[2]) holding its run-time dims, "static" f32[3] without one, and
 * "odd" f32[2] whose "odd#dims" has the wrong rank (so it is no companion).
 * The run writes rows 0..count-1 = 1, 2, ... (at most the bound's 4) and
 * dims [count, 2], count = the input's first element, even past the bound
 * (which hodu-run must refuse). */
#include "hodu/abi.h"

#include <string.h>

static int32_t dims_entry(void *const *inputs, void *const *outputs,
                          void *ctx) {
  (void)ctx;
  int64_t count = (int64_t)((const float *)inputs[0])[0];
  if (count < 0)
    return 1;
  float *rows = (float *)outputs[0];
  for (int64_t i = 0; i < 8; ++i)
    rows[i] = i < 2 * count ? (float)(i + 1) : -1.0f;
  int64_t *dims = (int64_t *)outputs[1];
  dims[0] = count;
  dims[1] = 2;
  memset(outputs[2], 0, 3 * sizeof(float));
  memset(outputs[3], 0, 2 * sizeof(float));
  memset(outputs[4], 0, 2 * sizeof(int64_t));
  return 0;
}

static const int64_t x_shape[] = {1};
static const int64_t rows_shape[] = {4, 2};
static const int64_t dims_shape[] = {2};
static const int64_t static_shape[] = {3};
static const int64_t odd_shape[] = {2};
static const int64_t odd_dims_shape[] = {1, 2};
static const hodu_tensor_desc dims_inputs[] = {
    {"x", HODU_DTYPE_F32, 1, x_shape}};
static const hodu_tensor_desc dims_outputs[] = {
    {"rows", HODU_DTYPE_F32, 2, rows_shape},
    {"rows" HODU_OUTPUT_DIMS_SUFFIX, HODU_DTYPE_I64, 1, dims_shape},
    {"static", HODU_DTYPE_F32, 1, static_shape},
    {"odd", HODU_DTYPE_F32, 1, odd_shape},
    {"odd" HODU_OUTPUT_DIMS_SUFFIX, HODU_DTYPE_I64, 2, odd_dims_shape}};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "dims", "cpu", 1, 5,
    dims_inputs,      dims_outputs,            dims_entry};
