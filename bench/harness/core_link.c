/* core_link [KIB...]: how costly the link between two CPUs of this machine
 * is, the two numbers behind libhodurt's choice of threads per run
 * (docs/architecture.md, *Threads*): the round trip of one cache line
 * between a thread on CPU 0 and one on CPU 1, and the read bandwidth of a
 * buffer that one thread has just written, read by the same thread and by
 * the other (default sizes 256 KiB to 64 MiB). Prints JSON. On the 2-vCPU
 * VM of this project, in the hours when a second thread helped least: round
 * trips of 450-610 ns, and a 4 MiB buffer read at 66-80 GB/s on its
 * writer's CPU and 29-35 GB/s on the other. Not run by bench/run.mjs. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { ROUND_TRIPS = 200000, READS = 100 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static _Atomic long turn;
static float *buffer;
static size_t count;
static volatile float sink;
static int other_reads; /* 1: the other CPU reads, 0: the writer does */
static double read_seconds;

static float sum(void) {
  float s[16] = {0};
  for (size_t i = 0; i + 16 <= count; i += 16)
    for (int j = 0; j < 16; ++j)
      s[j] += buffer[i + j];
  float t = 0;
  for (int j = 0; j < 16; ++j)
    t += s[j];
  return t;
}

static void *pong(void *arg) {
  (void)arg;
  pin(1);
  for (long i = 0; i < ROUND_TRIPS; ++i) {
    while (atomic_load(&turn) != 2 * i + 1)
      ;
    atomic_store(&turn, 2 * i + 2);
  }
  return NULL;
}

/* Turn 2r+1: CPU 1 reads what CPU 0 wrote in turn 2r. */
static void *reader(void *arg) {
  (void)arg;
  pin(1);
  for (long r = 0; r < READS; ++r) {
    while (atomic_load(&turn) != 2 * r + 1)
      ;
    double t = now();
    sink = sum();
    read_seconds += now() - t;
    atomic_store(&turn, 2 * r + 2);
  }
  return NULL;
}

static double bandwidth(size_t bytes, int other) {
  count = bytes / sizeof(float);
  buffer = aligned_alloc(64, count * sizeof(float));
  if (!buffer)
    return 0;
  other_reads = other;
  read_seconds = 0;
  atomic_store(&turn, 0);
  pthread_t thread;
  if (other && pthread_create(&thread, NULL, reader, NULL) != 0)
    return 0;
  for (long r = 0; r < READS; ++r) {
    for (size_t i = 0; i < count; ++i)
      buffer[i] = (float)(i + r);
    if (other) {
      atomic_store(&turn, 2 * r + 1);
      while (atomic_load(&turn) != 2 * r + 2)
        ;
    } else {
      double t = now();
      sink = sum();
      read_seconds += now() - t;
    }
  }
  if (other)
    pthread_join(thread, NULL);
  free(buffer);
  return (double)bytes * READS / read_seconds / 1e9;
}

int main(int argc, char **argv) {
  if (pin(0) != 0) {
    fprintf(stderr, "core_link: cannot run on CPU 0 and CPU 1\n");
    return 2;
  }
  pthread_t thread;
  atomic_store(&turn, 0);
  if (pthread_create(&thread, NULL, pong, NULL) != 0)
    return 2;
  double t = now();
  for (long i = 0; i < ROUND_TRIPS; ++i) {
    atomic_store(&turn, 2 * i + 1);
    while (atomic_load(&turn) != 2 * i + 2)
      ;
  }
  double round_trip = (now() - t) / ROUND_TRIPS * 1e9;
  pthread_join(thread, NULL);
  printf("{\"round_trip_ns\": %.0f, \"reads\": [", round_trip);
  static const long sizes[] = {256, 1024, 4096, 16384, 65536};
  int n = argc > 1 ? argc - 1 : (int)(sizeof sizes / sizeof *sizes);
  for (int i = 0; i < n; ++i) {
    long kib = argc > 1 ? atol(argv[i + 1]) : sizes[i];
    if (kib <= 0) {
      fprintf(stderr, "core_link: bad size '%s' (KiB)\n", argv[i + 1]);
      return 2;
    }
    double same = bandwidth((size_t)kib * 1024, 0);
    double other = bandwidth((size_t)kib * 1024, 1);
    printf("%s{\"kib\": %ld, \"same_cpu_gb_s\": %.1f, \"other_cpu_gb_s\": %.1f}",
           i ? ", " : "", kib, same, other);
  }
  printf("]}\n");
  return 0;
}
