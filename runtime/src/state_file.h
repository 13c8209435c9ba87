/*===- state_file.h - state tensors to and from safetensors files ---------===*
 *
 * A session's state tensors (a train step's weights and optimizer state)
 * are saved as a safetensors file (https://github.com/huggingface/
 * safetensors: an 8-byte little-endian header length, a JSON header of
 * {"name": {"dtype", "shape", "data_offsets"}}, then the bytes), the format
 * PyTorch, ONNX Runtime's tooling and Hodu's capture API read. Host memory
 * only; session.c moves the bytes to and from the device. Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_STATE_FILE_H
#define HODU_RUNTIME_STATE_FILE_H

#include "hodu/runtime.h"

#include <stdint.h>

typedef struct hodu_state_entry {
  const char *name;
  int32_t dtype; /* a hodu_dtype */
  int32_t rank;
  const int64_t *shape;
  uint64_t bytes;
  void *data; /* `bytes` bytes (written from on load) */
} hodu_state_entry;

/* Writes `count` entries to `path`, through a temporary file in the same
 * directory renamed over it at the end, so a failure leaves no half-written
 * file. `model` goes into the header's __metadata__. */
hodu_status hodu_state_file_save(const char *path, const char *model,
                                 const hodu_state_entry *entries,
                                 uint32_t count);

/* Reads the file at `path` into the entries' `data`: every entry must be
 * in the file under its name with its dtype and shape, and the file must
 * hold no other tensor. Nothing is written to an entry unless all of them
 * can be read (the caller's buffers are then all filled, or none is). */
hodu_status hodu_state_file_load(const char *path,
                                 const hodu_state_entry *entries,
                                 uint32_t count);

#endif /* HODU_RUNTIME_STATE_FILE_H */
