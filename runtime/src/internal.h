/*===- internal.h - libhodurt's private declarations ------------------------===*
 *
 * Shared by the runtime's sources only; never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_INTERNAL_H
#define HODU_RUNTIME_INTERNAL_H

#include "hodu/runtime.h"
#include "shape.h"

#include <stdarg.h>

/* Creates an error status with a printf-formatted message. Never returns
 * NULL: when memory runs out it returns a static OUT_OF_MEMORY status that
 * hodu_status_free() ignores. */
hodu_status hodu_make_status(hodu_status_code code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* The thread budget for the next run (the set value, or the CPU count). */
int32_t hodu_effective_num_threads(void);

#endif /* HODU_RUNTIME_INTERNAL_H */
