/* Runs strided-symbol.mlir (compiled for batch 3) at batches 1 to 8 and
 * checks every element against the transposition and the doubling it
 * computes. */
#include "strided.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  for (int64_t n = 1; n <= 8; ++n) {
    float *s = malloc(sizeof(float) * STRIDED_INPUT0_ELEMENTS(n));
    float *y = malloc(sizeof(float) * STRIDED_OUTPUT0_ELEMENTS(n));
    float *s2 = malloc(sizeof(float) * STRIDED_OUTPUT1_ELEMENTS(n));
    for (int64_t i = 0; i < STRIDED_INPUT0_ELEMENTS(n); ++i)
      s[i] = (float)i;
    int32_t rc = strided_run(n, s, y, s2);
    int bad = 0;
    for (int l = 0; l < 2; ++l)
      for (int64_t b = 0; b < n; ++b)
        for (int f = 0; f < 4; ++f) {
          float v = s[(l * n + b) * 4 + f];
          bad += y[(b * 4 + f) * 2 + l] != v;
          bad += s2[(l * n + b) * 4 + f] != 2 * v;
        }
    printf("n=%lld rc=%d wrong=%d\n", (long long)n, rc, bad);
    free(s);
    free(y);
    free(s2);
  }
  return 0;
}
