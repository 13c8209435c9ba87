/*===- device.h - the device layer under the plan executor -----------------===*
 *
 * One small vtable per kind of device (CPU, Vulkan, CUDA, HIP). The plan
 * executor (session.c) sees only this: buffers, code loaded for one plan
 * device, and programs -- a run of consecutive plan steps on one device
 * with every argument bound -- that run eagerly, or are captured once and
 * replayed (Vulkan: one command buffer resubmitted; CUDA/HIP: a graph; CPU:
 * the resolved step list).
 *
 * Devices are opened once per (kind, ordinal) and shared by every model and
 * device tensor that uses them (reference counted), so a device tensor can
 * be bound to any model on the same device. A device's functions may be
 * called from several threads at once, except that one program (and the
 * buffers a caller writes) is used by one thread at a time. Never
 * installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_DEVICE_H
#define HODU_RUNTIME_DEVICE_H

#include "plan.h"

#include <stdatomic.h>

typedef struct hodu_device hodu_device;
typedef struct hodu_buffer hodu_buffer;   /* defined by each device */
typedef struct hodu_code hodu_code;       /* defined by each device */
typedef struct hodu_program hodu_program; /* defined by each device */

/* One resolved plan argument: a byte range of a device buffer, or (CPU
 * devices) of host memory. */
typedef struct hodu_binding {
  hodu_buffer *buffer; /* NULL when `host` is set */
  void *host;          /* CPU: the address of the buffer's byte 0 */
  uint64_t offset;
  uint64_t size;
} hodu_binding;

/* What running a program cost the host, for hodu_session_stats. */
typedef struct hodu_exec_stats {
  uint64_t submissions; /* vkQueueSubmit, cuLaunchKernel/cuGraphLaunch ... */
  uint64_t commands;    /* commands recorded or issued one by one */
} hodu_exec_stats;

typedef struct hodu_device_ops {
  void (*destroy)(hodu_device *device);
  /* A zero-filled buffer of at least `size` bytes (size may be 0). */
  hodu_status (*buffer_create)(hodu_device *device, uint64_t size,
                               hodu_buffer **out);
  void (*buffer_free)(hodu_device *device, hodu_buffer *buffer);
  /* The host address of a buffer the host can use directly, else NULL. */
  void *(*buffer_host)(hodu_buffer *buffer);
  hodu_status (*write)(hodu_device *device, hodu_buffer *buffer,
                       uint64_t offset, const void *data, uint64_t size);
  hodu_status (*read)(hodu_device *device, hodu_buffer *buffer, uint64_t offset,
                      void *data, uint64_t size);
  hodu_status (*copy)(hodu_device *device, const hodu_binding *from,
                      const hodu_binding *to, uint64_t size);
  /* Loads the code of plan device `index` (picking the code object that
   * fits) and prepares every kernel of it. `origin` names the model. */
  hodu_status (*code_load)(hodu_device *device, const hodu_plan *plan,
                           uint32_t index, const char *origin, hodu_code **out);
  void (*code_free)(hodu_device *device, hodu_code *code);
  /* Steps [first, first + count) of `plan`, all on this device, with
   * `bindings[a]` for plan argument a. The bindings are copied.
   * `symbol_values` (one per symbol of a descriptor plan's symbols; NULL
   * when it has none) is the session's storage, which outlives the
   * program: an ENTRY step reads it at every run and replay. Bundle
   * steps never read it (the executor runs a bundle's symbol as passes
   * of the plan). */
  hodu_status (*program_create)(hodu_device *device, hodu_code *code,
                                const hodu_plan *plan, uint32_t first,
                                uint32_t count, const hodu_binding *bindings,
                                const int64_t *symbol_values,
                                hodu_program **out);
  void (*program_free)(hodu_device *device, hodu_program *program);
  /* Runs it once and waits: every step issued one by one by the host. */
  hodu_status (*program_run)(hodu_device *device, hodu_program *program,
                             hodu_exec_stats *stats);
  /* Records it once into something that replays without host work per
   * step; program_release_capture frees exactly that. */
  hodu_status (*program_capture)(hodu_device *device, hodu_program *program);
  hodu_status (*program_replay)(hodu_device *device, hodu_program *program,
                                int64_t count, hodu_exec_stats *stats);
  void (*program_release_capture)(hodu_device *device, hodu_program *program);
} hodu_device_ops;

struct hodu_device {
  const hodu_device_ops *ops;
  hodu_device_kind kind;
  int32_t ordinal;
  char name[256];         /* e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" */
  _Atomic int references; /* managed by device.c */
};

/* The shared device (kind, ordinal), opened on first use. NO_DEVICE when
 * the driver or the device is missing. Release with hodu_device_release. */
hodu_status hodu_device_acquire(hodu_device_kind kind, int32_t ordinal,
                                hodu_device **out);
hodu_device *hodu_device_retain(hodu_device *device);
void hodu_device_release(hodu_device *device);

/* Each kind's entry points (device_<kind>.c). `count` is how many devices
 * of the kind there are: NO_DEVICE when the driver is missing. */
hodu_status hodu_cpu_device_open(int32_t ordinal, hodu_device **out);
hodu_status hodu_vulkan_device_count(int32_t *count);
hodu_status hodu_vulkan_device_open(int32_t ordinal, hodu_device **out);
hodu_status hodu_cuda_device_count(int32_t *count);
hodu_status hodu_cuda_device_open(int32_t ordinal, hodu_device **out);
hodu_status hodu_hip_device_count(int32_t *count);
hodu_status hodu_hip_device_open(int32_t ordinal, hodu_device **out);

/* The address of a binding on a CPU device. */
static inline uint8_t *hodu_binding_host(const hodu_device *device,
                                         const hodu_binding *binding) {
  uint8_t *base = binding->host ? (uint8_t *)binding->host
                  : binding->buffer
                      ? (uint8_t *)device->ops->buffer_host(binding->buffer)
                      : NULL;
  return base ? base + binding->offset : NULL;
}

#endif /* HODU_RUNTIME_DEVICE_H */
