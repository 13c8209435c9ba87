/*===- ort_internal.h - shared by the onnxruntime plugin's sources ---------===*/
#ifndef HODU_ORT_INTERNAL_H
#define HODU_ORT_INTERNAL_H

#define _POSIX_C_SOURCE 200809L

#include "ort_api.h"

#include "hodu/plugin.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLUGIN_ID "onnxruntime"
#define PLUGIN_VERSION "1.0.0"
#define PLUGIN_DESCRIPTION                                                     \
  "ONNX Runtime (CPU execution provider) as a Hodu engine"
#define ORT_LIBRARY_NAME "libonnxruntime.so.1"
/* The oldest ONNX Runtime whose table has every slot of ort_api.h. */
#define ORT_MIN_MINOR HODU_ORT_API_VERSION

/* The host's API, from hodu_plugin_query (ort_engine.c). */
extern const hodu_host_api *g_host;

/* Whether the host's struct reaches `field` and sets it. */
#define HOST_HAS(field)                                                        \
  (g_host != NULL &&                                                           \
   g_host->struct_size >=                                                      \
       offsetof(hodu_host_api, field) + sizeof(g_host->field) &&               \
   g_host->field != NULL)

/* ort_support.c: messages and dtypes. */
/* A malloc'ed printf-formatted text (NULL when out of memory). */
char *text_of(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* An error status with a printf-formatted message. */
hodu_status fail(hodu_status_code code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* A message to the host's log. */
void host_log(int32_t level, const char *message);
char *dup_string(const char *text);
/* "[1, 3, 224, 224]" into `buffer` (cut short with "..." when long). */
const char *shape_text(const int64_t *shape, int32_t rank, char *buffer,
                       size_t size);
extern const uint8_t g_dtype_size[HODU_DTYPE_COUNT];
const char *dtype_name(int32_t dtype);
const char *onnx_type_name(ONNXTensorElementDataType type);
/* The hodu dtype of an ONNX element type, or -1. */
int32_t dtype_of(ONNXTensorElementDataType type);
const char *value_kind_name(ONNXType type);
/* The elements of a shape, or -1 when a dim is negative or it overflows. */
int64_t element_count(const int64_t *shape, int32_t rank);

/* ort_library.c: ONNX Runtime itself, loaded once and shared. */
extern const OrtApi *g_ort; /* non-NULL once loaded */
extern OrtEnv *g_env;
extern OrtMemoryInfo *g_cpu_memory;
extern OrtAllocator *g_default_allocator; /* ORT's; never freed */
/* An OrtStatus as a hodu_status ("onnxruntime: " and ORT's message, then
 * `context` in parentheses when given); releases `ort_status`. */
hodu_status from_ort(OrtStatus *ort_status, hodu_status_code code,
                     const char *context);
/* Loads ONNX Runtime on first use (thread-safe). */
hodu_status ensure_ort(void);
/* The plugin's shutdown: releases what ensure_ort made. */
void plugin_shutdown(void);

#endif
