/*===- shape.h - shape arithmetic shared beyond libhodurt ------------------===*
 *
 * Sizing and printing shapes, needed by libhodurt and by the .npy code
 * (npy.h) that hodu-run and the `hoduc --emit=exe` driver compile in without
 * libhodurt; so this depends on libc only. Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_SHAPE_H
#define HODU_RUNTIME_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Multiplies the extents of `shape` (each >= 0) and the element size into
 * `*elements` and `*bytes`. Returns 0 when a product overflows int64_t or
 * size_t. */
int hodu_shape_size(int32_t rank, const int64_t *shape, size_t element_size,
                    int64_t *elements, size_t *bytes);

/* Formats `shape` as "[1,3,224,224]" into `buffer` (always terminated;
 * "..." marks a truncation). */
void hodu_format_shape(char *buffer, size_t size, int32_t rank,
                       const int64_t *shape);

#ifdef __cplusplus
}
#endif

#endif /* HODU_RUNTIME_SHAPE_H */
