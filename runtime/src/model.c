/*===- model.c - loading and running compiled models -----------------------===*
 *
 * A model is a plan: read from a bundle (bundle.c), or made here from a CPU
 * descriptor (one CPU device, one ENTRY step). Loading opens each device
 * the plan uses, loads its code and uploads the weights once; everything
 * per run lives in sessions (session.c).
 *
 * A hodu_model is immutable after creation apart from its run caches, so
 * runs need no locks. Shared-library models keep today's direct path:
 * every run builds its own argument arrays and context on its stack (or
 * heap for very wide models) and takes a workspace from a small lock-free
 * cache (atomic slots), so repeated runs reuse warm scratch memory. Bundle
 * runs take a whole session from a similar cache. The queries on a loaded
 * model (its tensors, devices and plan) are in model_query.c.
 *
 *===----------------------------------------------------------------------===*/
#include "plugin.h"
#include "session.h"
#include "symbols.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*===--------------------------------------------------------------------===*
 * Descriptor validation
 *===--------------------------------------------------------------------===*/

/* The bytes of a described tensor, its dynamic dims (if any) counted as 1.
 * Returns 0 when the size overflows. */
static int static_size(const hodu_tensor_desc *tensor, size_t *bytes) {
  int64_t elements = 1;
  for (int32_t d = 0; d < tensor->rank; ++d) {
    int64_t extent =
        tensor->shape[d] == HODU_DIM_DYNAMIC ? 1 : tensor->shape[d];
    if (__builtin_mul_overflow(elements, extent, &elements))
      return 0;
  }
  return hodu_shape_size(1, &elements,
                         hodu_dtype_size((hodu_dtype)tensor->dtype), &elements,
                         bytes);
}

/* `dynamic`: HODU_DIM_DYNAMIC extents are allowed (version-2 tables; the
 * symbol validation checks that each has its record). */
static hodu_status validate_tensors(const char *origin, const char *kind,
                                    int32_t count,
                                    const hodu_tensor_desc *tensors,
                                    int dynamic) {
  if (count < 0)
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "%s: malformed descriptor: %d %ss", origin,
                            (int)count, kind);
  if (count > 0 && !tensors)
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "%s: malformed descriptor: %d %ss but no %s "
                            "table",
                            origin, (int)count, kind, kind);
  for (int32_t i = 0; i < count; ++i) {
    const hodu_tensor_desc *tensor = &tensors[i];
    if (!tensor->name)
      return hodu_make_status(HODU_INVALID_ARTIFACT,
                              "%s: malformed descriptor: %s %d has no name",
                              origin, kind, (int)i);
    if (hodu_dtype_size((hodu_dtype)tensor->dtype) == 0)
      return hodu_make_status(HODU_INVALID_ARTIFACT,
                              "%s: malformed descriptor: %s '%s' has unknown "
                              "dtype %d",
                              origin, kind, tensor->name, (int)tensor->dtype);
    if (tensor->rank < 0 || (tensor->rank > 0 && !tensor->shape))
      return hodu_make_status(HODU_INVALID_ARTIFACT,
                              "%s: malformed descriptor: %s '%s' has rank %d "
                              "and %s shape",
                              origin, kind, tensor->name, (int)tensor->rank,
                              tensor->shape ? "a" : "no");
    for (int32_t d = 0; d < tensor->rank; ++d)
      if (tensor->shape[d] < 0 &&
          !(dynamic && tensor->shape[d] == HODU_DIM_DYNAMIC))
        return hodu_make_status(HODU_INVALID_ARTIFACT,
                                "%s: malformed descriptor: %s '%s' has a "
                                "dynamic or negative extent in dimension %d",
                                origin, kind, tensor->name, (int)d);
    size_t bytes;
    if (!static_size(tensor, &bytes))
      return hodu_make_status(HODU_INVALID_ARTIFACT,
                              "%s: malformed descriptor: %s '%s' is too "
                              "large",
                              origin, kind, tensor->name);
  }
  return NULL;
}

/* `origin` names the artifact in messages ("'model.so'" or "descriptor"). */
static hodu_status validate_descriptor(const char *origin,
                                       const hodu_model_desc *desc) {
  if (desc->abi_version < HODU_ABI_VERSION_MIN ||
      desc->abi_version > HODU_ABI_VERSION)
    return hodu_make_status(HODU_INCOMPATIBLE,
                            "%s was built for Hodu ABI version %u, but this "
                            "runtime (%s) loads ABI versions %u to %u",
                            origin, (unsigned)desc->abi_version,
                            HODU_RUNTIME_VERSION,
                            (unsigned)HODU_ABI_VERSION_MIN,
                            (unsigned)HODU_ABI_VERSION);
  size_t required = offsetof(hodu_model_desc, entry) + sizeof(hodu_entry_fn);
  if (desc->struct_size < required)
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "%s: malformed descriptor: struct_size %u is "
                            "smaller than the %zu bytes of ABI version %u",
                            origin, (unsigned)desc->struct_size, required,
                            (unsigned)HODU_ABI_VERSION);
  if (!desc->entry)
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "%s: malformed descriptor: no entry function",
                            origin);
  int dynamic = hodu_desc_has_dynamic_dims(desc);
  hodu_status status = validate_tensors(origin, "input", desc->num_inputs,
                                        desc->inputs, dynamic);
  if (!status)
    status = validate_tensors(origin, "output", desc->num_outputs,
                              desc->outputs, dynamic);
  if (!status && DESC_HAS(desc, num_meta_slots) &&
      (desc->num_meta_slots < 0 || desc->num_meta_slots > desc->num_inputs))
    status = hodu_make_status(HODU_INVALID_ARTIFACT,
                              "%s: malformed descriptor: %d meta slots, but "
                              "%d inputs (the slots are the last inputs)",
                              origin, (int)desc->num_meta_slots,
                              (int)desc->num_inputs);
  int32_t num_meta = DESC_HAS(desc, num_meta_slots) ? desc->num_meta_slots : 0;
  if (!status && DESC_HAS(desc, state_tensor_init) &&
      (desc->num_state_tensors < 0 ||
       desc->num_state_tensors > desc->num_outputs ||
       desc->num_state_tensors > desc->num_inputs - num_meta))
    status = hodu_make_status(HODU_INVALID_ARTIFACT,
                              "%s: malformed descriptor: %d state tensors, "
                              "but %d inputs (%d of them meta slots) and %d "
                              "outputs (each state tensor is an input before "
                              "the meta slots and one of the last outputs)",
                              origin, (int)desc->num_state_tensors,
                              (int)desc->num_inputs, (int)num_meta,
                              (int)desc->num_outputs);
  if (!status && DESC_HAS(desc, check_messages) &&
      (desc->num_checks < 0 || (desc->num_checks > 0 && !desc->check_messages)))
    status = hodu_make_status(HODU_INVALID_ARTIFACT,
                              "%s: malformed descriptor: %d run-time checks "
                              "%s",
                              origin, (int)desc->num_checks,
                              desc->num_checks < 0 ? "(a negative count)"
                                                   : "without their messages");
  if (!status)
    status = hodu_validate_symbols(origin, desc);
  return status;
}

hodu_status hodu_entry_failure(const hodu_model_desc *desc, const char *name,
                               int32_t result) {
  if (result >= 2 && DESC_HAS(desc, check_messages) &&
      result - 2 < desc->num_checks && desc->check_messages &&
      desc->check_messages[result - 2])
    return hodu_make_status(HODU_RUN_FAILED,
                            "model '%s': the input data breaks a run-time "
                            "check: %s",
                            name, desc->check_messages[result - 2]);
  if (result == 1)
    return hodu_make_status(HODU_OUT_OF_MEMORY,
                            "model '%s' failed: no memory for its workspace",
                            name);
  return hodu_make_status(HODU_RUN_FAILED,
                          "model '%s' failed: its entry returned %d", name,
                          (int)result);
}

/*===--------------------------------------------------------------------===*
 * Plans
 *===--------------------------------------------------------------------===*/

/* A plan for a descriptor: one CPU device whose arena is the workspace,
 * and one ENTRY step taking the inputs, the meta slots, the outputs and
 * the arena. Tensor names and shapes are borrowed from the descriptor. */
static hodu_status plan_from_descriptor(const hodu_model_desc *desc,
                                        int32_t num_meta, uint64_t workspace,
                                        hodu_plan **out) {
  *out = NULL;
  hodu_plan *plan = calloc(1, sizeof *plan);
  if (!plan)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  plan->desc = desc;
  plan->chunk_symbol = -1; /* the entry runs them */
  plan->name = desc->model_name ? desc->model_name : "";
  plan->producer = "";
  plan->num_inputs = (uint32_t)(desc->num_inputs - num_meta);
  plan->num_outputs = (uint32_t)desc->num_outputs;
  plan->num_meta = (uint32_t)num_meta;
  uint32_t count = plan->num_inputs + plan->num_outputs + plan->num_meta;
  uint32_t num_args = count + (workspace ? 1 : 0);
  plan->tensors = calloc(count ? count : 1, sizeof *plan->tensors);
  plan->devices = calloc(1, sizeof *plan->devices);
  plan->steps = calloc(1, sizeof *plan->steps);
  plan->args = calloc(num_args ? num_args : 1, sizeof *plan->args);
  if (!plan->tensors || !plan->devices || !plan->steps || !plan->args) {
    hodu_plan_free(plan);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  plan->num_devices = 1;
  plan->devices[0].kind = HODU_DEVICE_CPU;
  plan->devices[0].arena_size = workspace;
  plan->num_steps = 1;
  plan->steps[0].op = HODU_STEP_ENTRY_;
  plan->steps[0].num_args = num_args;
  plan->num_args = num_args;
  uint32_t arg = 0;
  for (uint32_t i = 0; i < count; ++i) {
    hodu_plan_tensor *t = &plan->tensors[i];
    uint32_t meta_begin = plan->num_inputs + plan->num_outputs;
    /* Tensor order: inputs, outputs, meta (as in bundles); the descriptor
     * has the meta slots at the end of its inputs. */
    t->desc = i < plan->num_inputs ? desc->inputs[i]
              : i < meta_begin
                  ? desc->outputs[i - plan->num_inputs]
                  : desc->inputs[plan->num_inputs + (i - meta_begin)];
    /* A tensor with dynamic dims has a size only in a run: 0 here (CPU
     * bindings are addresses, and sizes matter only to GPU mirrors). */
    int64_t elements;
    size_t bytes = 0;
    int dynamic = 0;
    for (int32_t d = 0; d < t->desc.rank; ++d)
      dynamic |= t->desc.shape[d] == HODU_DIM_DYNAMIC;
    if (!dynamic)
      hodu_shape_size(t->desc.rank, t->desc.shape,
                      hodu_dtype_size((hodu_dtype)t->desc.dtype), &elements,
                      &bytes);
    t->bytes = bytes;
  }
  /* ENTRY args: INPUT..., META..., OUTPUT..., ARENA. */
  for (uint32_t i = 0; i < plan->num_inputs; ++i, ++arg)
    plan->args[arg] = (hodu_bundle_arg){HODU_SPACE_INPUT, i, 0,
                                        plan->tensors[i].bytes};
  for (uint32_t i = 0; i < plan->num_meta; ++i, ++arg)
    plan->args[arg] = (hodu_bundle_arg){
        HODU_SPACE_META, i, 0,
        plan->tensors[plan->num_inputs + plan->num_outputs + i].bytes};
  for (uint32_t i = 0; i < plan->num_outputs; ++i, ++arg)
    plan->args[arg] = (hodu_bundle_arg){
        HODU_SPACE_OUTPUT, i, 0, plan->tensors[plan->num_inputs + i].bytes};
  if (workspace)
    plan->args[arg] = (hodu_bundle_arg){HODU_SPACE_ARENA, 0, 0, workspace};
  *out = plan;
  return NULL;
}

/*===--------------------------------------------------------------------===*
 * Creation
 *===--------------------------------------------------------------------===*/

void hodu_model_free(hodu_model *model) {
  if (!model)
    return;
  for (int i = 0; i < HODU_RUN_CACHE_SLOTS; ++i) {
    free(atomic_load(&model->workspaces[i]));
    hodu_session_free(atomic_load(&model->sessions[i]));
  }
  if (model->plan && model->devices) {
    for (uint32_t d = 0; d < model->plan->num_devices; ++d) {
      hodu_device *device = model->devices[d];
      if (!device)
        continue;
      if (model->weights && model->weights[d])
        device->ops->buffer_free(device->instance, model->weights[d]);
      if (model->codes && model->codes[d])
        device->ops->code_free(device->instance, model->codes[d]);
      hodu_device_release(device);
    }
  }
  free(model->devices);
  free(model->codes);
  free(model->weights);
  free(model->meta_init);
  free(model->meta_zeros);
  hodu_plan_free(model->plan);
  if (model->library)
    dlclose(model->library);
  hodu_engine_state_free(model->engine);
  free(model->source);
  free(model->origin);
  free(model->target);
  free(model);
}

static char *quoted(const char *text) {
  size_t size = strlen(text) + 3;
  char *copy = malloc(size);
  if (copy)
    snprintf(copy, size, "'%s'", text);
  return copy;
}

/* Opens every plan device (the main one as `options` say), loads each
 * device's code and uploads WEIGHTS to each non-CPU device that reads it. */
static hodu_status open_devices(hodu_model *model,
                                const hodu_load_options *options) {
  const hodu_plan *plan = model->plan;
  uint32_t n = plan->num_devices;
  model->devices = calloc(n, sizeof *model->devices);
  model->codes = calloc(n, sizeof *model->codes);
  model->weights = calloc(n, sizeof *model->weights);
  if (!model->devices || !model->codes || !model->weights)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  hodu_device_kind main_kind =
      (hodu_device_kind)plan->devices[plan->main_device].kind;
  const hodu_device_plan *view = hodu_plan_view(model->plan);
  if (options && options->device_kind >= 0 &&
      (hodu_device_kind)options->device_kind != main_kind) {
    const char *wanted = hodu_device_kind_name(
        (hodu_device_kind)options->device_kind);
    char kinds[128] = "";
    size_t used = 0;
    for (uint32_t d = 0; d < n && used < sizeof kinds; ++d) {
      const char *name =
          hodu_device_kind_name((hodu_device_kind)plan->devices[d].kind);
      if (strstr(kinds, name))
        continue;
      int written = snprintf(kinds + used, sizeof kinds - used, "%s%s",
                             used ? ", " : "", name);
      if (written > 0)
        used += (size_t)written;
    }
    if (!wanted)
      return hodu_make_status(HODU_INVALID_ARGUMENT,
                              "invalid device kind %d",
                              (int)options->device_kind);
    return hodu_make_status(HODU_INCOMPATIBLE,
                            "%s cannot run on %s: it was compiled for %s",
                            model->origin, wanted, kinds);
  }
  int32_t ordinal = options ? options->device_ordinal : 0;
  for (uint32_t d = 0; d < n; ++d) {
    hodu_device_kind kind = (hodu_device_kind)plan->devices[d].kind;
    hodu_status status = hodu_device_acquire_named(
        kind, plan->strings ? plan->strings + plan->devices[d].name : NULL,
        kind == main_kind && kind != HODU_DEVICE_CPU ? ordinal : 0,
        &model->devices[d]);
    if (status)
      return status;
    hodu_device *device = model->devices[d];
    status = device->ops->code_load(device->instance, view, d, model->origin,
                                    &model->codes[d]);
    if (status)
      return status;
    int reads_weights = 0;
    for (uint32_t a = 0; a < plan->num_args && !reads_weights; ++a)
      reads_weights = plan->args[a].space == HODU_SPACE_WEIGHTS &&
                      plan->args[a].index == d;
    if (reads_weights && kind != HODU_DEVICE_CPU) {
      status = device->ops->buffer_create(device->instance, plan->weights_size,
                                          &model->weights[d]);
      if (!status)
        status = device->ops->write(device->instance, model->weights[d], 0,
                                    plan->weights, plan->weights_size);
      if (status)
        return status;
    }
  }
  return NULL;
}

static hodu_status new_model(hodu_plan *plan, const hodu_model_desc *desc,
                             void *library, const char *origin,
                             const hodu_load_options *options,
                             hodu_model **out) {
  hodu_model *model = calloc(1, sizeof(*model));
  if (!model) {
    hodu_plan_free(plan);
    if (library)
      dlclose(library);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  model->plan = plan;
  model->desc = desc;
  model->library = library;
  for (int i = 0; i < HODU_RUN_CACHE_SLOTS; ++i) {
    atomic_init(&model->workspaces[i], NULL);
    atomic_init(&model->sessions[i], NULL);
  }
  model->origin = quoted(origin);
  /* A bundle's main device kind, or the plugin device it names. */
  const hodu_bundle_device *main_device =
      desc ? NULL : &plan->devices[plan->main_device];
  model->target = hodu_copy_string(
      desc ? (desc->target ? desc->target : "")
      : main_device->kind == HODU_DEVICE_PLUGIN
          ? plan->strings + main_device->name
          : hodu_device_kind_name((hodu_device_kind)main_device->kind));
  hodu_status status =
      model->origin && model->target
          ? NULL
          : hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  if (!status && desc) {
    model->workspace_size = plan->devices[0].arena_size;
    uint32_t n = plan->num_meta;
    uint64_t largest = 0;
    for (uint32_t i = 0; i < n; ++i) {
      uint64_t bytes =
          plan->tensors[plan->num_inputs + plan->num_outputs + i].bytes;
      largest = bytes > largest ? bytes : largest;
    }
    model->meta_init = calloc(n ? n : 1, sizeof *model->meta_init);
    model->meta_zeros = calloc(1, largest ? (size_t)largest : 1);
    if (!model->meta_init || !model->meta_zeros)
      status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
    for (uint32_t i = 0; i < n && !status; ++i) {
      const void *init = DESC_HAS(desc, meta_slot_init) && desc->meta_slot_init
                             ? desc->meta_slot_init[i]
                             : NULL;
      model->meta_init[i] = init ? init : model->meta_zeros;
      plan->tensors[plan->num_inputs + plan->num_outputs + i].init = init;
    }
  }
  model->ordinal = options ? options->device_ordinal : 0;
  model->inspect_only =
      !desc && options &&
      options->struct_size >= offsetof(hodu_load_options, inspect_only) +
                                  sizeof(int32_t) &&
      options->inspect_only;
  if (!status && !model->inspect_only)
    status = open_devices(model, options);
  if (status) {
    hodu_model_free(model);
    return status;
  }
  *out = model;
  return NULL;
}

hodu_status hodu_check_runnable(const hodu_model *model) {
  if (!model->inspect_only)
    return NULL;
  return hodu_make_status(HODU_INVALID_STATE,
                          "model '%s' was loaded for inspection only "
                          "(hodu_load_options.inspect_only): it opened no "
                          "device to run on",
                          hodu_model_name(model));
}

/* A plan for a validated descriptor, then the model. */
static hodu_status model_from_descriptor(const hodu_model_desc *desc,
                                         void *library, const char *origin,
                                         const hodu_load_options *options,
                                         hodu_model **out) {
  int32_t num_meta =
      DESC_HAS(desc, num_meta_slots) ? desc->num_meta_slots : 0;
  uint64_t workspace = DESC_HAS(desc, workspace_size) ? desc->workspace_size
                                                      : 0;
  if (options && options->device_kind >= 0 &&
      options->device_kind != HODU_DEVICE_CPU) {
    const char *wanted =
        hodu_device_kind_name((hodu_device_kind)options->device_kind);
    if (library)
      dlclose(library);
    return wanted ? hodu_make_status(HODU_INCOMPATIBLE,
                                     "'%s' cannot run on %s: it is a CPU "
                                     "artifact (compile with hoduc "
                                     "--device=%s for a bundle)",
                                     origin, wanted, wanted)
                  : hodu_make_status(HODU_INVALID_ARGUMENT,
                                     "invalid device kind %d",
                                     (int)options->device_kind);
  }
  hodu_plan *plan;
  hodu_status status =
      plan_from_descriptor(desc, num_meta, workspace, &plan);
  /* State tensors: the last inputs before the meta slots and the last
   * outputs, kept by sessions. */
  int32_t num_state =
      DESC_HAS(desc, state_tensor_init) ? desc->num_state_tensors : 0;
  if (!status && num_state > 0) {
    status = hodu_plan_split_state(
        plan, (uint32_t)num_state,
        (const uint8_t *const *)desc->state_tensor_init, origin);
    if (status)
      hodu_plan_free(plan);
  }
  if (status) {
    if (library)
      dlclose(library);
    return status;
  }
  return new_model(plan, desc, library, origin, options, out);
}

hodu_status hodu_model_from_engine(const hodu_model_desc *desc,
                                   struct hodu_engine_state *state,
                                   const char *origin, hodu_model **out) {
  hodu_plan *plan;
  hodu_status status = plan_from_descriptor(desc, 0, 0, &plan);
  if (!status)
    status = new_model(plan, desc, NULL, origin, NULL, out);
  if (status) {
    hodu_engine_state_free(state);
    return status;
  }
  (*out)->engine = state;
  return NULL;
}

/* Whether the file starts like an ELF object. */
static int is_elf_file(const char *path) {
  unsigned char magic[4] = {0};
  FILE *file = fopen(path, "rb");
  if (!file)
    return 0;
  size_t n = fread(magic, 1, sizeof magic, file);
  fclose(file);
  return n == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' &&
         magic[3] == 'F';
}

hodu_status hodu_model_from_descriptor(const hodu_model_desc *descriptor,
                                       hodu_model **out) {
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  if (!descriptor)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "descriptor is NULL");
  hodu_status status = validate_descriptor("descriptor", descriptor);
  if (status)
    return status;
  return model_from_descriptor(descriptor, NULL, "descriptor", NULL, out);
}

static const char *errno_text(int error) {
  /* strerror() is not thread-safe; these cover what stat() reports. */
  switch (error) {
  case ENOENT:
    return "no such file";
  case EACCES:
    return "permission denied";
  case ENOTDIR:
    return "a path component is not a directory";
  case ENAMETOOLONG:
    return "path too long";
  case ELOOP:
    return "too many symbolic links";
  default:
    return "cannot access it";
  }
}

void hodu_load_options_init(hodu_load_options *options) {
  if (!options)
    return;
  memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->device_kind = -1;
  options->device_ordinal = 0;
}

/* `path` is opened; `display` names it in messages (they differ for a
 * library loaded from memory). */
static hodu_status load_library(const char *path, const char *display,
                                const hodu_load_options *options,
                                hodu_model **out) {
  /* dlopen searches the library path for names without a slash; a user
   * naming "model.so" means the file in the current directory. */
  const char *open_path = path;
  char *local_path = NULL;
  if (!strchr(path, '/')) {
    size_t length = strlen(path);
    local_path = malloc(length + 3);
    if (!local_path)
      return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
    memcpy(local_path, "./", 2);
    memcpy(local_path + 2, path, length + 1);
    open_path = local_path;
  }
  hodu_status checked = hodu_check_elf_file(open_path, display);
  if (checked) {
    free(local_path);
    return checked;
  }
  void *library = dlopen(open_path, RTLD_NOW | RTLD_LOCAL);
  free(local_path);
  if (!library) {
    const char *reason = dlerror();
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "'%s' is not a Hodu artifact: cannot load it as "
                            "a shared library (%s)",
                            display, reason ? reason : "unknown reason");
  }

  hodu_fill_thread_api(library);
  const hodu_model_desc *desc =
      (const hodu_model_desc *)dlsym(library, HODU_DESCRIPTOR_SYMBOL);
  if (!desc) {
    dlclose(library);
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "'%s' is not a Hodu artifact: it does not export "
                            "the symbol '%s'",
                            display, HODU_DESCRIPTOR_SYMBOL);
  }

  /* The fields up to struct_size must be there to be read at all. */
  hodu_status symbol_status = hodu_check_descriptor_symbol(
      display, desc, offsetof(hodu_model_desc, struct_size) + sizeof(uint32_t));
  if (symbol_status) {
    dlclose(library);
    return symbol_status;
  }

  char *origin = quoted(display);
  if (!origin) {
    dlclose(library);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  hodu_status status = validate_descriptor(origin, desc);
  free(origin);
  if (status) {
    dlclose(library);
    return status;
  }
  return model_from_descriptor(desc, library, display, options, out);
}

hodu_status hodu_model_load_with_options(const char *path,
                                         const hodu_load_options *options,
                                         hodu_model **out) {
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  if (!path || !*path)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "model path is empty");
  if (options && options->struct_size < offsetof(hodu_load_options,
                                                 device_ordinal) +
                                            sizeof(int32_t))
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "load options: struct_size %u is too small (use "
                            "hodu_load_options_init)",
                            (unsigned)options->struct_size);
  if (options && options->device_ordinal < 0)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "load options: device ordinal %d is negative",
                            (int)options->device_ordinal);

  /* dlopen's own messages for a missing file are vague; check first. */
  struct stat info;
  if (stat(path, &info) != 0)
    return hodu_make_status(HODU_NOT_FOUND, "cannot open model '%s': %s",
                            path, errno_text(errno));
  if (S_ISDIR(info.st_mode))
    return hodu_make_status(HODU_NOT_FOUND,
                            "cannot open model '%s': it is a directory",
                            path);
  /* A FIFO or a device would block or never end: models are files. */
  if (!S_ISREG(info.st_mode))
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "cannot read model '%s': it is not a regular "
                            "file",
                            path);
  int wants_engine = options &&
                     options->struct_size >=
                         offsetof(hodu_load_options, engine) +
                             sizeof(options->engine) &&
                     options->engine;
  /* HODU_ENGINE applies to files that are no artifact only. */
  if (wants_engine || (!hodu_is_bundle_file(path) && !is_elf_file(path))) {
    int handled = 0;
    hodu_status status = hodu_model_load_by_plugin(path, options, &handled,
                                                   out);
    if (status || handled)
      return status;
  }
  if (!hodu_is_bundle_file(path))
    return load_library(path, path, options, out);
  hodu_plan *plan;
  hodu_status status = hodu_bundle_read_file(path, &plan);
  if (status)
    return status;
  return new_model(plan, NULL, NULL, path, options, out);
}

hodu_status hodu_model_load_memory(const void *data, size_t size,
                                   const char *name,
                                   const hodu_load_options *options,
                                   hodu_model **out) {
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  if (!data || size == 0)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "no artifact bytes");
  if (!name || !*name)
    name = "(memory)";
  const uint8_t *bytes = data;
  if (size >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' &&
      bytes[3] == 'F') {
    /* dlopen needs a file: an anonymous one in memory (memfd), opened by
     * its /proc path, closed once loaded (the mapping keeps it). */
    int fd = memfd_create("hodu-model", MFD_CLOEXEC);
    if (fd < 0)
      return hodu_make_status(HODU_OUT_OF_MEMORY,
                              "'%s': cannot make an in-memory file: %s", name,
                              errno_text(errno));
    size_t done = 0;
    while (done < size) {
      ssize_t n = write(fd, bytes + done, size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += (size_t)n;
    }
    hodu_status status = NULL;
    if (done != size) {
      status = hodu_make_status(HODU_OUT_OF_MEMORY,
                                "'%s': cannot write its %zu bytes to an "
                                "in-memory file",
                                name, size);
    } else {
      char open_path[64];
      snprintf(open_path, sizeof open_path, "/proc/self/fd/%d", fd);
      status = load_library(open_path, name, options, out);
    }
    close(fd);
    return status;
  }
  if (size >= 8 && hodu_is_bundle_bytes(bytes, size)) {
    if (size > HODU_BUNDLE_MAX_FILE_SIZE || size > SIZE_MAX - 64)
      return hodu_make_status(HODU_INVALID_ARTIFACT,
                              "'%s': the bundle is %zu bytes, more than this "
                              "runtime reads",
                              name, size);
    size_t rounded = (size + 63) / 64 * 64;
    uint8_t *copy = aligned_alloc(64, rounded);
    if (!copy)
      return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
    memcpy(copy, bytes, size);
    char *origin = quoted(name);
    if (!origin) {
      free(copy);
      return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
    }
    hodu_plan *plan;
    hodu_status status = hodu_bundle_parse(copy, size, origin, &plan);
    free(origin);
    if (status)
      return status;
    return new_model(plan, NULL, NULL, name, options, out);
  }
  return hodu_make_status(HODU_INVALID_ARTIFACT,
                          "'%s' is not a Hodu artifact: neither a shared "
                          "library nor a bundle",
                          name);
}

hodu_status hodu_model_load(const char *path, hodu_model **out) {
  return hodu_model_load_with_options(path, NULL, out);
}

uint64_t hodu_model_workspace_size(const hodu_model *model) {
  return model ? model->workspace_size : 0;
}

/* An idle cached workspace, or a new one (NULL when out of memory). */
static void *acquire_workspace(hodu_model *model) {
  for (int i = 0; i < HODU_RUN_CACHE_SLOTS; ++i) {
    void *w = atomic_exchange(&model->workspaces[i], NULL);
    if (w)
      return w;
  }
  size_t align = HODU_WORKSPACE_ALIGNMENT;
  size_t size = (size_t)((model->workspace_size + align - 1) / align * align);
  return aligned_alloc(align, size);
}

/* Puts `w` back into an empty slot, or frees it if all are taken. */
static void release_workspace(hodu_model *model, void *w) {
  for (int i = 0; i < HODU_RUN_CACHE_SLOTS; ++i) {
    void *expected = NULL;
    if (atomic_compare_exchange_strong(&model->workspaces[i], &expected, w))
      return;
  }
  free(w);
}

/*===--------------------------------------------------------------------===*
 * Running
 *===--------------------------------------------------------------------===*/

/* Argument arrays up to this size live on the stack. */
#define HODU_STACK_ARGS 16

/* The direct path of hodu_model_run for a descriptor, its tensors checked
 * and its symbols bound. */
static hodu_status run_entry(const hodu_model *model,
                             const hodu_tensor *const *inputs,
                             size_t num_inputs, hodu_tensor *const *outputs,
                             size_t num_outputs, const int64_t *symbol_values,
                             int32_t num_symbol_values) {
  size_t num_meta = model->plan->num_meta;
  size_t total = num_inputs + num_meta + num_outputs;
  void *stack_args[HODU_STACK_ARGS];
  void **args = stack_args;
  if (total > HODU_STACK_ARGS) {
    args = malloc(sizeof(void *) * total);
    if (!args)
      return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  for (size_t i = 0; i < num_inputs; ++i)
    args[i] = hodu_tensor_data(inputs[i]);
  /* Meta slots are read-only inputs at the end of the inputs: outside a
   * session they hold their initial values. */
  for (size_t i = 0; i < num_meta; ++i)
    args[num_inputs + i] = (void *)model->meta_init[i];
  size_t first_output = num_inputs + num_meta;
  for (size_t i = 0; i < num_outputs; ++i)
    args[first_output + i] = hodu_tensor_data(outputs[i]);

  hodu_run_context context = {sizeof(hodu_run_context),
                              hodu_effective_num_threads(),
                              NULL,
                              0,
                              symbol_values,
                              num_symbol_values};
  /* The cache is the model's only mutable state: runs on a const model
   * still share it (each slot is taken and returned atomically). */
  hodu_model *mutable_model = (hodu_model *)model;
  if (model->workspace_size) {
    context.workspace = acquire_workspace(mutable_model);
    if (!context.workspace) {
      if (args != stack_args)
        free(args);
      return hodu_make_status(HODU_OUT_OF_MEMORY,
                              "model '%s': out of memory for its %llu-byte "
                              "workspace",
                              hodu_model_name(model),
                              (unsigned long long)model->workspace_size);
    }
    context.workspace_size = model->workspace_size;
  }
  hodu_threads_run_begin(model->desc, context.num_threads);
  int32_t result = model->desc->entry((void *const *)args,
                                      (void *const *)(args + first_output),
                                      &context);
  hodu_threads_run_end();
  if (context.workspace)
    release_workspace(mutable_model, context.workspace);
  if (args != stack_args)
    free(args);
  if (result != 0)
    return hodu_entry_failure(model->desc, hodu_model_name(model), result);
  return NULL;
}

hodu_status hodu_model_run(const hodu_model *model,
                           const hodu_tensor *const *inputs, size_t num_inputs,
                           hodu_tensor *const *outputs, size_t num_outputs) {
  if (!model)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "model is NULL");
  if (model->engine)
    return hodu_engine_run(model, inputs, num_inputs, outputs, num_outputs);
  if (model->plan->num_state)
    return hodu_state_refusal(model, "hodu_model_run");
  if (!model->desc)
    return hodu_bundle_run(model, inputs, num_inputs, outputs, num_outputs);
  int32_t num_symbols = hodu_desc_num_symbols(model->desc);
  int64_t stack_values[HODU_STACK_SYMBOLS];
  int64_t *values = hodu_symbol_values_alloc(num_symbols, stack_values);
  if (!values)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  hodu_status status = hodu_check_run_tensors(model, inputs, num_inputs,
                                              outputs, num_outputs, values);
  if (!status)
    status = run_entry(model, inputs, num_inputs, outputs, num_outputs,
                       num_symbols ? values : NULL, num_symbols);
  hodu_symbol_values_free(values, stack_values);
  return status;
}

hodu_status hodu_model_run_alloc(const hodu_model *model,
                                 const hodu_tensor *const *inputs,
                                 size_t num_inputs, hodu_tensor **outputs,
                                 size_t num_outputs) {
  if (!model)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "model is NULL");
  if (num_outputs && !outputs)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "the output array is NULL");
  for (size_t i = 0; i < num_outputs; ++i)
    outputs[i] = NULL;
  if (num_outputs != (size_t)model->plan->num_outputs)
    return hodu_make_status(HODU_MISMATCH,
                            "model '%s' has %d output%s, got %zu slots",
                            hodu_model_name(model),
                            (int)model->plan->num_outputs,
                            model->plan->num_outputs == 1 ? "" : "s",
                            num_outputs);
  if (model->engine)
    return hodu_engine_run_alloc(model, inputs, num_inputs, outputs,
                                 num_outputs);
  if (model->plan->num_state)
    return hodu_state_refusal(model, "hodu_model_run_alloc");
  /* Outputs with dynamic dims are made at the shapes the inputs give. */
  const hodu_model_desc *symbols = hodu_plan_symbols(model->plan);
  int32_t num_symbols = hodu_desc_num_symbols(symbols);
  int64_t stack_values[HODU_STACK_SYMBOLS];
  int64_t *values = hodu_symbol_values_alloc(num_symbols, stack_values);
  if (!values)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  hodu_status status = NULL;
  if (num_symbols) {
    status = hodu_check_input_count(model->plan, num_inputs);
    if (!status && !inputs)
      status =
          hodu_make_status(HODU_INVALID_ARGUMENT, "the input array is NULL");
    if (!status)
      status = hodu_bind_symbols(symbols, hodu_model_name(model), inputs,
                                 num_inputs, 0, values);
  }
  for (size_t i = 0; i < num_outputs && !status; ++i)
    status = hodu_model_create_output_with_symbols(
        model, (int32_t)i, values, (size_t)num_symbols, &outputs[i]);
  hodu_symbol_values_free(values, stack_values);
  if (!status)
    status = hodu_model_run(model, inputs, num_inputs, outputs, num_outputs);
  if (status) {
    for (size_t i = 0; i < num_outputs; ++i) {
      hodu_tensor_free(outputs[i]);
      outputs[i] = NULL;
    }
  }
  return status;
}
