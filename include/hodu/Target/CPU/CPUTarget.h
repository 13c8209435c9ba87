//===- CPUTarget.h - the CPU back end ---------------------------*- C++ -*-===//
#ifndef HODU_TARGET_CPU_CPUTARGET_H
#define HODU_TARGET_CPU_CPUTARGET_H

namespace hodu {

/// Registers the `cpu` target, its named pipelines (hodu-cpu-linalg,
/// hodu-cpu-bufferized, hodu-cpu-llvm) and its passes (idempotent).
void registerCPUTarget();

} // namespace hodu

#endif // HODU_TARGET_CPU_CPUTARGET_H
