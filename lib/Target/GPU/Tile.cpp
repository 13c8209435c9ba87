//===- Tile.cpp - linalg ops grouped into kernels and tiled ---------------===//
//
// See hodu-gpu-tile in include/hodu/Target/GPU/Passes.td. The strategies
// are in Strategies.h; this file groups the ops of each function into
// kernels and runs one transform script per kernel, falling back to a
// thread per element should a strategy's script fail.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Passes.h"

#include "Strategies.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"

namespace hodu::gpu {
#define GEN_PASS_DEF_GPUTILE
#include "hodu/Target/GPU/Passes.h.inc"
} // namespace hodu::gpu

using namespace mlir;
using namespace hodu::gpu;
using hodu::TransformScript;

namespace {
/// Discardable attributes that carry the grouping from planning to tiling.
constexpr llvm::StringLiteral kKernel = "hodu.gpu.kernel";
constexpr llvm::StringLiteral kRole = "hodu.gpu.role";

enum class Strategy { Contraction, Reduction, PerElement, TensorCore };

/// The ops of one kernel, found again by their tags.
struct Kernel {
  Strategy strategy = Strategy::PerElement;
  linalg::LinalgOp root, contraction, init, gather;
  /// A per-element kernel's reduction producer and its initialiser.
  linalg::LinalgOp producer, producerInit;
};

struct GpuTile : hodu::gpu::impl::GpuTileBase<GpuTile> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TileOptions o;
    o.maxThreads = blockThreads;
    o.minBlocks = minBlocks;
    o.workgroupBytes = workgroupMemory;
    o.tileK = tileK;
    o.reduceThreads = std::min<int64_t>(reduceThreads, blockThreads);
    o.minWorkgroupReduction = minWorkgroupReduction;
    o.tensorCores = tensorCores;
    o.implicitGemm = implicitGemm;
    IRRewriter rewriter(&getContext());
    bool ok = true;
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal())
        continue;
      if (failed(check(func))) {
        ok = false;
        continue;
      }
      // hodu-gpu-fuse-attention's loops: a kernel each, made here.
      for (auto loop : llvm::to_vector(func.getBody().getOps<scf::ForallOp>()))
        if (loop->hasAttr(kAttentionBlock) &&
            failed(tileAttentionBlock(rewriter, loop, o)))
          ok = false;
      prepareContractions(rewriter, func.getBody().front(), o);
      if (!o.tensorCores.empty()) {
        packWeightsForTensorCores(rewriter, func.getBody().front(), o);
        splitKForMatrixUnits(rewriter, func.getBody().front(), o);
      }
      int64_t kernels = plan(rewriter, func, o);
      for (int64_t k = 0; k < kernels && ok; ++k)
        ok = succeeded(tileKernel(module, func, k, o));
    }
    module.walk([](Operation *op) {
      op->removeAttr(kKernel);
      op->removeAttr(kRole);
      op->removeAttr(kIm2col);
    });
    if (!ok)
      signalPassFailure();
  }

  /// What the GPU path cannot map, reported by name.
  LogicalResult check(func::FuncOp func) {
    WalkResult result = func.walk([&](linalg::LinalgOp op) {
      if (!op.hasDynamicShape())
        return WalkResult::advance();
      op->emitError("'") << op->getName() << "' cannot be mapped to the "
                         << target
                         << " target: dynamic shapes are not supported on "
                            "GPUs yet";
      return WalkResult::interrupt();
    });
    return failure(result.wasInterrupted());
  }

  /// Groups the top-level linalg ops of `func` into kernels, from the last
  /// op up so that an epilogue claims its contraction, and tags them;
  /// returns the number of kernels.
  int64_t plan(RewriterBase &rewriter, func::FuncOp func,
               const TileOptions &o) {
    SmallVector<linalg::LinalgOp> ops;
    for (auto op : func.getBody().front().getOps<linalg::LinalgOp>())
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    int64_t next = 0;
    auto tag = [&](linalg::LinalgOp op, StringRef role, int64_t id) {
      op->setAttr(kKernel, rewriter.getI64IntegerAttr(id));
      op->setAttr(kRole, rewriter.getStringAttr(role));
    };
    for (linalg::LinalgOp op : llvm::reverse(ops)) {
      if (op->hasAttr(kKernel))
        continue;
      // A fill a tensor-core contraction bypassed (erased below).
      if (isa<linalg::FillOp>(op) && op->use_empty())
        continue;
      // Ops without parallel loops that no workgroup reduces (scalar
      // arithmetic) are left whole: hodu-gpu-map-to-launches gives them a
      // one-thread kernel after bufferisation.
      bool workgroup = isWorkgroupReduction(op, o);
      if (op.getNumParallelLoops() == 0 && !workgroup)
        continue;
      int64_t id = next++;
      Strategy strategy = Strategy::PerElement;
      linalg::LinalgOp init, gather, producer, producerInit;
      // A contraction on the FMA units, with its fill and its gather.
      auto onFmaUnits = [&](linalg::LinalgOp contraction) {
        strategy = Strategy::Contraction;
        init = fuseableInit(contraction);
        gather = o.implicitGemm ? fuseableGather(contraction) : nullptr;
      };
      // A contraction on matrix units, with its gather (computed in the
      // kernel's K steps where its operand is B stored [K][N]).
      auto onMatrixUnits = [&](linalg::LinalgOp contraction) {
        strategy = Strategy::TensorCore;
        gather =
            o.implicitGemm ? fuseableTensorCoreGather(contraction) : nullptr;
        if (gather)
          gather->setAttr(kMmaGather, rewriter.getUnitAttr());
      };
      if (op.getNumReductionLoops() == 0) {
        // An elementwise op may be the epilogue of the contraction it reads;
        // one on tensor cores computes it on its registers when it can
        // (else the epilogue is a kernel of its own).
        bool tensorCores = readsTensorCoreContraction(op, o);
        if (linalg::LinalgOp contraction =
                tensorCores && !epilogueOnRegisters(op)
                    ? linalg::LinalgOp()
                    : fuseableEpilogue(rewriter, op)) {
          tag(contraction, "contraction", id);
          if (tensorCores && planTensorCore(rewriter, contraction, o)) {
            onMatrixUnits(contraction);
          } else {
            onFmaUnits(contraction);
          }
        } else if ((producer = fuseableProducer(op, o))) {
          // An elementwise op after a depthwise convolution or a pooling
          // window: a thread computes its elements of both.
          tag(producer, "producer", id);
          producerInit = fuseableInit(producer);
          if (producerInit)
            tag(producerInit, "producer-init", id);
        }
      } else if (planTensorCore(rewriter, op, o)) {
        onMatrixUnits(op);
      } else if (isContraction(op)) {
        onFmaUnits(op);
      } else {
        if (workgroup)
          strategy = Strategy::Reduction;
        init = fuseableInit(op);
        // A workgroup reduction folds only a fill into its last step.
        if (workgroup && init && !isa<linalg::FillOp>(init))
          init = nullptr;
      }
      tag(op, "root", id);
      op->setAttr("hodu.gpu.strategy",
                  rewriter.getI64IntegerAttr(static_cast<int64_t>(strategy)));
      if (init)
        tag(init, "init", id);
      if (gather)
        tag(gather, "gather", id);
    }
    for (auto fill : llvm::make_early_inc_range(
             func.getBody().front().getOps<linalg::FillOp>()))
      if (fill->use_empty() && fill.hasPureTensorSemantics())
        rewriter.eraseOp(fill);
    return next;
  }

  /// Whether an input of elementwise `op` comes from a contraction that
  /// runs on tensor cores.
  static bool readsTensorCoreContraction(linalg::LinalgOp op,
                                         const TileOptions &o) {
    return llvm::any_of(op.getDpsInputs(), [&](Value in) {
      auto producer = in.getDefiningOp<linalg::LinalgOp>();
      return producer && producer->getBlock() == op->getBlock() &&
             runsOnTensorCores(producer, o);
    });
  }

  /// The tagged ops of kernel `id`.
  static Kernel find(func::FuncOp func, int64_t id) {
    Kernel k;
    for (auto op : func.getBody().front().getOps<linalg::LinalgOp>()) {
      auto tagged = op->getAttrOfType<IntegerAttr>(kKernel);
      if (!tagged || tagged.getInt() != id)
        continue;
      StringRef role = op->getAttrOfType<StringAttr>(kRole).getValue();
      if (role == "init")
        k.init = op;
      else if (role == "gather")
        k.gather = op;
      else if (role == "producer")
        k.producer = op;
      else if (role == "producer-init")
        k.producerInit = op;
      else if (role == "contraction")
        k.contraction = op;
      else
        k.root = op;
      if (auto s = op->getAttrOfType<IntegerAttr>("hodu.gpu.strategy")) {
        k.strategy = static_cast<Strategy>(s.getInt());
        op->removeAttr("hodu.gpu.strategy");
      }
    }
    // A contraction without an epilogue is its own root.
    if (!k.root && k.contraction) {
      k.root = k.contraction;
      k.contraction = nullptr;
    }
    return k;
  }

  /// Runs the script of kernel `id`; should it fail (a shape a strategy
  /// did not foresee), the function is restored and each op of the kernel
  /// gets a thread per element.
  LogicalResult tileKernel(ModuleOp module, func::FuncOp func, int64_t id,
                           const TileOptions &o) {
    Kernel k = find(func, id);
    if (!k.root)
      return success();
    auto saved = cast<func::FuncOp>(func->clone());
    std::string why;
    if (succeeded(runQuietly(module, why, [&](TransformScript &s) {
          build(s, k, o);
        }))) {
      saved.erase();
      return success();
    }
    func.getBody().takeBody(saved.getBody());
    saved.erase();
    k = find(func, id);
    if (reportFallbacks)
      k.root->emitRemark("hodu-gpu-tile: the kernel's strategy failed, a "
                         "thread per element instead: ")
          << why;
    for (linalg::LinalgOp op : {k.gather, k.producerInit, k.producer, k.init,
                                k.contraction, k.root}) {
      if (!op)
        continue;
      op->removeAttr(kWorkgroupReduce);
      restoreZeroFill(op);
      op->removeAttr(kTensorCore);
      if (op.getNumParallelLoops() == 0)
        continue; // a one-thread kernel after bufferisation
      std::string fallbackWhy;
      if (failed(runQuietly(module, fallbackWhy, [&](TransformScript &s) {
            tilePerElement(s, op, s.match(op), nullptr, Value(), o);
          })))
        return op->emitError("'")
               << op->getName() << "' cannot be mapped to the " << target
               << " target: " << fallbackWhy;
    }
    return success();
  }

  /// A tensor-core contraction whose zero fill planning dropped gets it
  /// back (its fallback kernels accumulate onto the output).
  static void restoreZeroFill(linalg::LinalgOp op) {
    auto plan = op->getAttrOfType<DictionaryAttr>(kTensorCore);
    auto zero = plan ? plan.getAs<BoolAttr>("zero") : BoolAttr();
    if (!zero || !zero.getValue())
      return;
    OpBuilder b(op);
    OpOperand *init = op.getDpsInitOperand(0);
    Value value = arith::ConstantOp::create(
        b, op.getLoc(), b.getZeroAttr(getElementTypeOrSelf(init->get().getType())));
    init->set(linalg::FillOp::create(b, op.getLoc(), value, init->get())
                  .getResult(0));
  }

  /// Builds and applies one script, keeping its diagnostics in `why`.
  LogicalResult runQuietly(ModuleOp module, std::string &why,
                           function_ref<void(TransformScript &)> build) {
    TransformScript s(module);
    build(s);
    llvm::raw_string_ostream os(why);
    ScopedDiagnosticHandler handler(&getContext(), [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        os << d.str() << "; ";
      return success();
    });
    return s.apply(getArgument());
  }

  void build(TransformScript &s, const Kernel &k, const TileOptions &o) {
    // All matches first: tiled clones keep the tags of their originals.
    Value root = s.match(k.root);
    Value contraction = k.contraction ? s.match(k.contraction) : Value();
    Value init = k.init ? s.match(k.init) : Value();
    Value gather = k.gather ? s.match(k.gather) : Value();
    Value producer = k.producer ? s.match(k.producer) : Value();
    Value producerInit = k.producerInit ? s.match(k.producerInit) : Value();
    switch (k.strategy) {
    case Strategy::Contraction:
      if (k.contraction)
        tileContraction(s, k.contraction, contraction, k.root, root, k.init,
                        init, k.gather, gather, o);
      else
        tileContraction(s, k.root, root, nullptr, Value(), k.init, init,
                        k.gather, gather, o);
      return;
    case Strategy::Reduction:
      tileWorkgroupReduction(s, k.root, root, k.init, init, o);
      return;
    case Strategy::PerElement:
      tilePerElement(s, k.root, root, k.init, init, o, producer, producerInit);
      return;
    case Strategy::TensorCore:
      if (k.contraction)
        tileTensorCore(s, k.contraction, contraction, k.root, root, k.gather,
                       gather);
      else
        tileTensorCore(s, k.root, root, nullptr, Value(), k.gather, gather);
      return;
    }
  }
};
} // namespace
