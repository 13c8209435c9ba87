/*===- ort_engine.c - ONNX Runtime as a Hodu engine plugin -----------------===*
 *
 * hodu-engine-onnxruntime.so: an engine plugin (hodu/plugin.h) that runs a
 * .onnx file with ONNX Runtime's CPU execution provider.
 *
 * ONNX Runtime is not linked at build time. The first load() dlopen()s it,
 * looking in this order:
 *   1. the plugin option "library" (the host also fills it from
 *      HODU_PLUGIN_ONNXRUNTIME_LIBRARY); a relative path is taken relative
 *      to the plugin's directory, a bare file name is looked for there and
 *      then on the loader's search path. When it is set, nothing else is
 *      tried;
 *   2. libonnxruntime.so.1 in the plugin's directory, or in its lib/;
 *   3. HODU_ORT_DEFAULT_LIBRARY, a path fixed at build time (may be absent);
 *   4. libonnxruntime.so.1 on the loader's search path.
 * It then takes OrtGetApiBase()->GetApi(HODU_ORT_API_VERSION) (ort_api.h)
 * and checks the table before using it. The library, one OrtEnv (whose log
 * goes to the host's) and one CPU OrtMemoryInfo are shared by every loaded
 * model and released by the plugin's shutdown.
 *
 * A loaded model is one OrtSession plus its signature, read once at load.
 * run() wraps the caller's input buffers (no copy), lets ONNX Runtime
 * allocate the outputs and copies each into the caller's buffer or into
 * one from host->alloc.
 *
 *===----------------------------------------------------------------------===*/
#include "ort_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*===--------------------------------------------------------------------===*
 * Models
 *===--------------------------------------------------------------------===*/

typedef struct value_info {
  char *name;
  int32_t dtype; /* a hodu_dtype */
  ONNXTensorElementDataType onnx_type;
  int32_t rank;
  int64_t *shape;   /* rank entries (at least one allocated) */
  char **dim_names; /* NULL, or rank entries, each NULL or a name */
} value_info;

struct hodu_engine_model {
  OrtSession *session;
  int32_t num_threads;   /* what the session was made with; 0: ORT's default */
  int32_t num_values[2]; /* [0] inputs, [1] outputs */
  value_info *values[2]; /* likewise */
  const char **names[2]; /* values[k][i].name, for Run */
};

static void free_values(value_info *values, int32_t count) {
  if (!values)
    return;
  for (int32_t i = 0; i < count; ++i) {
    free(values[i].name);
    free(values[i].shape);
    if (values[i].dim_names)
      for (int32_t d = 0; d < values[i].rank; ++d)
        free(values[i].dim_names[d]);
    free(values[i].dim_names);
  }
  free(values);
}

static void free_model(hodu_engine_model *model) {
  if (!model)
    return;
  if (model->session)
    g_ort->ReleaseSession(model->session);
  for (int k = 0; k < 2; ++k) {
    free_values(model->values[k], model->num_values[k]);
    free(model->names[k]);
  }
  free(model);
}

static const char *const g_value_word[2] = {"input", "output"};

/* Reads input or output `index` of `model`'s session into `info`. */
static hodu_status read_value(hodu_engine_model *model, int is_output,
                              size_t index, const char *path,
                              value_info *info) {
  const char *word = g_value_word[is_output];
  char context[64];
  snprintf(context, sizeof context, "reading %s %zu", word, index);
  char *name = NULL;
  OrtStatus *ort_status =
      is_output ? g_ort->SessionGetOutputName(model->session, index,
                                              g_default_allocator, &name)
                : g_ort->SessionGetInputName(model->session, index,
                                             g_default_allocator, &name);
  if (ort_status)
    return from_ort(ort_status, HODU_INVALID_ARTIFACT, context);
  info->name = dup_string(name ? name : "");
  ort_status = g_ort->AllocatorFree(g_default_allocator, name);
  if (ort_status)
    g_ort->ReleaseStatus(ort_status);
  if (!info->name)
    return fail(HODU_OUT_OF_MEMORY, "onnxruntime engine: out of memory");

  OrtTypeInfo *type_info = NULL;
  hodu_status status = NULL;
  const char **symbols = NULL;
  ort_status =
      is_output
          ? g_ort->SessionGetOutputTypeInfo(model->session, index, &type_info)
          : g_ort->SessionGetInputTypeInfo(model->session, index, &type_info);
  ONNXType kind = ONNX_TYPE_UNKNOWN;
  if (!ort_status)
    ort_status = g_ort->GetOnnxTypeFromTypeInfo(type_info, &kind);
  if (ort_status) {
    status = from_ort(ort_status, HODU_INVALID_ARTIFACT, context);
    goto done;
  }
  if (kind != ONNX_TYPE_TENSOR) {
    status = fail(HODU_INVALID_ARTIFACT,
                  "onnxruntime engine: %s '%s' of '%s' is a %s; Hodu passes "
                  "only tensors to and from an engine",
                  word, info->name, path, value_kind_name(kind));
    goto done;
  }
  const OrtTensorTypeAndShapeInfo *tensor = NULL;
  ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  size_t rank = 0;
  ort_status = g_ort->CastTypeInfoToTensorInfo(type_info, &tensor);
  if (!ort_status && !tensor) {
    status = fail(HODU_INVALID_ARTIFACT,
                  "onnxruntime engine: %s '%s' of '%s' has no tensor type",
                  word, info->name, path);
    goto done;
  }
  if (!ort_status)
    ort_status = g_ort->GetTensorElementType(tensor, &element);
  if (!ort_status)
    ort_status = g_ort->GetDimensionsCount(tensor, &rank);
  if (ort_status) {
    status = from_ort(ort_status, HODU_INVALID_ARTIFACT, context);
    goto done;
  }
  info->onnx_type = element;
  info->dtype = dtype_of(element);
  if (info->dtype < 0) {
    status =
        fail(HODU_INVALID_ARTIFACT,
             "onnxruntime engine: %s '%s' of '%s' has element type %s "
             "(ONNX type %d), which Hodu has no dtype for",
             word, info->name, path, onnx_type_name(element), (int)element);
    goto done;
  }
  if (rank > 1024) {
    status = fail(HODU_INVALID_ARTIFACT,
                  "onnxruntime engine: %s '%s' of '%s' has rank %zu", word,
                  info->name, path, rank);
    goto done;
  }
  info->rank = (int32_t)rank;
  info->shape = calloc(rank ? rank : 1, sizeof *info->shape);
  symbols = calloc(rank ? rank : 1, sizeof *symbols);
  if (!info->shape || !symbols) {
    status = fail(HODU_OUT_OF_MEMORY, "onnxruntime engine: out of memory");
    goto done;
  }
  ort_status = g_ort->GetDimensions(tensor, info->shape, rank);
  if (!ort_status)
    ort_status = g_ort->GetSymbolicDimensions(tensor, symbols, rank);
  if (ort_status) {
    status = from_ort(ort_status, HODU_INVALID_ARTIFACT, context);
    goto done;
  }
  for (size_t d = 0; d < rank; ++d) {
    if (info->shape[d] >= 0)
      continue;
    info->shape[d] = HODU_DIM_DYNAMIC;
    if (!symbols[d] || !*symbols[d])
      continue;
    if (!info->dim_names &&
        !(info->dim_names = calloc(rank, sizeof *info->dim_names))) {
      status = fail(HODU_OUT_OF_MEMORY, "onnxruntime engine: out of memory");
      goto done;
    }
    if (!(info->dim_names[d] = dup_string(symbols[d]))) {
      status = fail(HODU_OUT_OF_MEMORY, "onnxruntime engine: out of memory");
      goto done;
    }
  }
done:
  free(symbols);
  g_ort->ReleaseTypeInfo(type_info);
  return status;
}

static hodu_status ort_load(const char *path,
                            const hodu_engine_load_options *options,
                            hodu_engine_model **out) {
  if (!out)
    return fail(HODU_INVALID_ARGUMENT, "onnxruntime engine: load: out is NULL");
  *out = NULL;
  if (!path)
    return fail(HODU_INVALID_ARGUMENT,
                "onnxruntime engine: load: path is NULL");
  hodu_status status = ensure_ort();
  if (status)
    return status;

  hodu_engine_model *model = calloc(1, sizeof *model);
  if (!model)
    return fail(HODU_OUT_OF_MEMORY, "onnxruntime engine: out of memory");
  if (options &&
      options->struct_size >= offsetof(hodu_engine_load_options, num_threads) +
                                  sizeof(options->num_threads) &&
      options->num_threads > 0)
    model->num_threads = options->num_threads;

  OrtSessionOptions *session_options = NULL;
  OrtStatus *ort_status = g_ort->CreateSessionOptions(&session_options);
  if (!ort_status)
    ort_status = g_ort->SetSessionGraphOptimizationLevel(session_options,
                                                         ORT_ENABLE_ALL);
  if (!ort_status && model->num_threads > 0)
    ort_status =
        g_ort->SetIntraOpNumThreads(session_options, model->num_threads);
  /* No execution provider is appended: ONNX Runtime's CPU one. */
  if (!ort_status)
    ort_status =
        g_ort->CreateSession(g_env, path, session_options, &model->session);
  if (session_options)
    g_ort->ReleaseSessionOptions(session_options);
  if (ort_status) {
    hodu_status_code code = g_ort->GetErrorCode(ort_status) == ORT_NO_SUCHFILE
                                ? HODU_NOT_FOUND
                                : HODU_INVALID_ARTIFACT;
    status = from_ort(ort_status, code, NULL);
    goto failed;
  }

  for (int k = 0; k < 2; ++k) {
    size_t count = 0;
    ort_status = k ? g_ort->SessionGetOutputCount(model->session, &count)
                   : g_ort->SessionGetInputCount(model->session, &count);
    if (ort_status) {
      status = from_ort(ort_status, HODU_INVALID_ARTIFACT,
                        k ? "counting outputs" : "counting inputs");
      goto failed;
    }
    if (count > INT32_MAX / 2) {
      status =
          fail(HODU_INVALID_ARTIFACT, "onnxruntime engine: '%s' has %zu %ss",
               path, count, g_value_word[k]);
      goto failed;
    }
    model->values[k] = calloc(count ? count : 1, sizeof *model->values[k]);
    model->names[k] = calloc(count ? count : 1, sizeof *model->names[k]);
    if (!model->values[k] || !model->names[k]) {
      status = fail(HODU_OUT_OF_MEMORY, "onnxruntime engine: out of memory");
      goto failed;
    }
    for (size_t i = 0; i < count; ++i) {
      model->num_values[k] = (int32_t)i + 1; /* freed from here on */
      status = read_value(model, k, i, path, &model->values[k][i]);
      if (status)
        goto failed;
      model->names[k][i] = model->values[k][i].name;
    }
    model->num_values[k] = (int32_t)count;
  }
  *out = model;
  return NULL;

failed:
  free_model(model);
  return status;
}

static void ort_unload(hodu_engine_model *model) { free_model(model); }

static int32_t ort_num_values(const hodu_engine_model *model,
                              int32_t is_output) {
  return model ? model->num_values[is_output ? 1 : 0] : 0;
}

static hodu_status ort_value(const hodu_engine_model *model, int32_t is_output,
                             int32_t index, hodu_engine_value *out) {
  int k = is_output ? 1 : 0;
  if (!model || !out)
    return fail(HODU_INVALID_ARGUMENT,
                "onnxruntime engine: value: model or out is NULL");
  if (index < 0 || index >= model->num_values[k])
    return fail(HODU_INVALID_ARGUMENT,
                "onnxruntime engine: %s index %d is out of range (the model "
                "has %d)",
                g_value_word[k], index, model->num_values[k]);
  const value_info *info = &model->values[k][index];
  out->name = info->name;
  out->dtype = info->dtype;
  out->rank = info->rank;
  out->shape = info->shape;
  out->dim_names = (const char *const *)info->dim_names;
  return NULL;
}

/* Checks output `i` that ONNX Runtime returned and copies it out. Sets
 * `*allocated` when it put a host->alloc buffer into `out`. */
static hodu_status take_output(const hodu_engine_model *model, int32_t i,
                               OrtValue *value, hodu_engine_tensor *out,
                               int *allocated) {
  const value_info *info = &model->values[1][i];
  char context[64];
  snprintf(context, sizeof context, "reading output %d", i);
  ONNXType kind = ONNX_TYPE_UNKNOWN;
  OrtStatus *ort_status = g_ort->GetValueType(value, &kind);
  if (ort_status)
    return from_ort(ort_status, HODU_RUN_FAILED, context);
  if (kind != ONNX_TYPE_TENSOR)
    return fail(HODU_RUN_FAILED,
                "onnxruntime engine: output '%s' came back as a %s, not a "
                "tensor",
                info->name, value_kind_name(kind));

  OrtTensorTypeAndShapeInfo *tensor = NULL;
  ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  size_t rank = 0;
  int64_t dims_small[16];
  int64_t *dims = dims_small;
  hodu_status status = NULL;
  ort_status = g_ort->GetTensorTypeAndShape(value, &tensor);
  if (!ort_status)
    ort_status = g_ort->GetTensorElementType(tensor, &element);
  if (!ort_status)
    ort_status = g_ort->GetDimensionsCount(tensor, &rank);
  if (!ort_status && rank > sizeof dims_small / sizeof *dims_small &&
      !(dims = malloc(rank * sizeof *dims))) {
    status = fail(HODU_OUT_OF_MEMORY, "onnxruntime engine: out of memory");
    goto done;
  }
  if (!ort_status)
    ort_status = g_ort->GetDimensions(tensor, dims, rank);
  if (ort_status) {
    status = from_ort(ort_status, HODU_RUN_FAILED, context);
    goto done;
  }

  char got[160], want[160];
  int32_t dtype = dtype_of(element);
  if (dtype != out->dtype) {
    status = fail(HODU_MISMATCH,
                  "onnxruntime engine: output '%s' is %s (ONNX %s), but the "
                  "tensor given for it is %s",
                  info->name, dtype_name(dtype), onnx_type_name(element),
                  dtype_name(out->dtype));
    goto done;
  }
  if (rank != (size_t)out->rank) {
    status = fail(HODU_MISMATCH,
                  "onnxruntime engine: output '%s' came back with shape %s "
                  "(rank %zu), but the model declares rank %d%s",
                  info->name, shape_text(dims, (int32_t)rank, got, sizeof got),
                  rank, out->rank,
                  info->rank == 0 ? " (ONNX Runtime gives an output of "
                                    "unknown rank as rank 0)"
                                  : "");
    goto done;
  }
  int64_t count = element_count(dims, out->rank);
  if (count < 0) {
    status = fail(HODU_RUN_FAILED,
                  "onnxruntime engine: output '%s' came back with shape %s",
                  info->name, shape_text(dims, out->rank, got, sizeof got));
    goto done;
  }
  uint64_t bytes = (uint64_t)count * g_dtype_size[dtype];
  void *source = NULL;
  if (bytes) {
    ort_status = g_ort->GetTensorMutableData(value, &source);
    if (ort_status) {
      status = from_ort(ort_status, HODU_RUN_FAILED, context);
      goto done;
    }
  }

  if (out->data) {
    int same = 1;
    for (int32_t d = 0; d < out->rank; ++d)
      same = same && out->shape && out->shape[d] == dims[d];
    if (!same) {
      status =
          fail(HODU_MISMATCH,
               "onnxruntime engine: output '%s' has shape %s, but the "
               "buffer given for it has shape %s",
               info->name, shape_text(dims, out->rank, got, sizeof got),
               out->shape ? shape_text(out->shape, out->rank, want, sizeof want)
                          : "(none)");
      goto done;
    }
    if (out->bytes < bytes) {
      status = fail(HODU_MISMATCH,
                    "onnxruntime engine: output '%s' (%s %s) needs %llu "
                    "bytes, but the buffer given for it has %llu",
                    info->name, dtype_name(dtype),
                    shape_text(dims, out->rank, got, sizeof got),
                    (unsigned long long)bytes, (unsigned long long)out->bytes);
      goto done;
    }
    if (bytes)
      memcpy(out->data, source, (size_t)bytes);
  } else {
    if (!HOST_HAS(alloc) || !HOST_HAS(free) || (out->rank > 0 && !out->shape)) {
      status = fail(HODU_INVALID_ARGUMENT,
                    "onnxruntime engine: output '%s' has no buffer, and the "
                    "host gives no way to allocate one",
                    info->name);
      goto done;
    }
    void *data = g_host->alloc(bytes ? bytes : 1, 64);
    if (!data) {
      status = fail(HODU_OUT_OF_MEMORY,
                    "onnxruntime engine: out of memory allocating %llu bytes "
                    "for output '%s'",
                    (unsigned long long)bytes, info->name);
      goto done;
    }
    if (bytes)
      memcpy(data, source, (size_t)bytes);
    for (int32_t d = 0; d < out->rank; ++d)
      out->shape[d] = dims[d];
    out->data = data;
    out->bytes = bytes;
    *allocated = 1;
  }
done:
  if (dims != dims_small)
    free(dims);
  if (tensor)
    g_ort->ReleaseTensorTypeAndShapeInfo(tensor);
  return status;
}

/* `num_threads` is not used: ONNX Runtime fixes a session's threads when
 * the session is made (SetIntraOpNumThreads at load, from the load
 * options), and has no per-run setting. A run asking for another count runs
 * with the session's. */
static hodu_status ort_run(hodu_engine_model *model,
                           const hodu_engine_tensor *inputs, int32_t num_inputs,
                           hodu_engine_tensor *outputs, int32_t num_outputs,
                           int32_t num_threads) {
  (void)num_threads;
  if (!model || (num_inputs > 0 && !inputs) || (num_outputs > 0 && !outputs))
    return fail(HODU_INVALID_ARGUMENT,
                "onnxruntime engine: run: model, inputs or outputs is NULL");
  if (num_inputs != model->num_values[0] || num_outputs != model->num_values[1])
    return fail(HODU_MISMATCH,
                "onnxruntime engine: run: %d inputs and %d outputs given; the "
                "model has %d and %d",
                num_inputs, num_outputs, model->num_values[0],
                model->num_values[1]);

  hodu_status status = NULL;
  size_t n_in = (size_t)num_inputs, n_out = (size_t)num_outputs;
  OrtValue **in_values = calloc(n_in ? n_in : 1, sizeof *in_values);
  OrtValue **out_values = calloc(n_out ? n_out : 1, sizeof *out_values);
  int *allocated = calloc(n_out ? n_out : 1, sizeof *allocated);
  if (!in_values || !out_values || !allocated) {
    status = fail(HODU_OUT_OF_MEMORY, "onnxruntime engine: out of memory");
    goto done;
  }

  static int64_t empty_data; /* what an empty input points at */
  for (int32_t i = 0; i < num_inputs; ++i) {
    const hodu_engine_tensor *input = &inputs[i];
    const value_info *info = &model->values[0][i];
    char got[160];
    if (input->dtype != info->dtype || input->rank != info->rank ||
        (input->rank > 0 && !input->shape)) {
      status = fail(HODU_MISMATCH,
                    "onnxruntime engine: input '%s' is %s of rank %d, but the "
                    "model takes %s of rank %d",
                    info->name, dtype_name(input->dtype), input->rank,
                    dtype_name(info->dtype), info->rank);
      goto done;
    }
    int64_t count = element_count(input->shape, input->rank);
    if (count < 0) {
      status = fail(HODU_MISMATCH,
                    "onnxruntime engine: input '%s' has shape %s", info->name,
                    shape_text(input->shape, input->rank, got, sizeof got));
      goto done;
    }
    uint64_t bytes = (uint64_t)count * g_dtype_size[info->dtype];
    if (input->bytes < bytes || (bytes && !input->data)) {
      status = fail(HODU_MISMATCH,
                    "onnxruntime engine: input '%s' (%s %s) needs %llu bytes, "
                    "but %llu are given",
                    info->name, dtype_name(info->dtype),
                    shape_text(input->shape, input->rank, got, sizeof got),
                    (unsigned long long)bytes,
                    (unsigned long long)(input->data ? input->bytes : 0));
      goto done;
    }
    /* ONNX Runtime only reads an input (the OrtValue is const in Run). */
    OrtStatus *ort_status = g_ort->CreateTensorWithDataAsOrtValue(
        g_cpu_memory, input->data ? input->data : &empty_data, (size_t)bytes,
        input->shape, (size_t)input->rank, info->onnx_type, &in_values[i]);
    if (ort_status) {
      char context[64];
      snprintf(context, sizeof context, "wrapping input '%.40s'", info->name);
      status = from_ort(ort_status, HODU_MISMATCH, context);
      goto done;
    }
  }

  OrtStatus *ort_status = g_ort->Run(model->session, NULL, model->names[0],
                                     (const OrtValue *const *)in_values, n_in,
                                     model->names[1], n_out, out_values);
  if (ort_status) {
    hodu_status_code code =
        g_ort->GetErrorCode(ort_status) == ORT_INVALID_ARGUMENT
            ? HODU_MISMATCH
            : HODU_RUN_FAILED;
    status = from_ort(ort_status, code, NULL);
    goto done;
  }
  for (int32_t i = 0; i < num_outputs && !status; ++i)
    status = take_output(model, i, out_values[i], &outputs[i], &allocated[i]);

done:
  if (status && allocated) {
    /* A failed run leaves no buffer of its own behind. */
    for (int32_t i = 0; i < num_outputs; ++i)
      if (allocated[i]) {
        g_host->free(outputs[i].data);
        outputs[i].data = NULL;
        outputs[i].bytes = 0;
      }
  }
  if (in_values)
    for (size_t i = 0; i < n_in; ++i)
      if (in_values[i])
        g_ort->ReleaseValue(in_values[i]);
  if (out_values)
    for (size_t i = 0; i < n_out; ++i)
      if (out_values[i])
        g_ort->ReleaseValue(out_values[i]);
  free(in_values);
  free(out_values);
  free(allocated);
  return status;
}

/*===--------------------------------------------------------------------===*
 * probe
 *===--------------------------------------------------------------------===*/

static int has_onnx_extension(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash ? slash : path, '.');
  if (!dot)
    return 0;
  static const char onnx[] = ".onnx";
  for (size_t i = 0; i < sizeof onnx; ++i) {
    char c = dot[i];
    if (c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    if (c != onnx[i])
      return 0;
  }
  return 1;
}

/* Cheap: the extension and the first field tag of a ModelProto. */
static int32_t ort_probe(const char *path, const uint8_t *head,
                         size_t head_size) {
  if (!path || !has_onnx_extension(path) || !head || head_size == 0)
    return 0;
  uint32_t tag = head[0] & 0x7f;
  if (head[0] & 0x80) {
    if (head_size < 2 || (head[1] & 0x80))
      return 0;
    tag |= (uint32_t)head[1] << 7;
  }
  uint32_t field = tag >> 3, wire = tag & 7;
  switch (field) {
  case 1: /* ir_version */
  case 5: /* model_version */
    return wire == 0 ? 60 : 0;
  /* producer_name, producer_version, domain, doc_string, graph,
   * opset_import, metadata_props, training_info, functions, configuration */
  case 2:
  case 3:
  case 4:
  case 6:
  case 7:
  case 8:
  case 14:
  case 20:
  case 25:
  case 26:
    return wire == 2 ? 60 : 0;
  default:
    return 0;
  }
}

/*===--------------------------------------------------------------------===*
 * The plugin
 *===--------------------------------------------------------------------===*/

static const char *const g_extensions[] = {".onnx", NULL};

static const hodu_engine_plugin_v1 g_engine = {
    sizeof(hodu_engine_plugin_v1),
    PLUGIN_ID,
    g_extensions,
    ort_probe,
    ort_load,
    ort_unload,
    ort_num_values,
    ort_value,
    ort_run,
    NULL, /* memory_bytes: ONNX Runtime does not say */
};

static const void *get_interface(uint32_t kind, uint32_t version) {
  if (kind == HODU_PLUGIN_ENGINE && version == 1)
    return &g_engine;
  return NULL;
}

static const hodu_plugin_header g_header = {
    sizeof(hodu_plugin_header),
    HODU_PLUGIN_ABI_VERSION,
    PLUGIN_ID,
    PLUGIN_VERSION,
    PLUGIN_DESCRIPTION,
    HODU_PLUGIN_ENGINE,
    0,
    NULL, /* a runtime plugin: no toolchain */
    get_interface,
    plugin_shutdown,
};

__attribute__((visibility("default"))) const hodu_plugin_header *
hodu_plugin_query(uint32_t max_abi_version, const hodu_host_api *host);

__attribute__((visibility("default"))) const hodu_plugin_header *
hodu_plugin_query(uint32_t max_abi_version, const hodu_host_api *host) {
  if (max_abi_version < HODU_PLUGIN_ABI_VERSION || !host ||
      host->struct_size <
          offsetof(hodu_host_api, make_status) + sizeof(host->make_status) ||
      !host->make_status)
    return NULL;
  g_host = host;
  return &g_header;
}
