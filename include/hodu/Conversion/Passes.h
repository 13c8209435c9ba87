//===- Passes.h - hodu conversion passes ------------------------*- C++ -*-===//
//
// The conversion passes declared in include/hodu/Conversion/Passes.td:
// hodu::createConvertHoduToLinalg() and hodu::registerConversionPasses().
//
//===----------------------------------------------------------------------===//

#ifndef HODU_CONVERSION_PASSES_H
#define HODU_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace hodu {
#define GEN_PASS_DECL
#include "hodu/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hodu/Conversion/Passes.h.inc"
} // namespace hodu

#endif // HODU_CONVERSION_PASSES_H
