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

double splitScore(int64_t pieces) {
  static constexpr int64_t kThreads[] = {2, 4, 8, 16};
  static constexpr double kWeights[] = {3, 2, 1, 1};
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

} // namespace hodu::cpu
