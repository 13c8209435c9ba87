/*===- device.h - the device layer under the plan executor -----------------===*
 *
 * The plan executor (session.c) sees devices only through one table per
 * kind of device: the public hodu_device_plugin_v1 of hodu/plugin.h, which
 * libhodurt's own CPU, Vulkan, CUDA and HIP devices fill exactly as a
 * device plugin does (device.c finds a plugin device's table through the
 * plugin registry). A table gives buffers, code loaded for one plan
 * device, and programs -- a run of consecutive plan steps on one device
 * with every argument bound -- that run eagerly, or are captured once and
 * replayed (Vulkan: one command buffer resubmitted; CUDA/HIP: a graph; CPU:
 * the resolved step list; a plugin without capture calls: the program run
 * again).
 *
 * Devices are opened once per (kind, name, ordinal) and shared by every
 * model and device tensor that uses them (reference counted), so a device
 * tensor can be bound to any model on the same device. A device's
 * functions may be called from several threads at once, except that one
 * program (and the buffers a caller writes) is used by one thread at a
 * time. Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_DEVICE_H
#define HODU_RUNTIME_DEVICE_H

#include "hodu/plugin.h"
#include "plan.h"

#include <stdatomic.h>

typedef struct hodu_device hodu_device;

/* The device table is the public one (hodu/plugin.h): libhodurt's own
 * devices fill it exactly as a device plugin does. These are its names
 * inside the runtime. */
typedef hodu_device_plugin_v1 hodu_device_ops;
typedef hodu_device_buffer hodu_buffer;   /* defined by each device */
typedef hodu_device_code hodu_code;       /* defined by each device */
typedef hodu_device_program hodu_program; /* defined by each device */
typedef hodu_device_binding hodu_binding;
typedef hodu_device_exec_stats hodu_exec_stats;

/* The host's record of an opened device: its table and its instance. */
struct hodu_device {
  const hodu_device_ops *ops;
  hodu_device_instance *instance;
  hodu_device_kind kind;
  int32_t ordinal;
  char name[256];         /* e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" */
  /* HODU_DEVICE_PLUGIN: the device's name ("nulldev") and its plugin's
   * id; "" for libhodurt's own devices. */
  char plugin_device[64];
  char plugin_id[72];
  _Atomic int references; /* managed by device.c */
};

/* The shared device (kind, ordinal), opened on first use. NO_DEVICE when
 * the driver or the device is missing. Release with hodu_device_release. */
hodu_status hodu_device_acquire(hodu_device_kind kind, int32_t ordinal,
                                hodu_device **out);
/* The same for a plugin device of name `name` (kind HODU_DEVICE_PLUGIN):
 * NO_DEVICE naming it when no plugin provides it. */
hodu_status hodu_device_acquire_named(hodu_device_kind kind, const char *name,
                                      int32_t ordinal, hodu_device **out);
hodu_device *hodu_device_retain(hodu_device *device);
void hodu_device_release(hodu_device *device);

/* libhodurt's own devices, one table per kind (device_<kind>.c). */
extern const hodu_device_ops hodu_cpu_device_table;
extern const hodu_device_ops hodu_vulkan_device_table;
extern const hodu_device_ops hodu_cuda_device_table;
extern const hodu_device_ops hodu_hip_device_table;

/* Their count and open entry points, which the tables hold. */
hodu_status hodu_vulkan_device_count(int32_t *count);
hodu_status hodu_vulkan_device_open(int32_t ordinal,
                                    hodu_device_instance **out);
hodu_status hodu_cuda_device_count(int32_t *count);
hodu_status hodu_cuda_device_open(int32_t ordinal, hodu_device_instance **out);
hodu_status hodu_hip_device_count(int32_t *count);
hodu_status hodu_hip_device_open(int32_t ordinal, hodu_device_instance **out);

/* The address of a binding on a device whose buffers the host can use
 * (`ops`: that device's table). */
static inline uint8_t *hodu_binding_host(const hodu_device_ops *ops,
                                         const hodu_binding *binding) {
  uint8_t *base = binding->host ? (uint8_t *)binding->host
                  : binding->buffer && ops->buffer_host
                      ? (uint8_t *)ops->buffer_host(binding->buffer)
                      : NULL;
  return base ? base + binding->offset : NULL;
}

/* A buffer's host address, or NULL (also when the device has no
 * buffer_host). */
static inline void *hodu_device_buffer_host(const hodu_device *device,
                                            hodu_buffer *buffer) {
  return device->ops->buffer_host ? device->ops->buffer_host(buffer) : NULL;
}

/* Capture, replay and release through the table; a device without the
 * (optional) capture calls keeps the program and replays by running it. */
static inline hodu_status hodu_device_capture(hodu_device *device,
                                              hodu_program *program) {
  return device->ops->program_capture
             ? device->ops->program_capture(device->instance, program)
             : NULL;
}
static inline hodu_status hodu_device_replay(hodu_device *device,
                                             hodu_program *program,
                                             int64_t count,
                                             hodu_exec_stats *stats) {
  if (device->ops->program_replay)
    return device->ops->program_replay(device->instance, program, count, stats);
  hodu_status status = NULL;
  for (int64_t i = 0; i < count && !status; ++i)
    status = device->ops->program_run(device->instance, program, stats);
  return status;
}
static inline void hodu_device_release_capture(hodu_device *device,
                                               hodu_program *program) {
  if (device->ops->program_release_capture)
    device->ops->program_release_capture(device->instance, program);
}

/* "NAME; DRIVER" of device (kind, name, ordinal) from its describe, for
 * selection's key (device.c). */
hodu_status hodu_device_identity(hodu_device_kind kind, const char *name,
                                 int32_t ordinal, char *out, size_t size);

/* The plan as devices see it (refreshed from `plan`'s tables). */
const hodu_device_plan *hodu_plan_view(hodu_plan *plan);

#endif /* HODU_RUNTIME_DEVICE_H */
