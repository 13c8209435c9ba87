/* Sample: train a model on the device with a compiled train step.
 *
 *   hodu-sample-train MODEL [EPOCHS]
 *
 * MODEL is a train step: `hoduc model.onnx --train ... -o step.so` (or
 * --device=vulkan|cuda|rocm -o step.hodu). Its inputs are the model's data
 * and `target`, its first output the loss, its weights and optimizer state
 * are state tensors the session keeps, and its learning rate is the meta
 * slot `lr` (docs/training.md).
 *
 * The program makes its own data set: 16 examples of random inputs, each
 * labelled by a fixed random "teacher" (the one-hot of the teacher's
 * largest score when the target has several elements, the score itself
 * when it has one). It runs one eager step, captures the step, and then
 * trains EPOCHS epochs (default 12) by replaying the capture once per
 * example -- the example's data written into the bound tensors in between
 * -- with a cosine learning-rate schedule written to the `lr` slot before
 * each epoch. It prints each epoch's learning rate and mean loss, and exits
 * 0 when the last epoch's mean loss is under half the first's. No Python,
 * no files but the model. */
#include <hodu/runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLES 16
#define PI 3.14159265358979323846

static int fail(hodu_status status) {
  fprintf(stderr, "error: %s\n", hodu_status_message(status));
  hodu_status_free(status);
  return 1;
}

/* A small deterministic generator: uniform in [-1, 1). */
static double uniform(unsigned long long *seed) {
  *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*seed >> 11) / (double)(1ULL << 53) * 2.0 - 1.0;
}

static int is_f32(const hodu_tensor *t) {
  return hodu_tensor_dtype(t) == HODU_DTYPE_F32;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s MODEL [EPOCHS]\n", argv[0]);
    return 2;
  }
  int epochs = argc == 3 ? atoi(argv[2]) : 12;
  if (epochs < 2) {
    fprintf(stderr, "error: EPOCHS must be at least 2\n");
    return 2;
  }
  hodu_model *model = NULL;
  hodu_status status = hodu_model_load(argv[1], &model);
  if (status)
    return fail(status);
  int32_t target = -1, lr_slot = -1, loss = -1;
  if ((status = hodu_model_input_index(model, "target", &target)) ||
      (status = hodu_model_meta_slot_index(model, "lr", &lr_slot)) ||
      (status = hodu_model_output_index(model, "loss", &loss))) {
    fprintf(stderr, "'%s' is not a train step (hoduc --train)\n", argv[1]);
    hodu_model_free(model);
    return fail(status);
  }
  printf("model '%s' on %s: %d state tensors\n", hodu_model_name(model),
         hodu_model_target(model), (int)hodu_model_num_state_tensors(model));

  /* The bound tensors, and every example's values for each input. */
  int32_t num_inputs = hodu_model_num_inputs(model);
  int32_t num_outputs = hodu_model_num_outputs(model);
  hodu_tensor **inputs = calloc((size_t)num_inputs, sizeof *inputs);
  hodu_tensor **outputs = calloc((size_t)num_outputs, sizeof *outputs);
  float **examples = calloc((size_t)num_inputs, sizeof *examples);
  hodu_session *session = NULL;
  int result = 1;
  if (!inputs || !outputs || !examples)
    goto done;
  for (int32_t i = 0; i < num_inputs && !status; ++i)
    status = hodu_model_create_input(model, i, &inputs[i]);
  for (int32_t o = 0; o < num_outputs && !status; ++o)
    status = hodu_model_create_output(model, o, &outputs[o]);
  if (status)
    goto failed;
  for (int32_t i = 0; i < num_inputs; ++i)
    if (!is_f32(inputs[i])) {
      fprintf(stderr, "error: input '%s' is not f32\n",
              hodu_model_input_name(model, i));
      goto done;
    }
  if (!is_f32(outputs[loss]) || hodu_tensor_num_elements(outputs[loss]) != 1) {
    fprintf(stderr, "error: output 'loss' is not one f32\n");
    goto done;
  }

  /* The data set: random inputs, labelled by a random linear teacher. */
  unsigned long long seed = 2026;
  int64_t features = 0;
  for (int32_t i = 0; i < num_inputs; ++i) {
    int64_t n = hodu_tensor_num_elements(inputs[i]);
    examples[i] = calloc((size_t)(EXAMPLES * n), sizeof(float));
    if (!examples[i])
      goto done;
    if (i == target)
      continue;
    for (int64_t k = 0; k < EXAMPLES * n; ++k)
      examples[i][k] = (float)uniform(&seed);
    features += n;
  }
  int64_t classes = hodu_tensor_num_elements(inputs[target]);
  double *teacher = calloc((size_t)(classes * features), sizeof(double));
  if (!teacher)
    goto done;
  for (int64_t k = 0; k < classes * features; ++k)
    teacher[k] = uniform(&seed);
  for (int e = 0; e < EXAMPLES; ++e) {
    float *t = examples[target] + e * classes;
    int64_t best = 0;
    double best_score = -INFINITY;
    for (int64_t c = 0; c < classes; ++c) {
      double score = 0.0;
      int64_t f = 0;
      for (int32_t i = 0; i < num_inputs; ++i) {
        if (i == target)
          continue;
        int64_t n = hodu_tensor_num_elements(inputs[i]);
        for (int64_t k = 0; k < n; ++k, ++f)
          score += teacher[c * features + f] * examples[i][e * n + k];
      }
      if (classes == 1)
        t[0] = (float)(0.5 * score);
      if (score > best_score) {
        best_score = score;
        best = c;
      }
    }
    if (classes > 1)
      t[best] = 1.0f;
  }
  free(teacher);

  if ((status = hodu_session_create(model, &session)) ||
      (status =
           hodu_session_bind(session, (const hodu_tensor *const *)inputs,
                             (size_t)num_inputs, outputs, (size_t)num_outputs)))
    goto failed;
  float lr0 = 0.0f;
  if (hodu_model_meta_slot_dtype(model, lr_slot) != HODU_DTYPE_F32 ||
      hodu_model_meta_slot_bytes(model, lr_slot) != sizeof lr0) {
    fprintf(stderr, "error: meta slot 'lr' is not one f32\n");
    goto done;
  }
  if ((status =
           hodu_session_read_meta_slot(session, lr_slot, &lr0, sizeof lr0)))
    goto failed;

  double first = 0.0, last = 0.0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    /* Cosine decay from the compiled lr to a tenth of it. */
    float lr =
        (float)(lr0 *
                (0.1 + 0.9 * 0.5 * (1.0 + cos(PI * epoch / (epochs - 1)))));
    if ((status =
             hodu_session_write_meta_slot(session, lr_slot, &lr, sizeof lr)))
      goto failed;
    double sum = 0.0;
    for (int e = 0; e < EXAMPLES; ++e) {
      for (int32_t i = 0; i < num_inputs; ++i) {
        int64_t n = hodu_tensor_num_elements(inputs[i]);
        memcpy(hodu_tensor_data(inputs[i]), examples[i] + e * n,
               (size_t)n * sizeof(float));
      }
      /* The first step runs eagerly (a warm-up that trains too); then the
       * step is captured once and replayed. */
      if (epoch == 0 && e == 0)
        status = hodu_session_run(session);
      else
        status = hodu_session_replay(session, 1);
      if (!status && epoch == 0 && e == 0)
        status = hodu_session_capture(session);
      if (status)
        goto failed;
      sum += *(const float *)hodu_tensor_data(outputs[loss]);
    }
    double mean = sum / EXAMPLES;
    if (epoch == 0)
      first = mean;
    last = mean;
    printf("epoch %2d: lr %.5f, mean loss %.6f\n", epoch + 1, lr, mean);
  }
  hodu_session_stats stats = {sizeof stats};
  if (!hodu_session_get_stats(session, &stats))
    printf("%llu eager run, %llu replayed steps\n",
           (unsigned long long)stats.runs, (unsigned long long)stats.replays);
  if (last < 0.5 * first) {
    printf("loss fell from %.6f to %.6f\n", first, last);
    result = 0;
  } else {
    printf("loss did not fall enough: %.6f to %.6f\n", first, last);
  }
  goto done;
failed:
  result = fail(status);
done:
  hodu_session_free(session);
  for (int32_t i = 0; inputs && i < num_inputs; ++i)
    hodu_tensor_free(inputs[i]);
  for (int32_t o = 0; outputs && o < num_outputs; ++o)
    hodu_tensor_free(outputs[o]);
  for (int32_t i = 0; examples && i < num_inputs; ++i)
    free(examples[i]);
  free(examples);
  free(inputs);
  free(outputs);
  hodu_model_free(model);
  return result;
}
