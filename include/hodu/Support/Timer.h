//===- Timer.h - per-step wall times for --print-stats ----------*- C++ -*-===//
#ifndef HODU_SUPPORT_TIMER_H
#define HODU_SUPPORT_TIMER_H

#include <chrono>

namespace hodu {

/// Prints "hoduc: stats: <what> <ms>" for the time since the last lap (or
/// restart) when enabled; the driver and the targets' serialisation share
/// it so every step's line looks the same.
struct StatsTimer {
  bool enabled;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  void lap(const char *what);
  void restart() { start = std::chrono::steady_clock::now(); }
};

} // namespace hodu

#endif // HODU_SUPPORT_TIMER_H
