/* Sample 3: two models compiled by add_hodu_model, linked into one program,
 * called through their typed entry points. Needs no runtime library. */
#include "affine.h"
#include "mlp.h"

#include <math.h>
#include <stdio.h>

int main(void) {
  float x[MLP_INPUT0_ELEMENTS], probs[MLP_OUTPUT0_ELEMENTS];
  for (int i = 0; i < MLP_INPUT0_ELEMENTS; ++i)
    x[i] = (float)i / MLP_INPUT0_ELEMENTS - 0.5f;
  if (mlp_run(x, probs) != 0) {
    fprintf(stderr, "mlp failed\n");
    return 1;
  }
  float total = 0;
  printf("mlp probs:");
  for (int i = 0; i < MLP_OUTPUT0_ELEMENTS; ++i) {
    printf(" %.4f", probs[i]);
    total += probs[i];
  }
  printf(" (sum %.4f)\n", total);
  if (fabsf(total - 1.0f) > 1e-4f) {
    fprintf(stderr, "mlp: probabilities do not sum to 1\n");
    return 1;
  }

  float a[4] = {0, 1, -2, 3.5f}, y[4];
  if (affine_run(a, y) != 0) {
    fprintf(stderr, "affine failed\n");
    return 1;
  }
  printf("affine y: %g %g %g %g\n", y[0], y[1], y[2], y[3]);
  for (int i = 0; i < 4; ++i)
    if (y[i] != 2 * a[i] + 1) {
      fprintf(stderr, "affine: y[%d] = %g, expected %g\n", i, y[i], 2 * a[i] + 1);
      return 1;
    }
  printf("ok\n");
  return 0;
}
