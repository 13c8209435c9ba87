/* Fake artifact: calls libhodurt's thread teams through hodu_thread_api
 * (abi.h) as hoduc's OpenMP code does, and reports what it saw. No inputs;
 * y: i64[6]:
 *   y[0] the sum of i over 0..N-1 under the static schedule (each thread
 *        adds its part): N(N-1)/2 when every iteration ran exactly once;
 *   y[1] the team size the threads saw (max thread number + 1);
 *   y[2] threads that found a flag unset after the barrier (0);
 *   y[3] the team size of a fork made inside the parallel region (1);
 *   y[4] iterations of a chunked 32-bit schedule run other than once (0);
 *   y[5] threads whose team size disagreed with y[1] (0). */
#include "hodu/abi.h"

#include <stdatomic.h>
#include <string.h>

void *hodu_thread_api[HODU_THREAD_API_SIZE];

typedef void (*fork_fn)(void *, int32_t, void (*)(int32_t *, int32_t *, ...),
                        ...);
typedef void (*init8u_fn)(void *, int32_t, int32_t, int32_t *, uint64_t *,
                          uint64_t *, int64_t *, int64_t, int64_t);
typedef void (*init4_fn)(void *, int32_t, int32_t, int32_t *, int32_t *,
                         int32_t *, int32_t *, int32_t, int32_t);
typedef void (*barrier_fn)(void *, int32_t);
typedef int32_t (*gtid_fn)(void *);
typedef void (*fini_fn)(void *, int32_t);

enum { N = 100003, CHUNKED = 1001, MAX_TEAM = 64 };

typedef struct {
  _Atomic int64_t sum;
  _Atomic int32_t max_thread;
  _Atomic int32_t barrier_failures;
  _Atomic int32_t nested_size;
  _Atomic int32_t team_disagreements;
  _Atomic int32_t flags[MAX_TEAM];
  _Atomic int32_t visits[CHUNKED];
  _Atomic int32_t sizes[MAX_TEAM];
} shared;

static void nested(int32_t *gtid, int32_t *btid, shared *s) {
  (void)btid;
  /* In a serial nested region the static schedule gives one thread all. */
  int32_t last = 0;
  uint64_t lo = 0, hi = 9;
  int64_t stride = 1;
  ((init8u_fn)hodu_thread_api[HODU_THREAD_STATIC_INIT_8U])(NULL, *gtid, 34,
                                                            &last, &lo, &hi,
                                                            &stride, 1, 0);
  if (lo == 0 && hi == 9 && last)
    atomic_store(&s->nested_size, 1);
  else
    atomic_store(&s->nested_size, 100);
}

static void body(int32_t *gtid, int32_t *btid, shared *s) {
  (void)btid;
  int32_t me = ((gtid_fn)hodu_thread_api[HODU_THREAD_GLOBAL_THREAD_NUM])(NULL);
  if (me >= MAX_TEAM)
    me = MAX_TEAM - 1;
  int32_t seen = atomic_load(&s->max_thread);
  while (me > seen && !atomic_compare_exchange_weak(&s->max_thread, &seen, me))
    ;
  /* The unchunked static schedule of a 64-bit unsigned loop. */
  int32_t last = 0;
  uint64_t lo = 0, hi = N - 1;
  int64_t stride = 1;
  ((init8u_fn)hodu_thread_api[HODU_THREAD_STATIC_INIT_8U])(NULL, *gtid, 34,
                                                            &last, &lo, &hi,
                                                            &stride, 1, 0);
  int64_t part = 0;
  for (uint64_t i = lo; i <= hi && lo <= hi; ++i)
    part += (int64_t)i;
  atomic_fetch_add(&s->sum, part);
  ((fini_fn)hodu_thread_api[HODU_THREAD_STATIC_FINI])(NULL, *gtid);

  /* The barrier: every thread's flag is set after it. */
  atomic_store(&s->flags[me], 1);
  ((barrier_fn)hodu_thread_api[HODU_THREAD_BARRIER])(NULL, *gtid);
  int32_t size = atomic_load(&s->max_thread) + 1;
  atomic_store(&s->sizes[me], size);
  for (int32_t t = 0; t < size; ++t)
    if (!atomic_load(&s->flags[t]))
      atomic_fetch_add(&s->barrier_failures, 1);
  ((barrier_fn)hodu_thread_api[HODU_THREAD_BARRIER])(NULL, *gtid);
  for (int32_t t = 0; t < size; ++t)
    if (atomic_load(&s->sizes[t]) != size)
      atomic_fetch_add(&s->team_disagreements, 1);

  /* The chunked static schedule of a 32-bit signed loop, chunks of 7. */
  int32_t l4 = 0, h4 = CHUNKED - 1, st4 = 1;
  ((init4_fn)hodu_thread_api[HODU_THREAD_STATIC_INIT_4])(NULL, *gtid, 33,
                                                          &last, &l4, &h4,
                                                          &st4, 1, 7);
  /* Chunks of h4 - l4 + 1 iterations (7, or all of them alone), st4 apart. */
  int32_t extent = h4 - l4 + 1;
  for (int32_t from = l4; from < CHUNKED; from += st4)
    for (int32_t i = from; i < from + extent && i < CHUNKED; ++i)
      atomic_fetch_add(&s->visits[i], 1);

  if (me == 0)
    ((fork_fn)hodu_thread_api[HODU_THREAD_FORK_CALL])(
        NULL, 1, (void (*)(int32_t *, int32_t *, ...))nested, s);
}

static int32_t team_entry(void *const *inputs, void *const *outputs,
                          void *ctx) {
  (void)inputs;
  const hodu_run_context *run = ctx;
  if (run && run->num_threads > 0)
    ((void (*)(int32_t))hodu_thread_api[HODU_THREAD_SET_NUM_THREADS])(
        run->num_threads);
  static shared zero;
  shared s;
  memcpy(&s, &zero, sizeof s);
  ((fork_fn)hodu_thread_api[HODU_THREAD_FORK_CALL])(
      NULL, 1, (void (*)(int32_t *, int32_t *, ...))body, &s);
  int64_t *y = outputs[0];
  y[0] = atomic_load(&s.sum);
  y[1] = atomic_load(&s.max_thread) + 1;
  y[2] = atomic_load(&s.barrier_failures);
  y[3] = atomic_load(&s.nested_size);
  int64_t wrong = 0;
  for (int i = 0; i < CHUNKED; ++i)
    wrong += atomic_load(&s.visits[i]) != 1;
  y[4] = wrong;
  y[5] = atomic_load(&s.team_disagreements);
  return 0;
}

static const int64_t y_shape[] = {6};
static const hodu_tensor_desc team_outputs[] = {
    {"y", HODU_DTYPE_I64, 1, y_shape},
};

const hodu_model_desc hodu_model_descriptor = {
    HODU_ABI_VERSION, sizeof(hodu_model_desc), "team", "cpu", 0, 1,
    NULL, team_outputs, team_entry};
