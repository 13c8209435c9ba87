// Uses only the header hoduc --header wrote for Inputs/add.mlir (--name=adder).
#include "adder.h"
#include <stdio.h>

int main(void) {
  int32_t a[5] = {1, 2, 3, 4, 5}, b[5] = {5, 4, 3, 2, 1};
  int32_t sum[ADDER_OUTPUT0_ELEMENTS];
  int rc = adder_run(a, b, sum);
  printf("rc=%d %d %d\n", rc, sum[0], sum[4]);
  return rc;
}
