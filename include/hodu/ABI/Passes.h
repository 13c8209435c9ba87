//===- Passes.h - the artifact ABI as passes --------------------*- C++ -*-===//
//
// hodu-record-entry-point, hodu-check-lowered, hodu-arena-to-workspace,
// hodu-lower-asserts and hodu-lower-entry-point (dialects/ABI/Passes.td).
//
//===----------------------------------------------------------------------===//
#ifndef HODU_ABI_PASSES_H
#define HODU_ABI_PASSES_H

#include "mlir/Pass/Pass.h"

namespace hodu {
#define GEN_PASS_DECL
#include "ABI/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ABI/Passes.h.inc"
} // namespace hodu

#endif // HODU_ABI_PASSES_H
