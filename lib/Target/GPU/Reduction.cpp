//===- Reduction.cpp - rows reduced by a workgroup ------------------------===//
//
// A reduction over long rows (softmax's max and sum, layer norm's mean and
// variance, ReduceSum/Mean/Max, global pooling, a full reduction to one
// value) is done by a block per row, or per few rows when they are short:
//
//   hodu-gpu-tile            the rows are tiled over blocks (the fill of the
//                            output fused) and the tiled op is marked;
//   hodu-gpu-map-to-launches after bufferisation, the marked op becomes
//                            threads striding over the row into partials in
//                            workgroup memory, then a tree: log2(threads)
//                            levels, each half the threads of the last
//                            combining two partials, a barrier between
//                            levels; the first thread of the row writes it.
//
// The tree is written here rather than taken from upstream: the transform
// dialect's tile_reduction_using_forall combines the partials on one thread,
// and gpu.all_reduce is lowered with subgroup shuffles that assume 32 lanes
// on NVVM and ROCDL and has no Vulkan lowering at workgroup scope. Barriers
// and workgroup memory are portable to any subgroup size.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace hodu::gpu {

/// The op combining a partial result with the next value in `op`'s body,
/// if it is one that may be reassociated (sums, products, min and max).
static Operation *combinerOf(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumRegions() != 1)
    return nullptr;
  Block &body = op->getRegion(0).front();
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1)
    return nullptr;
  Operation *c = combiners.front();
  if (!isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp, arith::AddIOp, arith::MulIOp,
           arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp,
           arith::AndIOp, arith::OrIOp, arith::XOrIOp>(c) ||
      !arith::getNeutralElement(c) || c->getBlock() != &body)
    return nullptr;
  return c;
}

bool isWorkgroupReduction(linalg::LinalgOp op, const TileOptions &o) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      op.getNumReductionLoops() == 0 || !combinerOf(op))
    return false;
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  int64_t length = 1;
  for (unsigned d : reductions)
    length *= r[d];
  // Rows shorter than this are reduced faster by a thread each, unless
  // there are no rows to spread over threads.
  return length >= o.minWorkgroupReduction || op.getNumParallelLoops() == 0;
}

void tileWorkgroupReduction(TransformScript &s, linalg::LinalgOp op,
                            Value handle, linalg::LinalgOp init,
                            Value initHandle, const TileOptions &o) {
  MLIRContext *ctx = op->getContext();
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  SmallVector<unsigned> parallel, reductions;
  op.getParallelDims(parallel);
  op.getReductionDims(reductions);
  int64_t length = 1;
  for (unsigned d : reductions)
    length *= r[d];
  int64_t tx = std::min(powerOfTwoBelow(length), o.reduceThreads);
  // Short rows: several rows of the innermost parallel loop per block.
  int64_t rowDim = -1, ty = 1;
  for (unsigned d : llvm::reverse(parallel))
    if (r[d] > 1) {
      rowDim = d;
      break;
    }
  if (rowDim >= 0)
    ty = largestDivisor(r[rowDim], std::max<int64_t>(o.maxThreads / tx, 1));
  op->setAttr(kWorkgroupReduce,
              DenseI64ArrayAttr::get(ctx, {rowDim, ty, tx}));
  if (parallel.empty())
    return; // one block, made by hodu-gpu-map-to-launches
  SmallVector<int64_t> blocks(r.size(), 0);
  SmallVector<unsigned> order;
  if (rowDim >= 0) {
    blocks[rowDim] = ty;
    order.push_back(rowDim);
  }
  for (unsigned d : llvm::reverse(parallel))
    if (blocks[d] == 0) {
      blocks[d] = 1;
      order.push_back(d);
    }
  SmallVector<int64_t> ids = blockIds(r, blocks, order);
  TransformScript::Tiled b =
      s.tileUsingForall(handle, blocks, mappingOf(ctx, blocks, ids, true));
  if (init)
    s.fuseIntoContainingOp(initHandle, b.loops[0]);
}

//===----------------------------------------------------------------------===//
// After bufferisation: the partials and the tree
//===----------------------------------------------------------------------===//

namespace {
/// Builds the workgroup reduction of one marked op on memrefs.
struct TreeBuilder {
  linalg::LinalgOp op;
  Operation *combiner;
  int64_t rowDim, ty, tx;
  OpBuilder b;
  Location loc;

  TreeBuilder(linalg::LinalgOp op, Operation *combiner, int64_t rowDim,
              int64_t ty, int64_t tx)
      : op(op), combiner(combiner), rowDim(rowDim), ty(ty), tx(tx), b(op),
        loc(op.getLoc()) {}

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  Value combine(Value x, Value y) {
    IRMapping map;
    map.map(combiner->getOperand(0), x);
    map.map(combiner->getOperand(1), y);
    return b.clone(*combiner, map)->getResult(0);
  }

  /// A thread loop over (ty, `width`) threads, mapped to y and x.
  void threads(int64_t width,
               function_ref<void(OpBuilder &, Value row, Value lane)> body) {
    MLIRContext *ctx = b.getContext();
    auto mapping = b.getArrayAttr(
        {mlir::gpu::GPUThreadMappingAttr::get(ctx, mlir::gpu::MappingId::DimY),
         mlir::gpu::GPUThreadMappingAttr::get(ctx, mlir::gpu::MappingId::DimX)});
    scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(ty), b.getIndexAttr(width)},
        ValueRange{}, mapping, [&](OpBuilder &nested, Location, ValueRange ivs) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          body(b, ivs[0], ivs[1]);
          scf::InParallelOp::create(b, loc);
        });
  }

  /// The loop indices of the op for `row` and the reduction indices
  /// `reduced` (in order of the reduction dims).
  SmallVector<Value> loopIndices(Value row, ValueRange reduced) {
    SmallVector<Value> ivs;
    Value zero = index(0);
    unsigned next = 0;
    for (unsigned d = 0; d < op.getNumLoops(); ++d) {
      if (op.getIteratorTypesArray()[d] == utils::IteratorType::reduction)
        ivs.push_back(reduced[next++]);
      else
        ivs.push_back(static_cast<int64_t>(d) == rowDim ? row : zero);
    }
    return ivs;
  }

  SmallVector<Value> apply(AffineMap map, ValueRange ivs) {
    SmallVector<Value> result;
    for (AffineExpr e : map.getResults())
      result.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, e), ivs));
    return result;
  }

  /// The body of the op at `ivs`, accumulating into `acc`.
  Value evaluate(ValueRange ivs, Value acc) {
    IRMapping map;
    for (OpOperand *in : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(in);
      if (arg.use_empty())
        continue;
      map.map(arg, memref::LoadOp::create(
                       b, loc, in->get(),
                       apply(op.getMatchingIndexingMap(in), ivs)));
    }
    map.map(op.getRegionOutputArgs()[0], acc);
    return cloneBodyAt(b, op, map, ivs);
  }

  LogicalResult build() {
    SmallVector<int64_t> r = op.getStaticLoopRanges();
    SmallVector<unsigned> reductions;
    op.getReductionDims(reductions);
    SmallVector<int64_t> reducedShape;
    int64_t length = 1;
    for (unsigned d : reductions) {
      reducedShape.push_back(r[d]);
      length *= r[d];
    }
    for (unsigned d = 0; d < r.size(); ++d)
      if (!llvm::is_contained(reductions, d) &&
          r[d] != (static_cast<int64_t>(d) == rowDim ? ty : 1))
        return op.emitError("internal error: a workgroup reduction's block "
                            "holds ")
               << r[d] << " rows of dim " << d;
    OpOperand *outOperand = op.getDpsInitOperand(0);
    Value out = outOperand->get();
    Type element = getElementTypeOrSelf(out.getType());
    // The output's initial value: a fill just before is folded into the
    // last step, which writes the row once.
    Value initial;
    linalg::FillOp fill;
    for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
      if (auto f = dyn_cast<linalg::FillOp>(prev)) {
        if (f.getOutputs()[0] == out)
          fill = f;
        break;
      }
      if (!isa<memref::SubViewOp, arith::ConstantOp, affine::AffineApplyOp>(prev))
        break;
    }
    if (fill)
      initial = fill.getInputs()[0];

    auto workgroup = mlir::gpu::AddressSpaceAttr::get(b.getContext(),
                                                mlir::gpu::AddressSpace::Workgroup);
    auto partialsType = MemRefType::get({ty, tx}, element, AffineMap(), workgroup);
    Value partials = memref::AllocOp::create(b, loc, partialsType);
    Value neutral = arith::ConstantOp::create(
        b, loc, *arith::getNeutralElement(combiner));

    // Each thread reduces the elements lane, lane + tx, ... of its row.
    threads(tx, [&](OpBuilder &, Value row, Value lane) {
      auto loop = scf::ForOp::create(
          b, loc, lane, index(length), index(tx), ValueRange{neutral},
          [&](OpBuilder &nested, Location, Value j, ValueRange args) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPoint(nested.getInsertionBlock(),
                                nested.getInsertionPoint());
            SmallVector<Value> reduced;
            if (reducedShape.size() == 1)
              reduced.push_back(j);
            else
              llvm::append_range(
                  reduced, affine::AffineDelinearizeIndexOp::create(
                               b, loc, j, reducedShape, /*hasOuterBound=*/true)
                               .getResults());
            Value next = evaluate(loopIndices(row, reduced), args[0]);
            scf::YieldOp::create(b, loc, next);
          });
      memref::StoreOp::create(b, loc, loop.getResult(0), partials,
                              ValueRange{row, lane});
    });
    // The tree: each level halves the partials.
    for (int64_t width = tx / 2; width >= 1; width /= 2)
      threads(width, [&](OpBuilder &, Value row, Value lane) {
        Value other = arith::AddIOp::create(b, loc, lane, index(width));
        Value x = memref::LoadOp::create(b, loc, partials, ValueRange{row, lane});
        Value y = memref::LoadOp::create(b, loc, partials, ValueRange{row, other});
        memref::StoreOp::create(b, loc, combine(x, y), partials,
                                ValueRange{row, lane});
      });
    // The first thread of each row writes it.
    threads(1, [&](OpBuilder &, Value row, Value) {
      Value zero = index(0);
      SmallVector<Value> zeros(reductions.size(), zero);
      SmallVector<Value> at =
          apply(op.getMatchingIndexingMap(outOperand), loopIndices(row, zeros));
      Value start = initial ? initial : memref::LoadOp::create(b, loc, out, at);
      Value total = memref::LoadOp::create(b, loc, partials, ValueRange{row, zero});
      memref::StoreOp::create(b, loc, combine(start, total), out, at);
    });
    if (fill)
      fill.erase();
    op->erase();
    return success();
  }
};
} // namespace

LogicalResult lowerWorkgroupReductions(Operation *root) {
  SmallVector<linalg::LinalgOp> marked;
  root->walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kWorkgroupReduce))
      marked.push_back(op);
  });
  for (linalg::LinalgOp op : marked) {
    ArrayRef<int64_t> plan =
        cast<DenseI64ArrayAttr>(op->getAttr(kWorkgroupReduce)).asArrayRef();
    Operation *combiner = combinerOf(op);
    if (!combiner || !op.hasPureBufferSemantics())
      return op.emitError("internal error: a marked workgroup reduction "
                          "lost its combiner");
    if (failed(TreeBuilder(op, combiner, plan[0], plan[1], plan[2]).build()))
      return failure();
  }
  return success();
}

} // namespace hodu::gpu
