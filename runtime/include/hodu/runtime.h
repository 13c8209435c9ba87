/*===- hodu/runtime.h - the Hodu C runtime (libhodurt) ---------------------===*
 *
 * libhodurt loads models compiled by `hoduc` and runs them: shared libraries
 * on the CPU, bundles (hoduc --device=vulkan|cuda|rocm) on GPUs. Plain C11;
 * link with -lhodurt (shared) or libhodurt.a plus -ldl -lpthread (static).
 * GPU drivers are opened at run time; a missing one is a status.
 *
 * A complete program (test/runtime-unit builds and runs this very text, so
 * it stays true). It loads a model (a .so or a bundle), fills its f32
 * inputs with 1.0, runs it and prints the first value of every output, then
 * captures it once and replays it:
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

  // Capture once, replay: a session binds the tensors, runs once to warm
  // up, records the whole plan, and replay(3) equals three runs with no
  // per-kernel host work (a CUDA Graph, a Vulkan command buffer ...).
  hodu_session *session = NULL;
  if (!status)
    status = hodu_session_create(model, &session);
  if (!status)
    status = hodu_session_bind(session, (const hodu_tensor *const *)inputs,
                               (size_t)num_inputs, outputs,
                               (size_t)num_outputs);
  if (!status)
    status = hodu_session_run(session);
  if (!status)
    status = hodu_session_capture(session);
  if (!status)
    status = hodu_session_replay(session, 3);
  if (!status)
    printf("replayed 3 times on %s, session %s\n",
           hodu_device_kind_name(hodu_model_device_kind(model)),
           hodu_session_state_name(hodu_session_get_state(session)));
  hodu_session_free(session);

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
 *  - A hodu_model is immutable once created (apart from internal, lock-free
 *    caches of run workspaces and sessions): any number of threads may run
 *    and query one model at once. A hodu_session belongs to one thread at a
 *    time. A hodu_tensor is not synchronized; do not write it from one
 *    thread while another reads it.
 *
 * The full reference is docs/runtime.md.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_H
#define HODU_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "hodu/abi.h"
#include "hodu/bundle.h"

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
  HODU_OUT_OF_MEMORY = 7,
  HODU_INVALID_STATE = 8, /* a session call out of order (replay before
                             capture ...) */
  HODU_NO_DEVICE = 9,     /* the driver or the device is missing */
  HODU_DEVICE_ERROR = 10  /* a device API call failed (the message names it) */
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

/* The thread profile: what each parallel region of the CPU code costs and
 * how its work divides over the threads (hodu-run --thread-report).
 * hodu_runtime_set_thread_profile(1) clears the figures and starts
 * recording every fork of a run in this process; 0 stops (the figures
 * stay until the next start). While it is off a fork pays one load.
 * Negative values are refused. Thread-safe. */
HODU_API hodu_status hodu_runtime_set_thread_profile(int32_t enable);

/* One parallel region (one function of the compiled code that its team
 * runs), summed over the forks recorded. */
typedef struct hodu_thread_region {
  /* The region's function in the compiled code ("main_kernel7..omp_par"),
   * NULL where the library has no symbol for it; `code` is its address. */
  const char *name;
  const void *code;
  uint64_t calls;      /* forks of it */
  uint64_t iterations; /* its parallel loop's iterations in the last fork:
                          the units of work the threads share; 0: none */
  int32_t threads;     /* the threads of the last fork (1: run alone) */
  int32_t reserved;
  double wall_ns;    /* fork to join, at the forking thread */
  double busy_ns;    /* every thread's time in the region's code, waits
                        at barriers excluded */
  double busiest_ns; /* per fork, the busiest thread's time, summed */
} hodu_thread_region;

/* Copies up to `capacity` regions (in the order first forked) into
 * `regions` and returns how many there are. `name` points into the loaded
 * library: valid while its model is loaded. */
HODU_API size_t hodu_runtime_thread_profile(hodu_thread_region *regions,
                                            size_t capacity);

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

/* Loads a compiled model: a bundle (a file starting with HODU_BUNDLE_MAGIC;
 * validated field by field, then run on the device it was compiled for,
 * see "Devices" below) or a shared library (dlopen, then dlsym of
 * HODU_DESCRIPTOR_SYMBOL). A path without '/' is taken relative to the
 * current directory, not searched on LD_LIBRARY_PATH. Errors: NOT_FOUND
 * (no such file), INVALID_ARTIFACT (not a regular file, not a loadable
 * library, no descriptor symbol, a malformed descriptor or bundle: the
 * message names the section, entry and field), INCOMPATIBLE (ABI or bundle
 * version: the message says which was expected and which found; a device
 * that lacks what the code needs), NO_DEVICE (driver or device missing).
 * On success `*out` is yours: release it with hodu_model_free(). */
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

/* The model's name and target (e.g. "cpu"; a bundle's device kind,
 * "vulkan", or the plugin device it names, "nulldev"). Borrowed; never
 * NULL. */
HODU_API const char *hodu_model_name(const hodu_model *model);
HODU_API const char *hodu_model_target(const hodu_model *model);

/* The descriptor the model runs (borrowed); NULL for bundles. */
HODU_API const hodu_model_desc *hodu_model_descriptor(const hodu_model *model);

/* Inputs the caller passes (a descriptor's meta slots are not counted). */
HODU_API int32_t hodu_model_num_inputs(const hodu_model *model);
HODU_API int32_t hodu_model_num_outputs(const hodu_model *model);

/* Bytes of scratch memory one run needs for the model's intermediate
 * buffers (the descriptor's workspace_size; 0 for models that need none or
 * were built before workspaces existed). hodu_model_run takes it from a
 * cache of up to 8 workspaces kept with the model, so steady-state runs
 * allocate nothing; each run concurrent with others holds one workspace.
 * The cache is freed by hodu_model_free. */
HODU_API uint64_t hodu_model_workspace_size(const hodu_model *model);

/* Run-time checks: what the model assumes of its data, checked at every
 * run (sizes the model declares for outputs of data known only then; see
 * docs/architecture.md, "Declared shapes and run-time checks"). A run whose
 * data breaks check k fails with HODU_STATUS_RUN_FAILED and this message.
 * 0 and NULL for bundles and for models built before Hodu 0.4. */
HODU_API int32_t hodu_model_num_checks(const hodu_model *model);
HODU_API const char *hodu_model_check_message(const hodu_model *model,
                                              int32_t index);

/* Per-tensor queries, for 0 <= index < count. An index out of range gives
 * NULL, -1 (dtype and rank) respectively. Results are borrowed. A shape is
 * the descriptor's: a dim that is a symbol (see "Symbolic dims" below) is
 * HODU_DIM_DYNAMIC (-1); hodu_model_resolve_input_shape() gives the
 * extents for given symbol values. */
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

/* The index of the output that holds output `index`'s dims in each run,
 * when that output's size depends on the data (ONNX NonZero, Compress, and
 * what is computed from them): output `index` is then described, and must
 * be passed, at its bound, and after a run its value is the leading block
 * of the dims written to the returned output (i64, one per dim; abi.h,
 * HODU_OUTPUT_DIMS_SUFFIX). -1 when output `index` has a static size (or
 * is out of range). */
HODU_API int32_t hodu_model_output_dims_index(const hodu_model *model,
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
 * `index`. Release `*out` with hodu_tensor_free(). A tensor with a dynamic
 * dim has no shape of its own: INVALID_ARGUMENT naming the dim and its
 * symbol (use hodu_model_create_input_with_symbols). */
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
 * "input 'x': expected shape [1,3,224,224], got [1,3,224]". A model with
 * symbols binds their values from the inputs' shapes first (see "Symbolic
 * dims" below); each output with a dynamic dim must then have exactly the
 * shape those values give it. Inputs are only
 * read. On success the outputs hold the results; on failure their contents
 * are unspecified. Thread-safe: one model may run on several threads at
 * once, as long as each run has its own output tensors. A model with state
 * tensors (a train step) is refused with INVALID_STATE: run it in a
 * session. */
HODU_API hodu_status hodu_model_run(const hodu_model *model,
                                    const hodu_tensor *const *inputs,
                                    size_t num_inputs,
                                    hodu_tensor *const *outputs,
                                    size_t num_outputs);

/* Like hodu_model_run(), but allocates the outputs (at the shapes the
 * inputs' symbol values give): `outputs` is an array of
 * `num_outputs` slots (which must equal the model's output count) that
 * receives new runtime-owned tensors. On success the caller owns them and
 * frees each with hodu_tensor_free(); on failure every slot is NULL. */
HODU_API hodu_status hodu_model_run_alloc(const hodu_model *model,
                                          const hodu_tensor *const *inputs,
                                          size_t num_inputs,
                                          hodu_tensor **outputs,
                                          size_t num_outputs);

/*===--------------------------------------------------------------------===*
 * Symbolic dims
 *
 * A model compiled with symbolic dims (a CPU artifact of ABI version 2,
 * or a bundle of format 1.1) runs at every shape that fits: an input or
 * output dim may be a symbol such as "batch" or "seq" (HODU_DIM_DYNAMIC in
 * the shape queries above), or an affine function of one, scale * value +
 * offset. A run binds every symbol's value from the input tensors' shapes
 * and checks them: the rank, every static dim, each dynamic dim giving a
 * whole value, all dims of one symbol agreeing, and each value within the
 * symbol's [min, max] and a multiple of its `multiple`. Each failure is
 *MISMATCH with a message naming the input, the dim and the symbol, e.g. "model
 *'enc': input 'mask' dim 1 is 7, but symbol 'seq' is 5 (from input 'ids' dim
 *1)". The values reach the compiled code in hodu_run_context.symbol_values; a
 *bundle runs its plan once per chunk of the value (docs/bundle.md).
 *docs/runtime.md, "Symbolic dims", has an example.
 *===--------------------------------------------------------------------===*/

/* The model's symbols, in descriptor order (0 for models without). */
HODU_API int32_t hodu_model_num_symbols(const hodu_model *model);
/* Symbol `index`'s name, or NULL out of range. Borrowed. */
HODU_API const char *hodu_model_symbol_name(const hodu_model *model,
                                            int32_t index);
/* Symbol `index` with its bounds: min, max (-1: none), multiple, and chunk
 * (how the code runs it; abi.h). NULL out of range. Borrowed. */
HODU_API const hodu_symbol_desc *hodu_model_symbol(const hodu_model *model,
                                                   int32_t index);
/* Finds a symbol by name; NOT_FOUND lists the model's symbols. */
HODU_API hodu_status hodu_model_symbol_index(const hodu_model *model,
                                             const char *name, int32_t *index);

/* The record saying which symbol dim `dim` of input (is_output 0) or output
 * `index` is, and its scale and offset; NULL for a static dim, an index
 * out of range, or a model without symbols. Borrowed. */
HODU_API const hodu_dynamic_dim *hodu_model_dynamic_dim(const hodu_model *model,
                                                        int is_output,
                                                        int32_t index,
                                                        int32_t dim);
/* The divisor of that dim's extent, scale * value / divisor + offset (ABI
 * version 3: a strided window over a symbol); 1 for every other dim. */
HODU_API int64_t hodu_model_dynamic_dim_divisor(const hodu_model *model,
                                                int is_output, int32_t index,
                                                int32_t dim);

/* Binds the symbols' values from input tensors' shapes, with the checks of
 * a run: `inputs` holds one entry per model input (NULL entries are
 * skipped, so the caller can bind from the inputs it has and then make the
 * others); `values` receives one value per symbol (`num_values` must be
 * hodu_model_num_symbols()), -1 for a symbol that no non-NULL input has. */
HODU_API hodu_status hodu_model_bind_symbols(const hodu_model *model,
                                             const hodu_tensor *const *inputs,
                                             size_t num_inputs, int64_t *values,
                                             size_t num_values);

/* Writes input (output) `index`'s extents for the symbol values `values`
 * (one per symbol, each within its bounds: MISMATCH naming the symbol
 * otherwise) into `shape`, which has room for the tensor's rank. A model
 * without symbols takes NULL and 0 and gives the described shape. */
HODU_API hodu_status hodu_model_resolve_input_shape(const hodu_model *model,
                                                    int32_t index,
                                                    const int64_t *values,
                                                    size_t num_values,
                                                    int64_t *shape);
HODU_API hodu_status hodu_model_resolve_output_shape(const hodu_model *model,
                                                     int32_t index,
                                                     const int64_t *values,
                                                     size_t num_values,
                                                     int64_t *shape);

/* hodu_model_create_input() (_output()) at the shape the symbol values
 * give (as resolved above). Release `*out` with hodu_tensor_free(). */
HODU_API hodu_status hodu_model_create_input_with_symbols(
    const hodu_model *model, int32_t index, const int64_t *values,
    size_t num_values, hodu_tensor **out);
HODU_API hodu_status hodu_model_create_output_with_symbols(
    const hodu_model *model, int32_t index, const int64_t *values,
    size_t num_values, hodu_tensor **out);

/*===--------------------------------------------------------------------===*
 * Devices
 *
 * A model runs on one device: the host (HODU_DEVICE_CPU) for shared
 * libraries, the device a bundle was compiled for (HODU_DEVICE_VULKAN,
 * _CUDA, _HIP; hodu_device_kind is defined in hodu/bundle.h). Drivers are
 * looked up at run time (dlopen of libvulkan.so.1, libcuda.so.1,
 * libamdhip64.so), so libhodurt loads everywhere; a missing driver or
 * device is a NO_DEVICE status such as "no CUDA driver: libcuda.so.1 not
 * found".
 *===--------------------------------------------------------------------===*/

/* "cpu", "vulkan", "cuda", "hip", "metal", "plugin" (a device plugin's
 * device: hodu_model_device_name names it); NULL for an invalid kind. */
HODU_API const char *hodu_device_kind_name(hodu_device_kind kind);

/* Parses a kind name (the names above; "rocm" means "hip"). Returns 1 on
 * success, 0 for an unknown name (then `*kind` is untouched). */
HODU_API int hodu_device_kind_from_name(const char *name,
                                        hodu_device_kind *kind);

/* How many devices of `kind` this machine has (the CPU: 1). NO_DEVICE when
 * the kind's driver is missing; a driver with no device gives 0. */
HODU_API hodu_status hodu_device_count(hodu_device_kind kind, int32_t *count);

/* The same by name: a builtin kind's name, or a device plugin's device
 * ("nulldev"; HODU_DEVICE_PLUGIN devices are known by name only).
 * NO_DEVICE when no plugin provides the name. */
HODU_API hodu_status hodu_device_count_named(const char *name, int32_t *count);

/* Options of hodu_model_load_with_options. Initialise with
 * hodu_load_options_init(); fields are only appended (struct_size). */
typedef struct hodu_load_options {
  uint32_t struct_size;
  /* The device kind to run on: -1 (default) for the artifact's own. A
   * bundle runs only on the kind it was compiled for; naming another is
   * refused with INCOMPATIBLE, naming the kinds it has. */
  int32_t device_kind;
  /* Which device of that kind, 0 (default) for the first. */
  int32_t device_ordinal;
  /* Non-zero: load a bundle for inspection only -- its signature and plan
   * (the queries below, hodu_model_plan_*) without opening its devices, so
   * it works where the device or its driver is missing (`hodu-run --info`
   * on a build machine). Running it, sessions and device tensors then fail
   * with INVALID_STATE; the device queries give the plan's device kind,
   * the requested ordinal and an empty name. No effect on shared libraries
   * (they need no device). Appended after device_ordinal: callers that set
   * struct_size to an older, smaller size get 0. */
  int32_t inspect_only;
  /* The engine plugin to run the file with ("onnxruntime"; docs/
   * plugins.md), or NULL (default): a Hodu artifact runs as it is, and any
   * other file goes to the engine whose manifest lists its extension and
   * whose probe scores it highest. Appended after inspect_only. */
  const char *engine;
  /* Flags for the compiler plugin that compiles a model file which is no
   * artifact ("-O3", "--input-shape=x:1x3x224x224"; docs/plugins.md,
   * "Compiling on load"), `num_compile_flags` of them. Appended after
   * engine. */
  const char *const *compile_flags;
  int32_t num_compile_flags;
} hodu_load_options;

/* Sets `options` to the defaults (the artifact's device, ordinal 0). */
HODU_API void hodu_load_options_init(hodu_load_options *options);

/* hodu_model_load() with options (NULL = defaults). For a bundle it opens
 * the device, loads the code object that fits it (by architecture), and
 * uploads the weights once for the model. */
HODU_API hodu_status hodu_model_load_with_options(
    const char *path, const hodu_load_options *options, hodu_model **out);

/* Loads an artifact from memory: a shared library (through an anonymous
 * in-memory file) or a bundle (copied), `size` bytes at `data`, which the
 * caller keeps. `name` names it in messages (NULL: "(memory)"). */
HODU_API hodu_status hodu_model_load_memory(const void *data, size_t size,
                                            const char *name,
                                            const hodu_load_options *options,
                                            hodu_model **out);

/* How the model came to be, when it was not loaded as it is: "compiled by
 * hoduc 1.0.0 from 'model.onnx' (cached as '...')". NULL otherwise. */
HODU_API const char *hodu_model_source(const hodu_model *model);

/* The kind, ordinal and name (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)",
 * "host CPU"; borrowed) of the device the model runs on ("" for a bundle
 * loaded with inspect_only, which opened none). */
HODU_API hodu_device_kind hodu_model_device_kind(const hodu_model *model);
HODU_API int32_t hodu_model_device_ordinal(const hodu_model *model);
HODU_API const char *hodu_model_device_name(const hodu_model *model);

/* 1 when the model was loaded from a bundle, 0 for a shared library or a
 * linked descriptor. */
HODU_API int hodu_model_is_bundle(const hodu_model *model);

/* A bundle's validated launch plan, as the records of hodu/bundle.h (for
 * tools such as `hodu-run --info`): the number of entries of a table
 * section (DEVICES, TENSORS, DIMS, CODE, KERNELS, STEPS, ARGS, VARIANTS,
 * VARIANT_STEPS, whose records are the file's; the byte size for WEIGHTS
 * and BLOBS) and a borrowed pointer to them (one record of
 * sizeof(hodu_bundle_<record>) bytes per entry, NULL when empty), and the
 * string a hodu_bundle_string names. 0, NULL and "" for other models.
 * SYMBOLS and DYNAMIC_DIMS have counts only: their records are read
 * through hodu_model_symbol() and hodu_model_dynamic_dim(). */
HODU_API uint64_t hodu_model_plan_count(const hodu_model *model,
                                        hodu_bundle_section_kind section);
HODU_API const void *hodu_model_plan_table(const hodu_model *model,
                                           hodu_bundle_section_kind section);
HODU_API const char *hodu_model_plan_string(const hodu_model *model,
                                            hodu_bundle_string string);

/*===--------------------------------------------------------------------===*
 * Device tensors
 *
 * A tensor lives in host memory (hodu_tensor_create, _wrap) or in a
 * device's memory (below). Host tensors passed to a GPU model are copied to
 * the device before a run and the outputs back after it; device tensors
 * are bound as they are, with no copy. On the CPU the two are the same
 * thing. hodu_tensor_data() is NULL for a tensor the host cannot address:
 * use hodu_tensor_write, _read and _copy. A device tensor keeps its device
 * open and may outlive the model that made it; it can be bound to any model
 * on the same device.
 *===--------------------------------------------------------------------===*/

/* A zero-filled tensor in the memory of the device `model` runs on. Release
 * `*out` with hodu_tensor_free(). */
HODU_API hodu_status hodu_model_create_device_tensor(const hodu_model *model,
                                                     hodu_dtype dtype,
                                                     int32_t rank,
                                                     const int64_t *shape,
                                                     hodu_tensor **out);

/* A zero-filled device tensor shaped like input (output) `index`, on the
 * device the model reads (writes) it. Release with hodu_tensor_free(). */
HODU_API hodu_status hodu_model_create_device_input(const hodu_model *model,
                                                    int32_t index,
                                                    hodu_tensor **out);
HODU_API hodu_status hodu_model_create_device_output(const hodu_model *model,
                                                     int32_t index,
                                                     hodu_tensor **out);

/* Where a tensor's data lives: HODU_DEVICE_CPU for host tensors. */
HODU_API hodu_device_kind hodu_tensor_device_kind(const hodu_tensor *tensor);

/* Copies `bytes` (exactly hodu_tensor_bytes()) from host memory into any
 * tensor, or out of any tensor into host memory. */
HODU_API hodu_status hodu_tensor_write(hodu_tensor *tensor, const void *data,
                                       size_t bytes);
HODU_API hodu_status hodu_tensor_read(const hodu_tensor *tensor, void *data,
                                      size_t bytes);

/* Copies `source` into `target` (same dtype and shape), between any two
 * tensors: host or device, same device or not. */
HODU_API hodu_status hodu_tensor_copy(const hodu_tensor *source,
                                      hodu_tensor *target);

/*===--------------------------------------------------------------------===*
 * Meta slots
 *
 * Named small tensors a model declares (a learning rate, a step count) that
 * live at fixed device addresses in each session, start at the model's
 * initial value, and that the host writes and reads between runs and
 * replays. Captured kernels read them where they are, so a changed slot
 * changes what the next replay computes without capturing again.
 *===--------------------------------------------------------------------===*/

HODU_API int32_t hodu_model_num_meta_slots(const hodu_model *model);
/* Per-slot queries, as for inputs: NULL or -1 for an index out of range. */
HODU_API const char *hodu_model_meta_slot_name(const hodu_model *model,
                                               int32_t index);
HODU_API hodu_dtype hodu_model_meta_slot_dtype(const hodu_model *model,
                                               int32_t index);
HODU_API int32_t hodu_model_meta_slot_rank(const hodu_model *model,
                                           int32_t index);
HODU_API const int64_t *hodu_model_meta_slot_shape(const hodu_model *model,
                                                   int32_t index);
/* The slot's size in bytes (0 for an index out of range). */
HODU_API size_t hodu_model_meta_slot_bytes(const hodu_model *model,
                                           int32_t index);
/* Finds a slot by name; NOT_FOUND lists the model's slots. */
HODU_API hodu_status hodu_model_meta_slot_index(const hodu_model *model,
                                                const char *name,
                                                int32_t *index);
/* The symbol (an index for hodu_model_symbol) whose value meta slot
 * `index` holds -- a bundle's padded symbol, which libhodurt writes there
 * at each run from the inputs' shapes, so the slot cannot be written by
 * the caller -- or -1 for an ordinary slot or an index out of range. */
HODU_API int32_t hodu_model_meta_slot_symbol(const hodu_model *model,
                                             int32_t index);

/*===--------------------------------------------------------------------===*
 * State tensors
 *
 * What a compiled train step (hoduc --train, docs/training.md) keeps from
 * one run to the next: the trained weights, the optimizer's moments and
 * its step counter. Each session holds its own copy on the model's device,
 * starting at the model's initial values; every run and every replayed run
 * reads it and leaves it updated (the plan ends with a device copy of each
 * new value over the old, which a capture records too). They are not
 * among the model's inputs and outputs: a caller binds the data and the
 * target and reads the loss, and reaches the state through the calls
 * below. hodu_model_run and hodu_model_run_alloc refuse a model with state
 * tensors (INVALID_STATE): they keep nothing between calls.
 *===--------------------------------------------------------------------===*/

HODU_API int32_t hodu_model_num_state_tensors(const hodu_model *model);
/* Per-tensor queries, as for inputs: NULL or -1 for an index out of
 * range. */
HODU_API const char *hodu_model_state_tensor_name(const hodu_model *model,
                                                  int32_t index);
HODU_API hodu_dtype hodu_model_state_tensor_dtype(const hodu_model *model,
                                                  int32_t index);
HODU_API int32_t hodu_model_state_tensor_rank(const hodu_model *model,
                                              int32_t index);
HODU_API const int64_t *hodu_model_state_tensor_shape(const hodu_model *model,
                                                      int32_t index);
/* Its size in bytes (0 for an index out of range). */
HODU_API size_t hodu_model_state_tensor_bytes(const hodu_model *model,
                                              int32_t index);
/* Finds a state tensor by name; NOT_FOUND lists the model's. */
HODU_API hodu_status hodu_model_state_tensor_index(const hodu_model *model,
                                                   const char *name,
                                                   int32_t *index);

/*===--------------------------------------------------------------------===*
 * Sessions: bound tensors, eager runs, capture and replay
 *
 * A session is one run context of a model: its own arena (the model's
 * intermediates), its own meta slots, and the input and output tensors
 * bound to it. It moves through the states
 *
 *   CREATED --run--> WARMED --capture--> CAPTURED --reset--> RESET
 *                                          |  ^                |
 *                                    replay(n) |      capture  |
 *                                          +--+  <-------------+
 *
 * hodu_session_run runs the plan eagerly (every kernel issued by the host)
 * and is allowed in any state. hodu_session_capture records the whole plan
 * once -- CUDA: a CUDA Graph from stream capture; HIP: a hipGraph; Vulkan:
 * one command buffer; CPU: the plan with every address resolved -- and
 * hodu_session_replay(n) runs that recording n times with no per-kernel
 * host work. hodu_session_reset frees only what capture made. Out-of-order
 * calls fail with INVALID_STATE: capture before a warm-up run (unwarmed
 * buffers), capture twice, replay before capture, replay after reset, and
 * binding other tensors while captured.
 *
 * Host tensors bound to a GPU session are copied in before a run or a
 * replay(n) and the outputs back after it (once per call, not per replayed
 * run); bind device tensors to avoid those copies. A model is shared by
 * any number of sessions; a session belongs to one thread at a time.
 *===--------------------------------------------------------------------===*/

typedef struct hodu_session hodu_session;

typedef enum hodu_session_state {
  HODU_SESSION_CREATED = 0,
  HODU_SESSION_WARMED = 1,
  HODU_SESSION_CAPTURED = 2,
  HODU_SESSION_RESET = 3
} hodu_session_state;

/* "created", "warmed", "captured", "reset"; NULL for another value. */
HODU_API const char *hodu_session_state_name(hodu_session_state state);

/* A new session of `model` (borrowed: it must outlive the session), with
 * its arena, meta slots and state tensors allocated on the model's device
 * and set to their initial values. Sessions of one model share nothing
 * mutable: each trains its own copy of the state. Release with
 * hodu_session_free(). */
HODU_API hodu_status hodu_session_create(const hodu_model *model,
                                         hodu_session **out);

/* Releases the session and everything it allocated (not the bound
 * tensors). NULL is ok. */
HODU_API void hodu_session_free(hodu_session *session);

HODU_API hodu_session_state hodu_session_get_state(const hodu_session *session);

/* Binds one tensor per input and output (model order; borrowed: keep them
 * alive while bound), checked as hodu_model_run() checks them; a device
 * tensor must be on the model's device. Binding other tensors while
 * CAPTURED is INVALID_STATE (the recording holds the old addresses; host
 * tensors of GPU models may be rebound, since they are copied). A model
 * with symbols binds their values too: rebinding at other values is
 * cheap in any other state (the next run uses them), but a recording is
 * of the shapes it was captured at, so while CAPTURED it is INVALID_STATE
 * naming the old and new values: reset, bind, run and capture again. */
HODU_API hodu_status hodu_session_bind(hodu_session *session,
                                       const hodu_tensor *const *inputs,
                                       size_t num_inputs,
                                       hodu_tensor *const *outputs,
                                       size_t num_outputs);

/* One eager run of the bound tensors. CREATED becomes WARMED. */
HODU_API hodu_status hodu_session_run(hodu_session *session);

/* Records the plan once (see above). WARMED or RESET becomes CAPTURED. */
HODU_API hodu_status hodu_session_capture(hodu_session *session);

/* Runs the recording `count` >= 1 times; the results equal `count` eager
 * runs. CAPTURED only. */
HODU_API hodu_status hodu_session_replay(hodu_session *session,
                                         int64_t count);

/* Frees the recording (nothing else: arena, slots, state tensors and
 * bindings keep their contents). CAPTURED becomes RESET; a replay then
 * fails until the session captures again. To start training over, restore
 * the state tensors (hodu_session_restore_state_tensors). */
HODU_API hodu_status hodu_session_reset(hodu_session *session);

/* Writes (reads) meta slot `index`: exactly hodu_model_meta_slot_bytes()
 * bytes, in any state; the next run or replay reads the new value. */
HODU_API hodu_status hodu_session_write_meta_slot(hodu_session *session,
                                                  int32_t index,
                                                  const void *data,
                                                  size_t bytes);
HODU_API hodu_status hodu_session_read_meta_slot(const hodu_session *session,
                                                 int32_t index, void *data,
                                                 size_t bytes);
/* The same by name. */
HODU_API hodu_status hodu_session_write_meta_slot_named(hodu_session *session,
                                                        const char *name,
                                                        const void *data,
                                                        size_t bytes);
HODU_API hodu_status hodu_session_read_meta_slot_named(
    const hodu_session *session, const char *name, void *data, size_t bytes);

/* Reads (writes) the session's state tensor `index`: exactly
 * hodu_model_state_tensor_bytes() bytes, in any state; the next run or
 * replay starts from a written value. */
HODU_API hodu_status hodu_session_read_state_tensor(const hodu_session *session,
                                                    int32_t index, void *data,
                                                    size_t bytes);
HODU_API hodu_status hodu_session_write_state_tensor(hodu_session *session,
                                                     int32_t index,
                                                     const void *data,
                                                     size_t bytes);
/* Sets every state tensor back to the model's initial value (the weights
 * it was compiled with, zero moments, step 0), in any state. This, not
 * hodu_session_reset (which frees a recording and touches no tensor), is
 * how a session starts training over. Meta slots keep their values. */
HODU_API hodu_status hodu_session_restore_state_tensors(hodu_session *session);
/* Saves the state tensors to a safetensors file at `path` (named as the
 * model names them; written to a temporary file renamed over `path`, so a
 * failure leaves no half-written file), and loads them back: the file
 * must hold every state tensor of the model with its dtype and shape, and
 * nothing else (MISMATCH names the first difference); nothing is changed
 * unless all of them load. A session that saves, loads into a new session
 * and continues computes the same bits as one that never stopped. */
HODU_API hodu_status
hodu_session_save_state_tensors(const hodu_session *session, const char *path);
HODU_API hodu_status hodu_session_load_state_tensors(hodu_session *session,
                                                     const char *path);

/* What a session's calls cost the host so far. */
typedef struct hodu_session_stats {
  uint32_t struct_size; /* set by the caller: sizeof(hodu_session_stats) */
  uint32_t reserved;
  uint64_t runs;             /* eager runs */
  uint64_t run_submissions;  /* submissions to the device by those runs
                                (vkQueueSubmit calls, kernel launches ...) */
  uint64_t run_commands;     /* commands the host issued or recorded */
  uint64_t replays;          /* replayed runs */
  uint64_t replay_submissions;
  uint64_t captures;
  /* The plan the bound tensors' shapes take: 0, the bundle's plan at the
   * padded symbols' bounds (every other model's one plan); k >= 1, its
   * k-th variant (format 1.6, VARIANTS entry k - 1: the plan at smaller
   * sizes of the padded symbols). */
  uint64_t plan_variant;
} hodu_session_stats;

/* Fills `stats` (up to its struct_size). */
HODU_API hodu_status hodu_session_get_stats(const hodu_session *session,
                                            hodu_session_stats *stats);

#ifdef __cplusplus
}
#endif

/* Plugins and selection by measurement: hodu/runtime_plugins.h. */
#include "hodu/runtime_plugins.h"

#endif /* HODU_RUNTIME_H */
