//===- FuseAttention.cpp - attention as one tiled kernel (CPU) ------------===//
//
// See hodu-cpu-fuse-attention in include/hodu/Target/CPU/Passes.td; the
// chains are found and tiled by hodu::fuseAttentionChains
// (lib/Target/AttentionTiles.cpp); this file picks the CPU's block of rows.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "hodu/Target/AttentionTiles.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUFUSEATTENTION
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {

/// Rows per tile: the largest divisor of `m` up to 32 whose block of scores
/// (rows x `keys`) takes at most `maxScores` elements. Where that leaves
/// fewer than 4 rows of a larger m (long sequences), the smallest divisor
/// from 4 to 32 whose block takes at most 4 x `maxScores` (each scratch
/// block still fits the stack of a parallel iteration); longer still, the
/// smallest divisor from 4 to 32 whatever its block (scratch of rows x
/// keys per iteration, which hodu-cpu-hoist-parallel-allocs gives each of
/// its slots in the workspace, where the unfused scores would take
/// queries x keys per head). 0 when m has no divisor from 4 to 32 (too
/// thin a register tile: the chain stays unfused).
int64_t rowsPerTile(int64_t m, int64_t keys, int64_t maxScores) {
  int64_t cap = std::min<int64_t>(32, std::max<int64_t>(1, maxScores / keys));
  int64_t best = 1;
  for (int64_t d = 1; d <= std::min(cap, m); ++d)
    if (m % d == 0)
      best = d;
  if (best >= std::min<int64_t>(4, m))
    return best;
  for (int64_t d = 4; d <= std::min<int64_t>(32, m); ++d)
    if (m % d == 0 && d * keys <= 4 * maxScores)
      return d;
  for (int64_t d = 4; d <= std::min<int64_t>(32, m); ++d)
    if (m % d == 0)
      return d;
  return 0;
}

struct CpuFuseAttention
    : hodu::cpu::impl::CpuFuseAttentionBase<CpuFuseAttention> {
  using Base::Base;

  FrozenRewritePatternSet canonicalization;

  LogicalResult initialize(MLIRContext *ctx) override {
    canonicalization = hodu::canonicalizationPatterns(ctx);
    return success();
  }

  void runOnOperation() override {
    hodu::fuseAttentionChains(
        getOperation(),
        [&](int64_t m, int64_t keys) {
          return rowsPerTile(m, keys, maxScores);
        },
        [](scf::ForallOp) { return true; }, canonicalization,
        hodu::DeadKeyOptions{skipDeadKeys ? keyQuantum : 0, minRunIterations});
  }
};
} // namespace
