/*===- device_hip.c - HIP (ROCm) through libamdhip64, found at run time
 *------===*
 *
 * libamdhip64 (.so.6, .so.5 or .so) is opened with dlopen and the few HIP
 * functions used are declared here (no HIP headers), so this compiles
 * everywhere and libhodurt loads on machines without ROCm. Modules are
 * hsaco code objects loaded from memory with hipModuleLoadData: the
 * bundle's objects are tried in order and the HIP runtime takes the one
 * built for the device's gfx arch (it refuses the others with
 * hipErrorNoBinaryForGpu), which spares us hipDeviceProp_t, whose layout
 * differs between ROCm releases.
 *
 *===----------------------------------------------------------------------===*/
#include "gpu.h"
#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int hipError_t;
typedef void *hipModule_t;
typedef void *hipFunction_t;
typedef void *hipStream_t;
typedef void *hipGraph_t;
typedef void *hipGraphExec_t;
typedef int hipDevice_t;

enum { HIP_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1 };

#define HIP_FUNCTIONS(X)                                                       \
  X(hipInit, (unsigned))                                                       \
  X(hipGetDeviceCount, (int *))                                                \
  X(hipSetDevice, (int))                                                       \
  X(hipDeviceGet, (hipDevice_t *, int))                                        \
  X(hipDeviceGetName, (char *, int, hipDevice_t))                              \
  X(hipMalloc, (void **, size_t))                                              \
  X(hipFree, (void *))                                                         \
  X(hipMemset, (void *, int, size_t))                                          \
  X(hipMemcpyHtoD, (void *, const void *, size_t))                             \
  X(hipMemcpyDtoH, (void *, void *, size_t))                                   \
  X(hipMemcpyDtoD, (void *, void *, size_t))                                   \
  X(hipMemcpyDtoDAsync, (void *, void *, size_t, hipStream_t))                 \
  X(hipModuleLoadData, (hipModule_t *, const void *))                          \
  X(hipModuleUnload, (hipModule_t))                                            \
  X(hipModuleGetFunction, (hipFunction_t *, hipModule_t, const char *))        \
  X(hipModuleLaunchKernel,                                                     \
    (hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned,          \
     unsigned, unsigned, hipStream_t, void **, void **))                       \
  X(hipStreamCreate, (hipStream_t *))                                          \
  X(hipStreamDestroy, (hipStream_t))                                           \
  X(hipStreamSynchronize, (hipStream_t))                                       \
  X(hipStreamBeginCapture, (hipStream_t, int))                                 \
  X(hipStreamEndCapture, (hipStream_t, hipGraph_t *))                          \
  X(hipGraphInstantiate,                                                       \
    (hipGraphExec_t *, hipGraph_t, void *, char *, size_t))                    \
  X(hipGraphLaunch, (hipGraphExec_t, hipStream_t))                             \
  X(hipGraphExecDestroy, (hipGraphExec_t))                                     \
  X(hipGraphDestroy, (hipGraph_t))

static struct {
  void *library;
  const char *library_name;
#define X(name, params) hipError_t(*name) params;
  HIP_FUNCTIONS(X)
#undef X
  const char *(*hipGetErrorName)(hipError_t);
  const char *(*hipGetErrorString)(hipError_t);
  hodu_status problem;
} hip;
static pthread_once_t hip_once = PTHREAD_ONCE_INIT;

static void hip_load(void) {
  static const char *const names[] = {"libamdhip64.so.6", "libamdhip64.so.5",
                                      "libamdhip64.so"};
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !hip.library; ++i) {
    hip.library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    hip.library_name = names[i];
  }
  if (!hip.library) {
    hip.problem = hodu_make_status(HODU_NO_DEVICE,
                                   "no HIP runtime: libamdhip64.so (.so.6, "
                                   ".so.5) not found (install ROCm's "
                                   "libamdhip64)");
    return;
  }
#define X(name, params)                                                        \
  {                                                                            \
    void *address = dlsym(hip.library, #name);                                 \
    if (!address && !hip.problem)                                              \
      hip.problem = hodu_make_status(HODU_NO_DEVICE,                           \
                                     "no usable HIP runtime: %s has no %s",    \
                                     hip.library_name, #name);                 \
    memcpy(&hip.name, &address, sizeof address);                               \
  }
  HIP_FUNCTIONS(X)
  X(hipGetErrorName, ())
  X(hipGetErrorString, ())
#undef X
}

static void describe(int error, char *buffer, size_t size) {
  const char *name = hip.hipGetErrorName ? hip.hipGetErrorName(error) : NULL;
  const char *text =
      hip.hipGetErrorString ? hip.hipGetErrorString(error) : NULL;
  snprintf(buffer, size, "%s: %s", name ? name : "hipError",
           text ? text : "unknown");
}

static hodu_status hip_ready(void) {
  pthread_once(&hip_once, hip_load);
  if (!hip.problem)
    return NULL;
  return hodu_make_status(hodu_status_get_code(hip.problem), "%s",
                          hodu_status_message(hip.problem));
}

hodu_status hodu_hip_device_count(int32_t *count) {
  hodu_status status = hip_ready();
  if (status)
    return status;
  int n = 0;
  hipError_t error = hip.hipGetDeviceCount(&n);
  /* With no GPU, HIP reports hipErrorNoDevice (100) rather than 0. */
  *count = error ? 0 : n;
  return NULL;
}

typedef struct hip_device {
  gpu_device gpu;
} hip_device;

static int h_make_current(gpu_device *device) {
  return hip.hipSetDevice(device->ordinal);
}
static int h_alloc(uint64_t *pointer, uint64_t size) {
  void *p = NULL;
  int error = hip.hipMalloc(&p, (size_t)size);
  *pointer = (uint64_t)(uintptr_t)p;
  return error;
}
static void *ptr(uint64_t pointer) { return (void *)(uintptr_t)pointer; }
static int h_free(uint64_t pointer) { return hip.hipFree(ptr(pointer)); }
static int h_zero(uint64_t pointer, uint64_t size) {
  return hip.hipMemset(ptr(pointer), 0, (size_t)size);
}
static int h_to_device(uint64_t target, const void *source, uint64_t size) {
  return hip.hipMemcpyHtoD(ptr(target), source, (size_t)size);
}
static int h_to_host(void *target, uint64_t source, uint64_t size) {
  return hip.hipMemcpyDtoH(target, ptr(source), (size_t)size);
}
static int h_on_device(uint64_t target, uint64_t source, uint64_t size) {
  return hip.hipMemcpyDtoD(ptr(target), ptr(source), (size_t)size);
}
static int h_on_device_async(uint64_t target, uint64_t source, uint64_t size,
                             void *stream) {
  return hip.hipMemcpyDtoDAsync(ptr(target), ptr(source), (size_t)size, stream);
}
static int h_module_load(void **module, const void *image) {
  return hip.hipModuleLoadData(module, image);
}
static int h_module_unload(void *module) { return hip.hipModuleUnload(module); }
static int h_function(void **function, void *module, const char *name) {
  return hip.hipModuleGetFunction(function, module, name);
}
static int h_launch(void *function, const uint32_t grid[3],
                    const uint32_t block[3], uint32_t shared, void *stream,
                    void **params) {
  return hip.hipModuleLaunchKernel(function, grid[0], grid[1], grid[2],
                                   block[0], block[1], block[2], shared, stream,
                                   params, NULL);
}
static int h_stream_create(void **stream) {
  return hip.hipStreamCreate(stream);
}
static int h_stream_destroy(void *stream) {
  return hip.hipStreamDestroy(stream);
}
static int h_stream_sync(void *stream) {
  return hip.hipStreamSynchronize(stream);
}
static int h_begin_capture(void *stream) {
  return hip.hipStreamBeginCapture(stream,
                                   HIP_STREAM_CAPTURE_MODE_THREAD_LOCAL);
}
static int h_end_capture(void *stream, void **graph) {
  return hip.hipStreamEndCapture(stream, graph);
}
static int h_instantiate(void **exec, void *graph) {
  return hip.hipGraphInstantiate(exec, graph, NULL, NULL, 0);
}
static int h_graph_launch(void *exec, void *stream) {
  return hip.hipGraphLaunch(exec, stream);
}
static int h_exec_destroy(void *exec) { return hip.hipGraphExecDestroy(exec); }
static int h_graph_destroy(void *graph) { return hip.hipGraphDestroy(graph); }

static uint32_t h_order_codes(const gpu_device *device,
                              const hodu_device_plan *plan, uint32_t index,
                              uint32_t *order) {
  (void)device;
  uint32_t n = 0;
  for (uint32_t c = 0; c < plan->num_codes; ++c)
    if (plan->codes[c].device == index &&
        plan->codes[c].format == HODU_CODE_HSACO)
      order[n++] = c;
  return n;
}

static void h_close(gpu_device *device) { free(device); }

static const gpu_api hip_api = {"HIP",
                                h_make_current,
                                h_alloc,
                                h_free,
                                h_zero,
                                h_to_device,
                                h_to_host,
                                h_on_device,
                                h_on_device_async,
                                h_module_load,
                                h_module_unload,
                                h_function,
                                NULL,
                                h_launch,
                                h_stream_create,
                                h_stream_destroy,
                                h_stream_sync,
                                h_begin_capture,
                                h_end_capture,
                                h_instantiate,
                                h_graph_launch,
                                h_exec_destroy,
                                h_graph_destroy,
                                describe,
                                h_order_codes,
                                h_close};

hodu_status hodu_hip_device_open(int32_t ordinal, hodu_device_instance **out) {
  *out = NULL;
  hodu_status status = hip_ready();
  if (status)
    return status;
  int n = 0;
  hipError_t error = hip.hipGetDeviceCount(&n);
  if (error || n == 0) {
    char text[160] = "none found";
    if (error)
      describe(error, text, sizeof text);
    return hodu_make_status(HODU_NO_DEVICE,
                            "no HIP device: %s found no GPU "
                            "(hipGetDeviceCount: %s)",
                            hip.library_name, text);
  }
  if (ordinal >= n)
    return hodu_make_status(HODU_NO_DEVICE,
                            "no HIP device %d: this machine has %d",
                            (int)ordinal, n);
  hip_device *device = calloc(1, sizeof *device);
  if (!device)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  hodu_gpu_device_init(&device->gpu, &hip_api);
  device->gpu.ordinal = ordinal;
  snprintf(device->gpu.base.name, sizeof device->gpu.base.name, "hip:%d",
           (int)ordinal);
  hipDevice_t handle = 0;
  error = hip.hipSetDevice(ordinal);
  if (!error)
    error = hip.hipDeviceGet(&handle, ordinal);
  if (!error)
    error = hip.hipDeviceGetName(device->gpu.base.name,
                                 (int)sizeof device->gpu.base.name, handle);
  if (error) {
    status = hodu_gpu_error(&device->gpu, "opening the device", error);
    free(device);
    return status;
  }
  /* The driver's version, for selection's key (asked only if exported). */
  int version = 0;
  hipError_t (*get_version)(int *);
  *(void **)&get_version = dlsym(hip.library, "hipDriverGetVersion");
  if (get_version && get_version(&version) == 0)
    snprintf(device->gpu.driver, sizeof device->gpu.driver, "HIP driver %d",
             version);
  *out = (hodu_device_instance *)&device->gpu;
  return NULL;
}
