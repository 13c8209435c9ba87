/*===- gpu.h - what the CUDA and HIP devices share
 *--------------------------===*
 *
 * CUDA's driver API and HIP's module API are alike: device pointers,
 * modules loaded from memory, launches with pointer parameters on a stream,
 * and graphs made by stream capture. device_gpu.c implements the device
 * vtable once over the small table below; device_cuda.c and device_hip.c
 * fill it from the driver library they dlopen (no headers, no link-time
 * dependency: their few declarations are their own). Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_GPU_H
#define HODU_RUNTIME_GPU_H

#include "device.h"

typedef struct gpu_device gpu_device;

/* Every function returns the driver's error code: 0 is success. */
typedef struct gpu_api {
  const char *name; /* "CUDA", "HIP" */
  int (*make_current)(gpu_device *device);
  int (*alloc)(uint64_t *pointer, uint64_t size);
  int (*free)(uint64_t pointer);
  int (*zero)(uint64_t pointer, uint64_t size);
  int (*to_device)(uint64_t target, const void *source, uint64_t size);
  int (*to_host)(void *target, uint64_t source, uint64_t size);
  int (*on_device)(uint64_t target, uint64_t source, uint64_t size);
  int (*on_device_async)(uint64_t target, uint64_t source, uint64_t size,
                         void *stream);
  int (*module_load)(void **module, const void *image);
  int (*module_unload)(void *module);
  int (*function)(void **function, void *module, const char *name);
  /* Allows `bytes` of dynamic shared memory; NULL when not needed. */
  int (*allow_shared)(void *function, uint32_t bytes);
  int (*launch)(void *function, const uint32_t grid[3], const uint32_t block[3],
                uint32_t shared, void *stream, void **params);
  int (*stream_create)(void **stream);
  int (*stream_destroy)(void *stream);
  int (*stream_sync)(void *stream);
  int (*begin_capture)(void *stream);
  int (*end_capture)(void *stream, void **graph);
  int (*instantiate)(void **exec, void *graph);
  int (*graph_launch)(void *exec, void *stream);
  int (*exec_destroy)(void *exec);
  int (*graph_destroy)(void *graph);
  /* "CUDA_ERROR_OUT_OF_MEMORY: out of memory" into `buffer`. */
  void (*describe)(int error, char *buffer, size_t size);
  /* The order in which to try plan device `index`'s code objects (indices
   * into plan->codes) on this device; returns how many. */
  uint32_t (*order_codes)(const gpu_device *device,
                          const hodu_device_plan *plan, uint32_t index,
                          uint32_t *order);
  void (*close)(gpu_device *device);
} gpu_api;

struct gpu_device {
  struct {
    char name[256]; /* the device's name, for messages and describe */
  } base;
  const gpu_api *api;
  void *context; /* CUDA: the primary context */
  int ordinal;
  char arch[32];    /* "sm_90"; "" when unknown */
  char driver[128]; /* "CUDA driver 13.0"; "" when unknown */
};

/* A device over `api` (opened by the caller); fills the vtable. */
void hodu_gpu_device_init(gpu_device *device, const gpu_api *api);

/* A status for a failed driver call: "<api> device '<name>': <what>
 * failed (<describe>)"; OUT_OF_MEMORY when `out_of_memory` is the code. */
hodu_status hodu_gpu_error(const gpu_device *device, const char *what,
                           int error);

#endif /* HODU_RUNTIME_GPU_H */
