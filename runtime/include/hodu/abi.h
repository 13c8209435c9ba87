/*===- hodu/abi.h - the artifact ABI shared by hoduc and libhodurt ---------===*
 *
 * This is the only header the compiler and the runtime share. A compiled
 * model (.so, .o, .a or an executable) exports one descriptor:
 *
 *   const hodu_model_desc <prefix>_hodu_descriptor;   // always
 *   const hodu_model_desc hodu_model_descriptor;      // shared libraries only
 *
 * where <prefix> is `hoduc --name` (default: the model file's stem, made a C
 * identifier). The prefixed name lets several models link into one program;
 * the unprefixed alias lets the runtime dlopen any .so without knowing it.
 *
 * Plain C99, no includes beyond <stdint.h>; the layout is fixed for a given
 * HODU_ABI_VERSION. Fields are only ever appended; `struct_size` says how
 * much of the struct a producer filled in.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_ABI_H
#define HODU_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change to the structs or the entry signature.
 * Version 2 (Hodu 0.5) added symbolic dims: shapes may hold
 * HODU_DIM_DYNAMIC, and the descriptor's symbol tables say what each such
 * dim is. Version 3 (Hodu 0.7) added dynamic_dim_divisors: a dim may be
 * scale * value / divisor + offset (a strided window over a symbol); an
 * artifact says version 3 only when it has them, so the others still load
 * in a version 2 runtime. A runtime loads descriptors of every version from
 * HODU_ABI_VERSION_MIN to HODU_ABI_VERSION. */
#define HODU_ABI_VERSION 3u
#define HODU_ABI_VERSION_MIN 1u

/* A dim of a described shape that is known only at run time: the extent is
 * given by the descriptor's `dynamic_dims` entry for that dim. */
#define HODU_DIM_DYNAMIC (-1)

/* Element types: the one table of their facts, which the enum below, the
 * runtime, the executables' main() and the tools all expand. Each row is
 *   X(ID, value, "name", size, storage)
 * for the enumerator HODU_DTYPE_<ID>, its value (upstream Hodu's DType
 * numbering, repr u8: never renumber), upstream's short name, the bytes per
 * element and the C type that stores one element. Booleans take one byte (0
 * or 1); bf16, f16 and the f8 types, which C has no type for, are stored as
 * their bits. Rows are in value order with no gaps, so that a table indexed
 * by the value can be expanded from the list. */
#define HODU_DTYPE_LIST(X)                                                     \
  X(BOOL, 0, "bool", 1, uint8_t)                                               \
  X(F8E4M3, 1, "f8e4m3", 1, uint8_t)                                           \
  X(F8E5M2, 2, "f8e5m2", 1, uint8_t)                                           \
  X(BF16, 3, "bf16", 2, uint16_t)                                              \
  X(F16, 4, "f16", 2, uint16_t)                                                \
  X(F32, 5, "f32", 4, float)                                                   \
  X(F64, 6, "f64", 8, double)                                                  \
  X(U8, 7, "u8", 1, uint8_t)                                                   \
  X(U16, 8, "u16", 2, uint16_t)                                                \
  X(U32, 9, "u32", 4, uint32_t)                                                \
  X(U64, 10, "u64", 8, uint64_t)                                               \
  X(I8, 11, "i8", 1, int8_t)                                                   \
  X(I16, 12, "i16", 2, int16_t)                                                \
  X(I32, 13, "i32", 4, int32_t)                                                \
  X(I64, 14, "i64", 8, int64_t)

#define HODU_DTYPE_ENUMERATOR_(id, value, name, size, storage)                 \
  HODU_DTYPE_##id = value,
typedef enum hodu_dtype {
  HODU_DTYPE_LIST(HODU_DTYPE_ENUMERATOR_)
  HODU_DTYPE_COUNT /* one past the last value: the rows have no gaps */
} hodu_dtype;
#undef HODU_DTYPE_ENUMERATOR_

/* One input or output of a model. A dim is its extent, or
 * HODU_DIM_DYNAMIC (ABI version 2 on) for a symbolic dim, which the
 * descriptor's `dynamic_dims` ties to a symbol. Booleans are stored one byte
 * per element (0 or 1). */
typedef struct hodu_tensor_desc {
  const char *name;     /* the model's name for it (ONNX value name) */
  int32_t dtype;        /* a hodu_dtype */
  int32_t rank;
  const int64_t *shape; /* rank entries */
} hodu_tensor_desc;

/* A symbol (ABI version 2 on): a named size that one or more dims of the
 * inputs and outputs are, such as "batch" or "seq". Every dim tied to one
 * symbol has the same value in a run. */
typedef struct hodu_symbol_desc {
  const char *name;  /* the model's name for it (ONNX dim_param) */
  int64_t min;       /* the least value a run may give, >= 0 */
  int64_t max;       /* the largest, >= min; -1: no upper bound */
  int64_t multiple;  /* >= 1: every value is a multiple of it */
  /* How the code runs the symbol: 0, it takes any value as it is; c > 0,
   * the model's code was compiled for c along this symbol and the entry runs
   * a value n as ceil(n / c) passes over consecutive slices of every tensor
   * that has the symbol (the last one padded), which no op of the model mixes
   * (docs/runtime.md, "Symbolic dims"). */
  int64_t chunk;
} hodu_symbol_desc;

/* One dynamic dim of an input or output (ABI version 2 on): its extent is
 * scale * value(symbol) + offset, or with a divisor d (the descriptor's
 * dynamic_dim_divisors, ABI version 3) scale * value(symbol) / d + offset,
 * the division exact for every value the symbol takes (d divides
 * scale * multiple). */
typedef struct hodu_dynamic_dim {
  int32_t is_output; /* 0: inputs[tensor]; 1: outputs[tensor] */
  int32_t tensor;
  int32_t dim;       /* < the tensor's rank; its shape entry is HODU_DIM_DYNAMIC */
  int32_t symbol;    /* index into the descriptor's `symbols` */
  int64_t scale;     /* >= 1 */
  int64_t offset;
} hodu_dynamic_dim;

/* What the runtime tells a run: passed as the entry point's `ctx`. Fields
 * are only appended; `struct_size` says how many a caller filled in. */
typedef struct hodu_run_context {
  uint32_t struct_size;
  int32_t num_threads; /* >= 1: the thread budget of this run; <= 0: default */
  /* Scratch memory for the run's intermediate buffers (appended in Hodu 0.2):
   * at least the descriptor's `workspace_size` bytes, 64-byte aligned, used
   * by this run alone. NULL (or too small) makes the model allocate its own
   * scratch for the run and free it before returning. Passing the same
   * workspace to every run (one per concurrent run) saves the allocation and
   * the page faults of fresh memory on each call. */
  void *workspace;
  uint64_t workspace_size;
  /* The values of the descriptor's symbols in this run, one per symbol in
   * their order (appended in ABI version 2). A model with symbols needs
   * them: without them (a NULL ctx, a shorter struct_size, a count that
   * differs) its entry returns the code of its check "symbol values". */
  const int64_t *symbol_values;
  int32_t num_symbol_values;
} hodu_run_context;

/* The entry point. `inputs` and `outputs` hold one pointer per tensor, in
 * descriptor order, each to dense row-major data of the described dtype and
 * shape; the caller owns all of them. Inputs are only read. `ctx` is a
 * hodu_run_context or NULL (then the model uses every core it may: for
 * OpenMP models, OMP_NUM_THREADS or the CPU count). Returns 0
 * on success; non-zero means the run failed (the outputs are then
 * unspecified, and a non-zero return without outputs written also means
 * the model could not allocate its scratch). The function is reentrant: it
 * keeps no state between calls, so one model may run on several threads at
 * once, provided each concurrent run has its own workspace. Return codes:
 * 0 success, 1 no memory for the workspace, and from 2 on a run-time check
 * of the model that failed: code 2 + k is check k of the descriptor's
 * `check_messages` (the data gave a size other than the one the model was
 * compiled for); the outputs are then unspecified. */
typedef int32_t (*hodu_entry_fn)(void *const *inputs, void *const *outputs,
                                 void *ctx);

typedef struct hodu_model_desc {
  uint32_t abi_version; /* HODU_ABI_VERSION of the producer */
  uint32_t struct_size; /* sizeof(hodu_model_desc) of the producer */
  const char *model_name;
  const char *target;   /* "cpu", ... */
  int32_t num_inputs;
  int32_t num_outputs;
  const hodu_tensor_desc *inputs;
  const hodu_tensor_desc *outputs;
  hodu_entry_fn entry;
  /* Bytes of scratch one run needs (hodu_run_context.workspace); 0 = none.
   * Appended in Hodu 0.2: absent (and so 0) when struct_size ends before it. */
  uint64_t workspace_size;
  /* Meta slots (appended in Hodu 0.3; absent, and so 0, when struct_size
   * ends before them): the LAST num_meta_slots entries of `inputs` are not
   * inputs the caller passes but meta slots -- named small tensors (a
   * learning rate, a step count) that the runtime keeps in each session's
   * slot storage, that the host writes between runs and replays, and that
   * it passes to the entry in those positions. Like inputs, the entry only
   * reads them. 0 <= num_meta_slots <= num_inputs. */
  int32_t num_meta_slots;
  /* Their initial values: NULL (all zero), or num_meta_slots pointers, each
   * NULL (zeros) or to the slot's bytes (its dtype and shape). */
  const void *const *meta_slot_init;
  /* Run-time checks (appended in Hodu 0.4; absent, and so 0, when
   * struct_size ends before them): what the compiler assumed of data known
   * only at run time, such as a Reshape's shape input giving the shape the
   * model declares for its output. A run whose data breaks check k returns
   * 2 + k; check_messages[k] says what was assumed (node and op). */
  int32_t num_checks;
  const char *const *check_messages;
  /* Symbolic dims (appended in ABI version 2; absent, and so 0, when
   * struct_size ends before them): the symbols, and for every input or
   * output dim whose shape entry is HODU_DIM_DYNAMIC the record saying which
   * symbol it is. A run gives the symbols' values in
   * hodu_run_context.symbol_values; the workspace_size above is enough for
   * any value (the code runs over chunks of a symbol, or the bound sizes
   * it). */
  int32_t num_symbols;
  const hodu_symbol_desc *symbols;
  int32_t num_dynamic_dims;
  const hodu_dynamic_dim *dynamic_dims;
  /* State tensors (appended in Hodu 0.6, within ABI version 2; absent, and
   * so 0, when struct_size ends before them): what a compiled train step
   * keeps from one run to the next -- the trained weights, the optimizer's
   * moments, its step counter. State tensor k is two entries of the entry
   * point: input num_inputs - num_meta_slots - num_state_tensors + k (its
   * value before the run: the state tensors are the inputs just before the
   * meta slots) and output num_outputs - num_state_tensors + k (its value
   * after the run: they are the last outputs), with the same dtype and
   * shape. The entry stays a pure function of its arguments; a session
   * (libhodurt) keeps each state tensor on its device, passes it in that
   * input, and makes that output its new value after every run and replay
   * (docs/training.md). hodu_model_run refuses such a model. A reader that
   * predates these fields sees a plain function with more inputs and
   * outputs, which it is. 0 <= num_state_tensors <= num_outputs and
   * num_state_tensors + num_meta_slots <= num_inputs. */
  int32_t num_state_tensors;
  /* Their initial values: NULL (all zero), or num_state_tensors pointers,
   * each NULL (zeros) or to the tensor's bytes (its dtype and shape). */
  const void *const *state_tensor_init;
  /* The divisor of each dynamic_dims record (appended in ABI version 3,
   * read only from a descriptor of version 3 or later): NULL, every one 1,
   * or num_dynamic_dims entries, each >= 1 and dividing its record's
   * scale times its symbol's multiple. Output frames of a strided window
   * over `samples` (a multiple of the stride 160) are samples / 160 - 3. */
  const int64_t *dynamic_dim_divisors;
} hodu_model_desc;

/* Multi-threaded code in a shared library (hoduc -o model.so, and the CPU
 * part of a bundle) calls its thread entry points through this table, an
 * array of HODU_THREAD_API_SIZE function pointers that the library exports
 * and libhodurt fills after loading it, before any run: the library needs
 * no OpenMP runtime where it runs. The entries follow the interface of
 * LLVM's libomp (__kmpc_fork_call, ...) that hoduc's OpenMP lowering calls.
 * Until filled, the table holds the library's own one-thread versions and
 * a null fork slot (the region then runs on the calling thread), so a
 * library loaded without libhodurt runs, on one thread. Objects, archives
 * and executables link libomp instead. */
#define HODU_THREAD_API_SYMBOL "hodu_thread_api"
enum hodu_thread_api_entry {
  HODU_THREAD_FORK_CALL,         /* __kmpc_fork_call */
  HODU_THREAD_STATIC_INIT_4,     /* __kmpc_for_static_init_4 */
  HODU_THREAD_STATIC_INIT_4U,    /* __kmpc_for_static_init_4u */
  HODU_THREAD_STATIC_INIT_8,     /* __kmpc_for_static_init_8 */
  HODU_THREAD_STATIC_INIT_8U,    /* __kmpc_for_static_init_8u */
  HODU_THREAD_STATIC_FINI,       /* __kmpc_for_static_fini */
  HODU_THREAD_BARRIER,           /* __kmpc_barrier */
  HODU_THREAD_GLOBAL_THREAD_NUM, /* __kmpc_global_thread_num */
  HODU_THREAD_SET_NUM_THREADS,   /* omp_set_num_threads */
  HODU_THREAD_API_SIZE
};

/* Outputs whose size depends on the data (ONNX NonZero, Compress, and
 * what is computed from them): such an output is described at its bound,
 * the most elements each dim can hold, and comes with a companion output
 * named like it plus HODU_OUTPUT_DIMS_SUFFIX ("boxes#dims"): i64, shape
 * [rank of the output], which each run fills with the output's dims in
 * that run (each at most the bound). The run's value is the leading block
 * of those dims, in the output's buffer at the bound's strides; the rest
 * of the buffer is padding. hodu_model_output_dims_index() finds the
 * companion. */
#define HODU_OUTPUT_DIMS_SUFFIX "#dims"

/* ONNX optionals at a model's boundary: an optional input or output is
 * its element's tensor (or a sequence's tensors, "NAME[0]", "NAME[1]" ...)
 * followed by a bool scalar named like it plus HODU_OPTIONAL_PRESENT_SUFFIX
 * ("state#present"), whether the optional holds its element. An empty
 * optional's element tensors are read as nothing (inputs) and hold zeros
 * (outputs). */
#define HODU_OPTIONAL_PRESENT_SUFFIX "#present"

/* ONNX sequences whose length is known only at run time (one that a Loop
 * of run-time iterations grows, or that an If decided at run time chooses
 * between sequences of different lengths). Such an output NAME is three
 * outputs, in this order:
 *   "NAME" HODU_SEQUENCE_DATA_SUFFIX: [capacity, max_elements] of the
 *     element type; row i holds element i's values in row-major order
 *     from its start, the rest of the row being padding;
 *   "NAME" HODU_SEQUENCE_SHAPES_SUFFIX: i64 [capacity, 1 + max_rank]; row
 *     i is element i's rank, then its dims (0 past the rank);
 *   "NAME" HODU_SEQUENCE_LENGTH_SUFFIX: i64 scalar, the run's number of
 *     elements (at most the capacity, hoduc --sequence-capacity).
 * Rows past the length are padding. */
#define HODU_SEQUENCE_DATA_SUFFIX "#sequence_data"
#define HODU_SEQUENCE_SHAPES_SUFFIX "#sequence_shapes"
#define HODU_SEQUENCE_LENGTH_SUFFIX "#sequence_length"

/* Alignment the entry point expects of hodu_run_context.workspace. */
#define HODU_WORKSPACE_ALIGNMENT 64

/* Name of the unprefixed descriptor symbol in shared libraries. */
#define HODU_DESCRIPTOR_SYMBOL "hodu_model_descriptor"
/* Suffix of the prefixed descriptor symbol: <prefix>_hodu_descriptor. */
#define HODU_DESCRIPTOR_SUFFIX "_hodu_descriptor"

#ifdef __cplusplus
}
#endif

#endif /* HODU_ABI_H */
