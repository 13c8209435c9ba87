/*===- npy.h - NumPy .npy files, read and written once for every tool ------===*
 *
 * The one .npy reader and writer in Hodu. It is not part of libhodurt's API:
 * runtime/CMakeLists.txt compiles it as the object library `hodu_npy`, which
 * hodu-run links, and lib/Driver compiles it into hodu_exe_main.o, the main()
 * of `hoduc --emit=exe` executables, which link no libhodurt. So it depends
 * on hodu/abi.h and libc only, and reports errors as text, not as a
 * hodu_status.
 *
 * Reading is bounded for hostile files: the header is read only up to
 * HODU_NPY_MAX_HEADER bytes, every number in it is checked for overflow,
 * and the data is read only up to the size the header's shape needs (and,
 * where the stream can seek, that much is checked to be there before
 * anyone allocates it).
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_NPY_H
#define HODU_RUNTIME_NPY_H

#include "hodu/abi.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest rank read or written. */
#define HODU_NPY_MAX_RANK 64
/* The largest header dict read: version 1's limit, far more than the dict
 * of any array of a supported dtype needs. */
#define HODU_NPY_MAX_HEADER 65535
/* A buffer this large holds the header hodu_npy_format_header writes for
 * any rank up to HODU_NPY_MAX_RANK. */
#define HODU_NPY_HEADER_BUFFER 2048

/* What a .npy header says about the array that follows it. */
typedef struct hodu_npy_info {
  hodu_dtype dtype;
  int32_t rank;
  int64_t shape[HODU_NPY_MAX_RANK];
  size_t bytes;      /* of the data: elements x element size */
  int fortran_order; /* stored column-major */
  int swap_bytes;    /* stored big-endian, with elements wider than a byte */
} hodu_npy_info;

/* NumPy's type code of `dtype` without the byte order ("f4"), or NULL for
 * bf16 and the f8 types, which NumPy has no type for. */
const char *hodu_npy_type_code(hodu_dtype dtype);

/* Reads a version 1-3 header from `file`, leaving it at the data. Returns 1,
 * or 0 with a message (naming no file) in `error`. */
int hodu_npy_read_header(FILE *file, hodu_npy_info *info, char *error,
                         size_t error_size);

/* Reads the `info->bytes` bytes of data that follow the header into `data`
 * and converts them to little-endian, row-major order. Reads no further.
 * Returns 1, or 0 with a message in `error` (short data, no memory for
 * the transposition of Fortran order). */
int hodu_npy_read_data(FILE *file, const hodu_npy_info *info, void *data,
                       char *error, size_t error_size);

/* Writes the version-1 header of a little-endian, C-order array into
 * `buffer`, padded so that the data after it starts 64-byte aligned.
 * Returns its length, or 0 when `dtype` has no NumPy type, `rank` is out
 * of range or `size` is too small (HODU_NPY_HEADER_BUFFER always
 * suffices). */
size_t hodu_npy_format_header(char *buffer, size_t size, hodu_dtype dtype,
                              int32_t rank, const int64_t *shape);

#ifdef __cplusplus
}
#endif

#endif /* HODU_RUNTIME_NPY_H */
