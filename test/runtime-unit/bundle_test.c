/*===- bundle_test.c - bundles, devices, sessions, capture and replay ------===*
 *
 * Usage: hodurt-bundle-tests TEST SPIRV WORKDIR. SPIRV is the test kernels
 * (bundles/kernels.spvasm, assembled by spirv-as); WORKDIR receives the
 * bundle files the tests write. Bundles come from bundles/bundle_writer.c.
 *
 * Linked against libhodurt's objects (not the shared library), so the
 * reader's internal entry point hodu_bundle_parse is reachable; the rest
 * goes through the public API like any application.
 *
 *===----------------------------------------------------------------------===*/
#include "bundles/bundle_writer.h"
#include "checks.h"
#include "hodu/runtime.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The reader's internal entry point (runtime/src/plan.h). */
typedef struct hodu_plan hodu_plan;
hodu_status hodu_bundle_parse(uint8_t *data, uint64_t size, const char *origin,
                              hodu_plan **out);
void hodu_plan_free(hodu_plan *plan);

static const char *spirv_path;
static const char *work_dir;

static uint8_t *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
  if (fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

/* Parses a copy of `data` with the reader; returns the status. */
static hodu_status parse(const uint8_t *data, size_t size) {
  uint8_t *copy = aligned_alloc(64, size ? (size + 63) / 64 * 64 : 64);
  if (size)
    memcpy(copy, data, size);
  hodu_plan *plan = NULL;
  hodu_status status = hodu_bundle_parse(copy, size, "'test.hodu'", &plan);
  hodu_plan_free(plan);
  return status;
}

static char *work_path(const char *name) {
  static char paths[4][1024];
  static int next;
  char *path = paths[next++ % 4];
  snprintf(path, 1024, "%s/%s", work_dir, name);
  return path;
}

/*===--------------------------------------------------------------------===*
 * The test model ("contract"): x f32[64] -> y f32[64], t f32[64];
 * meta slots scale f32[1] (initially 2) and step f32[1] (initially 0).
 *   t = x * w + x[i ^ 1]   (kernel mul_w, workgroup memory; w in WEIGHTS)
 *   step += 1              (kernel step_inc)
 *   y = t * scale + step   (kernel finish)
 *   t -> output t          (COPY from the arena)
 *===--------------------------------------------------------------------===*/

#define N 64

static float weight(int i) { return 0.25f * (float)(i % 7) - 0.5f; }

/* The contract bundle's records, not yet serialised. */
static tb_bundle *contract_records(uint32_t kind, const void *code,
                                   size_t code_size) {
  tb_bundle *b = tb_new("contract");
  uint32_t gpu = tb_device(b, kind, 2 * 256);
  int64_t shape[] = {N}, one[] = {1};
  float w[N];
  for (int i = 0; i < N; ++i)
    w[i] = weight(i);
  uint64_t w_at = tb_weights(b, w, sizeof w);
  float two = 2.0f;
  uint64_t scale_at = tb_weights(b, &two, sizeof two);
  tb_input(b, "x", HODU_DTYPE_F32, 1, shape, gpu);
  tb_output(b, "y", HODU_DTYPE_F32, 1, shape, gpu);
  tb_output(b, "t", HODU_DTYPE_F32, 1, shape, gpu);
  tb_meta(b, "scale", HODU_DTYPE_F32, 1, one, gpu, scale_at);
  tb_meta(b, "step", HODU_DTYPE_F32, 0, NULL, gpu, HODU_BUNDLE_NONE);
  uint32_t format = kind == HODU_DEVICE_VULKAN ? HODU_CODE_SPIRV
                    : kind == HODU_DEVICE_CUDA ? HODU_CODE_PTX
                                               : HODU_CODE_HSACO;
  tb_code(b, gpu, format, kind == HODU_DEVICE_CUDA ? "sm_80" : "", code,
          code_size);
  uint32_t mul_w = tb_kernel(b, "mul_w", gpu, 16, 1, 1, 3, 0);
  uint32_t step_inc = tb_kernel(b, "step_inc", gpu, 1, 1, 1, 1, 0);
  uint32_t finish = tb_kernel(b, "finish", gpu, 16, 1, 1, 4, 0);
  uint32_t a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_INPUT, 0, 0, sizeof w);
  tb_arg(b, HODU_SPACE_WEIGHTS, gpu, w_at, sizeof w);
  tb_arg(b, HODU_SPACE_ARENA, gpu, 256, sizeof w);
  tb_step(b, HODU_STEP_LAUNCH, gpu, mul_w, N / 16, 1, 1, a, 3);
  a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_META, 1, 0, 4);
  tb_step(b, HODU_STEP_LAUNCH, gpu, step_inc, 1, 1, 1, a, 1);
  a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_ARENA, gpu, 256, sizeof w);
  tb_arg(b, HODU_SPACE_META, 0, 0, 4);
  tb_arg(b, HODU_SPACE_META, 1, 0, 4);
  tb_arg(b, HODU_SPACE_OUTPUT, 0, 0, sizeof w);
  tb_step(b, HODU_STEP_LAUNCH, gpu, finish, N / 16, 1, 1, a, 4);
  a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_ARENA, gpu, 256, sizeof w);
  tb_arg(b, HODU_SPACE_OUTPUT, 1, 0, sizeof w);
  tb_step(b, HODU_STEP_COPY, gpu, 0, 1, 1, 1, a, 2);
  return b;
}

static uint8_t *contract_bundle(uint32_t kind, const void *code,
                                size_t code_size, size_t *size) {
  tb_bundle *b = contract_records(kind, code, code_size);
  uint8_t *data = tb_finish(b, size);
  tb_free(b);
  return data;
}

static uint8_t *spirv_bytes(size_t *size) {
  uint8_t *spirv = read_all(spirv_path, size);
  if (!spirv)
    fprintf(stderr,
            "cannot read the test kernels '%s' (spirv-as from "
            "spirv-tools assembles them at build time)\n",
            spirv_path);
  return spirv;
}

static uint8_t *vulkan_bundle(size_t *size) {
  size_t spirv_size;
  uint8_t *spirv = spirv_bytes(&spirv_size);
  if (!spirv)
    return NULL;
  uint8_t *data = contract_bundle(HODU_DEVICE_VULKAN, spirv, spirv_size, size);
  free(spirv);
  return data;
}

/* The Vulkan contract bundle's records, to add to before tb_finish; NULL
 * without the test kernels. */
static tb_bundle *vulkan_records(void) {
  size_t spirv_size;
  uint8_t *spirv = spirv_bytes(&spirv_size);
  if (!spirv)
    return NULL;
  tb_bundle *b = contract_records(HODU_DEVICE_VULKAN, spirv, spirv_size);
  free(spirv);
  return b;
}

/* Writes the Vulkan contract bundle to WORKDIR/name; returns its path. */
static const char *write_vulkan_bundle(const char *name) {
  size_t size;
  uint8_t *data = vulkan_bundle(&size);
  if (!data)
    return NULL;
  const char *path = work_path(name);
  CHECK(tb_write_file(path, data, size) == 0);
  free(data);
  return path;
}

static void expected(const float *x, float scale, float step, float *y,
                     float *t) {
  for (int i = 0; i < N; ++i) {
    t[i] = x[i] * weight(i) + x[i ^ 1];
    y[i] = t[i] * scale + step;
  }
}

static int same(const float *a, const float *b, int n) {
  for (int i = 0; i < n; ++i)
    if (fabsf(a[i] - b[i]) > 1e-5f * (1 + fabsf(b[i])))
      return 0;
  return 1;
}

/*===--------------------------------------------------------------------===*
 * The reader
 *===--------------------------------------------------------------------===*/

static void test_reader_valid(void) {
  size_t size;
  uint8_t *data = vulkan_bundle(&size);
  if (!data)
    return ++failures, (void)0;
  CHECK_OK(parse(data, size));
  /* Unknown sections are skipped: rename BLOBS' kind... no; add a minor
   * version instead, which a reader of the same major accepts. */
  data[10] = 7; /* version_minor */
  CHECK_OK(parse(data, size));
  free(data);
}

/* `size` bytes of a bundle (freed here): parsed, written to `name` in the
 * work folder and loaded from there for inspection (no device); NULL, with
 * the failure counted, when a step fails. */
static hodu_model *inspect_bundle(uint8_t *data, size_t size,
                                  const char *name) {
  CHECK_OK(parse(data, size));
  const char *path = work_path(name);
  CHECK(tb_write_file(path, data, size) == 0);
  free(data);
  hodu_load_options options;
  hodu_load_options_init(&options);
  options.inspect_only = 1;
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_load_with_options(path, &options, &model));
  return model;
}

/* The contract bundle with a symbol "batch" (chunk `chunk`) on dim `dim`
 * of tensor `tensor` (scale `scale`) and on dim 0 of tensor `also`. */
static uint8_t *symbolic_bundle(int64_t chunk, uint32_t tensor, uint32_t dim,
                                int64_t scale, uint32_t also, size_t *size) {
  tb_bundle *b = vulkan_records();
  if (!b)
    return NULL;
  tb_symbol(b, "batch", 1, 256, 1, chunk);
  tb_dynamic_dim(b, tensor, dim, 0, scale);
  tb_dynamic_dim(b, also, 0, 0, 1);
  uint8_t *data = tb_finish(b, size);
  tb_free(b);
  return data;
}

/* SYMBOLS and DYNAMIC_DIMS: a valid symbol reads back through the API CPU
 * models use; each broken rule is refused with its message. */
static void test_reader_symbols(void) {
  size_t size;
  uint8_t *data = symbolic_bundle(N, 0, 0, 1, 1, &size);
  if (!data)
    return ++failures, (void)0;
  hodu_model *model = inspect_bundle(data, size, "symbolic.hodu");
  if (model) {
    CHECK(hodu_model_num_symbols(model) == 1);
    const hodu_symbol_desc *symbol = hodu_model_symbol(model, 0);
    CHECK(symbol && strcmp(symbol->name, "batch") == 0 && symbol->chunk == N &&
          symbol->max == 256);
    CHECK(hodu_model_input_shape(model, 0)[0] == -1);
    CHECK(hodu_model_output_shape(model, 0)[0] == -1);
    CHECK(hodu_model_output_shape(model, 1)[0] == N); /* t: static */
    const hodu_dynamic_dim *dim = hodu_model_dynamic_dim(model, 1, 0, 0);
    CHECK(dim && dim->symbol == 0 && dim->scale == 1);
    CHECK(!hodu_model_dynamic_dim(model, 1, 1, 0));
    CHECK(hodu_model_plan_count(model, HODU_BUNDLE_SECTION_SYMBOLS) == 1);
    /* The file's DIMS keep the chunk's extents. */
    const int64_t *dims =
        hodu_model_plan_table(model, HODU_BUNDLE_SECTION_DIMS);
    CHECK(dims && dims[0] == N);
    int64_t values[] = {100}, shape[1];
    CHECK_OK(hodu_model_resolve_input_shape(model, 0, values, 1, shape));
    CHECK(shape[0] == 100);
    values[0] = 300;
    CHECK_ERROR(hodu_model_resolve_input_shape(model, 0, values, 1, shape),
                HODU_MISMATCH,
                "symbol 'batch' is 300, but must be at most 256");
    hodu_tensor *x = NULL;
    CHECK_ERROR(hodu_model_create_input(model, 0, &x), HODU_INVALID_ARGUMENT,
                "input 'x' dim 0 is symbol 'batch'");
    hodu_model_free(model);
  }
  static const struct {
    int64_t chunk;
    uint32_t tensor, dim;
    int64_t scale;
    uint32_t also;
    const char *message;
  } broken[] = {
      {0, 0, 0, 1, 1,
       "section SYMBOLS entry 0: min 1, max 256, multiple 1, "
       "chunk 0, flags 0x0, value_slot 0: chunk < 1"},
      {N, 0, 0, 2, 1,
       "section DYNAMIC_DIMS entry 0: input 'x' dim 0 is 64 in "
       "DIMS, but its scale 2 times the chunk 64 of symbol 0 "
       "is 128"},
      {N, 3, 0, 1, 1,
       "section DYNAMIC_DIMS entry 0: field tensor is 3, but "
       "there are 3 inputs and outputs (meta slots have static "
       "shapes)"},
      {N, 0, 1, 1, 1,
       "section DYNAMIC_DIMS entry 0: field dim is 1, but "
       "input 'x' has rank 1"},
      {N, 1, 0, 1, 1,
       "section DYNAMIC_DIMS entry 1: output 'y' has a second dim of "
       "symbol 0 or a second symbol in dim 0 (entry 0); one dim per symbol "
       "and one symbol per dim"},
      {N, 2, 0, 1, 1,
       "section SYMBOLS entry 0: symbol 'batch' is a dim of no "
       "input, so a run cannot bind its value"},
  };
  for (size_t i = 0; i < sizeof broken / sizeof broken[0]; ++i) {
    data = symbolic_bundle(broken[i].chunk, broken[i].tensor, broken[i].dim,
                           broken[i].scale, broken[i].also, &size);
    CHECK_ERROR(parse(data, size), HODU_INVALID_ARTIFACT, broken[i].message);
    free(data);
  }
}

/* Minor 3's shorter SYMBOLS and DYNAMIC_DIMS records still load: no
 * value slot, and every divisor 1. */
static void test_reader_minor3_symbols(void) {
  size_t size;
  tb_bundle *b = vulkan_records();
  if (!b)
    return ++failures, (void)0;
  tb_symbol(b, "batch", 1, 256, 1, N);
  tb_dynamic_dim(b, 0, 0, 0, 1);
  tb_minor3_symbols(b);
  uint8_t *data = tb_finish(b, &size);
  tb_free(b);
  hodu_model *model = inspect_bundle(data, size, "minor3.hodu");
  if (model) {
    const hodu_dynamic_dim *dim = hodu_model_dynamic_dim(model, 0, 0, 0);
    CHECK(dim && dim->scale == 1 &&
          hodu_model_dynamic_dim_divisor(model, 0, 0, 0) == 1);
    hodu_model_free(model);
  }
}

/* The contract bundle with an i64 scalar meta slot "n" (slot 2) and a
 * padded symbol "seq" (flags, chunk and value slot as given, bound N, a
 * multiple of 2) on dim 0 of x, with y's extent
 * scale * seq / divisor + offset. */
static uint8_t *padded_bundle(uint32_t flags, int64_t chunk, uint32_t slot,
                              int64_t scale, int64_t offset, int64_t divisor,
                              size_t *size) {
  tb_bundle *b = vulkan_records();
  if (!b)
    return NULL;
  tb_meta(b, "n", HODU_DTYPE_I64, 0, NULL, 0, HODU_BUNDLE_NONE);
  tb_padded_symbol(b, "seq", flags, 0, N, 2, chunk, slot);
  tb_dynamic_extent(b, 0, 0, 0, 1, 0, 1);
  tb_dynamic_extent(b, 1, 0, 0, scale, offset, divisor);
  uint8_t *data = tb_finish(b, size);
  tb_free(b);
  return data;
}

/* A padded symbol (minor 4): its extents, divisor and value slot read
 * back; each broken rule is refused with its message. */
static void test_reader_padded(void) {
  size_t size;
  const uint32_t P = HODU_BUNDLE_SYMBOL_PADDED;
  /* y: seq / 2 + 32, which is N at the bound N = 64. */
  uint8_t *data = padded_bundle(P, N, 2, 1, 32, 2, &size);
  if (!data)
    return ++failures, (void)0;
  hodu_model *model = inspect_bundle(data, size, "padded.hodu");
  if (model) {
    const hodu_symbol_desc *symbol = hodu_model_symbol(model, 0);
    CHECK(symbol && symbol->chunk == N && symbol->max == N);
    const hodu_dynamic_dim *dim = hodu_model_dynamic_dim(model, 1, 0, 0);
    CHECK(dim && dim->scale == 1 && dim->offset == 32 &&
          hodu_model_dynamic_dim_divisor(model, 1, 0, 0) == 2);
    int64_t values[] = {24}, shape[1];
    CHECK_OK(hodu_model_resolve_output_shape(model, 0, values, 1, shape));
    CHECK(shape[0] == 24 / 2 + 32);
    hodu_model_free(model);
  }
  static const struct {
    uint32_t flags;
    int64_t chunk;
    uint32_t slot;
    int64_t scale, offset, divisor;
    const char *message;
  } broken[] = {
      {2, N, 2, 1, 0, 1,
       "section SYMBOLS entry 0: min 0, max 64, multiple 2, chunk 64, flags "
       "0x2, value_slot 2: flags has bits this runtime does not know"},
      {P, 32, 2, 1, 0, 1,
       "chunk 32, flags 0x1, value_slot 2: a padded symbol's chunk is its "
       "bound (max)"},
      {P, N, 3, 1, 0, 1, "value_slot 3: value_slot is not a meta slot"},
      {P, N, 0, 1, 0, 1,
       "value_slot 0: the meta slot value_slot is not an i64 scalar"},
      {0, N, 2, 1, 0, 1, "flags 0x0, value_slot 2: value_slot is not 0"},
      {P, N, 2, 1, 1, 1,
       "section DYNAMIC_DIMS entry 1: output 'y' dim 0 is 64 in DIMS, with "
       "scale 1, offset 1 and divisor 1 of padded symbol 0 (min 0, bound 64, "
       "multiple 2): the extent must be"},
      {P, N, 2, 1, 32, 4, "scale 1, offset 32 and divisor 4"},
      {P, N, 2, 2, -64, 1, "scale 2, offset -64 and divisor 1"},
  };
  for (size_t i = 0; i < sizeof broken / sizeof broken[0]; ++i) {
    data = padded_bundle(broken[i].flags, broken[i].chunk, broken[i].slot,
                         broken[i].scale, broken[i].offset, broken[i].divisor,
                         &size);
    CHECK_ERROR(parse(data, size), HODU_INVALID_ARTIFACT, broken[i].message);
    free(data);
  }
}

/* The padded contract with one variant (minor 6) at size `size` (flags,
 * steps and sizes as given), whose one step increments the step slot. */
static uint8_t *variant_bundle(int64_t size_value, uint32_t flags,
                               uint32_t num_steps, int bad_first_size,
                               uint32_t kernel, size_t *size) {
  tb_bundle *b = vulkan_records();
  if (!b)
    return NULL;
  tb_meta(b, "n", HODU_DTYPE_I64, 0, NULL, 0, HODU_BUNDLE_NONE);
  tb_padded_symbol(b, "seq", HODU_BUNDLE_SYMBOL_PADDED, 0, N, 2, N, 2);
  tb_dynamic_extent(b, 0, 0, 0, 1, 0, 1);
  tb_dynamic_extent(b, 1, 0, 0, 1, 32, 2);
  uint32_t first_size = tb_dims(b, &size_value, 1);
  uint32_t a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_META, 1, 0, 4);
  tb_variant_step(b, HODU_STEP_LAUNCH, 0, kernel, 1, 1, 1, a, 1);
  tb_variant(b, 0, num_steps, bad_first_size ? 1000 : first_size, flags);
  uint8_t *data = tb_finish(b, size);
  tb_free(b);
  return data;
}

/* Variants (minor 6): the bound's plan stays STEPS, the variant's steps
 * and record read back; each broken rule is refused with its message. */
static void test_reader_variants(void) {
  size_t size;
  uint8_t *data = variant_bundle(32, 0, 1, 0, 1, &size);
  if (!data)
    return ++failures, (void)0;
  hodu_model *model = inspect_bundle(data, size, "variants.hodu");
  if (model) {
    CHECK(hodu_model_plan_count(model, HODU_BUNDLE_SECTION_STEPS) == 4);
    CHECK(hodu_model_plan_count(model, HODU_BUNDLE_SECTION_VARIANTS) == 1);
    CHECK(hodu_model_plan_count(model, HODU_BUNDLE_SECTION_VARIANT_STEPS) == 1);
    const hodu_bundle_variant *v =
        hodu_model_plan_table(model, HODU_BUNDLE_SECTION_VARIANTS);
    const hodu_bundle_step *s =
        hodu_model_plan_table(model, HODU_BUNDLE_SECTION_VARIANT_STEPS);
    const int64_t *dims =
        hodu_model_plan_table(model, HODU_BUNDLE_SECTION_DIMS);
    CHECK(v && s && dims && v->num_steps == 1 && dims[v->first_size] == 32 &&
          s->kernel == 1 && s->num_args == 1);
    hodu_model_free(model);
  }
  static const struct {
    int64_t size;
    uint32_t flags, num_steps;
    int bad_first_size;
    uint32_t kernel;
    const char *message;
  } broken[] = {
      {32, 1, 1, 0, 1, "section VARIANTS entry 0: flags is 1, must be 0"},
      {32, 0, 0, 0, 1,
       "section VARIANTS entry 0: steps [0, +0) are not a non-empty range of "
       "the 1 entries of VARIANT_STEPS"},
      {32, 0, 2, 0, 1, "steps [0, +2) are not a non-empty range"},
      {32, 0, 1, 1, 1,
       "section VARIANTS entry 0: sizes DIMS[1000, +1) reach "
       "past the"},
      {33, 0, 1, 0, 1,
       "section VARIANTS entry 0: size 33 of symbol 'seq' is not a multiple "
       "of 2"},
      {66, 0, 1, 0, 1, "size 66 of symbol 'seq' is outside 0..64"},
      {64, 0, 1, 0, 1,
       "section VARIANTS entry 0: every padded symbol's size is its bound, "
       "which is STEPS' plan"},
      {32, 0, 1, 0, 9,
       "section VARIANT_STEPS entry 0 (LAUNCH): field kernel is 9, but there "
       "are 3 kernels"},
  };
  for (size_t i = 0; i < sizeof broken / sizeof broken[0]; ++i) {
    data = variant_bundle(broken[i].size, broken[i].flags, broken[i].num_steps,
                          broken[i].bad_first_size, broken[i].kernel, &size);
    CHECK_ERROR(parse(data, size), HODU_INVALID_ARTIFACT, broken[i].message);
    free(data);
  }
  /* Variants of a model without a padded symbol, and steps without
   * variants. */
  tb_bundle *b = vulkan_records();
  if (!b)
    return ++failures, (void)0;
  uint32_t a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_META, 1, 0, 4);
  tb_variant_step(b, HODU_STEP_LAUNCH, 0, 1, 1, 1, 1, a, 1);
  data = tb_finish(b, &size);
  CHECK_ERROR(parse(data, size), HODU_INVALID_ARTIFACT,
              "section VARIANT_STEPS: holds 1 steps, but there is no VARIANTS "
              "section");
  free(data);
  tb_variant(b, 0, 1, 0, 0);
  data = tb_finish(b, &size);
  tb_free(b);
  CHECK_ERROR(parse(data, size), HODU_INVALID_ARTIFACT,
              "section VARIANTS: holds 1 entries, but the model has no padded "
              "symbol");
  free(data);
}

/* Two symbols (minor 4): one run in chunks and one padded (or, minor 5,
 * both padded). The contract's tensors are of rank 1, so these are the
 * refusals; hoduc's two- and three-symbol bundles run in
 * test/Runtime/vulkan-padded.test. */
static void test_reader_two_symbols(void) {
  static const struct {
    uint32_t flags0, flags1;
    uint32_t tensor1, dim1; /* the second symbol's record */
    const char *message;
  } broken[] = {
      {0, 0, 0, 0,
       "section SYMBOLS: holds 2 symbols run in chunks and 0 padded; a "
       "bundle runs at most one in chunks and 3 padded"},
      /* Two padded symbols (minor 5) are read; here they share a dim. */
      {HODU_BUNDLE_SYMBOL_PADDED, HODU_BUNDLE_SYMBOL_PADDED, 0, 0,
       "section DYNAMIC_DIMS entry 1: input 'x' has a second dim of symbol 1 "
       "or a second symbol in dim 0 (entry 0)"},
      {0, HODU_BUNDLE_SYMBOL_PADDED, 0, 0,
       "section DYNAMIC_DIMS entry 1: input 'x' has a second dim of symbol 1 "
       "or a second symbol in dim 0 (entry 0)"},
      {0, HODU_BUNDLE_SYMBOL_PADDED, 1, 0,
       "section SYMBOLS entry 1: symbol 'seq' is a dim of no input, so a run "
       "cannot bind its value"},
  };
  for (size_t i = 0; i < sizeof broken / sizeof broken[0]; ++i) {
    size_t size;
    tb_bundle *b = vulkan_records();
    if (!b)
      return ++failures, (void)0;
    tb_meta(b, "n", HODU_DTYPE_I64, 0, NULL, 0, HODU_BUNDLE_NONE);
    uint32_t f[2] = {broken[i].flags0, broken[i].flags1};
    tb_padded_symbol(b, "batch", f[0], 0, N, 1, N, f[0] ? 2 : 0);
    tb_padded_symbol(b, "seq", f[1], 0, N, 1, N, f[1] ? 2 : 0);
    tb_dynamic_dim(b, 0, 0, 0, 1);
    tb_dynamic_dim(b, broken[i].tensor1, broken[i].dim1, 1, 1);
    uint8_t *data = tb_finish(b, &size);
    tb_free(b);
    CHECK_ERROR(parse(data, size), HODU_INVALID_ARTIFACT, broken[i].message);
    free(data);
  }
}

/* Four padded symbols: a 1.5 reader runs three at most (HODU_PLAN_MAX_PADDED)
 * and says so before it reads their records. */
static void test_reader_four_padded(void) {
  size_t size;
  tb_bundle *b = vulkan_records();
  if (!b)
    return ++failures, (void)0;
  tb_meta(b, "n", HODU_DTYPE_I64, 0, NULL, 0, HODU_BUNDLE_NONE);
  static const char *names[] = {"a", "b", "c", "d"};
  for (int k = 0; k < 4; ++k)
    tb_padded_symbol(b, names[k], HODU_BUNDLE_SYMBOL_PADDED, 0, N, 1, N, 2);
  tb_dynamic_dim(b, 0, 0, 0, 1);
  uint8_t *data = tb_finish(b, &size);
  tb_free(b);
  CHECK_ERROR(parse(data, size), HODU_INVALID_ARTIFACT,
              "section SYMBOLS: holds 0 symbols run in chunks and 4 padded; a "
              "bundle runs at most one in chunks and 3 padded");
  free(data);
}

/* Every prefix of a valid bundle is refused cleanly. */
static void test_reader_truncated(void) {
  size_t size;
  uint8_t *data = vulkan_bundle(&size);
  if (!data)
    return ++failures, (void)0;
  for (size_t cut = 0; cut < size; ++cut) {
    hodu_status status = parse(data, cut);
    if (!status) {
      fprintf(stderr, "a bundle cut to %zu of %zu bytes was accepted\n", cut,
              size);
      ++failures;
    }
    hodu_status_free(status);
  }
  free(data);
}

/* Every single-bit flip either parses or is refused: never a crash (run
 * under ASan/UBSan by the sanitizer build of this test). */
static void test_reader_bit_flips(void) {
  size_t size;
  uint8_t *data = vulkan_bundle(&size);
  if (!data)
    return ++failures, (void)0;
  size_t refused = 0, total = 0;
  for (size_t byte = 0; byte < size; ++byte)
    for (int bit = 0; bit < 8; ++bit) {
      data[byte] ^= (uint8_t)(1u << bit);
      hodu_status status = parse(data, size);
      refused += status != NULL;
      ++total;
      if (status && !strstr(hodu_status_message(status), "test.hodu")) {
        fprintf(stderr, "message without the file's name: %s\n",
                hodu_status_message(status));
        ++failures;
      }
      hodu_status_free(status);
      data[byte] ^= (uint8_t)(1u << bit);
    }
  /* Flips in the header, tables and records are caught; flips inside
   * weights, strings and code bytes cannot be. */
  CHECK(refused > total / 8);
  free(data);
}

/* One field of a record, patched. */
typedef struct mutation {
  uint32_t section; /* 0: the header */
  uint64_t offset;  /* within the section (or file, for the header) */
  uint32_t width;   /* bytes: 1, 2, 4 or 8 */
  uint64_t value;
  hodu_status_code code;
  const char *message;
  uint64_t offset2; /* a second field of the same section, when width2 */
  uint32_t width2;
  uint64_t value2;
} mutation;

#define S_(kind) HODU_BUNDLE_SECTION_##kind
#define T_(i, field)                                                           \
  ((i) * sizeof(hodu_bundle_tensor) + offsetof(hodu_bundle_tensor, field))
#define K_(i, field)                                                           \
  ((i) * sizeof(hodu_bundle_kernel) + offsetof(hodu_bundle_kernel, field))
#define ST_(i, field)                                                          \
  ((i) * sizeof(hodu_bundle_step) + offsetof(hodu_bundle_step, field))
#define A_(i, field)                                                           \
  ((i) * sizeof(hodu_bundle_arg) + offsetof(hodu_bundle_arg, field))
#define C_(i, field)                                                           \
  ((i) * sizeof(hodu_bundle_code) + offsetof(hodu_bundle_code, field))
#define H_(field) offsetof(hodu_bundle_header, field)

static const mutation mutations[] = {
    /* header */
    {0, 0, 1, 'X', HODU_INVALID_ARTIFACT, "is not a Hodu bundle"},
    {0, H_(version_major), 2, 2, HODU_INCOMPATIBLE, "is a version 2.6 bundle"},
    {0, H_(header_size), 4, 8, HODU_INVALID_ARTIFACT, "header_size is 8"},
    {0, H_(file_size), 8, 12345678, HODU_INVALID_ARTIFACT,
     "file_size says 12345678 bytes"},
    {0, H_(section_entry_size), 4, 16, HODU_INVALID_ARTIFACT,
     "section_entry_size is 16"},
    {0, H_(section_count), 4, 100000, HODU_INVALID_ARTIFACT,
     "section_count is 100000"},
    {0, H_(section_table_offset), 8, 1u << 30, HODU_INVALID_ARTIFACT,
     "the section table"},
    {0, H_(section_table_offset), 8, 8, HODU_INVALID_ARTIFACT,
     "overlaps the header"},
    /* section table: entry 0 is STRINGS at table offset 64 */
    {0, 64 + 8, 8, 65, HODU_INVALID_ARTIFACT, "is not a multiple of 64"},
    {0, 64 + 8, 8, 64, HODU_INVALID_ARTIFACT, "overlaps the section table"},
    {0, 64 + 16, 8, 1u << 30, HODU_INVALID_ARTIFACT, "lie outside"},
    {0, 64 + 24 + 4, 4, 8, HODU_INVALID_ARTIFACT,
     "section MODEL: entry_size is 8"},
    {0, 64 + 24 * 2, 4, HODU_BUNDLE_SECTION_STRINGS, HODU_INVALID_ARTIFACT,
     "a second STRINGS section"},
    {0, 64 + 24 * 4 + 4, 4, 4, HODU_INVALID_ARTIFACT,
     "section DIMS: entry_size is 4, expected 8"},
    {0, 64 + 24 * 3 + 16, 8, 41, HODU_INVALID_ARTIFACT,
     "is not a multiple of its entry_size"},
    /* model */
    {S_(MODEL), offsetof(hodu_bundle_model, name), 4, 1u << 20,
     HODU_INVALID_ARTIFACT, "section MODEL: field name: string reference"},
    {S_(MODEL), offsetof(hodu_bundle_model, num_inputs), 4, 2,
     HODU_INVALID_ARTIFACT, "MODEL declares 2 inputs"},
    {S_(MODEL), offsetof(hodu_bundle_model, flags), 4, 1, HODU_INVALID_ARTIFACT,
     "section MODEL: flags is 0x1"},
    {S_(MODEL), offsetof(hodu_bundle_model, num_state_tensors), 4, 5,
     HODU_INVALID_ARTIFACT,
     "section MODEL: 5 state tensors, but 1 inputs and 2 outputs"},
    {S_(MODEL), offsetof(hodu_bundle_model, reserved), 4, 1,
     HODU_INVALID_ARTIFACT, "section MODEL: reserved is 0x1"},
    /* devices */
    {S_(DEVICES), offsetof(hodu_bundle_device, kind), 4, 9,
     HODU_INVALID_ARTIFACT, "section DEVICES entry 0: kind is 9"},
    {S_(DEVICES), offsetof(hodu_bundle_device, flags), 4, 2,
     HODU_INVALID_ARTIFACT, "section DEVICES entry 0: flags"},
    {S_(DEVICES), offsetof(hodu_bundle_device, kind), 4, HODU_DEVICE_PLUGIN,
     HODU_INVALID_ARTIFACT,
     "section DEVICES entry 0: a plugin device needs a name"},
    {S_(DEVICES), offsetof(hodu_bundle_device, name), 4, 1,
     HODU_INVALID_ARTIFACT,
     "section DEVICES entry 0: only a plugin device has a name"},
    {S_(DEVICES), offsetof(hodu_bundle_device, name), 4, 1u << 20,
     HODU_INVALID_ARTIFACT, "section DEVICES entry 0: field name: string"},
    {S_(DEVICES), offsetof(hodu_bundle_device, reserved), 4, 1,
     HODU_INVALID_ARTIFACT, "section DEVICES entry 0: reserved is 0x1"},
    {S_(DEVICES), offsetof(hodu_bundle_device, arena_size), 8, 256,
     HODU_INVALID_ARTIFACT, "(ARENA 0): 256 bytes at offset 256 lie outside"},
    /* tensors */
    {S_(TENSORS), T_(0, name), 4, 0, HODU_INVALID_ARTIFACT,
     "(input ''): field name is empty"},
    {S_(TENSORS), T_(1, dtype), 4, 99, HODU_INVALID_ARTIFACT,
     "(output 'y'): field dtype is 99"},
    {S_(TENSORS), T_(0, rank), 4, 17, HODU_INVALID_ARTIFACT,
     "field rank is 17, more than 16"},
    {S_(TENSORS), T_(0, first_dim), 4, 1000, HODU_INVALID_ARTIFACT,
     "reach past the"},
    {S_(TENSORS), T_(0, device), 4, 3, HODU_INVALID_ARTIFACT,
     "field device is 3, but there are 1 devices"},
    {S_(TENSORS), T_(0, bytes), 8, 255, HODU_INVALID_ARTIFACT,
     "field bytes is 255, but 64 elements of f32 take 256"},
    {S_(TENSORS), T_(0, init), 8, 0, HODU_INVALID_ARTIFACT,
     "only meta slots and state tensors have an initial value"},
    {S_(TENSORS), T_(3, init), 8, 1u << 20, HODU_INVALID_ARTIFACT,
     "(meta slot 'scale'): the initial value"},
    {S_(TENSORS), T_(2, name), 4, 34, HODU_INVALID_ARTIFACT,
     "(output 'y'): its name is also the name of entry 1"},
    {S_(TENSORS), T_(3, flags), 4, 4, HODU_INVALID_ARTIFACT, "flags is 0x4"},
    /* dims */
    {S_(DIMS), 0, 8, (uint64_t)-3, HODU_INVALID_ARTIFACT,
     "extent 0 is -3, must be >= 0"},
    /* code */
    {S_(CODE), C_(0, device), 4, 5, HODU_INVALID_ARTIFACT,
     "section CODE entry 0: field device is 5"},
    {S_(CODE), C_(0, format), 4, 42, HODU_INVALID_ARTIFACT,
     "format is 42, not a hodu_code_format"},
    {S_(CODE), C_(0, format), 4, HODU_CODE_PTX, HODU_INVALID_ARTIFACT,
     "ptx code cannot run on device 0 (vulkan)"},
    {S_(CODE), C_(0, size), 8, 1u << 30, HODU_INVALID_ARTIFACT,
     "lie outside BLOBS"},
    {S_(CODE), C_(0, size), 8, 0, HODU_INVALID_ARTIFACT,
     "a code object cannot be empty"},
    {S_(CODE), C_(0, size), 8, 6, HODU_INVALID_ARTIFACT, "not a SPIR-V module"},
    {S_(CODE), C_(0, arch), 4, 1u << 24, HODU_INVALID_ARTIFACT,
     "section CODE entry 0: field arch"},
    /* kernels */
    {S_(KERNELS), K_(0, name), 4, 0, HODU_INVALID_ARTIFACT,
     "section KERNELS entry 0: field name is empty"},
    {S_(KERNELS), K_(1, device), 4, 1, HODU_INVALID_ARTIFACT,
     "KERNELS entry 1 ('step_inc'): field device is 1"},
    {S_(KERNELS), K_(2, block) + 4, 4, 0, HODU_INVALID_ARTIFACT,
     "('finish'): field block[1] is 0, must be >= 1"},
    {S_(KERNELS), K_(0, flags), 4, 1, HODU_INVALID_ARTIFACT,
     "('mul_w'): flags is 0x1"},
    {S_(KERNELS), K_(0, num_args), 4, 2, HODU_INVALID_ARTIFACT,
     "num_args is 3, but the kernel takes 2"},
    /* steps */
    {S_(STEPS), ST_(0, op), 4, 77, HODU_INVALID_ARTIFACT,
     "STEPS entry 0: op is 77"},
    {S_(STEPS), ST_(0, device), 4, 4, HODU_INVALID_ARTIFACT,
     "STEPS entry 0 (LAUNCH): field device is 4"},
    {S_(STEPS), ST_(1, kernel), 4, 9, HODU_INVALID_ARTIFACT,
     "field kernel is 9, but there are 3 kernels"},
    {S_(STEPS), ST_(1, kernel), 4, 0, HODU_INVALID_ARTIFACT,
     "num_args is 1, but the kernel takes 3"},
    {S_(STEPS), ST_(2, grid) + 8, 4, 0, HODU_INVALID_ARTIFACT,
     "'finish'): field grid[2] is 0, must be >= 1"},
    {S_(STEPS), ST_(2, first_arg), 4, 100, HODU_INVALID_ARTIFACT,
     "reach past the"},
    {S_(STEPS), ST_(3, num_args), 4, 1, HODU_INVALID_ARTIFACT,
     "(COPY): num_args is 1, expected 2"},
    {S_(STEPS), ST_(0, op), 4, HODU_STEP_HOST_CALL, HODU_INVALID_ARTIFACT,
     "HOST_CALL runs on CPU devices"},
    {S_(STEPS), ST_(3, op), 4, HODU_STEP_TRANSFER, HODU_INVALID_ARTIFACT,
     "both buffers are on device 0 (use COPY within a device)"},
    /* args */
    {S_(ARGS), A_(0, space), 4, 0, HODU_INVALID_ARTIFACT,
     "ARGS entry 0: space is 0"},
    {S_(ARGS), A_(0, index), 4, 1, HODU_INVALID_ARTIFACT,
     "(INPUT): index is 1, but there are 1 inputs"},
    {S_(ARGS), A_(2, offset), 8, 128, HODU_INVALID_ARTIFACT,
     "(ARENA 0): offset 128 is not a multiple of 256"},
    {S_(ARGS), A_(1, size), 8, 0, HODU_INVALID_ARTIFACT, "size is 0"},
    {S_(ARGS), A_(0, size), 8, 128, HODU_INVALID_ARTIFACT,
     "tensors are passed whole"},
    {S_(ARGS), A_(3, index), 4, 7, HODU_INVALID_ARTIFACT,
     "(META): index is 7, but there are 2 meta slots"},
    {S_(ARGS), A_(9, space), 4, HODU_SPACE_INPUT, HODU_INVALID_ARTIFACT,
     "(COPY): the destination is INPUT, which the plan only reads",
     A_(9, index), 4, 0},
    {S_(ARGS), A_(2, offset), 8, (uint64_t)-256, HODU_INVALID_ARTIFACT,
     "lie outside the 512-byte buffer"},
    /* strings */
    {S_(STRINGS), 0, 1, 'a', HODU_INVALID_ARTIFACT, "byte 0 is not NUL"},
};

static void test_reader_rules(void) {
  size_t size;
  uint8_t *data = vulkan_bundle(&size);
  if (!data)
    return ++failures, (void)0;
  uint8_t *copy = malloc(size);
  for (size_t i = 0; i < sizeof mutations / sizeof mutations[0]; ++i) {
    const mutation *m = &mutations[i];
    memcpy(copy, data, size);
    uint64_t base = 0, bytes = 0;
    if (m->section && !tb_find_section(copy, size, m->section, &base, &bytes)) {
      fprintf(stderr, "mutation %zu: no section %u\n", i, (unsigned)m->section);
      ++failures;
      continue;
    }
    memcpy(copy + base + m->offset, &m->value, m->width);
    if (m->width2)
      memcpy(copy + base + m->offset2, &m->value2, m->width2);
    hodu_status status = parse(copy, size);
    char what[64];
    snprintf(what, sizeof what, "mutation %zu", i);
    check_error(status, m->code, m->message, what, __LINE__);
  }
  free(copy);
  free(data);
}

static void test_reader_files(void) {
  hodu_model *model = NULL;
  /* A FIFO is not a regular file (and opening it must not block). */
  const char *fifo = work_path("fifo.hodu");
  unlink(fifo);
  CHECK(mkfifo(fifo, 0600) == 0);
  CHECK_ERROR(hodu_model_load(fifo, &model), HODU_INVALID_ARTIFACT,
              "is not a regular file");
  unlink(fifo);
  /* Just the magic. */
  const char *tiny = work_path("tiny.hodu");
  CHECK(tb_write_file(tiny, (const uint8_t *)"HODUBNDL", 8) == 0);
  CHECK_ERROR(hodu_model_load(tiny, &model), HODU_INVALID_ARTIFACT,
              "the file is 8 bytes, smaller than the 40-byte header");
  CHECK(model == NULL);
  CHECK_ERROR(hodu_model_load(work_path("missing.hodu"), &model),
              HODU_NOT_FOUND, "no such file");
}

/*===--------------------------------------------------------------------===*
 * Vulkan
 *===--------------------------------------------------------------------===*/

static hodu_model *load_vulkan(const char *name) {
  const char *path = write_vulkan_bundle(name);
  if (!path)
    return ++failures, NULL;
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_load(path, &model));
  return model;
}

static void fill_x(float *x, float base) {
  for (int i = 0; i < N; ++i)
    x[i] = base + 0.5f * (float)i;
}

static void test_vulkan_run(void) {
  int32_t count = -1;
  CHECK_OK(hodu_device_count(HODU_DEVICE_VULKAN, &count));
  CHECK(count >= 1);
  hodu_model *model = load_vulkan("run.hodu");
  if (!model)
    return;
  CHECK(hodu_model_is_bundle(model));
  CHECK(hodu_model_device_kind(model) == HODU_DEVICE_VULKAN);
  CHECK(strcmp(hodu_model_target(model), "vulkan") == 0);
  CHECK(strcmp(hodu_model_name(model), "contract") == 0);
  CHECK(hodu_model_descriptor(model) == NULL);
  CHECK(hodu_model_num_inputs(model) == 1 &&
        hodu_model_num_outputs(model) == 2);
  CHECK(hodu_model_num_meta_slots(model) == 2);
  CHECK(strcmp(hodu_model_meta_slot_name(model, 1), "step") == 0);
  CHECK(hodu_model_meta_slot_rank(model, 1) == 0);
  CHECK(hodu_model_meta_slot_bytes(model, 0) == 4);
  CHECK(hodu_model_plan_count(model, HODU_BUNDLE_SECTION_STEPS) == 4);
  const hodu_bundle_kernel *kernels =
      hodu_model_plan_table(model, HODU_BUNDLE_SECTION_KERNELS);
  CHECK(kernels &&
        strcmp(hodu_model_plan_string(model, kernels[0].name), "mul_w") == 0);
  /* hodu_model_run with host tensors: copies in and out. */
  float x[N], y[N], t[N], want_y[N], want_t[N];
  fill_x(x, 1.0f);
  int64_t shape[] = {N};
  hodu_tensor *in = NULL, *out_y = NULL, *out_t = NULL;
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, x, sizeof x, &in));
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, y, sizeof y, &out_y));
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, t, sizeof t, &out_t));
  hodu_tensor *outs[] = {out_y, out_t};
  for (int run = 0; run < 3; ++run) {
    memset(y, 0, sizeof y);
    CHECK_OK(
        hodu_model_run(model, (const hodu_tensor *const *)&in, 1, outs, 2));
    /* Every hodu_model_run starts from the initial meta values. */
    expected(x, 2.0f, 1.0f, want_y, want_t);
    CHECK(same(y, want_y, N));
    CHECK(same(t, want_t, N));
  }
  /* run_alloc works on bundles too. */
  hodu_tensor *allocated[2] = {NULL, NULL};
  CHECK_OK(hodu_model_run_alloc(model, (const hodu_tensor *const *)&in, 1,
                                allocated, 2));
  CHECK(allocated[0] && same(hodu_tensor_data(allocated[0]), want_y, N));
  hodu_tensor_free(allocated[0]);
  hodu_tensor_free(allocated[1]);
  /* The same checks as on the CPU. */
  hodu_tensor *wrong = NULL;
  int64_t bad_shape[] = {N - 1};
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, bad_shape, x, sizeof x, &wrong));
  CHECK_ERROR(
      hodu_model_run(model, (const hodu_tensor *const *)&wrong, 1, outs, 2),
      HODU_MISMATCH, "input 'x': expected shape [64], got [63]");
  hodu_tensor_free(wrong);
  hodu_tensor_free(in);
  hodu_tensor_free(out_y);
  hodu_tensor_free(out_t);
  hodu_model_free(model);
}

/* Device tensors are bound as they are: no host copy, the host sees no
 * data pointer, and results come back through hodu_tensor_read. */
static void test_vulkan_device_tensors(void) {
  hodu_model *model = load_vulkan("device.hodu");
  if (!model)
    return;
  hodu_tensor *x = NULL, *y = NULL, *t = NULL;
  CHECK_OK(hodu_model_create_device_input(model, 0, &x));
  CHECK_OK(hodu_model_create_device_output(model, 0, &y));
  CHECK_OK(hodu_model_create_device_output(model, 1, &t));
  if (!x || !y || !t)
    return;
  CHECK(hodu_tensor_device_kind(x) == HODU_DEVICE_VULKAN);
  CHECK(hodu_tensor_data(x) == NULL);
  float host_x[N], host_y[N], want_y[N], want_t[N];
  fill_x(host_x, -3.0f);
  CHECK_OK(hodu_tensor_write(x, host_x, sizeof host_x));
  CHECK_ERROR(hodu_tensor_write(x, host_x, 8), HODU_INVALID_ARGUMENT,
              "cannot write 8 bytes, but the tensor has 256");
  hodu_session *session = NULL;
  CHECK_OK(hodu_session_create(model, &session));
  hodu_tensor *outs[] = {y, t};
  CHECK_OK(
      hodu_session_bind(session, (const hodu_tensor *const *)&x, 1, outs, 2));
  CHECK_OK(hodu_session_run(session));
  CHECK_OK(hodu_tensor_read(y, host_y, sizeof host_y));
  expected(host_x, 2.0f, 1.0f, want_y, want_t);
  CHECK(same(host_y, want_y, N));
  /* Copies between host and device tensors. */
  hodu_tensor *host = NULL;
  int64_t shape[] = {N};
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 1, shape, &host));
  CHECK_OK(hodu_tensor_copy(t, host));
  CHECK(same(hodu_tensor_data(host), want_t, N));
  hodu_tensor *y2 = NULL;
  CHECK_OK(
      hodu_model_create_device_tensor(model, HODU_DTYPE_F32, 1, shape, &y2));
  CHECK_OK(hodu_tensor_copy(y, y2));
  CHECK_OK(hodu_tensor_copy(y2, host));
  CHECK(same(hodu_tensor_data(host), want_y, N));
  /* Output overlapping another output (the same device tensor twice). */
  hodu_tensor *twice[] = {y, y};
  CHECK_ERROR(
      hodu_session_bind(session, (const hodu_tensor *const *)&x, 1, twice, 2),
      HODU_INVALID_ARGUMENT, "output 't' overlaps output 'y'");
  hodu_session_free(session);
  /* A device tensor outlives the model that made it. */
  hodu_model_free(model);
  CHECK_OK(hodu_tensor_read(y2, host_y, sizeof host_y));
  CHECK(same(host_y, want_y, N));
  hodu_tensor_free(y2);
  hodu_tensor_free(host);
  hodu_tensor_free(x);
  hodu_tensor_free(y);
  hodu_tensor_free(t);
}

/* AICF's contracts on one model: replay(n) equals n eager runs; a changed
 * meta slot changes the next replay, and restoring it restores the
 * output (contract C); reset then capture again works; out-of-order calls
 * fail with INVALID_STATE. Runs with host or device tensors. */
static void contracts(hodu_model *model, int device_tensors) {
  float x[N], y_eager[N], y_replay[N], t[N], want_y[N], want_t[N];
  fill_x(x, 0.25f);
  int64_t shape[] = {N};
  hodu_tensor *in[2] = {NULL, NULL}, *out_y[2] = {NULL, NULL},
              *out_t[2] = {NULL, NULL};
  hodu_session *sessions[2] = {NULL, NULL};
  for (int s = 0; s < 2; ++s) {
    if (device_tensors) {
      CHECK_OK(hodu_model_create_device_input(model, 0, &in[s]));
      CHECK_OK(hodu_model_create_device_output(model, 0, &out_y[s]));
      CHECK_OK(hodu_model_create_device_output(model, 1, &out_t[s]));
      CHECK_OK(hodu_tensor_write(in[s], x, sizeof x));
    } else {
      CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, x, sizeof x, &in[s]));
      CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 1, shape, &out_y[s]));
      CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 1, shape, &out_t[s]));
    }
    CHECK_OK(hodu_session_create(model, &sessions[s]));
    hodu_tensor *outs[] = {out_y[s], out_t[s]};
    CHECK_OK(hodu_session_bind(sessions[s], (const hodu_tensor *const *)&in[s],
                               1, outs, 2));
  }
  hodu_session *eager = sessions[0], *graph = sessions[1];
  if (!eager || !graph)
    return;

  /* Out of order: nothing captured yet, nothing warmed. */
  CHECK(hodu_session_get_state(graph) == HODU_SESSION_CREATED);
  CHECK_ERROR(hodu_session_capture(graph), HODU_INVALID_STATE,
              "capture of model 'contract' in state created: run the session "
              "at least once first");
  CHECK_ERROR(hodu_session_replay(graph, 1), HODU_INVALID_STATE,
              "replay of model 'contract' in state created: nothing is "
              "captured");
  CHECK_ERROR(hodu_session_reset(graph), HODU_INVALID_STATE,
              "nothing is captured");

  /* Contract B: 1 warm-up + n eager runs == 1 warm-up + replay(n). */
  const int n = 5;
  for (int i = 0; i < 1 + n; ++i)
    CHECK_OK(hodu_session_run(eager));
  CHECK_OK(hodu_session_run(graph));
  CHECK(hodu_session_get_state(graph) == HODU_SESSION_WARMED);
  CHECK_ERROR(hodu_session_replay(graph, 1), HODU_INVALID_STATE,
              "in state warmed: nothing is captured");
  CHECK_OK(hodu_session_capture(graph));
  CHECK(hodu_session_get_state(graph) == HODU_SESSION_CAPTURED);
  CHECK_ERROR(hodu_session_capture(graph), HODU_INVALID_STATE,
              "already captured");
  CHECK_ERROR(hodu_session_replay(graph, 0), HODU_INVALID_ARGUMENT,
              "replay count must be >= 1");
  CHECK_OK(hodu_session_replay(graph, n));
  CHECK_OK(hodu_tensor_read(out_y[0], y_eager, sizeof y_eager));
  CHECK_OK(hodu_tensor_read(out_y[1], y_replay, sizeof y_replay));
  expected(x, 2.0f, (float)(1 + n), want_y, want_t);
  CHECK(same(y_eager, want_y, N));
  CHECK(same(y_replay, want_y, N));
  float step_eager = -1, step_replay = -1;
  CHECK_OK(hodu_session_read_meta_slot_named(eager, "step", &step_eager, 4));
  CHECK_OK(hodu_session_read_meta_slot_named(graph, "step", &step_replay, 4));
  CHECK(step_eager == (float)(1 + n) && step_replay == (float)(1 + n));

  /* Contract C: the slot changes the next replay without a new capture;
   * restoring it restores the output. */
  float zero = 0, scale = 0, five = 5;
  CHECK_OK(hodu_session_read_meta_slot(graph, 0, &scale, 4));
  CHECK(scale == 2.0f);
  CHECK_OK(hodu_session_write_meta_slot(graph, 1, &zero, 4));
  CHECK_OK(hodu_session_replay(graph, 1));
  float base[N], changed[N], restored[N];
  CHECK_OK(hodu_tensor_read(out_y[1], base, sizeof base));
  CHECK_OK(hodu_session_write_meta_slot_named(graph, "scale", &five, 4));
  CHECK_OK(hodu_session_write_meta_slot(graph, 1, &zero, 4));
  CHECK_OK(hodu_session_replay(graph, 1));
  CHECK_OK(hodu_tensor_read(out_y[1], changed, sizeof changed));
  CHECK_OK(hodu_session_write_meta_slot(graph, 0, &scale, 4));
  CHECK_OK(hodu_session_write_meta_slot(graph, 1, &zero, 4));
  CHECK_OK(hodu_session_replay(graph, 1));
  CHECK_OK(hodu_tensor_read(out_y[1], restored, sizeof restored));
  expected(x, 5.0f, 1.0f, want_y, want_t);
  CHECK(same(changed, want_y, N));
  CHECK(!same(changed, base, N));
  CHECK(same(restored, base, N));
  CHECK_ERROR(hodu_session_write_meta_slot(graph, 0, &scale, 8), HODU_MISMATCH,
              "meta slot 'scale' holds 4 bytes, got 8");
  CHECK_ERROR(hodu_session_write_meta_slot(graph, 2, &scale, 4),
              HODU_INVALID_ARGUMENT, "has no meta slot 2");
  CHECK_ERROR(hodu_session_write_meta_slot_named(graph, "lr", &scale, 4),
              HODU_NOT_FOUND, "has no meta slot named 'lr'");

  /* Binding other device tensors while captured is refused. */
  if (device_tensors) {
    hodu_tensor *outs[] = {out_y[0], out_t[0]};
    CHECK_ERROR(hodu_session_bind(graph, (const hodu_tensor *const *)&in[0], 1,
                                  outs, 2),
                HODU_INVALID_STATE, "reset it before binding other tensors");
  }

  /* Reset frees the recording only; replay after it fails; capturing
   * again works and replays as before. */
  CHECK_OK(hodu_session_reset(graph));
  CHECK(hodu_session_get_state(graph) == HODU_SESSION_RESET);
  CHECK_ERROR(hodu_session_replay(graph, 1), HODU_INVALID_STATE,
              "in state reset: its recording was freed by reset");
  CHECK_OK(hodu_session_write_meta_slot(graph, 1, &zero, 4));
  CHECK_OK(hodu_session_capture(graph));
  CHECK_OK(hodu_session_replay(graph, 1));
  CHECK_OK(hodu_tensor_read(out_y[1], restored, sizeof restored));
  CHECK(same(restored, base, N));
  (void)t;

  /* Replay costs fewer submissions per run than eager runs. */
  hodu_session_stats stats;
  memset(&stats, 0, sizeof stats);
  stats.struct_size = sizeof stats;
  CHECK_OK(hodu_session_get_stats(graph, &stats));
  CHECK(stats.runs == 1 && stats.replays == (uint64_t)n + 4);
  CHECK(stats.captures == 2);
  CHECK(stats.replay_submissions <= stats.replays);
  CHECK(stats.run_commands > 0);

  for (int s = 0; s < 2; ++s) {
    hodu_session_free(sessions[s]);
    hodu_tensor_free(in[s]);
    hodu_tensor_free(out_y[s]);
    hodu_tensor_free(out_t[s]);
  }
}

static void test_vulkan_contracts(void) {
  hodu_model *model = load_vulkan("contract.hodu");
  if (!model)
    return;
  contracts(model, 0);
  contracts(model, 1);
  hodu_model_free(model);
}

/* One replay call of many runs is few submissions: the capture is
 * resubmitted in batches. */
static void test_vulkan_replay_batches(void) {
  hodu_model *model = load_vulkan("batches.hodu");
  if (!model)
    return;
  hodu_session *session = NULL;
  hodu_tensor *x = NULL, *y = NULL, *t = NULL;
  CHECK_OK(hodu_model_create_device_input(model, 0, &x));
  CHECK_OK(hodu_model_create_device_output(model, 0, &y));
  CHECK_OK(hodu_model_create_device_output(model, 1, &t));
  CHECK_OK(hodu_session_create(model, &session));
  hodu_tensor *outs[] = {y, t};
  CHECK_OK(
      hodu_session_bind(session, (const hodu_tensor *const *)&x, 1, outs, 2));
  CHECK_OK(hodu_session_run(session));
  CHECK_OK(hodu_session_capture(session));
  CHECK_OK(hodu_session_replay(session, 200));
  float step = 0;
  CHECK_OK(hodu_session_read_meta_slot(session, 1, &step, 4));
  CHECK(step == 201.0f);
  hodu_session_stats stats;
  memset(&stats, 0, sizeof stats);
  stats.struct_size = sizeof stats;
  CHECK_OK(hodu_session_get_stats(session, &stats));
  CHECK(stats.replays == 200 && stats.replay_submissions == 4);
  CHECK(stats.run_submissions == 1 && stats.run_commands == 15);
  hodu_session_free(session);
  hodu_tensor_free(x);
  hodu_tensor_free(y);
  hodu_tensor_free(t);
  hodu_model_free(model);
}

/* hodu_model_run on one Vulkan model from several threads at once, each
 * with its own data (the model's session cache and the device's queue lock
 * at work). */
#include <pthread.h>
typedef struct worker_args {
  hodu_model *model;
  float base;
  int ok;
} worker_args;

static void *vulkan_worker(void *opaque) {
  worker_args *w = opaque;
  float x[N], y[N], t[N], want_y[N], want_t[N];
  fill_x(x, w->base);
  expected(x, 2.0f, 1.0f, want_y, want_t);
  int64_t shape[] = {N};
  hodu_tensor *in = NULL, *out_y = NULL, *out_t = NULL;
  hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, x, sizeof x, &in);
  hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, y, sizeof y, &out_y);
  hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, t, sizeof t, &out_t);
  hodu_tensor *outs[] = {out_y, out_t};
  w->ok = 1;
  for (int run = 0; run < 40 && w->ok; ++run) {
    memset(y, 0, sizeof y);
    hodu_status status =
        hodu_model_run(w->model, (const hodu_tensor *const *)&in, 1, outs, 2);
    w->ok = !status && same(y, want_y, N) && same(t, want_t, N);
    hodu_status_free(status);
  }
  hodu_tensor_free(in);
  hodu_tensor_free(out_y);
  hodu_tensor_free(out_t);
  return NULL;
}

static void test_vulkan_concurrent_runs(void) {
  hodu_model *model = load_vulkan("concurrent.hodu");
  if (!model)
    return;
  enum { THREADS = 4 };
  pthread_t threads[THREADS];
  worker_args args[THREADS];
  for (int i = 0; i < THREADS; ++i) {
    args[i] = (worker_args){model, (float)i * 10.0f, 0};
    pthread_create(&threads[i], NULL, vulkan_worker, &args[i]);
  }
  for (int i = 0; i < THREADS; ++i) {
    pthread_join(threads[i], NULL);
    CHECK(args[i].ok);
  }
  hodu_model_free(model);
}

/* Bundles the device cannot run are refused at load with a reason. */
static void test_vulkan_errors(void) {
  size_t spirv_size;
  uint8_t *spirv = spirv_bytes(&spirv_size);
  if (!spirv)
    return ++failures, (void)0;
  hodu_model *model = NULL;
  /* An entry point the module does not have. */
  uint8_t *renamed = malloc(spirv_size);
  memcpy(renamed, spirv, spirv_size);
  for (size_t i = 0; i + 5 < spirv_size; ++i)
    if (memcmp(renamed + i, "finish", 6) == 0)
      memcpy(renamed + i, "finisH", 6);
  size_t size;
  uint8_t *data =
      contract_bundle(HODU_DEVICE_VULKAN, renamed, spirv_size, &size);
  const char *path = work_path("renamed.hodu");
  CHECK(tb_write_file(path, data, size) == 0);
  CHECK_ERROR(hodu_model_load(path, &model), HODU_INVALID_ARTIFACT,
              "kernel 'finish' is not a compute entry point of its SPIR-V "
              "module (entry points: 'mul_w', 'step_inc', 'finisH')");
  free(data);
  /* A capability Vulkan does not have (Kernel), patched over Shader. */
  memcpy(renamed, spirv, spirv_size);
  uint32_t words[2] = {(2u << 16) | 17u, 1u}; /* OpCapability Shader */
  for (size_t i = 20; i + 8 <= spirv_size; i += 4)
    if (memcmp(renamed + i, words, 8) == 0) {
      words[1] = 6; /* Kernel */
      memcpy(renamed + i, words, 8);
      break;
    }
  data = contract_bundle(HODU_DEVICE_VULKAN, renamed, spirv_size, &size);
  CHECK(tb_write_file(path, data, size) == 0);
  CHECK_ERROR(hodu_model_load(path, &model), HODU_INCOMPATIBLE,
              "declare SPIR-V capability Kernel, which Hodu's Vulkan runtime "
              "does not support");
  free(data);
  /* A SPIR-V version newer than the device takes. */
  memcpy(renamed, spirv, spirv_size);
  uint32_t version = 0x00016300u;
  memcpy(renamed + 4, &version, 4);
  data = contract_bundle(HODU_DEVICE_VULKAN, renamed, spirv_size, &size);
  CHECK(tb_write_file(path, data, size) == 0);
  CHECK_ERROR(hodu_model_load(path, &model), HODU_INCOMPATIBLE,
              "its SPIR-V is version 1.99");
  free(data);
  /* A device kind the bundle was not compiled for, and an ordinal beyond
   * the machine's devices. */
  data = contract_bundle(HODU_DEVICE_VULKAN, spirv, spirv_size, &size);
  CHECK(tb_write_file(path, data, size) == 0);
  hodu_load_options options;
  hodu_load_options_init(&options);
  options.device_kind = HODU_DEVICE_CUDA;
  CHECK_ERROR(hodu_model_load_with_options(path, &options, &model),
              HODU_INCOMPATIBLE,
              "cannot run on cuda: it was compiled for "
              "vulkan");
  options.device_kind = HODU_DEVICE_VULKAN;
  options.device_ordinal = 99;
  CHECK_ERROR(hodu_model_load_with_options(path, &options, &model),
              HODU_NO_DEVICE, "no Vulkan device 99: this machine has");
  options.device_ordinal = 0;
  CHECK_OK(hodu_model_load_with_options(path, &options, &model));
  CHECK(model && hodu_model_device_ordinal(model) == 0);
  hodu_model_free(model);
  free(data);
  free(renamed);
  free(spirv);
}

/*===--------------------------------------------------------------------===*
 * A heterogeneous plan: a CPU partition (an ELF code object called by
 * HOST_CALL), a TRANSFER to the Vulkan device, a COPY there.
 *   x (input, on the CPU) --twice--> CPU arena --TRANSFER--> Vulkan arena
 *   --COPY--> y (output, on Vulkan)
 *===--------------------------------------------------------------------===*/

static uint8_t *heterogeneous_bundle(const char *host_kernel, size_t *size) {
  char path[1100];
  snprintf(path, sizeof path, "%.*s/host_kernels.so",
           (int)(strrchr(spirv_path, '/')
                     ? strrchr(spirv_path, '/') - spirv_path
                     : 1),
           strrchr(spirv_path, '/') ? spirv_path : ".");
  size_t elf_size;
  uint8_t *elf = read_all(path, &elf_size);
  if (!elf) {
    fprintf(stderr, "cannot read '%s'\n", path);
    return NULL;
  }
  tb_bundle *b = tb_new("hetero");
  uint32_t gpu = tb_device(b, HODU_DEVICE_VULKAN, 256);
  uint32_t cpu = tb_device(b, HODU_DEVICE_CPU, 256);
  int64_t shape[] = {N};
  tb_input(b, "x", HODU_DTYPE_F32, 1, shape, cpu);
  tb_output(b, "y", HODU_DTYPE_F32, 1, shape, gpu);
  tb_code(b, cpu, HODU_CODE_ELF, "", elf, elf_size);
  uint32_t twice = tb_kernel(b, host_kernel, cpu, 1, 1, 1, 2, 0);
  uint32_t a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_INPUT, 0, 0, N * 4);
  tb_arg(b, HODU_SPACE_ARENA, cpu, 0, N * 4);
  tb_step(b, HODU_STEP_HOST_CALL, cpu, twice, 1, 1, 1, a, 2);
  a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_ARENA, cpu, 0, N * 4);
  tb_arg(b, HODU_SPACE_ARENA, gpu, 0, N * 4);
  tb_step(b, HODU_STEP_TRANSFER, gpu, 0, 1, 1, 1, a, 2);
  a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_ARENA, gpu, 0, N * 4);
  tb_arg(b, HODU_SPACE_OUTPUT, 0, 0, N * 4);
  tb_step(b, HODU_STEP_COPY, gpu, 0, 1, 1, 1, a, 2);
  uint8_t *data = tb_finish(b, size);
  tb_free(b);
  free(elf);
  return data;
}

static void test_heterogeneous(void) {
  size_t size;
  uint8_t *data = heterogeneous_bundle("twice", &size);
  if (!data)
    return ++failures, (void)0;
  const char *path = work_path("hetero.hodu");
  CHECK(tb_write_file(path, data, size) == 0);
  free(data);
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_load(path, &model));
  if (!model)
    return;
  CHECK(hodu_model_device_kind(model) == HODU_DEVICE_VULKAN);
  float x[N], y[N];
  fill_x(x, 1.0f);
  int64_t shape[] = {N};
  hodu_tensor *in = NULL, *out = NULL;
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, x, sizeof x, &in));
  CHECK_OK(hodu_model_create_device_output(model, 0, &out));
  CHECK(hodu_tensor_device_kind(out) == HODU_DEVICE_VULKAN);
  /* The input lives on the CPU partition: a host tensor, bound directly. */
  CHECK_OK(hodu_model_run(model, (const hodu_tensor *const *)&in, 1, &out, 1));
  CHECK_OK(hodu_tensor_read(out, y, sizeof y));
  for (int i = 0; i < N; ++i)
    CHECK(y[i] == 2.0f * x[i]);
  /* Capture and replay across the partitions (segments: a CPU program, a
   * transfer, a Vulkan program). */
  hodu_session *session = NULL;
  CHECK_OK(hodu_session_create(model, &session));
  CHECK_OK(
      hodu_session_bind(session, (const hodu_tensor *const *)&in, 1, &out, 1));
  CHECK_OK(hodu_session_run(session));
  CHECK_OK(hodu_session_capture(session));
  fill_x(x, 5.0f); /* the captured CPU step reads x where it is */
  CHECK_OK(hodu_session_replay(session, 3));
  CHECK_OK(hodu_tensor_read(out, y, sizeof y));
  CHECK(y[3] == 2.0f * x[3]);
  hodu_session_free(session);
  hodu_tensor_free(in);
  hodu_tensor_free(out);
  hodu_model_free(model);

  /* A host call that fails is RUN_FAILED with the step's kind. */
  data = heterogeneous_bundle("refuse", &size);
  CHECK(tb_write_file(path, data, size) == 0);
  free(data);
  CHECK_OK(hodu_model_load(path, &model));
  hodu_tensor *in2 = NULL, *out2 = NULL;
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, x, sizeof x, &in2));
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 1, shape, &out2));
  CHECK_ERROR(
      hodu_model_run(model, (const hodu_tensor *const *)&in2, 1, &out2, 1),
      HODU_RUN_FAILED, "model 'hetero' failed: its host call returned 7");
  hodu_tensor_free(in2);
  hodu_tensor_free(out2);
  hodu_model_free(model);
  /* A kernel the ELF object does not export. */
  data = heterogeneous_bundle("missing_symbol", &size);
  CHECK(tb_write_file(path, data, size) == 0);
  free(data);
  CHECK_ERROR(hodu_model_load(path, &model), HODU_INVALID_ARTIFACT,
              "kernel 'missing_symbol' is not exported by the CPU code object");
}

/*===--------------------------------------------------------------------===*
 * CUDA and HIP: the driver paths that run on every machine
 *===--------------------------------------------------------------------===*/

static const char ptx[] =
    "//\n.version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry mul_w(.param .u64 a, .param .u64 b, .param .u64 c)\n"
    "{ ret; }\n";

/* Without libcuda.so.1 (every machine without an NVIDIA driver), CUDA is a
 * NO_DEVICE status with the library's name, never an abort. Where a driver
 * is installed, the device count and a load go through it. */
static void test_cuda_no_driver(void) {
  int32_t count = -1;
  hodu_status status = hodu_device_count(HODU_DEVICE_CUDA, &count);
  size_t size;
  uint8_t *data = contract_bundle(HODU_DEVICE_CUDA, ptx, sizeof ptx, &size);
  const char *path = work_path("cuda.hodu");
  CHECK(tb_write_file(path, data, size) == 0);
  free(data);
  hodu_model *model = NULL;
  hodu_status load = hodu_model_load(path, &model);
  if (status) {
    CHECK(hodu_status_get_code(status) == HODU_NO_DEVICE);
    CHECK(strstr(hodu_status_message(status), "libcuda.so.1") ||
          strstr(hodu_status_message(status), "no CUDA device"));
    CHECK(hodu_status_get_code(load) == HODU_NO_DEVICE);
    printf("CUDA: %s\n", hodu_status_message(load));
  } else {
    printf("CUDA: %d device(s); load: %s\n", (int)count,
           hodu_status_message(load));
  }
  hodu_status_free(status);
  hodu_status_free(load);
  hodu_model_free(model);
}

/* A bundle loaded for inspection only (hodu_load_options.inspect_only)
 * opens no device, whether or not one is there: its signature and plan
 * are readable, the device queries give the plan's kind, the requested
 * ordinal and no name, and running it, a session or a device tensor is
 * INVALID_STATE (host tensors shaped like its inputs still work). */
static void test_inspect_only(void) {
  size_t size;
  uint8_t *data = contract_bundle(HODU_DEVICE_CUDA, ptx, sizeof ptx, &size);
  const char *path = work_path("inspect.hodu");
  CHECK(tb_write_file(path, data, size) == 0);
  free(data);
  hodu_load_options options;
  hodu_load_options_init(&options);
  CHECK(options.inspect_only == 0);
  options.inspect_only = 1;
  options.device_ordinal = 3;
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_load_with_options(path, &options, &model));
  if (!model)
    return;
  CHECK(hodu_model_is_bundle(model));
  CHECK(strcmp(hodu_model_name(model), "contract") == 0);
  CHECK(strcmp(hodu_model_target(model), "cuda") == 0);
  CHECK(hodu_model_device_kind(model) == HODU_DEVICE_CUDA);
  CHECK(hodu_model_device_ordinal(model) == 3);
  CHECK(strcmp(hodu_model_device_name(model), "") == 0);
  CHECK(hodu_model_num_inputs(model) >= 1);
  CHECK(hodu_model_plan_count(model, HODU_BUNDLE_SECTION_KERNELS) >= 1);
  hodu_tensor *input = NULL;
  CHECK_OK(hodu_model_create_input(model, 0, &input));
  hodu_tensor *device = NULL;
  CHECK_ERROR(hodu_model_create_device_input(model, 0, &device),
              HODU_INVALID_STATE, "loaded for inspection only");
  CHECK_ERROR(hodu_model_create_device_tensor(model, HODU_DTYPE_F32, 1,
                                              (const int64_t[]){4}, &device),
              HODU_INVALID_STATE, "opened no device to run on");
  hodu_session *session = NULL;
  CHECK_ERROR(hodu_session_create(model, &session), HODU_INVALID_STATE,
              "model 'contract' was loaded for inspection only");
  hodu_tensor *outputs[8] = {NULL};
  CHECK_ERROR(hodu_model_run_alloc(model, (const hodu_tensor *const *)&input,
                                   1, outputs,
                                   (size_t)hodu_model_num_outputs(model)),
              HODU_INVALID_STATE, "loaded for inspection only");
  hodu_tensor_free(input);
  hodu_model_free(model);
}

/* With libamdhip64 installed and no AMD GPU, HIP loads, counts no device
 * and refuses a HIP bundle with NO_DEVICE. */
static void test_hip_no_device(void) {
  int32_t count = -1;
  hodu_status status = hodu_device_count(HODU_DEVICE_HIP, &count);
  size_t size;
  static const uint8_t elf[] = "\177ELF not really a code object";
  uint8_t *data = contract_bundle(HODU_DEVICE_HIP, elf, sizeof elf, &size);
  const char *path = work_path("hip.hodu");
  CHECK(tb_write_file(path, data, size) == 0);
  free(data);
  hodu_model *model = NULL;
  hodu_status load = hodu_model_load(path, &model);
  printf("HIP: %s\n",
         status ? hodu_status_message(status) : hodu_status_message(load));
  if (!status && count == 0)
    CHECK(hodu_status_get_code(load) == HODU_NO_DEVICE &&
          strstr(hodu_status_message(load), "no HIP device: libamdhip64"));
  else if (status)
    CHECK(hodu_status_get_code(status) == HODU_NO_DEVICE &&
          hodu_status_get_code(load) == HODU_NO_DEVICE);
  hodu_status_free(status);
  hodu_status_free(load);
  hodu_model_free(model);
}

/* This machine's HIP: libamdhip64 must be there (scripts/setup.sh installs
 * it for the tests) so that the "library present, no device" path runs. */
static void test_hip_library_present(void) {
  int32_t count = -1;
  hodu_status status = hodu_device_count(HODU_DEVICE_HIP, &count);
  if (status)
    fprintf(stderr, "HIP runtime missing (install libamdhip64-5): %s\n",
            hodu_status_message(status));
  CHECK(status == NULL);
  hodu_status_free(status);
}

/*===--------------------------------------------------------------------===*
 * CPU: sessions and meta slots of a shared-library style model
 *===--------------------------------------------------------------------===*/

/* y = x * scale, with scale a meta slot (the last input), initially 2. */
static int32_t scale_entry(void *const *inputs, void *const *outputs,
                           void *ctx) {
  (void)ctx;
  const float *x = inputs[0], *scale = inputs[1];
  float *y = outputs[0];
  for (int i = 0; i < 4; ++i)
    y[i] = x[i] * scale[0];
  return 0;
}
static const int64_t four[] = {4}, single[] = {1};
static const hodu_tensor_desc scale_inputs[] = {
    {"x", HODU_DTYPE_F32, 1, four}, {"scale", HODU_DTYPE_F32, 1, single}};
static const hodu_tensor_desc scale_outputs[] = {
    {"y", HODU_DTYPE_F32, 1, four}};
static const float scale_init[] = {2.0f};
static const void *const scale_inits[] = {scale_init};
static const hodu_model_desc scale_desc = {HODU_ABI_VERSION,
                                           sizeof(hodu_model_desc),
                                           "scaled",
                                           "cpu",
                                           2,
                                           1,
                                           scale_inputs,
                                           scale_outputs,
                                           scale_entry,
                                           0,
                                           1,
                                           scale_inits};

static void test_cpu_contracts(void) {
  hodu_model *model = NULL;
  CHECK_OK(hodu_model_from_descriptor(&scale_desc, &model));
  if (!model)
    return;
  CHECK(hodu_model_num_inputs(model) == 1);
  CHECK(hodu_model_num_meta_slots(model) == 1);
  CHECK(strcmp(hodu_model_meta_slot_name(model, 0), "scale") == 0);
  CHECK(hodu_model_device_kind(model) == HODU_DEVICE_CPU);
  float x[4] = {1, 2, 3, 4}, y[4];
  int64_t shape[] = {4};
  hodu_tensor *in = NULL, *out = NULL;
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, x, sizeof x, &in));
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, y, sizeof y, &out));
  /* hodu_model_run binds the slot's initial value. */
  CHECK_OK(hodu_model_run(model, (const hodu_tensor *const *)&in, 1, &out, 1));
  CHECK(y[3] == 8.0f);
  hodu_session *session = NULL;
  CHECK_OK(hodu_session_create(model, &session));
  CHECK_ERROR(hodu_session_run(session), HODU_INVALID_STATE,
              "has no tensors bound");
  CHECK_OK(
      hodu_session_bind(session, (const hodu_tensor *const *)&in, 1, &out, 1));
  CHECK_ERROR(hodu_session_capture(session), HODU_INVALID_STATE,
              "in state created");
  CHECK_OK(hodu_session_run(session));
  CHECK_OK(hodu_session_capture(session));
  float three = 3.0f, two = 2.0f;
  memset(y, 0, sizeof y);
  CHECK_OK(hodu_session_replay(session, 4));
  CHECK(y[3] == 8.0f);
  CHECK_OK(hodu_session_write_meta_slot_named(session, "scale", &three, 4));
  CHECK_OK(hodu_session_replay(session, 1));
  CHECK(y[3] == 12.0f);
  CHECK_OK(hodu_session_write_meta_slot(session, 0, &two, 4));
  CHECK_OK(hodu_session_replay(session, 1));
  CHECK(y[3] == 8.0f);
  /* Captured host addresses: rebinding other memory needs a reset. */
  float other_y[4];
  hodu_tensor *other = NULL;
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, other_y, sizeof other_y,
                            &other));
  CHECK_ERROR(
      hodu_session_bind(session, (const hodu_tensor *const *)&in, 1, &other, 1),
      HODU_INVALID_STATE, "reset it before binding other tensors");
  CHECK_OK(hodu_session_reset(session));
  CHECK_ERROR(hodu_session_replay(session, 1), HODU_INVALID_STATE,
              "in state reset");
  CHECK_OK(hodu_session_bind(session, (const hodu_tensor *const *)&in, 1,
                             &other, 1));
  CHECK_OK(hodu_session_capture(session));
  CHECK_OK(hodu_session_replay(session, 2));
  CHECK(other_y[0] == 2.0f);
  /* Device tensors of a CPU model are host tensors. */
  hodu_tensor *device = NULL;
  CHECK_OK(hodu_model_create_device_input(model, 0, &device));
  CHECK(device && hodu_tensor_data(device) != NULL);
  CHECK(hodu_tensor_device_kind(device) == HODU_DEVICE_CPU);
  hodu_tensor_free(device);
  /* A CPU artifact on another device is refused by name. */
  hodu_session_free(session);
  hodu_tensor_free(other);
  hodu_tensor_free(in);
  hodu_tensor_free(out);
  hodu_model_free(model);
}

/* Writes the valid bundles as a seed corpus for the fuzzer. */
static void test_write_corpus(void) {
  size_t size;
  uint8_t *data = vulkan_bundle(&size);
  if (!data)
    return ++failures, (void)0;
  CHECK(tb_write_file(work_path("seed-vulkan.hodu"), data, size) == 0);
  free(data);
  data = contract_bundle(HODU_DEVICE_CUDA, ptx, sizeof ptx, &size);
  CHECK(tb_write_file(work_path("seed-cuda.hodu"), data, size) == 0);
  free(data);
  /* A padded symbol with a variant (format 1.6): the fuzzer mutates
   * SYMBOLS, DYNAMIC_DIMS, VARIANTS and VARIANT_STEPS too. */
  data = variant_bundle(32, 0, 1, 0, 1, &size);
  CHECK(data && tb_write_file(work_path("seed-variants.hodu"), data, size) == 0);
  free(data);
}

/* Writes bundles for the lit tests of hodu-run (test/Runtime/bundle*.test):
 * vulkan.hodu, cuda.hodu, hip.hodu and a truncated one. */
static void test_write_bundles(void) {
  size_t size, spirv_size;
  uint8_t *spirv = spirv_bytes(&spirv_size);
  if (!spirv)
    return ++failures, (void)0;
  uint8_t *data = contract_bundle(HODU_DEVICE_VULKAN, spirv, spirv_size, &size);
  CHECK(tb_write_file(work_path("vulkan.hodu"), data, size) == 0);
  CHECK(tb_write_file(work_path("truncated.hodu"), data, size / 2) == 0);
  free(data);
  data = contract_bundle(HODU_DEVICE_CUDA, ptx, sizeof ptx, &size);
  CHECK(tb_write_file(work_path("cuda.hodu"), data, size) == 0);
  free(data);
  static const uint8_t elf[] = "\177ELF not really a code object";
  data = contract_bundle(HODU_DEVICE_HIP, elf, sizeof elf, &size);
  CHECK(tb_write_file(work_path("hip.hodu"), data, size) == 0);
  free(data);
  free(spirv);
}

static const struct {
  const char *name;
  void (*run)(void);
} tests[] = {
    {"write_bundles", test_write_bundles},
    {"reader_valid", test_reader_valid},
    {"reader_truncated", test_reader_truncated},
    {"reader_bit_flips", test_reader_bit_flips},
    {"reader_rules", test_reader_rules},
    {"reader_symbols", test_reader_symbols},
    {"reader_minor3_symbols", test_reader_minor3_symbols},
    {"reader_padded", test_reader_padded},
    {"reader_variants", test_reader_variants},
    {"reader_two_symbols", test_reader_two_symbols},
    {"reader_four_padded", test_reader_four_padded},
    {"reader_files", test_reader_files},
    {"vulkan_run", test_vulkan_run},
    {"vulkan_device_tensors", test_vulkan_device_tensors},
    {"vulkan_contracts", test_vulkan_contracts},
    {"vulkan_replay_batches", test_vulkan_replay_batches},
    {"vulkan_errors", test_vulkan_errors},
    {"vulkan_concurrent_runs", test_vulkan_concurrent_runs},
    {"heterogeneous", test_heterogeneous},
    {"cuda_no_driver", test_cuda_no_driver},
    {"inspect_only", test_inspect_only},
    {"hip_no_device", test_hip_no_device},
    {"hip_library_present", test_hip_library_present},
    {"cpu_contracts", test_cpu_contracts},
    {"write_corpus", test_write_corpus},
};

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HODURT_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define HODURT_TEST_ASAN 1
#endif

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s TEST SPIRV WORKDIR\n", argv[0]);
    return 2;
  }
#ifdef HODURT_TEST_ASAN
  /* Mesa 22.3's lavapipe keeps a few allocations reachable only from its
     own data; when the Vulkan loader unloads it (vkDestroyInstance),
     LeakSanitizer finds them unreachable and reports leaks of an unknown
     module (128 bytes per instance on an AMD EPYC host; none on an Intel
     one). Kept loaded, they stay reachable; the runtime's own leaks are
     still reported. */
  (void)dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
#endif
  spirv_path = argv[2];
  work_dir = argv[3];
  /* mkdir -p */
  char partial[1024];
  for (size_t i = 1; work_dir[i - 1] && i < sizeof partial; ++i)
    if (work_dir[i] == '/' || work_dir[i] == '\0') {
      memcpy(partial, work_dir, i);
      partial[i] = '\0';
      mkdir(partial, 0755);
    }
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; ++i)
    if (strcmp(argv[1], tests[i].name) == 0) {
      tests[i].run();
      if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
      return failures ? 1 : 0;
    }
  fprintf(stderr, "unknown test '%s'\n", argv[1]);
  return 2;
}
