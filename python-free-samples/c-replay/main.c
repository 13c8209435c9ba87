/* Sample: capture a model once and replay it, changing a meta slot between
 * replays -- the loop of a training step or a decoder whose step count and
 * learning rate live on the device.
 *
 *   hodu-sample-replay MODEL [SLOT]
 *
 * MODEL is a bundle (hoduc --device=vulkan|cuda|rocm) or a shared library.
 * The program binds device tensors (no copies), runs once to warm up,
 * captures, then replays four times; before each replay it writes meta slot
 * SLOT (default: the model's first, if it has one) with 1, 2, 3, 4 in its
 * first element, and prints the first output value after each replay. A
 * model without meta slots is replayed as it is. Exit status 0 on success.
 *
 * What it needs from the compiler: meta slots declared in the model (the
 * runtime tests build such bundles by hand, test/runtime-unit/bundles);
 * until hoduc declares them, compiled models replay without a slot. */
#include <hodu/runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(hodu_status status) {
  fprintf(stderr, "error: %s\n", hodu_status_message(status));
  hodu_status_free(status);
  return 1;
}

/* Writes `value` into the first element of a slot of any dtype we print. */
static hodu_status write_slot(hodu_session *session, const hodu_model *model,
                              int32_t slot, double value) {
  size_t bytes = hodu_model_meta_slot_bytes(model, slot);
  unsigned char *data = calloc(1, bytes ? bytes : 1);
  hodu_status status = hodu_session_read_meta_slot(session, slot, data, bytes);
  if (!status) {
    switch (hodu_model_meta_slot_dtype(model, slot)) {
    case HODU_DTYPE_F32: {
      float v = (float)value;
      memcpy(data, &v, sizeof v);
      break;
    }
    case HODU_DTYPE_F64:
      memcpy(data, &value, sizeof value);
      break;
    case HODU_DTYPE_I32: {
      int32_t v = (int32_t)value;
      memcpy(data, &v, sizeof v);
      break;
    }
    case HODU_DTYPE_I64: {
      int64_t v = (int64_t)value;
      memcpy(data, &v, sizeof v);
      break;
    }
    default:
      break; /* other dtypes: left as they are */
    }
    status = hodu_session_write_meta_slot(session, slot, data, bytes);
  }
  free(data);
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s MODEL [SLOT]\n", argv[0]);
    return 2;
  }
  hodu_model *model = NULL;
  hodu_status status = hodu_model_load(argv[1], &model);
  if (status)
    return fail(status);
  printf("model '%s' on %s (%s), %d meta slot(s)\n", hodu_model_name(model),
         hodu_device_kind_name(hodu_model_device_kind(model)),
         hodu_model_device_name(model), hodu_model_num_meta_slots(model));

  int32_t slot = hodu_model_num_meta_slots(model) > 0 ? 0 : -1;
  if (argc == 3 && (status = hodu_model_meta_slot_index(model, argv[2], &slot)))
    return hodu_model_free(model), fail(status);

  /* Device tensors: bound without copies. Inputs are filled with 1. */
  int32_t n_in = hodu_model_num_inputs(model),
          n_out = hodu_model_num_outputs(model);
  hodu_tensor **inputs = calloc((size_t)n_in + 1, sizeof *inputs);
  hodu_tensor **outputs = calloc((size_t)n_out + 1, sizeof *outputs);
  for (int32_t i = 0; i < n_in && !status; ++i) {
    status = hodu_model_create_device_input(model, i, &inputs[i]);
    if (!status && hodu_tensor_dtype(inputs[i]) == HODU_DTYPE_F32) {
      size_t count = hodu_tensor_bytes(inputs[i]) / sizeof(float);
      float *ones = malloc(count * sizeof(float) + 1);
      for (size_t k = 0; k < count; ++k)
        ones[k] = 1.0f;
      status = hodu_tensor_write(inputs[i], ones, count * sizeof(float));
      free(ones);
    }
  }
  for (int32_t o = 0; o < n_out && !status; ++o)
    status = hodu_model_create_device_output(model, o, &outputs[o]);

  hodu_session *session = NULL;
  if (!status)
    status = hodu_session_create(model, &session);
  if (!status)
    status = hodu_session_bind(session, (const hodu_tensor *const *)inputs,
                               (size_t)n_in, outputs, (size_t)n_out);
  if (!status)
    status = hodu_session_run(session); /* warm-up: created -> warmed */
  if (!status)
    status = hodu_session_capture(session); /* warmed -> captured */
  for (int step = 1; step <= 4 && !status; ++step) {
    if (slot >= 0)
      status = write_slot(session, model, slot, (double)step);
    if (!status)
      status = hodu_session_replay(session, 1);
    float first = 0;
    size_t bytes = n_out ? hodu_tensor_bytes(outputs[0]) : 0;
    if (!status && bytes >= sizeof first &&
        hodu_tensor_dtype(outputs[0]) == HODU_DTYPE_F32) {
      float *all = malloc(bytes);
      status = hodu_tensor_read(outputs[0], all, bytes);
      first = all[0];
      free(all);
    }
    if (!status)
      printf("replay %d: %s%s%s%d -> %s[0] = %g\n", step,
             slot >= 0 ? "slot '" : "",
             slot >= 0 ? hodu_model_meta_slot_name(model, slot) : "",
             slot >= 0 ? "' = " : "no slot, step ", step,
             n_out ? hodu_model_output_name(model, 0) : "-", first);
  }
  if (!status)
    status = hodu_session_reset(session); /* frees only the recording */
  if (!status) {
    hodu_session_stats stats;
    memset(&stats, 0, sizeof stats);
    stats.struct_size = sizeof stats;
    status = hodu_session_get_stats(session, &stats);
    if (!status)
      printf("%llu eager run(s), %llu replay(s) in %llu submission(s)\n",
             (unsigned long long)stats.runs, (unsigned long long)stats.replays,
             (unsigned long long)stats.replay_submissions);
  }
  hodu_session_free(session);
  for (int32_t i = 0; i < n_in; ++i)
    hodu_tensor_free(inputs[i]);
  for (int32_t o = 0; o < n_out; ++o)
    hodu_tensor_free(outputs[o]);
  free(inputs);
  free(outputs);
  hodu_model_free(model);
  return status ? fail(status) : 0;
}
