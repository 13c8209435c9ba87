/*===- dtype.c - element types, version and thread settings -----------------===*/
#include "internal.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define HODU_DTYPE_INFO_(id, value, name, size, storage) [value] = {name, size},
static const struct {
  const char *name;
  size_t size;
} dtype_info[HODU_DTYPE_COUNT] = {HODU_DTYPE_LIST(HODU_DTYPE_INFO_)};
#undef HODU_DTYPE_INFO_

static int valid_dtype(hodu_dtype dtype) {
  return (int)dtype >= 0 && (int)dtype < HODU_DTYPE_COUNT;
}

const char *hodu_dtype_name(hodu_dtype dtype) {
  return valid_dtype(dtype) ? dtype_info[dtype].name : NULL;
}

int hodu_dtype_from_name(const char *name, hodu_dtype *dtype) {
  if (!name || !dtype)
    return 0;
  for (int i = 0; i < HODU_DTYPE_COUNT; ++i) {
    if (strcmp(name, dtype_info[i].name) == 0) {
      *dtype = (hodu_dtype)i;
      return 1;
    }
  }
  return 0;
}

size_t hodu_dtype_size(hodu_dtype dtype) {
  return valid_dtype(dtype) ? dtype_info[dtype].size : 0;
}

const char *hodu_runtime_version(void) { return HODU_RUNTIME_VERSION; }

uint32_t hodu_runtime_abi_version(void) { return HODU_ABI_VERSION; }

/* The only process-wide mutable state; atomic so that setting it while other
 * threads run is well defined. */
static atomic_int requested_threads;

hodu_status hodu_runtime_set_num_threads(int32_t num_threads) {
  if (num_threads < 0)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "number of threads must be >= 0 (0 = automatic), "
                            "got %d",
                            (int)num_threads);
  atomic_store(&requested_threads, num_threads);
  return NULL;
}

int32_t hodu_runtime_get_num_threads(void) {
  return atomic_load(&requested_threads);
}

int32_t hodu_effective_num_threads(void) {
  int32_t requested = atomic_load(&requested_threads);
  if (requested > 0)
    return requested;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? (int32_t)online : 1;
}
