/*===- json.h - a strict, bounded JSON reader for files from strangers ----===*
 *
 * libhodurt reads plugin manifests (manifest.json next to a plugin library)
 * and the lines of a selection database with this. They may come from
 * anyone, so the reader is strict (RFC 8259 and nothing more: no comments,
 * no trailing commas, no NaN, no byte order mark) and bounded: inputs of up
 * to HODU_JSON_MAX_SIZE bytes, nesting up to HODU_JSON_MAX_DEPTH, recursion
 * no deeper than that, and errors, not crashes, for everything else.
 * Depends on libc only. Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_JSON_H
#define HODU_RUNTIME_JSON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest input read, in bytes (16 MiB). */
#define HODU_JSON_MAX_SIZE ((size_t)16 << 20)
/* The deepest nesting of arrays and objects read. */
#define HODU_JSON_MAX_DEPTH 64

typedef enum hodu_json_type {
  HODU_JSON_NULL,
  HODU_JSON_BOOL,
  HODU_JSON_NUMBER,
  HODU_JSON_STRING,
  HODU_JSON_ARRAY,
  HODU_JSON_OBJECT
} hodu_json_type;

typedef struct hodu_json hodu_json;
struct hodu_json {
  hodu_json_type type;
  int boolean;             /* BOOL */
  double number;           /* NUMBER */
  const char *text;        /* STRING: the decoded UTF-8, NUL-terminated;
                              NUMBER: its source text, NUL-terminated */
  size_t length;           /* STRING: bytes of text, excluding the NUL */
  size_t count;            /* ARRAY, OBJECT: the number of children */
  hodu_json *children;     /* ARRAY, OBJECT: count nodes (NULL when empty) */
  const char *const *keys; /* OBJECT: count keys, keys[i] names children[i] */
  uint32_t line, column;   /* where the value starts, 1-based; the column
                              counts bytes */
};

/* Parses `size` bytes of `text` (need not be NUL-terminated) as one JSON
 * value (RFC 8259; surrounding whitespace allowed, anything after it is an
 * error). NULL on error, with "line L, column C: <what>" written to `error`
 * (error_size bytes, always NUL-terminated when error_size > 0; "" on
 * success). Syntax errors are found first; an out-of-range number and a
 * duplicate key are found after the whole input has been checked. Free the
 * result with hodu_json_free. Strings decode to UTF-8 without NULs. */
hodu_json *hodu_json_parse(const char *text, size_t size, char *error,
                           size_t error_size);
/* Frees what hodu_json_parse returned (one allocation); NULL is ignored. */
void hodu_json_free(hodu_json *value);
/* The member `key` of an object; NULL when `object` is NULL, not an object,
 * or has no such member. A linear scan: objects here are small. */
const hodu_json *hodu_json_get(const hodu_json *object, const char *key);
/* The text of a string value; NULL when `value` is NULL or not a string. */
const char *hodu_json_string(const hodu_json *value);
/* Writes `s` as a JSON string literal (quotes, escapes for " \ and control
 * characters as \n \t \uXXXX) into buffer `out` of `size` bytes; returns the
 * length it needs (excluding the NUL), like snprintf. Other bytes are copied
 * as they are, so `s` should be UTF-8; NULL is written as "". */
size_t hodu_json_quote(const char *s, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* HODU_RUNTIME_JSON_H */
