//===- Plugins.cpp - hodu-run's plugin options ----------------------------===//
//
// --plugin and --no-plugins set up libhodurt's plugin search before
// anything loads; --list-plugins, --plugin-info and --plugin-check show what
// it found (seed 000's `plugin list` and `plugin info`). --plugin-check
// loads the plugin in a child process, so a library that crashes or hangs
// while it is checked is reported and this process goes on.
//
//===----------------------------------------------------------------------===//
#include "HoduRun.h"

#include "hodu/plugin.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace hodu_run {
namespace {

std::string kindNames(uint32_t kinds) {
  static const char *const names[] = {"importer", "target",   "device",
                                      "engine",   "compiler", "format"};
  std::string text;
  for (int i = 0; i < 6; ++i)
    if (kinds & (1u << i))
      text += (text.empty() ? "" : ",") + std::string(names[i]);
  return text.empty() ? "-" : text;
}

bool findPlugin(const std::string &id, int32_t &index,
                hodu_plugin_info &info) {
  for (int32_t i = 0; i < hodu_plugin_count(); ++i) {
    info.struct_size = sizeof info;
    hodu_status status = hodu_plugin_get_info(i, &info);
    if (status) {
      hodu_status_free(status);
      continue;
    }
    if (id == info.id) {
      index = i;
      // A refused duplicate comes after the plugin of that id in use.
      if (std::strcmp(info.state, "refused") != 0)
        return true;
    }
  }
  if (index < 0)
    return false;
  info.struct_size = sizeof info;
  hodu_status_free(hodu_plugin_get_info(index, &info));
  return true;
}

int listPlugins() {
  std::fputs(hodu_plugin_listing(), stdout);
  return ExitOk;
}

int pluginCheck(const std::string &id, bool quiet);

int pluginInfo(const std::string &id) {
  int32_t index = -1;
  hodu_plugin_info info;
  if (!findPlugin(id, index, info))
    return error("no plugin '" + id + "' (hodu-run --list-plugins lists "
                 "them)");
  std::printf("id:           %s\n", info.id);
  std::printf("version:      %s\n", info.version);
  std::printf("description:  %s\n", info.description);
  std::printf("kinds:        %s\n", kindNames(info.kinds).c_str());
  std::printf("plugin ABI:   %u (this host: %u)\n", info.abi_version,
              HODU_PLUGIN_ABI_VERSION);
  std::printf("engines:      %s\n", *info.engines ? info.engines : "-");
  std::printf("formats:      %s\n", *info.formats ? info.formats : "-");
  std::printf("capabilities: %s\n",
              *info.capabilities ? info.capabilities : "-");
  if (info.devices && *info.devices)
    std::printf("devices:      %s\n", info.devices);
  std::printf("directory:    %s (%s)\n", info.dir, info.source);
  std::printf("library:      %s\n", *info.library ? info.library : "-");
  std::fflush(stdout);
  // Loading checks the library against its manifest and this host; in a
  // child, so that a library that crashes cannot take this process along.
  if (int result = pluginCheck(id, true))
    return result;
  std::printf("state:        loaded and accepted\n");
  return ExitOk;
}

/// Loads plugin `id` in a child process, with a time limit.
int pluginCheck(const std::string &id, bool quiet) {
  const unsigned limit = 60;
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t child = fork();
  if (child < 0)
    return error(std::string("cannot fork to check plugin '") + id +
                 "': " + std::strerror(errno));
  if (child == 0) {
    alarm(limit);
    hodu_status status = hodu_plugin_load(id.c_str());
    if (status) {
      std::fprintf(stderr, "hodu-run: error: %s\n",
                   hodu_status_message(status));
      std::fflush(stderr);
      _exit(ExitError);
    }
    _exit(ExitOk);
  }
  int wstatus = 0;
  while (waitpid(child, &wstatus, 0) < 0)
    if (errno != EINTR)
      return error("waitpid failed while checking plugin '" + id + "'");
  if (WIFSIGNALED(wstatus)) {
    int signal = WTERMSIG(wstatus);
    if (signal == SIGALRM)
      return error("plugin '" + id + "' did not finish loading within " +
                   std::to_string(limit) + " s: it is not usable");
    return error("plugin '" + id + "' crashed while it was loaded (signal " +
                 std::to_string(signal) + ", " + strsignal(signal) +
                 "): it is not usable");
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != ExitOk)
    return ExitError; // the child printed why
  if (!quiet)
    std::printf("plugin '%s': loaded and accepted\n", id.c_str());
  return ExitOk;
}

} // namespace

bool setUpPlugins(const Options &options, std::string &message) {
  if (options.noPlugins)
    setenv("HODU_NO_PLUGINS", "1", 1);
  for (const std::string &path : options.pluginPaths)
    if (hodu_status status = hodu_plugin_add_path(path.c_str())) {
      message = "--plugin: " + consume(status);
      return false;
    }
  return true;
}

int pluginCommands(const Options &options) {
  if (options.listPlugins)
    return listPlugins();
  if (!options.pluginInfo.empty())
    return pluginInfo(options.pluginInfo);
  if (!options.pluginCheck.empty())
    return pluginCheck(options.pluginCheck, false);
  return -1;
}

} // namespace hodu_run
