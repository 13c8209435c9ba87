/*===- hodu/bundle.h - the bundle file format shared by hoduc and libhodurt -===*
 *
 * A bundle (`hoduc MODEL --device=vulkan|cuda|rocm|metal -o model.hodu`)
 * holds everything a device needs to run a compiled model: the device code
 * (SPIR-V, PTX, cubin, fatbin, hsaco, MSL), the launch plan (kernels in
 * order, their grids, and each argument as a buffer and a byte range), the
 * weights, and the sizes of the inputs, outputs and the device arena that
 * holds the intermediates. docs/bundle.md describes the format in prose.
 *
 * This header is the format: plain C99, fixed-size little-endian records
 * with no padding (every struct is a multiple of 8 bytes and its fields are
 * naturally aligned; the compiler and the runtime static_assert the sizes).
 *
 *   offset 0                 hodu_bundle_header
 *   header.section_table     header.section_count x hodu_bundle_section
 *   section.offset ...       the sections, each 64-byte aligned, in any order
 *
 * A reader validates every field before it uses it: the magic, the major
 * version, that every section lies inside the file and does not overlap the
 * header, table or another section, that table sizes are whole multiples of
 * their entry sizes, that every string reference points at a NUL-terminated
 * string inside STRINGS, that every index (device, tensor, dim, code,
 * kernel, arg) is in range, that tensor byte sizes equal their shapes times
 * their dtype sizes (without overflow), and that every argument's byte range
 * lies inside its buffer. Unknown section kinds are skipped (a minor version
 * may add some); an unknown major version is refused.
 *
 * Versioning, as libhodurt reads it (docs/bundle.md): a minor version may
 * add section kinds, append fields to table records (a larger entry_size;
 * readers take the prefix they know) and define a flag bit that changes
 * what a record means. Every `flags` bit a reader does not know must be 0
 * and every enum a known value: a reader refuses anything else (so an
 * older reader refuses a bundle it would run wrongly), and a new meaning
 * for any other existing field needs a new major version.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_BUNDLE_H
#define HODU_BUNDLE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The first 8 bytes of every bundle. */
#define HODU_BUNDLE_MAGIC "HODUBNDL"
#define HODU_BUNDLE_MAGIC_SIZE 8

/* A reader accepts any minor version of its major version. */
#define HODU_BUNDLE_VERSION_MAJOR 1u
/* Minor 1 added SYMBOLS and DYNAMIC_DIMS (symbolic dims run in chunks);
 * minor 2 appended num_state_tensors to MODEL (a train step's state);
 * minor 3 appended `name` to DEVICES (a plugin device);
 * minor 4 added padded symbols: HODU_BUNDLE_SYMBOL_PADDED and value_slot
 * in SYMBOLS, divisor in DYNAMIC_DIMS;
 * minor 5 lets SYMBOLS hold up to three padded symbols beside the chunked
 * one (an image's height and width), with no new field: a reader of minor 4
 * refuses such a bundle ("holds 3 symbols");
 * minor 6 added VARIANTS and VARIANT_STEPS: the plan at smaller sizes of
 * the padded symbols (`--dim=seq=1..512@64,128`), which a run takes when
 * its values fit; a reader of minor 5 skips them and runs STEPS, the
 * bound's plan, at every value. */
#define HODU_BUNDLE_VERSION_MINOR 6u

/* Sections start at multiples of this (from the start of the file). */
#define HODU_BUNDLE_SECTION_ALIGNMENT 64u

/* Byte offsets of arena and weight arguments are multiples of this, so a
 * Vulkan descriptor or a CUDA pointer can point at them directly (Vulkan's
 * minStorageBufferOffsetAlignment is at most 256 on every known device). */
#define HODU_BUNDLE_BUFFER_ALIGNMENT 256u

/* "None" for the 64-bit offset fields that may be absent. */
#define HODU_BUNDLE_NONE UINT64_MAX

typedef struct hodu_bundle_header {
  char magic[HODU_BUNDLE_MAGIC_SIZE]; /* HODU_BUNDLE_MAGIC, no NUL */
  uint16_t version_major;             /* HODU_BUNDLE_VERSION_MAJOR */
  uint16_t version_minor;             /* HODU_BUNDLE_VERSION_MINOR */
  uint32_t header_size;               /* sizeof(hodu_bundle_header) */
  uint64_t file_size;                 /* the size of the whole file */
  uint64_t section_table_offset;      /* where the section table starts */
  uint32_t section_count;
  uint32_t section_entry_size; /* sizeof(hodu_bundle_section) */
} hodu_bundle_header;          /* 40 bytes */

/* Each section kind appears at most once. Tables hold entries of their
 * entry size; byte sections (STRINGS, WEIGHTS, BLOBS) have entry_size 1. */
typedef enum hodu_bundle_section_kind {
  HODU_BUNDLE_SECTION_STRINGS = 1,  /* NUL-terminated UTF-8; byte 0 is NUL */
  HODU_BUNDLE_SECTION_MODEL = 2,    /* exactly one hodu_bundle_model */
  HODU_BUNDLE_SECTION_DEVICES = 3,  /* hodu_bundle_device, at least one */
  HODU_BUNDLE_SECTION_TENSORS = 4,  /* hodu_bundle_tensor */
  HODU_BUNDLE_SECTION_DIMS = 5,     /* int64_t extents */
  HODU_BUNDLE_SECTION_CODE = 6,     /* hodu_bundle_code */
  HODU_BUNDLE_SECTION_KERNELS = 7,  /* hodu_bundle_kernel */
  HODU_BUNDLE_SECTION_STEPS = 8,    /* hodu_bundle_step, run in order */
  HODU_BUNDLE_SECTION_ARGS = 9,     /* hodu_bundle_arg */
  HODU_BUNDLE_SECTION_WEIGHTS = 10, /* the constant data the plan reads */
  HODU_BUNDLE_SECTION_BLOBS = 11,   /* the code objects' bytes */
  /* Minor 1: hodu_bundle_symbol, hodu_bundle_dynamic_dim. */
  HODU_BUNDLE_SECTION_SYMBOLS = 12,
  HODU_BUNDLE_SECTION_DYNAMIC_DIMS = 13,
  /* Minor 6: hodu_bundle_variant, and the variants' hodu_bundle_step. */
  HODU_BUNDLE_SECTION_VARIANTS = 14,
  HODU_BUNDLE_SECTION_VARIANT_STEPS = 15
} hodu_bundle_section_kind;

typedef struct hodu_bundle_section {
  uint32_t kind;       /* hodu_bundle_section_kind */
  uint32_t entry_size; /* bytes per entry (tables) or 1 (byte sections) */
  uint64_t offset;     /* from the start of the file */
  uint64_t size;       /* bytes; a multiple of entry_size */
} hodu_bundle_section; /* 24 bytes */

/* A string reference: a byte offset into STRINGS (0 is the empty string). */
typedef uint32_t hodu_bundle_string;

/* The model. TENSORS holds its inputs first, then its outputs, then its
 * meta slots (named small tensors the host writes between runs and
 * replays: a learning rate, a step count), in the order the model declares
 * them. The compiled entry takes them in that order too.
 *
 * State tensors (minor 2; abi.h's num_state_tensors): the last
 * num_state_tensors inputs are a train step's state before a run (their
 * `init`, in WEIGHTS, is the initial value) and the last num_state_tensors
 * outputs its state after it, pairwise in order, of equal dtype and shape.
 * A runtime keeps them in each session and copies each such output to its
 * input's storage after every run. A reader of minor 1 (24-byte records)
 * sees a plain model with more inputs and outputs. */
typedef struct hodu_bundle_model {
  hodu_bundle_string name;     /* the model's name */
  hodu_bundle_string producer; /* "hoduc 0.1.0" */
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint32_t num_meta_slots;
  uint32_t flags; /* 0 */
  /* Minor 2 (entry_size 32); absent (0) in 24-byte records. */
  uint32_t num_state_tensors; /* <= num_inputs, <= num_outputs */
  uint32_t reserved;          /* 0 */
} hodu_bundle_model;          /* 32 bytes (24 before minor 2) */

/* Where a step runs and a buffer lives. */
typedef enum hodu_device_kind {
  HODU_DEVICE_CPU = 0, /* the host (CPU partitions; host memory) */
  HODU_DEVICE_VULKAN = 1,
  HODU_DEVICE_CUDA = 2,
  HODU_DEVICE_HIP = 3,
  HODU_DEVICE_METAL = 4,
  /* Minor 3: a device plugin's device (hodu/plugin.h), named by the
   * DEVICES entry's `name`. */
  HODU_DEVICE_PLUGIN = 5,
  HODU_DEVICE_KIND_COUNT
} hodu_device_kind;

/* One device the plan uses; devices are referred to by index. */
typedef struct hodu_bundle_device {
  uint32_t kind;  /* hodu_device_kind */
  uint32_t flags; /* 0 */
  uint64_t arena_size; /* bytes of device memory for the intermediates of a
                          run; ARENA arguments on this device point into it */
  /* Minor 3 (entry_size 24); absent (0) in 16-byte records. */
  hodu_bundle_string name; /* HODU_DEVICE_PLUGIN: the plugin device's name
                              ("nulldev"); "" (0) for every other kind */
  uint32_t reserved;       /* 0 */
} hodu_bundle_device;      /* 24 bytes (16 before minor 3) */

/* An input, output or meta slot. */
typedef struct hodu_bundle_tensor {
  hodu_bundle_string name;
  int32_t dtype;      /* a hodu_dtype (abi.h) */
  uint32_t rank;      /* at most 16 */
  uint32_t first_dim; /* rank extents at DIMS[first_dim ...] */
  uint32_t device;    /* where the plan reads or writes it */
  uint32_t flags;     /* 0 */
  uint64_t bytes;     /* the extents' product times the dtype's size */
  uint64_t init;      /* meta slots and (minor 2) state inputs: offset in
                         WEIGHTS of the initial value (`bytes` bytes), or
                         HODU_BUNDLE_NONE for zeros; other inputs and outputs:
                         HODU_BUNDLE_NONE */
} hodu_bundle_tensor; /* 40 bytes */

/* Formats of device code. */
typedef enum hodu_code_format {
  HODU_CODE_SPIRV = 1,  /* Vulkan SPIR-V module, one entry point a kernel */
  HODU_CODE_PTX = 2,    /* PTX text (NUL-terminated), JIT-compiled */
  HODU_CODE_CUBIN = 3,  /* CUDA ELF for one sm_ arch */
  HODU_CODE_FATBIN = 4, /* CUDA fat binary */
  HODU_CODE_HSACO = 5,  /* AMDGPU code object for one gfx arch */
  HODU_CODE_MSL = 6,    /* Metal Shading Language source (NUL-terminated) */
  HODU_CODE_ELF = 7,    /* a host shared library (CPU partitions) */
  HODU_CODE_FORMAT_COUNT
} hodu_code_format;

/* One code object. A device may have several (one per GPU architecture):
 * each defines every kernel of that device, and the runtime loads the one
 * that fits the device it runs on (an exact arch match first, then a
 * fatbin, then PTX). */
typedef struct hodu_bundle_code {
  uint32_t device;         /* index into DEVICES */
  uint32_t format;         /* hodu_code_format */
  hodu_bundle_string arch; /* "sm_90", "gfx942"; "" where it has none */
  uint32_t flags;          /* 0 */
  uint64_t offset;         /* into BLOBS */
  uint64_t size;
} hodu_bundle_code; /* 32 bytes */

/* A kernel: an entry point of its device's code objects. */
typedef struct hodu_bundle_kernel {
  hodu_bundle_string name; /* the entry point's symbol */
  uint32_t device;         /* index into DEVICES */
  uint32_t block[3];       /* threads per workgroup, x y z, each >= 1 */
  uint32_t num_args;       /* buffer arguments, in binding order */
  uint32_t shared_bytes;   /* dynamic workgroup memory; 0 = static only */
  uint32_t flags;          /* 0 */
} hodu_bundle_kernel; /* 32 bytes */

typedef enum hodu_step_op {
  /* Run `kernel` on `grid` workgroups with args[first_arg, +num_args) as
   * its buffer arguments (Vulkan: set 0, binding i; CUDA/HIP: parameter
   * i, a pointer). */
  HODU_STEP_LAUNCH = 1,
  /* Copy args[first_arg].size bytes from args[first_arg] to
   * args[first_arg + 1], on `device` (num_args == 2, equal sizes). */
  HODU_STEP_COPY = 2,
  /* Copy between two devices (args[first_arg] on one, args[first_arg + 1]
   * on the other; num_args == 2, equal sizes): the transfers between the
   * partitions of a heterogeneous plan. */
  HODU_STEP_TRANSFER = 3,
  /* Call host function `kernel` (in an ELF code object of a CPU device)
   * as int32_t f(void *const *buffers) with the args' addresses. It
   * returns 0, or 2 + k when the model's run-time check k failed (see
   * HODU_HOST_CHECKS_SYMBOL). */
  HODU_STEP_HOST_CALL = 4,
  HODU_STEP_OP_COUNT
} hodu_step_op;

/* A CPU code object whose host calls run run-time checks of the model's
 * data (a declared shape the data must give, ...) exports their messages:
 * HODU_HOST_CHECKS_SYMBOL, a char array of the messages one after another,
 * each NUL-terminated, in the order of their codes, and
 * HODU_HOST_NUM_CHECKS_SYMBOL, an int32_t count. */
#define HODU_HOST_CHECKS_SYMBOL "hodu_host_checks"
#define HODU_HOST_NUM_CHECKS_SYMBOL "hodu_host_num_checks"

typedef struct hodu_bundle_step {
  uint32_t op;        /* hodu_step_op */
  uint32_t device;    /* where it runs */
  uint32_t kernel;    /* LAUNCH, HOST_CALL: index into KERNELS */
  uint32_t grid[3];   /* LAUNCH: workgroups, x y z, each >= 1 */
  uint32_t first_arg; /* index into ARGS */
  uint32_t num_args;
} hodu_bundle_step; /* 32 bytes */

/* The buffers an argument can point into. */
typedef enum hodu_buffer_space {
  HODU_SPACE_INPUT = 1,   /* index: the input */
  HODU_SPACE_OUTPUT = 2,  /* index: the output */
  HODU_SPACE_ARENA = 3,   /* index: the device whose arena */
  HODU_SPACE_WEIGHTS = 4, /* index: the device that holds the copy (the
                             runtime uploads WEIGHTS once per device) */
  HODU_SPACE_META = 5,    /* index: the meta slot */
  HODU_SPACE_COUNT
} hodu_buffer_space;

/* A byte range of one buffer. For ARENA and WEIGHTS, `offset` is a multiple
 * of HODU_BUNDLE_BUFFER_ALIGNMENT; inputs, outputs and meta slots are
 * passed whole (offset 0). */
typedef struct hodu_bundle_arg {
  uint32_t space; /* hodu_buffer_space */
  uint32_t index;
  uint64_t offset;
  uint64_t size; /* > 0; offset + size <= the buffer's size */
} hodu_bundle_arg; /* 24 bytes */

/* Symbolic dims (minor 1). A model with a symbol, such as a batch that no
 * op mixes, is compiled for one value of it, the chunk: DIMS holds every
 * tensor's extents at symbol = chunk, and the plan runs that size. A run
 * at value n runs the plan ceil(n / chunk) times, each pass over the next
 * `chunk` units of every input and output that has the symbol (the last
 * pass on a partial chunk padded with copies of its last real unit, of
 * whose outputs only the real units are kept). A reader of minor 0 skips
 * these sections and sees a static model at the chunk size.
 *
 * A padded symbol (minor 4, HODU_BUNDLE_SYMBOL_PADDED), such as a sequence
 * length that attention mixes, is compiled at its bound (chunk == max) with
 * the padding masked: a run at value n is one pass of the plan on inputs
 * whose symbolic dims hold the real extent (scale * n / divisor + offset)
 * followed by zeros up to the bound, with n written to meta slot
 * `value_slot` (an i64 scalar the kernels read), and of each output the
 * real extent is kept. A reader of minor 1 to 3 refuses the flag.
 *
 * SYMBOLS holds at most one chunked symbol, and (minor 5) up to three
 * padded ones, each with its own value slot (minor 4: one). A tensor's dims
 * may be several padded symbols (an image's [N, 3, H, W]): a run stages
 * the box of every symbolic dim's real extent, zeros past it. */
#define HODU_BUNDLE_SYMBOL_PADDED 1u

/* The most padded symbols SYMBOLS may hold (minor 5; minor 4: one). */
#define HODU_BUNDLE_MAX_PADDED_SYMBOLS 3u

typedef struct hodu_bundle_symbol {
  hodu_bundle_string name; /* the model's name for it ("batch") */
  uint32_t flags;          /* 0, or (minor 4) HODU_BUNDLE_SYMBOL_PADDED */
  int64_t min;             /* the least value a run may give, >= 0 */
  int64_t max;             /* the largest, >= min; -1: no upper bound */
  int64_t multiple;        /* >= 1: every value is a multiple of it */
  int64_t chunk;           /* >= 1: the value the plan was compiled for */
  /* Minor 4 (entry_size 48); absent in 40-byte records. */
  uint32_t value_slot; /* padded: the meta slot (index among the meta
                          slots) the runtime writes the value to; else 0 */
  uint32_t reserved;   /* 0 */
} hodu_bundle_symbol;  /* 48 bytes (40 before minor 4) */

/* A dim of an input or output that is a symbol: its extent in a run is
 * scale * value (a padded symbol's: scale * value / divisor + offset).
 * DIMS holds the extent at the chunk. Every dim before it in its tensor is
 * 1 in the tensors whose slices are contiguous; any other outer dims make
 * each pass's slice strided (one block per outer index). */
typedef struct hodu_bundle_dynamic_dim {
  uint32_t tensor; /* index into TENSORS: an input or an output */
  uint32_t dim;    /* < the tensor's rank; one symbolic dim per tensor */
  uint32_t symbol; /* index into SYMBOLS */
  uint32_t flags;  /* 0 */
  int64_t scale;   /* >= 1 */
  int64_t offset;  /* chunked: 0; padded: any, the extent >= 0 at min */
  /* Minor 4 (entry_size 40); absent (1) in 32-byte records. */
  int64_t divisor; /* >= 1; padded: divides scale * multiple; chunked: 1 */
} hodu_bundle_dynamic_dim; /* 40 bytes (32 before minor 4) */

/* Variants (minor 6). STEPS is the plan at the padded symbols' bounds; a
 * variant is the same model's plan compiled with its padded symbols at
 * smaller sizes (`hoduc --dim=seq=1..512@64,128`), so that a short run
 * costs what its size costs. Its steps are VARIANT_STEPS[first_step,
 * +num_steps), over the same KERNELS, ARGS, WEIGHTS and TENSORS: an input
 * or output with a padded dim is passed in the layout of the variant's
 * sizes (the extent scale * size / divisor + offset along each padded dim,
 * DIMS' extents along the others), a prefix of its bytes. A run whose
 * padded values are all at most a variant's sizes may take it; libhodurt
 * takes, among those and the bound's plan, the one of fewest elements (the
 * product of the padded symbols' sizes), the first on a tie. DEVICES'
 * arena_size covers every variant. A reader of minor 5 skips both
 * sections and runs STEPS at every value. */
typedef struct hodu_bundle_variant {
  uint32_t first_step; /* into VARIANT_STEPS */
  uint32_t num_steps;  /* >= 1 */
  /* DIMS[first_size, + the number of SYMBOLS): each symbol's size in this
   * plan: a padded one's, a multiple of its `multiple` in [min, max]; a
   * chunked one's, its chunk. */
  uint32_t first_size;
  uint32_t flags;      /* 0 */
} hodu_bundle_variant; /* 16 bytes */

#ifdef __cplusplus
}
#endif

#endif /* HODU_BUNDLE_H */
