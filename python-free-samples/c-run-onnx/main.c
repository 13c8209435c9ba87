/* Sample 1: run an ONNX model compiled by hoduc from plain C.
 *
 *   hoduc python-free-samples/models/mlp.onnx -o libmlp.so
 *   hodu-sample-c ./libmlp.so
 *
 * Loads the artifact with libhodurt, wraps caller-owned memory as the input
 * (no copy), runs it into a caller-owned output buffer and prints the class
 * probabilities. The bundled MLP ends in a softmax, so the sample also checks
 * that the probabilities are in [0, 1] and add up to 1.
 */
#include <hodu/runtime.h>

#include <math.h>
#include <stdio.h>

static int fail(hodu_status status) {
  fprintf(stderr, "error: %s\n", hodu_status_message(status));
  hodu_status_free(status);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s libmlp.so\n", argv[0]);
    return 2;
  }
  hodu_model *model = NULL;
  hodu_status status = hodu_model_load(argv[1], &model);
  if (status)
    return fail(status);

  /* The model's own description of its input and output. */
  const int64_t *in_shape = hodu_model_input_shape(model, 0);
  const int64_t *out_shape = hodu_model_output_shape(model, 0);
  if (hodu_model_num_inputs(model) != 1 || hodu_model_input_rank(model, 0) != 2 ||
      in_shape[1] > 64 || out_shape[1] > 64) {
    fprintf(stderr, "error: expected the bundled MLP (one [1, n] input)\n");
    hodu_model_free(model);
    return 1;
  }

  float x[64], y[64];
  for (int64_t i = 0; i < in_shape[1]; ++i)
    x[i] = (float)(i % 5) * 0.25f - 0.5f;

  hodu_tensor *input = NULL, *output = NULL;
  status = hodu_tensor_wrap(HODU_DTYPE_F32, 2, in_shape, x,
                            (size_t)in_shape[1] * sizeof(float), &input);
  if (!status)
    status = hodu_tensor_wrap(HODU_DTYPE_F32, 2, out_shape, y,
                              (size_t)out_shape[1] * sizeof(float), &output);
  if (!status)
    status = hodu_model_run(model, (const hodu_tensor *const *)&input, 1,
                            &output, 1);
  int bad = 0;
  if (!status) {
    double sum = 0;
    printf("%s -> %s:", hodu_model_input_name(model, 0),
           hodu_model_output_name(model, 0));
    for (int64_t k = 0; k < out_shape[1]; ++k) {
      printf(" %.4f", y[k]);
      sum += y[k];
      bad |= !(y[k] >= 0.0f && y[k] <= 1.0f);
    }
    printf("  (sum %.4f)\n", sum);
    bad |= fabs(sum - 1.0) > 1e-4;
  }
  hodu_tensor_free(input);
  hodu_tensor_free(output);
  hodu_model_free(model);
  if (status)
    return fail(status);
  if (bad)
    fprintf(stderr, "error: the output is not a probability distribution\n");
  return bad;
}
