/*===- symbols.h - symbolic dims of CPU descriptors ------------------------===*
 *
 * A version-2 descriptor may mark input and output dims HODU_DIM_DYNAMIC
 * and tie each to a symbol (abi.h). symbols.c validates those tables when
 * a model loads, and binds the symbols' values from the input tensors of a
 * run and resolves shapes for given values (the checks of dims.h, as
 * statuses). Bundles with symbols come as the descriptor their plan
 * makes of them (plan.h, hodu_plan_symbols), read and checked by the
 * bundle reader. Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_SYMBOLS_H
#define HODU_RUNTIME_SYMBOLS_H

#include "dims.h"
#include "internal.h"

#include <stdlib.h>

/* Symbol values of up to this many symbols live on the stack in a run. */
#define HODU_STACK_SYMBOLS 16

/* Room for `count` symbol values: `stack` (HODU_STACK_SYMBOLS entries) when
 * it is large enough, else the heap; NULL when out of memory. Released with
 * hodu_symbol_values_free(values, stack). */
static inline int64_t *hodu_symbol_values_alloc(int32_t count,
                                                int64_t *stack) {
  return count <= HODU_STACK_SYMBOLS
             ? stack
             : (int64_t *)malloc(sizeof(int64_t) * (size_t)count);
}
static inline void hodu_symbol_values_free(int64_t *values, int64_t *stack) {
  if (values != stack)
    free(values);
}

/* Checks the symbol and dynamic-dim tables of a descriptor whose tensors
 * are valid otherwise (validate_descriptor in model.c). `origin` names the
 * artifact in messages. */
hodu_status hodu_validate_symbols(const char *origin,
                                  const hodu_model_desc *desc);

/* Binds every symbol from the input tensors' shapes into `values` (one per
 * symbol), checking each input's rank and dims: MISMATCH with a message
 * naming the input, the dim and the symbol. NULL tensors are skipped when
 * `partial` (their symbols may then stay -1), and refused otherwise. */
hodu_status hodu_bind_symbols(const hodu_model_desc *desc, const char *model,
                              const hodu_tensor *const *inputs,
                              size_t num_inputs, int partial, int64_t *values);

/* Checks caller-given values against the symbols' bounds and multiples. */
hodu_status hodu_check_symbol_values(const hodu_model_desc *desc,
                                     const char *model, const int64_t *values,
                                     size_t num_values);

/* Writes the shape of input (is_output 0) or output `index` for `values`
 * into `shape` (its rank entries). INVALID_ARGUMENT when an extent would
 * overflow. `values` may be NULL for a tensor without dynamic dims. */
hodu_status hodu_resolve_shape(const hodu_model_desc *desc, const char *model,
                               int is_output, int32_t index,
                               const int64_t *values, int64_t *shape);

#endif /* HODU_RUNTIME_SYMBOLS_H */
