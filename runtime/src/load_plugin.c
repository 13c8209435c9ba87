/*===- load_plugin.c - loading model files through plugins ----------------===*
 *
 * A file that is no Hodu artifact goes to a plugin: the compiler or engine
 * that hodu_load_options.engine (or HODU_ENGINE) names; else the compiler
 * plugin that claims its extension (compile.c compiles and caches it), with
 * the engine that claims it as the fallback when the model does not
 * compile; else that engine (engine.c).
 *
 *===----------------------------------------------------------------------===*/
#include "plugin.h"
#include "session.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* Loads `path` with an engine plugin: the one `options` names, else the
 * one whose manifest lists the file's extension and whose probe scores it
 * best. *handled is 0 when no engine plugin claims such files. */
static hodu_status load_with_engine(const char *path, const char *name,
                                    const hodu_load_options *options,
                                    int *handled, hodu_model **out) {
  hodu_engine_ref engine;
  hodu_status status;
  if (name) {
    *handled = 1;
    status = hodu_plugin_find_engine(name, &engine);
    int32_t score = 0;
    if (!status) {
      uint8_t head[HODU_ENGINE_PROBE_BYTES];
      size_t head_size = hodu_plugin_read_head(path, head);
      score = engine.table->probe(path, head, head_size);
      if (score <= 0)
        status = hodu_make_status(HODU_INVALID_ARTIFACT,
                                  "engine '%s' cannot load '%s' (its probe "
                                  "refuses the file)",
                                  name, path);
    }
  } else {
    *handled = 0;
    status = hodu_plugin_engine_for_file(path, &engine, handled);
    if (!status && !*handled)
      return NULL;
  }
  if (status)
    return status;
  if (options && options->device_kind >= 0 &&
      options->device_kind != HODU_DEVICE_CPU)
    return hodu_make_status(HODU_INCOMPATIBLE,
                            "'%s' runs on engine '%s', which runs on the CPU "
                            "here; it cannot run on %s",
                            path, engine.table->name,
                            hodu_device_kind_name(
                                (hodu_device_kind)options->device_kind)
                                ? hodu_device_kind_name((
                                      hodu_device_kind)options->device_kind)
                                : "that device");
  return hodu_engine_model_load(&engine, path, out);
}

/* Loads a file that is no Hodu artifact through a plugin: a compiler
 * plugin compiles it (the one `options` names, else the best one whose
 * manifest lists the extension); when none does, or compiling fails and
 * nothing was named, the engine that claims it runs it. *handled is 0 when
 * no plugin claims the file. */
hodu_status hodu_model_load_by_plugin(const char *path,
                                     const hodu_load_options *options,
                                     int *handled, hodu_model **out) {
  const char *name =
      options && options->struct_size >= offsetof(hodu_load_options, engine) +
                                             sizeof(options->engine)
          ? options->engine
          : NULL;
  /* HODU_ENGINE names one for every load that names none. */
  const char *env = getenv("HODU_ENGINE");
  if (!name && env && *env)
    name = env;
  hodu_compiler_ref compiler;
  int found = 0;
  hodu_status status =
      hodu_plugin_find_compiler(name, path, &compiler, &found);
  if (found && status && name) {
    *handled = 1;
    return status;
  }
  if (found && !status) {
    *handled = 1;
    status = hodu_compile_and_load(&compiler, path, options, out);
    /* Only a model the compiler cannot compile falls back; a bad flag or
     * a missing compiler is the caller's to fix. */
    if (!status || name ||
        hodu_status_get_code(status) != HODU_INVALID_ARTIFACT)
      return status;
    /* Compiling failed: an engine that claims the file runs it, and the
     * log says so (what ran must never be a surprise). */
    int engine_handled = 0;
    hodu_status engine_status =
        load_with_engine(path, NULL, options, &engine_handled, out);
    if (engine_handled && !engine_status) {
      char message[1536];
      snprintf(message, sizeof message,
               "'%s' did not compile (%s); it runs on engine '%s' instead",
               path, hodu_status_message(status), hodu_model_engine(*out));
      hodu_runtime_log(HODU_LOG_WARNING, compiler.plugin_id, message);
      hodu_status_free(status);
      return NULL;
    }
    hodu_status_free(engine_status);
    return status;
  }
  hodu_status_free(status);
  return load_with_engine(path, name, options, handled, out);
}

