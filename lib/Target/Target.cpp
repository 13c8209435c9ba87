//===- Target.cpp - target back ends --------------------------------------===//
#include "hodu/Target/Target.h"
#include "hodu/Support/Output.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace hodu;

TargetBackend::~TargetBackend() = default;

std::optional<ArtifactKind>
TargetBackend::findArtifactKind(llvm::StringRef name) const {
  for (ArtifactKind &kind : artifactKinds())
    if (kind.name == name || llvm::is_contained(kind.aliases, name))
      return kind;
  return std::nullopt;
}

std::optional<ArtifactKind>
TargetBackend::artifactKindForPath(llvm::StringRef path) const {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  if (ext.empty())
    return std::nullopt;
  for (ArtifactKind &kind : artifactKinds())
    if (!kind.extension.empty() && ext.equals_insensitive(kind.extension))
      return kind;
  return std::nullopt;
}

std::vector<std::string> hodu::locateTools(const TargetBackend &target) {
  std::vector<std::string> found;
  for (const ToolRequirement &tool : target.tools()) {
    llvm::SmallVector<llvm::StringRef> names(tool.candidates.begin(),
                                             tool.candidates.end());
    found.push_back(findTool(names).value_or(""));
  }
  return found;
}

llvm::LogicalResult hodu::addPassPipeline(mlir::OpPassManager &pm,
                                          llvm::StringRef text) {
  if (text.empty())
    return llvm::success();
  std::string errors;
  llvm::raw_string_ostream es(errors);
  if (failed(mlir::parsePassPipeline(text, pm, es))) {
    llvm::errs() << "hoduc: internal error: bad pipeline '" << text
                 << "': " << errors << "\n";
    return llvm::failure();
  }
  return llvm::success();
}
