/*===- model.c - loading, querying and running compiled models ---------------===*
 *
 * A hodu_model is immutable after creation apart from its workspace cache,
 * so runs need no locks: every run builds its own argument arrays and
 * context on its stack (or heap for very wide models), and takes a
 * workspace from a small lock-free cache of them (atomic slots), so that
 * repeated runs reuse warm scratch memory instead of fresh pages.
 *
 *===----------------------------------------------------------------------===*/
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Workspaces kept for reuse; runs beyond this many at once allocate a
 * workspace of their own and free it afterwards. */
#define HODU_WORKSPACE_SLOTS 8

struct hodu_model {
  const hodu_model_desc *desc; /* borrowed from the library or the caller */
  void *library;               /* dlopen handle, NULL for linked models */
  uint64_t workspace_size;     /* desc->workspace_size, 0 for older artifacts */
  /* Idle workspaces of workspace_size bytes; NULL = empty slot. */
  _Atomic(void *) workspaces[HODU_WORKSPACE_SLOTS];
};

/*===--------------------------------------------------------------------===*
 * Descriptor validation
 *===--------------------------------------------------------------------===*/

static hodu_status validate_tensors(const char *origin, const char *kind,
                                    int32_t count,
                                    const hodu_tensor_desc *tensors) {
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
      if (tensor->shape[d] < 0)
        return hodu_make_status(HODU_INVALID_ARTIFACT,
                                "%s: malformed descriptor: %s '%s' has a "
                                "dynamic or negative extent in dimension %d",
                                origin, kind, tensor->name, (int)d);
  }
  return NULL;
}

/* `origin` names the artifact in messages ("'model.so'" or "descriptor"). */
static hodu_status validate_descriptor(const char *origin,
                                       const hodu_model_desc *desc) {
  if (desc->abi_version != HODU_ABI_VERSION)
    return hodu_make_status(HODU_INCOMPATIBLE,
                            "%s was built for Hodu ABI version %u, but this "
                            "runtime (%s) expects ABI version %u",
                            origin, (unsigned)desc->abi_version,
                            HODU_RUNTIME_VERSION, (unsigned)HODU_ABI_VERSION);
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
  hodu_status status =
      validate_tensors(origin, "input", desc->num_inputs, desc->inputs);
  if (!status)
    status =
        validate_tensors(origin, "output", desc->num_outputs, desc->outputs);
  return status;
}

/*===--------------------------------------------------------------------===*
 * Creation
 *===--------------------------------------------------------------------===*/

static hodu_status new_model(const hodu_model_desc *desc, void *library,
                             hodu_model **out) {
  hodu_model *model = malloc(sizeof(*model));
  if (!model)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  model->desc = desc;
  model->library = library;
  model->workspace_size =
      desc->struct_size >= offsetof(hodu_model_desc, workspace_size) +
                               sizeof(desc->workspace_size)
          ? desc->workspace_size
          : 0;
  for (int i = 0; i < HODU_WORKSPACE_SLOTS; ++i)
    atomic_init(&model->workspaces[i], NULL);
  *out = model;
  return NULL;
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
  return new_model(descriptor, NULL, out);
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

hodu_status hodu_model_load(const char *path, hodu_model **out) {
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  if (!path || !*path)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "model path is empty");

  /* dlopen's own messages for a missing file are vague; check first. */
  struct stat info;
  if (stat(path, &info) != 0)
    return hodu_make_status(HODU_NOT_FOUND, "cannot open model '%s': %s",
                            path, errno_text(errno));
  if (S_ISDIR(info.st_mode))
    return hodu_make_status(HODU_NOT_FOUND,
                            "cannot open model '%s': it is a directory",
                            path);

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
  hodu_status checked = hodu_check_elf_file(open_path, path);
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
                            path, reason ? reason : "unknown reason");
  }

  const hodu_model_desc *desc =
      (const hodu_model_desc *)dlsym(library, HODU_DESCRIPTOR_SYMBOL);
  if (!desc) {
    dlclose(library);
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "'%s' is not a Hodu artifact: it does not export "
                            "the symbol '%s'",
                            path, HODU_DESCRIPTOR_SYMBOL);
  }

  /* The fields up to struct_size must be there to be read at all. */
  hodu_status symbol_status = hodu_check_descriptor_symbol(
      path, desc, offsetof(hodu_model_desc, struct_size) + sizeof(uint32_t));
  if (symbol_status) {
    dlclose(library);
    return symbol_status;
  }

  size_t origin_size = strlen(path) + 3;
  char *origin = malloc(origin_size);
  if (!origin) {
    dlclose(library);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  snprintf(origin, origin_size, "'%s'", path);
  hodu_status status = validate_descriptor(origin, desc);
  free(origin);
  if (!status)
    status = new_model(desc, library, out);
  if (status)
    dlclose(library);
  return status;
}

void hodu_model_free(hodu_model *model) {
  if (!model)
    return;
  for (int i = 0; i < HODU_WORKSPACE_SLOTS; ++i)
    free(atomic_load(&model->workspaces[i]));
  if (model->library)
    dlclose(model->library);
  free(model);
}

uint64_t hodu_model_workspace_size(const hodu_model *model) {
  return model ? model->workspace_size : 0;
}

/* An idle cached workspace, or a new one (NULL when out of memory). */
static void *acquire_workspace(hodu_model *model) {
  for (int i = 0; i < HODU_WORKSPACE_SLOTS; ++i) {
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
  for (int i = 0; i < HODU_WORKSPACE_SLOTS; ++i) {
    void *expected = NULL;
    if (atomic_compare_exchange_strong(&model->workspaces[i], &expected, w))
      return;
  }
  free(w);
}

/*===--------------------------------------------------------------------===*
 * Queries
 *===--------------------------------------------------------------------===*/

const char *hodu_model_name(const hodu_model *model) {
  return model && model->desc->model_name ? model->desc->model_name : "";
}

const char *hodu_model_target(const hodu_model *model) {
  return model && model->desc->target ? model->desc->target : "";
}

const hodu_model_desc *hodu_model_descriptor(const hodu_model *model) {
  return model ? model->desc : NULL;
}

int32_t hodu_model_num_inputs(const hodu_model *model) {
  return model ? model->desc->num_inputs : 0;
}

int32_t hodu_model_num_outputs(const hodu_model *model) {
  return model ? model->desc->num_outputs : 0;
}

static const hodu_tensor_desc *input_desc(const hodu_model *model,
                                          int32_t index) {
  if (!model || index < 0 || index >= model->desc->num_inputs)
    return NULL;
  return &model->desc->inputs[index];
}

static const hodu_tensor_desc *output_desc(const hodu_model *model,
                                           int32_t index) {
  if (!model || index < 0 || index >= model->desc->num_outputs)
    return NULL;
  return &model->desc->outputs[index];
}

const char *hodu_model_input_name(const hodu_model *model, int32_t index) {
  const hodu_tensor_desc *desc = input_desc(model, index);
  return desc ? desc->name : NULL;
}
hodu_dtype hodu_model_input_dtype(const hodu_model *model, int32_t index) {
  const hodu_tensor_desc *desc = input_desc(model, index);
  return desc ? (hodu_dtype)desc->dtype : (hodu_dtype)-1;
}
int32_t hodu_model_input_rank(const hodu_model *model, int32_t index) {
  const hodu_tensor_desc *desc = input_desc(model, index);
  return desc ? desc->rank : -1;
}
const int64_t *hodu_model_input_shape(const hodu_model *model,
                                      int32_t index) {
  const hodu_tensor_desc *desc = input_desc(model, index);
  return desc ? desc->shape : NULL;
}
const char *hodu_model_output_name(const hodu_model *model, int32_t index) {
  const hodu_tensor_desc *desc = output_desc(model, index);
  return desc ? desc->name : NULL;
}
hodu_dtype hodu_model_output_dtype(const hodu_model *model, int32_t index) {
  const hodu_tensor_desc *desc = output_desc(model, index);
  return desc ? (hodu_dtype)desc->dtype : (hodu_dtype)-1;
}
int32_t hodu_model_output_rank(const hodu_model *model, int32_t index) {
  const hodu_tensor_desc *desc = output_desc(model, index);
  return desc ? desc->rank : -1;
}
const int64_t *hodu_model_output_shape(const hodu_model *model,
                                       int32_t index) {
  const hodu_tensor_desc *desc = output_desc(model, index);
  return desc ? desc->shape : NULL;
}

static hodu_status find_index(const hodu_model *model, const char *kind,
                              int32_t count, const hodu_tensor_desc *tensors,
                              const char *name, int32_t *index) {
  if (!model || !name || !index)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "model, name and index must not be NULL");
  for (int32_t i = 0; i < count; ++i) {
    if (strcmp(tensors[i].name, name) == 0) {
      *index = i;
      return NULL;
    }
  }
  /* List the names so a typo is easy to spot. */
  char names[512] = "";
  size_t used = 0;
  for (int32_t i = 0; i < count && used < sizeof(names); ++i) {
    int written = snprintf(names + used, sizeof(names) - used, "%s'%s'",
                           i ? ", " : "", tensors[i].name);
    if (written < 0)
      break;
    used += (size_t)written;
  }
  return hodu_make_status(HODU_NOT_FOUND,
                          "model '%s' has no %s named '%s' (%ss: %s)",
                          hodu_model_name(model), kind, name, kind,
                          count ? names : "none");
}

hodu_status hodu_model_input_index(const hodu_model *model, const char *name,
                                   int32_t *index) {
  return find_index(model, "input", model ? model->desc->num_inputs : 0,
                    model ? model->desc->inputs : NULL, name, index);
}

hodu_status hodu_model_output_index(const hodu_model *model, const char *name,
                                    int32_t *index) {
  return find_index(model, "output", model ? model->desc->num_outputs : 0,
                    model ? model->desc->outputs : NULL, name, index);
}

static hodu_status create_like(const hodu_tensor_desc *desc, const char *kind,
                               int32_t index, hodu_tensor **out) {
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  if (!desc)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "no %s %d in the model",
                            kind, (int)index);
  return hodu_tensor_create((hodu_dtype)desc->dtype, desc->rank, desc->shape,
                            out);
}

hodu_status hodu_model_create_input(const hodu_model *model, int32_t index,
                                    hodu_tensor **out) {
  return create_like(input_desc(model, index), "input", index, out);
}

hodu_status hodu_model_create_output(const hodu_model *model, int32_t index,
                                     hodu_tensor **out) {
  return create_like(output_desc(model, index), "output", index, out);
}

/*===--------------------------------------------------------------------===*
 * Running
 *===--------------------------------------------------------------------===*/

static hodu_status check_tensor(const char *kind, int32_t index,
                                const hodu_tensor_desc *desc,
                                const hodu_tensor *tensor) {
  if (!tensor)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "%s %d ('%s') is NULL",
                            kind, (int)index, desc->name);
  hodu_dtype dtype = hodu_tensor_dtype(tensor);
  if ((int32_t)dtype != desc->dtype)
    return hodu_make_status(HODU_MISMATCH,
                            "%s '%s': expected dtype %s, got %s", kind,
                            desc->name,
                            hodu_dtype_name((hodu_dtype)desc->dtype),
                            hodu_dtype_name(dtype));
  int32_t rank = hodu_tensor_rank(tensor);
  const int64_t *shape = hodu_tensor_shape(tensor);
  int same = rank == desc->rank;
  for (int32_t d = 0; same && d < rank; ++d)
    same = shape[d] == desc->shape[d];
  if (!same) {
    char expected[256], got[256];
    hodu_format_shape(expected, sizeof(expected), desc->rank, desc->shape);
    hodu_format_shape(got, sizeof(got), rank, shape);
    return hodu_make_status(HODU_MISMATCH,
                            "%s '%s': expected shape %s, got %s", kind,
                            desc->name, expected, got);
  }
  return NULL;
}

static int overlaps(const hodu_tensor *a, const hodu_tensor *b) {
  size_t a_bytes = hodu_tensor_bytes(a), b_bytes = hodu_tensor_bytes(b);
  if (a_bytes == 0 || b_bytes == 0)
    return 0;
  uintptr_t a_begin = (uintptr_t)hodu_tensor_data(a);
  uintptr_t b_begin = (uintptr_t)hodu_tensor_data(b);
  return a_begin < b_begin + b_bytes && b_begin < a_begin + a_bytes;
}

static hodu_status check_arguments(const hodu_model *model,
                                   const hodu_tensor *const *inputs,
                                   size_t num_inputs,
                                   hodu_tensor *const *outputs,
                                   size_t num_outputs) {
  const hodu_model_desc *desc = model->desc;
  if (num_inputs != (size_t)desc->num_inputs)
    return hodu_make_status(HODU_MISMATCH,
                            "model '%s' expects %d input%s, got %zu",
                            hodu_model_name(model), (int)desc->num_inputs,
                            desc->num_inputs == 1 ? "" : "s", num_inputs);
  if (num_outputs != (size_t)desc->num_outputs)
    return hodu_make_status(HODU_MISMATCH,
                            "model '%s' has %d output%s, got %zu", 
                            hodu_model_name(model), (int)desc->num_outputs,
                            desc->num_outputs == 1 ? "" : "s", num_outputs);
  if ((num_inputs && !inputs) || (num_outputs && !outputs))
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "the %s array is NULL",
                            num_inputs && !inputs ? "input" : "output");
  for (size_t i = 0; i < num_inputs; ++i) {
    hodu_status status =
        check_tensor("input", (int32_t)i, &desc->inputs[i], inputs[i]);
    if (status)
      return status;
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    hodu_status status =
        check_tensor("output", (int32_t)i, &desc->outputs[i], outputs[i]);
    if (status)
      return status;
  }
  /* The compiled code reads inputs while it writes outputs; overlapping
   * buffers would give unspecified results, so refuse them up front. */
  for (size_t o = 0; o < num_outputs; ++o) {
    for (size_t i = 0; i < num_inputs; ++i)
      if (overlaps(outputs[o], inputs[i]))
        return hodu_make_status(HODU_INVALID_ARGUMENT,
                                "output '%s' overlaps input '%s'",
                                desc->outputs[o].name, desc->inputs[i].name);
    for (size_t p = 0; p < o; ++p)
      if (overlaps(outputs[o], outputs[p]))
        return hodu_make_status(HODU_INVALID_ARGUMENT,
                                "output '%s' overlaps output '%s'",
                                desc->outputs[o].name, desc->outputs[p].name);
  }
  return NULL;
}

/* Argument arrays up to this size live on the stack. */
#define HODU_STACK_ARGS 16

hodu_status hodu_model_run(const hodu_model *model,
                           const hodu_tensor *const *inputs,
                           size_t num_inputs, hodu_tensor *const *outputs,
                           size_t num_outputs) {
  if (!model)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "model is NULL");
  hodu_status status =
      check_arguments(model, inputs, num_inputs, outputs, num_outputs);
  if (status)
    return status;

  size_t total = num_inputs + num_outputs;
  void *stack_args[HODU_STACK_ARGS];
  void **args = stack_args;
  if (total > HODU_STACK_ARGS) {
    args = malloc(sizeof(void *) * total);
    if (!args)
      return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  for (size_t i = 0; i < num_inputs; ++i)
    args[i] = hodu_tensor_data(inputs[i]);
  for (size_t i = 0; i < num_outputs; ++i)
    args[num_inputs + i] = hodu_tensor_data(outputs[i]);

  hodu_run_context context = {sizeof(hodu_run_context),
                              hodu_effective_num_threads(), NULL, 0};
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
  int32_t result = model->desc->entry((void *const *)args,
                                      (void *const *)(args + num_inputs),
                                      &context);
  if (context.workspace)
    release_workspace(mutable_model, context.workspace);
  if (args != stack_args)
    free(args);
  if (result != 0)
    return hodu_make_status(HODU_RUN_FAILED,
                            "model '%s' failed: its entry returned %d",
                            hodu_model_name(model), (int)result);
  return NULL;
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
  if (num_outputs != (size_t)model->desc->num_outputs)
    return hodu_make_status(HODU_MISMATCH,
                            "model '%s' has %d output%s, got %zu slots",
                            hodu_model_name(model),
                            (int)model->desc->num_outputs,
                            model->desc->num_outputs == 1 ? "" : "s",
                            num_outputs);
  hodu_status status = NULL;
  for (size_t i = 0; i < num_outputs && !status; ++i)
    status = hodu_model_create_output(model, (int32_t)i, &outputs[i]);
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
