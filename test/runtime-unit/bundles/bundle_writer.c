/*===- bundle_writer.c - a small bundle writer for the runtime's tests
 * -----===*/
#include "bundle_writer.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct growing {
  uint8_t *data;
  size_t size, capacity;
} growing;

static void append(growing *g, const void *data, size_t size) {
  if (g->size + size > g->capacity) {
    size_t capacity = g->capacity ? g->capacity : 256;
    while (capacity < g->size + size)
      capacity *= 2;
    g->data = realloc(g->data, capacity);
    g->capacity = capacity;
  }
  if (size)
    memcpy(g->data + g->size, data, size);
  g->size += size;
}

static void pad(growing *g, size_t alignment) {
  static const uint8_t zeros[256];
  while (g->size % alignment)
    append(g, zeros, 1);
}

struct tb_bundle {
  growing strings, devices, tensors, dims, codes, kernels, steps, args, weights,
      blobs, symbols, dynamic_dims, variants, variant_steps;
  hodu_bundle_model model;
  int minor3_symbols; /* SYMBOLS and DYNAMIC_DIMS in minor 3's records */
};

tb_bundle *tb_new(const char *model_name) {
  tb_bundle *b = calloc(1, sizeof *b);
  append(&b->strings, "", 1);
  b->model.name = tb_string(b, model_name);
  b->model.producer = tb_string(b, "bundle_writer (tests)");
  return b;
}

void tb_free(tb_bundle *b) {
  if (!b)
    return;
  growing *all[] = {
      &b->strings, &b->devices,      &b->tensors,  &b->dims,         &b->codes,
      &b->kernels, &b->steps,        &b->args,     &b->weights,      &b->blobs,
      &b->symbols, &b->dynamic_dims, &b->variants, &b->variant_steps};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    free(all[i]->data);
  free(b);
}

hodu_bundle_string tb_string(tb_bundle *b, const char *text) {
  hodu_bundle_string at = (hodu_bundle_string)b->strings.size;
  append(&b->strings, text, strlen(text) + 1);
  return at;
}

uint32_t tb_device(tb_bundle *b, uint32_t kind, uint64_t arena_size) {
  hodu_bundle_device d = {kind, 0, arena_size};
  append(&b->devices, &d, sizeof d);
  return (uint32_t)(b->devices.size / sizeof d - 1);
}

uint32_t tb_plugin_device(tb_bundle *b, const char *name, uint64_t arena_size) {
  hodu_bundle_device d = {HODU_DEVICE_PLUGIN, 0, arena_size, tb_string(b, name),
                          0};
  append(&b->devices, &d, sizeof d);
  return (uint32_t)(b->devices.size / sizeof d - 1);
}

static uint32_t tensor(tb_bundle *b, const char *name, int32_t dtype,
                       uint32_t rank, const int64_t *shape, uint32_t device,
                       uint64_t init) {
  static const uint64_t sizes[] = {1, 1, 1, 2, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8};
  hodu_bundle_tensor t;
  memset(&t, 0, sizeof t);
  t.name = tb_string(b, name);
  t.dtype = dtype;
  t.rank = rank;
  t.first_dim = (uint32_t)(b->dims.size / sizeof(int64_t));
  t.device = device;
  t.bytes = sizes[dtype];
  for (uint32_t d = 0; d < rank; ++d)
    t.bytes *= (uint64_t)shape[d];
  append(&b->dims, shape, sizeof(int64_t) * rank);
  t.init = init;
  append(&b->tensors, &t, sizeof t);
  return (uint32_t)(b->tensors.size / sizeof t - 1);
}

uint32_t tb_input(tb_bundle *b, const char *name, int32_t dtype, uint32_t rank,
                  const int64_t *shape, uint32_t device) {
  ++b->model.num_inputs;
  return tensor(b, name, dtype, rank, shape, device, HODU_BUNDLE_NONE);
}

uint32_t tb_output(tb_bundle *b, const char *name, int32_t dtype, uint32_t rank,
                   const int64_t *shape, uint32_t device) {
  ++b->model.num_outputs;
  return tensor(b, name, dtype, rank, shape, device, HODU_BUNDLE_NONE);
}

uint32_t tb_meta(tb_bundle *b, const char *name, int32_t dtype, uint32_t rank,
                 const int64_t *shape, uint32_t device, uint64_t init) {
  ++b->model.num_meta_slots;
  return tensor(b, name, dtype, rank, shape, device, init);
}

uint64_t tb_weights(tb_bundle *b, const void *data, uint64_t size) {
  pad(&b->weights, HODU_BUNDLE_BUFFER_ALIGNMENT);
  uint64_t at = b->weights.size;
  append(&b->weights, data, (size_t)size);
  return at;
}

uint32_t tb_code(tb_bundle *b, uint32_t device, uint32_t format,
                 const char *arch, const void *data, uint64_t size) {
  pad(&b->blobs, 16);
  hodu_bundle_code c = {device, format,        tb_string(b, arch),
                        0,      b->blobs.size, size};
  append(&b->blobs, data, (size_t)size);
  append(&b->codes, &c, sizeof c);
  return (uint32_t)(b->codes.size / sizeof c - 1);
}

uint32_t tb_kernel(tb_bundle *b, const char *name, uint32_t device, uint32_t bx,
                   uint32_t by, uint32_t bz, uint32_t num_args,
                   uint32_t shared_bytes) {
  hodu_bundle_kernel k = {tb_string(b, name), device,       {bx, by, bz},
                          num_args,           shared_bytes, 0};
  append(&b->kernels, &k, sizeof k);
  return (uint32_t)(b->kernels.size / sizeof k - 1);
}

uint32_t tb_arg(tb_bundle *b, uint32_t space, uint32_t index, uint64_t offset,
                uint64_t size) {
  hodu_bundle_arg a = {space, index, offset, size};
  append(&b->args, &a, sizeof a);
  return (uint32_t)(b->args.size / sizeof a - 1);
}

uint32_t tb_num_args(const tb_bundle *b) {
  return (uint32_t)(b->args.size / sizeof(hodu_bundle_arg));
}

uint32_t tb_step(tb_bundle *b, uint32_t op, uint32_t device, uint32_t kernel,
                 uint32_t gx, uint32_t gy, uint32_t gz, uint32_t first_arg,
                 uint32_t num_args) {
  hodu_bundle_step s = {op, device, kernel, {gx, gy, gz}, first_arg, num_args};
  append(&b->steps, &s, sizeof s);
  return (uint32_t)(b->steps.size / sizeof s - 1);
}

uint32_t tb_symbol(tb_bundle *b, const char *name, int64_t min, int64_t max,
                   int64_t multiple, int64_t chunk) {
  hodu_bundle_symbol sym = {tb_string(b, name), 0,     min, max,
                            multiple,           chunk, 0,   0};
  append(&b->symbols, &sym, sizeof sym);
  return (uint32_t)(b->symbols.size / sizeof sym - 1);
}

uint32_t tb_padded_symbol(tb_bundle *b, const char *name, uint32_t flags,
                          int64_t min, int64_t max, int64_t multiple,
                          int64_t chunk, uint32_t value_slot) {
  hodu_bundle_symbol sym = {tb_string(b, name), flags, min,        max,
                            multiple,           chunk, value_slot, 0};
  append(&b->symbols, &sym, sizeof sym);
  return (uint32_t)(b->symbols.size / sizeof sym - 1);
}

uint32_t tb_dynamic_dim(tb_bundle *b, uint32_t tensor, uint32_t dim,
                        uint32_t symbol, int64_t scale) {
  return tb_dynamic_extent(b, tensor, dim, symbol, scale, 0, 1);
}

uint32_t tb_dynamic_extent(tb_bundle *b, uint32_t tensor, uint32_t dim,
                           uint32_t symbol, int64_t scale, int64_t offset,
                           int64_t divisor) {
  hodu_bundle_dynamic_dim d = {tensor, dim, symbol, 0, scale, offset, divisor};
  append(&b->dynamic_dims, &d, sizeof d);
  return (uint32_t)(b->dynamic_dims.size / sizeof d - 1);
}

void tb_minor3_symbols(tb_bundle *b) { b->minor3_symbols = 1; }

uint32_t tb_dims(tb_bundle *b, const int64_t *values, uint32_t count) {
  uint32_t first = (uint32_t)(b->dims.size / sizeof(int64_t));
  append(&b->dims, values, sizeof(int64_t) * count);
  return first;
}

uint32_t tb_variant(tb_bundle *b, uint32_t first_step, uint32_t num_steps,
                    uint32_t first_size, uint32_t flags) {
  hodu_bundle_variant v = {first_step, num_steps, first_size, flags};
  append(&b->variants, &v, sizeof v);
  return (uint32_t)(b->variants.size / sizeof v - 1);
}

uint32_t tb_variant_step(tb_bundle *b, uint32_t op, uint32_t device,
                         uint32_t kernel, uint32_t gx, uint32_t gy, uint32_t gz,
                         uint32_t first_arg, uint32_t num_args) {
  hodu_bundle_step s = {op, device, kernel, {gx, gy, gz}, first_arg, num_args};
  append(&b->variant_steps, &s, sizeof s);
  return (uint32_t)(b->variant_steps.size / sizeof s - 1);
}

/* `g`'s records of `size` bytes cut to their first `keep`. */
static growing cut_records(const growing *g, size_t size, size_t keep) {
  growing out = {0};
  for (size_t at = 0; at + size <= g->size; at += size)
    append(&out, g->data + at, keep);
  return out;
}

uint8_t *tb_finish(tb_bundle *b, size_t *size) {
  struct {
    uint32_t kind, entry_size;
    growing *g;
  } sections[] = {
      {HODU_BUNDLE_SECTION_STRINGS, 1, &b->strings},
      {HODU_BUNDLE_SECTION_MODEL, sizeof(hodu_bundle_model), NULL},
      {HODU_BUNDLE_SECTION_DEVICES, sizeof(hodu_bundle_device), &b->devices},
      {HODU_BUNDLE_SECTION_TENSORS, sizeof(hodu_bundle_tensor), &b->tensors},
      {HODU_BUNDLE_SECTION_DIMS, sizeof(int64_t), &b->dims},
      {HODU_BUNDLE_SECTION_CODE, sizeof(hodu_bundle_code), &b->codes},
      {HODU_BUNDLE_SECTION_KERNELS, sizeof(hodu_bundle_kernel), &b->kernels},
      {HODU_BUNDLE_SECTION_STEPS, sizeof(hodu_bundle_step), &b->steps},
      {HODU_BUNDLE_SECTION_ARGS, sizeof(hodu_bundle_arg), &b->args},
      {HODU_BUNDLE_SECTION_WEIGHTS, 1, &b->weights},
      {HODU_BUNDLE_SECTION_BLOBS, 1, &b->blobs},
      {HODU_BUNDLE_SECTION_SYMBOLS, sizeof(hodu_bundle_symbol), &b->symbols},
      {HODU_BUNDLE_SECTION_DYNAMIC_DIMS, sizeof(hodu_bundle_dynamic_dim),
       &b->dynamic_dims},
      {HODU_BUNDLE_SECTION_VARIANTS, sizeof(hodu_bundle_variant), &b->variants},
      {HODU_BUNDLE_SECTION_VARIANT_STEPS, sizeof(hodu_bundle_step),
       &b->variant_steps},
  };
  /* Minor 3's records end before value_slot and divisor. */
  growing old_symbols = {0}, old_dims = {0};
  if (b->minor3_symbols) {
    size_t symbol_size = offsetof(hodu_bundle_symbol, value_slot);
    size_t dim_size = offsetof(hodu_bundle_dynamic_dim, divisor);
    old_symbols =
        cut_records(&b->symbols, sizeof(hodu_bundle_symbol), symbol_size);
    old_dims = cut_records(&b->dynamic_dims, sizeof(hodu_bundle_dynamic_dim),
                           dim_size);
    int n = (int)(sizeof sections / sizeof sections[0]) - 2;
    sections[n - 2].entry_size = (uint32_t)symbol_size;
    sections[n - 2].g = &old_symbols;
    sections[n - 1].entry_size = (uint32_t)dim_size;
    sections[n - 1].g = &old_dims;
  }
  /* Bundles without a symbol have the sections of format 1.0, and those
   * without variants the sections of format 1.5 (the variants' last). */
  int all = (int)(sizeof sections / sizeof sections[0]);
  const int COUNT = b->variants.size || b->variant_steps.size ? all
                    : b->symbols.size || b->dynamic_dims.size ? all - 2
                                                              : all - 4;
  growing model = {0};
  append(&model, &b->model, sizeof b->model);
  sections[1].g = &model;
  growing out = {0};
  hodu_bundle_header header;
  memset(&header, 0, sizeof header);
  append(&out, &header, sizeof header);
  pad(&out, 64);
  uint64_t table = out.size;
  hodu_bundle_section entries[sizeof sections / sizeof sections[0]];
  size_t table_bytes = sizeof entries[0] * (size_t)COUNT;
  append(&out, entries, table_bytes);
  for (int i = 0; i < COUNT; ++i) {
    pad(&out, HODU_BUNDLE_SECTION_ALIGNMENT);
    entries[i].kind = sections[i].kind;
    entries[i].entry_size = sections[i].entry_size;
    entries[i].offset = out.size;
    entries[i].size = sections[i].g->size;
    append(&out, sections[i].g->data, sections[i].g->size);
  }
  memcpy(out.data + table, entries, table_bytes);
  memcpy(header.magic, HODU_BUNDLE_MAGIC, HODU_BUNDLE_MAGIC_SIZE);
  header.version_major = HODU_BUNDLE_VERSION_MAJOR;
  header.version_minor = HODU_BUNDLE_VERSION_MINOR;
  header.header_size = sizeof header;
  header.file_size = out.size;
  header.section_table_offset = table;
  header.section_count = COUNT;
  header.section_entry_size = sizeof(hodu_bundle_section);
  memcpy(out.data, &header, sizeof header);
  free(model.data);
  free(old_symbols.data);
  free(old_dims.data);
  *size = out.size;
  return out.data;
}

int tb_write_file(const char *path, const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return 1;
  int bad = fwrite(data, 1, size, f) != size;
  return fclose(f) != 0 || bad;
}

int tb_find_section(const uint8_t *data, size_t size, uint32_t kind,
                    uint64_t *offset, uint64_t *bytes) {
  hodu_bundle_header header;
  if (size < sizeof header)
    return 0;
  memcpy(&header, data, sizeof header);
  for (uint32_t i = 0; i < header.section_count; ++i) {
    hodu_bundle_section s;
    uint64_t at =
        header.section_table_offset + (uint64_t)i * header.section_entry_size;
    if (at + sizeof s > size)
      return 0;
    memcpy(&s, data + at, sizeof s);
    if (s.kind == kind) {
      *offset = s.offset;
      *bytes = s.size;
      return 1;
    }
  }
  return 0;
}
