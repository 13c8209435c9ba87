/*===- hodu/runtime_plugins.h - plugins and selection (libhodurt) ---------===*
 *
 * Part of the Hodu C runtime API: plugins (hodu/plugin.h, docs/plugins.md)
 * and selection by measurement. hodu/runtime.h includes this header, so a
 * program includes that one alone; this one may also be included first.
 *
 *===----------------------------------------------------------------------===*/

#ifndef HODU_RUNTIME_PLUGINS_H
#define HODU_RUNTIME_PLUGINS_H

#include "hodu/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif
/*===--------------------------------------------------------------------===*
 * Plugins (hodu/plugin.h, docs/plugins.md)
 *
 * A plugin is a directory holding a manifest.json and the shared library it
 * names. libhodurt finds them, on first use, in: the paths given to
 * hodu_plugin_add_path, the directories of HODU_PLUGIN_PATH (':'-separated,
 * absolute paths only), $XDG_DATA_HOME/hodu/plugins (or
 * ~/.local/share/hodu/plugins), ~/.hodu/plugins, and lib/hodu/plugins of
 * the prefix libhodurt (or the program) is installed in -- never the
 * current directory. HODU_NO_PLUGINS=1 turns discovery off. Listing reads
 * manifests only; a library is opened (and checked against its manifest
 * and this host's plugin ABI) when something first uses it, and stays
 * loaded until the process ends.
 *===--------------------------------------------------------------------===*/

/* What the registry knows of one plugin. Every pointer is borrowed and
 * valid until the process ends. */
typedef struct hodu_plugin_info {
  uint32_t struct_size; /* set by the caller: sizeof(hodu_plugin_info) */
  uint32_t kinds;       /* hodu_plugin_kind bits (the manifest's "kinds") */
  const char *id;       /* the manifest's, or the directory's name if none */
  const char *version;
  const char *description;
  const char *dir;      /* the plugin's directory */
  const char *library;  /* its library's path ("" if the manifest has none) */
  const char *source;   /* where it was found: "--plugin", "HODU_PLUGIN_PATH",
                           "user", "install" */
  /* "available" (manifest read), "loaded" (library opened and checked) or
   * "refused" (`problem` says why). */
  const char *state;
  const char *problem;  /* NULL unless refused */
  uint32_t abi_version; /* the manifest's "abi_version" */
  uint32_t reserved;
  /* The manifest's lists, joined with ", " ("" when absent). */
  const char *engines;
  const char *formats;
  const char *capabilities;
  /* Appended: the manifest's "devices" (device plugins) and "targets"
   * (target plugins), joined. */
  const char *devices;
  const char *targets;
} hodu_plugin_info;

/* Adds a plugin directory (one with a manifest.json), or a directory of
 * such directories, searched before every other place. Call it before the
 * first model load or plugin query; later calls add plugins as they go.
 * NOT_FOUND when `path` is no directory. */
HODU_API hodu_status hodu_plugin_add_path(const char *path);

/* How many plugins discovery found (refused ones included). */
HODU_API int32_t hodu_plugin_count(void);

/* Fills `info` (up to its struct_size) for plugin `index`. */
HODU_API hodu_status hodu_plugin_get_info(int32_t index,
                                          hodu_plugin_info *info);

/* Opens plugin `id`'s library now and checks it (its ABI version, its query
 * symbol, its answer against the manifest, its interfaces); the status says
 * why it is refused. A plugin refused once stays refused. */
HODU_API hodu_status hodu_plugin_load(const char *id);

/* The listing hodu-run --list-plugins and hoduc --list-plugins print: a
 * table of every plugin found (id, version, kinds, state, where), with the
 * reason under each refused one. Valid until the next call. */
HODU_API const char *hodu_plugin_listing(void);

/* Converts the model file at `path` with the format plugin that claims its
 * extension (hodu/plugin.h, format plugins): `*bytes` of `*size` bytes in
 * the format `*format` names (".onnx", ".hdss" or ".mlir"), to be freed
 * with hodu_plugin_free; `*plugin_id` names the plugin. NOT_FOUND when no
 * format plugin claims the file. */
HODU_API hodu_status hodu_plugin_convert(const char *path, void **bytes,
                                         size_t *size, const char **format,
                                         const char **plugin_id);
HODU_API void hodu_plugin_free(void *bytes);

/* For a host that loads toolchain-tier plugins (hoduc; hodu/plugin.h):
 * opens the importer or target plugin `id` and checks it as
 * hodu_plugin_load does, and its header's toolchain against `toolchain`
 * (the host's HODU_TOOLCHAIN); `*table` gets its interface. The host then
 * calls register_components itself. libhodurt never calls into such a
 * plugin. */
struct hodu_toolchain_plugin_v1; /* hodu/plugin.h */
HODU_API hodu_status
hodu_plugin_load_toolchain(const char *id, const char *toolchain,
                           const struct hodu_toolchain_plugin_v1 **table);

/* The code formats (hodu_code_format values, 0-terminated; static) the
 * device plugin's device `name` runs, loading its plugin; `*plugin_id`
 * names the plugin. NO_DEVICE when no plugin provides `name`. hoduc
 * --device=NAME compiles for them. */
HODU_API hodu_status hodu_plugin_device_formats(const char *name,
                                                const uint32_t **formats,
                                                const char **plugin_id);

/* The engine a model runs on ("onnxruntime"), or NULL for a Hodu
 * artifact. */
HODU_API const char *hodu_model_engine(const hodu_model *model);

/*===--------------------------------------------------------------------===*
 * Selection by measurement (seed 003; docs/plugins.md, "Selection")
 *
 * Candidates are ways to run one model: "PATH" (a Hodu artifact, or a file
 * an engine plugin claims), "PATH@ENGINE" (an engine plugin by name) or
 * "PATH@KIND[:N]" (a bundle on device KIND, ordinal N). Each is measured in
 * a child process, so one that crashes or hangs is recorded, not fatal:
 * load time, the first run, then `runs` timed runs after `warmup`, and the
 * child's peak memory. Every candidate's outputs are compared with the
 * first one's that ran. The measurements are kept in a selection database
 * (JSON lines) keyed by the artifact's SHA-256, the engine and its version,
 * the device, the thread budget and the runtime's version; a record whose
 * key differs in anything is never used.
 *===--------------------------------------------------------------------===*/

typedef enum hodu_select_objective {
  HODU_SELECT_LATENCY = 0, /* the lowest median run time (default) */
  HODU_SELECT_MEMORY = 1   /* the lowest peak memory */
} hodu_select_objective;

typedef enum hodu_select_benchmark {
  HODU_BENCHMARK_ON_MISS = 0, /* measure what the database lacks (default) */
  HODU_BENCHMARK_NEVER = 1,   /* the database only; else the static rule */
  HODU_BENCHMARK_ALWAYS = 2   /* measure every candidate again */
} hodu_select_benchmark;

typedef struct hodu_select_options {
  uint32_t struct_size; /* sizeof(hodu_select_options) */
  int32_t objective;    /* hodu_select_objective */
  int32_t benchmark;    /* hodu_select_benchmark */
  int32_t runs;         /* timed runs per candidate (default 20) */
  int32_t warmup;       /* untimed runs before them (default 3) */
  int32_t timeout_s;    /* per candidate (default 120) */
  /* A candidate whose peak memory is above this is excluded: 0 means 90%
   * of this machine's memory (seed 003). */
  uint64_t memory_limit;
  /* Outputs agree when |a - b| <= atol + rtol * |b| (defaults 1e-3, 1e-4). */
  double rtol, atol;
  /* The database: NULL for $HODU_SELECTION_DB, else
   * $XDG_CACHE_HOME/hodu/selection.jsonl (~/.cache/...); "off" for none. */
  const char *database;
  /* Sample inputs (borrowed): by name where `input_names[i]` is set, else
   * in order. None: each input is filled with seeded values, its symbols
   * at `symbol_value`. */
  const hodu_tensor *const *inputs;
  const char *const *input_names;
  size_t num_inputs;
  int64_t symbol_value; /* default 1 */
} hodu_select_options;

/* Sets `options` to the defaults. */
HODU_API void hodu_select_options_init(hodu_select_options *options);

typedef struct hodu_selection hodu_selection;

/* What one candidate did. Borrowed from the selection. */
typedef struct hodu_candidate_result {
  const char *candidate;
  /* "ok", "failed", "crashed", "timeout", "mismatch", "over-memory", or
   * "not-measured" (HODU_BENCHMARK_NEVER without a record). */
  const char *status;
  const char *message; /* why, for a status other than ok ("" otherwise) */
  const char *engine;  /* "onnxruntime 1.0.0", or "" for a Hodu artifact */
  const char *device;  /* "cpu", "vulkan:0" ... */
  int32_t from_database; /* 1: the figures are a stored record */
  int32_t runs;
  double load_ms, first_run_us;
  double p50_us, p90_us, p99_us, min_us, mean_us, mad_us;
  uint64_t peak_bytes; /* the child's peak resident memory above its start */
  double max_error;    /* against the reference candidate's outputs */
} hodu_candidate_result;

/* Measures (or looks up) each candidate and picks one. INVALID_ARGUMENT for
 * no candidates or a malformed one; the selection is made even when every
 * candidate fails (then none is chosen). */
HODU_API hodu_status hodu_select(const char *const *candidates,
                                 size_t num_candidates,
                                 const hodu_select_options *options,
                                 hodu_selection **out);
HODU_API void hodu_selection_free(hodu_selection *selection);
HODU_API int32_t hodu_selection_count(const hodu_selection *selection);
HODU_API const hodu_candidate_result *
hodu_selection_result(const hodu_selection *selection, int32_t index);
/* The chosen candidate's index, or -1 when none can run. */
HODU_API int32_t hodu_selection_chosen(const hodu_selection *selection);
/* A report: the table of candidates, what was chosen and why. Borrowed. */
HODU_API const char *hodu_selection_report(const hodu_selection *selection);

#ifdef __cplusplus
}
#endif

#endif /* HODU_RUNTIME_PLUGINS_H */
