/* What libhodurt's thread team costs per parallel region: the time of a
 * fork and join of an empty region, and of a barrier inside one, each the
 * best of three means over N calls.
 *
 *   fork_cost [THREADS [N]]     (defaults: 2 threads, 200000 calls)
 *
 * prints {"threads": T, "fork_join_ns": F, "barrier_ns": B}. A compiled
 * model makes one fork and join per parallel kernel and one barrier per
 * worksharing loop in it, so F + B per kernel bounds what running several
 * kernels in one parallel region could save (docs/performance.md).
 *
 * The executable stands in for a compiled model: it exports the table of
 * thread entry points that hoduc's code calls through, and libhodurt
 * (static) fills it as it does a loaded model's. */
#include "hodu/abi.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void *hodu_thread_api[HODU_THREAD_API_SIZE];
void hodu_fill_thread_api(void *library); /* libhodurt's, internal */

typedef void (*fork_fn)(void *, int32_t, void *, ...);
typedef void (*barrier_fn)(void *, int32_t);
typedef void (*set_threads_fn)(int32_t);

static volatile int sink;

static void empty_region(int32_t *gtid, int32_t *btid) {
  (void)gtid;
  (void)btid;
  sink = 1;
}

static void barriers(int32_t *gtid, int32_t *btid, void *count) {
  (void)btid;
  barrier_fn barrier = (barrier_fn)hodu_thread_api[HODU_THREAD_BARRIER];
  for (long i = 0; i < (long)count; ++i)
    barrier(NULL, *gtid);
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  long n = argc > 2 ? atol(argv[2]) : 200000;
  if (threads < 1 || n < 1) {
    fprintf(stderr, "usage: fork_cost [THREADS >= 1 [CALLS >= 1]]\n");
    return 2;
  }
  void *self = dlopen(NULL, RTLD_NOW);
  hodu_fill_thread_api(self);
  fork_fn fork = (fork_fn)hodu_thread_api[HODU_THREAD_FORK_CALL];
  if (!fork) {
    fprintf(stderr, "fork_cost: libhodurt filled no fork entry\n");
    return 1;
  }
  ((set_threads_fn)hodu_thread_api[HODU_THREAD_SET_NUM_THREADS])(threads);
  fork(NULL, 0, (void *)empty_region); /* make the team */
  double best_fork = 1e9, best_barrier = 1e9;
  for (int round = 0; round < 3; ++round) {
    double t0 = seconds();
    for (long i = 0; i < n; ++i)
      fork(NULL, 0, (void *)empty_region);
    double t1 = seconds();
    fork(NULL, 1, (void *)barriers, (void *)n);
    double t2 = seconds();
    if ((t1 - t0) / n < best_fork)
      best_fork = (t1 - t0) / n;
    if ((t2 - t1) / n < best_barrier)
      best_barrier = (t2 - t1) / n;
  }
  printf("{\"threads\": %d, \"fork_join_ns\": %.0f, \"barrier_ns\": %.0f}\n",
         threads, best_fork * 1e9, best_barrier * 1e9);
  return 0;
}
