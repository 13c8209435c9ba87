/*===- plugin.c - discovering, checking and loading plugins ----------------===*
 *
 * The registry is built once, on first use: each search directory is
 * either a plugin directory (it holds a manifest.json) or holds plugin
 * directories. Listing reads manifests only and never runs plugin code; a
 * library is dlopen'ed when something first needs it, and then checked
 * against its manifest and this host's plugin ABI. Libraries stay loaded
 * until the process ends (as LLVM's pass plugins do), so nothing made from
 * one can outlive it.
 *
 * Models from strangers and their directories are never searched: the
 * current directory is not a search path and relative HODU_PLUGIN_PATH
 * entries are ignored, so a library planted beside a model is never
 * loaded (docs/security.md).
 *
 *===----------------------------------------------------------------------===*/
#include "plugin.h"
#include "internal.h"
#include "json.h"
#include "plan.h"
#include "plugin_registry.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const state_names[] = {"available", "loaded", "refused"};

/* The registry's lock. Recursive: a plugin's query and probe run under it
 * and may call back into the host (get_option, plugin_dir, log). */
static pthread_mutex_t lock;
static pthread_once_t lock_once = PTHREAD_ONCE_INIT;

static void make_lock(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&lock, &attr);
  pthread_mutexattr_destroy(&attr);
}

static void lock_registry(void) {
  pthread_once(&lock_once, make_lock);
  pthread_mutex_lock(&lock);
}
static int discovered;
static plugin plugins[HODU_MAX_PLUGINS];
static int32_t num_plugins;

static int is_directory(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

/* The registry entry of a plugin directory, refused or not. */
static void add_plugin(const char *dir, const char *source) {
  if (num_plugins >= HODU_MAX_PLUGINS)
    return;
  plugin *p = &plugins[num_plugins];
  memset(p, 0, sizeof *p);
  p->dir = hodu_copy_string(dir);
  p->source = hodu_copy_string(source);
  if (!p->dir || !p->source)
    return;
  p->state = STATE_AVAILABLE;
  hodu_plugin_read_manifest(p, dir);
  if (!p->id) {
    /* Listed under its directory's name, so the refusal can be seen. */
    const char *slash = strrchr(dir, '/');
    p->id = hodu_copy_string(slash ? slash + 1 : dir);
    p->version = hodu_copy_string("");
    p->description = hodu_copy_string("");
    p->engines = hodu_copy_string("");
    p->formats = hodu_copy_string("");
    p->capabilities = hodu_copy_string("");
    p->devices = hodu_copy_string("");
    p->targets = hodu_copy_string("");
    if (!p->library)
      p->library = hodu_copy_string("");
  }
  for (int32_t i = 0; i < num_plugins && p->state != STATE_REFUSED; ++i)
    if (plugins[i].state != STATE_REFUSED && p->id &&
        strcmp(plugins[i].id, p->id) == 0)
      hodu_plugin_refuse(p, hodu_plugin_format_string(
                                "duplicate plugin id '%s': the one in '%s' "
                                "(%s) is used",
                                p->id, plugins[i].dir, plugins[i].source));
  ++num_plugins;
}

/* `path` is a plugin directory, or a directory of them (sorted, so the
 * order does not depend on the file system). */
static void scan(const char *path, const char *source) {
  char resolved[PATH_MAX];
  if (!realpath(path, resolved) || !is_directory(resolved))
    return;
  for (int32_t i = 0; i < num_plugins; ++i)
    if (strcmp(plugins[i].dir, resolved) == 0)
      return; /* reached twice (a link, or two paths to one place) */
  char manifest[PATH_MAX + 16];
  snprintf(manifest, sizeof manifest, "%s/manifest.json", resolved);
  struct stat info;
  if (stat(manifest, &info) == 0) {
    add_plugin(resolved, source);
    return;
  }
  struct dirent **entries;
  int n = scandir(resolved, &entries, NULL, alphasort);
  if (n < 0)
    return;
  for (int i = 0; i < n; ++i) {
    const char *name = entries[i]->d_name;
    if (name[0] != '.') {
      char child[PATH_MAX + 256];
      snprintf(child, sizeof child, "%s/%s", resolved, name);
      char child_manifest[PATH_MAX + 272];
      snprintf(child_manifest, sizeof child_manifest, "%s/manifest.json",
               child);
      if (is_directory(child) && stat(child_manifest, &info) == 0) {
        char real_child[PATH_MAX];
        if (realpath(child, real_child)) {
          int seen = 0;
          for (int32_t k = 0; k < num_plugins; ++k)
            seen |= strcmp(plugins[k].dir, real_child) == 0;
          if (!seen)
            add_plugin(real_child, source);
        }
      }
    }
    free(entries[i]);
  }
  free(entries);
}

/* lib/hodu/plugins beside libhodurt (or the program it is linked into):
 * DIR/hodu/plugins and DIR/../lib/hodu/plugins. */
static void scan_install_prefix(void) {
  Dl_info info;
  if (!dladdr((void *)&scan_install_prefix, &info) || !info.dli_fname)
    return;
  char path[PATH_MAX];
  if (!realpath(info.dli_fname, path))
    return;
  char *slash = strrchr(path, '/');
  if (!slash)
    return;
  *slash = '\0';
  char candidate[PATH_MAX + 32];
  snprintf(candidate, sizeof candidate, "%s/hodu/plugins", path);
  scan(candidate, "install");
  snprintf(candidate, sizeof candidate, "%s/../lib/hodu/plugins", path);
  scan(candidate, "install");
}

static void discover_locked(void) {
  if (discovered)
    return;
  discovered = 1;
  const char *off = getenv("HODU_NO_PLUGINS");
  if (off && *off && strcmp(off, "0") != 0)
    return;
  const char *env = getenv("HODU_PLUGIN_PATH");
  if (env) {
    char *paths = hodu_copy_string(env);
    for (char *save = NULL, *entry = paths ? strtok_r(paths, ":", &save) : NULL;
         entry; entry = strtok_r(NULL, ":", &save))
      if (entry[0] == '/') /* relative entries would depend on the cwd */
        scan(entry, "HODU_PLUGIN_PATH");
    free(paths);
  }
  const char *home = getenv("HOME");
  const char *data = getenv("XDG_DATA_HOME");
  char path[PATH_MAX];
  if (data && data[0] == '/') {
    snprintf(path, sizeof path, "%s/hodu/plugins", data);
    scan(path, "user");
  } else if (home && home[0] == '/') {
    snprintf(path, sizeof path, "%s/.local/share/hodu/plugins", home);
    scan(path, "user");
  }
  if (home && home[0] == '/') {
    snprintf(path, sizeof path, "%s/.hodu/plugins", home);
    scan(path, "user");
  }
  scan_install_prefix();
}

/*===--------------------------------------------------------------------===*
 * The host API a plugin gets
 *===--------------------------------------------------------------------===*/

static hodu_status host_make_status(hodu_status_code code,
                                    const char *message) {
  return hodu_make_status(code, "%s", message ? message : "(no message)");
}

static void host_log(int32_t level, const char *plugin_id,
                     const char *message) {
  const char *env = getenv("HODU_LOG_LEVEL");
  int32_t threshold = env ? atoi(env) : HODU_LOG_WARNING;
  static const char *const names[] = {"error", "warning", "info", "debug"};
  if (level <= threshold)
    fprintf(stderr, "hodu plugin %s: %s: %s\n", plugin_id ? plugin_id : "?",
            level >= 0 && level <= 3 ? names[level] : "log",
            message ? message : "");
}

void hodu_runtime_log(int32_t level, const char *who, const char *message) {
  host_log(level, who, message);
}

static void *host_alloc(uint64_t bytes, uint64_t align) {
  if (align < sizeof(void *) || (align & (align - 1)) || bytes > SIZE_MAX)
    return NULL;
  void *pointer = NULL;
  return posix_memalign(&pointer, (size_t)align, bytes ? (size_t)bytes : 1)
             ? NULL
             : pointer;
}

static void host_free(void *pointer) { free(pointer); }

static plugin *find_locked(const char *id) {
  for (int32_t i = 0; i < num_plugins; ++i)
    if (id && plugins[i].state != STATE_REFUSED &&
        strcmp(plugins[i].id, id) == 0)
      return &plugins[i];
  return NULL;
}

/* Option strings the host made (numbers, booleans, environment values):
 * kept until the process ends, as the ABI promises. */
static char *option_strings[512];
static int num_option_strings;

static const char *keep_option(char *text) {
  if (!text)
    return NULL;
  for (int i = 0; i < num_option_strings; ++i)
    if (strcmp(option_strings[i], text) == 0) {
      free(text);
      return option_strings[i];
    }
  if (num_option_strings ==
      (int)(sizeof option_strings / sizeof option_strings[0])) {
    free(text);
    return NULL;
  }
  return option_strings[num_option_strings++] = text;
}

static const char *host_get_option(const char *plugin_id, const char *key) {
  if (!plugin_id || !key)
    return NULL;
  char name[192];
  int n = snprintf(name, sizeof name, "HODU_PLUGIN_%s_%s", plugin_id, key);
  if (n < 0 || (size_t)n >= sizeof name)
    return NULL;
  for (char *c = name + 12; *c; ++c)
    *c = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
  lock_registry();
  const char *value = NULL;
  const char *env = getenv(name);
  if (env)
    value = keep_option(hodu_copy_string(env));
  plugin *p = find_locked(plugin_id);
  const hodu_json *option =
      !value && p ? hodu_json_get(hodu_json_get(p->manifest, "options"), key)
                  : NULL;
  if (option && option->type == HODU_JSON_STRING)
    value = option->text;
  else if (option && option->type == HODU_JSON_NUMBER)
    value = option->text;
  else if (option && option->type == HODU_JSON_BOOL)
    value = option->boolean ? "true" : "false";
  pthread_mutex_unlock(&lock);
  return value;
}

static const char *host_plugin_dir(const char *plugin_id) {
  lock_registry();
  plugin *p = find_locked(plugin_id);
  const char *dir = p ? p->dir : NULL;
  pthread_mutex_unlock(&lock);
  return dir;
}

static const hodu_host_api host_api = {sizeof(hodu_host_api),
                                       HODU_PLUGIN_ABI_VERSION,
                                       "hodurt " HODU_RUNTIME_VERSION,
                                       host_make_status,
                                       host_log,
                                       host_alloc,
                                       host_free,
                                       host_get_option,
                                       host_plugin_dir};

/*===--------------------------------------------------------------------===*
 * Loading and checking a library
 *===--------------------------------------------------------------------===*/

/* Why the library of `p` cannot be used, or NULL (and `p` is loaded).
 * `toolchain`: the toolchain string of a host that loads toolchain-tier
 * plugins (hoduc), else NULL. */
static char *open_library(plugin *p, const char *toolchain) {
  if ((p->kinds & (HODU_PLUGIN_IMPORTER | HODU_PLUGIN_TARGET)) && !toolchain)
    return hodu_copy_string(
        "it is a toolchain-tier plugin (importer or target): hoduc loads "
        "those, libhodurt does not");
  if (p->abi_version > HODU_PLUGIN_ABI_VERSION)
    return hodu_plugin_format_string(
        "built for plugin ABI %u; this host (hodurt %s) "
        "supports ABI %u",
        (unsigned)p->abi_version, HODU_RUNTIME_VERSION,
        HODU_PLUGIN_ABI_VERSION);
  const char *problem = hodu_elf_file_problem(p->library, &(int){0});
  if (problem)
    return hodu_plugin_format_string("'%s': %s", p->library, problem);
  void *handle = dlopen(p->library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    return hodu_plugin_format_string("cannot load '%s': %s", p->library,
                                     reason ? reason : "unknown reason");
  }
  hodu_plugin_query_fn query;
  *(void **)&query = dlsym(handle, HODU_PLUGIN_QUERY_SYMBOL);
  if (!query) {
    dlclose(handle);
    return hodu_plugin_format_string(
        "'%s' does not export '%s': it is not a Hodu "
        "plugin",
        p->library, HODU_PLUGIN_QUERY_SYMBOL);
  }
  const hodu_plugin_header *h = query(HODU_PLUGIN_ABI_VERSION, &host_api);
  char *why = NULL;
  const size_t min_header =
      offsetof(hodu_plugin_header, get_interface) + sizeof(h->get_interface);
  if (!h)
    why = hodu_plugin_format_string(
        "its %s() returned NULL: it cannot serve plugin ABI "
        "%u",
        HODU_PLUGIN_QUERY_SYMBOL, HODU_PLUGIN_ABI_VERSION);
  else if (h->struct_size < min_header)
    why = hodu_plugin_format_string(
        "its header is %u bytes, shorter than the %zu of "
        "plugin ABI 1",
        (unsigned)h->struct_size, min_header);
  else if (h->abi_version != p->abi_version)
    why = hodu_plugin_format_string(
        "the library says plugin ABI %u, the manifest says "
        "%u",
        (unsigned)h->abi_version, (unsigned)p->abi_version);
  else if (h->abi_version > HODU_PLUGIN_ABI_VERSION)
    why = hodu_plugin_format_string(
        "built for plugin ABI %u; this host supports %u",
        (unsigned)h->abi_version, HODU_PLUGIN_ABI_VERSION);
  else if (!h->id || strcmp(h->id, p->id) != 0)
    why = hodu_plugin_format_string(
        "the library says id '%s', the manifest says '%s'",
        h->id ? h->id : "(null)", p->id);
  else if (!h->version || strcmp(h->version, p->version) != 0)
    why = hodu_plugin_format_string(
        "the library says version '%s', the manifest says "
        "'%s'",
        h->version ? h->version : "(null)", p->version);
  else if (h->kinds != p->kinds)
    why =
        hodu_plugin_format_string("the library's kinds (0x%x) differ from the "
                                  "manifest's (0x%x)",
                                  (unsigned)h->kinds, (unsigned)p->kinds);
  else if (!h->get_interface)
    why = hodu_copy_string("its header has no get_interface");
  else if (h->kinds & (HODU_PLUGIN_IMPORTER | HODU_PLUGIN_TARGET))
    why = hodu_plugin_check_toolchain(h, toolchain);
  const hodu_engine_plugin_v1 *engine = NULL;
  const hodu_compiler_plugin_v1 *compiler = NULL;
  if (!why && (h->kinds & HODU_PLUGIN_ENGINE)) {
    engine = h->get_interface(HODU_PLUGIN_ENGINE, 1);
    why = hodu_plugin_check_engine_table(p, engine);
  }
  if (!why && (h->kinds & HODU_PLUGIN_COMPILER)) {
    compiler = h->get_interface(HODU_PLUGIN_COMPILER, 1);
    why = hodu_plugin_check_compiler_table(p, compiler);
  }
  const hodu_format_plugin_v1 *format = NULL;
  if (!why && (h->kinds & HODU_PLUGIN_FORMAT)) {
    format = h->get_interface(HODU_PLUGIN_FORMAT, 1);
    why = hodu_plugin_check_format_table(format);
  }
  const hodu_toolchain_plugin_v1 *tools = NULL;
  if (!why && (h->kinds & (HODU_PLUGIN_IMPORTER | HODU_PLUGIN_TARGET))) {
    tools =
        h->get_interface(h->kinds & HODU_PLUGIN_IMPORTER ? HODU_PLUGIN_IMPORTER
                                                         : HODU_PLUGIN_TARGET,
                         1);
    why = hodu_plugin_check_toolchain_table(tools);
  }
  const hodu_device_plugin_v1 *device = NULL;
  if (!why && (h->kinds & HODU_PLUGIN_DEVICE)) {
    device = h->get_interface(HODU_PLUGIN_DEVICE, 1);
    why = hodu_plugin_check_device_table(p, device);
  }
  if (why) {
    dlclose(handle);
    return why;
  }
  p->device = device;
  p->toolchain = tools;
  p->handle = handle;
  p->header = h;
  p->engine = engine;
  p->compiler = compiler;
  p->format = format;
  p->state = STATE_LOADED;
  return NULL;
}

/* Loads `p` if it is only available; the status of a refused plugin.
 * `toolchain`: as open_library's. */
static hodu_status ensure_loaded_toolchain(plugin *p, const char *toolchain) {
  if (p->state == STATE_AVAILABLE) {
    char *why = open_library(p, toolchain);
    if (why)
      hodu_plugin_refuse(p, why);
  }
  if (p->state == STATE_REFUSED)
    return hodu_make_status(HODU_INCOMPATIBLE,
                            "plugin '%s' (%s) is refused: %s", p->id, p->dir,
                            p->problem);
  return NULL;
}

static hodu_status ensure_loaded_locked(plugin *p) {
  return ensure_loaded_toolchain(p, NULL);
}

/*===--------------------------------------------------------------------===*
 * The public calls
 *===--------------------------------------------------------------------===*/

hodu_status hodu_plugin_add_path(const char *path) {
  if (!path || !*path)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "plugin path is empty");
  if (!is_directory(path))
    return hodu_make_status(HODU_NOT_FOUND,
                            "plugin path '%s' is not a directory", path);
  lock_registry();
  scan(path, "--plugin");
  pthread_mutex_unlock(&lock);
  return NULL;
}

int32_t hodu_plugin_count(void) {
  lock_registry();
  discover_locked();
  int32_t n = num_plugins;
  pthread_mutex_unlock(&lock);
  return n;
}

hodu_status hodu_plugin_get_info(int32_t index, hodu_plugin_info *info) {
  if (!info)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "'info' is NULL");
  if (info->struct_size <
      offsetof(hodu_plugin_info, problem) + sizeof(info->problem))
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "plugin info: struct_size %u is too small",
                            (unsigned)info->struct_size);
  lock_registry();
  discover_locked();
  if (index < 0 || index >= num_plugins) {
    int32_t n = num_plugins;
    pthread_mutex_unlock(&lock);
    return hodu_make_status(HODU_NOT_FOUND,
                            "plugin index %d is out of range: there %s %d",
                            (int)index, n == 1 ? "is" : "are", (int)n);
  }
  const plugin *p = &plugins[index];
  hodu_plugin_info full = {sizeof full, p->kinds,       p->id,
                           p->version,  p->description, p->dir,
                           p->library,  p->source,      state_names[p->state],
                           p->problem,  p->abi_version, 0,
                           p->engines,  p->formats,     p->capabilities,
                           p->devices,  p->targets};
  pthread_mutex_unlock(&lock);
  uint32_t size = info->struct_size < sizeof full ? info->struct_size
                                                  : (uint32_t)sizeof full;
  memcpy((char *)info + sizeof(uint32_t), (char *)&full + sizeof(uint32_t),
         size - sizeof(uint32_t));
  return NULL;
}

hodu_status hodu_plugin_load(const char *id) {
  if (!id)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "plugin id is NULL");
  lock_registry();
  discover_locked();
  plugin *p = find_locked(id);
  hodu_status status = NULL;
  if (p) {
    status = ensure_loaded_locked(p);
  } else {
    /* A refused plugin of that id says why. */
    for (int32_t i = 0; i < num_plugins && !status; ++i)
      if (strcmp(plugins[i].id, id) == 0)
        status = hodu_make_status(HODU_INCOMPATIBLE,
                                  "plugin '%s' (%s) is refused: %s", id,
                                  plugins[i].dir, plugins[i].problem);
    if (!status)
      status = hodu_make_status(HODU_NOT_FOUND,
                                "no plugin '%s' (hodu-run --list-plugins "
                                "lists them)",
                                id);
  }
  pthread_mutex_unlock(&lock);
  return status;
}

hodu_status hodu_plugin_find_device(const char *name,
                                    const hodu_device_plugin_v1 **out,
                                    char *plugin_id, size_t id_size) {
  lock_registry();
  discover_locked();
  hodu_status status = NULL;
  for (int32_t i = 0; i < num_plugins; ++i) {
    plugin *p = &plugins[i];
    if (p->state == STATE_REFUSED || !(p->kinds & HODU_PLUGIN_DEVICE) ||
        !hodu_plugin_list_has(p->devices, name))
      continue;
    status = ensure_loaded_locked(p);
    if (!status) {
      *out = p->device;
      snprintf(plugin_id, id_size, "%s", p->id);
    }
    pthread_mutex_unlock(&lock);
    return status;
  }
  /* A refused plugin that would have provided it says why. */
  for (int32_t i = 0; i < num_plugins && !status; ++i)
    if (plugins[i].state == STATE_REFUSED &&
        hodu_plugin_list_has(plugins[i].devices, name))
      status = hodu_make_status(HODU_NO_DEVICE,
                                "no device '%s': plugin '%s' (%s) would "
                                "provide it but is refused: %s",
                                name, plugins[i].id, plugins[i].dir,
                                plugins[i].problem);
  if (!status)
    status = hodu_make_status(HODU_NO_DEVICE,
                              "no device '%s': no device plugin provides it "
                              "(hodu-run --list-plugins lists them; "
                              "HODU_PLUGIN_PATH or --plugin adds one)",
                              name);
  pthread_mutex_unlock(&lock);
  return status;
}

hodu_status hodu_plugin_load_toolchain(const char *id, const char *toolchain,
                                       const hodu_toolchain_plugin_v1 **out) {
  if (!id || !toolchain || !out)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "an argument is NULL");
  *out = NULL;
  lock_registry();
  discover_locked();
  plugin *p = find_locked(id);
  hodu_status status = NULL;
  if (!p)
    status = hodu_make_status(HODU_NOT_FOUND,
                              "no plugin '%s' (or it is refused)", id);
  else if (!(p->kinds & (HODU_PLUGIN_IMPORTER | HODU_PLUGIN_TARGET)))
    status = hodu_make_status(HODU_INVALID_ARGUMENT,
                              "plugin '%s' is not an importer or target", id);
  else
    status = ensure_loaded_toolchain(p, toolchain);
  if (!status)
    *out = p->toolchain;
  pthread_mutex_unlock(&lock);
  return status;
}

hodu_status hodu_plugin_device_formats(const char *name,
                                       const uint32_t **formats,
                                       const char **plugin_id) {
  if (!name || !formats || !plugin_id)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "an argument is NULL");
  const hodu_device_plugin_v1 *table = NULL;
  char id[72];
  hodu_status status = hodu_plugin_find_device(name, &table, id, sizeof id);
  if (status)
    return status;
  *formats = table->code_formats;
  lock_registry();
  plugin *p = find_locked(id);
  *plugin_id = p ? p->id : "";
  pthread_mutex_unlock(&lock);
  return NULL;
}

hodu_status hodu_plugin_find_engine(const char *name, hodu_engine_ref *out) {
  lock_registry();
  discover_locked();
  hodu_status status = NULL;
  for (int32_t i = 0; i < num_plugins; ++i) {
    plugin *p = &plugins[i];
    if (p->state == STATE_REFUSED || !(p->kinds & HODU_PLUGIN_ENGINE) ||
        !hodu_plugin_list_has(p->engines, name))
      continue;
    status = ensure_loaded_locked(p);
    if (!status) {
      out->plugin_id = p->id;
      out->table = p->engine;
    }
    pthread_mutex_unlock(&lock);
    return status;
  }
  char names[512] = "";
  for (int32_t i = 0; i < num_plugins; ++i)
    if (plugins[i].state != STATE_REFUSED && *plugins[i].engines &&
        strlen(names) + strlen(plugins[i].engines) + 3 < sizeof names) {
      if (*names)
        strcat(names, ", ");
      strcat(names, plugins[i].engines);
    }
  status = hodu_make_status(
      HODU_NOT_FOUND, "no engine '%s': %s%s (hodu-run --list-plugins)", name,
      *names ? "the engines are "
             : "no engine "
               "plugin is "
               "installed",
      names);
  pthread_mutex_unlock(&lock);
  return status;
}

size_t hodu_plugin_read_head(const char *path, uint8_t *head) {
  size_t size = 0;
  FILE *file = fopen(path, "rb");
  if (file) {
    size = fread(head, 1, HODU_ENGINE_PROBE_BYTES, file);
    fclose(file);
  }
  return size;
}

/* The loaded plugin of `kind` (engine or compiler) whose probe scores
 * `path` highest, among those named `name` (NULL: those whose manifest
 * lists the file's extension). *found is 0 (status NULL) when no manifest
 * qualifies; a plugin refused on loading is the status when no other can
 * take the file. */
static hodu_status best_for_file(uint32_t kind, const char *name,
                                 const char *path, plugin **best, int *found) {
  *found = 0;
  *best = NULL;
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash ? slash : path, '.');
  if (!name && !dot)
    return NULL;
  uint8_t head[HODU_ENGINE_PROBE_BYTES];
  size_t head_size = hodu_plugin_read_head(path, head);
  lock_registry();
  discover_locked();
  hodu_status first_error = NULL;
  int32_t best_score = 0;
  for (int32_t i = 0; i < num_plugins; ++i) {
    plugin *p = &plugins[i];
    if (p->state == STATE_REFUSED || !(p->kinds & kind) ||
        !(name ? hodu_plugin_list_has(p->engines, name)
               : hodu_plugin_list_has(p->formats, dot)))
      continue;
    *found = 1;
    hodu_status status = ensure_loaded_locked(p);
    if (status) {
      if (!first_error)
        first_error = status;
      else
        hodu_status_free(status);
      continue;
    }
    int32_t score = kind == HODU_PLUGIN_ENGINE
                        ? p->engine->probe(path, head, head_size)
                    : kind == HODU_PLUGIN_COMPILER
                        ? p->compiler->probe(path, head, head_size)
                        : p->format->probe(path, head, head_size);
    if (score > best_score) {
      best_score = score;
      *best = p;
    }
  }
  pthread_mutex_unlock(&lock);
  if (*best) {
    hodu_status_free(first_error);
    return NULL;
  }
  if (first_error)
    return first_error;
  if (*found)
    return hodu_make_status(
        HODU_INVALID_ARTIFACT,
        "'%s' is not a Hodu artifact, and no %s plugin %s '%s'%s can %s it",
        path,
        kind == HODU_PLUGIN_ENGINE     ? "engine"
        : kind == HODU_PLUGIN_COMPILER ? "compiler"
                                       : "format",
        name ? "named" : "for", name ? name : dot, name ? "" : " files",
        kind == HODU_PLUGIN_ENGINE     ? "load"
        : kind == HODU_PLUGIN_COMPILER ? "compile"
                                       : "convert");
  return NULL;
}

hodu_status hodu_plugin_engine_for_file(const char *path, hodu_engine_ref *out,
                                        int *found) {
  plugin *p;
  hodu_status status = best_for_file(HODU_PLUGIN_ENGINE, NULL, path, &p, found);
  if (p) {
    out->plugin_id = p->id;
    out->table = p->engine;
  }
  return status;
}

void hodu_plugin_engine_key(const char *engine, const char *path, char *out,
                            size_t size) {
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash ? slash : path, '.');
  out[0] = '\0';
  lock_registry();
  discover_locked();
  for (int32_t i = 0; i < num_plugins; ++i) {
    const plugin *p = &plugins[i];
    if (p->state == STATE_REFUSED || !(p->kinds & HODU_PLUGIN_ENGINE))
      continue;
    int claims = engine ? hodu_plugin_list_has(p->engines, engine)
                        : dot && hodu_plugin_list_has(p->formats, dot);
    if (!claims)
      continue;
    size_t used = strlen(out);
    snprintf(out + used, size - used, "%s%s@%s", used ? "+" : "", p->id,
             p->version);
    if (engine)
      break;
  }
  pthread_mutex_unlock(&lock);
}

void hodu_plugin_device_key(const hodu_plan *plan, char *out, size_t size) {
  lock_registry();
  discover_locked();
  for (uint32_t d = 0; d < plan->num_devices; ++d) {
    if (plan->devices[d].kind != HODU_DEVICE_PLUGIN)
      continue;
    const char *name = plan->strings + plan->devices[d].name;
    const char *who = "missing";
    char version[160] = "";
    for (int32_t i = 0; i < num_plugins; ++i) {
      const plugin *p = &plugins[i];
      if (p->state != STATE_REFUSED && (p->kinds & HODU_PLUGIN_DEVICE) &&
          hodu_plugin_list_has(p->devices, name)) {
        snprintf(version, sizeof version, "%s@%s", p->id, p->version);
        who = version;
        break;
      }
    }
    size_t used = strlen(out);
    snprintf(out + used, size - used, "%sdevice %s=%s", used ? "+" : "", name,
             who);
  }
  pthread_mutex_unlock(&lock);
}

hodu_status hodu_plugin_find_compiler(const char *name, const char *path,
                                      hodu_compiler_ref *out, int *found) {
  plugin *p;
  hodu_status status =
      best_for_file(HODU_PLUGIN_COMPILER, name, path, &p, found);
  if (p) {
    out->plugin_id = p->id;
    out->plugin_version = p->version;
    out->table = p->compiler;
  }
  return status;
}

hodu_status hodu_plugin_convert(const char *path, void **bytes, size_t *size,
                                const char **format, const char **plugin_id) {
  if (!path || !bytes || !size || !format)
    return hodu_make_status(HODU_INVALID_ARGUMENT, "a NULL argument");
  *bytes = NULL;
  *size = 0;
  *format = NULL;
  if (plugin_id)
    *plugin_id = NULL;
  plugin *p;
  int found = 0;
  hodu_status status =
      best_for_file(HODU_PLUGIN_FORMAT, NULL, path, &p, &found);
  if (status)
    return status;
  if (!found)
    return hodu_make_status(HODU_NOT_FOUND, "no format plugin claims '%s'",
                            path);
  uint64_t length = 0;
  const char *kind = NULL;
  status = p->format->convert(path, bytes, &length, &kind);
  if (!status && (!*bytes || !length || !kind ||
                  (strcmp(kind, ".onnx") != 0 && strcmp(kind, ".hdss") != 0 &&
                   strcmp(kind, ".mlir") != 0)))
    status = hodu_make_status(HODU_INVALID_ARTIFACT,
                              "format plugin '%s' converted '%s' into %s",
                              p->id, path,
                              !*bytes || !length ? "nothing"
                                                 : "an unknown format (not "
                                                   ".onnx, .hdss or .mlir)");
  if (status) {
    free(*bytes);
    *bytes = NULL;
    return status;
  }
  *size = (size_t)length;
  *format = kind;
  if (plugin_id)
    *plugin_id = p->id;
  return NULL;
}

void hodu_plugin_free(void *bytes) { free(bytes); }

const char *hodu_plugin_listing(void) {
  static char *text;
  lock_registry();
  discover_locked();
  free(text);
  text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  if (!out) {
    pthread_mutex_unlock(&lock);
    return "out of memory\n";
  }
  /* libhodurt's own devices: the same table, compiled in. */
  fprintf(out, "builtin devices (libhodurt %s, device table v1):",
          HODU_RUNTIME_VERSION);
  for (int32_t k = 0; k < HODU_DEVICE_METAL; ++k) {
    const hodu_device_plugin_v1 *t = hodu_builtin_device_table(k);
    fprintf(out, " %s (", t->name);
    for (int f = 0; t->code_formats[f]; ++f)
      fprintf(out, "%s%s", f ? ", " : "",
              hodu_code_format_name(t->code_formats[f]));
    fprintf(out, ")%s", k + 1 < HODU_DEVICE_METAL ? "," : "\n");
  }
  if (num_plugins == 0)
    fprintf(out, "no plugins found (searched HODU_PLUGIN_PATH, "
                 "~/.local/share/hodu/plugins, ~/.hodu/plugins and "
                 "lib/hodu/plugins of the install prefix)\n");
  else
    fprintf(out, "%-20s %-10s %-10s %-10s %-16s %s\n", "ID", "VERSION", "KINDS",
            "STATE", "SOURCE", "DIRECTORY");
  for (int32_t i = 0; i < num_plugins; ++i) {
    const plugin *p = &plugins[i];
    char kinds[64] = "";
    for (int k = 0; k < NUM_KINDS; ++k)
      if (p->kinds & (1u << k))
        snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s",
                 *kinds ? "," : "", hodu_plugin_kind_names[k]);
    fprintf(out, "%-20s %-10s %-10s %-10s %-16s %s\n", p->id, p->version,
            *kinds ? kinds : "-", state_names[p->state], p->source, p->dir);
    if (*p->engines || *p->formats)
      fprintf(out, "    engines: %s; formats: %s\n",
              *p->engines ? p->engines : "-", *p->formats ? p->formats : "-");
    if (*p->devices)
      fprintf(out, "    devices: %s\n", p->devices);
    if (*p->targets)
      fprintf(out, "    targets: %s\n", p->targets);
    if (p->problem)
      fprintf(out, "    refused: %s\n", p->problem);
  }
  fclose(out);
  pthread_mutex_unlock(&lock);
  return text ? text : "out of memory\n";
}
