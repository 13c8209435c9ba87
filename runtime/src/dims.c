/*===- dims.c - symbolic dims: binding and resolving, in plain C ----------===*
 *
 * The tables are small (a few symbols, a few dynamic dims), so lookups are
 * linear scans.
 *
 *===----------------------------------------------------------------------===*/
#include "dims.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int hodu_desc_has_dynamic_dims(const hodu_model_desc *desc) {
  return desc->abi_version >= 2 &&
         desc->struct_size >= offsetof(hodu_model_desc, dynamic_dims) +
                                  sizeof(desc->dynamic_dims);
}

int32_t hodu_desc_num_symbols(const hodu_model_desc *desc) {
  return desc && hodu_desc_has_dynamic_dims(desc) && desc->num_symbols > 0
             ? desc->num_symbols
             : 0;
}

static const hodu_tensor_desc *described(const hodu_model_desc *desc,
                                         int is_output, int32_t index) {
  return is_output ? &desc->outputs[index] : &desc->inputs[index];
}

const hodu_dynamic_dim *hodu_dynamic_dim_of(const hodu_model_desc *desc,
                                            int is_output, int32_t tensor,
                                            int32_t dim) {
  if (!hodu_desc_has_dynamic_dims(desc))
    return NULL;
  for (int32_t r = 0; r < desc->num_dynamic_dims; ++r) {
    const hodu_dynamic_dim *record = &desc->dynamic_dims[r];
    if ((record->is_output != 0) == (is_output != 0) &&
        record->tensor == tensor && record->dim == dim)
      return record;
  }
  return NULL;
}

int64_t hodu_dynamic_dim_divisor(const hodu_model_desc *desc,
                                 const hodu_dynamic_dim *record) {
  if (!record || desc->abi_version < 3 ||
      desc->struct_size < offsetof(hodu_model_desc, dynamic_dim_divisors) +
                              sizeof(desc->dynamic_dim_divisors) ||
      !desc->dynamic_dim_divisors)
    return 1;
  return desc->dynamic_dim_divisors[record - desc->dynamic_dims];
}

/* Appends printf output to buffer[*used], keeping it terminated; "..."
 * marks a cut. */
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

/* "batch", "2*batch", "batch+1", "2*batch-1", "samples/160-3": the extent
 * a record says. */
static void append_extent(char *buffer, size_t size, size_t *used,
                          const hodu_model_desc *desc,
                          const hodu_dynamic_dim *record) {
  if (record->scale != 1)
    append(buffer, size, used, "%lld*", (long long)record->scale);
  append(buffer, size, used, "%s", desc->symbols[record->symbol].name);
  int64_t divisor = hodu_dynamic_dim_divisor(desc, record);
  if (divisor != 1)
    append(buffer, size, used, "/%lld", (long long)divisor);
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
    const hodu_dynamic_dim *record =
        tensor->shape[d] == HODU_DIM_DYNAMIC
            ? hodu_dynamic_dim_of(desc, is_output, index, d)
            : NULL;
    if (record)
      append_extent(buffer, size, &used, desc, record);
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
static void first_source(const hodu_model_desc *desc, size_t num_inputs,
                         const int64_t *const *shapes, int32_t k, size_t *input,
                         int32_t *dim) {
  for (size_t i = 0; i < num_inputs; ++i) {
    if (!shapes[i])
      continue;
    const hodu_tensor_desc *tensor = &desc->inputs[i];
    for (int32_t d = 0; d < tensor->rank; ++d) {
      const hodu_dynamic_dim *record =
          tensor->shape[d] == HODU_DIM_DYNAMIC
              ? hodu_dynamic_dim_of(desc, 0, (int32_t)i, d)
              : NULL;
      if (record && record->symbol == k) {
        *input = i;
        *dim = d;
        return;
      }
    }
  }
}

/* Binds the dims of input `i`; 0 with the message on a mismatch. */
static int bind_input(const hodu_model_desc *desc, const char *model,
                      size_t num_inputs, const int64_t *const *shapes, size_t i,
                      int32_t rank, int64_t *values, char *message,
                      size_t size) {
  const hodu_tensor_desc *want = &desc->inputs[i];
  const int64_t *shape = shapes[i];
  char shape_text[256];
  if (rank != want->rank) {
    hodu_format_symbolic_shape(shape_text, sizeof shape_text, desc, 0,
                               (int32_t)i);
    snprintf(message, size,
             "model '%s': input '%s' has rank %d, but the model's input has "
             "rank %d (shape %s)",
             model, want->name, (int)rank, (int)want->rank, shape_text);
    return 0;
  }
  for (int32_t d = 0; d < rank; ++d) {
    long long extent = (long long)shape[d];
    if (want->shape[d] != HODU_DIM_DYNAMIC) {
      if (shape[d] == want->shape[d])
        continue;
      hodu_format_symbolic_shape(shape_text, sizeof shape_text, desc, 0,
                                 (int32_t)i);
      snprintf(message, size,
               "model '%s': input '%s' dim %d is %lld, but the model's input "
               "has %lld there (shape %s)",
               model, want->name, (int)d, extent, (long long)want->shape[d],
               shape_text);
      return 0;
    }
    const hodu_dynamic_dim *record =
        hodu_dynamic_dim_of(desc, 0, (int32_t)i, d);
    const hodu_symbol_desc *symbol = &desc->symbols[record->symbol];
    int64_t divisor = hodu_dynamic_dim_divisor(desc, record);
    int trivial = record->scale == 1 && record->offset == 0 && divisor == 1;
    /* extent - offset = scale * value / divisor, exactly. */
    int64_t scaled;
    if (__builtin_sub_overflow(shape[d], record->offset, &scaled) ||
        scaled < 0 || __builtin_mul_overflow(scaled, divisor, &scaled) ||
        scaled % record->scale != 0) {
      char expr[128];
      size_t used = 0;
      expr[0] = '\0';
      append_extent(expr, sizeof expr, &used, desc, record);
      snprintf(message, size,
               "model '%s': input '%s' dim %d is %lld, which is not %s for any "
               "value of symbol '%s'",
               model, want->name, (int)d, extent, expr, symbol->name);
      return 0;
    }
    int64_t value = scaled / record->scale;
    int64_t *bound = &values[record->symbol];
    if (*bound >= 0 && *bound != value) {
      size_t source = 0;
      int32_t source_dim = 0;
      first_source(desc, num_inputs, shapes, record->symbol, &source,
                   &source_dim);
      if (trivial)
        snprintf(message, size,
                 "model '%s': input '%s' dim %d is %lld, but symbol '%s' is "
                 "%lld (from input '%s' dim %d)",
                 model, want->name, (int)d, extent, symbol->name,
                 (long long)*bound, desc->inputs[source].name, (int)source_dim);
      else
        snprintf(message, size,
                 "model '%s': input '%s' dim %d is %lld, which makes symbol "
                 "'%s' %lld, but it is %lld (from input '%s' dim %d)",
                 model, want->name, (int)d, extent, symbol->name,
                 (long long)value, (long long)*bound, desc->inputs[source].name,
                 (int)source_dim);
      return 0;
    }
    char problem[64];
    if (*bound < 0 && bound_problem(symbol, value, problem, sizeof problem)) {
      char value_text[48] = "";
      if (!trivial)
        snprintf(value_text, sizeof value_text, " (it is %lld)",
                 (long long)value);
      snprintf(message, size,
               "model '%s': input '%s' dim %d is %lld: symbol '%s' %s%s", model,
               want->name, (int)d, extent, symbol->name, problem, value_text);
      return 0;
    }
    *bound = value;
  }
  return 1;
}

int hodu_dims_bind(const hodu_model_desc *desc, const char *model,
                   size_t num_inputs, const int32_t *ranks,
                   const int64_t *const *shapes, int64_t *values, char *message,
                   size_t size) {
  for (int32_t k = 0; k < hodu_desc_num_symbols(desc); ++k)
    values[k] = -1;
  for (size_t i = 0; i < num_inputs; ++i)
    if (shapes[i] && !bind_input(desc, model, num_inputs, shapes, i, ranks[i],
                                 values, message, size))
      return 0;
  return 1;
}

int hodu_dims_check_values(const hodu_model_desc *desc, const char *model,
                           const int64_t *values, char *message, size_t size) {
  for (int32_t k = 0; k < hodu_desc_num_symbols(desc); ++k) {
    char problem[64];
    if (bound_problem(&desc->symbols[k], values[k], problem, sizeof problem)) {
      snprintf(message, size, "model '%s': symbol '%s' is %lld, but %s", model,
               desc->symbols[k].name, (long long)values[k], problem);
      return 0;
    }
  }
  return 1;
}

int hodu_dims_resolve(const hodu_model_desc *desc, const char *model,
                      int is_output, int32_t index, const int64_t *values,
                      int64_t *shape, char *message, size_t size) {
  const hodu_tensor_desc *tensor = described(desc, is_output, index);
  for (int32_t d = 0; d < tensor->rank; ++d) {
    const hodu_dynamic_dim *record =
        tensor->shape[d] == HODU_DIM_DYNAMIC && values
            ? hodu_dynamic_dim_of(desc, is_output, index, d)
            : NULL;
    if (!record) {
      shape[d] = tensor->shape[d];
      continue;
    }
    int64_t value = values[record->symbol];
    int64_t divisor = hodu_dynamic_dim_divisor(desc, record);
    int64_t extent;
    if (__builtin_mul_overflow(record->scale, value, &extent) ||
        extent % divisor != 0 ||
        __builtin_add_overflow(extent / divisor, record->offset, &extent) ||
        extent < 0) {
      snprintf(message, size,
               "model '%s': %s '%s' dim %d has no valid extent for symbol "
               "'%s' = %lld",
               model, is_output ? "output" : "input", tensor->name, (int)d,
               desc->symbols[record->symbol].name, (long long)value);
      return 0;
    }
    shape[d] = extent;
  }
  return 1;
}
