//===- FuseAttention.cpp - attention as one kernel (GPU) ------------------===//
//
// See hodu-gpu-fuse-attention in include/hodu/Target/GPU/Passes.td. The
// chains are found and tiled by hodu::fuseAttentionChains
// (lib/Target/AttentionTiles.cpp); hodu-gpu-tile makes each loop a kernel
// (tileAttentionBlock in Elementwise.cpp).
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Passes.h"

#include "Strategies.h"

#include "hodu/Target/AttentionTiles.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace hodu::gpu {
#define GEN_PASS_DEF_GPUFUSEATTENTION
#include "hodu/Target/GPU/Passes.h.inc"
} // namespace hodu::gpu

using namespace mlir;

namespace {
/// The bytes of the tensors a loop's body creates (its intermediates, which
/// become workgroup memory).
int64_t scratchBytes(scf::ForallOp loop) {
  int64_t bytes = 0;
  loop.getBody()->walk([&](tensor::EmptyOp empty) {
    RankedTensorType t = empty.getType();
    bytes += t.getNumElements() *
             std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
  });
  return bytes;
}

struct GpuFuseAttention
    : hodu::gpu::impl::GpuFuseAttentionBase<GpuFuseAttention> {
  using Base::Base;

  FrozenRewritePatternSet canonicalization;

  LogicalResult initialize(MLIRContext *ctx) override {
    canonicalization = hodu::canonicalizationPatterns(ctx);
    return success();
  }

  void runOnOperation() override {
    // Rows whose four blocks of rows x keys (f32) fit; past that, rows
    // whose blocks of rows x a block of keys do, for the key-block form.
    auto rowsFor = [&](int64_t m, int64_t keys) -> int64_t {
      int64_t most = workgroupMemory / (4 * 4 * keys);
      if (most < 1) {
        int64_t block = hodu::keyBlockSize(keys, keyBlock);
        most = block ? workgroupMemory / (4 * 4 * block) : 0;
      }
      return most < 1
                 ? 0
                 : hodu::gpu::largestDivisor(m, std::min<int64_t>(64, most));
    };
    auto fits = [&](scf::ForallOp loop) {
      if (scratchBytes(loop) <= workgroupMemory)
        return true;
      return succeeded(hodu::blockKeys(loop, keyBlock)) &&
             scratchBytes(loop) <= workgroupMemory;
    };
    for (scf::ForallOp loop : hodu::fuseAttentionChains(
             getOperation(), rowsFor, fits, canonicalization,
             hodu::DeadKeyOptions{skipDeadKeys ? keyQuantum : 0, minBlocks}))
      loop->setAttr(hodu::gpu::kAttentionBlock, UnitAttr::get(&getContext()));
  }
};
} // namespace
