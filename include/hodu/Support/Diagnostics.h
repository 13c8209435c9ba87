//===- Diagnostics.h - how model diagnostics are printed --------*- C++ -*-===//
//
// Importers locate what they report at the model's nodes: an ONNX node is
// FusedLoc<"OpType">[NameLoc("name", FileLineColLoc(model, 0, 0))], a graph
// input or initializer NameLoc("name", FileLineColLoc(model, 0, 0)). Such
// a diagnostic prints as
//
//   model.onnx: node 'name' (OpType): error: message
//   model.onnx: error: message
//
// (a model has no lines to point at); notes follow in the same form. Other
// locations (a .mlir file's lines) are left to the handler registered
// before this one.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_SUPPORT_DIAGNOSTICS_H
#define HODU_SUPPORT_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

#include <string>
#include <utility>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace hodu {

/// Prints diagnostics located in a model (above) to `os`, and passes any
/// other on. Register it after a SourceMgrDiagnosticHandler, which then
/// sees only the rest.
class ModelDiagnosticHandler : public mlir::ScopedDiagnosticHandler {
public:
  ModelDiagnosticHandler(mlir::MLIRContext *ctx, llvm::raw_ostream &os);
};

/// The model-located prefix of `loc` ("model.onnx: node 'n' (Relu)"), or
/// an empty string when `loc` is not in a model.
std::string modelLocationPrefix(mlir::Location loc);

/// The node name and op type a location carries: an importer's
/// loc(fused<"OpType">["node"(...)]), or a NameLoc alone (name only); empty
/// strings for what it does not carry.
std::pair<std::string, std::string> nodeOfLocation(mlir::Location loc);

} // namespace hodu

#endif // HODU_SUPPORT_DIAGNOSTICS_H
