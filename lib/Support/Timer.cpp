//===- Timer.cpp - per-step wall times for --print-stats ------------------===//
#include "hodu/Support/Timer.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

void hodu::StatsTimer::lap(const char *what) {
  if (!enabled)
    return;
  auto now = std::chrono::steady_clock::now();
  llvm::errs() << llvm::format(
      "hoduc: stats: %-11s %8.1f ms\n", what,
      std::chrono::duration<double, std::milli>(now - start).count());
  start = now;
}
