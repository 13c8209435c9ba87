//===- TensorCore.cpp - contractions on NVIDIA tensor cores ---------------===//
//
// The tensor-core strategy of hodu-gpu-tile (CUDA, sm_80 and later): a
// contraction whose operands the MMA units can read becomes one kernel of
// BM x BN output tiles, each computed by 4 warps (2 x 2, a warp tile of
// BM/2 x BN/2) with `mma.sync`:
//
//   - a 3-stage `cp.async` pipeline copies the A and B tiles of each K step
//     into workgroup memory (16-byte chunks, zero-filled past the edges of
//     the operands, so any M, N and K that keep the rows 16-byte aligned
//     work), XOR-swizzled so that both the copies and the reads are free of
//     bank conflicts;
//   - `ldmatrix` loads the fragments (`.trans` for an f16/bf16 B stored
//     [K][N]); an f32 B stored [K][N] is read element by element;
//   - f16 and bf16 multiply as m16n8k16, f32 as m16n8k8 TF32, or as 3xTF32
//     (a = big + small, three products, f32-accurate): `--gpu-math`;
//   - the f32 accumulators are written to the output (rounded to its type)
//     from the registers, masked at its edges.
//
// hodu-gpu-tile tiles the contraction into block loops and marks it with
// `hodu.gpu.mma`; after bufferisation hodu-gpu-map-to-launches calls
// lowerTensorCoreContractions (LowerMatrixUnits.cpp), which replaces the
// marked op of each block with the kernel body (upstream's nvgpu ops,
// lowered by the CUDA target's NVVM phase), or for AMD's matrix cores
// with MatrixCores.cpp's. This file holds the planning, which serves both:
// the plan, the weights laid out for the units, split-K for contractions
// that fill too few blocks, the implicit GEMM's gather and the block
// loops. The kernel is emitted
// directly rather than through vector.contract and the transform dialect:
// that route still needs
// the copies distributed over warps and workgroup buffers made attributions
// (../shared/reference/gpu-tensor-core-recipes.md), and direct emission
// fixes the swizzle, the stage indices and the predication exactly. The
// code follows the kernels that note verified with ptxas and that ran on an
// H200 (docs/device-runs.md, 2026-12-04).
//
//===----------------------------------------------------------------------===//

#include "MatrixKernel.h"
#include "Strategies.h"
#include "hodu/Support/DType.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace hodu::gpu {

namespace {
/// `v` seen through reshapes, which keep a buffer dense.
Value throughReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether the innermost result of `map` is loop `d`.
bool innermostIs(AffineMap map, unsigned d) {
  return map.getNumResults() > 0 &&
         map.getResults().back() == getAffineDimExpr(d, map.getContext());
}

/// Output tiles, largest first, and the one picked for a problem of
/// `outer` x `rows` x `cols`: the largest of at least `minRows` rows that
/// does not overhang the output by more than a 32-row or 32-column strip
/// (a tile of `minRows` rows may) and leaves `minBlocks` blocks, else the
/// one with the most blocks.
std::pair<int64_t, int64_t> chooseMmaTile(int64_t outer, int64_t rows,
                                          int64_t cols, int64_t minBlocks,
                                          int64_t minRows) {
  static constexpr std::pair<int64_t, int64_t> kTiles[] = {
      {128, 128}, {128, 64}, {64, 128}, {64, 64},
      {64, 32},   {32, 64},  {32, 32},
  };
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  std::pair<int64_t, int64_t> best = {minRows, 32};
  int64_t bestBlocks = -1;
  for (auto [bm, bn] : kTiles) {
    if (bm < minRows || (bm > minRows && bm > ceilDiv(rows, 32) * 32) ||
        bn > ceilDiv(cols, 32) * 32)
      continue;
    int64_t blocks = outer * ceilDiv(rows, bm) * ceilDiv(cols, bn);
    if (blocks >= minBlocks)
      return {bm, bn};
    if (blocks > bestBlocks) {
      best = {bm, bn};
      bestBlocks = blocks;
    }
  }
  return best;
}
} // namespace

//===----------------------------------------------------------------------===//
// Planning, on tensors
//===----------------------------------------------------------------------===//

/// The plan of `op` on tensor cores under `o` (without zeroInit), if its
/// types and layouts allow one.
static std::optional<MmaPlan> planOf(linalg::LinalgOp op, const TileOptions &o) {
  if (o.tensorCores.empty() || !isContraction(op) || op.getNumDpsInputs() != 2)
    return std::nullopt;
  // Float multiply-adds only (the body may widen f16 to f32).
  Block &body = op->getRegion(0).front();
  if (llvm::any_of(body, [](Operation &inner) {
        return isa<arith::MulIOp, arith::AddIOp>(inner);
      }))
    return std::nullopt;
  Type ta = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type tb = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  Type tc = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (ta != tb || !(tc.isF32() || tc.isF16() || tc.isBF16()))
    return std::nullopt;
  // NVIDIA: "3xtf32" or "tf32". AMD: "mfma", with "+bf16" where every
  // architecture has the bf16 MFMA (gfx90a on) and "+xf32" for f32 as
  // gfx940-942's xf32 (--gpu-math=tf32); else f32 is the full f32 MFMA.
  StringRef math = StringRef(o.tensorCores).split('+').first;
  bool amd = math == "mfma";
  auto has = [&](StringRef feature) {
    return StringRef(o.tensorCores).contains(feature);
  };
  std::optional<MmaKind> kind;
  if (ta.isF16())
    kind = MmaKind::F16;
  else if (ta.isBF16() && (!amd || has("+bf16")))
    kind = MmaKind::BF16;
  else if (ta.isF32() && amd)
    kind = has("+xf32") ? MmaKind::XF32 : MmaKind::F32;
  else if (ta.isF32() && math == "tf32")
    kind = MmaKind::TF32;
  else if (ta.isF32() && math == "3xtf32")
    kind = MmaKind::TF32x3;
  if (!kind)
    return std::nullopt;
  // sm_90a: one warpgroup of wgmma, for all but 3xTF32 (which splits its
  // operands in registers, as mma.sync reads them). An emulated kernel is
  // the MFMA or the wgmma one.
  bool wgmma = !amd && has("+wgmma") && *kind != MmaKind::TF32x3;
  bool emulate = has("+emulate");
  if (emulate && !amd && !wgmma)
    return std::nullopt;

  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.size() != 1)
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap out = maps[2];
  // j: the output's innermost dim; i: the innermost output dim of the
  // other kind (M if j is N, N if j is M).
  unsigned j = cast<AffineDimExpr>(out.getResults().back()).getPosition();
  bool jIsN = llvm::is_contained(dims->n, j);
  if (!jIsN && !llvm::is_contained(dims->m, j))
    return std::nullopt;
  ArrayRef<unsigned> others = jIsN ? ArrayRef<unsigned>(dims->m)
                                   : ArrayRef<unsigned>(dims->n);
  unsigned i = others.front();
  for (unsigned d : others)
    if (positionOf(out, d) > positionOf(out, i))
      i = d;
  unsigned k = dims->k.front();
  unsigned x = positionOf(maps[0], i) >= 0 ? 0 : 1;
  AffineMap xm = maps[x], ym = maps[1 - x];
  if (positionOf(xm, k) < 0 || positionOf(ym, k) < 0 ||
      positionOf(ym, j) < 0 || !innermostIs(xm, k))
    return std::nullopt;
  bool kn = innermostIs(ym, j);
  if (!kn && !innermostIs(ym, k))
    return std::nullopt;

  // 16-byte chunks: the rows of X (and of Y) must start at multiples of 16
  // bytes, so the innermost extents must be multiples of a chunk, and the
  // operands dense buffers (not views of another buffer at an offset).
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  int64_t chunk = chunkElements(*kind);
  if (r[k] % chunk || (kn && r[j] % chunk))
    return std::nullopt;
  for (Value in : op.getDpsInputs())
    if (isa_and_nonnull<tensor::ExtractSliceOp, tensor::PadOp>(
            throughReshapes(in).getDefiningOp()))
      return std::nullopt;

  int64_t outer = 1;
  for (unsigned d = 0; d < r.size(); ++d)
    if (d != i && d != j && d != k)
      outer *= r[d];
  auto [bm, bn] =
      chooseMmaTile(outer, r[i], r[j], o.minBlocks, wgmma ? 64 : 32);

  return MmaPlan{*kind,
                 bm,
                 bn,
                 i,
                 j,
                 k,
                 x,
                 kn,
                 /*zeroInit=*/false,
                 amd,
                 emulate,
                 wgmma};
}

bool runsOnTensorCores(linalg::LinalgOp op, const TileOptions &o) {
  return planOf(op, o).has_value();
}

bool planTensorCore(RewriterBase &rewriter, linalg::LinalgOp op,
                    const TileOptions &o) {
  std::optional<MmaPlan> plan = planOf(op, o);
  if (!plan)
    return false;
  // A zero fill of the output is bypassed (the accumulators start at
  // zero), also behind the reshapes that collapsing M or N dims put
  // between them: the output starts from the fill's own destination,
  // reshaped the same way. hodu-gpu-tile erases the fill once it has
  // planned every op.
  SmallVector<Operation *> reshapes;
  Value init = op.getDpsInits()[0];
  while (Operation *def = init.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def) ||
        !def->hasOneUse())
      break;
    reshapes.push_back(def);
    init = def->getOperand(0);
  }
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && fill->hasOneUse() &&
      matchPattern(fill.getInputs()[0], m_AnyZeroFloat())) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    Value start = fill.getOutputs()[0];
    for (Operation *reshape : llvm::reverse(reshapes)) {
      IRMapping map;
      map.map(reshape->getOperand(0), start);
      start = rewriter.clone(*reshape, map)->getResult(0);
    }
    rewriter.modifyOpInPlace(op, [&] { op.getDpsInitsMutable()[0].set(start); });
    for (Operation *reshape : reshapes)
      if (reshape->use_empty())
        rewriter.eraseOp(reshape);
    plan->zeroInit = true;
  }
  op->setAttr(kTensorCore, plan->toAttr(op.getContext()));
  return true;
}

void packWeightsForTensorCores(RewriterBase &rewriter, Block &body,
                               const TileOptions &o) {
  SmallVector<linalg::LinalgOp> ops;
  for (auto op : body.getOps<linalg::LinalgOp>())
    if (op.hasPureTensorSemantics())
      ops.push_back(op);
  // Each constant packed once, for all the contractions that read it (in
  // block order, so the first one's packed constant dominates the rest).
  llvm::DenseMap<Value, Value> packedOf;
  for (linalg::LinalgOp op : ops) {
    std::optional<MmaPlan> plan = planOf(op, o);
    // NVIDIA's mma.sync reads f16/bf16 B [K][N] with ldmatrix.trans
    // already; its wgmma reads every B K-major.
    if (!plan || !plan->kn ||
        (!plan->amd && !plan->wgmma && plan->kind != MmaKind::TF32 &&
         plan->kind != MmaKind::TF32x3))
      continue;
    // B = the operand without M: a constant [K][N] read as (k, j).
    unsigned y = 1 - plan->x;
    Value b = op.getDpsInputs()[y];
    auto cst = b.getDefiningOp<arith::ConstantOp>();
    AffineMap ym = op.getIndexingMapsArray()[y];
    MLIRContext *ctx = op.getContext();
    AffineExpr k = getAffineDimExpr(plan->k, ctx),
               j = getAffineDimExpr(plan->j, ctx);
    if (!cst || ym.getNumResults() != 2 || ym.getResult(0) != k ||
        ym.getResult(1) != j)
      continue;
    auto type = cast<RankedTensorType>(b.getType());
    int64_t kk = type.getDimSize(0), nn = type.getDimSize(1);
    TypedAttr packed;
    if (!packedOf.count(b)) {
      packed = hodu::transposedConstant(
          cst.getValue(), kk, nn,
          RankedTensorType::get({nn, kk}, type.getElementType()),
          "hodu_kmajor");
      if (!packed)
        continue;
    }
    linalg::GenericOp generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, op);
      if (failed(g))
        continue;
      generic = *g;
    }
    Value &kMajor = packedOf[b];
    if (!kMajor) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(generic);
      kMajor = arith::ConstantOp::create(rewriter, cst.getLoc(), packed);
    }
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    maps[y] = AffineMap::get(maps[y].getNumDims(), 0, {j, k}, ctx);
    rewriter.modifyOpInPlace(generic, [&] {
      generic.getDpsInputOperand(y)->set(kMajor);
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    if (cst->use_empty())
      rewriter.eraseOp(cst);
  }
}

/// The slices K is split into for `op` on matrix units (1: none): where
/// even the smallest tiles leave fewer than `minBlocks` blocks, the
/// smallest power of two up to 16 that fills the GPU, each slice keeping
/// at least 256 of K (fewer slices where that leaves less), a whole number
/// of stages each. Only f32 outputs: the partial sums are of the output's
/// type.
static int64_t splitKSlices(linalg::LinalgOp op, const MmaPlan &plan,
                            const TileOptions &o) {
  if (!getElementTypeOrSelf(op.getDpsInits()[0].getType()).isF32())
    return 1;
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  int64_t outer = 1;
  for (unsigned d = 0; d < r.size(); ++d)
    if (d != plan.i && d != plan.j && d != plan.k)
      outer *= r[d];
  int64_t blocks = outer * ((r[plan.i] + 31) / 32) * ((r[plan.j] + 31) / 32);
  int64_t K = r[plan.k], step = stageK(plan.kind);
  int64_t slices = 1;
  for (int64_t s = 2; s <= 16 && blocks * slices < o.minBlocks; s *= 2) {
    if (K % (s * step) || K / s < 256)
      break;
    slices = s;
  }
  return slices;
}

/// The im2col gathers that the split contraction `op` reads through the
/// expand_shape of their K into slices, expanded the same way (upstream's
/// fold of a reshape into its producer by expansion), so that `op` reads
/// each directly and its kernel can compute the gathered operand
/// (fuseableTensorCoreGather) rather than read an im2col tensor.
static void splitGathers(RewriterBase &rewriter, linalg::LinalgOp op) {
  SmallVector<unsigned> gathered;
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto expand = in->get().getDefiningOp<tensor::ExpandShapeOp>();
    auto gather = expand ? expand.getSrc().getDefiningOp<linalg::GenericOp>()
                         : linalg::GenericOp();
    if (gather && gather->hasAttr(kIm2col) && gather->hasOneUse() &&
        expand->hasOneUse() && gather.getNumDpsInputs() == 0)
      gathered.push_back(in->getOperandNumber());
  }
  if (gathered.empty())
    return;
  RewritePatternSet patterns(op.getContext());
  linalg::populateFoldReshapeOpsByExpansionPatterns(
      patterns, [](OpOperand *operand) {
        auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
        return isa<tensor::ExpandShapeOp>(operand->getOwner()) && producer &&
               producer->hasAttr(kIm2col);
      });
  (void)applyPatternsGreedily(op->getParentOp(), std::move(patterns));
  // The expanded gathers are new ops: tagged again.
  for (unsigned i : gathered) {
    auto gather = op->getOperand(i).getDefiningOp<linalg::GenericOp>();
    if (gather && gather.getNumDpsInputs() == 0)
      gather->setAttr(kIm2col, rewriter.getUnitAttr());
  }
}

void splitKForMatrixUnits(RewriterBase &rewriter, Block &body,
                          const TileOptions &o) {
  SmallVector<linalg::LinalgOp> ops;
  for (auto op : body.getOps<linalg::LinalgOp>())
    if (op.hasPureTensorSemantics() && op.getNumReductionLoops() == 1)
      ops.push_back(op);
  for (linalg::LinalgOp op : ops) {
    std::optional<MmaPlan> plan = planOf(op, o);
    if (!plan)
      continue;
    int64_t slices = splitKSlices(op, *plan, o);
    if (slices == 1)
      continue;
    // Upstream's split: the slices are a new outermost dim of the partial
    // sums (a batch of the split contraction, whose K loop is the slice's
    // contiguous part of K), combined into the original output after.
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::SplitReductionResult> split =
        linalg::splitReduction(rewriter, op, [&](linalg::LinalgOp) {
          return linalg::SplitReductionOptions{slices, /*index=*/0,
                                               /*innerParallel=*/false};
        });
    if (succeeded(split))
      splitGathers(rewriter, split->splitLinalgOp);
  }
}

bool epilogueOnRegisters(linalg::LinalgOp epilogue) {
  if (epilogue.getNumDpsInits() != 1 || epilogue.getNumReductionLoops() != 0 ||
      !epilogue->getRegion(0).hasOneBlock())
    return false;
  // Inputs read at the output's position (or a broadcast of it), a body of
  // scalar arithmetic that does not ask for its indices.
  for (OpOperand *in : epilogue.getDpsInputOperands())
    if (!llvm::all_of(epilogue.getMatchingIndexingMap(in).getResults(),
                      [](AffineExpr e) {
                        return isa<AffineDimExpr, AffineConstantExpr>(e);
                      }))
      return false;
  if (!epilogue.getMatchingIndexingMap(epilogue.getDpsInitOperand(0))
           .isPermutation())
    return false;
  return llvm::all_of(epilogue->getRegion(0).front().without_terminator(),
                      [](Operation &op) {
                        return op.getNumRegions() == 0 &&
                               !isa<linalg::IndexOp>(op) &&
                               isMemoryEffectFree(&op);
                      });
}

linalg::LinalgOp fuseableTensorCoreGather(linalg::LinalgOp op) {
  std::optional<MmaPlan> plan =
      MmaPlan::fromAttr(op->getAttrOfType<DictionaryAttr>(kTensorCore));
  linalg::LinalgOp gather = fuseableGather(op);
  if (!plan || !gather || !plan->kn ||
      op.getDpsInputs()[1 - plan->x] != gather->getResult(0))
    return nullptr;
  // Its loops index B (the identity), and its body computes each element
  // from its indices alone (the kernel clones it per element).
  Block &body = gather->getRegion(0).front();
  if (!gather.getMatchingIndexingMap(gather.getDpsInitOperand(0))
           .isIdentity() ||
      !body.getArguments().back().use_empty() ||
      llvm::any_of(body.without_terminator(),
                   [](Operation &inner) { return inner.getNumRegions() != 0; }))
    return nullptr;
  return gather;
}

void tileTensorCore(TransformScript &s, linalg::LinalgOp op, Value handle,
                    linalg::LinalgOp epilogue, Value epilogueHandle,
                    linalg::LinalgOp gather, Value gatherHandle) {
  MLIRContext *ctx = op.getContext();
  MmaPlan plan = *MmaPlan::fromAttr(op->getAttrOfType<DictionaryAttr>(kTensorCore));
  SmallVector<int64_t> r = op.getStaticLoopRanges();
  SmallVector<int64_t> blocks(r.size(), 1);
  blocks[plan.k] = 0;
  blocks[plan.i] = plan.bm;
  blocks[plan.j] = plan.bn;
  // j along x (the output's rows are contiguous in j), i along y, the
  // outer dims (batch, heads, other rows) beyond.
  SmallVector<unsigned> order = {plan.j, plan.i};
  for (unsigned d = r.size(); d-- > 0;)
    if (d != plan.i && d != plan.j && d != plan.k)
      order.push_back(d);
  SmallVector<int64_t> ids = blockIds(r, blocks, order);
  Value forall;
  if (!epilogue) {
    forall =
        s.tileUsingForall(handle, blocks, mappingOf(ctx, blocks, ids, true))
            .loops[0];
  } else {
    // Blocks over the epilogue's output, the contraction fused into them:
    // each block computes its tile's sums and then the epilogue on them.
    SmallVector<int64_t> sizes = onOutput(op, epilogue, blocks);
    forall = s.tileUsingForall(
                  epilogueHandle, sizes,
                  mappingOf(ctx, sizes, onOutput(op, epilogue, ids), true))
                 .loops[0];
    s.fuseIntoContainingOp(handle, forall);
  }
  // The gather's tile of the block (all of K by the block's columns):
  // never computed as such, the kernel computes each chunk it loads from
  // the tile op's body (lowerTensorCoreContractions).
  if (gather)
    s.fuseIntoContainingOp(gatherHandle, forall);
}

} // namespace hodu::gpu
