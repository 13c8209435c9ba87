//===- Vectorize.cpp - tile and vectorise matmuls for CPUs ----------------===//
//
// See hodu-cpu-vectorize in include/hodu/Target/CPU/Passes.td. Rewrites
// convolutions as matmuls and packs matmul operands into panels (in C++),
// then chooses cache and register tile sizes per op, where the shapes are
// known, and lets upstream transform ops do the tiling, vectorisation and
// hoisting (TransformScript.h).
//
// This file holds the pass: the order in which it tries each convolution's
// strategies (Int8DotConv.cpp, Winograd.cpp, ConvToMatmul.cpp,
// DirectConv.cpp) and each matmul's (Int8DotMatmul.cpp, Packing.cpp), and
// the transform script that tiles and vectorises what they leave.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "Bf16Dot.h"
#include "ConvToMatmul.h"
#include "DirectConv.h"
#include "Int8Dot.h"
#include "Packing.h"
#include "Winograd.h"
#include "TransformScript.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/TransformOps/VectorTransformOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/Remarks.h"
#include "llvm/Support/CommandLine.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUVECTORIZE
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;
using namespace hodu::cpu;

namespace {
/// Fault injection for test/Target/CPU/fast-path-fallback.test: lets
/// matmuls with K = 1 into the register-tile script, which fails on them,
/// so that the test sees the fallback to the generic lowering.
llvm::cl::opt<bool> scriptOuterProducts(
    "hodu-cpu-script-outer-products", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("CPU: give matmuls with K = 1 to the register-tile "
                   "script, which fails on them (for tests of the fallback)"));

constexpr llvm::StringLiteral kCandidate = "hodu.vectorize_candidate";
/// The name of the remark that gives a convolution's strategy, which hoduc
/// --print-stats prints (lib/Driver/Stats.cpp).
constexpr llvm::StringLiteral kConvStrategy = "conv-strategy";

struct CpuVectorize : hodu::cpu::impl::CpuVectorizeBase<CpuVectorize> {
  using Base::Base;

  /// `register-m` x `register-n`, or what the target's registers hold (see
  /// the pass description): rows of two vectors, and as many rows as leave
  /// room for the two B vectors and the A broadcast of a k step:
  /// rows * 2 + 2 + 1 <= vector-registers.
  RegisterTile registerTile() const {
    int64_t lanes = hodu::cpu::f32Lanes(vectorBits);
    int64_t maxRows = registerM, maxRowsNarrow = registerM;
    if (registerM == 0) {
      maxRows = std::max<int64_t>((vectorRegisters - 3) / 2, 1);
      // One B vector, the broadcast and a spare beside the accumulators.
      maxRowsNarrow = std::max<int64_t>(
          maxRows, std::min<int64_t>(vectorRegisters - 3, 12));
    }
    return {registerN ? registerN : 2 * lanes, lanes, maxRows, maxRowsNarrow};
  }

  /// Whether `op`'s kernel spreads over threads: the pass's `parallel`,
  /// except for a product inside a parallel loop (an attention tile of
  /// hodu-cpu-fuse-attention), which runs on that loop's thread.
  bool parallelFor(Operation *op) const {
    return parallel && !op->getParentOfType<scf::ForallOp>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (winograd != "auto" && winograd != "f2" && winograd != "off") {
      module.emitError() << "hodu-cpu-vectorize: winograd takes auto, f2 or "
                            "off, not '"
                         << winograd << "'";
      return signalPassFailure();
    }
    RegisterTile tile = registerTile();
    // The int8 kernels: VNNI, else int16 pairs (AVX2 or AVX-512BW).
    hodu::cpu::Int8Isa int8Isa{/*vnni=*/int8Dot,
                               static_cast<unsigned>(vectorBits),
                               static_cast<unsigned>(vectorRegisters),
                               /*amx=*/int8Dot && amx};
    bool intDot =
        int8Dot || (int16Dot && (vectorBits == 256 || vectorBits == 512));
    // Each convolution's strategy, as an analysis remark (MLIR's remark
    // engine: nothing unless a client enables it; hoduc --print-stats does).
    auto record = [&](Location loc, const std::string &what) {
      remark::analysis(loc, remark::RemarkOpts::name(kConvStrategy)
                                .category(getArgument()))
          << StringRef(what);
    };
    // Grouped and depthwise convolutions: a direct kernel (DirectConv.cpp)
    // where the channels per group are few, else the generic lowering.
    SmallVector<linalg::GenericOp> generics;
    if (directConv)
      module.walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      Location loc = op.getLoc();
      if (std::optional<std::string> what =
              hodu::cpu::groupedConvToDirect(op, vectorBits, parallel))
        record(loc, *what);
    }
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    module.walk([&](linalg::Conv2DNchwFchwOp conv) { convs.push_back(conv); });
    for (auto conv : convs) {
      if (!conv.hasPureTensorSemantics())
        continue;
      Location loc = conv.getLoc();
      // The strategies that take any batch: the int8 kernels, and the direct
      // kernel for too few filters for a register tile (one group).
      auto int8 = [&] {
        std::optional<std::string> what;
        if (intDot && (what = hodu::cpu::convToInt8Dot(conv, parallel, int8Isa)))
          record(loc, *what);
        return what.has_value();
      };
      auto direct = [&] {
        std::optional<std::string> what;
        if (directConv &&
            (what = hodu::cpu::convToDirect(conv, vectorBits, parallel)))
          record(loc, *what);
        return what.has_value();
      };
      // A batch larger than 1: those take it as it is; for the others, a
      // loop of batch-1 convolutions.
      auto input = cast<RankedTensorType>(conv.getInputs()[0].getType());
      if (input.getDimSize(0) > 1) {
        if (int8() || direct())
          continue;
        conv = hodu::cpu::splitConvBatch(conv);
      }
      if (int8())
        continue;
      if (packB && winograd != "off")
        if (std::optional<std::string> what = hodu::cpu::convToWinograd(
                conv, tile, parallel, /*allowF4=*/winograd == "auto",
                /*directPairs=*/bf16Dot ? 2 : 1)) {
          record(loc, *what);
          continue;
        }
      if (packB)
        if (std::optional<std::string> what =
                convToTransposedMatmul(conv, tile.lanes)) {
          record(loc, *what);
          continue;
        }
      // On bf16 dot products (--precision=bf16): what Winograd and the
      // transposed matmul leave (the latter's matmul takes them below).
      if (bf16Dot)
        if (std::optional<std::string> what =
                hodu::cpu::convToBf16Dot(conv, parallel, vectorRegisters)) {
          record(loc, *what);
          continue;
        }
      std::string what;
      if (packB && convToPackedMatmul(conv, tile, packCacheK, parallel, what)) {
        record(loc, what);
        continue;
      }
      if (direct())
        continue;
      convToIm2colMatmul(conv);
      record(loc, "im2col copy + matmul");
    }
    {
      // The importer's integer matmuls in K parts (sums past 2^24), one
      // int8 matmul each: the int32 sums need no parts.
      // (One walk per merge: a merge erases the ops of its tree.)
      while (intDot && module
                           .walk([&](linalg::GenericOp g) {
                             Location loc = g.getLoc();
                             std::optional<std::string> what =
                                 hodu::cpu::mergedPartsToInt8Dot(g, parallel,
                                                                 int8Isa);
                             if (!what)
                               return WalkResult::advance();
                             record(loc, *what);
                             return WalkResult::interrupt();
                           })
                           .wasInterrupted()) {
      }
      SmallVector<linalg::MatmulOp> matmuls;
      module.walk([&](linalg::MatmulOp mm) { matmuls.push_back(mm); });
      // Matmuls of 8-bit integers (MatMulInteger, QLinearMatMul) on VNNI,
      // first: the rest below is for float ones.
      if (intDot)
        llvm::erase_if(matmuls, [&](linalg::MatmulOp mm) {
          if (mm->hasAttr(kIm2col))
            return false;
          Location loc = mm.getLoc();
          std::optional<std::string> what =
              hodu::cpu::matmulToInt8Dot(mm, parallel, int8Isa);
          if (what)
            record(loc, *what);
          return what.has_value();
        });
      // f32 matmuls and batch matmuls on bf16 dot products
      // (--precision=bf16).
      // The products of a parallel loop's tile (an attention tile) run on
      // the tile's thread, their B packed once per tile.
      if (bf16Dot)
        llvm::erase_if(matmuls, [&](linalg::MatmulOp mm) {
          Location loc = mm.getLoc();
          std::optional<std::string> what =
              hodu::cpu::matmulToBf16Dot(mm, parallelFor(mm), vectorRegisters);
          if (what)
            record(loc, *what);
          return what.has_value();
        });
      if (bf16Dot) {
        SmallVector<linalg::BatchMatmulOp> batched;
        module.walk([&](linalg::BatchMatmulOp mm) { batched.push_back(mm); });
        for (linalg::BatchMatmulOp mm : batched) {
          Location loc = mm.getLoc();
          if (std::optional<std::string> what = hodu::cpu::batchMatmulToBf16Dot(
                  mm, parallelFor(mm), vectorRegisters))
            record(loc, *what);
        }
      }
      for (linalg::MatmulOp &mm : matmuls)
        if (!mm->hasAttr(kIm2col))
          if (linalg::MatmulOp wide = padMatmulColumns(mm, tile.lanes))
            mm = wide;
      for (linalg::MatmulOp mm : matmuls) {
        bool im2col = mm->hasAttr(kIm2col);
        mm->removeAttr(kIm2col);
        // A product in a parallel loop's tile would pack its B once per
        // iteration: the register-tile script takes it as it is.
        if (!packB || im2col || !mm.hasPureTensorSemantics() ||
            mm.hasUserDefinedMaps() || mm->getParentOfType<scf::ForallOp>())
          continue;
        auto a = dyn_cast<RankedTensorType>(mm.getInputs()[0].getType());
        auto bt = dyn_cast<RankedTensorType>(mm.getInputs()[1].getType());
        auto c = dyn_cast<RankedTensorType>(mm.getOutputs()[0].getType());
        if (!a || !bt || !c || !a.hasStaticShape() || !bt.hasStaticShape() ||
            !c.hasStaticShape() || !isa<Float32Type, Float64Type>(c.getElementType()) ||
            a.getElementType() != c.getElementType() ||
            bt.getElementType() != c.getElementType())
          continue;
        int64_t m = a.getDimSize(0), n = bt.getDimSize(1), k = bt.getDimSize(0);
        int64_t nr = registerSize(n, tile.cols, 4);
        int64_t mr = rowTile(m, tile.maxRowsFor(nr));
        // One panel is B itself; short k loops gain nothing.
        if (nr < 4 || mr < 4 || n / nr < 2 || k < packMinK)
          continue;
        packMatmul(mm, mr, nr, tileSize(k, packCacheK, 1), packMinM, parallel);
      }
    }
    // The ops the script tiles and vectorises, numbered (kCandidate) so
    // that they can be found again in a restored module.
    SmallVector<Operation *> candidates;
    module.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kPanel) || tileableMatmul(op))
        candidates.push_back(op);
    });
    if (candidates.empty())
      return;
    OpBuilder attrs(module.getContext());
    for (auto [i, op] : llvm::enumerate(candidates))
      op->setAttr(kCandidate, attrs.getI64IntegerAttr(i));
    // All of them in one script; should it fail (a transform that does not
    // fit one of them), the module is put back and each is tried alone, so
    // that one misfit keeps only itself on the generic lowering.
    bool applied = false;
    if (failed(applyScript(module, candidates, tile, /*quiet=*/true, applied)))
      return signalPassFailure();
    if (!applied) {
      for (int64_t i = 0, e = candidates.size(); i < e; ++i) {
        Operation *op = nullptr;
        module.walk([&](Operation *o) {
          auto id = o->getAttrOfType<IntegerAttr>(kCandidate);
          if (id && id.getInt() == i)
            op = o;
          return op ? WalkResult::interrupt() : WalkResult::advance();
        });
        if (op && failed(applyScript(module, op, tile, /*quiet=*/false, applied)))
          return signalPassFailure();
      }
    }
    module.walk([](Operation *op) {
      op->removeAttr(kCandidate);
      op->removeAttr(kPanel);
    });
  }

  /// A static float (batch) matmul that tileMatmul takes.
  static bool tileableMatmul(linalg::LinalgOp op) {
    if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
        !op.hasPureTensorSemantics())
      return false;
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !isa<Float32Type, Float64Type>(resultType.getElementType()))
      return false;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return false;
    int64_t n = ranges[ranges.size() == 4 ? 2 : 1];
    // K = 1 (an outer product: a decoder's attention over one key) folds
    // its k loop away while the script tiles it, which the script cannot
    // follow: the generic lowering takes it, without a remark.
    if (ranges.back() < 2 && !scriptOuterProducts)
      return false;
    return n % 4 == 0; // else no useful vector width: the scalar path
  }

  /// Builds and applies the script for `ops` (packed register tiles and
  /// tileable matmuls); a failing script leaves the module as it was, with a
  /// remark at the op unless `quiet`.
  LogicalResult applyScript(ModuleOp module, ArrayRef<Operation *> ops,
                            RegisterTile tile, bool quiet, bool &applied) {
    hodu::cpu::TransformScript script(module);
    // The k loops of the register tiles, which carry the accumulators: their
    // transfers are hoisted once the vector patterns have run.
    SmallVector<Value> kLoops;
    for (Operation *o : ops) {
      auto op = cast<linalg::LinalgOp>(o);
      if (op->hasAttr(kPanel)) {
        // A packed register tile: only the k loop is left to make (or, for
        // the fill of its accumulator, nothing).
        Value tile = script.bind(op);
        if (isa<linalg::FillOp>(op.getOperation())) {
          script.vectorize(tile);
          continue;
        }
        hodu::cpu::TransformScript::Tiled k = script.tileUsingFor(tile, {0, 0, 1});
        script.vectorize(k.op, /*namedContraction=*/true);
        kLoops.push_back(k.loops[0]);
        continue;
      }
      kLoops.push_back(tileMatmul(script, op, tile));
    }
    script.applyPatternsToFuncs([](OpBuilder &b, Location loc) {
      transform::ApplyLowerContractionPatternsOp::create(
          b, loc, vector::VectorContractLowering::OuterProduct);
      transform::ApplyTransferPermutationPatternsOp::create(b, loc);
      transform::ApplyLowerOuterProductPatternsOp::create(b, loc);
      transform::ApplyCanonicalizationPatternsOp::create(b, loc);
    });
    for (Value loop : kLoops)
      script.hoistLoopInvariantSubsets(loop);
    std::optional<Location> where;
    if (ops.size() == 1)
      where = ops.front()->getLoc();
    return script.applyOrKeep(getArgument(), &applied, where, quiet);
  }

  /// Adds the cache and register tiling of `op`, a tileableMatmul, to
  /// `script` and returns the k loop of its register tile.
  Value tileMatmul(hodu::cpu::TransformScript &script, linalg::LinalgOp op,
                   RegisterTile tile) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    bool batched = ranges.size() == 4;
    int64_t m = ranges[batched], n = ranges[batched + 1], k = ranges[batched + 2];
    // Register tile: up to tile.maxRowsFor(nr) rows of nr <= tile.cols columns.
    int64_t nr = registerSize(n, tile.cols, 4);
    int64_t mr = rowTile(m, tile.maxRowsFor(nr));
    int64_t mc = tileSize(m, cacheM, mr), nc = tileSize(n, cacheN, nr),
            kc = tileSize(k, cacheK, 1);
    // A k with no divisor up to cache-k (a prime such as 257 FFT bins) is
    // not cache-tiled: tiles of one would leave the register tiling's k
    // loop nothing to tile.
    if (kc == 1)
      kc = k;
    // The cache tiles of one dimension are spread over threads (an
    // scf.forall, lowered to OpenMP later): the batch if there is one,
    // else whichever of M and N has more tiles.
    bool parallel = parallelFor(op);
    SmallVector<int64_t> par{0, 0, 0}, seq{mc, nc, kc}, reg{mr, nr, 1};
    if (parallel) {
      if (m / mc >= n / nc) {
        par[0] = mc;
        seq[0] = 0;
      } else {
        par[1] = nc;
        seq[1] = 0;
      }
    }
    if (batched) {
      par.insert(par.begin(), parallel ? 1 : 0);
      seq.insert(seq.begin(), parallel ? 0 : 1);
      reg.insert(reg.begin(), 0); // already 1 after the cache tiling
      if (parallel) { // the batch is the parallel dim: M and N stay sequential
        seq[1] = mc;
        seq[2] = nc;
        par[1] = par[2] = 0;
      }
    }
    Value target = script.bind(op);
    if (parallel)
      target = script.tileUsingForall(target, par).op;
    target = script.tileUsingFor(target, seq).op;
    hodu::cpu::TransformScript::Tiled registerTile =
        script.tileUsingFor(target, reg);
    script.vectorize(registerTile.op, /*namedContraction=*/true);
    // Register tiling makes three loops (m, n, k) in both cases; the
    // innermost carries the accumulator.
    return registerTile.loops[2];
  }
};
} // namespace
