//===- WorkSplit.cpp - how parallel loops divide their work ---------------===//
//
// See include/hodu/Target/CPU/WorkSplit.h.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/WorkSplit.h"

#include <algorithm>

namespace hodu::cpu {

double splitBalance(int64_t pieces, int64_t threads) {
  if (pieces <= 0 || threads <= 1)
    return 1;
  int64_t most = (pieces + threads - 1) / threads;
  return double(pieces) / double(threads) / double(most);
}

namespace {
/// The thread counts splits are judged at, and their weights (laptops and
/// small servers first).
constexpr int64_t kThreads[] = {2, 4, 8, 16};
constexpr double kWeights[] = {3, 2, 1, 1};
} // namespace

double splitScore(int64_t pieces) {
  double score = 0, total = 0;
  for (int i = 0; i < 4; ++i) {
    score += kWeights[i] * splitBalance(pieces, kThreads[i]);
    total += kWeights[i];
  }
  return score / total;
}

int64_t choosePieces(int64_t units, int64_t maxPieces, bool divisorsOnly) {
  int64_t most = std::min(units, maxPieces);
  if (most <= 1)
    return 1;
  int64_t best = 0;
  double bestScore = -1;
  for (int64_t p = 2; p <= most; ++p) {
    if (divisorsOnly && units % p != 0)
      continue;
    double s = splitScore(p);
    if (s > bestScore + 1e-9) {
      best = p;
      bestScore = s;
    }
  }
  return best ? best : 1;
}

int64_t loopPieces(int64_t units, int64_t maxPieces) {
  int64_t pieces = choosePieces(units, maxPieces, /*divisorsOnly=*/true);
  return pieces > 1 ? pieces
                    : choosePieces(units, maxPieces, /*divisorsOnly=*/false);
}

double loopScore(int64_t units, int64_t maxPieces, int64_t maxThreads) {
  if (units <= 0)
    return 0;
  int64_t pieces = loopPieces(units, maxPieces);
  // The loop runs ceil(units / size) iterations of `size` units.
  int64_t size = (units + pieces - 1) / pieces;
  int64_t iterations = (units + size - 1) / size;
  double score = 0, total = 0;
  for (int i = 0; i < 4 && kThreads[i] <= maxThreads; ++i) {
    int64_t t = kThreads[i];
    int64_t most = std::min(units, (iterations + t - 1) / t * size);
    score += kWeights[i] * (double(units) / double(t) / double(most));
    total += kWeights[i];
  }
  return score / total;
}

/// The thread counts a loop choice is judged at: 2 and 4. A dim even
/// there is kept over an inner one that is also even at 8 or 16: cutting
/// an NCHW kernel along its rows instead of its 24 channels would change
/// which thread reads what the kernel before it wrote, with no better
/// balance where most runs are.
constexpr int64_t kChoiceThreads = 4;

int64_t chooseSplitLoop(const int64_t *ranges, const bool *splittable,
                        int64_t loops, int64_t vectorLoop, int64_t maxPieces) {
  auto best = [&](bool withVectorLoop) {
    int64_t loop = -1;
    double bestScore = -1;
    for (int64_t i = 0; i < loops; ++i) {
      if (!splittable[i] || ranges[i] < 2 ||
          (i == vectorLoop && !withVectorLoop))
        continue;
      double s = loopScore(ranges[i], maxPieces, kChoiceThreads);
      if (s > bestScore + 1e-9) {
        loop = i;
        bestScore = s;
      }
    }
    return loop;
  };
  int64_t other = best(false);
  return other >= 0 ? other : best(true);
}

} // namespace hodu::cpu
