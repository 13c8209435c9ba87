/*===- status.c - error values with messages --------------------------------===*
 *
 * A status is one allocation holding the code and the message, so callers
 * release it with a single hodu_status_free().
 *
 *===----------------------------------------------------------------------===*/
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hodu_status_s {
  hodu_status_code code;
  char message[]; /* NUL-terminated */
};

/* Returned when even the status cannot be allocated; never freed. */
static struct {
  hodu_status_code code;
  char message[32];
} out_of_memory_status = {HODU_OUT_OF_MEMORY, "out of memory"};

static hodu_status static_oom(void) {
  return (hodu_status)(void *)&out_of_memory_status;
}

hodu_status hodu_make_status(hodu_status_code code, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = vsnprintf(NULL, 0, format, args);
  va_end(args);
  if (length < 0)
    length = 0;
  hodu_status status = malloc(sizeof(*status) + (size_t)length + 1);
  if (!status)
    return static_oom();
  status->code = code;
  va_start(args, format);
  vsnprintf(status->message, (size_t)length + 1, format, args);
  va_end(args);
  return status;
}

hodu_status_code hodu_status_get_code(hodu_status status) {
  return status ? status->code : HODU_OK;
}

const char *hodu_status_message(hodu_status status) {
  return status ? status->message : "OK";
}

const char *hodu_status_code_name(hodu_status_code code) {
  switch (code) {
  case HODU_OK:
    return "OK";
  case HODU_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case HODU_NOT_FOUND:
    return "NOT_FOUND";
  case HODU_INVALID_ARTIFACT:
    return "INVALID_ARTIFACT";
  case HODU_INCOMPATIBLE:
    return "INCOMPATIBLE";
  case HODU_MISMATCH:
    return "MISMATCH";
  case HODU_RUN_FAILED:
    return "RUN_FAILED";
  case HODU_OUT_OF_MEMORY:
    return "OUT_OF_MEMORY";
  case HODU_INVALID_STATE:
    return "INVALID_STATE";
  case HODU_NO_DEVICE:
    return "NO_DEVICE";
  case HODU_DEVICE_ERROR:
    return "DEVICE_ERROR";
  }
  return "UNKNOWN";
}

void hodu_status_free(hodu_status status) {
  if (status && status != static_oom())
    free(status);
}

char *hodu_copy_string(const char *text) {
  if (!text)
    return NULL;
  size_t size = strlen(text) + 1;
  char *copy = malloc(size);
  if (copy)
    memcpy(copy, text, size);
  return copy;
}
