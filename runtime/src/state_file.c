/*===- state_file.c - state tensors to and from safetensors files ---------===*
 *
 * See state_file.h. The reader treats the file as a stranger's: the header
 * length is bounded by the file's size and HODU_JSON_MAX_SIZE, the JSON
 * reader is the strict one of json.c, and every offset is checked against
 * the file before a byte is read.
 *
 *===----------------------------------------------------------------------===*/
#include "state_file.h"

#include "internal.h"
#include "json.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One state tensor: its description and a host buffer of its bytes. */
typedef struct state_entry {
  const char *name;
  int32_t dtype; /* a hodu_dtype */
  int32_t rank;
  const int64_t *shape;
  uint64_t bytes;
  void *data;
} state_entry;

/* safetensors' dtype names, by hodu_dtype value. */
static const char *const safetensors_dtypes[HODU_DTYPE_COUNT] = {
    [HODU_DTYPE_BOOL] = "BOOL",      [HODU_DTYPE_F8E4M3] = "F8_E4M3",
    [HODU_DTYPE_F8E5M2] = "F8_E5M2", [HODU_DTYPE_BF16] = "BF16",
    [HODU_DTYPE_F16] = "F16",        [HODU_DTYPE_F32] = "F32",
    [HODU_DTYPE_F64] = "F64",        [HODU_DTYPE_U8] = "U8",
    [HODU_DTYPE_U16] = "U16",        [HODU_DTYPE_U32] = "U32",
    [HODU_DTYPE_U64] = "U64",        [HODU_DTYPE_I8] = "I8",
    [HODU_DTYPE_I16] = "I16",        [HODU_DTYPE_I32] = "I32",
    [HODU_DTYPE_I64] = "I64"};

static const char *dtype_name(int32_t dtype) {
  return dtype >= 0 && dtype < HODU_DTYPE_COUNT ? safetensors_dtypes[dtype]
                                                : NULL;
}

/* A growing string. */
typedef struct text {
  char *data;
  size_t length, capacity;
  int failed;
} text;

static void append(text *t, const char *s, size_t n) {
  if (t->failed)
    return;
  if (t->length + n + 1 > t->capacity) {
    size_t capacity = t->capacity ? t->capacity : 256;
    while (capacity < t->length + n + 1)
      capacity *= 2;
    char *data = realloc(t->data, capacity);
    if (!data) {
      t->failed = 1;
      return;
    }
    t->data = data;
    t->capacity = capacity;
  }
  memcpy(t->data + t->length, s, n);
  t->length += n;
  t->data[t->length] = '\0';
}

static void append_string(text *t, const char *s) { append(t, s, strlen(s)); }

static void append_quoted(text *t, const char *s) {
  size_t n = hodu_json_quote(s, NULL, 0);
  char *quoted = malloc(n + 1);
  if (!quoted) {
    t->failed = 1;
    return;
  }
  hodu_json_quote(s, quoted, n + 1);
  append(t, quoted, n);
  free(quoted);
}

static void append_u64(text *t, unsigned long long v) {
  char digits[32];
  append(t, digits, (size_t)snprintf(digits, sizeof digits, "%llu", v));
}

static int write_all(FILE *f, const void *data, size_t size) {
  return size == 0 || fwrite(data, 1, size, f) == size;
}

static hodu_status save_entries(const char *path, const char *model,
                                const state_entry *entries, uint32_t count) {
  if (!path || !*path)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "the path is NULL or empty");
  text header = {0};
  append_string(&header, "{\"__metadata__\":{\"format\":\"pt\",\"producer\":"
                         "\"libhodurt\",\"model\":");
  append_quoted(&header, model ? model : "");
  append_string(&header, "}");
  uint64_t offset = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const state_entry *e = &entries[i];
    append_string(&header, ",");
    append_quoted(&header, e->name);
    append_string(&header, ":{\"dtype\":\"");
    append_string(&header, dtype_name(e->dtype));
    append_string(&header, "\",\"shape\":[");
    for (int32_t d = 0; d < e->rank; ++d) {
      if (d)
        append_string(&header, ",");
      append_u64(&header, (unsigned long long)e->shape[d]);
    }
    append_string(&header, "],\"data_offsets\":[");
    append_u64(&header, (unsigned long long)offset);
    append_string(&header, ",");
    offset += e->bytes;
    append_u64(&header, (unsigned long long)offset);
    append_string(&header, "]}");
  }
  append_string(&header, "}");
  /* The data starts 8-byte aligned: the header is padded with spaces. */
  while (!header.failed && header.length % 8 != 0)
    append_string(&header, " ");
  if (header.failed) {
    free(header.data);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }

  size_t length = strlen(path);
  char *temporary = malloc(length + 32);
  if (!temporary) {
    free(header.data);
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  snprintf(temporary, length + 32, "%s.tmp-%ld", path, (long)getpid());
  FILE *f = fopen(temporary, "wb");
  if (!f) {
    hodu_status status =
        hodu_make_status(HODU_INVALID_ARGUMENT, "cannot write '%s': %s",
                         temporary, strerror(errno));
    free(header.data);
    free(temporary);
    return status;
  }
  unsigned char size_bytes[8];
  uint64_t header_size = header.length;
  for (int b = 0; b < 8; ++b)
    size_bytes[b] = (unsigned char)(header_size >> (8 * b));
  int ok =
      write_all(f, size_bytes, 8) && write_all(f, header.data, header.length);
  for (uint32_t i = 0; i < count && ok; ++i)
    ok = write_all(f, entries[i].data, (size_t)entries[i].bytes);
  ok = fflush(f) == 0 && ok;
  int saved_errno = errno;
  ok = fclose(f) == 0 && ok;
  free(header.data);
  if (ok && rename(temporary, path) != 0) {
    saved_errno = errno;
    ok = 0;
  }
  hodu_status status = NULL;
  if (!ok) {
    unlink(temporary);
    status = hodu_make_status(HODU_INVALID_ARGUMENT, "cannot write '%s': %s",
                              path, strerror(saved_errno));
  }
  free(temporary);
  return status;
}

/* The entry of the header for `e`: its dtype, shape and data range checked
 * against the file; its offset in the file in *at. */
static hodu_status check_entry(const char *path, const hodu_json *node,
                               const state_entry *e, uint64_t data_begin,
                               uint64_t file_size, uint64_t *at) {
  const char *dtype = hodu_json_string(hodu_json_get(node, "dtype"));
  const hodu_json *shape = hodu_json_get(node, "shape");
  const hodu_json *offsets = hodu_json_get(node, "data_offsets");
  if (node->type != HODU_JSON_OBJECT || !dtype || !shape ||
      shape->type != HODU_JSON_ARRAY || !offsets ||
      offsets->type != HODU_JSON_ARRAY || offsets->count != 2)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "'%s': tensor '%s' (line %u): expected an object "
                            "with dtype, shape and data_offsets [begin, end]",
                            path, e->name, (unsigned)node->line);
  int same = strcmp(dtype, dtype_name(e->dtype)) == 0 &&
             shape->count == (size_t)e->rank;
  for (size_t d = 0; same && d < shape->count; ++d)
    same = shape->children[d].type == HODU_JSON_NUMBER &&
           shape->children[d].number == (double)e->shape[d];
  if (!same) {
    char want[256];
    int used = snprintf(want, sizeof want, "%s [", dtype_name(e->dtype));
    for (int32_t d = 0; d < e->rank && used < (int)sizeof want; ++d)
      used += snprintf(want + used, sizeof want - (size_t)used, "%s%lld",
                       d ? ", " : "", (long long)e->shape[d]);
    if (used < (int)sizeof want)
      snprintf(want + used, sizeof want - (size_t)used, "]");
    return hodu_make_status(HODU_MISMATCH,
                            "'%s': tensor '%s' is %s with %zu dims, but the "
                            "model's state tensor is %s",
                            path, e->name, dtype, shape->count, want);
  }
  double begin = offsets->children[0].number, end = offsets->children[1].number;
  if (offsets->children[0].type != HODU_JSON_NUMBER ||
      offsets->children[1].type != HODU_JSON_NUMBER || begin < 0 ||
      end < begin || end - begin != (double)e->bytes ||
      (double)data_begin + end > (double)file_size)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "'%s': tensor '%s': data_offsets [%.0f, %.0f] "
                            "are not %llu bytes inside the file's %llu bytes "
                            "of data",
                            path, e->name, begin, end,
                            (unsigned long long)e->bytes,
                            (unsigned long long)(file_size - data_begin));
  *at = data_begin + (uint64_t)begin;
  return NULL;
}

static hodu_status load_entries(const char *path, const state_entry *entries,
                                uint32_t count) {
  if (!path || !*path)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "the path is NULL or empty");
  FILE *f = fopen(path, "rb");
  if (!f)
    return hodu_make_status(errno == ENOENT ? HODU_NOT_FOUND
                                            : HODU_INVALID_ARGUMENT,
                            "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'%s' is not a regular file",
                            path);
  }
  uint64_t file_size = (uint64_t)st.st_size;
  unsigned char size_bytes[8];
  uint64_t header_size = 0;
  hodu_status status = NULL;
  if (file_size < 8 || fread(size_bytes, 1, 8, f) != 8)
    status = hodu_make_status(HODU_INVALID_ARGUMENT,
                              "'%s' is not a safetensors file: it is "
                              "shorter than its 8-byte header size",
                              path);
  for (int b = 0; !status && b < 8; ++b)
    header_size |= (uint64_t)size_bytes[b] << (8 * b);
  if (!status && (header_size < 2 || header_size > file_size - 8 ||
                  header_size > HODU_JSON_MAX_SIZE))
    status = hodu_make_status(HODU_INVALID_ARGUMENT,
                              "'%s' is not a safetensors file: its header "
                              "size %llu does not fit its %llu bytes",
                              path, (unsigned long long)header_size,
                              (unsigned long long)file_size);
  char *header = status ? NULL : malloc((size_t)header_size);
  if (!status && !header)
    status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  if (!status && fread(header, 1, (size_t)header_size, f) != header_size)
    status = hodu_make_status(HODU_INVALID_ARGUMENT,
                              "'%s': cannot read its header", path);
  char error[256];
  hodu_json *root = status ? NULL
                           : hodu_json_parse(header, (size_t)header_size, error,
                                             sizeof error);
  if (!status && (!root || root->type != HODU_JSON_OBJECT))
    status = hodu_make_status(HODU_INVALID_ARGUMENT,
                              "'%s': its header is not a JSON object%s%s", path,
                              root ? "" : ": ", root ? "" : error);
  /* Every member but __metadata__ must be a state tensor. */
  for (size_t m = 0; !status && m < root->count; ++m) {
    const char *key = root->keys[m];
    if (strcmp(key, "__metadata__") == 0)
      continue;
    int known = 0;
    for (uint32_t i = 0; i < count && !known; ++i)
      known = strcmp(entries[i].name, key) == 0;
    if (!known)
      status = hodu_make_status(HODU_MISMATCH,
                                "'%s' holds tensor '%s', which is not a "
                                "state tensor of the model",
                                path, key);
  }
  /* Check every entry, then read into scratch, then copy out: the caller's
   * buffers are all written or none is. */
  uint64_t total = 0;
  uint64_t *at = status ? NULL : calloc(count ? count : 1, sizeof *at);
  if (!status && !at)
    status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  for (uint32_t i = 0; !status && i < count; ++i) {
    const hodu_json *node = hodu_json_get(root, entries[i].name);
    if (!node)
      status = hodu_make_status(HODU_MISMATCH,
                                "'%s' has no tensor '%s' (a state tensor of "
                                "the model)",
                                path, entries[i].name);
    else
      status = check_entry(path, node, &entries[i], 8 + header_size, file_size,
                           &at[i]);
    total += entries[i].bytes;
  }
  unsigned char *scratch = status ? NULL : malloc(total ? (size_t)total : 1);
  if (!status && !scratch)
    status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  uint64_t filled = 0;
  for (uint32_t i = 0; !status && i < count; ++i) {
    if (fseeko(f, (off_t)at[i], SEEK_SET) != 0 ||
        fread(scratch + filled, 1, (size_t)entries[i].bytes, f) !=
            entries[i].bytes)
      status = hodu_make_status(HODU_INVALID_ARGUMENT,
                                "'%s': cannot read tensor '%s'", path,
                                entries[i].name);
    filled += entries[i].bytes;
  }
  filled = 0;
  for (uint32_t i = 0; !status && i < count; ++i) {
    if (entries[i].bytes)
      memcpy(entries[i].data, scratch + filled, (size_t)entries[i].bytes);
    filled += entries[i].bytes;
  }
  free(scratch);
  free(at);
  hodu_json_free(root);
  free(header);
  fclose(f);
  return status;
}

/* The model's state tensors as entries, each with a host buffer of its
 * size (freed by free_entries, also after a failure). */
static hodu_status make_entries(const hodu_model *model, state_entry **out,
                                uint32_t *count) {
  *count = (uint32_t)hodu_model_num_state_tensors(model);
  state_entry *entries = calloc(*count ? *count : 1, sizeof *entries);
  *out = entries;
  if (!entries)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  for (uint32_t k = 0; k < *count; ++k) {
    int32_t i = (int32_t)k;
    size_t bytes = hodu_model_state_tensor_bytes(model, i);
    entries[k] = (state_entry){hodu_model_state_tensor_name(model, i),
                               hodu_model_state_tensor_dtype(model, i),
                               hodu_model_state_tensor_rank(model, i),
                               hodu_model_state_tensor_shape(model, i),
                               bytes,
                               malloc(bytes ? bytes : 1)};
    if (!entries[k].data)
      return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  }
  return NULL;
}

static void free_entries(state_entry *entries, uint32_t count) {
  for (uint32_t k = 0; entries && k < count; ++k)
    free(entries[k].data);
  free(entries);
}

hodu_status hodu_state_file_save(const hodu_model *model,
                                 const hodu_session *session,
                                 const char *path) {
  state_entry *entries = NULL;
  uint32_t count = 0;
  hodu_status status = make_entries(model, &entries, &count);
  for (uint32_t k = 0; !status && k < count; ++k)
    status = hodu_session_read_state_tensor(
        session, (int32_t)k, entries[k].data, (size_t)entries[k].bytes);
  if (!status)
    status = save_entries(path, hodu_model_name(model), entries, count);
  free_entries(entries, count);
  return status;
}

hodu_status hodu_state_file_load(const hodu_model *model, hodu_session *session,
                                 const char *path) {
  state_entry *entries = NULL;
  uint32_t count = 0;
  hodu_status status = make_entries(model, &entries, &count);
  if (!status)
    status = load_entries(path, entries, count);
  for (uint32_t k = 0; !status && k < count; ++k)
    status = hodu_session_write_state_tensor(
        session, (int32_t)k, entries[k].data, (size_t)entries[k].bytes);
  free_entries(entries, count);
  return status;
}
