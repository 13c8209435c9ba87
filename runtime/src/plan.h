/*===- plan.h - a model's launch plan in memory ----------------------------===*
 *
 * What the runtime executes: tensors, devices, code objects, kernels, steps
 * and their arguments. A bundle (hodu/bundle.h) is read into a plan by
 * bundle.c and bundle_tables.c, which validate every field first, so the
 * rest of the runtime indexes these tables without checks. A CPU shared
 * library becomes a plan too (model.c): one CPU device and one internal
 * ENTRY step that calls the descriptor's entry function. Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_PLAN_H
#define HODU_RUNTIME_PLAN_H

#include "hodu/abi.h"
#include "hodu/bundle.h"
#include "hodu/plugin.h"
#include "hodu/runtime.h"

#include <stddef.h>
#include <stdint.h>

/* Internal step op of plans made from a CPU descriptor: calls
 * desc->entry(inputs + meta slots, outputs, ctx) with the step's args, in
 * the order INPUT..., META..., OUTPUT..., and an optional ARENA last (the
 * workspace). Never appears in a bundle (the reader refuses it). */
#define HODU_STEP_ENTRY_ 0x100u

/* Internal buffer spaces of the state tensors (after hodu_plan_split_state):
 * index k is state tensor k's value (STATE_, what the run reads) or its
 * next value (STATE_NEXT_, what the run writes). Never in a bundle. */
#define HODU_SPACE_STATE_ 0x100u
#define HODU_SPACE_STATE_NEXT_ 0x101u

/* The longest plugin device name a bundle may give. */
#define HODU_PLUGIN_DEVICE_NAME_MAX 63

/* A bundle's largest accepted size (the whole file is read into memory). */
#define HODU_BUNDLE_MAX_FILE_SIZE (UINT64_C(1) << 36) /* 64 GiB */
/* Bounds on table sizes beyond what the file size implies. */
#define HODU_BUNDLE_MAX_SECTIONS 256u
#define HODU_BUNDLE_MAX_RANK 16u

/* The most padded symbols a bundle's plan runs (bundle format 1.5: an
 * image's height and width are two). */
#define HODU_PLAN_MAX_PADDED HODU_BUNDLE_MAX_PADDED_SYMBOLS

/* The most symbols a bundle's plan has: one chunked and the padded. */
#define HODU_PLAN_MAX_SYMBOLS (HODU_PLAN_MAX_PADDED + 1u)

/* One plan of a bundle with variants (minor 6): steps [first, first +
 * count) of plan->steps, compiled with each symbol k at sizes[k] (a padded
 * symbol's size, a chunked one's chunk); `elements`, the product of the
 * padded symbols' sizes, orders them. */
typedef struct hodu_plan_variant {
  uint32_t first, count;
  int64_t sizes[HODU_PLAN_MAX_SYMBOLS];
  double elements;
} hodu_plan_variant;

/* A dim of a tensor that a padded symbol is: its real extent in a run is
 * scale * value / divisor + offset, `full` at the bound. */
typedef struct hodu_plan_pad {
  int32_t dim, symbol;
  int64_t full, scale, offset, divisor;
} hodu_plan_pad;

/* An input, output, meta slot or state tensor. */
typedef struct hodu_plan_tensor {
  hodu_tensor_desc desc; /* name, dtype, rank, shape (into plan->dims) */
  uint32_t device;       /* index into plan->devices */
  uint64_t bytes;
  const uint8_t *init; /* meta slots and state tensors: `bytes` initial
                          bytes; NULL = zeros */
  /* Bundles with a symbol: each pass of a run covers `chunk` units of the
   * symbol in each of `outer` blocks (the dims before the symbol's), a unit
   * being `unit` bytes; unit 0: the tensor has no symbol and is passed
   * whole. `bytes` is its size at the chunk. */
  uint64_t unit;
  uint64_t outer;
  /* Which dims are the symbols (unit is non-zero when any is): the
   * chunked symbol's dim (-1: none), `chunk_scale` units per unit of the
   * symbol, and the padded symbols' dims (`num_pad`, in the order of the
   * DYNAMIC_DIMS records). `bound_shape` is the plan's shape (DIMS: the
   * chunk's and the bound's extents). A tensor with a padded dim is copied
   * as a box (session_passes.c). */
  int32_t chunk_dim;
  int64_t chunk_scale;
  uint32_t num_pad;
  hodu_plan_pad pad[HODU_PLAN_MAX_PADDED];
  const int64_t *bound_shape;
} hodu_plan_tensor;

typedef struct hodu_plan {
  uint8_t *file; /* the bundle's bytes (owned; 64-byte aligned); NULL
                    for plans made from a descriptor */
  uint64_t file_size;
  uint16_t version_major, version_minor;
  const char *name;
  const char *producer;
  uint32_t num_inputs, num_outputs, num_meta;
  /* State tensors (hodu_plan_split_state): the artifact's last num_state
   * inputs and outputs, which are not the caller's: num_inputs and
   * num_outputs count the caller's only. */
  uint32_t num_state;
  /* Inputs, outputs, meta slots, then (num_state each) the state tensors'
   * values and their next values. */
  hodu_plan_tensor *tensors;
  int64_t *dims;
  uint32_t num_dims;
  hodu_bundle_device *devices;
  uint32_t num_devices;
  hodu_bundle_code *codes;
  uint32_t num_codes;
  hodu_bundle_kernel *kernels;
  uint32_t num_kernels;
  hodu_bundle_step *steps;
  uint32_t num_steps;
  hodu_bundle_arg *args;
  uint32_t num_args;
  const char *strings; /* STRINGS (every reference was checked) */
  uint64_t strings_size;
  const uint8_t *weights;
  uint64_t weights_size;
  const uint8_t *blobs;
  uint64_t blobs_size;
  /* The device the model is said to run on: the first non-CPU device, else
   * device 0. */
  uint32_t main_device;
  /* Plans from a descriptor: the descriptor (borrowed). */
  const hodu_model_desc *desc;
  /* Bundles with symbols (SYMBOLS, DYNAMIC_DIMS): the tables in abi.h's
   * form, the tensors' shapes with HODU_DIM_DYNAMIC at the symbols' dims
   * (the tensors' desc.shape point into `shapes`; `dims` stays the file's),
   * and a descriptor of them without an entry (`symbolic`, when
   * num_symbols > 0), so symbols.c and dims.c serve bundles as they serve
   * descriptors. */
  hodu_symbol_desc *symbols;
  uint32_t num_symbols;
  hodu_dynamic_dim *dynamic_dims;
  uint32_t num_dynamic_dims;
  int64_t *shapes;
  hodu_tensor_desc *described; /* inputs, then outputs */
  hodu_model_desc symbolic;
  int64_t *divisors; /* per dynamic dim (the descriptor's, version 3) */
  /* The symbol run in chunks (its index, -1 without one: every plan
   * starts so) and its chunk (0 without one). */
  int32_t chunk_symbol;
  int64_t chunk;
  /* The padded symbols (HODU_BUNDLE_SYMBOL_PADDED; their indices): each
   * compiled at its bound, its value written to meta slot `value_slots[j]`
   * before each pass. */
  uint32_t num_padded;
  int32_t pad_symbols[HODU_PLAN_MAX_PADDED];
  uint32_t value_slots[HODU_PLAN_MAX_PADDED];
  /* Bundles with VARIANTS (minor 6): variant 0 is the bounds' plan
   * (STEPS), then one per VARIANTS record, whose steps (VARIANT_STEPS)
   * follow STEPS in `steps`; num_steps counts them all. `variant_records`
   * is the file's table (for hodu_model_plan_table). Without variants,
   * num_variants is 0 and every step is the one plan. */
  hodu_plan_variant *variants;
  uint32_t num_variants;
  hodu_bundle_variant *variant_records;
  /* What devices see of it (hodu/plugin.h), filled by hodu_plan_view
   * (device.h) when the model opens its devices. */
  hodu_device_plan view;
} hodu_plan;

/* The descriptor whose symbols a plan's runs bind: the CPU descriptor, a
 * bundle's `symbolic`, or NULL without symbols. */
static inline const hodu_model_desc *hodu_plan_symbols(const hodu_plan *plan) {
  return plan->desc ? plan->desc : plan->num_symbols ? &plan->symbolic : NULL;
}

/* Reads and validates the bundle at `path` (a regular file of at most
 * HODU_BUNDLE_MAX_FILE_SIZE bytes). Messages start with 'path'. */
hodu_status hodu_bundle_read_file(const char *path, hodu_plan **out);

/* Validates `size` bytes at `data` as a bundle and takes ownership of
 * `data` (which must come from aligned_alloc(64, ...) or malloc; it is
 * freed with the plan, or on failure). `origin` names it in messages. */
hodu_status hodu_bundle_parse(uint8_t *data, uint64_t size, const char *origin,
                              hodu_plan **out);

/* 1 when the first bytes of the file at `path` are HODU_BUNDLE_MAGIC. */
int hodu_is_bundle_file(const char *path);
/* Whether `size` bytes at `data` start with the bundle magic. */
int hodu_is_bundle_bytes(const void *data, size_t size);

void hodu_plan_free(hodu_plan *plan);

/* Index in plan->tensors of state tensor k's value, and of its next value. */
static inline uint32_t hodu_plan_state_tensor(const hodu_plan *plan,
                                              uint32_t k) {
  return plan->num_inputs + plan->num_outputs + plan->num_meta + k;
}
static inline uint32_t hodu_plan_next_tensor(const hodu_plan *plan,
                                             uint32_t k) {
  return hodu_plan_state_tensor(plan, plan->num_state) + k;
}

/* plan_state.c: makes the last `num_state` inputs and outputs of a plan
 * just built (num_inputs and num_outputs counting them, num_state 0, and
 * num_state at most either, which the caller checked) its
 * state tensors: checks that each pair has one dtype, shape and device and
 * that the plan has no symbol, moves them after the meta slots, points the
 * arguments at them through the STATE_ spaces, and appends one COPY step
 * per state tensor (next value to value) on its device, so that a run, a
 * capture and a replay each end with the state updated. `inits`: per
 * state tensor, its initial bytes or NULL (zeros); NULL keeps the inputs'
 * `init`. Messages start with `origin`. */
hodu_status hodu_plan_split_state(hodu_plan *plan, uint32_t num_state,
                                  const uint8_t *const *inits,
                                  const char *origin);

/* How many plans a plan runs: its variants, or 1 without VARIANTS. */
static inline uint32_t hodu_plan_num_plans(const hodu_plan *plan) {
  return plan->num_variants ? plan->num_variants : 1u;
}

/* The steps of variant `v` of a plan (the whole plan without variants). */
static inline void hodu_plan_variant_steps(const hodu_plan *plan, uint32_t v,
                                           uint32_t *first, uint32_t *count) {
  *first = plan->num_variants ? plan->variants[v].first : 0;
  *count = plan->num_variants ? plan->variants[v].count : plan->num_steps;
}

/* The variant a run at symbol values `values` takes: the one of fewest
 * elements whose padded sizes hold every value (bundle.h), 0 without
 * variants. */
uint32_t hodu_plan_pick_variant(const hodu_plan *plan, const int64_t *values);

/* The plan tensor an argument points into (an input, output, meta slot or
 * state tensor), or UINT32_MAX for ARENA and WEIGHTS. */
uint32_t hodu_plan_arg_tensor(const hodu_plan *plan,
                              const hodu_bundle_arg *arg);

/* The buffer an argument points into lives on this plan device. */
uint32_t hodu_plan_arg_device(const hodu_plan *plan,
                              const hodu_bundle_arg *arg);

/* Names for messages and --info: "vulkan", "LAUNCH", "ARENA", "spirv". */
const char *hodu_step_op_name(uint32_t op);
const char *hodu_buffer_space_name(uint32_t space);
const char *hodu_code_format_name(uint32_t format);

#endif /* HODU_RUNTIME_PLAN_H */
