//===- StridedReads.cpp - stride-2 reads as load + deinterleave -----------===//
//
// See hodu-cpu-strided-reads in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUSTRIDEDREADS
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {
struct StridedRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  /// A read of rank > 1 (the vectoriser gives a pooling over a small plane
  /// `vector<2x28xf32>`, two output rows at once) as one 1-D read per row
  /// of its leading dims, which this pattern then rewrites, inserted into
  /// the result. The vector dims are the memref's innermost ones (a minor
  /// identity map), so row `p` starts at the read's indices plus `p` in
  /// those dims.
  static LogicalResult splitRows(vector::TransferReadOp read,
                                 PatternRewriter &rewriter) {
    VectorType vec = read.getVectorType();
    Location loc = read.getLoc();
    ArrayRef<int64_t> lead = vec.getShape().drop_back();
    auto rowType = VectorType::get(vec.getShape().back(), vec.getElementType());
    Value result =
        vector::BroadcastOp::create(rewriter, loc, vec, read.getPadding());
    SmallVector<Value> indices(read.getIndices());
    int64_t first = int64_t(indices.size()) - vec.getRank();
    SmallVector<int64_t> strides = computeSuffixProduct(lead);
    for (int64_t linear = 0, rows = ShapedType::getNumElements(lead);
         linear < rows; ++linear) {
      SmallVector<int64_t> pos = delinearize(linear, strides);
      SmallVector<Value> at(indices);
      for (auto [d, p] : llvm::enumerate(pos))
        if (p != 0)
          at[first + d] = affine::makeComposedAffineApply(
              rewriter, loc,
              rewriter.getAffineDimExpr(0) + rewriter.getAffineConstantExpr(p),
              {indices[first + d]});
      Value row = vector::TransferReadOp::create(
          rewriter, loc, rowType, read.getBase(), at, read.getPadding(),
          ArrayRef<bool>{true});
      result = vector::InsertOp::create(rewriter, loc, row, result, pos);
    }
    rewriter.replaceOp(read, result);
    return success();
  }

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto memref = dyn_cast<MemRefType>(read.getBase().getType());
    VectorType vec = read.getVectorType();
    if (!memref || vec.getRank() == 0 || vec.isScalable() || read.getMask() ||
        !read.getPermutationMap().isMinorIdentity() || memref.getRank() == 0 ||
        llvm::any_of(llvm::seq<unsigned>(0, vec.getRank()),
                     [&](unsigned d) { return !read.isDimInBounds(d); }))
      return failure();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memref.getStridesAndOffset(strides, offset)) ||
        strides.back() != 2)
      return failure();
    if (vec.getRank() > 1)
      return splitRows(read, rewriter);
    int64_t n = vec.getNumElements();
    Location loc = read.getLoc();
    // The linear index of the first lane: offset + sum(index_i * stride_i).
    auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc,
                                                         read.getBase());
    AffineExpr sum = rewriter.getAffineSymbolExpr(0);
    SmallVector<OpFoldResult> operands{meta.getConstifiedMixedOffset()};
    SmallVector<OpFoldResult> dynStrides = meta.getConstifiedMixedStrides();
    for (auto [i, index] : llvm::enumerate(read.getIndices())) {
      AffineExpr idx = rewriter.getAffineSymbolExpr(operands.size());
      operands.push_back(index);
      AffineExpr st = rewriter.getAffineSymbolExpr(operands.size());
      operands.push_back(dynStrides[i]);
      sum = sum + idx * st;
    }
    OpFoldResult start = affine::makeComposedFoldedAffineApply(
        rewriter, loc, AffineMap::get(0, operands.size(), sum), operands);
    // The lanes span 2n-1 elements.
    auto flatType = MemRefType::get(
        {2 * n - 1}, memref.getElementType(),
        StridedLayoutAttr::get(rewriter.getContext(), ShapedType::kDynamic, {1}),
        memref.getMemorySpace());
    Value flat = memref::ReinterpretCastOp::create(
        rewriter, loc, flatType, meta.getBaseBuffer(), start,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(2 * n - 1)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    auto wide = VectorType::get({2 * n}, vec.getElementType());
    auto maskType = VectorType::get({2 * n}, rewriter.getI1Type());
    Value mask = vector::ConstantMaskOp::create(
        rewriter, loc, maskType, ArrayRef<int64_t>{2 * n - 1});
    Value pass = vector::BroadcastOp::create(rewriter, loc, wide,
                                             read.getPadding());
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value loaded = vector::MaskedLoadOp::create(rewriter, loc, wide, flat,
                                                ValueRange{zero}, mask, pass);
    auto halves = vector::DeinterleaveOp::create(rewriter, loc, loaded);
    rewriter.replaceOp(read, halves.getRes1());
    return success();
  }
};

struct CpuStridedReads : hodu::cpu::impl::CpuStridedReadsBase<CpuStridedReads> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<StridedRead>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
