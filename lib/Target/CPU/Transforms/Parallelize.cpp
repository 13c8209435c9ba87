//===- Parallelize.cpp - large linalg.generic ops as scf.forall -----------===//
//
// See hodu-cpu-parallelize in include/hodu/Target/CPU/Passes.td. Picks the
// dimension and chunk size per op and lets
// `transform.structured.tile_using_forall` make the loop.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "TransformScript.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUPARALLELIZE
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {

struct CpuParallelize : hodu::cpu::impl::CpuParallelizeBase<CpuParallelize> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    hodu::cpu::TransformScript script(module);
    module.walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp, linalg::CopyOp>(op.getOperation()) ||
          !op.hasPureTensorSemantics() || op->getParentOfType<scf::ForallOp>() ||
          op->getNumResults() == 0)
        return;
      auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!type || !type.hasStaticShape() || type.getNumElements() < minElements)
        return;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
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
      // Prefer a number of chunks that divides the dimension: the tiles then
      // keep static shapes, which hodu-cpu-vectorize-generics needs.
      int64_t most = std::min(chunks.getValue(), ranges[dim]);
      sizes[dim] = llvm::divideCeil(ranges[dim], most);
      for (int64_t c = most; c >= std::max<int64_t>(2, most / 2); --c)
        if (ranges[dim] % c == 0) {
          sizes[dim] = ranges[dim] / c;
          break;
        }
      script.tileUsingForall(script.bind(op), sizes);
    });
    if (!script.empty() && failed(script.applyOrKeep(getArgument())))
      return signalPassFailure();
  }
};
} // namespace
