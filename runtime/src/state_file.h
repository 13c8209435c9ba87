/*===- state_file.h - state tensors to and from safetensors files ---------===*
 *
 * A session's state tensors (a train step's weights and optimizer state)
 * are saved as a safetensors file (https://github.com/huggingface/
 * safetensors: an 8-byte little-endian header length, a JSON header of
 * {"name": {"dtype", "shape", "data_offsets"}}, then the bytes), the format
 * PyTorch, ONNX Runtime's tooling and Hodu's capture API read. Through the
 * public session calls (hodu_session_read_state_tensor ...), which move the
 * bytes to and from the device. Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_STATE_FILE_H
#define HODU_RUNTIME_STATE_FILE_H

#include "hodu/runtime.h"

/* Writes the state tensors of `session` (of `model`) to `path`, through a
 * temporary file in the same directory renamed over it at the end, so a
 * failure leaves no half-written file. */
hodu_status hodu_state_file_save(const hodu_model *model,
                                 const hodu_session *session, const char *path);

/* Reads the file at `path` into the state tensors of `session`: every one
 * must be in the file under its name with its dtype and shape, and the
 * file must hold no other tensor. Nothing is written to the session unless
 * all of them can be read. */
hodu_status hodu_state_file_load(const hodu_model *model, hodu_session *session,
                                 const char *path);

#endif /* HODU_RUNTIME_STATE_FILE_H */
