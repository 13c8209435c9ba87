/*===- ort_library.c - finding and opening ONNX Runtime ---------------------===*
 *
 * The ONNX Runtime library, its API table, one OrtEnv and one CPU memory
 * info: loaded by the first model (ensure_ort), shared by every model, and
 * released by the plugin's shutdown. ort_engine.c's banner says where the
 * library is looked for.
 *
 *===----------------------------------------------------------------------===*/
#include "ort_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*===--------------------------------------------------------------------===*
 * ONNX Runtime itself: loaded once, shared
 *===--------------------------------------------------------------------===*/

static pthread_mutex_t g_ort_lock = PTHREAD_MUTEX_INITIALIZER;
static void *g_ort_library;
const OrtApi *g_ort; /* non-NULL once everything below is set */
OrtEnv *g_env;
OrtMemoryInfo *g_cpu_memory;
OrtAllocator *g_default_allocator; /* ORT's; never freed */

/* An OrtStatus as a hodu_status ("onnxruntime: " and ORT's message, then
 * `context` in parentheses when given); releases `ort_status`. */
hodu_status from_ort(OrtStatus *ort_status, hodu_status_code code,
                     const char *context) {
  const char *message = g_ort->GetErrorMessage(ort_status);
  hodu_status status =
      context ? fail(code, "onnxruntime: %s (%s)", message, context)
              : fail(code, "onnxruntime: %s", message);
  g_ort->ReleaseStatus(ort_status);
  return status;
}

/* ONNX Runtime's log into the host's. What it logs as an error comes back
 * as the failing call's status too, which the host reports, so it goes to
 * the info level (HODU_LOG_LEVEL=2 shows it); fatal ones stay errors. */
static void ort_log(void *param, OrtLoggingLevel severity, const char *category,
                    const char *logid, const char *code_location,
                    const char *message) {
  (void)param;
  (void)category;
  (void)logid;
  (void)code_location;
  int32_t level = severity >= ORT_LOGGING_LEVEL_FATAL     ? HODU_LOG_ERROR
                  : severity == ORT_LOGGING_LEVEL_WARNING ? HODU_LOG_WARNING
                  : severity >= ORT_LOGGING_LEVEL_INFO    ? HODU_LOG_INFO
                                                          : HODU_LOG_DEBUG;
  host_log(level, message);
}

/* Appends "'path': why" to `tried` (a "; "-separated list). */
static void note_failure(char *tried, size_t size, const char *path,
                         const char *why) {
  size_t used = strlen(tried);
  if (used + 1 < size)
    snprintf(tried + used, size - used, "%s'%s': %s", used ? "; " : "", path,
             why);
}

/* Opens `path` as ONNX Runtime and checks it; NULL (and a note in `tried`)
 * when it is not a usable one. */
static void *open_ort(const char *path, const OrtApi **api_out, char *tried,
                      size_t tried_size) {
  dlerror();
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    note_failure(tried, tried_size, path, why ? why : "dlopen failed");
    return NULL;
  }
  char why[256];
  OrtGetApiBaseFn get_api_base = NULL;
  /* The ISO C way to turn dlsym's void * into a function pointer. */
  void *symbol = dlsym(library, HODU_ORT_GET_API_BASE_SYMBOL);
  memcpy(&get_api_base, &symbol, sizeof get_api_base);
  const OrtApiBase *base = get_api_base ? get_api_base() : NULL;
  if (!base) {
    note_failure(tried, tried_size, path,
                 "no " HODU_ORT_GET_API_BASE_SYMBOL "; not ONNX Runtime");
    dlclose(library);
    return NULL;
  }
  const char *version = base->GetVersionString ? base->GetVersionString() : "";
  unsigned major = 0, minor = 0;
  if (!version || sscanf(version, "%u.%u", &major, &minor) != 2 || major != 1 ||
      minor < ORT_MIN_MINOR) {
    snprintf(why, sizeof why,
             "ONNX Runtime %s; this engine needs 1.%u or newer (1.x)",
             version ? version : "of unknown version", ORT_MIN_MINOR);
    note_failure(tried, tried_size, path, why);
    dlclose(library);
    return NULL;
  }
  const OrtApi *api = base->GetApi(HODU_ORT_API_VERSION);
  if (!api) {
    snprintf(why, sizeof why, "ONNX Runtime %s has no C API version %u",
             version, HODU_ORT_API_VERSION);
    note_failure(tried, tried_size, path, why);
    dlclose(library);
    return NULL;
  }
  /* The table check: a status must round-trip through slots 0, 1, 2, 93. */
  static const char probe_message[] = "hodu: OrtApi table check";
  OrtStatus *probe = api->CreateStatus(ORT_NO_MODEL, probe_message);
  int table_ok = probe && api->GetErrorCode(probe) == ORT_NO_MODEL &&
                 strcmp(api->GetErrorMessage(probe), probe_message) == 0;
  if (probe)
    api->ReleaseStatus(probe);
  if (!table_ok) {
    snprintf(why, sizeof why,
             "ONNX Runtime %s's C API table is not laid out as expected",
             version);
    note_failure(tried, tried_size, path, why);
    dlclose(library);
    return NULL;
  }
  char *line = text_of("using ONNX Runtime %s from %s", version, path);
  if (line)
    host_log(HODU_LOG_INFO, line);
  free(line);
  *api_out = api;
  return library;
}

static int file_exists(const char *path) { return access(path, F_OK) == 0; }

/* Opens ONNX Runtime where the header comment says. */
static hodu_status find_ort(void **library_out, const OrtApi **api_out) {
  char tried[2048] = "";
  const char *option =
      HOST_HAS(get_option) ? g_host->get_option(PLUGIN_ID, "library") : NULL;
  const char *dir = HOST_HAS(plugin_dir) ? g_host->plugin_dir(PLUGIN_ID) : NULL;
  if (dir && !*dir)
    dir = NULL;
  void *library = NULL;
  char *path = NULL;

  if (option && *option) {
    if (option[0] == '/' || !dir)
      path = dup_string(option);
    else if (strchr(option, '/'))
      path = text_of("%s/%s", dir, option);
    else {
      /* A bare name: beside the plugin if there, else the search path. */
      path = text_of("%s/%s", dir, option);
      if (path && !file_exists(path)) {
        free(path);
        path = dup_string(option);
      }
    }
    if (!path)
      return fail(HODU_OUT_OF_MEMORY, "onnxruntime engine: out of memory");
    library = open_ort(path, api_out, tried, sizeof tried);
    free(path);
  } else {
    for (int i = 0; i < 2 && !library && dir; ++i) {
      path = text_of(
          i == 0 ? "%s/" ORT_LIBRARY_NAME : "%s/lib/" ORT_LIBRARY_NAME, dir);
      if (path && file_exists(path))
        library = open_ort(path, api_out, tried, sizeof tried);
      free(path);
    }
#ifdef HODU_ORT_DEFAULT_LIBRARY
    static const char default_library[] = HODU_ORT_DEFAULT_LIBRARY;
    if (!library && strlen(default_library) > 0)
      library = open_ort(default_library, api_out, tried, sizeof tried);
#endif
    if (!library)
      library = open_ort(ORT_LIBRARY_NAME, api_out, tried, sizeof tried);
  }
  if (!library)
    return fail(HODU_NOT_FOUND,
                "onnxruntime engine: cannot load ONNX Runtime (%s); set the "
                "plugin option 'library' or HODU_PLUGIN_ONNXRUNTIME_LIBRARY",
                tried);
  *library_out = library;
  return NULL;
}

/* Loads ONNX Runtime and makes the shared objects, once (a failure is
 * retried by the next load). */
hodu_status ensure_ort(void) {
  hodu_status status = NULL;
  pthread_mutex_lock(&g_ort_lock);
  if (g_ort)
    goto done;
  void *library = NULL;
  const OrtApi *api = NULL;
  status = find_ort(&library, &api);
  if (status)
    goto done;
  OrtEnv *env = NULL;
  OrtMemoryInfo *memory = NULL;
  OrtAllocator *allocator = NULL;
  const char *what = "creating the environment";
  OrtStatus *ort_status = api->CreateEnvWithCustomLogger(
      ort_log, NULL, ORT_LOGGING_LEVEL_WARNING, "hodu", &env);
  if (!ort_status) {
    what = "creating the CPU memory info";
    ort_status =
        api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &memory);
  }
  if (!ort_status) {
    what = "getting the default allocator";
    ort_status = api->GetAllocatorWithDefaultOptions(&allocator);
  }
  if (ort_status) {
    status = fail(HODU_INVALID_STATE, "onnxruntime: %s (%s)",
                  api->GetErrorMessage(ort_status), what);
    api->ReleaseStatus(ort_status);
    if (memory)
      api->ReleaseMemoryInfo(memory);
    if (env)
      api->ReleaseEnv(env);
    dlclose(library);
    goto done;
  }
  g_ort_library = library;
  g_env = env;
  g_cpu_memory = memory;
  g_default_allocator = allocator;
  g_ort = api;
done:
  pthread_mutex_unlock(&g_ort_lock);
  return status;
}

/* The plugin's shutdown: nothing made from it is left. */
void plugin_shutdown(void) {
  pthread_mutex_lock(&g_ort_lock);
  if (g_ort) {
    g_ort->ReleaseMemoryInfo(g_cpu_memory);
    g_ort->ReleaseEnv(g_env);
    dlclose(g_ort_library);
  }
  g_ort = NULL;
  g_ort_library = NULL;
  g_env = NULL;
  g_cpu_memory = NULL;
  g_default_allocator = NULL;
  pthread_mutex_unlock(&g_ort_lock);
}

