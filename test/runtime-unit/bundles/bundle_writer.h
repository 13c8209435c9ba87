/*===- bundle_writer.h - a small bundle writer for the runtime's tests -----===*
 *
 * Test-only: builds bundles (hodu/bundle.h) in memory, record by record, and
 * serialises them with every section 64-byte aligned. The compiler's own
 * writer lives in hoduc; this one lets the runtime tests make valid bundles
 * and then break them on purpose.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_TEST_BUNDLE_WRITER_H
#define HODU_TEST_BUNDLE_WRITER_H

#include "hodu/bundle.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tb_bundle tb_bundle;

tb_bundle *tb_new(const char *model_name);
void tb_free(tb_bundle *b);
/* Appends a string to STRINGS; returns its reference. */
hodu_bundle_string tb_string(tb_bundle *b, const char *text);
uint32_t tb_device(tb_bundle *b, uint32_t kind, uint64_t arena_size);
/* A device plugin's device (kind HODU_DEVICE_PLUGIN), named `name`. */
uint32_t tb_plugin_device(tb_bundle *b, const char *name, uint64_t arena_size);
/* Tensors in model order (inputs, outputs, meta slots); tb_finish counts
 * them by role as declared here. `init` is a WEIGHTS offset or
 * HODU_BUNDLE_NONE. Returns the tensor's index in TENSORS. */
uint32_t tb_input(tb_bundle *b, const char *name, int32_t dtype, uint32_t rank,
                  const int64_t *shape, uint32_t device);
uint32_t tb_output(tb_bundle *b, const char *name, int32_t dtype, uint32_t rank,
                   const int64_t *shape, uint32_t device);
uint32_t tb_meta(tb_bundle *b, const char *name, int32_t dtype, uint32_t rank,
                 const int64_t *shape, uint32_t device, uint64_t init);
/* Appends to WEIGHTS at the next 256-byte boundary; returns the offset. */
uint64_t tb_weights(tb_bundle *b, const void *data, uint64_t size);
uint32_t tb_code(tb_bundle *b, uint32_t device, uint32_t format,
                 const char *arch, const void *data, uint64_t size);
uint32_t tb_kernel(tb_bundle *b, const char *name, uint32_t device, uint32_t bx,
                   uint32_t by, uint32_t bz, uint32_t num_args,
                   uint32_t shared_bytes);
uint32_t tb_arg(tb_bundle *b, uint32_t space, uint32_t index, uint64_t offset,
                uint64_t size);
uint32_t tb_step(tb_bundle *b, uint32_t op, uint32_t device, uint32_t kernel,
                 uint32_t gx, uint32_t gy, uint32_t gz, uint32_t first_arg,
                 uint32_t num_args);
/* SYMBOLS and DYNAMIC_DIMS (format 1.1; written only when used). */
uint32_t tb_symbol(tb_bundle *b, const char *name, int64_t min, int64_t max,
                   int64_t multiple, int64_t chunk);
uint32_t tb_dynamic_dim(tb_bundle *b, uint32_t tensor, uint32_t dim,
                        uint32_t symbol, int64_t scale);
/* Minor 4: a padded symbol (flags HODU_BUNDLE_SYMBOL_PADDED, or any to test
 * the reader) whose value goes to meta slot `value_slot`, and a dim whose
 * extent is scale * value / divisor + offset. */
uint32_t tb_padded_symbol(tb_bundle *b, const char *name, uint32_t flags,
                          int64_t min, int64_t max, int64_t multiple,
                          int64_t chunk, uint32_t value_slot);
uint32_t tb_dynamic_extent(tb_bundle *b, uint32_t tensor, uint32_t dim,
                           uint32_t symbol, int64_t scale, int64_t offset,
                           int64_t divisor);
/* Writes SYMBOLS and DYNAMIC_DIMS in minor 3's shorter records, as a
 * bundle of that version has them. */
void tb_minor3_symbols(tb_bundle *b);
/* Minor 6: appends `count` values to DIMS (a variant's sizes); returns
 * the first one's index. */
uint32_t tb_dims(tb_bundle *b, const int64_t *values, uint32_t count);
/* A VARIANTS record, and a step of VARIANT_STEPS. */
uint32_t tb_variant(tb_bundle *b, uint32_t first_step, uint32_t num_steps,
                    uint32_t first_size, uint32_t flags);
uint32_t tb_variant_step(tb_bundle *b, uint32_t op, uint32_t device,
                         uint32_t kernel, uint32_t gx, uint32_t gy, uint32_t gz,
                         uint32_t first_arg, uint32_t num_args);
/* The number of ARGS entries so far (the next tb_arg's index). */
uint32_t tb_num_args(const tb_bundle *b);

/* Serialises the bundle; the caller frees the result with free(). */
uint8_t *tb_finish(tb_bundle *b, size_t *size);
/* Writes `size` bytes to `path`; 0 on success. */
int tb_write_file(const char *path, const uint8_t *data, size_t size);

/* Where section `kind` lies in a serialised bundle (from its table);
 * 0 when it has none. */
int tb_find_section(const uint8_t *data, size_t size, uint32_t kind,
                    uint64_t *offset, uint64_t *bytes);

#endif /* HODU_TEST_BUNDLE_WRITER_H */
