/* Fake artifact: one SGD step of a linear model, the form hoduc --train
 * gives a train step. Inputs x: f32[4], target: f32[] (the caller's), then
 * the state tensors w: f32[4] (initially 0.5 -0.5 0.25 1) and step: f32[]
 * (0), then the meta slot lr: f32[] (0.125). Outputs loss: f32[] (the
 * caller's), then w and step after the step. loss = (x.w - target)^2,
 * w -= lr * 2 (x.w - target) x, step += 1. */
#include "hodu/abi.h"

static int32_t train_entry(void *const *inputs, void *const *outputs,
                           void *ctx) {
  (void)ctx;
  const float *x = inputs[0], *target = inputs[1], *w = inputs[2],
              *step = inputs[3], *lr = inputs[4];
  float *loss = outputs[0], *w_next = outputs[1], *step_next = outputs[2];
  float pred = 0.0f;
  for (int i = 0; i < 4; ++i)
    pred += x[i] * w[i];
  float d = pred - *target;
  *loss = d * d;
  for (int i = 0; i < 4; ++i)
    w_next[i] = w[i] - *lr * (2.0f * d * x[i]);
  *step_next = *step + 1.0f;
  return 0;
}

static const int64_t vec4[] = {4};
static const hodu_tensor_desc train_inputs[] = {
    {"x", HODU_DTYPE_F32, 1, vec4}, {"target", HODU_DTYPE_F32, 0, 0},
    {"w", HODU_DTYPE_F32, 1, vec4}, {"step", HODU_DTYPE_F32, 0, 0},
    {"lr", HODU_DTYPE_F32, 0, 0},
};
static const hodu_tensor_desc train_outputs[] = {
    {"loss", HODU_DTYPE_F32, 0, 0},
    {"w", HODU_DTYPE_F32, 1, vec4},
    {"step", HODU_DTYPE_F32, 0, 0},
};
static const float w_init[] = {0.5f, -0.5f, 0.25f, 1.0f};
static const float lr_init = 0.125f;
static const void *const state_init[] = {w_init, 0};
static const void *const meta_init[] = {&lr_init};

#define TRAIN_DESC                                                             \
  {.abi_version = HODU_ABI_VERSION,                                            \
   .struct_size = sizeof(hodu_model_desc),                                     \
   .model_name = "train",                                                      \
   .target = "cpu",                                                            \
   .num_inputs = 5,                                                            \
   .num_outputs = 3,                                                           \
   .inputs = train_inputs,                                                     \
   .outputs = train_outputs,                                                   \
   .entry = train_entry,                                                       \
   .num_meta_slots = 1,                                                        \
   .meta_slot_init = meta_init,                                                \
   .num_state_tensors = 2,                                                     \
   .state_tensor_init = state_init}

const hodu_model_desc train_hodu_descriptor = TRAIN_DESC;
#ifndef HODU_FAKE_NO_ALIAS
const hodu_model_desc hodu_model_descriptor = TRAIN_DESC;
#endif
