/* Fake artifact from a future compiler: ABI version 99. */
#include "hodu/abi.h"

static const int64_t shape[] = {1};
static const hodu_tensor_desc io[] = {{"v", HODU_DTYPE_F32, 1, shape}};

const hodu_model_desc hodu_model_descriptor = {
    99, sizeof(hodu_model_desc), "future", "cpu", 1, 1, io, io, 0};
