//===- Registry.cpp - component registry ----------------------------------===//
#include "hodu/Registry/Registry.h"
#include "hodu/Target/Target.h"

#include <algorithm>
#include <cctype>

using namespace hodu;

ComponentRegistry &ComponentRegistry::get() {
  static ComponentRegistry registry;
  return registry;
}

template <typename T>
static const T *findByName(const std::vector<T> &items, const std::string &name) {
  for (const T &item : items)
    if (item.name == name)
      return &item;
  return nullptr;
}

bool ComponentRegistry::addImporter(Importer importer) {
  if (importer.name.empty() || findImporter(importer.name))
    return false;
  importers_.push_back(std::move(importer));
  return true;
}

bool ComponentRegistry::addTarget(std::unique_ptr<TargetBackend> target) {
  if (!target || target->name().empty() || findTarget(target->name()))
    return false;
  targets_.push_back(std::move(target));
  return true;
}

const Importer *ComponentRegistry::findImporter(const std::string &name) const {
  return findByName(importers_, name);
}

const TargetBackend *
ComponentRegistry::findTarget(const std::string &name) const {
  for (const auto &target : targets_)
    if (target->name() == name)
      return target.get();
  return nullptr;
}

static std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return s;
}

const Importer *
ComponentRegistry::findImporterForPath(const std::string &path) const {
  std::string p = lower(path);
  for (const Importer &importer : importers_)
    for (const std::string &ext : importer.extensions)
      if (p.size() > ext.size() &&
          p.compare(p.size() - ext.size(), ext.size(), lower(ext)) == 0)
        return &importer;
  return nullptr;
}
