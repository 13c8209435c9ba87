//===- LowerVectors.cpp - register tiles and 1-D vectors in kernels -------===//
//
// See hodu-gpu-lower-vectors in include/hodu/Target/GPU/Passes.td. The
// stages are upstream pattern sets, applied in order; the scalarisation of
// memory accesses is written here because upstream's VectorToSCF leaves
// contiguous 1-D transfers as vectors.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorTransforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <numeric>

namespace hodu::gpu {
#define GEN_PASS_DEF_GPULOWERVECTORS
#include "hodu/Target/GPU/Passes.h.inc"
} // namespace hodu::gpu

using namespace mlir;

namespace {
/// The largest divisor of `size` that is at most `width`: the unroll
/// patterns only split a dim into equal slices, so a dim of 6 at width 4
/// becomes two slices of 3 (SPIR-V's vectors have 2, 3 or 4 elements), and
/// a prime one of 5 becomes scalars, never a vector<6> or vector<5> left
/// whole.
int64_t sliceOf(int64_t size, int64_t width) {
  for (int64_t d = std::min(size, width); d > 1; --d)
    if (size % d == 0)
      return d;
  return 1;
}

/// Unroll shapes: 1-D slices of at most `width` elements, and contractions
/// whose accumulator is one such slice (one row of the register tile), so
/// that the hoisted accumulators are 1-D vectors SPIR-V can carry.
std::optional<SmallVector<int64_t>> nativeShape(Operation *op, int64_t width) {
  if (auto contract = dyn_cast<vector::ContractionOp>(op)) {
    SmallVector<int64_t> shape, bounds;
    contract.getIterationBounds(bounds);
    AffineMap acc = contract.getIndexingMapsArray()[2];
    std::optional<unsigned> lastAcc;
    if (acc.getNumResults() > 0)
      lastAcc = acc.getDimPosition(acc.getNumResults() - 1);
    for (auto [i, iterator] : llvm::enumerate(contract.getIteratorTypesArray())) {
      int64_t size = bounds[i];
      bool keep = iterator == vector::IteratorType::reduction || lastAcc == i;
      shape.push_back(keep ? sliceOf(size, width) : 1);
    }
    return shape;
  }
  if (op->getNumResults() != 1 && !isa<vector::TransferWriteOp>(op))
    return std::nullopt;
  VectorType type;
  if (auto write = dyn_cast<vector::TransferWriteOp>(op))
    type = write.getVectorType();
  else
    type = dyn_cast<VectorType>(op->getResult(0).getType());
  if (!type || type.getRank() == 0)
    return std::nullopt;
  SmallVector<int64_t> shape(type.getRank(), 1);
  shape.back() = sliceOf(type.getShape().back(), width);
  return shape;
}

/// `indices` with `i` added to the one at position `dim`: the address of
/// element i of a 1-D vector read or written along that dim.
static SmallVector<Value> offsetIndices(PatternRewriter &rewriter, Location loc,
                                        ValueRange indices, unsigned dim,
                                        int64_t i) {
  SmallVector<Value> at(indices);
  at[dim] = affine::AffineApplyOp::create(
      rewriter, loc, AffineMap::get(1, 0, rewriter.getAffineDimExpr(0) + i),
      at[dim]);
  return at;
}

/// A 1-D transfer as scalar loads or stores (SPIR-V's logical addressing
/// cannot load a vector from an array of scalars).
struct ScalarizeTransferRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    VectorType type = read.getVectorType();
    if (type.getRank() != 1 || read.getMask() ||
        !isa<MemRefType>(read.getBase().getType()) ||
        read.getPermutationMap().getNumResults() != 1 ||
        !read.getInBoundsValues()[0])
      return failure();
    AffineExpr e = read.getPermutationMap().getResult(0);
    Location loc = read.getLoc();
    SmallVector<Value> elements;
    if (isa<AffineConstantExpr>(e)) {
      // A broadcast of one element.
      Value v = memref::LoadOp::create(rewriter, loc, read.getBase(),
                                       read.getIndices());
      rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, type, v);
      return success();
    }
    unsigned dim = cast<AffineDimExpr>(e).getPosition();
    for (int64_t i = 0; i < type.getShape()[0]; ++i) {
      SmallVector<Value> at =
          offsetIndices(rewriter, loc, read.getIndices(), dim, i);
      elements.push_back(memref::LoadOp::create(rewriter, loc, read.getBase(), at));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(read, type, elements);
    return success();
  }
};

struct ScalarizeTransferWrite : OpRewritePattern<vector::TransferWriteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferWriteOp write,
                                PatternRewriter &rewriter) const override {
    VectorType type = write.getVectorType();
    if (type.getRank() != 1 || write.getMask() ||
        !isa<MemRefType>(write.getBase().getType()) ||
        write.getPermutationMap().getNumResults() != 1 ||
        !isa<AffineDimExpr>(write.getPermutationMap().getResult(0)) ||
        !write.getInBoundsValues()[0])
      return failure();
    unsigned dim =
        cast<AffineDimExpr>(write.getPermutationMap().getResult(0)).getPosition();
    Location loc = write.getLoc();
    for (int64_t i = 0; i < type.getShape()[0]; ++i) {
      SmallVector<Value> at =
          offsetIndices(rewriter, loc, write.getIndices(), dim, i);
      Value v = vector::ExtractOp::create(rewriter, loc, write.getVector(),
                                          ArrayRef<int64_t>{i});
      memref::StoreOp::create(rewriter, loc, v, write.getBase(), at);
    }
    rewriter.eraseOp(write);
    return success();
  }
};

/// vector.load / vector.store of 1-D vectors as scalars (what upstream's
/// transfer lowering makes of the contiguous ones).
struct ScalarizeLoad : OpRewritePattern<vector::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::LoadOp load,
                                PatternRewriter &rewriter) const override {
    VectorType type = load.getVectorType();
    if (type.getRank() != 1)
      return failure();
    Location loc = load.getLoc();
    SmallVector<Value> elements;
    for (int64_t i = 0; i < type.getShape()[0]; ++i) {
      SmallVector<Value> at = offsetIndices(
          rewriter, loc, load.getIndices(),
          load.getIndices().size() - 1, i);
      elements.push_back(memref::LoadOp::create(rewriter, loc, load.getBase(), at));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(load, type, elements);
    return success();
  }
};

struct ScalarizeStore : OpRewritePattern<vector::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::StoreOp store,
                                PatternRewriter &rewriter) const override {
    VectorType type = store.getVectorType();
    if (type.getRank() != 1)
      return failure();
    Location loc = store.getLoc();
    for (int64_t i = 0; i < type.getShape()[0]; ++i) {
      SmallVector<Value> at = offsetIndices(
          rewriter, loc, store.getIndices(),
          store.getIndices().size() - 1, i);
      Value v = vector::ExtractOp::create(rewriter, loc, store.getValueToStore(),
                                          ArrayRef<int64_t>{i});
      memref::StoreOp::create(rewriter, loc, v, store.getBase(), at);
    }
    rewriter.eraseOp(store);
    return success();
  }
};

/// An elementwise op on one-element vectors as the scalar op: SPIR-V
/// converts vector<1xT> to T, which leaves some maths (tanh, erf) with
/// casts it cannot convert, and the scalar op is what every target wants.
struct ScalarizeUnitVectorOp : RewritePattern {
  ScalarizeUnitVectorOp(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    // vector.fma has no scalar form (and SPIR-V takes it on vector<1>).
    if (!OpTrait::hasElementwiseMappableTraits(op) || op->getNumResults() != 1 ||
        op->getNumRegions() != 0 || isa<vector::VectorDialect>(op->getDialect()))
      return failure();
    auto type = dyn_cast<VectorType>(op->getResult(0).getType());
    if (!type || type.getRank() != 1 || type.getNumElements() != 1)
      return failure();
    SmallVector<Value> operands;
    for (Value v : op->getOperands()) {
      auto t = dyn_cast<VectorType>(v.getType());
      if (!t || t.getNumElements() != 1 || t.getRank() != 1)
        return failure();
      operands.push_back(vector::ExtractOp::create(rewriter, op->getLoc(), v,
                                                   ArrayRef<int64_t>{0}));
    }
    OperationState state(op->getLoc(), op->getName(), operands,
                         TypeRange{type.getElementType()}, op->getAttrs());
    Operation *scalar = rewriter.create(state);
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type,
                                                     scalar->getResult(0));
    return success();
  }
};

/// Upstream's folding of views into loads, stores and transfers, less its
/// folding of expand/collapse_shape into transfers: on the expanded host
/// buffers of a model it creates index ops, fails, and never converges.
void populateFoldSubViews(RewritePatternSet &patterns) {
  memref::populateFoldMemRefAliasOpPatterns(patterns);
  auto &native = patterns.getNativePatterns();
  llvm::erase_if(native, [](const std::unique_ptr<RewritePattern> &p) {
    StringRef name = p->getDebugName();
    return name.contains("ExpandShape") || name.contains("CollapseShape");
  });
}

/// The largest power of two known to divide the index `v`: constants, loop
/// induction variables (lower bound and step), affine maps and integer
/// arithmetic of them; thread and block ids divide by 1.
int64_t knownDivisor(Value v, int depth = 0) {
  constexpr int64_t kLarge = int64_t(1) << 20;
  if (depth > 8)
    return 1;
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c == 0 ? kLarge : std::gcd(std::abs(*c), kLarge);
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg != loop.getInductionVar())
      return 1;
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!step)
      return 1;
    return std::gcd(knownDivisor(loop.getLowerBound(), depth + 1),
                    std::gcd(std::abs(*step), kLarge));
  }
  Operation *def = v.getDefiningOp();
  if (auto apply = dyn_cast_or_null<affine::AffineApplyOp>(def)) {
    AffineMap map = apply.getAffineMap();
    SmallVector<AffineExpr> dims, symbols;
    for (unsigned i = 0; i < map.getNumDims(); ++i)
      dims.push_back(getAffineDimExpr(i, v.getContext()) *
                     knownDivisor(apply.getOperand(i), depth + 1));
    for (unsigned i = 0; i < map.getNumSymbols(); ++i)
      symbols.push_back(
          getAffineSymbolExpr(i, v.getContext()) *
          knownDivisor(apply.getOperand(map.getNumDims() + i), depth + 1));
    AffineExpr e = map.getResult(0).replaceDimsAndSymbols(dims, symbols);
    return std::gcd(std::abs(e.getLargestKnownDivisor()), kLarge);
  }
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def))
    return std::gcd(knownDivisor(def->getOperand(0), depth + 1),
                    knownDivisor(def->getOperand(1), depth + 1));
  if (isa_and_nonnull<arith::MulIOp>(def))
    return std::min(kLarge, knownDivisor(def->getOperand(0), depth + 1) *
                                knownDivisor(def->getOperand(1), depth + 1));
  return 1;
}

/// The alignment in bytes of a vector access at `indices` of `memref`
/// whose buffer is 16-byte aligned (the launch plan's buffers are 256-byte
/// aligned, workgroup buffers 64): the largest power of two dividing the
/// element offset, times the element size, up to the vector's size.
std::optional<uint64_t> accessAlignment(MemRefType memref, ValueRange indices,
                                        VectorType vector) {
  int64_t bytes = vector.getElementTypeBitWidth() / 8;
  int64_t vectorBytes = bytes * vector.getNumElements();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (bytes == 0 || failed(memref.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  int64_t divisor = offset == 0 ? int64_t(1) << 20 : std::abs(offset);
  for (auto [index, stride] : llvm::zip(indices, strides))
    divisor = std::gcd(divisor, knownDivisor(index) * std::abs(stride));
  // A power of two, at most the vector's size (which need not be one: a
  // 3-element vector has 12 bytes).
  int64_t alignment = std::gcd(divisor * bytes, int64_t(16));
  while (alignment > vectorBytes)
    alignment /= 2;
  if (alignment <= bytes)
    return std::nullopt;
  return alignment;
}

/// Vector loads and stores get the alignment their indices prove, so that
/// NVVM and ROCDL emit one 8- or 16-byte access instead of scalar ones.
void setAlignments(Operation *root) {
  root->walk([](Operation *op) {
    if (auto load = dyn_cast<vector::LoadOp>(op)) {
      if (!load.getAlignment())
        if (std::optional<uint64_t> a = accessAlignment(
                load.getMemRefType(), load.getIndices(), load.getVectorType()))
          load.setAlignment(a);
    } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
      if (!store.getAlignment())
        if (std::optional<uint64_t> a =
                accessAlignment(store.getMemRefType(), store.getIndices(),
                                store.getVectorType()))
          store.setAlignment(a);
    }
  });
}

struct GpuLowerVectors
    : hodu::gpu::impl::GpuLowerVectorsBase<GpuLowerVectors> {
  using Base::Base;

  LogicalResult stage(Operation *root,
                      function_ref<void(RewritePatternSet &)> populate,
                      bool canonicalize = true) {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    populate(patterns);
    if (canonicalize) {
      for (Dialect *dialect : ctx->getLoadedDialects())
        dialect->getCanonicalizationPatterns(patterns);
      for (RegisteredOperationName op : ctx->getRegisteredOperations())
        op.getCanonicalizationPatterns(patterns, ctx);
    }
    if (failed(applyPatternsGreedily(
            root, std::move(patterns),
            GreedyRewriteConfig().setMaxIterations(64))))
      return root->emitError("internal error: hodu-gpu-lower-vectors' "
                             "rewrites did not converge");
    IRRewriter rewriter(ctx);
    DominanceInfo dominance(root);
    eliminateCommonSubExpressions(rewriter, dominance, root);
    return success();
  }

  void runOnOperation() override {
    int64_t width = std::max<int64_t>(vectorWidth, 1);
    // Kernel by kernel: the host code's views (expand_shape of buffers the
    // launch plan places) are left alone.
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    for (gpu::LaunchOp f : launches) {
      // A matrix-unit kernel (TensorCoreKernel.cpp, MatrixCores.cpp) is built
      // with the vectors its MMA fragments need, which these stages would
      // take apart.
      if (f.walk([](Operation *op) {
             return isa<nvgpu::NVGPUDialect, ROCDL::ROCDLDialect>(
                        op->getDialect())
                        ? WalkResult::interrupt()
                        : WalkResult::advance();
           }).wasInterrupted())
        continue;
      // Views folded into the transfers (the hoisting below needs the
      // buffer itself), multiply-reductions made contractions, transfer
      // maps made minor identities.
      if (failed(stage(f, [](RewritePatternSet &p) {
            populateFoldSubViews(p);
            vector::populateVectorReductionToContractPatterns(p);
            vector::populateVectorTransferPermutationMapLoweringPatterns(p);
          })))
        return signalPassFailure();
      // Register tiles of 1 x width: each row of a thread's tile is one
      // vector.
      if (failed(stage(f, [&](RewritePatternSet &p) {
            vector::populateVectorUnrollPatterns(
                p, vector::UnrollVectorOptions().setNativeShapeFn(
                       [width](Operation *op) { return nativeShape(op, width); }));
          })))
        return signalPassFailure();
      // Contractions to outer products of vector.fma, on rows.
      if (failed(stage(f, [](RewritePatternSet &p) {
            vector::populateVectorContractLoweringPatterns(
                p, vector::VectorContractLowering::OuterProduct);
            vector::populateVectorOuterProductLoweringPatterns(p);
          })))
        return signalPassFailure();
      // Rows as 1-D vectors (SPIR-V carries no 2-D vector through a loop),
      // then each row of the accumulator read before the K loop and written
      // after it.
      if (failed(stage(
              f,
              [](RewritePatternSet &p) {
                vector::populateCastAwayVectorLeadingOneDimPatterns(p);
              },
              /*canonicalize=*/false)))
        return signalPassFailure();
      linalg::hoistRedundantVectorTransfers(f);
      // Everything else to 1-D ops and 1-D transfers.
      if (failed(stage(f, [](RewritePatternSet &p) {
            vector::populateVectorTransposeLoweringPatterns(
                p, vector::VectorTransposeLowering::EltWise);
            vector::populateVectorMultiReductionLoweringPatterns(
                p, vector::VectorMultiReductionLowering::InnerParallel);
            vector::populateVectorShapeCastLoweringPatterns(p);
            vector::populateVectorTransferPermutationMapLoweringPatterns(p);
          })))
        return signalPassFailure();
      if (failed(stage(f, [](RewritePatternSet &p) {
            populateVectorToSCFConversionPatterns(
                p, VectorTransferToSCFOptions().setTargetRank(1).enableFullUnroll());
            vector::populateVectorTransferLoweringPatterns(p, /*maxTransferRank=*/1);
            vector::populateVectorInsertExtractStridedSliceDecompositionPatterns(p);
            vector::populateVectorShapeCastLoweringPatterns(p);
          })))
        return signalPassFailure();
      // Broadcast lowering and canonicalisation undo each other: apart.
      if (failed(stage(
              f,
              [](RewritePatternSet &p) {
                vector::populateVectorBroadcastLoweringPatterns(p);
              },
              /*canonicalize=*/false)))
        return signalPassFailure();
      if (vectorMemory)
        setAlignments(f);
      if (!vectorMemory &&
          failed(stage(f, [](RewritePatternSet &p) {
            p.add<ScalarizeTransferRead, ScalarizeTransferWrite, ScalarizeLoad,
                  ScalarizeStore>(p.getContext());
          })))
        return signalPassFailure();
      if (failed(stage(
              f,
              [](RewritePatternSet &p) {
                vector::populateVectorFromElementsUnrollPatterns(p);
                vector::populateVectorToElementsUnrollPatterns(p);
              },
              /*canonicalize=*/false)))
        return signalPassFailure();
      if (failed(stage(f, [](RewritePatternSet &p) {
            p.add<ScalarizeUnitVectorOp>(p.getContext());
          })))
        return signalPassFailure();
    }
  }
};
} // namespace
