/*===- symbols.c - symbolic dims of CPU descriptors ------------------------===*
 *
 * The runtime's half of symbolic dims (docs/runtime.md, "Symbolic dims"):
 * the compiled entry reads the symbols' values from its hodu_run_context
 * and runs over chunks itself, so all the runtime does is validate the
 * descriptor's tables, bind the values from the inputs' shapes with every
 * check a caller can get wrong, and resolve the outputs' shapes. The
 * tables are small (a few symbols, a few dynamic dims), so lookups are
 * linear scans.
 *
 *===----------------------------------------------------------------------===*/
#include "symbols.h"
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int hodu_desc_has_dynamic_dims(const hodu_model_desc *desc) {
  return desc->abi_version >= 2 && DESC_HAS(desc, dynamic_dims);
}

int32_t hodu_desc_num_symbols(const hodu_model_desc *desc) {
  return desc && hodu_desc_has_dynamic_dims(desc) && desc->num_symbols > 0
             ? desc->num_symbols
             : 0;
}

const hodu_symbol_desc *hodu_desc_symbols(const hodu_model_desc *desc) {
  return hodu_desc_num_symbols(desc) ? desc->symbols : NULL;
}

static const hodu_tensor_desc *described(const hodu_model_desc *desc,
                                         int is_output, int32_t index) {
  return is_output ? &desc->outputs[index] : &desc->inputs[index];
}

/* The record of a dynamic dim; validation guarantees there is one. */
static const hodu_dynamic_dim *record_of(const hodu_model_desc *desc,
                                         int is_output, int32_t tensor,
                                         int32_t dim) {
  for (int32_t r = 0; r < desc->num_dynamic_dims; ++r) {
    const hodu_dynamic_dim *record = &desc->dynamic_dims[r];
    if ((record->is_output != 0) == (is_output != 0) &&
        record->tensor == tensor && record->dim == dim)
      return record;
  }
  return NULL;
}

/* Appends printf output to buffer[*used], keeping it terminated. */
static void append(char *buffer, size_t size, size_t *used, const char *format,
                   ...) __attribute__((format(printf, 4, 5)));
static void append(char *buffer, size_t size, size_t *used, const char *format,
                   ...) {
  if (*used >= size)
    return;
  va_list args;
  va_start(args, format);
  int written = vsnprintf(buffer + *used, size - *used, format, args);
  va_end(args);
  if (written > 0)
    *used += (size_t)written;
  if (*used >= size && size >= 4)
    memcpy(buffer + size - 4, "...", 4);
}

/* "batch", "2*batch", "batch+1", "2*batch-1": the extent a record says. */
static void append_extent(char *buffer, size_t size, size_t *used,
                          const hodu_model_desc *desc,
                          const hodu_dynamic_dim *record) {
  if (record->scale != 1)
    append(buffer, size, used, "%lld*", (long long)record->scale);
  append(buffer, size, used, "%s", desc->symbols[record->symbol].name);
  if (record->offset > 0)
    append(buffer, size, used, "+%lld", (long long)record->offset);
  else if (record->offset < 0)
    append(buffer, size, used, "-%lld", -(long long)record->offset);
}

void hodu_format_symbolic_shape(char *buffer, size_t size,
                                const hodu_model_desc *desc, int is_output,
                                int32_t index) {
  if (!size)
    return;
  buffer[0] = '\0';
  size_t used = 0;
  const hodu_tensor_desc *tensor = described(desc, is_output, index);
  append(buffer, size, &used, "[");
  for (int32_t d = 0; d < tensor->rank; ++d) {
    if (d)
      append(buffer, size, &used, ",");
    if (tensor->shape[d] == HODU_DIM_DYNAMIC)
      append_extent(buffer, size, &used, desc,
                    record_of(desc, is_output, index, d));
    else
      append(buffer, size, &used, "%lld", (long long)tensor->shape[d]);
  }
  append(buffer, size, &used, "]");
}

void hodu_format_symbol_values(char *buffer, size_t size,
                               const hodu_model_desc *desc,
                               const int64_t *values) {
  if (!size)
    return;
  buffer[0] = '\0';
  size_t used = 0;
  for (int32_t k = 0; k < hodu_desc_num_symbols(desc); ++k)
    append(buffer, size, &used, "%s%s=%lld", k ? ", " : "",
           desc->symbols[k].name, (long long)values[k]);
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

/* What is wrong with `value` for `symbol` ("must be at most 64"), or NULL. */
static const char *bound_problem(const hodu_symbol_desc *symbol, int64_t value,
                                 char *text, size_t size) {
  if (value < symbol->min)
    snprintf(text, size, "must be at least %lld", (long long)symbol->min);
  else if (symbol->max != -1 && value > symbol->max)
    snprintf(text, size, "must be at most %lld", (long long)symbol->max);
  else if (value % symbol->multiple != 0)
    snprintf(text, size, "must be a multiple of %lld",
             (long long)symbol->multiple);
  else
    return NULL;
  return text;
}

/* The first input dim (in binding order) that is of symbol `k`. */
static void first_source(const hodu_model_desc *desc,
                         const hodu_tensor *const *inputs, size_t num_inputs,
                         int32_t k, size_t *input, int32_t *dim) {
  for (size_t i = 0; i < num_inputs; ++i) {
    if (!inputs[i])
      continue;
    const hodu_tensor_desc *tensor = &desc->inputs[i];
    for (int32_t d = 0; d < tensor->rank; ++d) {
      const hodu_dynamic_dim *record = tensor->shape[d] == HODU_DIM_DYNAMIC
                                           ? record_of(desc, 0, (int32_t)i, d)
                                           : NULL;
      if (record && record->symbol == k) {
        *input = i;
        *dim = d;
        return;
      }
    }
  }
}

hodu_status hodu_bind_symbols(const hodu_model_desc *desc, const char *model,
                              const hodu_tensor *const *inputs,
                              size_t num_inputs, int partial, int64_t *values) {
  int32_t num_symbols = hodu_desc_num_symbols(desc);
  for (int32_t k = 0; k < num_symbols; ++k)
    values[k] = -1;
  for (size_t i = 0; i < num_inputs; ++i) {
    const hodu_tensor_desc *want = &desc->inputs[i];
    const hodu_tensor *tensor = inputs[i];
    if (!tensor) {
      if (partial)
        continue;
      return hodu_make_status(HODU_INVALID_ARGUMENT, "input %d ('%s') is NULL",
                              (int)i, want->name);
    }
    char shape_text[256];
    int32_t rank = hodu_tensor_rank(tensor);
    const int64_t *shape = hodu_tensor_shape(tensor);
    if (rank != want->rank) {
      hodu_format_symbolic_shape(shape_text, sizeof shape_text, desc, 0,
                                 (int32_t)i);
      return hodu_make_status(HODU_MISMATCH,
                              "model '%s': input '%s' has rank %d, but the "
                              "model's input has rank %d (shape %s)",
                              model, want->name, (int)rank, (int)want->rank,
                              shape_text);
    }
    for (int32_t d = 0; d < rank; ++d) {
      long long extent = (long long)shape[d];
      if (want->shape[d] != HODU_DIM_DYNAMIC) {
        if (shape[d] == want->shape[d])
          continue;
        hodu_format_symbolic_shape(shape_text, sizeof shape_text, desc, 0,
                                   (int32_t)i);
        return hodu_make_status(HODU_MISMATCH,
                                "model '%s': input '%s' dim %d is %lld, but "
                                "the model's input has %lld there (shape %s)",
                                model, want->name, (int)d, extent,
                                (long long)want->shape[d], shape_text);
      }
      const hodu_dynamic_dim *record = record_of(desc, 0, (int32_t)i, d);
      const hodu_symbol_desc *symbol = &desc->symbols[record->symbol];
      int trivial = record->scale == 1 && record->offset == 0;
      int64_t scaled;
      if (__builtin_sub_overflow(shape[d], record->offset, &scaled) ||
          scaled < 0 || scaled % record->scale != 0) {
        char expr[128];
        size_t used = 0;
        expr[0] = '\0';
        append_extent(expr, sizeof expr, &used, desc, record);
        return hodu_make_status(HODU_MISMATCH,
                                "model '%s': input '%s' dim %d is %lld, which "
                                "is not %s for any value of symbol '%s'",
                                model, want->name, (int)d, extent, expr,
                                symbol->name);
      }
      int64_t value = scaled / record->scale;
      int64_t *bound = &values[record->symbol];
      if (*bound >= 0 && *bound != value) {
        size_t source = 0;
        int32_t source_dim = 0;
        first_source(desc, inputs, num_inputs, record->symbol, &source,
                     &source_dim);
        if (trivial)
          return hodu_make_status(HODU_MISMATCH,
                                  "model '%s': input '%s' dim %d is %lld, but "
                                  "symbol '%s' is %lld (from input '%s' dim "
                                  "%d)",
                                  model, want->name, (int)d, extent,
                                  symbol->name, (long long)*bound,
                                  desc->inputs[source].name, (int)source_dim);
        return hodu_make_status(HODU_MISMATCH,
                                "model '%s': input '%s' dim %d is %lld, which "
                                "makes symbol '%s' %lld, but it is %lld (from "
                                "input '%s' dim %d)",
                                model, want->name, (int)d, extent, symbol->name,
                                (long long)value, (long long)*bound,
                                desc->inputs[source].name, (int)source_dim);
      }
      char problem[64];
      if (*bound < 0 && bound_problem(symbol, value, problem, sizeof problem)) {
        char value_text[48] = "";
        if (!trivial)
          snprintf(value_text, sizeof value_text, " (it is %lld)",
                   (long long)value);
        return hodu_make_status(HODU_MISMATCH,
                                "model '%s': input '%s' dim %d is %lld: "
                                "symbol '%s' %s%s",
                                model, want->name, (int)d, extent, symbol->name,
                                problem, value_text);
      }
      *bound = value;
    }
  }
  return NULL;
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
  for (int32_t k = 0; k < num_symbols; ++k) {
    char problem[64];
    if (bound_problem(&desc->symbols[k], values[k], problem, sizeof problem))
      return hodu_make_status(
          HODU_MISMATCH, "model '%s': symbol '%s' is %lld, but %s", model,
          desc->symbols[k].name, (long long)values[k], problem);
  }
  return NULL;
}

hodu_status hodu_resolve_shape(const hodu_model_desc *desc, const char *model,
                               int is_output, int32_t index,
                               const int64_t *values, int64_t *shape) {
  const hodu_tensor_desc *tensor = described(desc, is_output, index);
  for (int32_t d = 0; d < tensor->rank; ++d) {
    if (tensor->shape[d] != HODU_DIM_DYNAMIC) {
      shape[d] = tensor->shape[d];
      continue;
    }
    const hodu_dynamic_dim *record = record_of(desc, is_output, index, d);
    int64_t value = values[record->symbol];
    int64_t extent;
    if (__builtin_mul_overflow(record->scale, value, &extent) ||
        __builtin_add_overflow(extent, record->offset, &extent) || extent < 0)
      return hodu_make_status(
          HODU_INVALID_ARGUMENT,
          "model '%s': %s '%s' dim %d has no valid extent "
          "for symbol '%s' = %lld",
          model, is_output ? "output" : "input", tensor->name, (int)d,
          desc->symbols[record->symbol].name, (long long)value);
    shape[d] = extent;
  }
  return NULL;
}
