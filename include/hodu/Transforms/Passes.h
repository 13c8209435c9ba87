//===- Passes.h - Hodu passes -----------------------------------*- C++ -*-===//
//
// The target-independent hodu passes (dialects/Hodu/Passes.td). The
// conversion (hodu/Conversion/Passes.h), the ABI passes (hodu/ABI/Passes.h)
// and each target's passes have their own registration;
// hodu::registerAllCompilerPasses() (hodu/Driver/Compiler.h) calls them all.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TRANSFORMS_PASSES_H
#define HODU_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace hodu {
#define GEN_PASS_DECL
#include "Hodu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Hodu/Passes.h.inc"

/// Registers the target-independent hodu passes.
inline void registerHoduPasses() { registerHoduTransformsPasses(); }
} // namespace hodu

#endif // HODU_TRANSFORMS_PASSES_H
