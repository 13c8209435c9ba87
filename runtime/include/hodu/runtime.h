/*===- hodu/runtime.h - the Hodu C runtime (libhodurt) ---------------------===*
 *
 * libhodurt loads models compiled by `hoduc` and runs them. Plain C11; link
 * with -lhodurt (shared) or libhodurt.a plus -ldl (static).
 *
 * A complete program (test/runtime-unit builds and runs this very text, so
 * it stays true). It loads a model with one f32 input, fills the input with
 * 1.0, runs the model and prints the first value of every output:
 *
 * HODU_EXAMPLE_BEGIN
#include <hodu/runtime.h>
#include <stdio.h>

static int fail(hodu_status status) {
  fprintf(stderr, "error: %s\n", hodu_status_message(status));
  hodu_status_free(status);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL.so\n", argv[0]);
    return 2;
  }
  hodu_model *model = NULL;
  hodu_status status = hodu_model_load(argv[1], &model);
  if (status)
    return fail(status);
  printf("model '%s' for '%s': %d input(s), %d output(s)\n",
         hodu_model_name(model), hodu_model_target(model),
         hodu_model_num_inputs(model), hodu_model_num_outputs(model));

  // One runtime-owned tensor per input, shaped as the model wants it.
  int32_t num_inputs = hodu_model_num_inputs(model);
  hodu_tensor *inputs[8] = {NULL};
  for (int32_t i = 0; i < num_inputs && i < 8 && !status; ++i) {
    status = hodu_model_create_input(model, i, &inputs[i]);
    if (!status && hodu_tensor_dtype(inputs[i]) == HODU_DTYPE_F32) {
      float *data = (float *)hodu_tensor_data(inputs[i]);
      for (int64_t k = 0; k < hodu_tensor_num_elements(inputs[i]); ++k)
        data[k] = 1.0f;
    }
  }

  // Run; the runtime allocates the outputs, which we then own.
  int32_t num_outputs = hodu_model_num_outputs(model);
  hodu_tensor *outputs[8] = {NULL};
  if (!status)
    status = hodu_model_run_alloc(model, (const hodu_tensor *const *)inputs,
                                  (size_t)num_inputs, outputs,
                                  (size_t)num_outputs);
  for (int32_t i = 0; i < num_outputs && i < 8 && !status; ++i) {
    printf("%s: %s, %lld elements", hodu_model_output_name(model, i),
           hodu_dtype_name(hodu_tensor_dtype(outputs[i])),
           (long long)hodu_tensor_num_elements(outputs[i]));
    if (hodu_tensor_dtype(outputs[i]) == HODU_DTYPE_F32 &&
        hodu_tensor_num_elements(outputs[i]) > 0)
      printf(", first %g", ((const float *)hodu_tensor_data(outputs[i]))[0]);
    printf("\n");
  }

  for (int i = 0; i < 8; ++i) {
    hodu_tensor_free(inputs[i]);
    hodu_tensor_free(outputs[i]);
  }
  hodu_model_free(model);
  return status ? fail(status) : 0;
}
 * HODU_EXAMPLE_END
 *
 * Conventions:
 *  - Every fallible function returns a `hodu_status`: NULL means success,
 *    anything else is an error the caller owns and releases with
 *    hodu_status_free(). The library never aborts and never prints.
 *  - Out-parameters are written only on success (they are set to NULL first
 *    where they are pointers, so a failed call leaves nothing to free).
 *  - "Borrowed" results live as long as the object they came from; never
 *    free them. Every `*_free` function accepts NULL.
 *  - A hodu_model is immutable once created (apart from an internal,
 *    lock-free cache of run workspaces): any number of threads may run
 *    and query one model at once. A hodu_tensor is not synchronized; do not
 *    write it from one thread while another reads it.
 *
 * The full reference is docs/runtime.md.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_H
#define HODU_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "hodu/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define HODU_API
#elif defined(__GNUC__)
#define HODU_API __attribute__((visibility("default")))
#else
#define HODU_API
#endif

/*===--------------------------------------------------------------------===*
 * Version
 *===--------------------------------------------------------------------===*/

#define HODU_RUNTIME_VERSION "0.1.0"

/* The runtime's version string, e.g. "0.1.0". Static; never free it. */
HODU_API const char *hodu_runtime_version(void);

/* The artifact ABI version this runtime accepts (HODU_ABI_VERSION of the
 * abi.h it was built with). */
HODU_API uint32_t hodu_runtime_abi_version(void);

/*===--------------------------------------------------------------------===*
 * Status
 *===--------------------------------------------------------------------===*/

typedef enum hodu_status_code {
  HODU_OK = 0,
  HODU_INVALID_ARGUMENT = 1, /* a NULL pointer, a bad rank, dtype, size ... */
  HODU_NOT_FOUND = 2,        /* a missing file, symbol or tensor name */
  HODU_INVALID_ARTIFACT = 3, /* not a Hodu artifact, or a corrupt one */
  HODU_INCOMPATIBLE = 4,     /* an artifact built for another ABI version */
  HODU_MISMATCH = 5,         /* tensors that do not fit the model */
  HODU_RUN_FAILED = 6,       /* the compiled code reported a failure */
  HODU_OUT_OF_MEMORY = 7
} hodu_status_code;

/* An error: NULL means OK. Owned by whoever received it. */
typedef struct hodu_status_s *hodu_status;

/* The code of `status`; HODU_OK for NULL. */
HODU_API hodu_status_code hodu_status_get_code(hodu_status status);

/* The message of `status`, "OK" for NULL. Borrowed: valid until
 * hodu_status_free(status). */
HODU_API const char *hodu_status_message(hodu_status status);

/* The name of a code, e.g. "NOT_FOUND". Static. */
HODU_API const char *hodu_status_code_name(hodu_status_code code);

/* Releases `status`. Accepts NULL. */
HODU_API void hodu_status_free(hodu_status status);

/*===--------------------------------------------------------------------===*
 * Element types (hodu_dtype is defined in hodu/abi.h)
 *===--------------------------------------------------------------------===*/

/* Upstream Hodu's name of `dtype` ("bool", "f8e4m3", "f8e5m2", "bf16",
 * "f16", "f32", "f64", "u8" ... "u64", "i8" ... "i64"), or NULL for a value
 * that is not a hodu_dtype. Static. */
HODU_API const char *hodu_dtype_name(hodu_dtype dtype);

/* Parses an upstream name (exact, lower case) into `*dtype`. Returns 1 on
 * success, 0 for an unknown name (then `*dtype` is untouched). */
HODU_API int hodu_dtype_from_name(const char *name, hodu_dtype *dtype);

/* Bytes per element (bool takes one byte), or 0 for an invalid dtype. */
HODU_API size_t hodu_dtype_size(hodu_dtype dtype);

/*===--------------------------------------------------------------------===*
 * Threads
 *===--------------------------------------------------------------------===*/

/* Sets how many threads a run may use; 0 (the default) lets the runtime
 * choose (the number of online CPUs). Process-wide; read at the start of
 * every run and handed to the compiled code through its `ctx` argument.
 * Thread-safe. Negative values are refused. */
HODU_API hodu_status hodu_runtime_set_num_threads(int32_t num_threads);

/* The value last set (0 = automatic). */
HODU_API int32_t hodu_runtime_get_num_threads(void);

/*===--------------------------------------------------------------------===*
 * Tensors
 *===--------------------------------------------------------------------===*/

/* A dense, row-major tensor: dtype, shape and a data buffer. */
typedef struct hodu_tensor hodu_tensor;

/* Creates a tensor whose zero-filled buffer the runtime allocates (64-byte
 * aligned) and owns. `shape` holds `rank` non-negative extents (copied; may
 * be NULL when rank is 0, a scalar). On success `*out` is yours: release it
 * with hodu_tensor_free(), which frees the buffer too. */
HODU_API hodu_status hodu_tensor_create(hodu_dtype dtype, int32_t rank,
                                        const int64_t *shape,
                                        hodu_tensor **out);

/* Creates a tensor over caller-owned memory, without copying. `data` must
 * hold at least the tensor's byte size in `bytes` and be aligned to the
 * element size; it may be NULL only when the tensor has no elements. The
 * caller keeps owning `data` and must keep it alive until the tensor is
 * freed; hodu_tensor_free() releases only the tensor object. Outputs run
 * into a wrapped tensor are written straight into `data`. */
HODU_API hodu_status hodu_tensor_wrap(hodu_dtype dtype, int32_t rank,
                                      const int64_t *shape, void *data,
                                      size_t bytes, hodu_tensor **out);

/* Releases a tensor (and its buffer when the runtime owns it). NULL is ok. */
HODU_API void hodu_tensor_free(hodu_tensor *tensor);

/* Getters. Borrowed results live as long as the tensor. */
HODU_API void *hodu_tensor_data(const hodu_tensor *tensor);
HODU_API size_t hodu_tensor_bytes(const hodu_tensor *tensor); /* data size */
HODU_API hodu_dtype hodu_tensor_dtype(const hodu_tensor *tensor);
HODU_API int32_t hodu_tensor_rank(const hodu_tensor *tensor);
HODU_API const int64_t *hodu_tensor_shape(const hodu_tensor *tensor);
HODU_API int64_t hodu_tensor_num_elements(const hodu_tensor *tensor);
/* 1 when the runtime owns the buffer (hodu_tensor_create), 0 if wrapped. */
HODU_API int hodu_tensor_owns_data(const hodu_tensor *tensor);

/*===--------------------------------------------------------------------===*
 * Models
 *===--------------------------------------------------------------------===*/

/* A loaded model: its descriptor and, for loaded files, the library. */
typedef struct hodu_model hodu_model;

/* Loads a compiled model from a shared library (dlopen, then dlsym of
 * HODU_DESCRIPTOR_SYMBOL). A path without '/' is taken relative to the
 * current directory, not searched on LD_LIBRARY_PATH. Errors: NOT_FOUND
 * (no such file), INVALID_ARTIFACT (not a loadable library, no descriptor
 * symbol, or a malformed descriptor), INCOMPATIBLE (ABI version: the message
 * says which version was expected and which found). On success `*out` is
 * yours: release it with hodu_model_free(). */
HODU_API hodu_status hodu_model_load(const char *path, hodu_model **out);

/* Wraps a descriptor linked into the program (`<prefix>_hodu_descriptor`
 * from a static library or object made by hoduc). The descriptor is
 * borrowed and must outlive the model (it is static data in practice). It is
 * validated like a loaded one. Release `*out` with hodu_model_free(). */
HODU_API hodu_status
hodu_model_from_descriptor(const hodu_model_desc *descriptor,
                           hodu_model **out);

/* Releases a model and unloads its library (when no other hodu_model holds
 * it). Tensors are not tied to models and stay valid. NULL is ok. Do not
 * free a model while another thread runs it. */
HODU_API void hodu_model_free(hodu_model *model);

/* The model's name and target (e.g. "cpu"). Borrowed; never NULL. */
HODU_API const char *hodu_model_name(const hodu_model *model);
HODU_API const char *hodu_model_target(const hodu_model *model);

/* The descriptor the model runs (borrowed). */
HODU_API const hodu_model_desc *hodu_model_descriptor(const hodu_model *model);

HODU_API int32_t hodu_model_num_inputs(const hodu_model *model);
HODU_API int32_t hodu_model_num_outputs(const hodu_model *model);

/* Bytes of scratch memory one run needs for the model's intermediate
 * buffers (the descriptor's workspace_size; 0 for models that need none or
 * were built before workspaces existed). hodu_model_run takes it from a
 * cache of up to 8 workspaces kept with the model, so steady-state runs
 * allocate nothing; each run concurrent with others holds one workspace.
 * The cache is freed by hodu_model_free. */
HODU_API uint64_t hodu_model_workspace_size(const hodu_model *model);

/* Per-tensor queries, for 0 <= index < count. An index out of range gives
 * NULL, -1 (dtype and rank) respectively. Results are borrowed. */
HODU_API const char *hodu_model_input_name(const hodu_model *model,
                                           int32_t index);
HODU_API hodu_dtype hodu_model_input_dtype(const hodu_model *model,
                                           int32_t index);
HODU_API int32_t hodu_model_input_rank(const hodu_model *model, int32_t index);
HODU_API const int64_t *hodu_model_input_shape(const hodu_model *model,
                                               int32_t index);
HODU_API const char *hodu_model_output_name(const hodu_model *model,
                                            int32_t index);
HODU_API hodu_dtype hodu_model_output_dtype(const hodu_model *model,
                                            int32_t index);
HODU_API int32_t hodu_model_output_rank(const hodu_model *model,
                                        int32_t index);
HODU_API const int64_t *hodu_model_output_shape(const hodu_model *model,
                                                int32_t index);

/* Finds the index of the input (output) called `name`. NOT_FOUND names the
 * tensor and lists the model's names. */
HODU_API hodu_status hodu_model_input_index(const hodu_model *model,
                                            const char *name,
                                            int32_t *index);
HODU_API hodu_status hodu_model_output_index(const hodu_model *model,
                                             const char *name,
                                             int32_t *index);

/* Creates a zero-filled runtime-owned tensor shaped like input (output)
 * `index`. Release `*out` with hodu_tensor_free(). */
HODU_API hodu_status hodu_model_create_input(const hodu_model *model,
                                             int32_t index, hodu_tensor **out);
HODU_API hodu_status hodu_model_create_output(const hodu_model *model,
                                              int32_t index,
                                              hodu_tensor **out);

/* Runs the model. `inputs` and `outputs` hold one tensor per model input and
 * output, in model order; all are borrowed (the caller keeps owning them).
 * Before calling the compiled code, every count, dtype and shape is checked
 * against the model, and outputs may not overlap inputs or each other; a
 * mismatch is refused with MISMATCH and a message naming the tensor, e.g.
 * "input 'x': expected shape [1,3,224,224], got [1,3,224]". Inputs are only
 * read. On success the outputs hold the results; on failure their contents
 * are unspecified. Thread-safe: one model may run on several threads at
 * once, as long as each run has its own output tensors. */
HODU_API hodu_status hodu_model_run(const hodu_model *model,
                                    const hodu_tensor *const *inputs,
                                    size_t num_inputs,
                                    hodu_tensor *const *outputs,
                                    size_t num_outputs);

/* Like hodu_model_run(), but allocates the outputs: `outputs` is an array of
 * `num_outputs` slots (which must equal the model's output count) that
 * receives new runtime-owned tensors. On success the caller owns them and
 * frees each with hodu_tensor_free(); on failure every slot is NULL. */
HODU_API hodu_status hodu_model_run_alloc(const hodu_model *model,
                                          const hodu_tensor *const *inputs,
                                          size_t num_inputs,
                                          hodu_tensor **outputs,
                                          size_t num_outputs);

#ifdef __cplusplus
}
#endif

#endif /* HODU_RUNTIME_H */
