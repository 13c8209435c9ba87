/*===- fma_peak.c - measured fp32 FMA throughput of this machine ---------===*
 *
 *   fma_peak [THREADS] [int8|bf16]
 *
 * Runs independent chains of 512-bit (AVX-512F) or, without it, 256-bit
 * (AVX2+FMA) fused multiply-adds on THREADS threads (default 1) and prints
 * one JSON line with the achieved GFLOP/s (an FMA on one lane = 2 FLOPs).
 * This is the practical ceiling that the matmul number is compared with;
 * the nominal peak depends on a boost clock that a VM does not report.
 * With `int8`, the chains are u8 x s8 dot products into i32 (`vpdpbusd`,
 * AVX512-VNNI, else AVX-VNNI on 256 bits), the instruction of the integer
 * matmuls (qmlp), and "gops" counts a multiply and an add per byte pair;
 * without VNNI it prints {"isa": null}. With `bf16`, the chains are bf16
 * pair dot products into f32 (`vdpbf16ps`, AVX512-BF16), the instruction of
 * hoduc --precision=bf16's matmuls, and "gflops" counts a multiply and an
 * add per bf16 pair element; without AVX512-BF16 it prints {"isa": null}.
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L

#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__AVX512F__)
typedef __m512 vec;
#define VSET1 _mm512_set1_ps
#define VFMA _mm512_fmadd_ps
#define VADD _mm512_add_ps
#define VSUM _mm512_reduce_add_ps
#define LANES 16
#define ISA "avx512f"
#else
typedef __m256 vec;
#define VSET1 _mm256_set1_ps
#define VFMA _mm256_fmadd_ps
#define VADD _mm256_add_ps
static float VSUM(__m256 v) {
  float f[8];
  _mm256_storeu_ps(f, v);
  return f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7];
}
#define LANES 8
#define ISA "avx2+fma"
#endif

/* Independent accumulators hide the FMA latency on two pipes. AVX-512: 24
 * of its 32 registers (odd as it is, 16 or 28 chains measured only a third
 * of the peak on Zen 5 with clang 22, while 12, 20 and 24 reach it; the
 * loop shape matters). AVX2 has 16 registers: 24 chains spilled and
 * measured 24 GFLOP/s on a Zen 3 EPYC; 12 fit beside the two operands. */
#if defined(__AVX512F__)
enum { kChains = 24 };
#else
enum { kChains = 12 };
#endif
static const long kIters = 400 * 1000 * 1000 / 24;

static double nowS(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *work(void *arg) {
  float *result = arg;
  /* The multiplier below 1 keeps the values finite. */
  vec a = VSET1(0.999999f), b = VSET1(1e-7f);
  vec acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = VSET1((float)i);
  for (long it = 0; it < kIters; ++it)
    for (int i = 0; i < kChains; ++i)
      acc[i] = VFMA(acc[i], a, b);
  vec s = acc[0];
  for (int i = 1; i < kChains; ++i)
    s = VADD(s, acc[i]);
  *result = VSUM(s);
  return NULL;
}

/* Runs `fn` on `threads` threads, thread i writing results + i * size, once
 * to let the clock ramp up (into `warm`) and then three times; the best
 * time: the machine may be shared, and the best run is the closest to
 * what the hardware can do. */
static double bestSeconds(void *(*fn)(void *), int threads, char *results,
                          size_t size, void *warm) {
  pthread_t tid[256];
  fn(warm);
  double secs = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = nowS();
    for (int i = 0; i < threads; ++i)
      pthread_create(&tid[i], NULL, fn, results + (size_t)i * size);
    for (int i = 0; i < threads; ++i)
      pthread_join(tid[i], NULL);
    double s = nowS() - t0;
    if (s < secs)
      secs = s;
  }
  return secs;
}

#if defined(__AVX512VNNI__)
typedef __m512i ivec;
#define IDOT _mm512_dpbusd_epi32
#define ISET1 _mm512_set1_epi8
#define IBYTES 64
#define IISA "avx512vnni"
#elif defined(__AVXVNNI__)
typedef __m256i ivec;
#define IDOT _mm256_dpbusd_avx_epi32
#define ISET1 _mm256_set1_epi8
#define IBYTES 32
#define IISA "avxvnni"
#endif

#ifdef IISA
/* 12 chains: measured at the peak (234.8 G multiply-adds/s on one Zen 4
 * core, where `vpdpbusd zmm` issues one per cycle). */
enum { kIntChains = 12 };
static void *intWork(void *arg) {
  int *result = arg;
  ivec a = ISET1(1), b = ISET1(-1);
  ivec acc[kIntChains];
  for (int i = 0; i < kIntChains; ++i)
    acc[i] = ISET1((char)i);
  for (long it = 0; it < kIters; ++it)
    for (int i = 0; i < kIntChains; ++i)
      acc[i] = IDOT(acc[i], a, b);
  int sum = 0;
  for (int i = 0; i < kIntChains; ++i) {
    int lanes[IBYTES / 4];
    __builtin_memcpy(lanes, &acc[i], sizeof lanes);
    sum += lanes[0];
  }
  *result = sum;
  return NULL;
}
#endif

#if defined(__AVX512BF16__)
/* As many chains as the FMA mode: vdpbf16ps has the FMA's latency. */
static void *bf16Work(void *arg) {
  float *result = arg;
  __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80), /* 1.0 */
      b = (__m512bh)_mm512_set1_epi16(0x3380);        /* 2^-24 */
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm512_set1_ps((float)i);
  for (long it = 0; it < kIters; ++it)
    for (int i = 0; i < kChains; ++i)
      acc[i] = _mm512_dpbf16_ps(acc[i], a, b);
  __m512 s = acc[0];
  for (int i = 1; i < kChains; ++i)
    s = _mm512_add_ps(s, acc[i]);
  *result = _mm512_reduce_add_ps(s);
  return NULL;
}
#endif

/* The bf16 mode: the best of three runs of `threads` threads. */
static int bf16Peak(int threads) {
#if defined(__AVX512BF16__)
  float results[256], warm;
  double secs =
      bestSeconds(bf16Work, threads, (char *)results, sizeof *results, &warm);
  double flops = 2.0 * 32 * kChains * (double)kIters * threads;
  printf("{\"isa\": \"avx512bf16\", \"threads\": %d, \"gflops\": %.1f, "
         "\"check\": %g}\n",
         threads, flops / secs / 1e9, (double)(results[0] + warm));
#else
  printf("{\"isa\": null, \"threads\": %d}\n", threads);
#endif
  return 0;
}

/* The int8 mode: the best of three runs of `threads` threads. */
static int intPeak(int threads) {
#ifdef IISA
  int results[256], warm;
  double secs =
      bestSeconds(intWork, threads, (char *)results, sizeof *results, &warm);
  double ops = 2.0 * IBYTES * kIntChains * (double)kIters * threads;
  printf("{\"isa\": \"%s\", \"threads\": %d, \"gops\": %.1f, "
         "\"check\": %d}\n",
         IISA, threads, ops / secs / 1e9, results[0] + warm);
#else
  printf("{\"isa\": null, \"threads\": %d}\n", threads);
#endif
  return 0;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  if (threads < 1 || threads > 256) {
    fprintf(stderr, "usage: fma_peak [THREADS] [int8|bf16]\n");
    return 2;
  }
  if (argc > 2 && argv[2][0] == 'b')
    return bf16Peak(threads);
  if (argc > 2)
    return intPeak(threads);
  float results[256];
  float warm;
  double secs =
      bestSeconds(work, threads, (char *)results, sizeof *results, &warm);
  double flops = 2.0 * LANES * kChains * (double)kIters * threads;
  printf("{\"isa\": \"%s\", \"threads\": %d, \"gflops\": %.1f, "
         "\"check\": %g}\n",
         ISA, threads, flops / secs / 1e9, (double)(results[0] + warm));
  return 0;
}
