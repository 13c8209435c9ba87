//===- Diagnostics.cpp - how model diagnostics are printed -----------------===//
#include "hodu/Support/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
/// A model location: the file, and the node's name and op type if any.
struct ModelLocation {
  std::string file;
  std::string node;
  std::string opType;
};

/// Reads a location an importer made (see the header); nullopt for others.
std::optional<ModelLocation> readModelLocation(Location loc) {
  ModelLocation out;
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    auto kind = dyn_cast_or_null<StringAttr>(fused.getMetadata());
    if (!kind || fused.getLocations().size() != 1)
      return std::nullopt;
    out.opType = kind.getValue().str();
    loc = fused.getLocations().front();
  }
  if (auto name = dyn_cast<NameLoc>(loc)) {
    if (!out.opType.empty())
      out.node = name.getName().getValue().str();
    loc = name.getChildLoc();
  }
  auto file = dyn_cast<FileLineColLoc>(loc);
  if (!file || file.getLine() != 0 || file.getColumn() != 0)
    return std::nullopt;
  out.file = file.getFilename().getValue().str();
  return out;
}

const char *severityName(DiagnosticSeverity s) {
  switch (s) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}
} // namespace

std::pair<std::string, std::string> hodu::nodeOfLocation(Location loc) {
  std::string type;
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    if (auto meta = dyn_cast_or_null<StringAttr>(fused.getMetadata()))
      type = meta.str();
    for (Location l : fused.getLocations())
      if (isa<NameLoc>(l)) {
        loc = l;
        break;
      }
  }
  std::string name;
  if (auto n = dyn_cast<NameLoc>(loc))
    name = n.getName().str();
  return {name, type};
}

std::string hodu::modelLocationPrefix(Location loc) {
  std::optional<ModelLocation> m = readModelLocation(loc);
  if (!m)
    return {};
  std::string prefix = m->file;
  if (!m->node.empty())
    prefix += ": node '" + m->node + "' (" + m->opType + ")";
  return prefix;
}

hodu::ModelDiagnosticHandler::ModelDiagnosticHandler(MLIRContext *ctx,
                                                     llvm::raw_ostream &os)
    : ScopedDiagnosticHandler(ctx, [&os](Diagnostic &d) -> LogicalResult {
        std::string prefix = modelLocationPrefix(d.getLocation());
        if (prefix.empty())
          return failure();
        os << prefix << ": " << severityName(d.getSeverity()) << ": " << d
           << "\n";
        for (const Diagnostic &note : d.getNotes()) {
          std::string at = modelLocationPrefix(note.getLocation());
          os << (at.empty() ? prefix : at) << ": note: " << note << "\n";
        }
        os.flush();
        return success();
      }) {}
