//===- ToolchainPlugins.cpp - importer and target plugins in hoduc --------===//

#include "hodu/Driver/ToolchainPlugins.h"
#include "hodu/Registry/Registry.h"
#include "hodu/Registry/Toolchain.h"
#include "hodu/plugin.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <mutex>
#include <set>

using namespace hodu;

bool hodu::registerToolchainTable(const hodu_toolchain_plugin_v1 &table,
                                  const std::string &who, std::string &error) {
  // A plugin's table was checked as libhodurt loaded it
  // (hodu_plugin_load_toolchain); the built-in ones are hoduc's own.
  hodu_status status = table.register_components(&ComponentRegistry::get());
  if (!status)
    return true;
  error = who +
          ": registering its components failed: " + hodu_status_message(status);
  hodu_status_free(status);
  return false;
}

/// Whether the ", "-joined `list` holds `item` (case-insensitive).
static bool listHas(const char *list, llvm::StringRef item) {
  llvm::SmallVector<llvm::StringRef> items;
  llvm::StringRef(list ? list : "").split(items, ',');
  for (llvm::StringRef entry : items)
    if (entry.trim().equals_insensitive(item))
      return true;
  return false;
}

std::vector<std::string>
hodu::loadToolchainPlugins(const std::string &extension,
                           const std::string &target) {
  static std::mutex lock;
  static std::set<std::string> registered;
  std::lock_guard<std::mutex> guard(lock);
  std::vector<std::string> problems;
  for (int32_t i = 0, n = hodu_plugin_count(); i < n; ++i) {
    hodu_plugin_info info{};
    info.struct_size = sizeof info;
    if (hodu_status status = hodu_plugin_get_info(i, &info)) {
      hodu_status_free(status);
      continue;
    }
    if (!(info.kinds & (HODU_PLUGIN_IMPORTER | HODU_PLUGIN_TARGET)))
      continue;
    bool all = extension.empty() && target.empty();
    bool claims = all ||
                  (!extension.empty() && listHas(info.formats, extension)) ||
                  (!target.empty() && listHas(info.targets, target));
    if (!claims || registered.count(info.id))
      continue;
    std::string who =
        "plugin '" + std::string(info.id) + "' (" + info.dir + ")";
    if (info.problem) {
      problems.push_back(who + " is refused: " + info.problem);
      continue;
    }
    const hodu_toolchain_plugin_v1 *table = nullptr;
    if (hodu_status status =
            hodu_plugin_load_toolchain(info.id, HODU_TOOLCHAIN, &table)) {
      problems.push_back(hodu_status_message(status));
      hodu_status_free(status);
      continue;
    }
    registered.insert(info.id);
    std::string error;
    if (!registerToolchainTable(*table, who, error))
      problems.push_back(error);
  }
  return problems;
}
