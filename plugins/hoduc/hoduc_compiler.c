/*===- hoduc_compiler.c - hoduc as a compiler plugin -----------------------===*
 *
 * hodu-compiler-hoduc.so: a compiler plugin (hodu/plugin.h) that turns a
 * model file (.onnx, .hdss, .mlir) into a shared library for this machine,
 * so that libhodurt loads "model.onnx" by compiling it (seed 000's `hodu
 * run`). It runs the hoduc executable in a child process: the compiler's
 * LLVM and MLIR stay out of the process that runs the model, a compiler
 * crash or hang is an error rather than the caller's end, and the plugin is
 * plain C. hoduc writes into a private temporary directory (mkdtemp, 0700)
 * that is removed before compile returns; the caller gets the bytes.
 *
 * hoduc is found by the plugin option "hoduc" (HODU_PLUGIN_HODUC_HODUC),
 * else beside the plugin in the install layout (<prefix>/bin/hoduc for
 * <prefix>/lib/hodu/plugins/hoduc) or the build tree's (build/bin/hoduc for
 * build/runtime/lib/hodu/plugins/hoduc), else HODU_HODUC_DEFAULT.
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE

#include "hodu/plugin.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PLUGIN_ID "hoduc"
#define EXPORT __attribute__((visibility("default")))
/* What hoduc may print before the plugin stops reading (its diagnostics). */
#define MAX_MESSAGE 8192

static const hodu_host_api *host;

static hodu_status fail(hodu_status_code code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static hodu_status fail(hodu_status_code code, const char *format, ...) {
  char text[MAX_MESSAGE + 512];
  int n = snprintf(text, sizeof text, "hoduc compiler: ");
  va_list args;
  va_start(args, format);
  vsnprintf(text + n, sizeof text - (size_t)n, format, args);
  va_end(args);
  return host->make_status(code, text);
}

static int executable(const char *path) { return access(path, X_OK) == 0; }

/* The hoduc to run, or NULL (with the places tried in `tried`). */
static const char *find_hoduc(char *found, size_t size, char *tried,
                              size_t tried_size) {
  tried[0] = '\0';
  const char *option = host->get_option(PLUGIN_ID, "hoduc");
  if (option) {
    snprintf(found, size, "%s", option);
    snprintf(tried, tried_size, "'%s' (the plugin option 'hoduc')", option);
    return executable(found) ? found : NULL;
  }
  const char *dir = host->plugin_dir(PLUGIN_ID);
  /* <prefix>/lib/hodu/plugins/hoduc (also lib64, lib/<multiarch>) and
   * build/runtime/lib/hodu/plugins/hoduc. */
  static const char *const relative[] = {"../../../../bin/hoduc",
                                         "../../../../../bin/hoduc"};
  for (int i = 0; dir && i < 2; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, relative[i]);
    char *real = realpath(path, NULL);
    size_t used = strlen(tried);
    snprintf(tried + used, tried_size - used, "%s'%s'", used ? ", " : "",
             real ? real : path);
    if (real && executable(real)) {
      snprintf(found, size, "%s", real);
      free(real);
      return found;
    }
    free(real);
  }
#ifdef HODU_HODUC_DEFAULT
  {
    size_t used = strlen(tried);
    snprintf(tried + used, tried_size - used, "%s'%s'", used ? ", " : "",
             HODU_HODUC_DEFAULT);
    if (executable(HODU_HODUC_DEFAULT)) {
      snprintf(found, size, "%s", HODU_HODUC_DEFAULT);
      return found;
    }
  }
#endif
  return NULL;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs argv with stdout and stderr into `out` (at most MAX_MESSAGE bytes
 * kept), killing it after `timeout_s`. Returns the wait status, or -1 when
 * it could not be started; *timed_out is set when it was killed. */
static int run_child(char *const *argv, char *out, size_t out_size,
                     int timeout_s, int *timed_out) {
  int fds[2];
  *timed_out = 0;
  out[0] = '\0';
  if (pipe2(fds, O_CLOEXEC) != 0)
    return -1;
  pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (child == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
      dup2(null, STDIN_FILENO);
    execv(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  size_t used = 0;
  double deadline = now_s() + timeout_s;
  for (;;) {
    double left = deadline - now_s();
    if (left <= 0) {
      *timed_out = 1;
      kill(child, SIGKILL);
      break;
    }
    struct pollfd wait = {fds[0], POLLIN, 0};
    int ready = poll(&wait, 1, (int)(left * 1000) + 1);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      continue;
    char buffer[4096];
    ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    size_t keep = used + (size_t)n < out_size - 1 ? (size_t)n
                                                  : out_size - 1 - used;
    memcpy(out + used, buffer, keep);
    used += keep;
    out[used] = '\0';
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR)
    ;
  return status;
}

/* hoduc's first error line(s): what it says after "error: ". */
static void trim(char *text) {
  size_t n = strlen(text);
  while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
    text[--n] = '\0';
}

/* The flags hoduc takes here: the ones that change the code for this
 * machine or pin the model's shapes. Output and target flags are the
 * plugin's to set. */
static int allowed_flag(const char *flag) {
  static const char *const prefixes[] = {
      "-O0", "-O1", "-O2", "-O3", "-mcpu=", "-mattr=", "--input-shape=",
      "--dim=", "--winograd=", "--fp-contract=", "--freeze-input=",
      "--sequence-length=", "--sequence-capacity=", "--max-tensor-elements=",
      "--index-checks=", "--precision="};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; ++i) {
    size_t n = strlen(prefixes[i]);
    if (strncmp(flag, prefixes[i], n) == 0 &&
        (prefixes[i][n - 1] == '=' || flag[n] == '\0'))
      return 1;
  }
  return 0;
}

static char toolchain_text[512];
static pthread_once_t toolchain_once = PTHREAD_ONCE_INIT;

static void read_toolchain(void) {
  char hoduc[4096], tried[8192];
  snprintf(toolchain_text, sizeof toolchain_text, "hoduc (not found)");
  if (!find_hoduc(hoduc, sizeof hoduc, tried, sizeof tried))
    return;
  char *argv[] = {hoduc, "--version", NULL};
  char out[2048];
  int timed_out;
  int status = run_child(argv, out, sizeof out, 30, &timed_out);
  if (status < 0 || timed_out || !WIFEXITED(status) || WEXITSTATUS(status))
    return;
  /* "hoduc (Hodu) 0.1.0, built with LLVM 22.1.x", and where it lives (a
   * rebuilt hoduc in another place is another compiler). */
  trim(out);
  char *newline = strchr(out, '\n');
  if (newline)
    *newline = '\0';
  struct stat info;
  long long stamp = stat(hoduc, &info) == 0 ? (long long)info.st_mtime : 0;
  snprintf(toolchain_text, sizeof toolchain_text, "%s; %s; %lld", out, hoduc,
           stamp);
}

static const char *toolchain(void) {
  pthread_once(&toolchain_once, read_toolchain);
  return toolchain_text;
}

static int32_t probe(const char *path, const uint8_t *head, size_t size) {
  (void)head;
  (void)size;
  const char *dot = strrchr(path, '.');
  if (!dot || strchr(dot, '/'))
    return 0;
  if (strcasecmp(dot, ".onnx") == 0 || strcasecmp(dot, ".hdss") == 0 ||
      strcasecmp(dot, ".mlir") == 0)
    return 80; /* compiled code before an engine (an engine probes 60) */
  return 0;
}

/* Removes the temporary directory and what hoduc left in it. */
static void remove_dir(const char *dir) {
  char path[4200];
  static const char *const names[] = {"model.so", "model.h"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

static hodu_status compile(const hodu_compile_request *request, void **bytes,
                           uint64_t *size) {
  *bytes = NULL;
  *size = 0;
  if (!request || !request->path || request->num_flags < 0 ||
      (request->num_flags && !request->flags))
    return fail(HODU_INVALID_ARGUMENT, "malformed compile request");
  for (int32_t i = 0; i < request->num_flags; ++i)
    if (!request->flags[i] || !allowed_flag(request->flags[i]))
      return fail(HODU_INVALID_ARGUMENT,
                  "flag '%s' is not one the plugin passes to hoduc (-O0..-O3, "
                  "-mcpu=, -mattr=, --input-shape=, --dim=, --winograd=, "
                  "--fp-contract=, --freeze-input=, --sequence-length=, "
                  "--sequence-capacity=, --max-tensor-elements=, "
                  "--index-checks=, --precision=)",
                  request->flags[i] ? request->flags[i] : "(null)");
  char hoduc[4096], tried[8192];
  if (!find_hoduc(hoduc, sizeof hoduc, tried, sizeof tried))
    return fail(HODU_NOT_FOUND,
                "no hoduc executable (tried %s); set the plugin option "
                "'hoduc' (HODU_PLUGIN_HODUC_HODUC)",
                tried);
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/hodu-compile-XXXXXX",
           tmp && tmp[0] == '/' ? tmp : "/tmp");
  if (!mkdtemp(dir))
    return fail(HODU_NOT_FOUND, "cannot make a temporary directory in '%s': "
                                "%s",
                tmp && tmp[0] == '/' ? tmp : "/tmp", strerror(errno));
  char output[4200];
  snprintf(output, sizeof output, "%s/model.so", dir);
  /* hoduc MODEL -o DIR/model.so FLAGS... (the symbol prefix is the model
   * file's stem, as on the command line) */
  size_t argc = 0;
  char **argv = calloc((size_t)request->num_flags + 8, sizeof *argv);
  if (!argv) {
    remove_dir(dir);
    return fail(HODU_OUT_OF_MEMORY, "out of memory");
  }
  argv[argc++] = hoduc;
  argv[argc++] = (char *)request->path;
  argv[argc++] = "-o";
  argv[argc++] = output;
  for (int32_t i = 0; i < request->num_flags; ++i)
    argv[argc++] = (char *)request->flags[i];
  argv[argc] = NULL;
  const char *limit = host->get_option(PLUGIN_ID, "timeout_s");
  int timeout_s = limit && atoi(limit) > 0 ? atoi(limit) : 1800;
  char *out = malloc(MAX_MESSAGE);
  int timed_out = 0;
  int status = out ? run_child(argv, out, MAX_MESSAGE, timeout_s, &timed_out)
                   : -1;
  free(argv);
  hodu_status result = NULL;
  if (!out) {
    result = fail(HODU_OUT_OF_MEMORY, "out of memory");
  } else if (status < 0) {
    result = fail(HODU_RUN_FAILED, "cannot start '%s'", hoduc);
  } else if (timed_out) {
    result = fail(HODU_RUN_FAILED, "'%s' did not finish within %d s", hoduc,
                  timeout_s);
  } else if (WIFSIGNALED(status)) {
    result = fail(HODU_RUN_FAILED, "'%s' died of signal %d (%s) compiling "
                                   "'%s'",
                  hoduc, WTERMSIG(status), strsignal(WTERMSIG(status)),
                  request->path);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    trim(out);
    result = fail(HODU_INVALID_ARTIFACT, "hoduc could not compile '%s': %s",
                  request->path, *out ? out : "(no message)");
  }
  free(out);
  FILE *file = result ? NULL : fopen(output, "rb");
  if (!result && !file)
    result = fail(HODU_RUN_FAILED, "hoduc wrote no '%s'", output);
  if (file) {
    struct stat info;
    if (fstat(fileno(file), &info) != 0 || info.st_size <= 0) {
      result = fail(HODU_RUN_FAILED, "hoduc wrote an empty '%s'", output);
    } else if (!(*bytes = host->alloc((uint64_t)info.st_size, 64))) {
      result = fail(HODU_OUT_OF_MEMORY, "out of memory for %lld bytes",
                    (long long)info.st_size);
    } else if (fread(*bytes, 1, (size_t)info.st_size, file) !=
               (size_t)info.st_size) {
      host->free(*bytes);
      *bytes = NULL;
      result = fail(HODU_RUN_FAILED, "cannot read '%s'", output);
    } else {
      *size = (uint64_t)info.st_size;
    }
    fclose(file);
  }
  remove_dir(dir);
  return result;
}

static const char *const extensions[] = {".onnx", ".hdss", ".mlir", NULL};

static const hodu_compiler_plugin_v1 compiler = {
    sizeof(hodu_compiler_plugin_v1), "hoduc", extensions, toolchain, probe,
    compile};

static const void *get_interface(uint32_t kind, uint32_t version) {
  return kind == HODU_PLUGIN_COMPILER && version == 1 ? &compiler : NULL;
}

static const hodu_plugin_header header = {
    sizeof(hodu_plugin_header),
    HODU_PLUGIN_ABI_VERSION,
    PLUGIN_ID,
    "1.0.0",
    "hoduc: compiles .onnx, .hdss and .mlir models for this machine",
    HODU_PLUGIN_COMPILER,
    0,
    NULL,
    get_interface,
    NULL};

EXPORT const hodu_plugin_header *
hodu_plugin_query(uint32_t max_abi_version, const hodu_host_api *api) {
  if (max_abi_version < 1 || !api ||
      api->struct_size < offsetof(hodu_host_api, plugin_dir) +
                             sizeof(api->plugin_dir))
    return NULL;
  host = api;
  return &header;
}
