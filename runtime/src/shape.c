/*===- shape.c - shape arithmetic shared beyond libhodurt ------------------===*/
#include "shape.h"

#include <stdio.h>
#include <string.h>

int hodu_shape_size(int32_t rank, const int64_t *shape, size_t element_size,
                    int64_t *elements, size_t *bytes) {
  uint64_t count = 1;
  for (int32_t i = 0; i < rank; ++i) {
    uint64_t extent = (uint64_t)shape[i];
    if (extent != 0 && count > (uint64_t)INT64_MAX / extent)
      return 0;
    count *= extent;
  }
  if (element_size != 0 && count > SIZE_MAX / element_size)
    return 0;
  *elements = (int64_t)count;
  *bytes = (size_t)(count * element_size);
  return 1;
}

void hodu_format_shape(char *buffer, size_t size, int32_t rank,
                       const int64_t *shape) {
  if (size == 0)
    return;
  size_t used = 0;
  buffer[0] = '\0';
  for (int32_t i = -1; i <= rank; ++i) {
    char piece[32];
    if (i == -1)
      snprintf(piece, sizeof(piece), "[");
    else if (i == rank)
      snprintf(piece, sizeof(piece), "]");
    else
      snprintf(piece, sizeof(piece), "%s%lld", i ? "," : "",
               (long long)shape[i]);
    size_t length = strlen(piece);
    if (used + length + 1 > size) {
      /* Keep room for the ellipsis so a cut is visible. */
      if (size >= 4)
        memcpy(buffer + (used + 4 <= size ? used : size - 4), "...", 4);
      return;
    }
    memcpy(buffer + used, piece, length + 1);
    used += length;
  }
}
