//===- VectorizeGenerics.cpp - vectorise elementwise and reduction ops ----===//
//
// See hodu-cpu-vectorize-generics in include/hodu/Target/CPU/Passes.td.
// Unrolls small window reductions, picks a tile per op and lets the upstream
// vectoriser (through a transform script) do the rest; then lowers the
// multi-reductions and, optionally, f32 transcendentals to polynomials.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "Int8Dot.h"
#include "Reductions.h"

#include "TransformScript.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/TransformOps/VectorTransformOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <map>

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUVECTORIZEGENERICS
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {

/// `expr` as coefficients per dim plus a constant, if it is a sum of
/// constant multiples of dims and constants.
bool linearForm(AffineExpr expr, SmallVectorImpl<int64_t> &coeffs,
                int64_t &constant, int64_t scale = 1) {
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    coeffs[d.getPosition()] += scale;
    return true;
  }
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    constant += scale * c.getValue();
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return linearForm(bin.getLHS(), coeffs, constant, scale) &&
           linearForm(bin.getRHS(), coeffs, constant, scale);
  if (bin.getKind() == AffineExprKind::Mul)
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return linearForm(bin.getLHS(), coeffs, constant, scale * c.getValue());
  return false;
}

/// One result of an input's indexing map in a window reduction: its
/// coefficient per loop dim, its constant and the one parallel dim it
/// strides along (-1: none).
struct WindowResult {
  SmallVector<int64_t> coeffs;
  int64_t constant = 0;
  int64_t parallelDim = -1;
};

/// The results of an input's `map` as WindowResults, if each is linear with
/// at most one parallel dim (`newDim[d] >= 0`), of positive stride, and no
/// negative reduction coefficient; the window unrolling takes no other.
std::optional<SmallVector<WindowResult>>
windowForms(AffineMap map, ArrayRef<int64_t> newDim,
            ArrayRef<int64_t> reductionDims) {
  int64_t numDims = newDim.size();
  SmallVector<WindowResult> results;
  for (AffineExpr e : map.getResults()) {
    WindowResult r;
    r.coeffs.assign(numDims, 0);
    if (!linearForm(e, r.coeffs, r.constant))
      return std::nullopt;
    for (int64_t d = 0; d < numDims; ++d) {
      if (r.coeffs[d] == 0 || newDim[d] < 0)
        continue;
      if (r.parallelDim >= 0 || r.coeffs[d] < 0)
        return std::nullopt;
      r.parallelDim = d;
    }
    for (int64_t d : reductionDims)
      if (r.coeffs[d] < 0)
        return std::nullopt;
    results.push_back(r);
  }
  return results;
}

/// A window reduction (pooling, with whatever elementwise prologue fusion
/// put into it) reads its inputs at `out_dim * stride + window_dim`, which
/// the vectoriser does not take. With a small window, unroll it: one input
/// per window position, each a strided slice read at the output position,
/// and the body applied once per position to a running accumulator. The
/// result is an all-parallel op with projected-permutation maps:
///   out[n,c,i,j] = max(x[n,c,2i,2j], x[n,c,2i,2j+1], x[n,c,2i+1,2j], ...)
/// where each x[n,c,2i+a,2j+b] is slice(x, [0,0,a,b], strides [1,1,2,2]).
void unrollSmallWindow(linalg::GenericOp op, int64_t maxPositions) {
  if (op->hasAttr(hodu::cpu::kAmxTiles))
    return; // hodu-cpu-amx-tiles'
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0 || !op.getBody()->getOps<linalg::IndexOp>().empty())
    return;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return;
  int64_t numDims = ranges.size();
  SmallVector<int64_t> newDim(numDims, -1), reductionDims;
  int64_t numParallel = 0, positions = 1;
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (it == utils::IteratorType::reduction) {
      reductionDims.push_back(d);
      positions *= ranges[d];
    } else {
      newDim[d] = numParallel++;
    }
  }
  if (positions > maxPositions)
    return;
  MLIRContext *ctx = op.getContext();
  // The output is indexed by parallel dims only.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<AffineExpr> newOutExprs;
  for (AffineExpr e : outMap.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || newDim[d.getPosition()] < 0)
      return;
    newOutExprs.push_back(getAffineDimExpr(newDim[d.getPosition()], ctx));
  }
  SmallVector<SmallVector<WindowResult>> forms;
  // Window-shaped operands (indexed by reduction dims only) must be unused
  // dummies; they are dropped.
  SmallVector<bool> dummy;
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(in->get().getType());
    AffineMap map = op.getMatchingIndexingMap(in);
    if (!type && map.getNumResults() != 0)
      return;
    std::optional<SmallVector<WindowResult>> results =
        windowForms(map, newDim, reductionDims);
    if (!results)
      return;
    SmallVector<WindowResult> &rs = *results;
    bool usesReduction = llvm::any_of(rs, [&](const WindowResult &r) {
      return llvm::any_of(reductionDims, [&](int64_t d) { return r.coeffs[d] != 0; });
    });
    bool usesParallel = llvm::any_of(
        rs, [](const WindowResult &r) { return r.parallelDim >= 0; });
    dummy.push_back(usesReduction && !usesParallel);
    if (dummy.back() && !op.getMatchingBlockArgument(in).use_empty())
      return;
    forms.push_back(rs);
  }

  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> newInputs;
  SmallVector<AffineMap> newMaps;
  // (input index, offsets) -> new input index, so equal slices are shared.
  std::map<std::pair<unsigned, SmallVector<int64_t>>, unsigned> sliceIndex;
  // Per position, per original input: the new block-argument index (-1: dummy).
  SmallVector<SmallVector<int64_t>> argOf(positions);
  for (int64_t p = 0; p < positions; ++p) {
    // The window position: one value per reduction dim.
    SmallVector<int64_t> pos(numDims, 0);
    int64_t rest = p;
    for (int64_t k = reductionDims.size() - 1; k >= 0; --k) {
      pos[reductionDims[k]] = rest % ranges[reductionDims[k]];
      rest /= ranges[reductionDims[k]];
    }
    for (auto [i, in] : llvm::enumerate(op.getDpsInputOperands())) {
      const SmallVector<WindowResult> &rs = forms[i];
      if (dummy[i]) {
        argOf[p].push_back(-1);
        continue;
      }
      SmallVector<int64_t> offsets;
      for (const WindowResult &r : rs) {
        int64_t o = r.constant;
        for (int64_t d : reductionDims)
          o += r.coeffs[d] * pos[d];
        offsets.push_back(o);
      }
      auto key = std::make_pair(unsigned(i), offsets);
      auto found = sliceIndex.find(key);
      if (found != sliceIndex.end()) {
        argOf[p].push_back(found->second);
        continue;
      }
      Value v = in->get();
      SmallVector<AffineExpr> exprs;
      if (auto type = dyn_cast<RankedTensorType>(v.getType())) {
        SmallVector<OpFoldResult> o, sz, st;
        SmallVector<int64_t> shape;
        for (auto [r, off] : llvm::zip(rs, offsets)) {
          int64_t size = r.parallelDim >= 0 ? ranges[r.parallelDim] : 1;
          int64_t stride = r.parallelDim >= 0 ? r.coeffs[r.parallelDim] : 1;
          o.push_back(b.getIndexAttr(off));
          sz.push_back(b.getIndexAttr(size));
          st.push_back(b.getIndexAttr(stride));
          shape.push_back(size);
          exprs.push_back(r.parallelDim >= 0
                              ? getAffineDimExpr(newDim[r.parallelDim], ctx)
                              : getAffineConstantExpr(0, ctx));
        }
        v = tensor::ExtractSliceOp::create(
            b, loc, RankedTensorType::get(shape, type.getElementType()), v, o,
            sz, st);
      }
      sliceIndex[key] = newInputs.size();
      argOf[p].push_back(newInputs.size());
      newInputs.push_back(v);
      newMaps.push_back(AffineMap::get(numParallel, 0, exprs, ctx));
    }
  }
  AffineMap newOutMap = AffineMap::get(numParallel, 0, newOutExprs, ctx);
  if (!newOutMap.isProjectedPermutation() ||
      !llvm::all_of(newMaps, [](AffineMap m) {
        return m.isProjectedPermutation(/*allowZeroInResults=*/true);
      }))
    return;
  newMaps.push_back(newOutMap);
  SmallVector<utils::IteratorType> iters(numParallel, utils::IteratorType::parallel);
  Block *body = op.getBody();
  auto generic = linalg::GenericOp::create(
      b, loc, op->getResultTypes(), newInputs,
      ValueRange{op.getDpsInitOperand(0)->get()}, newMaps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value acc = args.back();
        for (int64_t p = 0; p < positions; ++p) {
          IRMapping mapping;
          for (auto [i, a] : llvm::enumerate(argOf[p]))
            if (a >= 0)
              mapping.map(body->getArgument(i), args[a]);
          mapping.map(body->getArguments().back(), acc);
          for (Operation &inner : body->without_terminator())
            nb.clone(inner, mapping);
          acc = mapping.lookupOrDefault(body->getTerminator()->getOperand(0));
        }
        linalg::YieldOp::create(nb, nl, acc);
      });
  op->replaceAllUsesWith(generic->getResults());
  op->erase();
}

/// Tile sizes that make one tile of `ranges` hold at most `limit`
/// elements, taken from the innermost dimensions outwards (whole dimensions
/// while they fit, then the largest divisor of the next one that fits; 1 for
/// the rest), so tiles are static and the innermost vector dim is long.
SmallVector<int64_t> vectorTile(ArrayRef<int64_t> ranges, int64_t limit) {
  SmallVector<int64_t> tile(ranges.size(), 1);
  int64_t prod = 1;
  for (int64_t d = ranges.size() - 1; d >= 0; --d) {
    if (prod * ranges[d] <= limit) {
      tile[d] = ranges[d];
      prod *= ranges[d];
      continue;
    }
    int64_t t = limit / prod;
    while (t > 1 && ranges[d] % t != 0)
      --t;
    tile[d] = std::max<int64_t>(t, 1);
    break;
  }
  return tile;
}

/// A tile for an op that transposes: all-parallel, its output written
/// along the innermost loop dim, and an input whose own innermost index is
/// another loop dim `a` while it reads the innermost dim elsewhere (K^T in
/// attention, NCHW <-> NHWC). Tiled along the innermost dim alone, that
/// input is read one scalar per lane (a 64-element row of K^T was 64
/// `vinsertps`: 32 us for a 128x256 transpose). A `lanes` x `lanes` tile
/// over (a, innermost) reads `lanes` contiguous rows of the input and
/// writes `lanes` contiguous rows of the output, with one in-register
/// transpose between (`vector.transpose`, lowered to shuffles). Only for
/// 32-bit elements, whose `lanes` x `lanes` block fills `lanes` registers.
std::optional<SmallVector<int64_t>>
transposeTile(linalg::LinalgOp op, ArrayRef<int64_t> ranges, int64_t lanes) {
  int64_t n = ranges.size();
  if (n < 2 || op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (getElementTypeOrSelf(operand.get().getType()).getIntOrFloatBitWidth() !=
        32)
      return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineExpr inner = getAffineDimExpr(n - 1, ctx);
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outMap.getNumResults() == 0 || outMap.getResults().back() != inner)
    return std::nullopt;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap m = op.getMatchingIndexingMap(in);
    if (m.getNumResults() < 2 || !m.isFunctionOfDim(n - 1))
      continue;
    auto last = dyn_cast<AffineDimExpr>(m.getResults().back());
    if (!last || last.getPosition() == n - 1)
      continue;
    int64_t a = last.getPosition();
    if (ranges[a] % lanes != 0 || ranges[n - 1] % lanes != 0)
      return std::nullopt;
    SmallVector<int64_t> tile(n, 1);
    tile[a] = lanes;
    tile[n - 1] = lanes;
    return tile;
  }
  return std::nullopt;
}

/// Whether `op` is for this pass: static, not a contraction or convolution
/// (hodu-cpu-vectorize owns those), projected-permutation maps, and accepted
/// by the upstream vectoriser as it is.
bool isVectorizableGeneric(linalg::LinalgOp op, bool gathers) {
  if (op->hasAttr(hodu::cpu::kAmxTiles))
    return false; // hodu-cpu-amx-tiles'
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() == 0 ||
      op->getParentOfType<scf::ForOp>())
    return false;
  if (linalg::isaContractionOpInterface(op) ||
      linalg::isaConvolutionOpInterface(op) ||
      isa<linalg::ConvolutionOpInterface>(op.getOperation()))
    return false;
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) {
        return m.isProjectedPermutation(/*allowZeroInResults=*/true);
      }))
    return false;
  // Booleans are stored one byte per element, but vectors of i1 load and
  // store packed bits: leave ops on i1 tensors to the scalar path.
  for (OpOperand &operand : op->getOpOperands()) {
    Type elt = getElementTypeOrSelf(operand.get().getType());
    if (!elt.isIntOrFloat() || elt.isInteger(1))
      return false;
  }
  return succeeded(linalg::vectorizeOpPrecondition(
      op, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
      /*vectorizeNDExtract=*/gathers));
}

/// An op whose innermost loop has one iteration (a concat's slot of size 1
/// written by a fused producer, a trailing unit dim) would be vectorised
/// with a last vector dim of 1: every vector op becomes one scalar op per
/// element, fully unrolled. A DFT's 16-tap sum into such a slot gave LLVM
/// two 20,000-line kernels and LICM 15 s. Drop its unit dims first
/// (collapse_shape around the op), so that a dim with more than one
/// iteration is innermost: the ops this holds for.
bool hasTrailingUnitDim(linalg::GenericOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  return ranges.size() >= 2 && ranges.back() == 1 &&
         llvm::any_of(ranges, [](int64_t r) { return r != 1; });
}

/// Drops `op`'s unit dims (linalg::dropUnitDims), keeping its attributes.
void dropTrailingUnitDim(linalg::GenericOp op) {
  IRRewriter rewriter(op);
  linalg::ControlDropUnitDims options;
  FailureOr<linalg::DropUnitDimsResult> r =
      linalg::dropUnitDims(rewriter, op, options);
  if (failed(r))
    return;
  for (NamedAttribute a : op->getDiscardableAttrs())
    r->resultOp->setAttr(a.getName(), a.getValue());
  rewriter.replaceOp(op, r->replacements);
}

/// erf on f32 as one rational function on [-4, 4] (the approximation of
/// Eigen and XLA):
///   erf(x) = c * P(c^2) / Q(c^2),  c = clamp(x, -4, 4),
/// P of degree 6 (7 coefficients), Q of degree 4, then clamped to [-1, 1].
/// Upstream's approximation picks one of three intervals per lane, with a
/// select per coefficient: in a transformer's GELU (128 x 1024 values) it
/// was 18 blends, 12 constant loads and a division per vector, 3.5% of a
/// run. This is 11 FMAs, a division and 4 min/max. Its error against libm's
/// erff is under 3e-7 absolute (upstream's: 2.2e-7)
/// (test/Target/CPU/erf-accuracy.test); NaN stays NaN (minimumf/maximumf
/// propagate it), +-inf give +-1.
struct ErfRational : OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ErfOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    Location loc = op.getLoc();
    auto c = [&](double v) -> Value {
      Attribute a = rewriter.getF32FloatAttr(v);
      if (auto vt = dyn_cast<VectorType>(type))
        a = DenseElementsAttr::get(vt, a);
      return arith::ConstantOp::create(rewriter, loc, type, cast<TypedAttr>(a));
    };
    auto fma = [&](Value a, Value b, Value acc) -> Value {
      return math::FmaOp::create(rewriter, loc, a, b, acc);
    };
    Value x = arith::MaximumFOp::create(
        rewriter, loc,
        arith::MinimumFOp::create(rewriter, loc, op.getOperand(), c(4.0)),
        c(-4.0));
    Value x2 = arith::MulFOp::create(rewriter, loc, x, x);
    static constexpr double alpha[] = {
        -2.72614225801306e-10, 2.77068142495902e-08,  -2.10102402082508e-06,
        -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
        -1.60960333262415e-02};
    static constexpr double beta[] = {
        -1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
        -7.37332916720468e-03, -1.42647390514189e-02};
    Value p = c(alpha[0]);
    for (double a : ArrayRef(alpha).drop_front())
      p = fma(x2, p, c(a));
    Value q = c(beta[0]);
    for (double b : ArrayRef(beta).drop_front())
      q = fma(x2, q, c(b));
    Value r = arith::DivFOp::create(
        rewriter, loc, arith::MulFOp::create(rewriter, loc, x, p), q);
    r = arith::MaximumFOp::create(
        rewriter, loc, arith::MinimumFOp::create(rewriter, loc, r, c(1.0)),
        c(-1.0));
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct CpuVectorizeGenerics
    : hodu::cpu::impl::CpuVectorizeGenericsBase<CpuVectorizeGenerics> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<linalg::GenericOp> windows;
    module.walk([&](linalg::GenericOp op) { windows.push_back(op); });
    for (linalg::GenericOp op : windows)
      unrollSmallWindow(op, maxWindow);
    SmallVector<linalg::GenericOp> generics;
    module.walk([&](linalg::GenericOp op) {
      if (hasTrailingUnitDim(op) && isVectorizableGeneric(op, gathers))
        generics.push_back(op);
    });
    for (linalg::GenericOp op : generics)
      dropTrailingUnitDim(op);
    // vector-elements, or vector-registers / 8 vectors' worth: room for the
    // temporaries of the body (see the pass description).
    int64_t tileElements = vectorElements;
    if (tileElements == 0)
      tileElements = hodu::cpu::f32Lanes(vectorBits) *
                 std::max<int64_t>(vectorRegisters / 8, 1);
    if (splitReductions) {
      // The partial's width: the largest multiple of a vector dividing the
      // reduced dim, at most one tile.
      int64_t lanes = hodu::cpu::f32Lanes(vectorBits);
      SmallVector<linalg::GenericOp> reductions;
      module.walk([&](linalg::GenericOp op) {
        if (op.getNumReductionLoops() > 0 && isVectorizableGeneric(op, gathers))
          reductions.push_back(op);
      });
      for (linalg::GenericOp op : reductions) {
        int64_t r = op.getStaticLoopRanges().back();
        int64_t width = 0;
        for (int64_t w = lanes; w <= tileElements; w += lanes)
          if (r % w == 0)
            width = w;
        if (width > 0)
          hodu::cpu::splitInnerReduction(op, width);
      }
    }
    hodu::cpu::TransformScript script(module);
    module.walk([&](linalg::LinalgOp op) {
      if (!isVectorizableGeneric(op, gathers))
        return;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      SmallVector<int64_t> tile = vectorTile(ranges, tileElements);
      if (std::optional<SmallVector<int64_t>> t =
              transposeTile(op, ranges, hodu::cpu::f32Lanes(vectorBits)))
        tile = *t;
      int64_t elements = 1;
      for (int64_t t : tile)
        elements *= t;
      if (elements < minElements)
        return;
      // Dims taken whole need no loop (0 = not tiled).
      SmallVector<int64_t> sizes;
      for (auto [r, t] : llvm::zip(ranges, tile))
        sizes.push_back(t == r ? 0 : t);
      Value target = script.bind(op);
      if (llvm::any_of(sizes, [](int64_t s) { return s != 0; }))
        target = script.tileUsingFor(target, sizes).op;
      script.vectorize(target, /*namedContraction=*/false, gathers);
    });
    if (!script.empty()) {
      script.applyPatternsToFuncs([](OpBuilder &b, Location loc) {
        transform::ApplyTransferPermutationPatternsOp::create(b, loc);
        transform::ApplyCastAwayVectorLeadingOneDimPatternsOp::create(b, loc);
        transform::ApplyCanonicalizationPatternsOp::create(b, loc);
      });
      if (failed(script.applyOrKeep(getArgument())))
        return signalPassFailure();
    }

    // Reductions: rows reduced along the innermost vector dim become one
    // horizontal reduction each; reductions over outer dims become vector
    // adds across the rows. Each strategy only for the ops it suits.
    SmallVector<Operation *> inner, outer;
    module.walk([&](vector::MultiDimReductionOp op) {
      if (op->hasAttr(hodu::cpu::kInt8Dot)) // hodu-cpu-vector-to-llvm's
        return;
      (op.isReducedDim(op.getSourceVectorType().getRank() - 1) ? inner : outer)
          .push_back(op);
    });
    auto lower = [&](ArrayRef<Operation *> ops,
                     vector::VectorMultiReductionLowering strategy) {
      if (ops.empty())
        return success();
      RewritePatternSet patterns(ctx);
      vector::populateVectorMultiReductionLoweringPatterns(patterns, strategy);
      return applyOpPatternsGreedily(
          ops, std::move(patterns),
          GreedyRewriteConfig().setStrictness(
              GreedyRewriteStrictness::ExistingAndNewOps));
    };
    if (failed(lower(inner, vector::VectorMultiReductionLowering::InnerReduction)) ||
        failed(lower(outer, vector::VectorMultiReductionLowering::InnerParallel)))
      return signalPassFailure();

    if (approximateMath) {
      RewritePatternSet patterns(ctx);
      patterns.add<ErfRational>(ctx, /*benefit=*/2);
      populateMathPolynomialApproximationPatterns(
          patterns, [](StringRef name) {
            return llvm::is_contained({"math.erf", "math.exp", "math.expm1",
                                       "math.tanh", "math.log",
                                       "math.log1p", "math.log2"},
                                      name);
          });
      if (failed(applyPatternsGreedily(module, std::move(patterns))))
        return signalPassFailure();
    }
  }
};
} // namespace
