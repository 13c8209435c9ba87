//===- ToolchainPlugins.h - importer and target plugins in hoduc -*- C++
//-*-===//
//
// Toolchain-tier plugins (hodu/plugin.h: HODU_PLUGIN_IMPORTER, _TARGET) are
// C++ libraries that register importers and targets in hoduc's component
// registry. hoduc's own importers and targets register through the same
// table type (hodu_toolchain_plugin_v1), by the same function. Plugins are
// found by libhodurt's registry (manifests, the checks of docs/plugins.md)
// and loaded only when a model's extension or a --device names what one
// claims, so a broken plugin never touches other compiles.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_DRIVER_TOOLCHAINPLUGINS_H
#define HODU_DRIVER_TOOLCHAINPLUGINS_H

#include <string>
#include <vector>

struct hodu_toolchain_plugin_v1;

namespace hodu {

/// Calls `table`'s register_components with the component registry
/// (`who` names it in `error`). False when the registration fails. A
/// plugin's table is checked as libhodurt loads it.
bool registerToolchainTable(const hodu_toolchain_plugin_v1 &table,
                            const std::string &who, std::string &error);

/// Loads the importer and target plugins whose manifests claim `extension`
/// (".toylin", in "formats") or `target` (in "targets"), or every one when
/// both are empty, and registers their components (each plugin once per
/// process). Returns why each claiming plugin that could not be used was
/// refused ("plugin 'x' (dir): ...").
std::vector<std::string> loadToolchainPlugins(const std::string &extension,
                                              const std::string &target);

} // namespace hodu

#endif // HODU_DRIVER_TOOLCHAINPLUGINS_H
