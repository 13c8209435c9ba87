//===- Passes.h - Hodu passes -----------------------------------*- C++ -*-===//
//
// The target-independent hodu passes (dialects/Hodu/Passes.td) and
// registerHoduPasses(), which registers every hodu pass for hodu-opt and
// hoduc.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TRANSFORMS_PASSES_H
#define HODU_TRANSFORMS_PASSES_H

#include "hodu/Conversion/Passes.h"
#include "hodu/Target/CPU/Passes.h"

#include "mlir/Pass/Pass.h"

namespace hodu {
#define GEN_PASS_DECL
#include "Hodu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Hodu/Passes.h.inc"

/// Registers the hodu transforms, the conversions and the CPU target's
/// passes. Inline, like mlir/InitAllPasses.h, so that HoduTransforms itself
/// does not depend on the libraries that define the other passes (its CMake
/// target passes them on to whoever links it).
inline void registerHoduPasses() {
  registerHoduTransformsPasses();
  registerConversionPasses();
  cpu::registerCPUPasses();
}
} // namespace hodu

#endif // HODU_TRANSFORMS_PASSES_H
