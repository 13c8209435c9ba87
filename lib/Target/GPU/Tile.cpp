//===- Tile.cpp - linalg ops tiled into blocks and threads ----------------===//
//
// See hodu-gpu-tile in include/hodu/Target/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Passes.h"

#include "TransformScript.h"

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
using hodu::gpu::largestDivisor;
using hodu::gpu::listOf;

namespace {
constexpr llvm::StringLiteral kAnyOp = "!transform.any_op";
constexpr int64_t kMaxGridYZ = 65535;

/// `(!transform.any_op) -> (!transform.any_op, !transform.any_op)`.
std::string tileType() {
  return "(" + kAnyOp.str() + ") -> (" + kAnyOp.str() + ", " + kAnyOp.str() +
         ")";
}

/// `#gpu.block<x>` style mapping attributes, one per non-zero size, in loop
/// order.
std::string mappingOf(ArrayRef<int64_t> sizes, ArrayRef<char> dims,
                      StringRef kind) {
  std::string m;
  for (auto [size, dim] : llvm::zip(sizes, dims))
    if (size != 0)
      m += (m.empty() ? "" : ", ") + ("#gpu." + kind + "<").str() + dim + ">";
  return "(mapping = [" + m + "])";
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

    hodu::gpu::TransformScript script(module);
    // All matches first: tiled clones keep the tags of their originals.
    struct Kernel {
      linalg::LinalgOp op;
      std::string handle, fillHandle;
    };
    SmallVector<Kernel> kernels;
    for (linalg::LinalgOp op : ops) {
      if (fused.contains(op))
        continue;
      Kernel k{op, script.match(op), ""};
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
  void tileMatmul(hodu::gpu::TransformScript &s, linalg::LinalgOp op,
                  const std::string &mm, const std::string &fill) {
    SmallVector<int64_t> r = op.getStaticLoopRanges(); // M, N, K
    int64_t bm = largestDivisor(r[0], tileM), bn = largestDivisor(r[1], tileN);
    int64_t bk = largestDivisor(r[2], tileK);
    int64_t ty = largestDivisor(bm, threadsM), tx = largestDivisor(bn, threadsN);
    std::string t = tileType();
    std::string mmB = s.handle(), fB = s.handle();
    s << mmB + ", " + fB + " = transform.structured.tile_using_forall " + mm +
             " tile_sizes " + listOf({bm, bn}) +
             " (mapping = [#gpu.block<y>, #gpu.block<x>]) : " + t;
    std::string fillB;
    if (!fill.empty()) {
      std::string f2 = s.handle();
      fillB = s.handle();
      s << fillB + ", " + f2 +
               " = transform.structured.fuse_into_containing_op " + fill +
               " into " + fB + " : (" + kAnyOp.str() + ", " + kAnyOp.str() +
               ") -> (" + kAnyOp.str() + ", " + kAnyOp.str() + ")";
    }
    std::string mmK = s.handle(), loopK = s.handle();
    s << mmK + ", " + loopK + " = transform.structured.tile_using_for " + mmB +
             " tile_sizes [0, 0, " + std::to_string(bk) + "] : " + t;
    for (int operand : {0, 1}) {
      std::string v = s.handle(), p = s.handle();
      s << v + " = transform.get_operand " + mmK + "[" +
               std::to_string(operand) +
               "] : (!transform.any_op) -> !transform.any_value";
      s << p + " = transform.structured.promote_tensor to "
               "#gpu.address_space<workgroup> " +
               v + " : !transform.any_value";
    }
    auto threads = [&](const std::string &target) {
      std::string a = s.handle(), b = s.handle();
      s << a + ", " + b + " = transform.structured.tile_using_forall " +
               target + " tile_sizes " + listOf({bm / ty, bn / tx}) +
               " (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : " + t;
    };
    threads(mmK);
    if (!fillB.empty())
      threads(fillB);
  }

  /// The innermost parallel loop split into blocks of at most block-threads
  /// threads (grid x), up to two parallel loops around it one block each
  /// (grid y, z); reduction loops and outer parallel loops stay in the
  /// thread.
  void tileParallel(hodu::gpu::TransformScript &s, linalg::LinalgOp op,
                    const std::string &h) {
    SmallVector<int64_t> r = op.getStaticLoopRanges();
    SmallVector<unsigned> parallel;
    op.getParallelDims(parallel);
    SmallVector<int64_t> blocks(r.size(), 0), threads(r.size(), 0);
    SmallVector<char> blockDims(r.size(), 'x');
    unsigned inner = parallel.back();
    blocks[inner] = largestDivisor(r[inner], blockThreads);
    threads[inner] = 1;
    const char yz[] = {'y', 'z'};
    unsigned used = 0;
    for (unsigned d : llvm::reverse(ArrayRef(parallel).drop_back())) {
      if (used == 2 || r[d] > kMaxGridYZ)
        break;
      blocks[d] = 1;
      blockDims[d] = yz[used++];
    }
    std::string t = tileType();
    std::string b = s.handle(), bf = s.handle();
    s << b + ", " + bf + " = transform.structured.tile_using_forall " + h +
             " tile_sizes " + listOf(blocks) + " " +
             mappingOf(blocks, blockDims, "block") + " : " + t;
    std::string th = s.handle(), tf = s.handle();
    s << th + ", " + tf + " = transform.structured.tile_using_forall " + b +
             " tile_sizes " + listOf(threads) + " " +
             mappingOf(threads, blockDims, "thread") + " : " + t;
  }
};
} // namespace
