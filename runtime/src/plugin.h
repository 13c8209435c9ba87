/*===- plugin.h - libhodurt's plugin registry (private) --------------------===*
 *
 * The registry behind hodu/plugin.h and the hodu_plugin_* calls of
 * runtime.h: discovery of manifests, their validation, and loading a
 * plugin's library on first use. Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_PLUGIN_H
#define HODU_RUNTIME_PLUGIN_H

#include "hodu/plugin.h"

/* A loaded engine: its plugin's id and table. */
typedef struct hodu_engine_ref {
  const char *plugin_id;
  const hodu_engine_plugin_v1 *table;
} hodu_engine_ref;

/* A message to stderr when `level` is at most HODU_LOG_LEVEL (default
 * HODU_LOG_WARNING), as "hodu plugin WHO: warning: MESSAGE". */
void hodu_runtime_log(int32_t level, const char *who, const char *message);

/* A loaded compiler: its plugin and table. */
typedef struct hodu_compiler_ref {
  const char *plugin_id;
  const char *plugin_version;
  const hodu_compiler_plugin_v1 *table;
} hodu_compiler_ref;

/* The compiler plugin that compiles `path` best: the one named `name`
 * (NULL: any whose manifest lists the file's extension), loaded and asked
 * to probe. *found is 0 (status NULL) when no manifest qualifies. */
hodu_status hodu_plugin_find_compiler(const char *name, const char *path,
                                      hodu_compiler_ref *out, int *found);

/* load_plugin.c: hodu_model_load of a file that is no artifact, through
 * the plugins (docs/plugins.md, "Compiling on load"). *handled is 0 when
 * no plugin claims it. */
hodu_status hodu_model_load_by_plugin(const char *path,
                                      const hodu_load_options *options,
                                      int *handled, hodu_model **out);

/* compile.c: `path` compiled by `compiler` (with the compile cache), then
 * loaded; the artifact of a cache hit is loaded from the cache. */
hodu_status hodu_compile_and_load(const hodu_compiler_ref *compiler,
                                  const char *path,
                                  const hodu_load_options *options,
                                  hodu_model **out);

/* The device plugin table of the device named `name` (loading its
 * plugin), with the plugin's id in plugin_id; NO_DEVICE naming the device
 * (and a refused plugin that would provide it) otherwise. */
hodu_status hodu_plugin_find_device(const char *name,
                                    const hodu_device_plugin_v1 **out,
                                    char *plugin_id, size_t id_size);

/* device.c: libhodurt's own device table of kind `index` (CPU, Vulkan,
 * CUDA, HIP: 0 to 3), or NULL. */
const hodu_device_plugin_v1 *hodu_builtin_device_table(int32_t index);

/* The engine named `name` (loading its plugin), NOT_FOUND naming the
 * engines there are when no plugin provides it. */
hodu_status hodu_plugin_find_engine(const char *name, hodu_engine_ref *out);

/* The engine that loads `path` best: every available engine plugin whose
 * manifest lists the file's extension is loaded and probes the file; the
 * highest score wins. *found is 0 (and the status NULL) when no manifest
 * lists the extension, so the caller reports the file as it would without
 * plugins. A failure to load such a plugin is the status. */
hodu_status hodu_plugin_engine_for_file(const char *path, hodu_engine_ref *out,
                                        int *found);

/* The first HODU_ENGINE_PROBE_BYTES bytes of `path` into `head`: how many
 * (0 when it cannot be read). */
size_t hodu_plugin_read_head(const char *path, uint8_t *head);

/* What identifies the engine a candidate runs on, from the manifests alone
 * (no plugin code runs): "id@version" of the plugin providing `engine`, or
 * with `engine` NULL of every engine plugin claiming `path`'s extension
 * ("" when none does). */
void hodu_plugin_engine_key(const char *engine, const char *path, char *out,
                            size_t size);

/* What identifies the device plugins a bundle's `plan` names (from the
 * manifests; no plugin code runs), appended to `out` as "+device
 * NAME=id@version" ("missing" when none provides it). */
struct hodu_plan;
void hodu_plugin_device_key(const struct hodu_plan *plan, char *out,
                            size_t size);

/* engine.c: a model run by an engine (`path` already probed). */
hodu_status hodu_engine_model_load(const hodu_engine_ref *engine,
                                   const char *path, hodu_model **out);
/* hodu_model_run and hodu_model_run_alloc of an engine model. */
hodu_status hodu_engine_run(const hodu_model *model,
                            const hodu_tensor *const *inputs,
                            size_t num_inputs, hodu_tensor *const *outputs,
                            size_t num_outputs);
hodu_status hodu_engine_run_alloc(const hodu_model *model,
                                  const hodu_tensor *const *inputs,
                                  size_t num_inputs, hodu_tensor **outputs,
                                  size_t num_outputs);
struct hodu_engine_state;
void hodu_engine_state_free(struct hodu_engine_state *state);

/* model.c: the model of an engine's descriptor; it owns `state` from then
 * on (and frees it on failure). */
hodu_status hodu_model_from_engine(const hodu_model_desc *desc,
                                   struct hodu_engine_state *state,
                                   const char *origin, hodu_model **out);

#endif /* HODU_RUNTIME_PLUGIN_H */
