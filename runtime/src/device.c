/*===- device.c - the shared device registry and device queries ------------===*
 *
 * Every (kind, ordinal) is opened once and shared: models and device tensors
 * hold references, and the last release closes it. The registry is the one
 * lock in the runtime, taken only when a device is acquired or released.
 *
 *===----------------------------------------------------------------------===*/
#include "device.h"
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define HODU_MAX_OPEN_DEVICES 64

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static hodu_device *registry[HODU_MAX_OPEN_DEVICES];

static const char *const kind_names[HODU_DEVICE_KIND_COUNT] = {
    "cpu", "vulkan", "cuda", "hip", "metal"};

const char *hodu_device_kind_name(hodu_device_kind kind) {
  return (unsigned)kind < HODU_DEVICE_KIND_COUNT ? kind_names[kind] : NULL;
}

int hodu_device_kind_from_name(const char *name, hodu_device_kind *kind) {
  if (!name || !kind)
    return 0;
  for (int i = 0; i < HODU_DEVICE_KIND_COUNT; ++i)
    if (strcmp(name, kind_names[i]) == 0) {
      *kind = (hodu_device_kind)i;
      return 1;
    }
  /* ROCm bundles are made with --device=rocm; they run through HIP. */
  if (strcmp(name, "rocm") == 0) {
    *kind = HODU_DEVICE_HIP;
    return 1;
  }
  return 0;
}

hodu_status hodu_device_count(hodu_device_kind kind, int32_t *count) {
  if (!count)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'count' is NULL");
  switch (kind) {
  case HODU_DEVICE_CPU:
    *count = 1;
    return NULL;
  case HODU_DEVICE_VULKAN:
    return hodu_vulkan_device_count(count);
  case HODU_DEVICE_CUDA:
    return hodu_cuda_device_count(count);
  case HODU_DEVICE_HIP:
    return hodu_hip_device_count(count);
  case HODU_DEVICE_METAL:
    return hodu_make_status(HODU_NO_DEVICE,
                            "no Metal device: this runtime has no Metal "
                            "support (Metal runs on Apple systems)");
  default:
    break;
  }
  return hodu_make_status(HODU_INVALID_ARGUMENT, "invalid device kind %d",
                          (int)kind);
}

static hodu_status open_device(hodu_device_kind kind, int32_t ordinal,
                               hodu_device **out) {
  switch (kind) {
  case HODU_DEVICE_CPU:
    return hodu_cpu_device_open(ordinal, out);
  case HODU_DEVICE_VULKAN:
    return hodu_vulkan_device_open(ordinal, out);
  case HODU_DEVICE_CUDA:
    return hodu_cuda_device_open(ordinal, out);
  case HODU_DEVICE_HIP:
    return hodu_hip_device_open(ordinal, out);
  default: {
    int32_t ignored;
    return hodu_device_count(kind, &ignored);
  }
  }
}

hodu_status hodu_device_acquire(hodu_device_kind kind, int32_t ordinal,
                                hodu_device **out) {
  *out = NULL;
  if (ordinal < 0)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "device ordinal must be >= 0, got %d",
                            (int)ordinal);
  pthread_mutex_lock(&registry_lock);
  for (int i = 0; i < HODU_MAX_OPEN_DEVICES; ++i) {
    hodu_device *device = registry[i];
    if (device && device->kind == kind && device->ordinal == ordinal) {
      atomic_fetch_add(&device->references, 1);
      pthread_mutex_unlock(&registry_lock);
      *out = device;
      return NULL;
    }
  }
  int slot = -1;
  for (int i = 0; i < HODU_MAX_OPEN_DEVICES && slot < 0; ++i)
    if (!registry[i])
      slot = i;
  hodu_status status =
      slot < 0 ? hodu_make_status(HODU_OUT_OF_MEMORY,
                                  "more than %d devices open at once",
                                  HODU_MAX_OPEN_DEVICES)
               : open_device(kind, ordinal, out);
  if (!status) {
    (*out)->kind = kind;
    (*out)->ordinal = ordinal;
    atomic_init(&(*out)->references, 1);
    registry[slot] = *out;
  }
  pthread_mutex_unlock(&registry_lock);
  return status;
}

hodu_device *hodu_device_retain(hodu_device *device) {
  if (device)
    atomic_fetch_add(&device->references, 1);
  return device;
}

void hodu_device_release(hodu_device *device) {
  if (!device)
    return;
  pthread_mutex_lock(&registry_lock);
  int last = atomic_fetch_sub(&device->references, 1) == 1;
  if (last)
    for (int i = 0; i < HODU_MAX_OPEN_DEVICES; ++i)
      if (registry[i] == device)
        registry[i] = NULL;
  pthread_mutex_unlock(&registry_lock);
  if (last)
    device->ops->destroy(device);
}
