//===- Tile.cpp - linalg ops tiled into blocks and threads ----------------===//
//
// See hodu-gpu-tile in include/hodu/Target/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Passes.h"

#include "TransformScript.h"

#include "hodu/Target/TransformScript.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"

namespace hodu::gpu {
#define GEN_PASS_DEF_GPUTILE
#include "hodu/Target/GPU/Passes.h.inc"
} // namespace hodu::gpu

using namespace mlir;
using hodu::TransformScript;
using hodu::gpu::largestDivisor;

namespace {
constexpr int64_t kMaxGridYZ = 65535;

/// `#gpu.block<x>` style mapping attributes, one per non-zero size, in loop
/// order.
SmallVector<Attribute> mappingOf(MLIRContext *ctx, ArrayRef<int64_t> sizes,
                                 ArrayRef<gpu::MappingId> dims, bool blocks) {
  SmallVector<Attribute> m;
  for (auto [size, dim] : llvm::zip(sizes, dims))
    if (size != 0)
      m.push_back(blocks ? Attribute(gpu::GPUBlockMappingAttr::get(ctx, dim))
                         : Attribute(gpu::GPUThreadMappingAttr::get(ctx, dim)));
  return m;
}

/// A 2-D linalg.matmul with its default maps (C += A B).
bool isPlainMatmul(linalg::LinalgOp op) {
  auto mm = dyn_cast<linalg::MatmulOp>(op.getOperation());
  return mm && !mm.hasUserDefinedMaps();
}

/// The linalg.fill that only initialises `op`'s output, if any: it is
/// fused into `op`'s blocks instead of becoming a kernel of its own.
linalg::FillOp fusedFill(linalg::LinalgOp op) {
  auto fill = op.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  if (fill && fill->hasOneUse() && fill->getBlock() == op->getBlock())
    return fill;
  return nullptr;
}

struct GpuTile : hodu::gpu::impl::GpuTileBase<GpuTile> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> ops;
    DenseSet<Operation *> fused;
    bool ok = true;
    module.walk([&](func::FuncOp func) {
      for (Operation &op : func.getBody().getOps()) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
        if (!linalgOp || !linalgOp.hasPureTensorSemantics())
          continue;
        if (failed(check(linalgOp))) {
          ok = false;
          continue;
        }
        ops.push_back(linalgOp);
        if (isPlainMatmul(linalgOp))
          if (linalg::FillOp fill = fusedFill(linalgOp))
            fused.insert(fill);
      }
    });
    if (!ok)
      return signalPassFailure();

    TransformScript script(module);
    // All matches first: tiled clones keep the tags of their originals.
    struct Kernel {
      linalg::LinalgOp op;
      Value handle, fillHandle;
    };
    SmallVector<Kernel> kernels;
    for (linalg::LinalgOp op : ops) {
      if (fused.contains(op))
        continue;
      Kernel k{op, script.match(op), Value()};
      if (isPlainMatmul(op))
        if (linalg::FillOp fill = fusedFill(op))
          k.fillHandle = script.match(fill);
      kernels.push_back(k);
    }
    for (const Kernel &k : kernels) {
      if (isPlainMatmul(k.op))
        tileMatmul(script, k.op, k.handle, k.fillHandle);
      else
        tileParallel(script, k.op, k.handle);
    }
    if (!script.empty() && failed(script.apply(getArgument())))
      signalPassFailure();
  }

  /// What the GPU path cannot map, reported by name.
  LogicalResult check(linalg::LinalgOp op) {
    auto fail = [&](StringRef why) {
      return op->emitError("'")
             << op->getName() << "' cannot be mapped to the " << target
             << " target: " << why;
    };
    if (op.hasDynamicShape())
      return fail("dynamic shapes are not supported on GPUs yet");
    if (op.getNumLoops() == 0)
      return fail("it has no loops");
    if (isPlainMatmul(op))
      return success();
    if (linalg::isaContractionOpInterface(op))
      return fail("only 2-D linalg.matmul contractions are tiled for "
                  "workgroup memory; batched and generic contractions are "
                  "not mapped yet");
    if (op.getNumParallelLoops() == 0)
      return fail("reductions to a single value need a workgroup "
                  "reduction, which is not implemented yet");
    return success();
  }

  /// Blocks of tile-m x tile-n (at most), K steps through workgroup memory,
  /// threads-m x threads-n threads per block; `fill` (a handle, or empty)
  /// initialises the output and is fused into the blocks.
  void tileMatmul(TransformScript &s, linalg::LinalgOp op, Value mm,
                  Value fill) {
    MLIRContext *ctx = op->getContext();
    SmallVector<int64_t> r = op.getStaticLoopRanges(); // M, N, K
    int64_t bm = largestDivisor(r[0], tileM), bn = largestDivisor(r[1], tileN);
    int64_t bk = largestDivisor(r[2], tileK);
    int64_t ty = largestDivisor(bm, threadsM), tx = largestDivisor(bn, threadsN);
    using gpu::MappingId;
    SmallVector<Attribute> blocks = {
        gpu::GPUBlockMappingAttr::get(ctx, MappingId::DimY),
        gpu::GPUBlockMappingAttr::get(ctx, MappingId::DimX)};
    SmallVector<Attribute> threads = {
        gpu::GPUThreadMappingAttr::get(ctx, MappingId::DimY),
        gpu::GPUThreadMappingAttr::get(ctx, MappingId::DimX)};
    TransformScript::Tiled b = s.tileUsingForall(mm, {bm, bn}, blocks);
    Value fillB;
    if (fill)
      fillB = s.fuseIntoContainingOp(fill, b.loops[0]).first;
    Value mmK = s.tileUsingFor(b.op, {0, 0, bk}).op;
    Attribute workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    s.promoteOperand(mmK, 0, workgroup);
    s.promoteOperand(mmK, 1, workgroup);
    s.tileUsingForall(mmK, {bm / ty, bn / tx}, threads);
    if (fillB)
      s.tileUsingForall(fillB, {bm / ty, bn / tx}, threads);
  }

  /// The innermost parallel loop split into blocks of at most block-threads
  /// threads (grid x), up to two parallel loops around it one block each
  /// (grid y, z); reduction loops and outer parallel loops stay in the
  /// thread.
  void tileParallel(TransformScript &s, linalg::LinalgOp op, Value h) {
    SmallVector<int64_t> r = op.getStaticLoopRanges();
    SmallVector<unsigned> parallel;
    op.getParallelDims(parallel);
    SmallVector<int64_t> blocks(r.size(), 0), threads(r.size(), 0);
    SmallVector<gpu::MappingId> blockDims(r.size(), gpu::MappingId::DimX);
    unsigned inner = parallel.back();
    blocks[inner] = largestDivisor(r[inner], blockThreads);
    threads[inner] = 1;
    const gpu::MappingId yz[] = {gpu::MappingId::DimY, gpu::MappingId::DimZ};
    unsigned used = 0;
    for (unsigned d : llvm::reverse(ArrayRef(parallel).drop_back())) {
      if (used == 2 || r[d] > kMaxGridYZ)
        break;
      blocks[d] = 1;
      blockDims[d] = yz[used++];
    }
    MLIRContext *ctx = op->getContext();
    TransformScript::Tiled b =
        s.tileUsingForall(h, blocks, mappingOf(ctx, blocks, blockDims, true));
    s.tileUsingForall(b.op, threads, mappingOf(ctx, threads, blockDims, false));
  }
};
} // namespace
