/*===- hodu/plugin.h - the C ABI of Hodu's runtime plugins -----------------===*
 *
 * A plugin is a shared library plus a manifest.json beside it (docs/
 * plugins.md). The library exports one C function,
 *
 *   const hodu_plugin_header *hodu_plugin_query(uint32_t max_abi_version,
 *                                               const hodu_host_api *host);
 *
 * which libhodurt calls once after dlopen. It returns NULL when the plugin
 * cannot serve a host of `max_abi_version` (its oldest ABI is newer), else
 * a header that names the plugin and hands out its interfaces by kind and
 * version. The plugin links nothing of Hodu: everything it needs from the
 * host (making a status, logging, allocating) comes through `host`, which
 * stays valid until the plugin is unloaded.
 *
 * Rules (the same as abi.h's):
 *  - Every struct opens with `struct_size`, the size the producer was built
 *    with. Fields are only appended; a reader never reads past
 *    `struct_size`, and a NULL optional function means "not supported".
 *  - HODU_PLUGIN_ABI_VERSION changes only on an incompatible change; the
 *    host refuses a plugin built for a newer one, naming both.
 *  - Every call that can fail returns a hodu_status made with
 *    host->make_status (NULL: success). No C++ exception, longjmp or
 *    signal may cross the boundary.
 *  - A plugin's functions may be called from several threads at once,
 *    except that one loaded model is run by one thread at a time.
 *
 * Plain C99; nothing beyond <stddef.h>, <stdint.h>, hodu/runtime.h's
 * status and dtype types and hodu/bundle.h's plan records.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_PLUGIN_H
#define HODU_PLUGIN_H

#include "hodu/bundle.h"
#include "hodu/runtime.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped only on an incompatible change to the structs below. */
#define HODU_PLUGIN_ABI_VERSION 1u

/* The one symbol a plugin library exports. */
#define HODU_PLUGIN_QUERY_SYMBOL "hodu_plugin_query"

/* What a plugin provides: the bits of hodu_plugin_header.kinds, and the
 * `kind` of get_interface. The manifest's "kinds" names them. */
typedef enum hodu_plugin_kind {
  HODU_PLUGIN_IMPORTER = 1,  /* toolchain tier: a model format for hoduc */
  HODU_PLUGIN_TARGET = 2,    /* toolchain tier: a back end for hoduc */
  HODU_PLUGIN_DEVICE = 4,    /* a device for libhodurt's plan executor */
  HODU_PLUGIN_ENGINE = 8,    /* runs a model file end to end */
  HODU_PLUGIN_COMPILER = 16, /* compiles a model file to an artifact */
  HODU_PLUGIN_FORMAT = 32    /* converts a model file for hoduc to import */
} hodu_plugin_kind;

/* Log levels of hodu_host_api.log. */
enum {
  HODU_LOG_ERROR = 0,
  HODU_LOG_WARNING = 1,
  HODU_LOG_INFO = 2,
  HODU_LOG_DEBUG = 3
};

/* What the host gives a plugin. */
typedef struct hodu_host_api {
  uint32_t struct_size;
  uint32_t abi_version;     /* HODU_PLUGIN_ABI_VERSION of the host */
  const char *host_version; /* "hodurt 0.1.0" */
  /* An error status with `message` (copied), owned by whoever receives it. */
  hodu_status (*make_status)(hodu_status_code code, const char *message);
  /* A message to the host's log (stderr at HODU_LOG_LEVEL and below). */
  void (*log)(int32_t level, const char *plugin_id, const char *message);
  /* Memory the host frees (outputs an engine allocates, below): `align` is
   * a power of two. NULL when out of memory. */
  void *(*alloc)(uint64_t bytes, uint64_t align);
  void (*free)(void *pointer);
  /* A plugin option: the manifest's "options" member `key` as a string (a
   * number is given in its JSON text), overridden by the environment
   * variable HODU_PLUGIN_<ID>_<KEY> (the id and key upper-cased, every
   * other character '_'); NULL when neither is set. The string stays valid
   * until the plugin is unloaded. */
  const char *(*get_option)(const char *plugin_id, const char *key);
  /* The directory the plugin's library was loaded from (no trailing '/'),
   * for files it ships beside it. */
  const char *(*plugin_dir)(const char *plugin_id);
} hodu_host_api;

/* What hodu_plugin_query returns: static data of the plugin. */
typedef struct hodu_plugin_header {
  uint32_t struct_size;
  uint32_t abi_version;    /* the HODU_PLUGIN_ABI_VERSION it was built with */
  const char *id;          /* = the manifest's "plugin_id" */
  const char *version;     /* = the manifest's "plugin_version" (semver) */
  const char *description; /* one line */
  uint32_t kinds;          /* hodu_plugin_kind bits = the manifest's "kinds" */
  uint32_t flags;          /* 0 */
  /* Toolchain-tier plugins: the toolchain they were built with, which must
   * equal the host's byte for byte ("hodu 0.1.0; LLVM 22.1.x"). NULL for
   * runtime plugins. */
  const char *toolchain;
  /* The interface of `kind` (one bit) at `version`, or NULL when the plugin
   * has none at that version. HODU_PLUGIN_ENGINE, version 1: a
   * hodu_engine_plugin_v1; HODU_PLUGIN_COMPILER, 1: a
   * hodu_compiler_plugin_v1; HODU_PLUGIN_FORMAT, 1: a
   * hodu_format_plugin_v1; HODU_PLUGIN_DEVICE, 1: a
   * hodu_device_plugin_v1; HODU_PLUGIN_IMPORTER or _TARGET, 1: a
   * hodu_toolchain_plugin_v1. */
  const void *(*get_interface)(uint32_t kind, uint32_t version);
  /* Called once before the library is closed, when nothing made from it
   * is left. May be NULL. */
  void (*shutdown)(void);
} hodu_plugin_header;

typedef const hodu_plugin_header *(*hodu_plugin_query_fn)(
    uint32_t max_abi_version, const hodu_host_api *host);

/*===--------------------------------------------------------------------===*
 * Engine plugins: run a model file in their own format end to end (ONNX
 * Runtime on a .onnx, an interpreter on the IR ...). libhodurt loads such
 * a file as a hodu_model whose inputs and outputs are the engine's.
 *===--------------------------------------------------------------------===*/

/* The most bytes of a file's start that an engine's probe is shown. */
#define HODU_ENGINE_PROBE_BYTES 4096

/* An engine's loaded model. */
typedef struct hodu_engine_model hodu_engine_model;

/* One input or output of a loaded model. A dim is its extent, or
 * HODU_DIM_DYNAMIC; `dim_names` (NULL, or `rank` entries, each NULL or a
 * name) names the dynamic dims: dims with one name are one size in a run
 * (ONNX dim_params). An output dim that is dynamic and named like no input
 * dim is known only after a run. */
typedef struct hodu_engine_value {
  const char *name;
  int32_t dtype; /* a hodu_dtype */
  int32_t rank;
  const int64_t *shape;
  const char *const *dim_names;
} hodu_engine_value;

/* A tensor passed to run: dense row-major data of `dtype` and `shape`. */
typedef struct hodu_engine_tensor {
  int32_t dtype;
  int32_t rank;
  int64_t *shape; /* rank entries */
  void *data;
  uint64_t bytes;
} hodu_engine_tensor;

/* Options of load. */
typedef struct hodu_engine_load_options {
  uint32_t struct_size;
  /* >= 1: the threads a run may use; 0: the engine's default. */
  int32_t num_threads;
} hodu_engine_load_options;

typedef struct hodu_engine_plugin_v1 {
  uint32_t struct_size;
  const char *name; /* "onnxruntime": what hodu_load_options.engine names */
  /* The file extensions it loads, with the dot, NULL-terminated. */
  const char *const *extensions;
  /* How well it can load the file at `path`, whose first `head_size`
   * bytes (up to HODU_ENGINE_PROBE_BYTES) are `head`: 0 not at all, up to
   * 100. Cheap: no full load. */
  int32_t (*probe)(const char *path, const uint8_t *head, size_t head_size);
  hodu_status (*load)(const char *path, const hodu_engine_load_options *options,
                      hodu_engine_model **out);
  void (*unload)(hodu_engine_model *model);
  /* The signature: counts, then each value (borrowed until unload). */
  int32_t (*num_values)(const hodu_engine_model *model, int32_t is_output);
  hodu_status (*value)(const hodu_engine_model *model, int32_t is_output,
                       int32_t index, hodu_engine_value *out);
  /* One run. `inputs[i]` match value i in dtype and rank, with dims the
   * host has checked. For each output, `data` non-NULL means: write there,
   * at `shape` (`bytes` bytes; the engine fails with MISMATCH when its
   * result has another shape); NULL means: allocate with host->alloc, set
   * `shape` (room for `rank` dims), `data` and `bytes`; the host frees it,
   * also when the run fails (an engine that frees one itself sets `data`
   * back to NULL). `num_threads`: as in load, for this run (an engine that
   * sets threads per loaded model may ignore it). */
  hodu_status (*run)(hodu_engine_model *model,
                     const hodu_engine_tensor *inputs, int32_t num_inputs,
                     hodu_engine_tensor *outputs, int32_t num_outputs,
                     int32_t num_threads);
  /* Optional: the bytes the loaded model holds (weights, arenas), for
   * selection; NULL when unknown. */
  hodu_status (*memory_bytes)(const hodu_engine_model *model, uint64_t *bytes);
} hodu_engine_plugin_v1;

/*===--------------------------------------------------------------------===*
 * Compiler plugins: turn a model file into a Hodu artifact for this machine
 * (seed 000's "compiler" runtime tier). libhodurt uses one to load a model
 * file that is no artifact (hodu_model_load("model.onnx")): it compiles the
 * file, keeps the artifact in its compile cache, and loads the bytes.
 *===--------------------------------------------------------------------===*/

/* What to compile. */
typedef struct hodu_compile_request {
  uint32_t struct_size;
  const char *path; /* the model file */
  /* The compiler's own flags ("-O3", "--input-shape=x:1x3x224x224" for
   * hoduc), `num_flags` of them; the plugin refuses one it does not take. */
  const char *const *flags;
  int32_t num_flags;
} hodu_compile_request;

typedef struct hodu_compiler_plugin_v1 {
  uint32_t struct_size;
  const char *name; /* "hoduc": what hodu_load_options.engine names */
  const char *const *extensions; /* with the dot, NULL-terminated */
  /* What makes its output differ besides the request (the compiler's
   * version and build): part of the compile cache's key. Static. */
  const char *(*toolchain)(void);
  /* As an engine's probe: 0 (cannot compile it) to 100. */
  int32_t (*probe)(const char *path, const uint8_t *head, size_t head_size);
  /* Compiles the request into a shared library for this machine's CPU:
   * `*bytes` (host->alloc, the host frees it) of `*size` bytes. */
  hodu_status (*compile)(const hodu_compile_request *request, void **bytes,
                         uint64_t *size);
} hodu_compiler_plugin_v1;

/*===--------------------------------------------------------------------===*
 * Format plugins: a model format hoduc does not read, converted into one it
 * does (ONNX, .hdss, or hodu-dialect MLIR text). hoduc asks the format
 * plugin that claims a file's extension when no built-in importer does,
 * then imports the result. The C boundary keeps such plugins independent
 * of the LLVM and Hodu they were built with.
 *===--------------------------------------------------------------------===*/

typedef struct hodu_format_plugin_v1 {
  uint32_t struct_size;
  const char *name;              /* "toylin" */
  const char *const *extensions; /* with the dot, NULL-terminated */
  /* As an engine's probe: 0 (not this format) to 100. */
  int32_t (*probe)(const char *path, const uint8_t *head, size_t head_size);
  /* Converts the file at `path`: `*bytes` (host->alloc; the host frees it)
   * of `*size` bytes in the format `*format` names: ".onnx", ".hdss" or
   * ".mlir" (a static string). */
  hodu_status (*convert)(const char *path, void **bytes, uint64_t *size,
                         const char **format);
} hodu_format_plugin_v1;

/*===--------------------------------------------------------------------===*
 * Toolchain-tier plugins (HODU_PLUGIN_IMPORTER, HODU_PLUGIN_TARGET): C++
 * importers and target back ends that hoduc loads into itself and that
 * register in its component registry (include/hodu/Registry/Registry.h),
 * exactly as hoduc's own ONNX, .hdss and .mlir importers and its targets
 * do. They use Hodu's and MLIR's C++ classes, resolved from hoduc (which
 * exports them), so the header's `toolchain` must equal hoduc's
 * HODU_TOOLCHAIN (hodu/Registry/Toolchain.h) byte for byte; libhodurt
 * lists them but never loads them. The manifest claims the importers'
 * extensions in "formats" and the targets' names in "targets".
 *===--------------------------------------------------------------------===*/

typedef struct hodu_toolchain_plugin_v1 {
  uint32_t struct_size;
  /* Registers the plugin's importers and targets in `component_registry`
   * (a hodu::ComponentRegistry *); NULL, or an error status. Called once. */
  hodu_status (*register_components)(void *component_registry);
} hodu_toolchain_plugin_v1;

/*===--------------------------------------------------------------------===*
 * Device plugins: a device that runs the steps of a bundle's launch plan
 * (docs/bundle.md). libhodurt's own CPU, Vulkan, CUDA and HIP devices are
 * tables of exactly this type. A bundle names a plugin device by a
 * DEVICES entry of kind HODU_DEVICE_PLUGIN and the device's `name`
 * (bundle minor 3); libhodurt finds the plugin whose manifest lists that
 * name in "devices", opens the device, and from then on calls nothing but
 * this table for the steps on it. The executor (sessions, capture, replay,
 * meta slots, symbols run as passes) is the host's.
 *
 * Handles are the plugin's: an instance per opened (device, ordinal),
 * shared by every model and tensor on it; buffers; the code of one plan
 * device; programs (a run of consecutive steps with every argument bound).
 * A device's functions may be called from several threads at once, except
 * that one program, and the buffers its caller writes, are used by one
 * thread at a time.
 *===--------------------------------------------------------------------===*/

typedef struct hodu_device_instance hodu_device_instance;
typedef struct hodu_device_buffer hodu_device_buffer;
typedef struct hodu_device_code hodu_device_code;
typedef struct hodu_device_program hodu_device_program;

/* One resolved plan argument: a byte range of a buffer of this device, or
 * (`buffer` NULL) of host memory at `host` (a device whose buffer_host
 * answers, or a host-memory tensor on such a device). */
typedef struct hodu_device_binding {
  hodu_device_buffer *buffer;
  void *host; /* the address of byte 0 when `buffer` is NULL */
  uint64_t offset;
  uint64_t size;
} hodu_device_binding;

/* What running a program cost the host (hodu_session_stats). */
typedef struct hodu_device_exec_stats {
  uint64_t submissions; /* queue submissions, launches, graph launches */
  uint64_t commands;    /* commands recorded or issued one by one */
} hodu_device_exec_stats;

/* The launch plan as a device sees it: the bundle's tables (bundle.h),
 * every index checked by the host. Valid while the model is loaded. */
typedef struct hodu_device_plan {
  uint32_t struct_size;
  uint32_t num_inputs, num_outputs, num_meta, num_state;
  uint32_t num_devices;
  const char *name; /* the model's */
  const hodu_bundle_device *devices;
  const hodu_bundle_code *codes;
  const hodu_bundle_kernel *kernels;
  const hodu_bundle_step *steps;
  const hodu_bundle_arg *args;
  uint32_t num_codes, num_kernels, num_steps, num_args;
  const char *strings; /* STRINGS: kernel names, code arches */
  uint64_t strings_size;
  const uint8_t *blobs; /* BLOBS: the code objects' bytes */
  uint64_t blobs_size;
  /* A CPU shared library's plan (libhodurt's CPU device only): its
   * descriptor; NULL for bundles. */
  const hodu_model_desc *desc;
} hodu_device_plan;

/* What describe reports. */
typedef struct hodu_device_info {
  uint32_t struct_size;
  uint32_t reserved;
  char name[256];        /* "NVIDIA H100 80GB HBM3", "llvmpipe (...)" */
  uint64_t memory_bytes; /* the device's memory; 0 when unknown */
  /* The driver and its version ("CUDA driver 13.0"); "" when the host's
   * other keys say it all (the CPU). Selection measures again when it
   * changes. */
  char driver[128];
} hodu_device_info;

/* HODU_PLUGIN_DEVICE, version 1. Every function but the optional ones
 * (describe, buffer_host, the three capture calls) must be set. */
typedef struct hodu_device_plugin_v1 {
  uint32_t struct_size;
  /* The device's name, as bundles (and --device) name it: "nulldev". */
  const char *name;
  /* The hodu_code_format values it runs, 0-terminated. */
  const uint32_t *code_formats;
  /* How many devices it has (NO_DEVICE when its driver is missing). */
  hodu_status (*count)(int32_t *count);
  hodu_status (*open)(int32_t ordinal, hodu_device_instance **out);
  /* Optional: its name and memory. */
  hodu_status (*describe)(hodu_device_instance *device, hodu_device_info *out);
  /* When the last model and tensor on it are gone. */
  void (*close)(hodu_device_instance *device);
  /* A zero-filled buffer of at least `size` bytes (size may be 0). */
  hodu_status (*buffer_create)(hodu_device_instance *device, uint64_t size,
                               hodu_device_buffer **out);
  void (*buffer_free)(hodu_device_instance *device, hodu_device_buffer *buffer);
  /* Optional: the host address of a buffer the host may use directly. */
  void *(*buffer_host)(hodu_device_buffer *buffer);
  hodu_status (*write)(hodu_device_instance *device, hodu_device_buffer *buffer,
                       uint64_t offset, const void *data, uint64_t size);
  hodu_status (*read)(hodu_device_instance *device, hodu_device_buffer *buffer,
                      uint64_t offset, void *data, uint64_t size);
  /* A COPY step or a host-requested copy between two of its bindings. */
  hodu_status (*copy)(hodu_device_instance *device,
                      const hodu_device_binding *from,
                      const hodu_device_binding *to, uint64_t size);
  /* Loads the code objects of plan device `index` (those of plan->codes
   * whose `device` is `index`; it picks the one that fits) and prepares
   * every kernel of it. `origin` names the model for messages. */
  hodu_status (*code_load)(hodu_device_instance *device,
                           const hodu_device_plan *plan, uint32_t index,
                           const char *origin, hodu_device_code **out);
  void (*code_free)(hodu_device_instance *device, hodu_device_code *code);
  /* Steps [first, first + count) of `plan`, all on this device, with
   * `bindings[a]` for plan argument a (copy what you keep).
   * `symbol_values`: libhodurt's CPU device only (NULL for bundles). */
  hodu_status (*program_create)(hodu_device_instance *device,
                                hodu_device_code *code,
                                const hodu_device_plan *plan, uint32_t first,
                                uint32_t count,
                                const hodu_device_binding *bindings,
                                const int64_t *symbol_values,
                                hodu_device_program **out);
  void (*program_free)(hodu_device_instance *device,
                       hodu_device_program *program);
  /* Runs it once and waits. */
  hodu_status (*program_run)(hodu_device_instance *device,
                             hodu_device_program *program,
                             hodu_device_exec_stats *stats);
  /* Optional, all three or none: records it once into something that
   * replays without host work per step; replay runs that `count` times
   * and waits; release_capture frees exactly the recording. Without them
   * a capture keeps the program and a replay runs it `count` times. */
  hodu_status (*program_capture)(hodu_device_instance *device,
                                 hodu_device_program *program);
  hodu_status (*program_replay)(hodu_device_instance *device,
                                hodu_device_program *program, int64_t count,
                                hodu_device_exec_stats *stats);
  void (*program_release_capture)(hodu_device_instance *device,
                                  hodu_device_program *program);
} hodu_device_plugin_v1;

#ifdef __cplusplus
}
#endif

#endif /* HODU_PLUGIN_H */
