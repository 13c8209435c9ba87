/*===- npy.c - NumPy .npy files, read and written once for every tool ------===*
 *
 * The format: the magic "\x93NUMPY", a version byte pair, the length of the
 * header (2 bytes little-endian in version 1, 4 in versions 2 and 3), then
 * the header, a Python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * and the raw data. Only the three keys are read; the dict is not parsed as
 * Python beyond them.
 *
 *===----------------------------------------------------------------------===*/
#include "npy.h"

#include "shape.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* NumPy's type codes; NULL where NumPy has no such type. */
static const char *const npy_codes[HODU_DTYPE_COUNT] = {
    [HODU_DTYPE_BOOL] = "b1", [HODU_DTYPE_F16] = "f2", [HODU_DTYPE_F32] = "f4",
    [HODU_DTYPE_F64] = "f8",  [HODU_DTYPE_U8] = "u1",  [HODU_DTYPE_U16] = "u2",
    [HODU_DTYPE_U32] = "u4",  [HODU_DTYPE_U64] = "u8", [HODU_DTYPE_I8] = "i1",
    [HODU_DTYPE_I16] = "i2",  [HODU_DTYPE_I32] = "i4", [HODU_DTYPE_I64] = "i8",
};

#define HODU_DTYPE_SIZE_(id, value, name, size, storage) [value] = size,
static const size_t dtype_sizes[HODU_DTYPE_COUNT] = {
    HODU_DTYPE_LIST(HODU_DTYPE_SIZE_)};
#undef HODU_DTYPE_SIZE_

const char *hodu_npy_type_code(hodu_dtype dtype) {
  return (int)dtype >= 0 && dtype < HODU_DTYPE_COUNT ? npy_codes[dtype] : NULL;
}

static int fail(char *error, size_t size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *error, size_t size, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error, size, format, args);
  va_end(args);
  return 0;
}

/* Returns the text after `'key':` (or `"key":`) and any spaces, or NULL. */
static const char *find_key(const char *dict, const char *key) {
  char quoted[32];
  for (int quote = 0; quote < 2; ++quote) {
    snprintf(quoted, sizeof(quoted), quote ? "\"%s\"" : "'%s'", key);
    const char *at = strstr(dict, quoted);
    if (!at)
      continue;
    at += strlen(quoted);
    at += strspn(at, " ");
    if (*at != ':')
      return NULL;
    ++at;
    return at + strspn(at, " ");
  }
  return NULL;
}

/* 'descr': a quoted byte order and type code such as '<f4'. */
static int parse_descr(const char *dict, hodu_npy_info *info, char *error,
                       size_t error_size) {
  const char *at = find_key(dict, "descr");
  const char *close = at && (*at == '\'' || *at == '"') ? strchr(at + 1, *at)
                                                       : NULL;
  if (!close)
    return fail(error, error_size, ".npy header has no 'descr'");
  int length = (int)(close - at - 1);
  const char *descr = at + 1;
  char order = length > 0 ? descr[0] : '?';
  if (length == 3 && strchr("<>|=", order)) {
    for (int i = 0; i < HODU_DTYPE_COUNT; ++i) {
      if (npy_codes[i] && strncmp(descr + 1, npy_codes[i], 2) == 0) {
        info->dtype = (hodu_dtype)i;
        info->swap_bytes = order == '>' && dtype_sizes[i] > 1;
        return 1;
      }
    }
  }
  return fail(error, error_size, "unsupported .npy dtype '%.*s'",
              length > 32 ? 32 : length, descr);
}

/* 'fortran_order': True or False. */
static int parse_fortran_order(const char *dict, hodu_npy_info *info,
                               char *error, size_t error_size) {
  const char *at = find_key(dict, "fortran_order");
  if (at && strncmp(at, "True", 4) == 0)
    info->fortran_order = 1;
  else if (at && strncmp(at, "False", 5) == 0)
    info->fortran_order = 0;
  else
    return fail(error, error_size, ".npy header has no 'fortran_order'");
  return 1;
}

/* 'shape': a tuple of non-negative integers, "()", "(3,)" or "(2, 3)". */
static int parse_shape(const char *dict, hodu_npy_info *info, char *error,
                       size_t error_size) {
  const char *at = find_key(dict, "shape");
  if (!at || *at != '(')
    return fail(error, error_size, ".npy header has no 'shape'");
  ++at;
  info->rank = 0;
  for (;;) {
    at += strspn(at, " ");
    if (*at == ')')
      return 1;
    if (*at < '0' || *at > '9')
      return fail(error, error_size, "bad .npy shape: expected an extent");
    if (info->rank == HODU_NPY_MAX_RANK)
      return fail(error, error_size, ".npy shape has more than %d extents",
                  HODU_NPY_MAX_RANK);
    int64_t extent = 0;
    for (; *at >= '0' && *at <= '9'; ++at) {
      if (extent > (INT64_MAX - (*at - '0')) / 10)
        return fail(error, error_size, ".npy shape extent is too large");
      extent = extent * 10 + (*at - '0');
    }
    info->shape[info->rank++] = extent;
    at += strspn(at, " ");
    if (*at == ',')
      ++at;
    else if (*at != ')')
      return fail(error, error_size, "bad .npy shape: expected ',' or ')'");
  }
}

/* Reads the magic, the version and the header length. */
static int read_preamble(FILE *file, size_t *length, char *error,
                         size_t error_size) {
  unsigned char bytes[12];
  if (fread(bytes, 1, 8, file) != 8 || memcmp(bytes, "\x93NUMPY", 6) != 0)
    return fail(error, error_size, "not a .npy file (bad magic)");
  int major = bytes[6];
  if (major != 1 && major != 2 && major != 3)
    return fail(error, error_size, "unsupported .npy format version %d",
                major);
  size_t width = major == 1 ? 2 : 4;
  if (fread(bytes + 8, 1, width, file) != width)
    return fail(error, error_size, "truncated .npy header");
  *length = 0;
  for (size_t i = width; i-- > 0;)
    *length = *length << 8 | bytes[8 + i];
  if (*length > HODU_NPY_MAX_HEADER)
    return fail(error, error_size,
                ".npy header of %zu bytes is longer than the %d read", *length,
                HODU_NPY_MAX_HEADER);
  return 1;
}

/* Fails when a seekable `file` ends before `bytes` more bytes. Checked
 * before callers allocate the data, so a header that claims a huge shape
 * costs no memory; other streams are checked by the read itself. */
static int check_available(FILE *file, size_t bytes, char *error,
                           size_t error_size) {
  long here = ftell(file);
  if (here < 0 || fseek(file, 0, SEEK_END) != 0)
    return 1;
  long end = ftell(file);
  if (fseek(file, here, SEEK_SET) != 0)
    return fail(error, error_size, "cannot seek back to the .npy data");
  if (end >= here && (unsigned long)(end - here) < bytes)
    return fail(error, error_size,
                ".npy data is truncated: %ld bytes, need %zu", end - here,
                bytes);
  return 1;
}

int hodu_npy_read_header(FILE *file, hodu_npy_info *info, char *error,
                         size_t error_size) {
  size_t length;
  if (!read_preamble(file, &length, error, error_size))
    return 0;
  char *dict = malloc(length + 1);
  if (!dict)
    return fail(error, error_size, "out of memory");
  int ok = fread(dict, 1, length, file) == length;
  if (!ok)
    fail(error, error_size, "truncated .npy header");
  dict[length] = '\0';
  ok = ok && parse_descr(dict, info, error, error_size) &&
       parse_fortran_order(dict, info, error, error_size) &&
       parse_shape(dict, info, error, error_size);
  free(dict);
  if (!ok)
    return 0;
  int64_t elements;
  if (!hodu_shape_size(info->rank, info->shape, dtype_sizes[info->dtype],
                       &elements, &info->bytes)) {
    char shape[64];
    hodu_format_shape(shape, sizeof(shape), info->rank, info->shape);
    return fail(error, error_size, ".npy shape %s is too large", shape);
  }
  return check_available(file, info->bytes, error, error_size);
}

static void swap_bytes(unsigned char *data, size_t bytes, size_t width) {
  for (size_t at = 0; at < bytes; at += width)
    for (size_t i = 0; i < width / 2; ++i) {
      unsigned char byte = data[at + i];
      data[at + i] = data[at + width - 1 - i];
      data[at + width - 1 - i] = byte;
    }
}

/* Column-major to row-major: element (i0..in) of the stored array sits at
 * the sum of ik * stride_k, with strides growing from the first extent. */
static int transpose_fortran(const hodu_npy_info *info, unsigned char *data,
                             char *error, size_t error_size) {
  size_t width = dtype_sizes[info->dtype];
  if (info->bytes == 0) /* no elements; `data` may be NULL */
    return 1;
  unsigned char *stored = malloc(info->bytes);
  if (!stored)
    return fail(error, error_size, "out of memory");
  memcpy(stored, data, info->bytes);
  int64_t index[HODU_NPY_MAX_RANK] = {0};
  for (size_t flat = 0; flat * width < info->bytes; ++flat) {
    int64_t offset = 0, stride = 1;
    for (int32_t d = 0; d < info->rank; ++d) {
      offset += index[d] * stride;
      stride *= info->shape[d];
    }
    memcpy(data + flat * width, stored + (size_t)offset * width, width);
    for (int32_t d = info->rank; d-- > 0;) {
      if (++index[d] < info->shape[d])
        break;
      index[d] = 0;
    }
  }
  free(stored);
  return 1;
}

int hodu_npy_read_data(FILE *file, const hodu_npy_info *info, void *data,
                       char *error, size_t error_size) {
  size_t got = info->bytes ? fread(data, 1, info->bytes, file) : 0;
  if (got != info->bytes)
    return fail(error, error_size,
                ".npy data is truncated: %zu bytes, need %zu", got,
                info->bytes);
  if (info->swap_bytes)
    swap_bytes(data, info->bytes, dtype_sizes[info->dtype]);
  if (info->fortran_order && info->rank > 1)
    return transpose_fortran(info, data, error, error_size);
  return 1;
}

size_t hodu_npy_format_header(char *buffer, size_t size, hodu_dtype dtype,
                              int32_t rank, const int64_t *shape) {
  const char *code = hodu_npy_type_code(dtype);
  if (!code || rank < 0 || rank > HODU_NPY_MAX_RANK || size < 10)
    return 0;
  /* The dict after the 10-byte preamble; "(3,)" for rank 1. */
  char *dict = buffer + 10;
  size_t room = size - 10, used = 0;
  used += (size_t)snprintf(dict, room,
                           "{'descr': '%c%s', 'fortran_order': False, "
                           "'shape': (",
                           dtype_sizes[dtype] == 1 ? '|' : '<', code);
  for (int32_t i = 0; i < rank && used < room; ++i)
    used += (size_t)snprintf(dict + used, room - used, "%s%lld",
                             i ? ", " : "", (long long)shape[i]);
  if (used < room)
    used += (size_t)snprintf(dict + used, room - used, "%s), }",
                             rank == 1 ? "," : "");
  /* Spaces and a newline end the header where the data is 64-aligned. */
  size_t total = (10 + used + 1 + 63) / 64 * 64;
  if (used >= room || total > size || total - 10 > 0xffff)
    return 0;
  memset(dict + used, ' ', total - 10 - used - 1);
  buffer[total - 1] = '\n';
  memcpy(buffer, "\x93NUMPY\x01\x00", 8);
  buffer[8] = (char)((total - 10) & 0xff);
  buffer[9] = (char)((total - 10) >> 8);
  return total;
}
