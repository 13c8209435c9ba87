//===- Passes.h - Hodu passes -----------------------------------*- C++ -*-===//
#ifndef HODU_TRANSFORMS_PASSES_H
#define HODU_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace hodu {
#define GEN_PASS_DECL
#include "Hodu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Hodu/Passes.h.inc"
} // namespace hodu

#endif
