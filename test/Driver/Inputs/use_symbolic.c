/* Runs the symbolic-batch CNN compiled three ways -- batch kept symbolic
 * with chunk 1 (cnn), with chunk 2 and a bound (cnn2), and pinned to 1
 * (cnn1) -- and compares every sample of the symbolic runs with the pinned
 * model run on that sample alone. */
#include "cnn.h"
#include "cnn1.h"
#include "cnn2.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double check(int64_t n, int chunked) {
  float *x = malloc(sizeof(float) * CNN_INPUT0_ELEMENTS(n));
  float *y = malloc(sizeof(float) * CNN_OUTPUT0_ELEMENTS(n));
  float ref[CNN1_OUTPUT0_ELEMENTS];
  for (int64_t i = 0; i < CNN_INPUT0_ELEMENTS(n); ++i)
    x[i] = sinf((float)i * 0.37f);
  int32_t rc = chunked ? cnn2_run(n, x, y) : cnn_run(n, x, y);
  double err = rc ? -rc : 0;
  for (int64_t b = 0; b < n && !rc; ++b) {
    if (cnn1_run(x + b * CNN1_INPUT0_ELEMENTS, ref))
      return -1;
    for (int j = 0; j < CNN1_OUTPUT0_ELEMENTS; ++j)
      err = fmax(err, fabs(ref[j] - y[b * CNN1_OUTPUT0_ELEMENTS + j]));
  }
  free(x);
  free(y);
  return err;
}

int main(void) {
  for (int64_t n = 1; n <= 8; n += 3)
    printf("n=%lld chunk1 %s chunk2 %s\n", (long long)n,
           check(n, 0) == 0 ? "same" : "DIFFERENT",
           fabs(check(n, 1)) < 1e-6 ? "close" : "DIFFERENT");
  /* Outside cnn2's bound (1..16): the symbol check, code 2 + its index. */
  float x[CNN1_INPUT0_ELEMENTS * 17], y[CNN1_OUTPUT0_ELEMENTS * 17];
  printf("n=17 rc=%d (%s)\n", cnn2_run(17, x, y),
         cnn2_hodu_descriptor.check_messages[cnn2_run(17, x, y) - 2]);
  printf("n=0 rc=%d\n", cnn_run(0, x, y));
  return 0;
}
