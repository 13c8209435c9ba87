/*===- compile.c - compiling model files on load, with a cache -------------===*
 *
 * hodu_model_load("model.onnx") with a compiler plugin present: the plugin
 * compiles the file to a shared library (bytes in memory), which is loaded
 * from memory and kept in the compile cache, so the next load of the same
 * model with the same flags, compiler and CPU is a cache hit that loads in
 * milliseconds (seed 000's `hodu run`).
 *
 * The cache is $HODU_COMPILE_CACHE ("off": none), else
 * $XDG_CACHE_HOME/hodu/compiled, else ~/.cache/hodu/compiled: one file per
 * key, named by the SHA-256 of the key, written to a temporary name and
 * renamed into place (readers never see half a file; concurrent writers of
 * one key write the same bytes). The key is the model file's SHA-256, the
 * compiler plugin's id and version, its toolchain string, the flags and the
 * CPU's model name: anything else is another artifact.
 *
 *===----------------------------------------------------------------------===*/
#include "plugin.h"
#include "session.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void hodu_cpu_name(char *out, size_t size) {
  snprintf(out, size, "unknown");
  FILE *file = fopen("/proc/cpuinfo", "r");
  if (!file)
    return;
  char line[512];
  while (fgets(line, sizeof line, file)) {
    if (strncmp(line, "model name", 10) == 0 ||
        strncmp(line, "Model", 5) == 0) {
      const char *colon = strchr(line, ':');
      if (colon) {
        snprintf(out, size, "%s", colon + (colon[1] == ' ' ? 2 : 1));
        out[strcspn(out, "\n")] = '\0';
        break;
      }
    }
  }
  fclose(file);
}

/* The cache directory (made, 0700), or 0 when there is none. */
static int cache_dir(char *out, size_t size) {
  const char *env = getenv("HODU_COMPILE_CACHE");
  if (env && strcmp(env, "off") == 0)
    return 0;
  if (env && env[0] == '/') {
    snprintf(out, size, "%s", env);
  } else {
    const char *cache = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (cache && cache[0] == '/')
      snprintf(out, size, "%s/hodu/compiled", cache);
    else if (home && home[0] == '/')
      snprintf(out, size, "%s/.cache/hodu/compiled", home);
    else
      return 0;
  }
  /* mkdir -p; the last level private to the user. */
  for (char *p = out + 1; *p; ++p)
    if (*p == '/') {
      *p = '\0';
      mkdir(out, 0755);
      *p = '/';
    }
  mkdir(out, 0700);
  struct stat info;
  return stat(out, &info) == 0 && S_ISDIR(info.st_mode);
}

/* The cache file of this compile: DIR/<sha256 of the key>.so. */
static int cache_path(const hodu_compiler_ref *compiler, const char *path,
                      const hodu_load_options *options, char *out,
                      size_t size) {
  char dir[4096];
  char file_sha[65];
  if (!cache_dir(dir, sizeof dir) || !hodu_sha256_file(path, file_sha))
    return 0;
  hodu_sha256 key;
  hodu_sha256_init(&key);
  char cpu[256];
  hodu_cpu_name(cpu, sizeof cpu);
  const char *parts[] = {"hodu compile cache 1", file_sha, compiler->plugin_id,
                         compiler->plugin_version,
                         compiler->table->toolchain(), cpu};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i) {
    hodu_sha256_update(&key, parts[i], strlen(parts[i]));
    hodu_sha256_update(&key, "\n", 1);
  }
  for (int32_t i = 0; options && i < options->num_compile_flags; ++i) {
    hodu_sha256_update(&key, "flag ", 5);
    hodu_sha256_update(&key, options->compile_flags[i],
                       strlen(options->compile_flags[i]));
    hodu_sha256_update(&key, "\n", 1);
  }
  char hex[65];
  hodu_sha256_hex(&key, hex);
  int n = snprintf(out, size, "%s/%s.so", dir, hex);
  return n > 0 && (size_t)n < size;
}

/* Writes `bytes` to `path` through a temporary name in its directory. */
static void store(const char *path, const void *bytes, uint64_t size) {
  char temporary[4200];
  snprintf(temporary, sizeof temporary, "%s.%ld.tmp", path, (long)getpid());
  int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return;
  const uint8_t *p = bytes;
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, p + done, (size_t)(size - done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += (uint64_t)n;
  }
  int ok = done == size && fsync(fd) == 0;
  ok &= close(fd) == 0;
  if (!ok || rename(temporary, path) != 0)
    unlink(temporary);
}

static char *source_text(const hodu_compiler_ref *compiler, const char *path,
                         const char *cached, int hit) {
  const char *format = cached ? "compiled by %s %s from '%s' (%s '%s')"
                              : "compiled by %s %s from '%s'%s%s";
  int n = snprintf(NULL, 0, format, compiler->table->name,
                   compiler->plugin_version, path,
                   cached ? (hit ? "cache hit:" : "cached as") : "",
                   cached ? cached : "");
  char *text = n > 0 ? malloc((size_t)n + 1) : NULL;
  if (text)
    snprintf(text, (size_t)n + 1, format, compiler->table->name,
             compiler->plugin_version, path,
             cached ? (hit ? "cache hit:" : "cached as") : "",
             cached ? cached : "");
  return text;
}

hodu_status hodu_compile_and_load(const hodu_compiler_ref *compiler,
                                  const char *path,
                                  const hodu_load_options *options,
                                  hodu_model **out) {
  *out = NULL;
  /* What the compiled artifact is loaded with: the caller's options minus
   * the engine (it named the compiler) and the flags. */
  hodu_load_options load;
  hodu_load_options_init(&load);
  if (options) {
    load.device_kind = options->device_kind;
    load.device_ordinal = options->device_ordinal;
  }
  if (load.device_kind >= 0 && load.device_kind != HODU_DEVICE_CPU)
    return hodu_make_status(HODU_INCOMPATIBLE,
                            "'%s': compiling on load makes a CPU library; "
                            "for %s, compile a bundle with hoduc --device=%s",
                            path,
                            hodu_device_kind_name(
                                (hodu_device_kind)load.device_kind)
                                ? hodu_device_kind_name(
                                      (hodu_device_kind)load.device_kind)
                                : "another device",
                            hodu_device_kind_name(
                                (hodu_device_kind)load.device_kind)
                                ? hodu_device_kind_name(
                                      (hodu_device_kind)load.device_kind)
                                : "...");
  int32_t num_flags = options && options->struct_size >=
                                     offsetof(hodu_load_options,
                                              num_compile_flags) +
                                         sizeof(int32_t)
                          ? options->num_compile_flags
                          : 0;
  if (num_flags < 0 || (num_flags && !options->compile_flags))
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "load options: %d compile flags but no array",
                            (int)num_flags);

  char cached[4400];
  int cacheable = cache_path(compiler, path, num_flags ? options : NULL,
                             cached, sizeof cached);
  if (cacheable && access(cached, R_OK) == 0) {
    hodu_status status = hodu_model_load_with_options(cached, &load, out);
    if (!status) {
      (*out)->source = source_text(compiler, path, cached, 1);
      return NULL;
    }
    /* A damaged cache file is compiled again. */
    hodu_status_free(status);
    unlink(cached);
  }
  hodu_compile_request request = {sizeof request, path,
                                  num_flags ? options->compile_flags : NULL,
                                  num_flags};
  void *bytes = NULL;
  uint64_t size = 0;
  hodu_status status = compiler->table->compile(&request, &bytes, &size);
  if (!status && (!bytes || size == 0))
    status = hodu_make_status(HODU_RUN_FAILED,
                              "compiler '%s' returned no artifact for '%s'",
                              compiler->table->name, path);
  if (!status) {
    if (cacheable)
      store(cached, bytes, size);
    status = hodu_model_load_memory(bytes, (size_t)size, path, &load, out);
  }
  free(bytes); /* host_alloc is posix_memalign */
  if (!status)
    (*out)->source = source_text(compiler, path, cacheable ? cached : NULL, 0);
  return status;
}

const char *hodu_model_source(const hodu_model *model) {
  return model ? model->source : NULL;
}
