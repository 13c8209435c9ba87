/*===- engine_threads.c - engine models run from several threads ----------===*
 *
 * hodu_model_run may be called from any number of threads; an engine plugin
 * may assume one run at a time per loaded model (hodu/plugin.h). The .toy
 * engine fails a run that overlaps another, so this test fails unless the
 * host serialises them. Usage: engine-threads PLUGINS_DIR MODEL.toy
 *
 *===----------------------------------------------------------------------===*/
#include "hodu/runtime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static hodu_model *model;
static int failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  float base = (float)(size_t)arg;
  int64_t shape[2] = {1, 3};
  hodu_tensor *x = NULL, *y = NULL, *p = NULL;
  int64_t shape_p[1] = {3};
  hodu_status s = hodu_tensor_create(HODU_DTYPE_F32, 2, shape, &x);
  if (!s)
    s = hodu_tensor_create(HODU_DTYPE_F32, 2, shape, &y);
  if (!s)
    s = hodu_tensor_create(HODU_DTYPE_F32, 1, shape_p, &p);
  for (int i = 0; i < 200 && !s; ++i) {
    float *xs = hodu_tensor_data(x);
    for (int k = 0; k < 3; ++k)
      xs[k] = base + (float)k + 1;
    const hodu_tensor *in[] = {x};
    hodu_tensor *out[] = {y, p};
    s = hodu_model_run(model, in, 1, out, 2);
    const float *ys = hodu_tensor_data(y);
    if (!s && ys[2] != (base + 3) * 2.5f) {
      pthread_mutex_lock(&lock);
      ++failures;
      pthread_mutex_unlock(&lock);
      fprintf(stderr, "wrong output %g\n", (double)ys[2]);
    }
  }
  if (s) {
    pthread_mutex_lock(&lock);
    ++failures;
    pthread_mutex_unlock(&lock);
    fprintf(stderr, "run failed: %s\n", hodu_status_message(s));
    hodu_status_free(s);
  }
  hodu_tensor_free(x);
  hodu_tensor_free(y);
  hodu_tensor_free(p);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  hodu_status s = hodu_plugin_add_path(argv[1]);
  if (!s)
    s = hodu_model_load(argv[2], &model);
  if (s) {
    fprintf(stderr, "%s\n", hodu_status_message(s));
    return 1;
  }
  pthread_t threads[4];
  for (size_t t = 0; t < 4; ++t)
    pthread_create(&threads[t], NULL, worker, (void *)t);
  for (int t = 0; t < 4; ++t)
    pthread_join(threads[t], NULL);
  hodu_model_free(model);
  printf("%s: 4 threads x 200 runs, %d failures\n", argv[2], failures);
  return failures != 0;
}
