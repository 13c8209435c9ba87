/*===- tensor.c - dense tensors, runtime-owned or wrapping caller memory -----===*/
#include "session.h"

#include <stdlib.h>
#include <string.h>

/* Runtime-owned buffers are aligned for the widest vector loads the
 * compiled code may use (AVX-512 = 64 bytes). */
#define HODU_TENSOR_ALIGNMENT 64

struct hodu_tensor {
  hodu_dtype dtype;
  int32_t rank;
  int64_t *shape; /* rank entries, owned; NULL for rank 0 */
  int64_t num_elements;
  size_t bytes;
  void *data;        /* NULL for device tensors */
  int owns_data;
  hodu_device *device; /* device tensors: their device (a reference) */
  hodu_buffer *buffer; /* and their memory */
};

/* Validates dtype/rank/shape and allocates the tensor object with its own
 * copy of the shape; the buffer is left to the caller. */
static hodu_status new_tensor(hodu_dtype dtype, int32_t rank,
                              const int64_t *shape, hodu_tensor **out) {
  size_t element_size = hodu_dtype_size(dtype);
  if (element_size == 0)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "invalid dtype %d",
                            (int)dtype);
  if (rank < 0)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "rank must be >= 0, got %d", (int)rank);
  if (rank > 0 && !shape)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "shape is NULL for a tensor of rank %d",
                            (int)rank);
  for (int32_t i = 0; i < rank; ++i)
    if (shape[i] < 0)
      return hodu_make_status(HODU_INVALID_ARGUMENT,
                              "dimension %d has negative extent %lld",
                              (int)i, (long long)shape[i]);
  int64_t elements;
  size_t bytes;
  if (!hodu_shape_size(rank, shape, element_size, &elements, &bytes)) {
    char text[128];
    hodu_format_shape(text, sizeof(text), rank, shape);
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "tensor of shape %s is too large", text);
  }
  hodu_tensor *tensor = calloc(1, sizeof(*tensor));
  if (!tensor)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  if (rank > 0) {
    tensor->shape = malloc(sizeof(int64_t) * (size_t)rank);
    if (!tensor->shape) {
      free(tensor);
      return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(tensor->shape, shape, sizeof(int64_t) * (size_t)rank);
  }
  tensor->dtype = dtype;
  tensor->rank = rank;
  tensor->num_elements = elements;
  tensor->bytes = bytes;
  *out = tensor;
  return NULL;
}

hodu_status hodu_tensor_create(hodu_dtype dtype, int32_t rank,
                               const int64_t *shape, hodu_tensor **out) {
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  hodu_tensor *tensor;
  hodu_status status = new_tensor(dtype, rank, shape, &tensor);
  if (status)
    return status;
  /* Round up: aligned_alloc wants a multiple of the alignment, and an empty
   * tensor still gets a valid, non-NULL buffer. */
  size_t rounded = tensor->bytes + HODU_TENSOR_ALIGNMENT - 1;
  if (rounded < tensor->bytes) {
    hodu_tensor_free(tensor);
    return hodu_make_status(HODU_INVALID_ARGUMENT, "tensor is too large");
  }
  rounded -= rounded % HODU_TENSOR_ALIGNMENT;
  if (rounded == 0)
    rounded = HODU_TENSOR_ALIGNMENT;
  tensor->data = aligned_alloc(HODU_TENSOR_ALIGNMENT, rounded);
  if (!tensor->data) {
    size_t bytes = tensor->bytes;
    hodu_tensor_free(tensor);
    return hodu_make_status(HODU_OUT_OF_MEMORY,
                            "cannot allocate %zu bytes for a tensor", bytes);
  }
  memset(tensor->data, 0, rounded);
  tensor->owns_data = 1;
  *out = tensor;
  return NULL;
}

hodu_status hodu_tensor_wrap(hodu_dtype dtype, int32_t rank,
                             const int64_t *shape, void *data, size_t bytes,
                             hodu_tensor **out) {
  if (!out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'out' is NULL");
  *out = NULL;
  hodu_tensor *tensor;
  hodu_status status = new_tensor(dtype, rank, shape, &tensor);
  if (status)
    return status;
  if (tensor->bytes != 0 && (!data || bytes < tensor->bytes)) {
    char text[128];
    hodu_format_shape(text, sizeof(text), rank, shape);
    if (!data)
      status = hodu_make_status(HODU_INVALID_ARGUMENT,
                                "a %s tensor of shape %s needs %zu bytes, "
                                "but the buffer is NULL",
                                hodu_dtype_name(dtype), text, tensor->bytes);
    else
      status = hodu_make_status(HODU_INVALID_ARGUMENT,
                                "a %s tensor of shape %s needs %zu bytes, "
                                "the buffer has %zu",
                                hodu_dtype_name(dtype), text, tensor->bytes,
                                bytes);
    hodu_tensor_free(tensor);
    return status;
  }
  /* Compiled code loads elements with their natural alignment. */
  size_t element_size = hodu_dtype_size(dtype);
  if ((uintptr_t)data % element_size != 0) {
    hodu_tensor_free(tensor);
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "buffer %p is not aligned to the %zu-byte "
                            "elements of %s",
                            data, element_size, hodu_dtype_name(dtype));
  }
  tensor->data = data;
  tensor->owns_data = 0;
  *out = tensor;
  return NULL;
}

void hodu_tensor_free(hodu_tensor *tensor) {
  if (!tensor)
    return;
  if (tensor->device) {
    tensor->device->ops->buffer_free(tensor->device->instance, tensor->buffer);
    hodu_device_release(tensor->device);
  }
  if (tensor->owns_data)
    free(tensor->data);
  free(tensor->shape);
  free(tensor);
}

void *hodu_tensor_data(const hodu_tensor *tensor) {
  return tensor ? tensor->data : NULL;
}
size_t hodu_tensor_bytes(const hodu_tensor *tensor) {
  return tensor ? tensor->bytes : 0;
}
hodu_dtype hodu_tensor_dtype(const hodu_tensor *tensor) {
  return tensor ? tensor->dtype : (hodu_dtype)-1;
}
int32_t hodu_tensor_rank(const hodu_tensor *tensor) {
  return tensor ? tensor->rank : -1;
}
const int64_t *hodu_tensor_shape(const hodu_tensor *tensor) {
  return tensor ? tensor->shape : NULL;
}
int64_t hodu_tensor_num_elements(const hodu_tensor *tensor) {
  return tensor ? tensor->num_elements : 0;
}
int hodu_tensor_owns_data(const hodu_tensor *tensor) {
  return tensor ? tensor->owns_data : 0;
}

/*===--------------------------------------------------------------------===*
 * Device tensors
 *===--------------------------------------------------------------------===*/

hodu_status hodu_tensor_create_on(hodu_device *device, hodu_dtype dtype,
                                  int32_t rank, const int64_t *shape,
                                  hodu_tensor **out) {
  *out = NULL;
  hodu_tensor *tensor;
  hodu_status status = new_tensor(dtype, rank, shape, &tensor);
  if (status)
    return status;
  status = device->ops->buffer_create(device->instance, tensor->bytes,
                                      &tensor->buffer);
  if (status) {
    hodu_tensor_free(tensor);
    return status;
  }
  tensor->device = hodu_device_retain(device);
  tensor->owns_data = 1;
  *out = tensor;
  return NULL;
}

hodu_device *hodu_tensor_device(const hodu_tensor *tensor) {
  return tensor ? tensor->device : NULL;
}

hodu_buffer *hodu_tensor_buffer(const hodu_tensor *tensor) {
  return tensor ? tensor->buffer : NULL;
}

hodu_device_kind hodu_tensor_device_kind(const hodu_tensor *tensor) {
  return tensor && tensor->device ? tensor->device->kind : HODU_DEVICE_CPU;
}

static hodu_status check_host_bytes(const hodu_tensor *tensor,
                                    const void *data, size_t bytes,
                                    const char *what) {
  if (!tensor)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "tensor is NULL");
  if (bytes != tensor->bytes)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "%s %zu bytes, but the tensor has %zu", what,
                            bytes, tensor->bytes);
  if (bytes && !data)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "the host buffer is NULL");
  return NULL;
}

hodu_status hodu_tensor_write(hodu_tensor *tensor, const void *data,
                              size_t bytes) {
  hodu_status status = check_host_bytes(tensor, data, bytes, "cannot write");
  if (status || !bytes)
    return status;
  if (tensor->device)
    return tensor->device->ops->write(tensor->device->instance, tensor->buffer,
                                      0, data, bytes);
  memmove(tensor->data, data, bytes);
  return NULL;
}

hodu_status hodu_tensor_read(const hodu_tensor *tensor, void *data,
                             size_t bytes) {
  hodu_status status = check_host_bytes(tensor, data, bytes, "cannot read");
  if (status || !bytes)
    return status;
  if (tensor->device)
    return tensor->device->ops->read(tensor->device->instance, tensor->buffer,
                                     0, data, bytes);
  memmove(data, tensor->data, bytes);
  return NULL;
}

hodu_status hodu_tensor_copy(const hodu_tensor *source, hodu_tensor *target) {
  if (!source || !target)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "tensor is NULL");
  int same = source->dtype == target->dtype && source->rank == target->rank;
  for (int32_t d = 0; same && d < source->rank; ++d)
    same = source->shape[d] == target->shape[d];
  if (!same) {
    char from[128], to[128];
    hodu_format_shape(from, sizeof from, source->rank, source->shape);
    hodu_format_shape(to, sizeof to, target->rank, target->shape);
    return hodu_make_status(HODU_MISMATCH,
                            "cannot copy a %s%s tensor into a %s%s tensor",
                            hodu_dtype_name(source->dtype), from,
                            hodu_dtype_name(target->dtype), to);
  }
  if (source == target || source->bytes == 0)
    return NULL;
  if (!source->device)
    return hodu_tensor_write(target, source->data, source->bytes);
  if (!target->device)
    return hodu_tensor_read(source, target->data, target->bytes);
  if (source->device == target->device) {
    hodu_binding from = {source->buffer, NULL, 0, source->bytes};
    hodu_binding to = {target->buffer, NULL, 0, target->bytes};
    return source->device->ops->copy(source->device->instance, &from, &to,
                                     source->bytes);
  }
  /* Between two devices: through host memory. */
  void *bounce = malloc(source->bytes);
  if (!bounce)
    return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  hodu_status status = hodu_tensor_read(source, bounce, source->bytes);
  if (!status)
    status = hodu_tensor_write(target, bounce, target->bytes);
  free(bounce);
  return status;
}
