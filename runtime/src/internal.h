/*===- internal.h - libhodurt's private declarations ------------------------===*
 *
 * Shared by the runtime's sources only; never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_INTERNAL_H
#define HODU_RUNTIME_INTERNAL_H

#include "hodu/runtime.h"

#include <stdarg.h>

/* Creates an error status with a printf-formatted message. Never returns
 * NULL: when memory runs out it returns a static OUT_OF_MEMORY status that
 * hodu_status_free() ignores. */
hodu_status hodu_make_status(hodu_status_code code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Formats `shape` as "[1,3,224,224]" into `buffer` (always terminated;
 * "..." marks a truncation). */
void hodu_format_shape(char *buffer, size_t size, int32_t rank,
                       const int64_t *shape);

/* Multiplies the extents of `shape` and the element size into `*elements`
 * and `*bytes`. Returns 0 when a product overflows. */
int hodu_shape_size(int32_t rank, const int64_t *shape, size_t element_size,
                    int64_t *elements, size_t *bytes);

/* What the runtime hands the compiled code as the entry's `ctx`. Compiled
 * code may ignore it today; once it reads it, this struct moves to abi.h.
 * Fields are only ever appended; `struct_size` says how many are filled. */
/* hodu_run_context is part of the artifact ABI: see hodu/abi.h. */

/* The thread budget for the next run (the set value, or the CPU count). */
int32_t hodu_effective_num_threads(void);

#endif /* HODU_RUNTIME_INTERNAL_H */
