/*===- device_cuda.c - CUDA through the driver API, found at run time
 *-------===*
 *
 * libcuda.so.1 is opened with dlopen and the few driver functions used are
 * declared here (no cuda.h, no toolkit), so this compiles everywhere and
 * libhodurt loads on machines without a GPU. Versioned entry points (_v2)
 * are looked up by the names the driver exports. Modules load from memory
 * with cuModuleLoadData: the cubin of the device's sm_XY if the bundle has
 * one, else a fatbin, else PTX (the newest not newer than the device, JIT-
 * compiled by the driver). The device runs in its primary context.
 *
 *===----------------------------------------------------------------------===*/
#include "gpu.h"
#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver API's types, as far as we use them. */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUgraph;
typedef void *CUgraphExec;
typedef unsigned long long CUdeviceptr;

enum {
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_STREAM_NON_BLOCKING = 1,
  CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
};

#define CUDA_FUNCTIONS(X)                                                      \
  X(cuInit, CUresult, (unsigned), "cuInit")                                    \
  X(cuDeviceGetCount, CUresult, (int *), "cuDeviceGetCount")                   \
  X(cuDeviceGet, CUresult, (CUdevice *, int), "cuDeviceGet")                   \
  X(cuDeviceGetName, CUresult, (char *, int, CUdevice), "cuDeviceGetName")     \
  X(cuDeviceGetAttribute, CUresult, (int *, int, CUdevice),                    \
    "cuDeviceGetAttribute")                                                    \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext *, CUdevice),               \
    "cuDevicePrimaryCtxRetain")                                                \
  X(cuDevicePrimaryCtxRelease, CUresult, (CUdevice),                           \
    "cuDevicePrimaryCtxRelease_v2")                                            \
  X(cuCtxSetCurrent, CUresult, (CUcontext), "cuCtxSetCurrent")                 \
  X(cuMemAlloc, CUresult, (CUdeviceptr *, size_t), "cuMemAlloc_v2")            \
  X(cuMemFree, CUresult, (CUdeviceptr), "cuMemFree_v2")                        \
  X(cuMemsetD8, CUresult, (CUdeviceptr, unsigned char, size_t),                \
    "cuMemsetD8_v2")                                                           \
  X(cuMemcpyHtoD, CUresult, (CUdeviceptr, const void *, size_t),               \
    "cuMemcpyHtoD_v2")                                                         \
  X(cuMemcpyDtoH, CUresult, (void *, CUdeviceptr, size_t), "cuMemcpyDtoH_v2")  \
  X(cuMemcpyDtoD, CUresult, (CUdeviceptr, CUdeviceptr, size_t),                \
    "cuMemcpyDtoD_v2")                                                         \
  X(cuMemcpyDtoDAsync, CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream), \
    "cuMemcpyDtoDAsync_v2")                                                    \
  X(cuModuleLoadData, CUresult, (CUmodule *, const void *),                    \
    "cuModuleLoadData")                                                        \
  X(cuModuleUnload, CUresult, (CUmodule), "cuModuleUnload")                    \
  X(cuModuleGetFunction, CUresult, (CUfunction *, CUmodule, const char *),     \
    "cuModuleGetFunction")                                                     \
  X(cuFuncSetAttribute, CUresult, (CUfunction, int, int),                      \
    "cuFuncSetAttribute")                                                      \
  X(cuLaunchKernel, CUresult,                                                  \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,   \
     unsigned, CUstream, void **, void **),                                    \
    "cuLaunchKernel")                                                          \
  X(cuStreamCreate, CUresult, (CUstream *, unsigned), "cuStreamCreate")        \
  X(cuStreamDestroy, CUresult, (CUstream), "cuStreamDestroy_v2")               \
  X(cuStreamSynchronize, CUresult, (CUstream), "cuStreamSynchronize")          \
  X(cuStreamBeginCapture, CUresult, (CUstream, int),                           \
    "cuStreamBeginCapture_v2")                                                 \
  X(cuStreamEndCapture, CUresult, (CUstream, CUgraph *), "cuStreamEndCapture") \
  X(cuGraphInstantiateWithFlags, CUresult,                                     \
    (CUgraphExec *, CUgraph, unsigned long long),                              \
    "cuGraphInstantiateWithFlags")                                             \
  X(cuGraphLaunch, CUresult, (CUgraphExec, CUstream), "cuGraphLaunch")         \
  X(cuGraphExecDestroy, CUresult, (CUgraphExec), "cuGraphExecDestroy")         \
  X(cuGraphDestroy, CUresult, (CUgraph), "cuGraphDestroy")                     \
  X(cuGetErrorName, CUresult, (CUresult, const char **), "cuGetErrorName")     \
  X(cuGetErrorString, CUresult, (CUresult, const char **), "cuGetErrorString")

static struct {
  void *library;
#define X(field, result, params, symbol) result(*field) params;
  CUDA_FUNCTIONS(X)
#undef X
  hodu_status problem; /* why the driver cannot be used; NULL when it can */
} cuda;
static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;

static void cuda_load(void) {
  cuda.library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda.library) {
    cuda.problem = hodu_make_status(HODU_NO_DEVICE,
                                    "no CUDA driver: libcuda.so.1 not found "
                                    "(install the NVIDIA driver)");
    return;
  }
#define X(field, result, params, symbol)                                       \
  {                                                                            \
    void *address = dlsym(cuda.library, symbol);                               \
    if (!address && !cuda.problem)                                             \
      cuda.problem = hodu_make_status(HODU_NO_DEVICE,                          \
                                      "no usable CUDA driver: libcuda.so.1 "   \
                                      "has no %s (driver too old?)",           \
                                      symbol);                                 \
    memcpy(&cuda.field, &address, sizeof address);                             \
  }
  CUDA_FUNCTIONS(X)
#undef X
  if (cuda.problem)
    return;
  CUresult result = cuda.cuInit(0);
  if (result) {
    const char *name = "?", *text = "?";
    cuda.cuGetErrorName(result, &name);
    cuda.cuGetErrorString(result, &text);
    cuda.problem = hodu_make_status(HODU_NO_DEVICE,
                                    "no CUDA device: cuInit failed (%s: %s)",
                                    name ? name : "?", text ? text : "?");
  }
}

/* NULL when the driver works; else a new copy of why not. */
static hodu_status cuda_ready(void) {
  pthread_once(&cuda_once, cuda_load);
  if (!cuda.problem)
    return NULL;
  return hodu_make_status(hodu_status_get_code(cuda.problem), "%s",
                          hodu_status_message(cuda.problem));
}

hodu_status hodu_cuda_device_count(int32_t *count) {
  hodu_status status = cuda_ready();
  if (status)
    return status;
  int n = 0;
  CUresult result = cuda.cuDeviceGetCount(&n);
  if (result)
    return hodu_make_status(HODU_DEVICE_ERROR,
                            "cuDeviceGetCount failed (CUresult %d)",
                            (int)result);
  *count = n;
  return NULL;
}

/*===--------------------------------------------------------------------===*
 * The API table
 *===--------------------------------------------------------------------===*/

typedef struct cuda_device {
  gpu_device gpu;
  CUdevice device;
} cuda_device;

static int cu_make_current(gpu_device *device) {
  return cuda.cuCtxSetCurrent(device->context);
}
static int cu_alloc(uint64_t *pointer, uint64_t size) {
  CUdeviceptr p = 0;
  int error = cuda.cuMemAlloc(&p, (size_t)size);
  *pointer = p;
  return error;
}
static int cu_free(uint64_t pointer) { return cuda.cuMemFree(pointer); }
static int cu_zero(uint64_t pointer, uint64_t size) {
  return cuda.cuMemsetD8(pointer, 0, (size_t)size);
}
static int cu_to_device(uint64_t target, const void *source, uint64_t size) {
  return cuda.cuMemcpyHtoD(target, source, (size_t)size);
}
static int cu_to_host(void *target, uint64_t source, uint64_t size) {
  return cuda.cuMemcpyDtoH(target, source, (size_t)size);
}
static int cu_on_device(uint64_t target, uint64_t source, uint64_t size) {
  return cuda.cuMemcpyDtoD(target, source, (size_t)size);
}
static int cu_on_device_async(uint64_t target, uint64_t source, uint64_t size,
                              void *stream) {
  return cuda.cuMemcpyDtoDAsync(target, source, (size_t)size, stream);
}
static int cu_module_load(void **module, const void *image) {
  return cuda.cuModuleLoadData(module, image);
}
static int cu_module_unload(void *module) {
  return cuda.cuModuleUnload(module);
}
static int cu_function(void **function, void *module, const char *name) {
  return cuda.cuModuleGetFunction(function, module, name);
}
static int cu_allow_shared(void *function, uint32_t bytes) {
  return cuda.cuFuncSetAttribute(
      function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes);
}
static int cu_launch(void *function, const uint32_t grid[3],
                     const uint32_t block[3], uint32_t shared, void *stream,
                     void **params) {
  return cuda.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0],
                             block[1], block[2], shared, stream, params, NULL);
}
static int cu_stream_create(void **stream) {
  return cuda.cuStreamCreate(stream, CU_STREAM_NON_BLOCKING);
}
static int cu_stream_destroy(void *stream) {
  return cuda.cuStreamDestroy(stream);
}
static int cu_stream_sync(void *stream) {
  return cuda.cuStreamSynchronize(stream);
}
static int cu_begin_capture(void *stream) {
  return cuda.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
}
static int cu_end_capture(void *stream, void **graph) {
  return cuda.cuStreamEndCapture(stream, graph);
}
static int cu_instantiate(void **exec, void *graph) {
  return cuda.cuGraphInstantiateWithFlags(exec, graph, 0);
}
static int cu_graph_launch(void *exec, void *stream) {
  return cuda.cuGraphLaunch(exec, stream);
}
static int cu_exec_destroy(void *exec) { return cuda.cuGraphExecDestroy(exec); }
static int cu_graph_destroy(void *graph) { return cuda.cuGraphDestroy(graph); }

static void cu_describe(int error, char *buffer, size_t size) {
  const char *name = NULL, *text = NULL;
  cuda.cuGetErrorName(error, &name);
  cuda.cuGetErrorString(error, &text);
  snprintf(buffer, size, "%s: %s", name ? name : "CUDA error",
           text ? text : "unknown");
}

/* "sm_90" or "compute_90" -> 90; -1 for anything else. */
static int sm_number(const char *arch) {
  const char *digits = strncmp(arch, "sm_", 3) == 0        ? arch + 3
                       : strncmp(arch, "compute_", 8) == 0 ? arch + 8
                                                           : NULL;
  if (!digits || !*digits)
    return -1;
  int value = 0;
  for (; *digits >= '0' && *digits <= '9'; ++digits)
    value = value * 10 + (*digits - '0');
  return value;
}

static uint32_t cu_order_codes(const gpu_device *device,
                               const hodu_device_plan *plan, uint32_t index,
                               uint32_t *order) {
  int mine = sm_number(device->arch);
  uint32_t n = 0;
  /* 1. a cubin for exactly this arch */
  for (uint32_t c = 0; c < plan->num_codes; ++c)
    if (plan->codes[c].device == index &&
        plan->codes[c].format == HODU_CODE_CUBIN &&
        sm_number(plan->strings + plan->codes[c].arch) == mine)
      order[n++] = c;
  /* 2. fatbins */
  for (uint32_t c = 0; c < plan->num_codes; ++c)
    if (plan->codes[c].device == index &&
        plan->codes[c].format == HODU_CODE_FATBIN)
      order[n++] = c;
  /* 3. PTX not newer than the device, newest first */
  uint32_t first_ptx = n;
  for (uint32_t c = 0; c < plan->num_codes; ++c) {
    int arch = sm_number(plan->strings + plan->codes[c].arch);
    if (plan->codes[c].device == index &&
        plan->codes[c].format == HODU_CODE_PTX && arch <= mine) {
      uint32_t at = n++;
      while (at > first_ptx &&
             sm_number(plan->strings + plan->codes[order[at - 1]].arch) <
                 arch) {
        order[at] = order[at - 1];
        --at;
      }
      order[at] = c;
    }
  }
  return n;
}

static void cu_close(gpu_device *device) {
  cuda_device *cu = (cuda_device *)device;
  if (device->context)
    cuda.cuDevicePrimaryCtxRelease(cu->device);
  free(cu);
}

static const gpu_api cuda_api = {"CUDA",
                                 cu_make_current,
                                 cu_alloc,
                                 cu_free,
                                 cu_zero,
                                 cu_to_device,
                                 cu_to_host,
                                 cu_on_device,
                                 cu_on_device_async,
                                 cu_module_load,
                                 cu_module_unload,
                                 cu_function,
                                 cu_allow_shared,
                                 cu_launch,
                                 cu_stream_create,
                                 cu_stream_destroy,
                                 cu_stream_sync,
                                 cu_begin_capture,
                                 cu_end_capture,
                                 cu_instantiate,
                                 cu_graph_launch,
                                 cu_exec_destroy,
                                 cu_graph_destroy,
                                 cu_describe,
                                 cu_order_codes,
                                 cu_close};

hodu_status hodu_cuda_device_open(int32_t ordinal, hodu_device_instance **out) {
  *out = NULL;
  int32_t count = 0;
  hodu_status status = hodu_cuda_device_count(&count);
  if (status)
    return status;
  if (count == 0)
    return hodu_make_status(HODU_NO_DEVICE,
                            "no CUDA device: the driver found none");
  if (ordinal >= count)
    return hodu_make_status(HODU_NO_DEVICE,
                            "no CUDA device %d: this machine has %d",
                            (int)ordinal, (int)count);
  cuda_device *cu = calloc(1, sizeof *cu);
  if (!cu)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  hodu_gpu_device_init(&cu->gpu, &cuda_api);
  cu->gpu.ordinal = ordinal;
  snprintf(cu->gpu.base.name, sizeof cu->gpu.base.name, "cuda:%d",
           (int)ordinal);
  int major = 0, minor = 0;
  CUresult result = cuda.cuDeviceGet(&cu->device, ordinal);
  if (!result)
    result = cuda.cuDeviceGetName(cu->gpu.base.name,
                                  (int)sizeof cu->gpu.base.name, cu->device);
  if (!result)
    result = cuda.cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cu->device);
  if (!result)
    result = cuda.cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cu->device);
  if (!result)
    result = cuda.cuDevicePrimaryCtxRetain(&cu->gpu.context, cu->device);
  if (result) {
    cu->gpu.context = NULL;
    status = hodu_gpu_error(&cu->gpu, "opening the device", result);
    cu_close(&cu->gpu);
    return status;
  }
  snprintf(cu->gpu.arch, sizeof cu->gpu.arch, "sm_%d%d", major, minor);
  /* The driver's version, for selection's key (asked only if exported). */
  int version = 0;
  CUresult (*get_version)(int *);
  *(void **)&get_version = dlsym(cuda.library, "cuDriverGetVersion");
  if (get_version && get_version(&version) == 0)
    snprintf(cu->gpu.driver, sizeof cu->gpu.driver, "CUDA driver %d.%d",
             version / 1000, version % 1000 / 10);
  *out = (hodu_device_instance *)&cu->gpu;
  return NULL;
}
