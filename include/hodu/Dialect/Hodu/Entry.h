//===- Entry.h - the model's entry function ---------------------*- C++ -*-===//
#ifndef HODU_DIALECT_HODU_ENTRY_H
#define HODU_DIALECT_HODU_ENTRY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace hodu {

/// The model's entry function: `@main`, or else the module's only public
/// function with a body; null when there is none or more than one.
mlir::func::FuncOp findEntryFunction(mlir::ModuleOp module);

} // namespace hodu

#endif // HODU_DIALECT_HODU_ENTRY_H
