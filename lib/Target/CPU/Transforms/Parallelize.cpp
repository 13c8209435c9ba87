//===- Parallelize.cpp - large linalg.generic ops as scf.forall -----------===//
//
// See hodu-cpu-parallelize in include/hodu/Target/CPU/Passes.td. Picks the
// dimension and chunk size per op and lets
// `transform.structured.tile_using_forall` make the loop.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "Int8Dot.h"
#include "TransformScript.h"
#include "hodu/Target/CPU/WorkSplit.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"

#include "llvm/Support/MathExtras.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUPARALLELIZE
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {

/// What one run of `op` costs, roughly: the points of its iteration space
/// (a pooling window's taps and a reduction's inputs too, not only its
/// results) times the ops of its body (at least one: a copy still moves
/// each element), or 0 when a loop range is not static.
int64_t work(linalg::LinalgOp op, ArrayRef<int64_t> ranges) {
  uint64_t points = 1;
  for (int64_t r : ranges) {
    if (ShapedType::isDynamic(r) || r < 0)
      return 0;
    points = llvm::SaturatingMultiply(points, uint64_t(r));
  }
  uint64_t ops = llvm::range_size(op.getBlock()->without_terminator());
  uint64_t w = llvm::SaturatingMultiply(points, std::max<uint64_t>(ops, 1));
  return int64_t(std::min<uint64_t>(w, INT64_MAX));
}

struct CpuParallelize : hodu::cpu::impl::CpuParallelizeBase<CpuParallelize> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    hodu::cpu::TransformScript script(module);
    module.walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp, linalg::CopyOp>(op.getOperation()) ||
          op->hasAttr(hodu::cpu::kAmxTiles) ||
          !op.hasPureTensorSemantics() || op->getParentOfType<scf::ForallOp>() ||
          op->getNumResults() == 0)
        return;
      auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!type || !type.hasStaticShape())
        return;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      if (!hodu::cpu::worthThreads(work(op, ranges), minWork))
        return;
      auto iterators = op.getIteratorTypesArray();
      // The outermost parallel loop with room for the chunks.
      int64_t dim = -1;
      for (auto [i, it] : llvm::enumerate(iterators))
        if (it == utils::IteratorType::parallel && !ShapedType::isDynamic(ranges[i]) &&
            ranges[i] >= 2) {
          dim = i;
          break;
        }
      if (dim < 0)
        return;
      SmallVector<int64_t> sizes(ranges.size(), 0);
      // Pieces that divide evenly at 2 to 16 threads (WorkSplit.h), a
      // number that divides the dimension where one does: the tiles then
      // keep static shapes, which hodu-cpu-vectorize-generics needs.
      int64_t pieces = hodu::cpu::choosePieces(ranges[dim], chunks, true);
      if (pieces == 1)
        pieces = hodu::cpu::choosePieces(ranges[dim], chunks, false);
      sizes[dim] = llvm::divideCeil(ranges[dim], pieces);
      // The fills that initialise its outputs (a pooling's -inf, a sum's
      // zeros) go into the loop with it: each thread fills the part it then
      // accumulates into, instead of the calling thread filling it all
      // before the fork (a serial pass whose lines the other threads must
      // then take over from its cache).
      SmallVector<Value> fills;
      for (OpOperand &init : op.getDpsInitsMutable())
        if (auto fill = init.get().getDefiningOp<linalg::FillOp>();
            fill && fill->hasOneUse() && fill.hasPureTensorSemantics())
          fills.push_back(script.bind(fill));
      Value target = script.bind(op);
      hodu::TransformScript::Tiled tiled =
          script.tileUsingForall(target, sizes);
      for (Value fill : fills)
        script.fuseIntoContainingOp(fill, tiled.loops.front());
    });
    if (!script.empty() && failed(script.applyOrKeep(getArgument())))
      return signalPassFailure();
  }
};
} // namespace
