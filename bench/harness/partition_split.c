/* partition_split [ROUNDS]: what a mismatched split between two parallel
 * loops costs on this machine. Two threads (CPU 0 and CPU 1) write a
 * [32][50176] f32 buffer (6.4 MB, the CNN's first convolution output),
 * each half of every row, as hodu's packed-matmul convolution splits its
 * output positions; then they read it either split the same way
 * ("matched") or by rows, each half of the channels ("mismatched", as the
 * max-pool after it splits its channels). Prints the write phase's
 * microseconds per round for both (JSON). On the 2-vCPU Zen 5 VM of
 * 2026-12-07: 148-164 us matched, 270-311 us mismatched: the lines the
 * other core read last cost a transfer before they can be written. Not run
 * by bench/run.mjs. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { ROWS = 32, COLS = 50176 };
static float *buffer;
static int matched, rounds = 200;
static atomic_int arrived, generation;
static double write_seconds[2];

static void barrier(void) {
  int g = atomic_load(&generation);
  if (atomic_fetch_add(&arrived, 1) == 1) {
    atomic_store(&arrived, 0);
    atomic_fetch_add(&generation, 1);
  } else {
    while (atomic_load(&generation) == g)
      __builtin_ia32_pause();
  }
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *work(void *arg) {
  int id = (int)(long)arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(id, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  volatile float sink = 0;
  for (int round = 0; round < rounds; ++round) {
    barrier();
    double t0 = now();
    for (int r = 0; r < ROWS; ++r) {
      float *row = buffer + (size_t)r * COLS + (size_t)id * (COLS / 2);
      for (int c = 0; c < COLS / 2; ++c)
        row[c] = (float)(c + round);
    }
    if (round >= 10)
      write_seconds[id] += now() - t0;
    barrier();
    float s = 0;
    int r0 = matched ? 0 : id * (ROWS / 2), r1 = matched ? ROWS : r0 + ROWS / 2;
    int c0 = matched ? id * (COLS / 2) : 0, c1 = matched ? c0 + COLS / 2 : COLS;
    for (int r = r0; r < r1; ++r)
      for (int c = c0; c < c1; c += 16) /* a line each */
        s += buffer[(size_t)r * COLS + c];
    sink += s;
  }
  return NULL;
}

static double run(int m) {
  matched = m;
  write_seconds[0] = write_seconds[1] = 0;
  pthread_t other;
  pthread_create(&other, NULL, work, (void *)1L);
  work((void *)0L);
  pthread_join(other, NULL);
  double slower = write_seconds[0] > write_seconds[1] ? write_seconds[0]
                                                      : write_seconds[1];
  return slower / (rounds - 10) * 1e6;
}

int main(int argc, char **argv) {
  if (argc > 1)
    rounds = atoi(argv[1]) > 20 ? atoi(argv[1]) : 20;
  buffer = aligned_alloc(64, sizeof(float) * ROWS * COLS);
  if (!buffer)
    return 1;
  double m = run(1), mm = run(0);
  printf("{\"write_us_matched\": %.1f, \"write_us_mismatched\": %.1f}\n", m, mm);
  free(buffer);
  return 0;
}
