/*===- device.c - the shared device registry and device queries ------------===*
 *
 * Every (kind, ordinal) is opened once and shared: models and device tensors
 * hold references, and the last release closes it. The registry is the one
 * lock in the runtime, taken only when a device is acquired or released.
 *
 *===----------------------------------------------------------------------===*/
#include "device.h"
#include "internal.h"
#include "plugin.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HODU_MAX_OPEN_DEVICES 64

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static hodu_device *registry[HODU_MAX_OPEN_DEVICES];

static const char *const kind_names[HODU_DEVICE_KIND_COUNT] = {
    "cpu", "vulkan", "cuda", "hip", "metal", "plugin"};

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

/* libhodurt's own device table of `kind`, or NULL (Metal, plugins). */
static const hodu_device_ops *builtin_table(hodu_device_kind kind) {
  switch (kind) {
  case HODU_DEVICE_CPU:
    return &hodu_cpu_device_table;
  case HODU_DEVICE_VULKAN:
    return &hodu_vulkan_device_table;
  case HODU_DEVICE_CUDA:
    return &hodu_cuda_device_table;
  case HODU_DEVICE_HIP:
    return &hodu_hip_device_table;
  default:
    return NULL;
  }
}

const hodu_device_plugin_v1 *hodu_builtin_device_table(int32_t index) {
  return index >= 0 && index < HODU_DEVICE_METAL
             ? builtin_table((hodu_device_kind)index)
             : NULL;
}

/* The table a device of `kind` (and `name`, for plugin devices) runs on;
 * `plugin_id` gets the plugin's id ("" for libhodurt's own). */
static hodu_status find_table(hodu_device_kind kind, const char *name,
                              const hodu_device_ops **out, char *plugin_id,
                              size_t id_size) {
  *plugin_id = 0;
  if (kind == HODU_DEVICE_PLUGIN)
    return hodu_plugin_find_device(name, out, plugin_id, id_size);
  *out = builtin_table(kind);
  if (*out)
    return NULL;
  if (kind == HODU_DEVICE_METAL)
    return hodu_make_status(HODU_NO_DEVICE,
                            "no Metal device: this runtime has no Metal "
                            "support (Metal runs on Apple systems)");
  return hodu_make_status(HODU_INVALID_ARGUMENT, "invalid device kind %d",
                          (int)kind);
}

hodu_status hodu_device_count(hodu_device_kind kind, int32_t *count) {
  if (!count)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'count' is NULL");
  if (kind == HODU_DEVICE_PLUGIN)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "plugin devices are counted by name "
                            "(hodu_device_count_named)");
  const hodu_device_ops *table;
  char id[72];
  hodu_status status = find_table(kind, NULL, &table, id, sizeof id);
  return status ? status : table->count(count);
}

hodu_status hodu_device_count_named(const char *name, int32_t *count) {
  if (!count || !name)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'%s' is NULL",
                            count ? "name" : "count");
  hodu_device_kind kind;
  if (hodu_device_kind_from_name(name, &kind) && kind != HODU_DEVICE_PLUGIN)
    return hodu_device_count(kind, count);
  const hodu_device_ops *table;
  char id[72];
  hodu_status status =
      find_table(HODU_DEVICE_PLUGIN, name, &table, id, sizeof id);
  return status ? status : table->count(count);
}

/* A plugin's error with its id in front. */
static hodu_status prefixed(hodu_status status, const char *id) {
  hodu_status out =
      hodu_make_status(hodu_status_get_code(status), "device plugin '%s': %s",
                       id, hodu_status_message(status));
  hodu_status_free(status);
  return out;
}

/* Opens (kind, name, ordinal) through its table into a new record. */
static hodu_status open_device(hodu_device_kind kind, const char *name,
                               int32_t ordinal, hodu_device **out) {
  const hodu_device_ops *table;
  char id[72];
  hodu_status status = find_table(kind, name, &table, id, sizeof id);
  if (status)
    return status;
  hodu_device *device = calloc(1, sizeof *device);
  if (!device)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  device->ops = table;
  status = table->open(ordinal, &device->instance);
  if (!status && !device->instance)
    status = hodu_make_status(HODU_DEVICE_ERROR,
                              "device plugin '%s' opened device '%s' %d "
                              "without an instance",
                              id, name ? name : "", (int)ordinal);
  if (status) {
    free(device);
    return *id ? prefixed(status, id) : status;
  }
  hodu_device_info info = {sizeof info, 0, "", 0, ""};
  if (table->describe && !table->describe(device->instance, &info) &&
      info.name[0])
    snprintf(device->name, sizeof device->name, "%s", info.name);
  else
    snprintf(device->name, sizeof device->name, "%s:%d", table->name,
             (int)ordinal);
  if (kind == HODU_DEVICE_PLUGIN) {
    snprintf(device->plugin_device, sizeof device->plugin_device, "%s", name);
    snprintf(device->plugin_id, sizeof device->plugin_id, "%s", id);
  }
  *out = device;
  return NULL;
}

hodu_status hodu_device_acquire_named(hodu_device_kind kind, const char *name,
                                      int32_t ordinal, hodu_device **out) {
  *out = NULL;
  if (ordinal < 0)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "device ordinal must be >= 0, got %d",
                            (int)ordinal);
  if (kind != HODU_DEVICE_PLUGIN)
    name = "";
  else if (!name || !*name)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "a plugin device needs a name");
  pthread_mutex_lock(&registry_lock);
  for (int i = 0; i < HODU_MAX_OPEN_DEVICES; ++i) {
    hodu_device *device = registry[i];
    if (device && device->kind == kind && device->ordinal == ordinal &&
        strcmp(device->plugin_device, name) == 0) {
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
               : open_device(kind, name, ordinal, out);
  if (!status) {
    (*out)->kind = kind;
    (*out)->ordinal = ordinal;
    atomic_init(&(*out)->references, 1);
    registry[slot] = *out;
  }
  pthread_mutex_unlock(&registry_lock);
  return status;
}

hodu_status hodu_device_acquire(hodu_device_kind kind, int32_t ordinal,
                                hodu_device **out) {
  return hodu_device_acquire_named(kind, NULL, ordinal, out);
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
  if (last) {
    device->ops->close(device->instance);
    free(device);
  }
}

const hodu_device_plan *hodu_plan_view(hodu_plan *plan) {
  hodu_device_plan *v = &plan->view;
  v->struct_size = sizeof *v;
  v->num_inputs = plan->num_inputs;
  v->num_outputs = plan->num_outputs;
  v->num_meta = plan->num_meta;
  v->num_state = plan->num_state;
  v->num_devices = plan->num_devices;
  v->name = plan->name;
  v->devices = plan->devices;
  v->codes = plan->codes;
  v->kernels = plan->kernels;
  v->steps = plan->steps;
  v->args = plan->args;
  v->num_codes = plan->num_codes;
  v->num_kernels = plan->num_kernels;
  v->num_steps = plan->num_steps;
  v->num_args = plan->num_args;
  v->strings = plan->strings;
  v->strings_size = plan->strings_size;
  v->blobs = plan->blobs;
  v->blobs_size = plan->blobs_size;
  v->desc = plan->desc;
  return v;
}

hodu_status hodu_device_identity(hodu_device_kind kind, const char *name,
                                 int32_t ordinal, char *out, size_t size) {
  hodu_device *device = NULL;
  hodu_status status = hodu_device_acquire_named(kind, name, ordinal, &device);
  if (status)
    return status;
  hodu_device_info info = {sizeof info, 0, "", 0, ""};
  if (device->ops->describe)
    status = device->ops->describe(device->instance, &info);
  if (!status)
    snprintf(out, size, "%s; %s", device->name, info.driver);
  hodu_device_release(device);
  return status;
}
