/*===- ort_support.c - the onnxruntime plugin's messages and dtypes --------===*
 *
 * What the rest of the plugin shares: the host's API (statuses, log), text
 * helpers, and the mapping between ONNX element types and hodu dtypes.
 *
 *===----------------------------------------------------------------------===*/
#include "ort_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*===--------------------------------------------------------------------===*
 * The host, and messages
 *===--------------------------------------------------------------------===*/

const hodu_host_api *g_host;


static char *vformat(const char *format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int size = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (size < 0)
    return NULL;
  char *text = malloc((size_t)size + 1);
  if (text)
    vsnprintf(text, (size_t)size + 1, format, args);
  return text;
}

char *text_of(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
char *text_of(const char *format, ...) {
  va_list args;
  va_start(args, format);
  char *text = vformat(format, args);
  va_end(args);
  return text;
}

/* An error status with a printf-formatted message. */
hodu_status fail(hodu_status_code code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
hodu_status fail(hodu_status_code code, const char *format, ...) {
  va_list args;
  va_start(args, format);
  char *text = vformat(format, args);
  va_end(args);
  hodu_status status = g_host->make_status(text ? code : HODU_OUT_OF_MEMORY,
                                           text ? text : "out of memory");
  free(text);
  return status;
}

void host_log(int32_t level, const char *message) {
  if (HOST_HAS(log))
    g_host->log(level, PLUGIN_ID, message);
}

char *dup_string(const char *text) {
  size_t size = strlen(text) + 1;
  char *copy = malloc(size);
  if (copy)
    memcpy(copy, text, size);
  return copy;
}

/* "[1, 3, 224, 224]" into `buffer` (cut short with "..." when long). */
const char *shape_text(const int64_t *shape, int32_t rank, char *buffer,
                       size_t size) {
  size_t used = (size_t)snprintf(buffer, size, "[");
  for (int32_t d = 0; d < rank && used < size; ++d)
    used += (size_t)snprintf(buffer + used, size - used, "%s%lld",
                             d ? ", " : "", (long long)shape[d]);
  if (used < size)
    snprintf(buffer + used, size - used, "]");
  else if (size >= 5)
    memcpy(buffer + size - 5, "...]", 5);
  return buffer;
}

/*===--------------------------------------------------------------------===*
 * Element types
 *===--------------------------------------------------------------------===*/

#define DTYPE_SIZE_(id, value, name, size, storage) [value] = size,
const uint8_t g_dtype_size[HODU_DTYPE_COUNT] = {
    HODU_DTYPE_LIST(DTYPE_SIZE_)};
#undef DTYPE_SIZE_
#define DTYPE_NAME_(id, value, name, size, storage) [value] = name,
static const char *const g_dtype_name[HODU_DTYPE_COUNT] = {
    HODU_DTYPE_LIST(DTYPE_NAME_)};
#undef DTYPE_NAME_

const char *dtype_name(int32_t dtype) {
  return dtype >= 0 && dtype < HODU_DTYPE_COUNT ? g_dtype_name[dtype] : "?";
}

/* ONNX's names of its element types, for messages. */
const char *onnx_type_name(ONNXTensorElementDataType type) {
  static const char *const names[] = {
      "undefined",      "float",        "uint8",          "int8",
      "uint16",         "int16",        "int32",          "int64",
      "string",         "bool",         "float16",        "double",
      "uint32",         "uint64",       "complex64",      "complex128",
      "bfloat16",       "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
      "float8e5m2fnuz", "uint4",        "int4",           "float4e2m1"};
  if ((int)type >= 0 && (size_t)type < sizeof names / sizeof *names)
    return names[type];
  return "an unknown element type";
}

/* The hodu_dtype of an ONNX element type, or -1 when Hodu has none. */
int32_t dtype_of(ONNXTensorElementDataType type) {
  switch (type) {
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
    return HODU_DTYPE_BOOL;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FN:
    return HODU_DTYPE_F8E4M3;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2:
    return HODU_DTYPE_F8E5M2;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16:
    return HODU_DTYPE_BF16;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
    return HODU_DTYPE_F16;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
    return HODU_DTYPE_F32;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
    return HODU_DTYPE_F64;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
    return HODU_DTYPE_U8;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
    return HODU_DTYPE_U16;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32:
    return HODU_DTYPE_U32;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
    return HODU_DTYPE_U64;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
    return HODU_DTYPE_I8;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
    return HODU_DTYPE_I16;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
    return HODU_DTYPE_I32;
  case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
    return HODU_DTYPE_I64;
  default:
    return -1;
  }
}

const char *value_kind_name(ONNXType type) {
  switch (type) {
  case ONNX_TYPE_TENSOR:
    return "tensor";
  case ONNX_TYPE_SEQUENCE:
    return "sequence";
  case ONNX_TYPE_MAP:
    return "map";
  case ONNX_TYPE_OPAQUE:
    return "opaque value";
  case ONNX_TYPE_SPARSETENSOR:
    return "sparse tensor";
  case ONNX_TYPE_OPTIONAL:
    return "optional";
  default:
    return "value of unknown type";
  }
}

/* The element count of `shape`, or -1 when a dim is negative or the count
 * (times 8 bytes) overflows. */
int64_t element_count(const int64_t *shape, int32_t rank) {
  int64_t count = 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] < 0)
      return -1;
    if (shape[d] != 0 && count > (INT64_MAX / 8) / shape[d])
      return -1;
    count *= shape[d];
  }
  return count;
}

