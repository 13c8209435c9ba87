/*===- hodu_bench.c - times a hoduc artifact through libhodurt -----------===*
 *
 *   hodu_bench MODEL.so [--threads N] [--input NAME=FILE.npy]...
 *              [--benchmark N] [--warmup W] [--serve]
 *
 * Loads MODEL.so with hodu_model_load, fills its inputs from .npy files
 * (float32, float64, float16, int64/32/16/8, uint64/32/16/8 or bool; the
 * file's dtype and shape must be the model input's, or it stops with a
 * message saying which differs), and then either
 *
 *  - (--benchmark N) runs W warm-up and N timed runs and prints one JSON line
 *    with the median, minimum, p90 and mean latency in nanoseconds and the
 *    process's peak RSS, or
 *  - (--serve) answers commands on stdin, one per line, so that a driver can
 *    interleave it with another engine while both keep their models loaded:
 *      warmup K    run K times untimed              -> "ok"
 *      run K       run K times, time each run       -> "times T1 T2 ... (ns)"
 *      save DIR    write every output to DIR/<output index>.npy, each
 *                  with its own dtype, and the output names, one a
 *                  line, to DIR/names.txt           -> "ok"
 *      rss         peak resident set size           -> "rss KB"
 *      cpu         user + system CPU time so far    -> "cpu MICROSECONDS"
 *      clock       median cost of the timing itself -> "clock NS"
 *      quit
 *    Errors print "error MESSAGE" and the server keeps going.
 *
 * Every run goes through hodu_model_run with preallocated tensors, so the
 * time is the runtime's checks plus the compiled code. Timing uses
 * CLOCK_MONOTONIC around each call.
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L

#include "hodu/runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { kMaxTensors = 64 };

static hodu_model *gModel;
static hodu_tensor *gInputs[kMaxTensors], *gOutputs[kMaxTensors];
static int32_t gNumInputs, gNumOutputs;

static int64_t nowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long peakRssKb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss; /* kilobytes on Linux */
}

static long long cpuUs(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
         ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/* Takes ownership of `s`; returns 1 if it was an error (and prints it). */
static int failed(hodu_status s, const char *what) {
  if (!s)
    return 0;
  fprintf(stderr, "hodu_bench: %s: %s\n", what, hodu_status_message(s));
  hodu_status_free(s);
  return 1;
}

/* The .npy descr of each dtype the harness reads and writes (little-endian;
 * one-byte types have no byte order, '|'). bool is one byte, 0 or 1, as in
 * Hodu and NumPy; f16 is its bits either way. */
static const struct {
  hodu_dtype dtype;
  const char *descr;
} kNpyTypes[] = {
    {HODU_DTYPE_F32, "<f4"}, {HODU_DTYPE_F64, "<f8"}, {HODU_DTYPE_F16, "<f2"},
    {HODU_DTYPE_I64, "<i8"}, {HODU_DTYPE_I32, "<i4"}, {HODU_DTYPE_I16, "<i2"},
    {HODU_DTYPE_I8, "|i1"},  {HODU_DTYPE_U64, "<u8"}, {HODU_DTYPE_U32, "<u4"},
    {HODU_DTYPE_U16, "<u2"}, {HODU_DTYPE_U8, "|u1"},  {HODU_DTYPE_BOOL, "|b1"},
};
enum { kNumNpyTypes = sizeof kNpyTypes / sizeof kNpyTypes[0] };

static const char *npyDescr(hodu_dtype dtype) {
  for (int i = 0; i < kNumNpyTypes; ++i)
    if (kNpyTypes[i].dtype == dtype)
      return kNpyTypes[i].descr;
  return NULL;
}

/* "[1, 3, 224]" into buf, for messages. */
static const char *fmtShape(char *buf, size_t size, int32_t rank,
                            const int64_t *shape) {
  size_t n = (size_t)snprintf(buf, size, "[");
  for (int32_t i = 0; i < rank && n < size; ++i)
    n += (size_t)snprintf(buf + n, size - n, "%s%lld", i ? ", " : "",
                          (long long)shape[i]);
  if (n < size)
    snprintf(buf + n, size - n, "]");
  return buf;
}

/* Reads a little-endian C-order .npy file (version 1 to 3) into `t`, input
 * `name` of the model: its dtype and shape must be the tensor's (that is,
 * the model input's), or the harness says which differs. */
static int readNpy(const char *path, hodu_tensor *t, const char *name) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "hodu_bench: cannot open '%s'\n", path);
    return 0;
  }
  unsigned char pre[12];
  int ok = 0;
  char *header = NULL;
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0 ||
      pre[6] < 1 || pre[6] > 3 || (pre[6] > 1 && fread(pre + 10, 1, 2, f) != 2)) {
    fprintf(stderr, "hodu_bench: '%s' is not a .npy file\n", path);
    goto done;
  }
  size_t hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
  if (pre[6] > 1)
    hlen |= ((size_t)pre[10] << 16) | ((size_t)pre[11] << 24);
  header = malloc(hlen + 1);
  if (!header || fread(header, 1, hlen, f) != hlen) {
    fprintf(stderr, "hodu_bench: '%s': truncated .npy header\n", path);
    goto done;
  }
  header[hlen] = 0;

  char descr[16] = "";
  const char *d = strstr(header, "'descr':");
  if (d)
    sscanf(d + 8, " '%15[^']'", descr);
  hodu_dtype want = hodu_tensor_dtype(t);
  const char *wantDescr = npyDescr(want);
  if (!wantDescr) {
    fprintf(stderr, "hodu_bench: input '%s' is %s, which .npy cannot hold\n",
            name, hodu_dtype_name(want));
    goto done;
  }
  if (strcmp(descr, wantDescr) != 0) {
    const char *got = "an unsupported dtype";
    for (int i = 0; i < kNumNpyTypes; ++i)
      if (strcmp(descr, kNpyTypes[i].descr) == 0)
        got = hodu_dtype_name(kNpyTypes[i].dtype);
    fprintf(stderr,
            "hodu_bench: dtype mismatch: '%s' holds '%s' (%s), but the "
            "model's input '%s' is %s ('%s')\n",
            path, descr, got, name, hodu_dtype_name(want), wantDescr);
    goto done;
  }
  const char *fo = strstr(header, "'fortran_order':");
  if (!fo || strncmp(fo + 16 + strspn(fo + 16, " "), "False", 5) != 0) {
    fprintf(stderr, "hodu_bench: '%s' must be in C order\n", path);
    goto done;
  }

  int64_t shape[32];
  int32_t rank = 0;
  const char *p = strstr(header, "'shape':");
  p = p ? strchr(p, '(') : NULL;
  if (!p) {
    fprintf(stderr, "hodu_bench: '%s' has no shape\n", path);
    goto done;
  }
  for (++p;;) {
    while (*p == ' ' || *p == ',')
      ++p;
    if (*p == ')')
      break;
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || rank == 32) {
      fprintf(stderr, "hodu_bench: '%s': bad shape in the header\n", path);
      goto done;
    }
    shape[rank++] = v;
    p = end;
  }
  int sameShape = rank == hodu_tensor_rank(t);
  for (int32_t i = 0; sameShape && i < rank; ++i)
    sameShape = shape[i] == hodu_tensor_shape(t)[i];
  if (!sameShape) {
    char a[256], b[256];
    fprintf(stderr,
            "hodu_bench: shape mismatch: '%s' holds %s, but the model's input "
            "'%s' is %s\n",
            path, fmtShape(a, sizeof a, rank, shape), name,
            fmtShape(b, sizeof b, hodu_tensor_rank(t), hodu_tensor_shape(t)));
    goto done;
  }
  size_t bytes = hodu_tensor_bytes(t);
  if (fread(hodu_tensor_data(t), 1, bytes, f) != bytes) {
    fprintf(stderr, "hodu_bench: '%s' holds fewer than %zu bytes of data\n",
            path, bytes);
    goto done;
  }
  ok = 1;
done:
  free(header);
  fclose(f);
  return ok;
}

/* Writes `t` as a version 1 .npy of its own dtype. */
static int writeNpy(const char *path, const hodu_tensor *t) {
  const char *descr = npyDescr(hodu_tensor_dtype(t));
  if (!descr) {
    fprintf(stderr, "hodu_bench: cannot write a %s tensor as .npy\n",
            hodu_dtype_name(hodu_tensor_dtype(t)));
    return 0;
  }
  char shape[512] = "(";
  size_t n = 1;
  for (int32_t i = 0; i < hodu_tensor_rank(t); ++i)
    n += (size_t)snprintf(shape + n, sizeof shape - n, "%s%lld",
                          i ? ", " : "", (long long)hodu_tensor_shape(t)[i]);
  snprintf(shape + n, sizeof shape - n, "%s)",
           hodu_tensor_rank(t) == 1 ? "," : "");
  char header[640];
  int len = snprintf(header, sizeof header,
                     "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
  int total = 10 + len + 1;
  int pad = (64 - total % 64) % 64;
  FILE *f = fopen(path, "wb");
  if (!f)
    return 0;
  unsigned hl = (unsigned)(len + pad + 1);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           (unsigned char)(hl & 0xff), (unsigned char)(hl >> 8)};
  int ok = fwrite(pre, 1, 10, f) == 10 &&
           fwrite(header, 1, (size_t)len, f) == (size_t)len;
  for (int i = 0; ok && i < pad; ++i)
    ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF &&
       fwrite(hodu_tensor_data(t), 1, hodu_tensor_bytes(t), f) ==
           hodu_tensor_bytes(t);
  return fclose(f) == 0 && ok;
}

static int runOnce(void) {
  return !failed(hodu_model_run(gModel, (const hodu_tensor *const *)gInputs,
                                (size_t)gNumInputs, gOutputs,
                                (size_t)gNumOutputs),
                 "run");
}

static int cmpI64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int benchmark(long iters, long warmup) {
  for (long i = 0; i < warmup; ++i)
    if (!runOnce())
      return 2;
  int64_t *t = malloc(sizeof *t * (size_t)iters);
  if (!t)
    return 2;
  double sum = 0;
  for (long i = 0; i < iters; ++i) {
    int64_t t0 = nowNs();
    if (!runOnce()) {
      free(t);
      return 2;
    }
    t[i] = nowNs() - t0;
    sum += (double)t[i];
  }
  qsort(t, (size_t)iters, sizeof *t, cmpI64);
  long p90 = (iters * 9 + 9) / 10 - 1;
  printf("{\"iters\": %ld, \"median_ns\": %lld, \"min_ns\": %lld, "
         "\"p90_ns\": %lld, \"mean_ns\": %.0f, \"threads\": %d, "
         "\"peak_rss_kb\": %ld}\n",
         iters, (long long)t[iters / 2], (long long)t[0],
         (long long)t[p90 < 0 ? 0 : p90], sum / (double)iters,
         hodu_runtime_get_num_threads(), peakRssKb());
  free(t);
  return 0;
}

static void serve(void) {
  char line[4096];
  setvbuf(stdout, NULL, _IOLBF, 0);
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\r\n")] = 0;
    long k = 0;
    char dir[4000];
    if (sscanf(line, "warmup %ld", &k) == 1) {
      int ok = 1;
      for (long i = 0; ok && i < k; ++i)
        ok = runOnce();
      puts(ok ? "ok" : "error run failed");
    } else if (sscanf(line, "run %ld", &k) == 1 && k > 0) {
      printf("times");
      for (long i = 0; i < k; ++i) {
        int64_t t0 = nowNs();
        if (!runOnce()) {
          printf(" error");
          break;
        }
        printf(" %lld", (long long)(nowNs() - t0));
      }
      putchar('\n');
    } else if (sscanf(line, "save %3999s", dir) == 1) {
      int ok = 1;
      for (int32_t i = 0; ok && i < gNumOutputs; ++i) {
        char path[4096 + 32];
        snprintf(path, sizeof path, "%s/%d.npy", dir, i);
        ok = writeNpy(path, gOutputs[i]);
      }
      /* The output names, one a line, as ort_worker.mjs writes them. */
      char path[4096 + 32];
      snprintf(path, sizeof path, "%s/names.txt", dir);
      FILE *names = ok ? fopen(path, "w") : NULL;
      for (int32_t i = 0; names && i < gNumOutputs; ++i)
        fprintf(names, "%s\n", hodu_model_output_name(gModel, i));
      ok = names && fclose(names) == 0;
      puts(ok ? "ok" : "error cannot write outputs");
    } else if (strcmp(line, "rss") == 0) {
      printf("rss %ld\n", peakRssKb());
    } else if (strcmp(line, "clock") == 0) {
      /* Two back-to-back clock reads, as around every timed run: this much
       * of each reported time is the measurement, not the model. */
      enum { kN = 10001 };
      static int64_t d[kN];
      for (int i = 0; i < kN; ++i) {
        int64_t t0 = nowNs();
        d[i] = nowNs() - t0;
      }
      qsort(d, kN, sizeof d[0], cmpI64);
      printf("clock %lld\n", (long long)d[kN / 2]);
    } else if (strcmp(line, "cpu") == 0) {
      printf("cpu %lld\n", cpuUs());
    } else if (strcmp(line, "quit") == 0) {
      return;
    } else {
      printf("error unknown command '%s'\n", line);
    }
  }
}

static void usage(void) {
  fprintf(stderr, "usage: hodu_bench MODEL.so [--threads N] "
                  "[--input NAME=FILE.npy]... [--benchmark N] [--warmup W] "
                  "[--serve]\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage();
    return 2;
  }
  long iters = 0, warmup = 3;
  int serveMode = 0;
  const char *inputs[kMaxTensors];
  int numFiles = 0;
  for (int i = 2; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--serve") == 0) {
      serveMode = 1;
    } else if (v && strcmp(a, "--threads") == 0) {
      if (failed(hodu_runtime_set_num_threads(atoi(v)), "--threads"))
        return 2;
      ++i;
    } else if (v && strcmp(a, "--benchmark") == 0) {
      iters = atol(v);
      ++i;
    } else if (v && strcmp(a, "--warmup") == 0) {
      warmup = atol(v);
      ++i;
    } else if (v && strcmp(a, "--input") == 0 && numFiles < kMaxTensors) {
      inputs[numFiles++] = v;
      ++i;
    } else {
      usage();
      return 2;
    }
  }
  if (!serveMode && iters <= 0) {
    usage();
    return 2;
  }

  if (failed(hodu_model_load(argv[1], &gModel), "load"))
    return 2;
  gNumInputs = hodu_model_num_inputs(gModel);
  gNumOutputs = hodu_model_num_outputs(gModel);
  if (gNumInputs > kMaxTensors || gNumOutputs > kMaxTensors) {
    fprintf(stderr, "hodu_bench: too many tensors\n");
    return 2;
  }
  for (int32_t i = 0; i < gNumInputs; ++i)
    if (failed(hodu_model_create_input(gModel, i, &gInputs[i]), "input"))
      return 2;
  for (int32_t i = 0; i < gNumOutputs; ++i)
    if (failed(hodu_model_create_output(gModel, i, &gOutputs[i]), "output"))
      return 2;
  for (int k = 0; k < numFiles; ++k) {
    const char *eq = strchr(inputs[k], '=');
    if (!eq) {
      fprintf(stderr, "hodu_bench: --input wants NAME=FILE, got '%s'\n",
              inputs[k]);
      return 2;
    }
    char name[1024];
    snprintf(name, sizeof name, "%.*s", (int)(eq - inputs[k]), inputs[k]);
    int32_t idx;
    if (failed(hodu_model_input_index(gModel, name, &idx), "--input") ||
        !readNpy(eq + 1, gInputs[idx], name))
      return 2;
  }

  int rc = 0;
  if (serveMode)
    serve();
  else
    rc = benchmark(iters, warmup);
  for (int32_t i = 0; i < gNumInputs; ++i)
    hodu_tensor_free(gInputs[i]);
  for (int32_t i = 0; i < gNumOutputs; ++i)
    hodu_tensor_free(gOutputs[i]);
  hodu_model_free(gModel);
  return rc;
}
