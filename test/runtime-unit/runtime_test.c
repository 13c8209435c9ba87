/*===- runtime_test.c - unit tests of libhodurt ------------------------------===*
 *
 * Usage: hodurt-tests TEST MODELS_DIR. Each test is its own ctest entry; the
 * fake artifacts in MODELS_DIR are built from models/ and stand in for
 * hoduc output. The npy_* tests cover the .npy code that hodu-run and the
 * `hoduc --emit=exe` driver share (runtime/src/npy.h).
 *
 *===----------------------------------------------------------------------===*/
#include "checks.h"
#include "hodu/runtime.h"
#include "npy.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *models_dir;

static char *model_path(const char *name) {
  static char paths[4][1024];
  static int next;
  char *path = paths[next++ % 4];
  snprintf(path, 1024, "%s/%s.so", models_dir, name);
  return path;
}

static hodu_model *load(const char *name) {
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_load(model_path(name), &model));
  return model;
}

/*===--------------------------------------------------------------------===*/

static void test_status(void) {
  CHECK(hodu_status_get_code(NULL) == HODU_OK);
  CHECK(strcmp(hodu_status_message(NULL), "OK") == 0);
  CHECK(strcmp(hodu_status_code_name(HODU_MISMATCH), "MISMATCH") == 0);
  hodu_status_free(NULL);
  CHECK_ERROR(hodu_runtime_set_num_threads(-2), HODU_INVALID_ARGUMENT,
              "got -2");
  /* The thread profile: a bad switch is refused; started, it is empty
   * until a parallel region runs (the fake models have none), and a count
   * needs no buffer. */
  CHECK_ERROR(hodu_runtime_set_thread_profile(-1), HODU_INVALID_ARGUMENT,
              "got -1");
  CHECK(hodu_runtime_set_thread_profile(1) == NULL);
  CHECK(hodu_runtime_thread_profile(NULL, 0) == 0);
  CHECK(hodu_runtime_set_thread_profile(0) == NULL);
  CHECK(strcmp(hodu_runtime_version(), HODU_RUNTIME_VERSION) == 0);
  CHECK(hodu_runtime_abi_version() == HODU_ABI_VERSION);
}

static void test_dtype(void) {
  static const char *names[HODU_DTYPE_COUNT] = {
      "bool", "f8e4m3", "f8e5m2", "bf16", "f16", "f32", "f64", "u8",
      "u16",  "u32",    "u64",    "i8",   "i16", "i32", "i64"};
  static const size_t sizes[HODU_DTYPE_COUNT] = {1, 1, 1, 2, 2, 4, 8, 1,
                                                 2, 4, 8, 1, 2, 4, 8};
  for (int i = 0; i < HODU_DTYPE_COUNT; ++i) {
    CHECK(strcmp(hodu_dtype_name((hodu_dtype)i), names[i]) == 0);
    CHECK(hodu_dtype_size((hodu_dtype)i) == sizes[i]);
    hodu_dtype parsed = HODU_DTYPE_COUNT;
    CHECK(hodu_dtype_from_name(names[i], &parsed) && (int)parsed == i);
  }
  hodu_dtype untouched = HODU_DTYPE_I8;
  CHECK(!hodu_dtype_from_name("float32", &untouched));
  CHECK(!hodu_dtype_from_name("F32", &untouched));
  CHECK(untouched == HODU_DTYPE_I8);
  CHECK(hodu_dtype_name(HODU_DTYPE_COUNT) == NULL);
  CHECK(hodu_dtype_name((hodu_dtype)-1) == NULL);
  CHECK(hodu_dtype_size(HODU_DTYPE_COUNT) == 0);
}

/* HODU_DTYPE_LIST is the single source of the dtype facts: its rows must
 * be in value order without gaps (tables are indexed by value), each
 * enumerator must carry its row's value, the storage type must have the
 * row's size, and the runtime must report the row's name and size. */
static void test_dtype_table(void) {
  int row = 0;
#define CHECK_ROW(id, value, name, size, storage)                              \
  CHECK(value == row && HODU_DTYPE_##id == value);                             \
  CHECK(sizeof(storage) == size);                                              \
  CHECK(strcmp(hodu_dtype_name(HODU_DTYPE_##id), name) == 0);                  \
  CHECK(hodu_dtype_size(HODU_DTYPE_##id) == size);                             \
  ++row;
  HODU_DTYPE_LIST(CHECK_ROW)
#undef CHECK_ROW
  CHECK(row == HODU_DTYPE_COUNT);
}

static void test_tensor_create(void) {
  int64_t shape[] = {2, 3, 5};
  hodu_tensor *tensor = NULL;
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F64, 3, shape, &tensor));
  shape[0] = 100; /* the tensor keeps its own copy */
  CHECK(hodu_tensor_rank(tensor) == 3);
  CHECK(hodu_tensor_shape(tensor)[0] == 2 && hodu_tensor_shape(tensor)[2] == 5);
  CHECK(hodu_tensor_num_elements(tensor) == 30);
  CHECK(hodu_tensor_bytes(tensor) == 240);
  CHECK(hodu_tensor_dtype(tensor) == HODU_DTYPE_F64);
  CHECK(hodu_tensor_owns_data(tensor));
  CHECK((uintptr_t)hodu_tensor_data(tensor) % 64 == 0);
  const double *data = hodu_tensor_data(tensor);
  for (int i = 0; i < 30; ++i)
    CHECK(data[i] == 0.0);
  hodu_tensor_free(tensor);

  /* A scalar has one element; an empty tensor still has a buffer. */
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_I8, 0, NULL, &tensor));
  CHECK(hodu_tensor_num_elements(tensor) == 1 && hodu_tensor_bytes(tensor) == 1);
  hodu_tensor_free(tensor);
  int64_t empty[] = {4, 0};
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 2, empty, &tensor));
  CHECK(hodu_tensor_num_elements(tensor) == 0 && hodu_tensor_data(tensor));
  hodu_tensor_free(tensor);

  tensor = (hodu_tensor *)1;
  int64_t negative[] = {2, -1};
  CHECK_ERROR(hodu_tensor_create(HODU_DTYPE_F32, 2, negative, &tensor),
              HODU_INVALID_ARGUMENT, "dimension 1 has negative extent -1");
  CHECK(tensor == NULL);
  int64_t huge[] = {INT64_MAX, 4};
  CHECK_ERROR(hodu_tensor_create(HODU_DTYPE_F32, 2, huge, &tensor),
              HODU_INVALID_ARGUMENT, "too large");
  CHECK_ERROR(hodu_tensor_create((hodu_dtype)77, 1, shape, &tensor),
              HODU_INVALID_ARGUMENT, "invalid dtype 77");
  CHECK_ERROR(hodu_tensor_create(HODU_DTYPE_F32, -1, shape, &tensor),
              HODU_INVALID_ARGUMENT, "rank");
  CHECK_ERROR(hodu_tensor_create(HODU_DTYPE_F32, 2, NULL, &tensor),
              HODU_INVALID_ARGUMENT, "shape is NULL");
  hodu_tensor_free(NULL);
}

static void test_tensor_wrap(void) {
  int32_t buffer[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[] = {2, 3};
  hodu_tensor *tensor = NULL;
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_I32, 2, shape, buffer, sizeof(buffer),
                            &tensor));
  CHECK(hodu_tensor_data(tensor) == buffer);
  CHECK(!hodu_tensor_owns_data(tensor));
  CHECK(hodu_tensor_bytes(tensor) == sizeof(buffer));
  hodu_tensor_free(tensor); /* must not free `buffer` */
  CHECK(buffer[5] == 6);

  CHECK_ERROR(hodu_tensor_wrap(HODU_DTYPE_I64, 2, shape, buffer,
                               sizeof(buffer), &tensor),
              HODU_INVALID_ARGUMENT, "needs 48 bytes, the buffer has 24");
  CHECK_ERROR(hodu_tensor_wrap(HODU_DTYPE_I32, 2, shape, NULL, 0, &tensor),
              HODU_INVALID_ARGUMENT, "buffer is NULL");
  CHECK_ERROR(hodu_tensor_wrap(HODU_DTYPE_I32, 1, shape,
                               (char *)buffer + 1, sizeof(buffer) - 1,
                               &tensor),
              HODU_INVALID_ARGUMENT, "not aligned");
  int64_t empty[] = {0};
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_I32, 1, empty, NULL, 0, &tensor));
  hodu_tensor_free(tensor);
}

static void test_queries(void) {
  hodu_model *model = load("affine");
  if (!model)
    return;
  CHECK(strcmp(hodu_model_name(model), "affine") == 0);
  CHECK(strcmp(hodu_model_target(model), "cpu") == 0);
  CHECK(hodu_model_num_inputs(model) == 2);
  CHECK(hodu_model_num_outputs(model) == 1);
  CHECK(strcmp(hodu_model_input_name(model, 1), "b") == 0);
  CHECK(hodu_model_input_dtype(model, 0) == HODU_DTYPE_F32);
  CHECK(hodu_model_input_rank(model, 0) == 2);
  CHECK(hodu_model_input_shape(model, 0)[1] == 3);
  CHECK(hodu_model_input_rank(model, 1) == 1);
  CHECK(strcmp(hodu_model_output_name(model, 0), "y") == 0);
  CHECK(hodu_model_output_dtype(model, 0) == HODU_DTYPE_F32);
  CHECK(hodu_model_output_rank(model, 0) == 2);
  CHECK(hodu_model_output_shape(model, 0)[0] == 2);
  CHECK(hodu_model_descriptor(model)->abi_version == HODU_ABI_VERSION);
  /* Out of range. */
  CHECK(hodu_model_input_name(model, 2) == NULL);
  CHECK(hodu_model_input_name(model, -1) == NULL);
  CHECK(hodu_model_output_rank(model, 1) == -1);
  CHECK((int)hodu_model_output_dtype(model, 1) == -1);
  CHECK(hodu_model_output_shape(model, 5) == NULL);

  int32_t index = -1;
  CHECK_OK(hodu_model_input_index(model, "b", &index));
  CHECK(index == 1);
  CHECK_OK(hodu_model_output_index(model, "y", &index));
  CHECK(index == 0);
  CHECK_ERROR(hodu_model_input_index(model, "z", &index), HODU_NOT_FOUND,
              "model 'affine' has no input named 'z' (inputs: 'x', 'b')");
  CHECK_ERROR(hodu_model_output_index(model, "x", &index), HODU_NOT_FOUND,
              "no output named 'x'");

  hodu_tensor *tensor = NULL;
  CHECK_OK(hodu_model_create_input(model, 1, &tensor));
  CHECK(hodu_tensor_num_elements(tensor) == 3);
  hodu_tensor_free(tensor);
  CHECK_ERROR(hodu_model_create_output(model, 3, &tensor),
              HODU_INVALID_ARGUMENT, "no output 3");
  hodu_model_free(model);
  hodu_model_free(NULL);
}

/* Outputs whose size depends on the data: the companion is found by name,
 * dtype and shape, and only then. */
static void test_output_dims(void) {
  hodu_model *model = load("dims");
  if (!model)
    return;
  CHECK(hodu_model_output_dims_index(model, 0) == 1);
  CHECK(hodu_model_output_dims_index(model, 1) == -1); /* rows#dims itself */
  CHECK(hodu_model_output_dims_index(model, 2) == -1); /* static */
  CHECK(hodu_model_output_dims_index(model, 3) == -1); /* odd#dims: rank 2 */
  CHECK(hodu_model_output_dims_index(model, 5) == -1);
  CHECK(hodu_model_output_dims_index(model, -1) == -1);
  CHECK(hodu_model_output_dims_index(NULL, 0) == -1);
  hodu_model_free(model);
  /* A model without such outputs. */
  model = load("affine");
  if (!model)
    return;
  CHECK(hodu_model_output_dims_index(model, 0) == -1);
  hodu_model_free(model);
}

/* Runs affine on x = base + i, b = {10, 20, 30} into caller memory. */
static int run_affine(const hodu_model *model, float base) {
  float x[6], b[3] = {10, 20, 30}, y[6] = {0};
  for (int i = 0; i < 6; ++i)
    x[i] = base + (float)i;
  int64_t x_shape[] = {2, 3}, b_shape[] = {3};
  hodu_tensor *tx = NULL, *tb = NULL, *ty = NULL;
  int ok = 1;
  hodu_status status =
      hodu_tensor_wrap(HODU_DTYPE_F32, 2, x_shape, x, sizeof(x), &tx);
  if (!status)
    status = hodu_tensor_wrap(HODU_DTYPE_F32, 1, b_shape, b, sizeof(b), &tb);
  if (!status)
    status = hodu_tensor_wrap(HODU_DTYPE_F32, 2, x_shape, y, sizeof(y), &ty);
  const hodu_tensor *inputs[] = {tx, tb};
  if (!status)
    status = hodu_model_run(model, inputs, 2, &ty, 1);
  if (status) {
    hodu_status_free(status);
    ok = 0;
  }
  /* The output went straight into `y`: no copy. */
  for (int i = 0; ok && i < 6; ++i)
    ok = y[i] == (base + (float)i) * 2.0f + b[i % 3];
  hodu_tensor_free(tx);
  hodu_tensor_free(tb);
  hodu_tensor_free(ty);
  return ok;
}

static void test_run(void) {
  hodu_model *model = load("affine");
  if (!model)
    return;
  CHECK(run_affine(model, 1.0f));
  CHECK(run_affine(model, -7.5f));

  /* Runtime-owned outputs through run_alloc. */
  hodu_tensor *x = NULL, *b = NULL, *y[1] = {NULL};
  CHECK_OK(hodu_model_create_input(model, 0, &x));
  CHECK_OK(hodu_model_create_input(model, 1, &b));
  ((float *)hodu_tensor_data(x))[4] = 3.0f;
  ((float *)hodu_tensor_data(b))[1] = 0.5f;
  const hodu_tensor *inputs[] = {x, b};
  CHECK_OK(hodu_model_run_alloc(model, inputs, 2, y, 1));
  if (y[0]) {
    const float *out = hodu_tensor_data(y[0]);
    CHECK(out[4] == 6.5f && out[1] == 0.5f && out[0] == 0.0f);
    CHECK(hodu_tensor_owns_data(y[0]));
  }
  hodu_tensor_free(y[0]);
  hodu_tensor_free(x);
  hodu_tensor_free(b);
  hodu_model_free(model);
}

static void test_mismatch(void) {
  hodu_model *model = load("affine");
  if (!model)
    return;
  int64_t s23[] = {2, 3}, s2[] = {2}, s3[] = {3}, s32[] = {3, 2};
  hodu_tensor *x = NULL, *b = NULL, *y = NULL, *bad = NULL;
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 2, s23, &x));
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 1, s3, &b));
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 2, s23, &y));
  const hodu_tensor *inputs[] = {x, b};

  CHECK_ERROR(hodu_model_run(model, inputs, 1, &y, 1), HODU_MISMATCH,
              "model 'affine' expects 2 inputs, got 1");
  CHECK_ERROR(hodu_model_run(model, inputs, 2, &y, 0), HODU_MISMATCH,
              "model 'affine' has 1 output, got 0");

  CHECK_OK(hodu_tensor_create(HODU_DTYPE_I64, 2, s23, &bad));
  const hodu_tensor *wrong_dtype[] = {bad, b};
  CHECK_ERROR(hodu_model_run(model, wrong_dtype, 2, &y, 1), HODU_MISMATCH,
              "input 'x': expected dtype f32, got i64");
  hodu_tensor_free(bad);

  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 1, s2, &bad));
  const hodu_tensor *wrong_shape[] = {x, bad};
  CHECK_ERROR(hodu_model_run(model, wrong_shape, 2, &y, 1), HODU_MISMATCH,
              "input 'b': expected shape [3], got [2]");
  CHECK_ERROR(hodu_model_run(model, inputs, 2, &bad, 1), HODU_MISMATCH,
              "output 'y': expected shape [2,3], got [2]");
  hodu_tensor_free(bad);

  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 2, s32, &bad));
  CHECK_ERROR(hodu_model_run(model, inputs, 2, &bad, 1), HODU_MISMATCH,
              "output 'y': expected shape [2,3], got [3,2]");
  hodu_tensor_free(bad);
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 0, NULL, &bad));
  const hodu_tensor *scalar[] = {x, bad};
  CHECK_ERROR(hodu_model_run(model, scalar, 2, &y, 1), HODU_MISMATCH,
              "input 'b': expected shape [3], got []");
  hodu_tensor_free(bad);

  const hodu_tensor *missing[] = {x, NULL};
  CHECK_ERROR(hodu_model_run(model, missing, 2, &y, 1),
              HODU_INVALID_ARGUMENT, "input 1 ('b') is NULL");
  CHECK_ERROR(hodu_model_run(NULL, inputs, 2, &y, 1), HODU_INVALID_ARGUMENT,
              "model is NULL");

  /* An output over an input's memory is refused. */
  hodu_tensor *alias = NULL;
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 2, s23, hodu_tensor_data(x),
                            hodu_tensor_bytes(x), &alias));
  CHECK_ERROR(hodu_model_run(model, inputs, 2, &alias, 1),
              HODU_INVALID_ARGUMENT, "output 'y' overlaps input 'x'");
  hodu_tensor_free(alias);

  /* run_alloc leaves no outputs behind on failure. */
  hodu_tensor *slots[1] = {(hodu_tensor *)1};
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 1, s2, &bad));
  const hodu_tensor *short_b[] = {x, bad};
  CHECK_ERROR(hodu_model_run_alloc(model, short_b, 2, slots, 1),
              HODU_MISMATCH, "input 'b': expected shape [3], got [2]");
  CHECK(slots[0] == NULL);
  hodu_tensor_free(bad);
  hodu_tensor *two_slots[2] = {(hodu_tensor *)1, (hodu_tensor *)1};
  CHECK_ERROR(hodu_model_run_alloc(model, inputs, 2, two_slots, 2),
              HODU_MISMATCH, "has 1 output, got 2 slots");
  CHECK(two_slots[0] == NULL && two_slots[1] == NULL);

  hodu_tensor_free(x);
  hodu_tensor_free(b);
  hodu_tensor_free(y);
  hodu_model_free(model);
}

static void test_load_errors(void) {
  hodu_model *model = (hodu_model *)1;
  char path[1024];
  snprintf(path, sizeof(path), "%s/does-not-exist.so", models_dir);
  CHECK_ERROR(hodu_model_load(path, &model), HODU_NOT_FOUND,
              "does-not-exist.so': no such file");
  CHECK(model == NULL);
  CHECK_ERROR(hodu_model_load(models_dir, &model), HODU_NOT_FOUND,
              "is a directory");
  CHECK_ERROR(hodu_model_load("", &model), HODU_INVALID_ARGUMENT, "empty");
  CHECK_ERROR(hodu_model_load(model_path("no_symbol"), &model),
              HODU_INVALID_ARTIFACT,
              "is not a Hodu artifact: it does not export the symbol "
              "'hodu_model_descriptor'");
  CHECK_ERROR(hodu_model_load(model_path("bad_abi"), &model),
              HODU_INCOMPATIBLE,
              "was built for Hodu ABI version 99, but this runtime (" 
              HODU_RUNTIME_VERSION ") loads ABI versions 1 to 3");
  CHECK_ERROR(hodu_model_load(model_path("malformed"), &model),
              HODU_INVALID_ARTIFACT, "input 'v' has unknown dtype 42");

  /* A file that is not a shared library at all. */
  snprintf(path, sizeof(path), "%s/not-elf.so", models_dir);
  FILE *file = fopen(path, "w");
  CHECK(file != NULL);
  if (file) {
    fputs("this is text\n", file);
    fclose(file);
    CHECK_ERROR(hodu_model_load(path, &model), HODU_INVALID_ARTIFACT,
                "cannot load it as a shared library");
    remove(path);
  }
  CHECK(model == NULL);
}

static void test_relative_path(void) {
  /* "affine.so" means ./affine.so, not a library-path search. */
  CHECK(chdir(models_dir) == 0);
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_load("affine.so", &model));
  CHECK(model && strcmp(hodu_model_name(model), "affine") == 0);
  hodu_model_free(model);
}

static void test_int_and_bool(void) {
  hodu_model *model = load("count");
  if (model) {
    int64_t a[4] = {5, -3, 100, INT64_MAX - 200};
    int64_t shape[] = {4};
    hodu_tensor *ta = NULL, *outputs[2] = {NULL, NULL};
    CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_I64, 1, shape, a, sizeof(a), &ta));
    const hodu_tensor *inputs[] = {ta};
    CHECK_OK(hodu_model_run_alloc(model, inputs, 1, outputs, 2));
    if (outputs[0] && outputs[1]) {
      const int64_t *s = hodu_tensor_data(outputs[0]);
      CHECK(s[0] == 6 && s[1] == -2 && s[3] == INT64_MAX - 199);
      CHECK(hodu_tensor_rank(outputs[1]) == 0);
      CHECK(*(const int64_t *)hodu_tensor_data(outputs[1]) ==
            INT64_MAX - 98);
    }
    hodu_tensor_free(outputs[0]);
    hodu_tensor_free(outputs[1]);
    hodu_tensor_free(ta);
    hodu_model_free(model);
  }

  model = load("logic");
  if (model) {
    uint8_t m[4] = {1, 0, 0, 1}, n[4] = {9, 9, 9, 9};
    int64_t shape[] = {2, 2};
    hodu_tensor *tm = NULL, *tn = NULL;
    CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_BOOL, 2, shape, m, 4, &tm));
    CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_BOOL, 2, shape, n, 4, &tn));
    const hodu_tensor *inputs[] = {tm};
    CHECK_OK(hodu_model_run(model, inputs, 1, &tn, 1));
    CHECK(n[0] == 0 && n[1] == 1 && n[2] == 1 && n[3] == 0);
    hodu_tensor_free(tm);
    hodu_tensor_free(tn);
    hodu_model_free(model);
  }
}

static void test_run_failed(void) {
  hodu_model *model = load("failing");
  if (!model)
    return;
  hodu_tensor *v = NULL, *w = NULL;
  CHECK_OK(hodu_model_create_input(model, 0, &v));
  const hodu_tensor *inputs[] = {v};
  CHECK_ERROR(hodu_model_run_alloc(model, inputs, 1, &w, 1), HODU_RUN_FAILED,
              "model 'failing' failed: its entry returned 7");
  CHECK(w == NULL);
  hodu_tensor_free(v);
  hodu_model_free(model);
}

/* An entry's code names the run-time check that failed; 1 is no memory
 * for the workspace; other codes stay bare. */
static void test_run_checks(void) {
  hodu_model *model = load("checking");
  if (!model)
    return;
  static const struct {
    float code;
    hodu_status_code status;
    const char *message;
  } cases[] = {
      {2, HODU_RUN_FAILED,
       "model 'checking': the input data breaks a run-time check: node 'r' "
       "(Reshape): the first assumption"},
      {3, HODU_RUN_FAILED,
       "model 'checking': the input data breaks a run-time check: node 'l' "
       "(Loop): the second assumption"},
      {1, HODU_OUT_OF_MEMORY,
       "model 'checking' failed: no memory for its workspace"},
      {4, HODU_RUN_FAILED, "model 'checking' failed: its entry returned 4"},
      {-1, HODU_RUN_FAILED, "model 'checking' failed: its entry returned -1"},
  };
  /* The checks as the API lists them, and nothing past them. */
  CHECK(hodu_model_num_checks(model) == 2);
  CHECK(strcmp(hodu_model_check_message(model, 0),
               "node 'r' (Reshape): the first assumption") == 0);
  CHECK(strcmp(hodu_model_check_message(model, 1),
               "node 'l' (Loop): the second assumption") == 0);
  CHECK(hodu_model_check_message(model, 2) == NULL);
  CHECK(hodu_model_check_message(model, -1) == NULL);
  CHECK(hodu_model_num_checks(NULL) == 0);
  CHECK(hodu_model_check_message(NULL, 0) == NULL);
  hodu_tensor *v = NULL, *w = NULL;
  CHECK_OK(hodu_model_create_input(model, 0, &v));
  CHECK_OK(hodu_model_create_output(model, 0, &w));
  const hodu_tensor *inputs[] = {v};
  CHECK_OK(hodu_model_run(model, inputs, 1, &w, 1));
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    ((float *)hodu_tensor_data(v))[0] = cases[i].code;
    CHECK_ERROR(hodu_model_run(model, inputs, 1, &w, 1), cases[i].status,
                cases[i].message);
  }
  hodu_tensor_free(v);
  hodu_tensor_free(w);
  hodu_model_free(model);
  CHECK_ERROR(hodu_model_load(model_path("bad_checks"), &model),
              HODU_INVALID_ARTIFACT,
              "malformed descriptor: 3 run-time checks without their "
              "messages");
}

static int32_t probe_threads(const hodu_model *model) {
  hodu_tensor *out = NULL;
  int32_t value = -100;
  hodu_status status = hodu_model_run_alloc(model, NULL, 0, &out, 1);
  if (!status)
    value = *(const int32_t *)hodu_tensor_data(out);
  hodu_status_free(status);
  hodu_tensor_free(out);
  return value;
}

static void test_threads(void) {
  hodu_model *model = load("probe");
  if (!model)
    return;
  CHECK(hodu_runtime_get_num_threads() == 0);
  CHECK(probe_threads(model) == (int32_t)sysconf(_SC_NPROCESSORS_ONLN));
  CHECK_OK(hodu_runtime_set_num_threads(3));
  CHECK(hodu_runtime_get_num_threads() == 3);
  CHECK(probe_threads(model) == 3);
  CHECK_OK(hodu_runtime_set_num_threads(0));
  CHECK(probe_threads(model) >= 1);
  hodu_model_free(model);
}

/* The team model (models/team.c): libhodurt's thread teams as hoduc's
 * OpenMP code calls them; 1 when one run saw a team of `threads` (0: any
 * size; never more than the CPUs) that scheduled, synchronised and nested
 * correctly. */
static int team_run_ok(const hodu_model *model, int threads) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (threads > cpus)
    threads = (int)cpus;
  hodu_tensor *out = NULL;
  hodu_status status = hodu_model_run_alloc(model, NULL, 0, &out, 1);
  int ok = !status;
  if (ok) {
    const int64_t *y = hodu_tensor_data(out);
    const int64_t n = 100003;
    ok = y[0] == n * (n - 1) / 2 && (threads ? y[1] == threads : y[1] >= 1) &&
         y[2] == 0 && y[3] == 1 && y[4] == 0 && y[5] == 0;
    if (!ok)
      fprintf(stderr,
              "team (%d threads): sum %lld, size %lld, barrier failures "
              "%lld, nested %lld, chunked misses %lld, disagreements %lld\n",
              threads, (long long)y[0], (long long)y[1], (long long)y[2],
              (long long)y[3], (long long)y[4], (long long)y[5]);
  }
  hodu_status_free(status);
  hodu_tensor_free(out);
  return ok;
}

static void *team_root(void *opaque) {
  const hodu_model *model = opaque;
  for (int i = 0; i < 200; ++i)
    if (!team_run_ok(model, 3))
      return (void *)1;
  return NULL;
}

static void test_thread_team(void) {
  /* The team's mechanics, every run on the team (not the calling thread
   * alone, which runs may choose: test_thread_adapt). Read once, at the
   * process's first run. */
  setenv("HODU_THREAD_ADAPT", "0", 1);
  hodu_model *model = load("team");
  if (!model)
    return;
  /* Teams of several sizes, one after the other (a team grows and is
   * reused smaller), many runs each. */
  const int sizes[] = {1, 2, 3, 5, 2, 8};
  for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
    CHECK_OK(hodu_runtime_set_num_threads(sizes[k]));
    int ok = 1;
    for (int i = 0; i < 50 && ok; ++i)
      ok = team_run_ok(model, sizes[k]);
    CHECK(ok);
  }
  /* Runs a millisecond apart: the workers stop spinning (after about
   * 200 us) and sleep in futex_wait, so each fork must wake them (a fork
   * wakes only when a thread sleeps); a lost wake-up hangs here. */
  CHECK_OK(hodu_runtime_set_num_threads(2));
  int rested = 1;
  for (int i = 0; i < 20 && rested; ++i) {
    usleep(1000);
    rested = team_run_ok(model, 2);
  }
  CHECK(rested);
  CHECK_OK(hodu_runtime_set_num_threads(0));
  CHECK(team_run_ok(model, 0));
  /* Roots running at once each get their own team; each root's team goes
   * with it when it exits. */
  CHECK_OK(hodu_runtime_set_num_threads(3));
  enum { ROOTS = 4 };
  pthread_t roots[ROOTS];
  for (int i = 0; i < ROOTS; ++i)
    CHECK(pthread_create(&roots[i], NULL, team_root, model) == 0);
  for (int i = 0; i < ROOTS; ++i) {
    void *failed = NULL;
    pthread_join(roots[i], &failed);
    CHECK(failed == NULL);
  }
  CHECK_OK(hodu_runtime_set_num_threads(0));
  hodu_model_free(model);
}

/* A model's runs choose the team or the calling thread alone by
 * measurement: two on the team, then eight alternating, the team first,
 * then each run takes one of the two, and every run computes the same. */
static void test_thread_adapt(void) {
  unsetenv("HODU_THREAD_ADAPT");
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
    return; /* one CPU: every run is alone */
  hodu_model *model = load("team");
  if (!model)
    return;
  CHECK_OK(hodu_runtime_set_num_threads(2));
  const int explore[] = {2, 2, 2, 1, 2, 1, 2, 1, 2, 1};
  for (unsigned i = 0; i < sizeof explore / sizeof *explore; ++i)
    CHECK(team_run_ok(model, explore[i]));
  int ok = 1;
  for (int i = 0; i < 300 && ok; ++i)
    ok = team_run_ok(model, 0);
  CHECK(ok);
  CHECK_OK(hodu_runtime_set_num_threads(0));
  hodu_model_free(model);
}

typedef struct {
  const hodu_model *model;
  int id;
  int ok;
} worker_args;

static void *worker(void *opaque) {
  worker_args *args = opaque;
  args->ok = 1;
  for (int i = 0; i < 2000 && args->ok; ++i)
    args->ok = run_affine(args->model, (float)(args->id * 1000 + i));
  return NULL;
}

static void test_concurrent_runs(void) {
  hodu_model *model = load("affine");
  if (!model)
    return;
  enum { NUM_WORKERS = 8 };
  pthread_t threads[NUM_WORKERS];
  worker_args args[NUM_WORKERS];
  for (int i = 0; i < NUM_WORKERS; ++i) {
    args[i] = (worker_args){model, i, 0};
    CHECK(pthread_create(&threads[i], NULL, worker, &args[i]) == 0);
  }
  for (int i = 0; i < NUM_WORKERS; ++i) {
    pthread_join(threads[i], NULL);
    CHECK(args[i].ok);
  }
  hodu_model_free(model);
}

/* Linked in from models/affine.c (built without the unprefixed alias). */
extern const hodu_model_desc affine_hodu_descriptor;

static void test_from_descriptor(void) {
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_from_descriptor(&affine_hodu_descriptor, &model));
  if (model) {
    CHECK(strcmp(hodu_model_name(model), "affine") == 0);
    CHECK(run_affine(model, 2.0f));
    hodu_model_free(model);
  }
  CHECK_ERROR(hodu_model_from_descriptor(NULL, &model),
              HODU_INVALID_ARGUMENT, "descriptor is NULL");
  hodu_model_desc future = affine_hodu_descriptor;
  future.abi_version = HODU_ABI_VERSION + 1;
  CHECK_ERROR(hodu_model_from_descriptor(&future, &model), HODU_INCOMPATIBLE,
              "descriptor was built for Hodu ABI version 4");
  hodu_model_desc truncated = affine_hodu_descriptor;
  truncated.struct_size = 8;
  CHECK_ERROR(hodu_model_from_descriptor(&truncated, &model),
              HODU_INVALID_ARTIFACT, "struct_size 8 is smaller");
  hodu_model_desc no_entry = affine_hodu_descriptor;
  no_entry.entry = NULL;
  CHECK_ERROR(hodu_model_from_descriptor(&no_entry, &model),
              HODU_INVALID_ARTIFACT, "no entry function");
  hodu_model_desc negative = affine_hodu_descriptor;
  negative.num_outputs = -1;
  CHECK_ERROR(hodu_model_from_descriptor(&negative, &model),
              HODU_INVALID_ARTIFACT, "-1 outputs");
}

/*===--------------------------------------------------------------------===*
 * Symbolic dims (models/symbolic.c: x f32[batch,3], mask f32[batch],
 * s f32[seq]; y f32[batch], z f32[2*batch+1], w f32[seq])
 *===--------------------------------------------------------------------===*/

extern const hodu_model_desc symbolic_hodu_descriptor;

/* An f32 tensor of `rank` dims whose element k is `base` + k. */
static hodu_tensor *f32_tensor(int32_t rank, const int64_t *shape, float base) {
  hodu_tensor *tensor = NULL;
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, rank, shape, &tensor));
  for (int64_t k = 0; tensor && k < hodu_tensor_num_elements(tensor); ++k)
    ((float *)hodu_tensor_data(tensor))[k] = base + (float)k;
  return tensor;
}

/* The symbolic model's inputs at `batch` and `seq` (x, mask, s). */
static void symbolic_inputs(int64_t batch, int64_t seq, hodu_tensor **in) {
  int64_t x_shape[] = {batch, 3}, mask_shape[] = {batch}, s_shape[] = {seq};
  in[0] = f32_tensor(2, x_shape, 0.0f);
  in[1] = f32_tensor(1, mask_shape, 100.0f);
  in[2] = f32_tensor(1, s_shape, 1.0f);
}

static void free_tensors(hodu_tensor **tensors, int count) {
  for (int i = 0; i < count; ++i) {
    hodu_tensor_free(tensors[i]);
    tensors[i] = NULL;
  }
}

/* The outputs hold what the entry computes for `batch` and `seq`. */
static int symbolic_outputs_ok(hodu_tensor *const *out, int64_t batch,
                               int64_t seq) {
  if (!out[0] || !out[1] || !out[2] || hodu_tensor_shape(out[0])[0] != batch ||
      hodu_tensor_shape(out[1])[0] != 2 * batch + 1 ||
      hodu_tensor_shape(out[2])[0] != seq)
    return 0;
  const float *y = hodu_tensor_data(out[0]), *z = hodu_tensor_data(out[1]),
              *w = hodu_tensor_data(out[2]);
  for (int64_t i = 0; i < batch; ++i)
    if (y[i] != (float)(9 * i + 3) + 100.0f + (float)i)
      return 0;
  for (int64_t k = 0; k < 2 * batch + 1; ++k)
    if (z[k] != (float)k)
      return 0;
  for (int64_t j = 0; j < seq; ++j)
    if (w[j] != (1.0f + (float)j) * (float)batch)
      return 0;
  return 1;
}

static void test_symbols_queries(void) {
  hodu_model *model = load("symbolic");
  if (!model)
    return;
  CHECK(hodu_model_num_symbols(model) == 2);
  CHECK(strcmp(hodu_model_symbol_name(model, 0), "batch") == 0);
  CHECK(strcmp(hodu_model_symbol_name(model, 1), "seq") == 0);
  CHECK(hodu_model_symbol_name(model, 2) == NULL);
  const hodu_symbol_desc *seq = hodu_model_symbol(model, 1);
  CHECK(seq && seq->min == 0 && seq->max == 32 && seq->multiple == 4 &&
        seq->chunk == 0);
  CHECK(hodu_model_symbol(model, -1) == NULL);
  int32_t index = -1;
  CHECK_OK(hodu_model_symbol_index(model, "seq", &index));
  CHECK(index == 1);
  CHECK_ERROR(hodu_model_symbol_index(model, "len", &index), HODU_NOT_FOUND,
              "model 'symbolic' has no symbol named 'len' (symbols: "
              "'batch', 'seq')");
  /* The descriptor's shapes keep HODU_DIM_DYNAMIC. */
  CHECK(hodu_model_input_shape(model, 0)[0] == HODU_DIM_DYNAMIC);
  CHECK(hodu_model_input_shape(model, 0)[1] == 3);

  hodu_tensor *tensor = (hodu_tensor *)1;
  CHECK_ERROR(hodu_model_create_input(model, 0, &tensor), HODU_INVALID_ARGUMENT,
              "model 'symbolic': input 'x' dim 0 is symbol 'batch', which "
              "has no value here: create it with "
              "hodu_model_create_input_with_symbols");
  CHECK(tensor == NULL);
  CHECK_ERROR(hodu_model_create_output(model, 1, &tensor),
              HODU_INVALID_ARGUMENT, "output 'z' dim 0 is symbol 'batch'");

  int64_t values[] = {5, 8}, shape[2] = {0, 0};
  CHECK_OK(hodu_model_resolve_input_shape(model, 0, values, 2, shape));
  CHECK(shape[0] == 5 && shape[1] == 3);
  CHECK_OK(hodu_model_resolve_output_shape(model, 1, values, 2, shape));
  CHECK(shape[0] == 11);
  CHECK_OK(hodu_model_create_output_with_symbols(model, 2, values, 2, &tensor));
  CHECK(tensor && hodu_tensor_rank(tensor) == 1 &&
        hodu_tensor_shape(tensor)[0] == 8 && hodu_tensor_bytes(tensor) == 32);
  hodu_tensor_free(tensor);
  CHECK_OK(hodu_model_create_input_with_symbols(model, 0, values, 2, &tensor));
  CHECK(tensor && hodu_tensor_bytes(tensor) == 60);
  hodu_tensor_free(tensor);

  CHECK_ERROR(hodu_model_resolve_input_shape(model, 0, values, 1, shape),
              HODU_INVALID_ARGUMENT,
              "model 'symbolic' has 2 symbols, got 1 values");
  int64_t too_big[] = {17, 8}, too_small[] = {0, 8}, odd[] = {2, 6};
  CHECK_ERROR(
      hodu_model_create_input_with_symbols(model, 0, too_big, 2, &tensor),
      HODU_MISMATCH,
      "model 'symbolic': symbol 'batch' is 17, but must be at most "
      "16");
  CHECK_ERROR(hodu_model_resolve_output_shape(model, 0, too_small, 2, shape),
              HODU_MISMATCH, "symbol 'batch' is 0, but must be at least 1");
  CHECK_ERROR(hodu_model_resolve_output_shape(model, 0, odd, 2, shape),
              HODU_MISMATCH, "symbol 'seq' is 6, but must be a multiple of 4");

  /* Binding from the inputs a caller has; -1 for the others. */
  hodu_tensor *in[3] = {NULL};
  symbolic_inputs(6, 12, in);
  const hodu_tensor *partial[] = {in[0], NULL, NULL};
  int64_t bound[2] = {0, 0};
  CHECK_OK(hodu_model_bind_symbols(model, partial, 3, bound, 2));
  CHECK(bound[0] == 6 && bound[1] == -1);
  const hodu_tensor *all[] = {in[0], in[1], in[2]};
  CHECK_OK(hodu_model_bind_symbols(model, all, 3, bound, 2));
  CHECK(bound[0] == 6 && bound[1] == 12);
  CHECK_ERROR(hodu_model_bind_symbols(model, all, 2, bound, 2), HODU_MISMATCH,
              "model 'symbolic' expects 3 inputs, got 2");
  free_tensors(in, 3);
  hodu_model_free(model);
}

static void test_symbols_run(void) {
  hodu_model *model = load("symbolic");
  if (!model)
    return;
  /* One artifact, three shapes; run_alloc sizes the outputs. */
  int64_t shapes[][2] = {{2, 4}, {5, 0}, {16, 32}};
  for (int t = 0; t < 3; ++t) {
    hodu_tensor *in[3] = {NULL}, *out[3] = {NULL};
    symbolic_inputs(shapes[t][0], shapes[t][1], in);
    CHECK_OK(
        hodu_model_run_alloc(model, (const hodu_tensor *const *)in, 3, out, 3));
    CHECK(symbolic_outputs_ok(out, shapes[t][0], shapes[t][1]));
    free_tensors(in, 3);
    free_tensors(out, 3);
  }
  /* Caller-given outputs at the resolved shapes. */
  hodu_tensor *in[3] = {NULL}, *out[3] = {NULL};
  symbolic_inputs(3, 8, in);
  int64_t values[] = {3, 8};
  for (int32_t o = 0; o < 3; ++o)
    CHECK_OK(
        hodu_model_create_output_with_symbols(model, o, values, 2, &out[o]));
  CHECK_OK(hodu_model_run(model, (const hodu_tensor *const *)in, 3, out, 3));
  CHECK(symbolic_outputs_ok(out, 3, 8));
  free_tensors(in, 3);
  free_tensors(out, 3);

  /* Through the linked descriptor too. */
  hodu_model *linked = NULL;
  CHECK_OK(hodu_model_from_descriptor(&symbolic_hodu_descriptor, &linked));
  if (linked) {
    symbolic_inputs(1, 4, in);
    CHECK_OK(hodu_model_run_alloc(linked, (const hodu_tensor *const *)in, 3,
                                  out, 3));
    CHECK(symbolic_outputs_ok(out, 1, 4));
    free_tensors(in, 3);
    free_tensors(out, 3);
    hodu_model_free(linked);
  }
  hodu_model_free(model);
}

/* Runs the symbolic model on inputs of the given shapes (x: rank x_rank). */
static hodu_status run_symbolic_at(const hodu_model *model, int32_t x_rank,
                                   const int64_t *x_shape, int64_t mask,
                                   int64_t seq) {
  int64_t mask_shape[] = {mask}, s_shape[] = {seq};
  hodu_tensor *in[3] = {f32_tensor(x_rank, x_shape, 0.0f),
                        f32_tensor(1, mask_shape, 0.0f),
                        f32_tensor(1, s_shape, 0.0f)};
  hodu_tensor *out[3] = {NULL};
  hodu_status status =
      hodu_model_run_alloc(model, (const hodu_tensor *const *)in, 3, out, 3);
  free_tensors(in, 3);
  free_tensors(out, 3);
  return status;
}

static int32_t nothing_entry(void *const *inputs, void *const *outputs,
                             void *ctx) {
  (void)inputs;
  (void)outputs;
  (void)ctx;
  return 0;
}

static void test_symbols_mismatch(void) {
  hodu_model *model = load("symbolic");
  if (!model)
    return;
  int64_t x4[] = {4, 3}, x_rank3[] = {4, 3, 1}, x_wide[] = {4, 5},
          x17[] = {17, 3}, x0[] = {0, 3};
  CHECK_OK(run_symbolic_at(model, 2, x4, 4, 8));
  CHECK_ERROR(run_symbolic_at(model, 3, x_rank3, 4, 8), HODU_MISMATCH,
              "model 'symbolic': input 'x' has rank 3, but the model's input "
              "has rank 2 (shape [batch,3])");
  CHECK_ERROR(run_symbolic_at(model, 2, x_wide, 4, 8), HODU_MISMATCH,
              "model 'symbolic': input 'x' dim 1 is 5, but the model's input "
              "has 3 there (shape [batch,3])");
  CHECK_ERROR(run_symbolic_at(model, 2, x4, 7, 8), HODU_MISMATCH,
              "model 'symbolic': input 'mask' dim 0 is 7, but symbol 'batch' "
              "is 4 (from input 'x' dim 0)");
  CHECK_ERROR(run_symbolic_at(model, 2, x17, 17, 8), HODU_MISMATCH,
              "model 'symbolic': input 'x' dim 0 is 17: symbol 'batch' must "
              "be at most 16");
  CHECK_ERROR(run_symbolic_at(model, 2, x0, 0, 8), HODU_MISMATCH,
              "model 'symbolic': input 'x' dim 0 is 0: symbol 'batch' must be "
              "at least 1");
  CHECK_ERROR(run_symbolic_at(model, 2, x4, 4, 6), HODU_MISMATCH,
              "model 'symbolic': input 's' dim 0 is 6: symbol 'seq' must be a "
              "multiple of 4");
  CHECK_ERROR(run_symbolic_at(model, 2, x4, 4, 36), HODU_MISMATCH,
              "input 's' dim 0 is 36: symbol 'seq' must be at most 32");

  /* Caller outputs must have exactly the resolved shapes. */
  hodu_tensor *in[3] = {NULL}, *out[3] = {NULL};
  symbolic_inputs(4, 8, in);
  int64_t values[] = {4, 8}, z_short[] = {8};
  for (int32_t o = 0; o < 3; ++o)
    CHECK_OK(
        hodu_model_create_output_with_symbols(model, o, values, 2, &out[o]));
  hodu_tensor_free(out[1]);
  out[1] = f32_tensor(1, z_short, 0.0f);
  CHECK_ERROR(hodu_model_run(model, (const hodu_tensor *const *)in, 3, out, 3),
              HODU_MISMATCH,
              "model 'symbolic': output 'z' must have shape [9] (36 bytes) "
              "for batch=4, seq=8, got [8]");
  const hodu_tensor *missing[] = {in[0], NULL, in[2]};
  CHECK_ERROR(hodu_model_run(model, missing, 3, out, 3), HODU_INVALID_ARGUMENT,
              "input 1 ('mask') is NULL");
  free_tensors(in, 3);
  free_tensors(out, 3);
  hodu_model_free(model);

  /* Scaled dims: r f32[n], p f32[2*n+1] -> q f32[n], n in 0..8. */
  static const int64_t dynamic_shape[] = {HODU_DIM_DYNAMIC};
  static const hodu_tensor_desc inputs[] = {
      {"r", HODU_DTYPE_F32, 1, dynamic_shape},
      {"p", HODU_DTYPE_F32, 1, dynamic_shape}};
  static const hodu_tensor_desc outputs[] = {
      {"q", HODU_DTYPE_F32, 1, dynamic_shape}};
  static const hodu_symbol_desc symbols[] = {{"n", 0, 8, 1, 0}};
  static const hodu_dynamic_dim dims[] = {
      {0, 0, 0, 0, 1, 0}, {0, 1, 0, 0, 2, 1}, {1, 0, 0, 0, 1, 0}};
  const hodu_model_desc scaled = {HODU_ABI_VERSION,
                                  sizeof(hodu_model_desc),
                                  "scaled",
                                  "cpu",
                                  2,
                                  1,
                                  inputs,
                                  outputs,
                                  nothing_entry,
                                  0,
                                  0,
                                  NULL,
                                  0,
                                  NULL,
                                  1,
                                  symbols,
                                  3,
                                  dims};
  CHECK_OK(hodu_model_from_descriptor(&scaled, &model));
  if (!model)
    return;
  int64_t r3[] = {3}, p7[] = {7}, p6[] = {6}, p9[] = {9}, p19[] = {19};
  hodu_tensor *r = f32_tensor(1, r3, 0), *p = f32_tensor(1, p7, 0), *q = NULL;
  const hodu_tensor *rp[] = {r, p};
  CHECK_OK(hodu_model_run_alloc(model, rp, 2, &q, 1));
  CHECK(q && hodu_tensor_shape(q)[0] == 3);
  hodu_tensor_free(q);
  q = NULL;
  hodu_tensor_free(p);
  rp[1] = p = f32_tensor(1, p6, 0);
  CHECK_ERROR(hodu_model_run_alloc(model, rp, 2, &q, 1), HODU_MISMATCH,
              "model 'scaled': input 'p' dim 0 is 6, which is not 2*n+1 for "
              "any value of symbol 'n'");
  hodu_tensor_free(p);
  rp[1] = p = f32_tensor(1, p9, 0);
  CHECK_ERROR(hodu_model_run_alloc(model, rp, 2, &q, 1), HODU_MISMATCH,
              "model 'scaled': input 'p' dim 0 is 9, which makes symbol 'n' "
              "4, but it is 3 (from input 'r' dim 0)");
  hodu_tensor_free(p);
  rp[1] = p = f32_tensor(1, p19, 0);
  const hodu_tensor *p_only[] = {NULL, p};
  int64_t n = 0;
  CHECK_ERROR(hodu_model_bind_symbols(model, p_only, 2, &n, 1), HODU_MISMATCH,
              "model 'scaled': input 'p' dim 0 is 19: symbol 'n' must be at "
              "most 8 (it is 9)");
  hodu_tensor_free(p);
  hodu_tensor_free(r);
  hodu_model_free(model);
}

/* ABI version 3's divisors: r f32[n] -> q f32[n/4+1], n a multiple of 4
 * up to 16 (a strided window's frames); a divisor that does not divide the
 * scale times the multiple is a malformed descriptor; a version 2
 * descriptor's divisors are not read. */
static void test_symbols_divisors(void) {
  static const int64_t dynamic_shape[] = {HODU_DIM_DYNAMIC};
  static const hodu_tensor_desc inputs[] = {
      {"r", HODU_DTYPE_F32, 1, dynamic_shape}};
  static const hodu_tensor_desc outputs[] = {
      {"q", HODU_DTYPE_F32, 1, dynamic_shape}};
  static const hodu_symbol_desc symbols[] = {{"n", 4, 16, 4, 0}};
  static const hodu_dynamic_dim dims[] = {{0, 0, 0, 0, 1, 0},
                                          {1, 0, 0, 0, 1, 1}};
  static const int64_t divisors[] = {1, 4}, bad_divisors[] = {1, 3};
  hodu_model_desc desc = {0};
  desc.abi_version = 3;
  desc.struct_size = sizeof desc;
  desc.model_name = "frames";
  desc.target = "cpu";
  desc.num_inputs = 1;
  desc.num_outputs = 1;
  desc.inputs = inputs;
  desc.outputs = outputs;
  desc.entry = nothing_entry;
  desc.num_symbols = 1;
  desc.symbols = symbols;
  desc.num_dynamic_dims = 2;
  desc.dynamic_dims = dims;
  desc.dynamic_dim_divisors = divisors;
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_from_descriptor(&desc, &model));
  if (!model)
    return;
  CHECK(hodu_model_dynamic_dim_divisor(model, 1, 0, 0) == 4);
  CHECK(hodu_model_dynamic_dim_divisor(model, 0, 0, 0) == 1);
  int64_t r8[] = {8}, r6[] = {6};
  hodu_tensor *r = f32_tensor(1, r8, 0), *q = NULL;
  const hodu_tensor *in[] = {r};
  CHECK_OK(hodu_model_run_alloc(model, in, 1, &q, 1));
  CHECK(q && hodu_tensor_shape(q)[0] == 3);
  hodu_tensor_free(q);
  q = NULL;
  hodu_tensor_free(r);
  in[0] = r = f32_tensor(1, r6, 0);
  CHECK_ERROR(hodu_model_run_alloc(model, in, 1, &q, 1), HODU_MISMATCH,
              "model 'frames': input 'r' dim 0 is 6: symbol 'n' must be a "
              "multiple of 4");
  hodu_tensor_free(r);
  hodu_model_free(model);
  desc.dynamic_dim_divisors = bad_divisors;
  CHECK_ERROR(hodu_model_from_descriptor(&desc, &model), HODU_INVALID_ARTIFACT,
              "dynamic dim 1 (output 'q' dim 0) has divisor 3, which must be "
              ">= 1 and divide its scale 1 times the multiple 4 of symbol 'n'");
  desc.abi_version = 2; /* a version 2 descriptor: no divisors */
  CHECK_OK(hodu_model_from_descriptor(&desc, &model));
  CHECK(model && hodu_model_dynamic_dim_divisor(model, 1, 0, 0) == 1);
  hodu_model_free(model);
}

static void test_symbols_sessions(void) {
  hodu_model *model = load("symbolic");
  if (!model)
    return;
  hodu_session *session = NULL;
  CHECK_OK(hodu_session_create(model, &session));
  if (!session) {
    hodu_model_free(model);
    return;
  }
  hodu_tensor *in[3] = {NULL}, *out[3] = {NULL};
  int64_t values[2] = {2, 4};
  /* Other values in an uncaptured session: re-bound, and the run uses them. */
  for (int t = 0; t < 2; ++t) {
    values[0] = t ? 6 : 2;
    values[1] = t ? 12 : 4;
    free_tensors(in, 3);
    free_tensors(out, 3);
    symbolic_inputs(values[0], values[1], in);
    for (int32_t o = 0; o < 3; ++o)
      CHECK_OK(
          hodu_model_create_output_with_symbols(model, o, values, 2, &out[o]));
    CHECK_OK(
        hodu_session_bind(session, (const hodu_tensor *const *)in, 3, out, 3));
    CHECK_OK(hodu_session_run(session));
    CHECK(symbolic_outputs_ok(out, values[0], values[1]));
  }
  CHECK_OK(hodu_session_capture(session));
  CHECK_OK(hodu_session_replay(session, 2));
  CHECK(symbolic_outputs_ok(out, 6, 12));
  /* A captured session runs the shapes it was captured at only. */
  hodu_tensor *small_in[3] = {NULL}, *small_out[3] = {NULL};
  int64_t small[] = {3, 4};
  symbolic_inputs(3, 4, small_in);
  for (int32_t o = 0; o < 3; ++o)
    CHECK_OK(hodu_model_create_output_with_symbols(model, o, small, 2,
                                                   &small_out[o]));
  CHECK_ERROR(hodu_session_bind(session, (const hodu_tensor *const *)small_in,
                                3, small_out, 3),
              HODU_INVALID_STATE,
              "session of model 'symbolic' is captured at batch=6, seq=12: "
              "its recording runs those shapes only; reset it and capture "
              "again to run batch=3, seq=4");
  /* Still bound to the old tensors and values. */
  CHECK_OK(hodu_session_replay(session, 1));
  CHECK(symbolic_outputs_ok(out, 6, 12));
  CHECK_OK(hodu_session_reset(session));
  CHECK_OK(hodu_session_bind(session, (const hodu_tensor *const *)small_in, 3,
                             small_out, 3));
  CHECK_OK(hodu_session_run(session));
  CHECK(symbolic_outputs_ok(small_out, 3, 4));
  CHECK_OK(hodu_session_capture(session));
  CHECK_OK(hodu_session_replay(session, 3));
  CHECK(symbolic_outputs_ok(small_out, 3, 4));
  hodu_session_free(session);
  free_tensors(in, 3);
  free_tensors(out, 3);
  free_tensors(small_in, 3);
  free_tensors(small_out, 3);
  hodu_model_free(model);
}

/* A copy of the symbolic descriptor over tables the test may break. */
typedef struct broken_desc {
  hodu_model_desc desc;
  hodu_tensor_desc inputs[3], outputs[3];
  int64_t shapes[6][2];
  hodu_symbol_desc symbols[2];
  hodu_dynamic_dim dims[6];
} broken_desc;

static void broken_init(broken_desc *b) {
  const hodu_model_desc *d = &symbolic_hodu_descriptor;
  b->desc = *d;
  for (int i = 0; i < 3; ++i) {
    b->inputs[i] = d->inputs[i];
    b->outputs[i] = d->outputs[i];
    memcpy(b->shapes[i], d->inputs[i].shape,
           sizeof(int64_t) * (size_t)d->inputs[i].rank);
    memcpy(b->shapes[3 + i], d->outputs[i].shape,
           sizeof(int64_t) * (size_t)d->outputs[i].rank);
    b->inputs[i].shape = b->shapes[i];
    b->outputs[i].shape = b->shapes[3 + i];
  }
  memcpy(b->symbols, d->symbols, sizeof b->symbols);
  memcpy(b->dims, d->dynamic_dims, sizeof b->dims);
  b->desc.inputs = b->inputs;
  b->desc.outputs = b->outputs;
  b->desc.symbols = b->symbols;
  b->desc.dynamic_dims = b->dims;
}

#define CHECK_BROKEN(change, text)                                             \
  do {                                                                         \
    broken_desc b;                                                             \
    hodu_model *m = NULL;                                                      \
    broken_init(&b);                                                           \
    change;                                                                    \
    CHECK_ERROR(hodu_model_from_descriptor(&b.desc, &m),                       \
                HODU_INVALID_ARTIFACT, text);                                  \
    CHECK(m == NULL);                                                          \
  } while (0)

static void test_symbols_validation(void) {
  broken_desc ok;
  broken_init(&ok);
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_from_descriptor(&ok.desc, &model));
  hodu_model_free(model);

  CHECK_BROKEN(b.desc.num_symbols = -1,
               "descriptor: malformed descriptor: -1 symbols (a negative "
               "count)");
  CHECK_BROKEN(b.desc.symbols = NULL, "2 symbols but no symbol table");
  CHECK_BROKEN(b.desc.dynamic_dims = NULL,
               "6 dynamic dims but no dynamic dim table");
  CHECK_BROKEN(b.symbols[0].name = NULL, "symbol 0 has no name");
  CHECK_BROKEN(b.symbols[0].min = -1,
               "symbol 'batch' has min -1, max 16, multiple 1, chunk 0 (min "
               "< 0)");
  CHECK_BROKEN(b.symbols[0].max = 0, "(max < min)");
  CHECK_BROKEN(b.symbols[1].multiple = 0, "(multiple < 1)");
  CHECK_BROKEN(b.symbols[1].chunk = -2, "(chunk < 0)");
  CHECK_BROKEN(b.dims[0].tensor = 3,
               "dynamic dim 0 names input 3, but there are 3 inputs");
  CHECK_BROKEN(b.dims[3].is_output = 2, "dynamic dim 3 has is_output 2");
  CHECK_BROKEN(b.dims[0].dim = 2,
               "dynamic dim 0 names dim 2 of input 'x', which has rank 2");
  CHECK_BROKEN(b.dims[4].symbol = 2,
               "dynamic dim 4 names symbol 2, but there are 2 symbols");
  CHECK_BROKEN(b.dims[4].scale = 0,
               "dynamic dim 4 (output 'z' dim 0) has scale 0");
  /* A record on a static dim, and the dynamic dim it left uncovered. */
  CHECK_BROKEN(b.dims[0].dim = 1,
               "dynamic dim 0 names input 'x' dim 1, whose extent is 3, not "
               "HODU_DIM_DYNAMIC");
  CHECK_BROKEN(b.dims[1].tensor = 0,
               "input 'x' dim 0 is HODU_DIM_DYNAMIC but has 2 dynamic dim "
               "records");
  CHECK_BROKEN(b.desc.num_dynamic_dims = 5,
               "output 'w' dim 0 is HODU_DIM_DYNAMIC but has 0 dynamic dim "
               "records");
  /* Only an output has seq: nothing binds it. */
  CHECK_BROKEN(
      (b.shapes[2][0] = 4, b.dims[2] = b.dims[5], b.desc.num_dynamic_dims = 5),
      "symbol 'seq' is a dim of no input, so a run cannot bind its "
      "value");
  CHECK_BROKEN(b.desc.num_meta_slots = 1,
               "meta slot 's' has a dynamic dim; meta slots have static "
               "shapes");
  /* A negative extent no record covers stays an error. */
  CHECK_BROKEN(b.shapes[0][1] = -2,
               "input 'x' has a dynamic or negative extent in dimension 1");
}

/* A version-1 descriptor (before symbols) loads and runs as before, and
 * its entry gets a context of the current size with no symbol values. */
static void test_abi_version1(void) {
  hodu_model_desc v1 = affine_hodu_descriptor;
  v1.abi_version = 1;
  v1.struct_size = offsetof(hodu_model_desc, num_symbols);
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_from_descriptor(&v1, &model));
  if (!model)
    return;
  CHECK(hodu_model_num_symbols(model) == 0);
  CHECK(run_affine(model, 4.0f));
  hodu_tensor *tensor = NULL;
  CHECK_OK(hodu_model_create_input(model, 0, &tensor));
  hodu_tensor_free(tensor);
  hodu_model_free(model);
  /* A version-1 descriptor's -1 extents are not symbols. */
  static const int64_t dynamic_shape[] = {HODU_DIM_DYNAMIC, 3};
  hodu_tensor_desc inputs[2] = {affine_hodu_descriptor.inputs[0],
                                affine_hodu_descriptor.inputs[1]};
  inputs[0].shape = dynamic_shape;
  v1.inputs = inputs;
  CHECK_ERROR(hodu_model_from_descriptor(&v1, &model), HODU_INVALID_ARTIFACT,
              "input 'x' has a dynamic or negative extent in dimension 0");
}

/* A stream over an in-memory .npy file: version `major`'s preamble, `dict`
 * as the header and `size` bytes of `data`. Valid until the next call. */
static FILE *npy_stream(int major, const char *dict, const void *data,
                        size_t size) {
  static char file[4096];
  size_t length = strlen(dict), width = major == 1 ? 2 : 4, at = 8;
  memcpy(file, "\x93NUMPY", 6);
  file[6] = (char)major;
  file[7] = 0;
  for (size_t i = 0; i < width; ++i)
    file[at++] = (char)(length >> (8 * i));
  memcpy(file + at, dict, length);
  memcpy(file + at + length, data, size);
  return fmemopen(file, at + length + size, "rb");
}

/* Reads the header of `stream` and expects an error containing `text`. */
static void check_npy_error(FILE *stream, const char *text, int line) {
  hodu_npy_info info;
  char error[256] = "";
  if (hodu_npy_read_header(stream, &info, error, sizeof(error)) ||
      !strstr(error, text)) {
    fprintf(stderr, "%s:%d: expected a .npy error containing \"%s\", got "
            "\"%s\"\n", __FILE__, line, text, error);
    ++failures;
  }
  fclose(stream);
}
#define CHECK_NPY_ERROR(stream, text) check_npy_error((stream), (text), __LINE__)

static void test_npy_round_trip(void) {
  int64_t shape[] = {2, 3};
  int32_t values[6] = {1, -2, 3, -4, 5, -6};
  char file[HODU_NPY_HEADER_BUFFER + sizeof(values)];
  size_t length = hodu_npy_format_header(file, HODU_NPY_HEADER_BUFFER,
                                         HODU_DTYPE_I32, 2, shape);
  CHECK(length % 64 == 0 && file[length - 1] == '\n');
  CHECK(strstr(file + 10, "{'descr': '<i4', 'fortran_order': False, "
                          "'shape': (2, 3), }") == file + 10);
  memcpy(file + length, values, sizeof(values));
  FILE *stream = fmemopen(file, length + sizeof(values), "rb");
  hodu_npy_info info;
  int32_t back[6] = {0};
  char error[256];
  CHECK(hodu_npy_read_header(stream, &info, error, sizeof(error)));
  CHECK(info.dtype == HODU_DTYPE_I32 && info.rank == 2 &&
        info.shape[0] == 2 && info.shape[1] == 3 && info.bytes == 24);
  CHECK(hodu_npy_read_data(stream, &info, back, error, sizeof(error)));
  CHECK(memcmp(back, values, sizeof(values)) == 0);
  fclose(stream);

  /* "(3,)" for rank 1, "()" for scalars; no NumPy type for bf16. */
  int64_t three = 3;
  CHECK(hodu_npy_format_header(file, sizeof(file), HODU_DTYPE_U8, 1, &three));
  CHECK(strstr(file + 10, "{'descr': '|u1', 'fortran_order': False, "
                          "'shape': (3,), }"));
  CHECK(hodu_npy_format_header(file, sizeof(file), HODU_DTYPE_F64, 0, NULL));
  CHECK(strstr(file + 10, "'shape': (), }"));
  CHECK(!hodu_npy_format_header(file, sizeof(file), HODU_DTYPE_BF16, 0, NULL));
  CHECK(!hodu_npy_format_header(file, 16, HODU_DTYPE_F32, 0, NULL));
}

static void test_npy_byte_order_and_fortran(void) {
  /* Big-endian i4, and column-major [[1,2,3],[4,5,6]] stored 1,4,2,5,3,6. */
  const unsigned char big[] = {0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe};
  FILE *stream = npy_stream(
      2, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", big,
      sizeof(big));
  hodu_npy_info info;
  int32_t ints[2];
  char error[256];
  CHECK(hodu_npy_read_header(stream, &info, error, sizeof(error)) &&
        hodu_npy_read_data(stream, &info, ints, error, sizeof(error)));
  CHECK(ints[0] == 0x0102 && ints[1] == -2);
  fclose(stream);
  const unsigned char column_major[] = {1, 4, 2, 5, 3, 6};
  unsigned char bytes[6];
  stream = npy_stream(
      1, "{\"descr\": \"|u1\", \"fortran_order\": True, \"shape\": (2, 3)}",
      column_major, sizeof(column_major));
  CHECK(hodu_npy_read_header(stream, &info, error, sizeof(error)) &&
        hodu_npy_read_data(stream, &info, bytes, error, sizeof(error)));
  CHECK(memcmp(bytes, "\1\2\3\4\5\6", 6) == 0);
  fclose(stream);
}

static void test_npy_truncated_header(void) {
  CHECK_NPY_ERROR(fmemopen("\x93NUMPY\x01", 7, "rb"), "bad magic");
  CHECK_NPY_ERROR(fmemopen("\x93NUMPY\x01\x00\x50", 9, "rb"), "truncated");
  CHECK_NPY_ERROR(fmemopen("\x93NUMPY\x01\x00\x50\x00{'descr'", 17, "rb"),
                  "truncated .npy header");
  CHECK_NPY_ERROR(fmemopen("\x93NUMPY\x04\x00\x00\x00", 10, "rb"),
                  "unsupported .npy format version 4");
  /* A version-2 length of 4 GiB is refused before anything is allocated. */
  CHECK_NPY_ERROR(fmemopen("\x93NUMPY\x02\x00\xff\xff\xff\xff", 12, "rb"),
                  "is longer than");
  CHECK_NPY_ERROR(npy_stream(1, "{'descr': '<f4', 'shape': (2", "", 0),
                  "no 'fortran_order'");
  CHECK_NPY_ERROR(
      npy_stream(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2",
                 "", 0),
      "bad .npy shape");
  CHECK_NPY_ERROR(npy_stream(1, "{'fortran_order': False, 'shape': ()}", "", 0),
                  "no 'descr'");
  CHECK_NPY_ERROR(npy_stream(1, "{'descr': '<f4', 'fortran_order': False}",
                             "", 0),
                  "no 'shape'");
}

static void test_npy_bad_dtype(void) {
  CHECK_NPY_ERROR(
      npy_stream(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (), }",
                 "\0\0\0\0\0\0\0\0", 8),
      "unsupported .npy dtype '<c8'");
  CHECK_NPY_ERROR(
      npy_stream(1, "{'descr': 'f4', 'fortran_order': False, 'shape': (), }",
                 "\0\0\0\0", 4),
      "unsupported .npy dtype 'f4'");
  CHECK_NPY_ERROR(
      npy_stream(1, "{'descr': [('a', '<f4')], 'fortran_order': False, "
                    "'shape': (), }", "", 0),
      "no 'descr'");
}

static void test_npy_shape_overflow(void) {
  CHECK_NPY_ERROR(
      npy_stream(1, "{'descr': '<f8', 'fortran_order': False, 'shape': "
                    "(4294967296, 4294967296), }", "", 0),
      "shape [4294967296,4294967296] is too large");
  CHECK_NPY_ERROR(
      npy_stream(1, "{'descr': '<f8', 'fortran_order': False, 'shape': "
                    "(99999999999999999999,), }", "", 0),
      "extent is too large");
  CHECK_NPY_ERROR(
      npy_stream(1, "{'descr': '<f8', 'fortran_order': False, 'shape': "
                    "(-1,), }", "", 0),
      "bad .npy shape");
  char dict[512] = "{'descr': '|u1', 'fortran_order': False, 'shape': (";
  for (int i = 0; i <= HODU_NPY_MAX_RANK; ++i)
    strcat(dict, "1,");
  strcat(dict, "), }");
  CHECK_NPY_ERROR(npy_stream(1, dict, "", 0), "more than 64 extents");
}

static void test_npy_short_data(void) {
  /* Seekable streams fail at the header, before the data is allocated. */
  CHECK_NPY_ERROR(
      npy_stream(1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
                    "(1000000000000,), }", "\0\0\0\0\0\0\0\0", 8),
      ".npy data is truncated: 8 bytes, need 4000000000000");
  /* Other streams fail at the read, which reads no more than needed. */
  hodu_npy_info info = {.dtype = HODU_DTYPE_F32, .rank = 1, .shape = {4},
                        .bytes = 16};
  float data[4];
  char error[256] = "";
  FILE *stream = fmemopen("\0\0\0\0\0\0\0\0", 8, "rb");
  CHECK(!hodu_npy_read_data(stream, &info, data, error, sizeof(error)));
  CHECK(strstr(error, ".npy data is truncated: 8 bytes, need 16"));
  fclose(stream);
}

/* hodu_model_load_memory: a shared library from its bytes runs like the
 * file; bytes that are no artifact, or half of one, are refused. */
static void test_load_memory(void) {
  FILE *file = fopen(model_path("affine"), "rb");
  CHECK(file != NULL);
  if (!file)
    return;
  static unsigned char bytes[1 << 20];
  size_t size = fread(bytes, 1, sizeof bytes, file);
  fclose(file);
  CHECK(size > 0 && size < sizeof bytes);
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_load_memory(bytes, size, "affine (memory)", NULL,
                                  &model));
  if (model) {
    CHECK(strcmp(hodu_model_name(model), "affine") == 0);
    CHECK(run_affine(model, 2.0f));
    CHECK(hodu_model_source(model) == NULL);
    hodu_model_free(model);
  }
  CHECK_ERROR(hodu_model_load_memory(bytes, 200, "half", NULL, &model),
              HODU_INVALID_ARTIFACT, "'half'");
  CHECK(model == NULL);
  CHECK_ERROR(hodu_model_load_memory("not a model", 11, "text", NULL, &model),
              HODU_INVALID_ARTIFACT,
              "'text' is not a Hodu artifact: neither a shared library nor a "
              "bundle");
  CHECK_ERROR(hodu_model_load_memory(NULL, 0, "none", NULL, &model),
              HODU_INVALID_ARGUMENT, "no artifact bytes");
}

/* The plugin registry's C calls: argument checks, the struct_size rule,
 * indices out of range (plugins found or not: HODU_NO_PLUGINS=1 here). */
static void test_plugin_api(void) {
  setenv("HODU_NO_PLUGINS", "1", 1); /* before the first discovery */
  CHECK_ERROR(hodu_plugin_add_path(NULL), HODU_INVALID_ARGUMENT, "empty");
  CHECK_ERROR(hodu_plugin_add_path("/nonexistent/plugins"), HODU_NOT_FOUND,
              "'/nonexistent/plugins' is not a directory");
  int32_t count = hodu_plugin_count();
  CHECK(count == 0);
  hodu_plugin_info info;
  memset(&info, 0x5a, sizeof info);
  info.struct_size = 4;
  CHECK_ERROR(hodu_plugin_get_info(0, &info), HODU_INVALID_ARGUMENT,
              "struct_size 4 is too small");
  info.struct_size = sizeof info;
  CHECK_ERROR(hodu_plugin_get_info(count, &info), HODU_NOT_FOUND,
              "out of range");
  CHECK_ERROR(hodu_plugin_get_info(-1, &info), HODU_NOT_FOUND,
              "out of range");
  CHECK_ERROR(hodu_plugin_get_info(0, NULL), HODU_INVALID_ARGUMENT, "NULL");
  CHECK_ERROR(hodu_plugin_load("nothing"), HODU_NOT_FOUND,
              "no plugin 'nothing'");
  CHECK_ERROR(hodu_plugin_load(NULL), HODU_INVALID_ARGUMENT, "NULL");
  hodu_model *model = load("affine");
  CHECK(model && hodu_model_engine(model) == NULL);
  hodu_model_free(model);
  CHECK(hodu_model_engine(NULL) == NULL);
}

/* hodu_select: refusals, and two copies of one artifact measured in child
 * processes (same outputs, both ok, one chosen). */
static void test_select(void) {
  hodu_selection *s = (hodu_selection *)1;
  CHECK_ERROR(hodu_select(NULL, 0, NULL, &s), HODU_INVALID_ARGUMENT,
              "no candidates");
  CHECK(s == NULL);
  const char *missing[] = {"/nonexistent/model.so"};
  CHECK_ERROR(hodu_select(missing, 1, NULL, &s), HODU_NOT_FOUND,
              "cannot open '/nonexistent/model.so'");
  char *affine = model_path("affine");
  char at[1100];
  snprintf(at, sizeof at, "%s@", affine);
  const char *empty[] = {at};
  CHECK_ERROR(hodu_select(empty, 1, NULL, &s), HODU_INVALID_ARGUMENT,
              "nothing after '@'");
  hodu_select_options o;
  hodu_select_options_init(&o);
  o.runs = 0;
  const char *two[] = {affine, affine};
  CHECK_ERROR(hodu_select(two, 2, &o, &s), HODU_INVALID_ARGUMENT,
              "runs must be >= 1");
  o.struct_size = 8;
  CHECK_ERROR(hodu_select(two, 2, &o, &s), HODU_INVALID_ARGUMENT,
              "struct_size 8 is too small");
  hodu_select_options_init(&o);
  o.runs = 3;
  o.warmup = 1;
  o.database = "off";
  CHECK_OK(hodu_select(two, 2, &o, &s));
  CHECK(hodu_selection_count(s) == 2);
  int32_t chosen = hodu_selection_chosen(s);
  CHECK(chosen == 0 || chosen == 1);
  for (int32_t i = 0; i < 2; ++i) {
    const hodu_candidate_result *r = hodu_selection_result(s, i);
    CHECK(r && strcmp(r->status, "ok") == 0);
    CHECK(r && r->runs == 3 && r->p50_us > 0 && r->min_us <= r->p50_us);
    CHECK(r && r->max_error == 0 && !r->from_database);
    CHECK(r && strcmp(r->engine, "") == 0);
  }
  CHECK(hodu_selection_result(s, 2) == NULL);
  CHECK(hodu_selection_result(s, -1) == NULL);
  CHECK(strstr(hodu_selection_report(s), "the lowest median latency"));
  hodu_selection_free(s);
  hodu_selection_free(NULL);
}

/*===--------------------------------------------------------------------===*
 * State tensors (models/train.c: an SGD step of a linear model)
 *===--------------------------------------------------------------------===*/

extern const hodu_model_desc train_hodu_descriptor;

/* The model's data: x and target, and its loss output. */
typedef struct train_io {
  hodu_tensor *x, *target, *loss;
} train_io;

static void train_io_create(const hodu_model *model, train_io *io) {
  static const float x[] = {1.0f, 2.0f, -1.0f, 0.5f};
  static const float target[] = {0.75f};
  CHECK_OK(hodu_model_create_input(model, 0, &io->x));
  CHECK_OK(hodu_model_create_input(model, 1, &io->target));
  CHECK_OK(hodu_model_create_output(model, 0, &io->loss));
  if (io->x)
    memcpy(hodu_tensor_data(io->x), x, sizeof x);
  if (io->target)
    memcpy(hodu_tensor_data(io->target), target, sizeof target);
}

static void train_io_free(train_io *io) {
  hodu_tensor_free(io->x);
  hodu_tensor_free(io->target);
  hodu_tensor_free(io->loss);
}

static hodu_session *train_session(const hodu_model *model, train_io *io) {
  hodu_session *session = NULL;
  CHECK_OK(hodu_session_create(model, &session));
  if (!session)
    return NULL;
  const hodu_tensor *in[] = {io->x, io->target};
  CHECK_OK(hodu_session_bind(session, in, 2, &io->loss, 1));
  return session;
}

/* The state after `steps` SGD steps from (w, step) at learning rate lr, in
 * the entry's own float arithmetic. */
static void train_reference(float w[4], float *step, float lr, int steps) {
  static const float x[] = {1.0f, 2.0f, -1.0f, 0.5f};
  for (int n = 0; n < steps; ++n) {
    float pred = 0.0f;
    for (int i = 0; i < 4; ++i)
      pred += x[i] * w[i];
    float d = pred - 0.75f;
    for (int i = 0; i < 4; ++i)
      w[i] = w[i] - lr * (2.0f * d * x[i]);
    *step += 1.0f;
  }
}

static void read_state(const hodu_session *session, float w[4], float *step) {
  CHECK_OK(hodu_session_read_state_tensor(session, 0, w, 4 * sizeof(float)));
  CHECK_OK(hodu_session_read_state_tensor(session, 1, step, sizeof(float)));
}

static void test_state_queries(void) {
  hodu_model *model = load("train");
  if (!model)
    return;
  /* The caller's inputs and outputs only; the state apart. */
  CHECK(hodu_model_num_inputs(model) == 2);
  CHECK(hodu_model_num_outputs(model) == 1);
  CHECK(strcmp(hodu_model_output_name(model, 0), "loss") == 0);
  CHECK(hodu_model_num_meta_slots(model) == 1);
  CHECK(strcmp(hodu_model_meta_slot_name(model, 0), "lr") == 0);
  CHECK(hodu_model_num_state_tensors(model) == 2);
  CHECK(strcmp(hodu_model_state_tensor_name(model, 0), "w") == 0);
  CHECK(strcmp(hodu_model_state_tensor_name(model, 1), "step") == 0);
  CHECK(hodu_model_state_tensor_dtype(model, 0) == HODU_DTYPE_F32);
  CHECK(hodu_model_state_tensor_rank(model, 0) == 1);
  CHECK(hodu_model_state_tensor_shape(model, 0)[0] == 4);
  CHECK(hodu_model_state_tensor_rank(model, 1) == 0);
  CHECK(hodu_model_state_tensor_bytes(model, 0) == 16);
  CHECK(hodu_model_state_tensor_bytes(model, 2) == 0);
  CHECK(hodu_model_state_tensor_name(model, 2) == NULL);
  CHECK(hodu_model_state_tensor_name(model, -1) == NULL);
  int32_t index = -1;
  CHECK_OK(hodu_model_state_tensor_index(model, "step", &index));
  CHECK(index == 1);
  CHECK_ERROR(hodu_model_state_tensor_index(model, "bias", &index),
              HODU_NOT_FOUND,
              "model 'train' has no state tensor named 'bias' (state "
              "tensors: 'w', 'step')");
  /* The artifact's own descriptor still lists every entry argument. */
  CHECK(hodu_model_descriptor(model)->num_inputs == 5);
  hodu_model_free(model);
}

static void test_state_refusals(void) {
  hodu_model *model = load("train");
  if (!model)
    return;
  train_io io = {0};
  train_io_create(model, &io);
  const hodu_tensor *in[] = {io.x, io.target};
  CHECK_ERROR(hodu_model_run(model, in, 2, &io.loss, 1), HODU_INVALID_STATE,
              "hodu_model_run: model 'train' keeps 2 state tensors (the "
              "first is 'w'), which live in a session");
  hodu_tensor *allocated = NULL;
  CHECK_ERROR(hodu_model_run_alloc(model, in, 2, &allocated, 1),
              HODU_INVALID_STATE, "hodu_model_run_alloc: model 'train'");
  CHECK(allocated == NULL);
  hodu_session *session = train_session(model, &io);
  if (session) {
    float w[4];
    CHECK_ERROR(hodu_session_read_state_tensor(session, 2, w, sizeof w),
                HODU_INVALID_ARGUMENT,
                "model 'train' has no state tensor 2 (it has 2)");
    CHECK_ERROR(hodu_session_read_state_tensor(session, 0, w, 12),
                HODU_MISMATCH, "state tensor 'w' holds 16 bytes, got 12");
    CHECK_ERROR(hodu_session_write_state_tensor(session, 0, NULL, 16),
                HODU_INVALID_ARGUMENT, "the host buffer is NULL");
  }
  hodu_session_free(session);
  train_io_free(&io);
  hodu_model_free(model);
}

/* AICF's contracts A-D (seed 002) on the fake train step. */
static void test_state_contracts(void) {
  hodu_model *model = load("train");
  if (!model)
    return;
  train_io io = {0};
  train_io_create(model, &io);
  hodu_session *eager = train_session(model, &io);
  train_io io2 = {0};
  train_io_create(model, &io2);
  hodu_session *replayed = train_session(model, &io2);
  if (!eager || !replayed)
    goto done;
  float w[4], step, want[4] = {0.5f, -0.5f, 0.25f, 1.0f}, want_step = 0.0f;
  read_state(eager, w, &step);
  CHECK(memcmp(w, want, sizeof w) == 0 && step == 0.0f);

  /* A: one step updates the weights, as the reference does. */
  CHECK_OK(hodu_session_run(eager));
  train_reference(want, &want_step, 0.125f, 1);
  read_state(eager, w, &step);
  CHECK(memcmp(w, want, sizeof w) == 0);
  CHECK(step == 1.0f);
  /* The loss is that of the weights before the step: (x.w0 - t)^2 =
   * (-0.25 - 0.75)^2. */
  CHECK(*(float *)hodu_tensor_data(io.loss) == 1.0f);

  /* B: replay(n) accumulates n updates: warm-up run, capture, replay 4
   * equals five eager runs, bit for bit. */
  CHECK_OK(hodu_session_run(replayed));
  CHECK_OK(hodu_session_capture(replayed));
  CHECK_OK(hodu_session_replay(replayed, 4));
  for (int n = 0; n < 4; ++n)
    CHECK_OK(hodu_session_run(eager));
  train_reference(want, &want_step, 0.125f, 4);
  float w2[4], step2;
  read_state(replayed, w2, &step2);
  read_state(eager, w, &step);
  CHECK(memcmp(w, want, sizeof w) == 0 && step == 5.0f);
  CHECK(memcmp(w2, w, sizeof w) == 0 && step2 == step);
  CHECK(memcmp(hodu_tensor_data(io.loss), hodu_tensor_data(io2.loss),
               sizeof(float)) == 0);

  /* C: a meta slot changes what a replay does, without capturing again:
   * at lr 0 the weights stay, the step counter still counts. */
  float zero = 0.0f;
  CHECK_OK(
      hodu_session_write_meta_slot_named(replayed, "lr", &zero, sizeof zero));
  CHECK_OK(hodu_session_replay(replayed, 3));
  read_state(replayed, w2, &step2);
  CHECK(memcmp(w2, w, sizeof w) == 0 && step2 == 8.0f);
  float half = 0.0625f;
  CHECK_OK(
      hodu_session_write_meta_slot_named(replayed, "lr", &half, sizeof half));
  CHECK_OK(hodu_session_replay(replayed, 2));
  train_reference(want, &want_step, 0.0625f, 2);
  read_state(replayed, w2, &step2);
  CHECK(memcmp(w2, want, sizeof w2) == 0 && step2 == 10.0f);

  /* D: reset frees the recording only: the state and the slot stay, a
   * replay is refused; restoring the state tensors starts training over. */
  CHECK_OK(hodu_session_reset(replayed));
  float w3[4], step3;
  read_state(replayed, w3, &step3);
  CHECK(memcmp(w3, w2, sizeof w3) == 0 && step3 == 10.0f);
  CHECK_ERROR(hodu_session_replay(replayed, 1), HODU_INVALID_STATE,
              "replay of model 'train' in state reset: its recording was "
              "freed by reset; capture again first");
  CHECK_OK(hodu_session_restore_state_tensors(replayed));
  read_state(replayed, w3, &step3);
  const float initial[] = {0.5f, -0.5f, 0.25f, 1.0f};
  CHECK(memcmp(w3, initial, sizeof w3) == 0 && step3 == 0.0f);
  float lr = 0.0f;
  CHECK_OK(hodu_session_read_meta_slot(replayed, 0, &lr, sizeof lr));
  CHECK(lr == 0.0625f);
  CHECK_OK(hodu_session_capture(replayed));
  CHECK_OK(hodu_session_replay(replayed, 1));
  read_state(replayed, w3, &step3);
  CHECK(step3 == 1.0f);
  /* A written state is where the next run starts. */
  CHECK_OK(
      hodu_session_write_state_tensor(replayed, 0, initial, sizeof initial));
  CHECK_OK(hodu_session_replay(replayed, 1));
  float expect[4] = {0.5f, -0.5f, 0.25f, 1.0f}, expect_step = 1.0f;
  train_reference(expect, &expect_step, 0.0625f, 1);
  read_state(replayed, w3, &step3);
  CHECK(memcmp(w3, expect, sizeof w3) == 0 && step3 == 2.0f);
done:
  hodu_session_free(eager);
  hodu_session_free(replayed);
  train_io_free(&io);
  train_io_free(&io2);
  hodu_model_free(model);
}

static void write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f)
    return;
  CHECK(fwrite(data, 1, size, f) == size);
  fclose(f);
}

/* A safetensors file of `header` (padded) and `data`. */
static void write_safetensors(const char *path, const char *header,
                              const void *data, size_t size) {
  size_t n = strlen(header);
  unsigned char *bytes = calloc(1, 8 + n + size);
  if (!bytes)
    return;
  for (int b = 0; b < 8; ++b)
    bytes[b] = (unsigned char)((uint64_t)n >> (8 * b));
  memcpy(bytes + 8, header, n);
  memcpy(bytes + 8 + n, data, size);
  write_file(path, bytes, 8 + n + size);
  free(bytes);
}

static void test_state_save_load(void) {
  hodu_model *model = load("train");
  if (!model)
    return;
  char path[512], bad[512];
  snprintf(path, sizeof path, "%s/state_save_load.%d.safetensors", models_dir,
           (int)getpid());
  snprintf(bad, sizeof bad, "%s.bad", path);
  train_io io = {0}, io2 = {0};
  train_io_create(model, &io);
  train_io_create(model, &io2);
  hodu_session *first = train_session(model, &io);
  hodu_session *second = train_session(model, &io2);
  if (!first || !second)
    goto done;
  /* Three steps, save; a new session loads and both go on: the same bits
   * as never stopping. */
  for (int n = 0; n < 3; ++n)
    CHECK_OK(hodu_session_run(first));
  CHECK_OK(hodu_session_save_state_tensors(first, path));
  CHECK_OK(hodu_session_load_state_tensors(second, path));
  for (int n = 0; n < 4; ++n) {
    CHECK_OK(hodu_session_run(first));
    CHECK_OK(hodu_session_run(second));
  }
  float w[4], step, w2[4], step2;
  read_state(first, w, &step);
  read_state(second, w2, &step2);
  CHECK(memcmp(w, w2, sizeof w) == 0 && step == 7.0f && step2 == 7.0f);

  /* The file is safetensors: header length, JSON, then the bytes. */
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (f) {
    unsigned char head[8];
    CHECK(fread(head, 1, 8, f) == 8);
    uint64_t n = 0;
    for (int b = 0; b < 8; ++b)
      n |= (uint64_t)head[b] << (8 * b);
    char json[512] = "";
    CHECK(n % 8 == 0 && n < sizeof json);
    if (n < sizeof json)
      CHECK(fread(json, 1, (size_t)n, f) == n);
    CHECK(strstr(json, "\"w\":{\"dtype\":\"F32\",\"shape\":[4],"
                       "\"data_offsets\":[0,16]}"));
    CHECK(strstr(json, "\"step\":{\"dtype\":\"F32\",\"shape\":[],"
                       "\"data_offsets\":[16,20]}"));
    fclose(f);
  }

  /* Bad files change nothing. */
  float before[4], before_step;
  read_state(second, before, &before_step);
  const float data[5] = {1, 2, 3, 4, 5};
  write_safetensors(bad,
                    "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":"
                    "[0,16]}}",
                    data, 16);
  CHECK_ERROR(hodu_session_load_state_tensors(second, bad), HODU_MISMATCH,
              "has no tensor 'step' (a state tensor of the model)");
  write_safetensors(
      bad,
      "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":"
      "[0,16]},\"step\":{\"dtype\":\"F32\",\"shape\":[],"
      "\"data_offsets\":[16,20]}}",
      data, 20);
  CHECK_ERROR(hodu_session_load_state_tensors(second, bad), HODU_MISMATCH,
              "tensor 'w' is F32 with 2 dims, but the model's state tensor "
              "is F32 [4]");
  write_safetensors(bad,
                    "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":"
                    "[0,16]},\"step\":{\"dtype\":\"F32\",\"shape\":[],"
                    "\"data_offsets\":[16,20]},\"bias\":{\"dtype\":\"F32\","
                    "\"shape\":[],\"data_offsets\":[16,20]}}",
                    data, 20);
  CHECK_ERROR(hodu_session_load_state_tensors(second, bad), HODU_MISMATCH,
              "holds tensor 'bias', which is not a state tensor of the "
              "model");
  write_safetensors(bad,
                    "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":"
                    "[0,16]},\"step\":{\"dtype\":\"F32\",\"shape\":[],"
                    "\"data_offsets\":[16,20]}}",
                    data, 18);
  CHECK_ERROR(hodu_session_load_state_tensors(second, bad),
              HODU_INVALID_ARGUMENT,
              "tensor 'step': data_offsets [16, 20] are not 4 bytes inside");
  write_file(bad, "\xff\xff\xff\xff\xff\xff\xff\x7f{}", 10);
  CHECK_ERROR(hodu_session_load_state_tensors(second, bad),
              HODU_INVALID_ARGUMENT, "is not a safetensors file");
  write_safetensors(bad, "{\"w\":", data, 0);
  CHECK_ERROR(hodu_session_load_state_tensors(second, bad),
              HODU_INVALID_ARGUMENT, "its header is not a JSON object");
  CHECK_ERROR(hodu_session_load_state_tensors(second, "/nonexistent/s.st"),
              HODU_NOT_FOUND, "cannot open '/nonexistent/s.st'");
  CHECK_ERROR(hodu_session_save_state_tensors(second, "/nonexistent/s.st"),
              HODU_INVALID_ARGUMENT, "cannot write '/nonexistent/s.st.tmp-");
  read_state(second, w2, &step2);
  CHECK(memcmp(before, w2, sizeof w2) == 0 && step2 == before_step);
done:
  unlink(path);
  unlink(bad);
  hodu_session_free(first);
  hodu_session_free(second);
  train_io_free(&io);
  train_io_free(&io2);
  hodu_model_free(model);
}

/* Two sessions of one model train their own state. */
static void test_state_independent(void) {
  hodu_model *model = load("train");
  if (!model)
    return;
  train_io io = {0}, io2 = {0};
  train_io_create(model, &io);
  train_io_create(model, &io2);
  hodu_session *a = train_session(model, &io);
  hodu_session *b = train_session(model, &io2);
  if (a && b) {
    float fast = 0.25f;
    CHECK_OK(hodu_session_write_meta_slot(a, 0, &fast, sizeof fast));
    for (int n = 0; n < 3; ++n)
      CHECK_OK(hodu_session_run(a));
    CHECK_OK(hodu_session_run(b));
    float wa[4], sa, wb[4], sb;
    float want_a[4] = {0.5f, -0.5f, 0.25f, 1.0f}, step_a = 0;
    float want_b[4] = {0.5f, -0.5f, 0.25f, 1.0f}, step_b = 0;
    train_reference(want_a, &step_a, 0.25f, 3);
    train_reference(want_b, &step_b, 0.125f, 1);
    read_state(a, wa, &sa);
    read_state(b, wb, &sb);
    CHECK(memcmp(wa, want_a, sizeof wa) == 0 && sa == 3.0f);
    CHECK(memcmp(wb, want_b, sizeof wb) == 0 && sb == 1.0f);
  }
  hodu_session_free(a);
  hodu_session_free(b);
  train_io_free(&io);
  train_io_free(&io2);
  hodu_model_free(model);
}

static void test_state_validation(void) {
  hodu_model_desc desc = train_hodu_descriptor;
  hodu_model *model = NULL;
  desc.num_state_tensors = 5;
  CHECK_ERROR(hodu_model_from_descriptor(&desc, &model), HODU_INVALID_ARTIFACT,
              "malformed descriptor: 5 state tensors, but 5 inputs (1 of "
              "them meta slots) and 3 outputs");
  desc.num_state_tensors = -1;
  CHECK_ERROR(hodu_model_from_descriptor(&desc, &model), HODU_INVALID_ARTIFACT,
              "malformed descriptor: -1 state tensors");
  /* Three state tensors pair input 'target' with output 'loss': both f32
   * scalars, so that is allowed; four would pair 'x' [4] with 'loss'. */
  desc.num_state_tensors = 3;
  CHECK_OK(hodu_model_from_descriptor(&desc, &model));
  CHECK(model && hodu_model_num_outputs(model) == 0 &&
        hodu_model_num_state_tensors(model) == 3);
  hodu_model_free(model);
  model = NULL;
  desc.num_state_tensors = 4;
  CHECK_ERROR(hodu_model_from_descriptor(&desc, &model), HODU_INVALID_ARTIFACT,
              "4 state tensors, but 5 inputs (1 of them meta slots) and 3 "
              "outputs");
  /* Pairs of another dtype or shape. */
  static const int64_t four[] = {4};
  const hodu_tensor_desc swapped[] = {{"loss", HODU_DTYPE_F32, 0, NULL},
                                      {"step", HODU_DTYPE_F32, 0, NULL},
                                      {"w", HODU_DTYPE_F32, 1, four}};
  desc.num_state_tensors = 2;
  desc.outputs = swapped;
  CHECK_ERROR(hodu_model_from_descriptor(&desc, &model), HODU_INVALID_ARTIFACT,
              "state tensor 0 is input 'w' and output 'step', which differ "
              "in dtype or shape");
  /* An old producer's struct_size ends before the fields: no state, the
   * plain function of five inputs and three outputs. */
  desc = train_hodu_descriptor;
  desc.struct_size = offsetof(hodu_model_desc, num_state_tensors);
  CHECK_OK(hodu_model_from_descriptor(&desc, &model));
  CHECK(model && hodu_model_num_inputs(model) == 4 &&
        hodu_model_num_outputs(model) == 3 &&
        hodu_model_num_state_tensors(model) == 0);
  hodu_model_free(model);
}

static const struct {
  const char *name;
  void (*run)(void);
} tests[] = {
    {"status", test_status},
    {"plugin_api", test_plugin_api},
    {"load_memory", test_load_memory},
    {"select", test_select},
    {"dtype", test_dtype},
    {"dtype_table", test_dtype_table},
    {"tensor_create", test_tensor_create},
    {"tensor_wrap", test_tensor_wrap},
    {"queries", test_queries},
    {"output_dims", test_output_dims},
    {"run", test_run},
    {"mismatch", test_mismatch},
    {"load_errors", test_load_errors},
    {"relative_path", test_relative_path},
    {"int_and_bool", test_int_and_bool},
    {"run_failed", test_run_failed},
    {"run_checks", test_run_checks},
    {"threads", test_threads},
    {"concurrent_runs", test_concurrent_runs},
    {"thread_team", test_thread_team},
    {"thread_adapt", test_thread_adapt},
    {"from_descriptor", test_from_descriptor},
    {"symbols_queries", test_symbols_queries},
    {"symbols_run", test_symbols_run},
    {"symbols_mismatch", test_symbols_mismatch},
    {"symbols_sessions", test_symbols_sessions},
    {"symbols_validation", test_symbols_validation},
    {"symbols_divisors", test_symbols_divisors},
    {"abi_version1", test_abi_version1},
    {"state_queries", test_state_queries},
    {"state_refusals", test_state_refusals},
    {"state_contracts", test_state_contracts},
    {"state_save_load", test_state_save_load},
    {"state_independent", test_state_independent},
    {"state_validation", test_state_validation},
    {"npy_round_trip", test_npy_round_trip},
    {"npy_byte_order_and_fortran", test_npy_byte_order_and_fortran},
    {"npy_truncated_header", test_npy_truncated_header},
    {"npy_bad_dtype", test_npy_bad_dtype},
    {"npy_shape_overflow", test_npy_shape_overflow},
    {"npy_short_data", test_npy_short_data},
};

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s TEST MODELS_DIR\n", argv[0]);
    return 2;
  }
  models_dir = argv[2];
  for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); ++i) {
    if (strcmp(argv[1], tests[i].name) == 0) {
      tests[i].run();
      if (failures)
        fprintf(stderr, "%s: %d check(s) failed\n", argv[1], failures);
      return failures ? 1 : 0;
    }
  }
  fprintf(stderr, "unknown test '%s'\n", argv[1]);
  return 2;
}
