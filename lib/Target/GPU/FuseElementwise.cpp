//===- FuseElementwise.cpp - elementwise fusion for GPU kernels -----------===//
//
// See hodu-gpu-fuse-elementwise in include/hodu/Target/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hodu::gpu {
#define GEN_PASS_DEF_GPUFUSEELEMENTWISE
#include "hodu/Target/GPU/Passes.h.inc"
} // namespace hodu::gpu

using namespace mlir;

namespace {
/// Whether `op` multiplies two of its operands over a reduction loop: two
/// inputs that its body reads are indexed by a reduction loop (a pooling
/// window's shape operand is not read).
bool isProductOverReduction(linalg::LinalgOp op) {
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (reductions.empty())
    return false;
  int64_t reduced = 0;
  for (OpOperand *in : op.getDpsInputOperands()) {
    if (!op.payloadUsesValueFromOperand(in))
      continue;
    AffineMap map = op.getMatchingIndexingMap(in);
    if (llvm::any_of(reductions,
                     [&](unsigned d) { return map.isFunctionOfDim(d); }))
      ++reduced;
  }
  return reduced >= 2;
}

struct GpuFuseElementwise
    : hodu::gpu::impl::GpuFuseElementwiseBase<GpuFuseElementwise> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // As upstream's linalg-fuse-elementwise-ops: producers with one use,
    // so nothing is computed twice.
    linalg::ControlFusionFn oneUse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    linalg::ControlFusionFn notIntoProducts = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        return false;
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      return !consumer || !isProductOverReduction(consumer);
    };
    // First the chains as the importer wrote them, without moving reshapes:
    // an activation after a bias joins it before a reshape between them
    // (the expand_shape before a grouped convolution) is bubbled up to the
    // bias, which a [C][1][1] bias read at (c, 0, 0) cannot take, leaving
    // the activation a kernel of its own.
    {
      RewritePatternSet chains(context);
      linalg::populateElementwiseOpsFusionPatterns(chains, notIntoProducts);
      linalg::GenericOp::getCanonicalizationPatterns(chains, context);
      if (failed(applyPatternsGreedily(getOperation(), std::move(chains))))
        return signalPassFailure();
    }
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, notIntoProducts);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, oneUse);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, oneUse);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
