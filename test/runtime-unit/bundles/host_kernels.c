/* CPU code object for the heterogeneous test bundle: HOST_CALL kernels
 * take their buffers' addresses, in argument order. */
#include <stdint.h>

#define N 64

/* buffers: x f32[64], t f32[64]: t = 2 * x. */
int32_t twice(void *const *buffers) {
  const float *x = buffers[0];
  float *t = buffers[1];
  for (int i = 0; i < N; ++i)
    t[i] = 2.0f * x[i];
  return 0;
}

/* Fails on purpose: a host call that reports an error. */
int32_t refuse(void *const *buffers) {
  (void)buffers;
  return 7;
}
