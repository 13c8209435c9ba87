/*===- symbols.c - symbolic dims of CPU descriptors ------------------------===*
 *
 * The runtime's half of symbolic dims (docs/runtime.md, "Symbolic dims"):
 * the compiled entry reads the symbols' values from its hodu_run_context
 * and runs over chunks itself, so all the runtime does is validate the
 * descriptor's tables when a model loads, bind the values from the inputs'
 * shapes with every check a caller can get wrong, and resolve the outputs'
 * shapes. The checks themselves are in dims.c, which the `hoduc
 * --emit=exe` driver shares; this file makes statuses of them.
 *
 *===----------------------------------------------------------------------===*/
#include "symbols.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const hodu_tensor_desc *described(const hodu_model_desc *desc,
                                         int is_output, int32_t index) {
  return is_output ? &desc->outputs[index] : &desc->inputs[index];
}

/*===--------------------------------------------------------------------===*
 * Validation
 *===--------------------------------------------------------------------===*/

#define MALFORMED(...) hodu_make_status(HODU_INVALID_ARTIFACT, __VA_ARGS__)

static hodu_status validate_symbol(const char *origin, int32_t k,
                                   const hodu_symbol_desc *symbol) {
  if (!symbol->name)
    return MALFORMED("%s: malformed descriptor: symbol %d has no name", origin,
                     (int)k);
  const char *problem = symbol->min < 0 ? "min < 0"
                        : symbol->max != -1 && symbol->max < symbol->min
                            ? "max < min"
                        : symbol->multiple < 1 ? "multiple < 1"
                        : symbol->chunk < 0    ? "chunk < 0"
                                               : NULL;
  if (problem)
    return MALFORMED("%s: malformed descriptor: symbol '%s' has min %lld, max "
                     "%lld, multiple %lld, chunk %lld (%s)",
                     origin, symbol->name, (long long)symbol->min,
                     (long long)symbol->max, (long long)symbol->multiple,
                     (long long)symbol->chunk, problem);
  return NULL;
}

static hodu_status validate_record(const char *origin,
                                   const hodu_model_desc *desc, int32_t r) {
  const hodu_dynamic_dim *record = &desc->dynamic_dims[r];
  const char *kind = record->is_output ? "output" : "input";
  int32_t count = record->is_output ? desc->num_outputs : desc->num_inputs;
  if (record->is_output != 0 && record->is_output != 1)
    return MALFORMED("%s: malformed descriptor: dynamic dim %d has is_output "
                     "%d (0 or 1)",
                     origin, (int)r, (int)record->is_output);
  if (record->tensor < 0 || record->tensor >= count)
    return MALFORMED("%s: malformed descriptor: dynamic dim %d names %s %d, "
                     "but there are %d %ss",
                     origin, (int)r, kind, (int)record->tensor, (int)count,
                     kind);
  const hodu_tensor_desc *tensor =
      described(desc, record->is_output, record->tensor);
  if (record->dim < 0 || record->dim >= tensor->rank)
    return MALFORMED("%s: malformed descriptor: dynamic dim %d names dim %d "
                     "of %s '%s', which has rank %d",
                     origin, (int)r, (int)record->dim, kind, tensor->name,
                     (int)tensor->rank);
  if (record->symbol < 0 || record->symbol >= desc->num_symbols)
    return MALFORMED("%s: malformed descriptor: dynamic dim %d names symbol "
                     "%d, but there are %d symbols",
                     origin, (int)r, (int)record->symbol,
                     (int)desc->num_symbols);
  if (record->scale < 1)
    return MALFORMED("%s: malformed descriptor: dynamic dim %d (%s '%s' dim "
                     "%d) has scale %lld (must be >= 1)",
                     origin, (int)r, kind, tensor->name, (int)record->dim,
                     (long long)record->scale);
  int64_t divisor = hodu_dynamic_dim_divisor(desc, record);
  const hodu_symbol_desc *symbol = &desc->symbols[record->symbol];
  if (divisor < 1 || (symbol->multiple >= 1 &&
                      (record->scale * symbol->multiple) % divisor != 0))
    return MALFORMED("%s: malformed descriptor: dynamic dim %d (%s '%s' dim "
                     "%d) has divisor %lld, which must be >= 1 and divide "
                     "its scale %lld times the multiple %lld of symbol '%s'",
                     origin, (int)r, kind, tensor->name, (int)record->dim,
                     (long long)divisor, (long long)record->scale,
                     (long long)symbol->multiple, symbol->name);
  if (tensor->shape[record->dim] != HODU_DIM_DYNAMIC)
    return MALFORMED("%s: malformed descriptor: dynamic dim %d names %s '%s' "
                     "dim %d, whose extent is %lld, not HODU_DIM_DYNAMIC",
                     origin, (int)r, kind, tensor->name, (int)record->dim,
                     (long long)tensor->shape[record->dim]);
  int32_t num_meta = DESC_HAS(desc, num_meta_slots) ? desc->num_meta_slots : 0;
  /* The host keeps meta slots at a fixed size in every session. */
  if (!record->is_output && record->tensor >= desc->num_inputs - num_meta)
    return MALFORMED("%s: malformed descriptor: meta slot '%s' has a dynamic "
                     "dim; meta slots have static shapes",
                     origin, tensor->name);
  return NULL;
}

/* Every HODU_DIM_DYNAMIC entry of the tensor has exactly one record. */
static hodu_status validate_coverage(const char *origin,
                                     const hodu_model_desc *desc, int is_output,
                                     int32_t index) {
  const hodu_tensor_desc *tensor = described(desc, is_output, index);
  for (int32_t d = 0; d < tensor->rank; ++d) {
    if (tensor->shape[d] != HODU_DIM_DYNAMIC)
      continue;
    int records = 0;
    for (int32_t r = 0; r < desc->num_dynamic_dims; ++r) {
      const hodu_dynamic_dim *record = &desc->dynamic_dims[r];
      records += record->is_output == is_output && record->tensor == index &&
                 record->dim == d;
    }
    if (records != 1)
      return MALFORMED("%s: malformed descriptor: %s '%s' dim %d is "
                       "HODU_DIM_DYNAMIC but has %d dynamic dim records "
                       "(needs exactly one)",
                       origin, is_output ? "output" : "input", tensor->name,
                       (int)d, records);
  }
  return NULL;
}

hodu_status hodu_validate_symbols(const char *origin,
                                  const hodu_model_desc *desc) {
  if (!hodu_desc_has_dynamic_dims(desc))
    return NULL;
  if (desc->num_symbols < 0 || (desc->num_symbols > 0 && !desc->symbols))
    return MALFORMED("%s: malformed descriptor: %d symbols %s", origin,
                     (int)desc->num_symbols,
                     desc->num_symbols < 0 ? "(a negative count)"
                                           : "but no symbol table");
  if (desc->num_dynamic_dims < 0 ||
      (desc->num_dynamic_dims > 0 && !desc->dynamic_dims))
    return MALFORMED("%s: malformed descriptor: %d dynamic dims %s", origin,
                     (int)desc->num_dynamic_dims,
                     desc->num_dynamic_dims < 0 ? "(a negative count)"
                                                : "but no dynamic dim table");
  hodu_status status = NULL;
  for (int32_t k = 0; k < desc->num_symbols && !status; ++k)
    status = validate_symbol(origin, k, &desc->symbols[k]);
  for (int32_t r = 0; r < desc->num_dynamic_dims && !status; ++r)
    status = validate_record(origin, desc, r);
  for (int32_t i = 0; i < desc->num_inputs && !status; ++i)
    status = validate_coverage(origin, desc, 0, i);
  for (int32_t o = 0; o < desc->num_outputs && !status; ++o)
    status = validate_coverage(origin, desc, 1, o);
  /* A run binds the values from the inputs' shapes: a symbol that only
   * outputs have could never be bound. */
  for (int32_t k = 0; k < desc->num_symbols && !status; ++k) {
    int bound = 0;
    for (int32_t r = 0; r < desc->num_dynamic_dims && !bound; ++r)
      bound =
          !desc->dynamic_dims[r].is_output && desc->dynamic_dims[r].symbol == k;
    if (!bound)
      status = MALFORMED("%s: malformed descriptor: symbol '%s' is a dim of "
                         "no input, so a run cannot bind its value",
                         origin, desc->symbols[k].name);
  }
  return status;
}

/*===--------------------------------------------------------------------===*
 * Binding and checks
 *===--------------------------------------------------------------------===*/

hodu_status hodu_bind_symbols(const hodu_model_desc *desc, const char *model,
                              const hodu_tensor *const *inputs,
                              size_t num_inputs, int partial, int64_t *values) {
  for (size_t i = 0; i < num_inputs && !partial; ++i)
    if (!inputs[i])
      return hodu_make_status(HODU_INVALID_ARGUMENT, "input %d ('%s') is NULL",
                              (int)i, desc->inputs[i].name);
  int32_t stack_ranks[HODU_STACK_SYMBOLS];
  const int64_t *stack_shapes[HODU_STACK_SYMBOLS];
  int32_t *ranks = stack_ranks;
  const int64_t **shapes = stack_shapes;
  if (num_inputs > HODU_STACK_SYMBOLS) {
    ranks = malloc(sizeof *ranks * num_inputs);
    shapes = malloc(sizeof *shapes * num_inputs);
  }
  hodu_status status = NULL;
  if (!ranks || !shapes)
    status = hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
  /* A scalar's shape is NULL, but a NULL shape means "not given" here. */
  static const int64_t scalar_shape[1] = {0};
  for (size_t i = 0; i < num_inputs && !status; ++i) {
    ranks[i] = inputs[i] ? hodu_tensor_rank(inputs[i]) : 0;
    shapes[i] = !inputs[i]                     ? NULL
                : hodu_tensor_shape(inputs[i]) ? hodu_tensor_shape(inputs[i])
                                               : scalar_shape;
  }
  char message[1024];
  if (!status && !hodu_dims_bind(desc, model, num_inputs, ranks, shapes, values,
                                 message, sizeof message))
    status = hodu_make_status(HODU_MISMATCH, "%s", message);
  if (ranks != stack_ranks)
    free(ranks);
  if (shapes != stack_shapes)
    free(shapes);
  return status;
}

hodu_status hodu_check_symbol_values(const hodu_model_desc *desc,
                                     const char *model, const int64_t *values,
                                     size_t num_values) {
  int32_t num_symbols = hodu_desc_num_symbols(desc);
  if (num_values != (size_t)num_symbols)
    return hodu_make_status(
        HODU_INVALID_ARGUMENT, "model '%s' has %d symbol%s, got %zu values",
        model, (int)num_symbols, num_symbols == 1 ? "" : "s", num_values);
  if (num_values && !values)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "the symbol values are NULL");
  char message[1024];
  if (!hodu_dims_check_values(desc, model, values, message, sizeof message))
    return hodu_make_status(HODU_MISMATCH, "%s", message);
  return NULL;
}

hodu_status hodu_resolve_shape(const hodu_model_desc *desc, const char *model,
                               int is_output, int32_t index,
                               const int64_t *values, int64_t *shape) {
  char message[1024];
  if (!hodu_dims_resolve(desc, model, is_output, index, values, shape, message,
                         sizeof message))
    return hodu_make_status(HODU_INVALID_ARGUMENT, "%s", message);
  return NULL;
}
