/*===- dims.h - symbolic dims: binding and resolving, in plain C ----------===*
 *
 * The checks a run makes of its inputs' shapes against a version-2
 * descriptor's symbols (abi.h), and the shapes the symbols' values give,
 * with messages written into a caller's buffer. libhodurt (symbols.c)
 * makes statuses of them, and the `hoduc --emit=exe` driver, which links
 * no libhodurt, compiles this file in, so both check and say the same.
 * Depends on libc only; the descriptor's tables are taken as validated
 * (symbols.c). Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_DIMS_H
#define HODU_RUNTIME_DIMS_H

#include "hodu/abi.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the descriptor has the symbol tables (ABI version 2 on, and a
 * struct_size that covers them). */
int hodu_desc_has_dynamic_dims(const hodu_model_desc *desc);

/* The descriptor's symbols (0 for NULL and for descriptors without the
 * tables). */
int32_t hodu_desc_num_symbols(const hodu_model_desc *desc);

/* The record of dynamic dim `dim` of input (is_output 0) or output
 * `tensor`, or NULL. */
const hodu_dynamic_dim *hodu_dynamic_dim_of(const hodu_model_desc *desc,
                                            int is_output, int32_t tensor,
                                            int32_t dim);

/* The divisor of `record` (dynamic_dim_divisors, ABI version 3), else 1. */
int64_t hodu_dynamic_dim_divisor(const hodu_model_desc *desc,
                                 const hodu_dynamic_dim *record);

/* Formats a described shape with its symbols, "[batch,3]" or
 * "[2*batch+1]", into `buffer` (always terminated). */
void hodu_format_symbolic_shape(char *buffer, size_t size,
                                const hodu_model_desc *desc, int is_output,
                                int32_t index);

/* Formats "batch=4, seq=7" (every symbol) into `buffer`. */
void hodu_format_symbol_values(char *buffer, size_t size,
                               const hodu_model_desc *desc,
                               const int64_t *values);

/* Binds every symbol from the shapes of the first `num_inputs` inputs
 * (`ranks[i]` and `shapes[i]`; a NULL `shapes[i]` is skipped) into
 * `values`, one per symbol, -1 for a symbol no given input has. Checks
 * each input's rank, static dims and dynamic dims in input and dim order.
 * Returns 1, or 0 with the mismatch in `message` ("model 'm': input 'x'
 * dim 0 is 17: symbol 'batch' must be at most 16"). `model` names the
 * model in messages. */
int hodu_dims_bind(const hodu_model_desc *desc, const char *model,
                   size_t num_inputs, const int32_t *ranks,
                   const int64_t *const *shapes, int64_t *values, char *message,
                   size_t size);

/* Checks one value per symbol against its bounds and multiple. Returns 1,
 * or 0 with "model 'm': symbol 'batch' is 17, but must be at most 16". */
int hodu_dims_check_values(const hodu_model_desc *desc, const char *model,
                           const int64_t *values, char *message, size_t size);

/* Writes the shape of input (is_output 0) or output `index` at the values
 * (checked, one per symbol; NULL without symbols) into `shape`. Returns 1,
 * or 0 with the message when an extent overflows or is negative. */
int hodu_dims_resolve(const hodu_model_desc *desc, const char *model,
                      int is_output, int32_t index, const int64_t *values,
                      int64_t *shape, char *message, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* HODU_RUNTIME_DIMS_H */
