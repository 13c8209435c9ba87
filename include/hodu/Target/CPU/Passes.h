//===- Passes.h - CPU code-generation passes --------------------*- C++ -*-===//
//
// The passes of the CPU target declared in include/hodu/Target/CPU/Passes.td:
// hodu::cpu::createCpuVectorize(), createCpuParallelize(),
// createCpuVectorizeGenerics(), createCpuStridedReads() (each with an
// options struct where the pass has options) and
// hodu::cpu::registerCPUPasses().
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_CPU_PASSES_H
#define HODU_TARGET_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace hodu::cpu {
#define GEN_PASS_DECL
#include "hodu/Target/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

#endif // HODU_TARGET_CPU_PASSES_H
