//===- CpuVectorize.cpp - tile and vectorise matmuls for CPUs -------------===//
//
// Chooses cache and register tile sizes per op (in C++, where the shapes are
// known) and lets the transform dialect do the tiling, vectorisation and
// hoisting: the script is generated per module, with each op tagged so the
// script can find it.
//
//===----------------------------------------------------------------------===//

#include "hodu/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <string>

namespace hodu {
#define GEN_PASS_DEF_CPUVECTORIZE
#define GEN_PASS_DEF_CPUPARALLELIZE
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kTag = "hodu.vectorize_id";

/// The largest divisor of `dim` that is at most `limit` and a multiple of
/// `step` (which divides `dim`); `step` itself if none is larger.
int64_t tileSize(int64_t dim, int64_t limit, int64_t step) {
  for (int64_t t = std::min(dim, limit) / step * step; t > step; t -= step)
    if (dim % t == 0)
      return t;
  return step;
}

/// The largest of `candidates` (descending) that divides `dim`.
int64_t registerSize(int64_t dim, std::initializer_list<int64_t> candidates,
                     int64_t limit) {
  for (int64_t c : candidates)
    if (c <= limit && dim % c == 0)
      return c;
  return 1;
}

std::string list(llvm::ArrayRef<int64_t> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string tileOp(const std::string &result, const std::string &loops,
                   const std::string &target, llvm::ArrayRef<int64_t> sizes) {
  int64_t n = llvm::count_if(sizes, [](int64_t s) { return s != 0; });
  std::string types = "!transform.any_op";
  for (int64_t i = 0; i < n; ++i)
    types += ", !transform.any_op";
  return "    " + result + ", " + loops + ":" + std::to_string(n) +
         " = transform.structured.tile_using_for " + target + " tile_sizes " +
         list(sizes) + " : (!transform.any_op) -> (" + types + ")\n";
}

/// conv_2d_nchw_fchw with batch 1 and static shapes -> an im2col copy and a
/// named matmul, so that convolutions take the vectorised matmul path:
///   col[c, kh, kw, oh, ow] = in[0, c, oh*sh + kh*dh, ow*sw + kw*dw]
///   out[f, oh*ow] = filter[f, c*kh*kw] x col[c*kh*kw, oh*ow]
/// The copy is a plain linalg.generic with affine maps (no gathers).
void convToIm2colMatmul(linalg::Conv2DNchwFchwOp conv) {
  auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto flt = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (!in.hasStaticShape() || !flt.hasStaticShape() || !out.hasStaticShape() ||
      in.getDimSize(0) != 1 || !isa<Float32Type, Float64Type>(out.getElementType()))
    return;
  int64_t c = in.getDimSize(1), f = flt.getDimSize(0), kh = flt.getDimSize(2),
          kw = flt.getDimSize(3), oh = out.getDimSize(2), ow = out.getDimSize(3);
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  MLIRContext *ctx = b.getContext();
  Type elt = out.getElementType();

  // (c, kh, kw, oh, ow) -> input (0, c, oh*sh + kh*dh, ow*sw + kw*dw)
  AffineExpr dc = getAffineDimExpr(0, ctx), dkh = getAffineDimExpr(1, ctx),
             dkw = getAffineDimExpr(2, ctx), doh = getAffineDimExpr(3, ctx),
             dow = getAffineDimExpr(4, ctx);
  AffineMap inMap = AffineMap::get(
      5, 0,
      {getAffineConstantExpr(0, ctx), dc, doh * strides[0] + dkh * dilations[0],
       dow * strides[1] + dkw * dilations[1]},
      ctx);
  AffineMap id = AffineMap::getMultiDimIdentityMap(5, ctx);
  Value colInit = tensor::EmptyOp::create(b, loc, {c, kh, kw, oh, ow}, elt);
  SmallVector<utils::IteratorType> par(5, utils::IteratorType::parallel);
  Value col = linalg::GenericOp::create(
                  b, loc, colInit.getType(), ValueRange{conv.getInputs()[0]},
                  ValueRange{colInit}, ArrayRef<AffineMap>{inMap, id}, par,
                  [](OpBuilder &nb, Location nl, ValueRange args) {
                    linalg::YieldOp::create(nb, nl, args[0]);
                  })
                  .getResult(0);
  Value col2d = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({c * kh * kw, oh * ow}, elt), col,
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4}});
  Value flt2d = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({f, c * kh * kw}, elt), conv.getInputs()[1],
      ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  Value init2d = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({f, oh * ow}, elt), conv.getOutputs()[0],
      ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  Value mm = linalg::MatmulOp::create(b, loc, ValueRange{flt2d, col2d},
                                      ValueRange{init2d})
                 .getResult(0);
  Value res = tensor::ExpandShapeOp::create(
      b, loc, out, mm, ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  conv->getResult(0).replaceAllUsesWith(res);
  conv->erase();
}

/// Runs the transform script `body` (the inside of @__transform_main, with
/// the payload root as %root) on `module`.
LogicalResult runTransformScript(ModuleOp module, const std::string &body) {
  std::string script =
      "module attributes {transform.with_named_sequence} {\n"
      "  transform.named_sequence @__transform_main(%root: !transform.any_op "
      "{transform.readonly}) {\n" +
      body + "    transform.yield\n  }\n}\n";
  OwningOpRef<ModuleOp> transforms =
      parseSourceString<ModuleOp>(script, ParserConfig(module.getContext()));
  if (!transforms)
    return module.emitError("internal error in a generated transform script");
  Operation *entry = transforms->lookupSymbol("__transform_main");
  return transform::applyTransformNamedSequence(module, entry, *transforms,
                                                transform::TransformOptions());
}

struct CpuParallelize : hodu::impl::CpuParallelizeBase<CpuParallelize> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string body;
    int64_t id = 0;
    module.walk([&](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics() || op->getParentOfType<scf::ForallOp>() ||
          op->getNumResults() == 0)
        return;
      auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!type || !type.hasStaticShape() || type.getNumElements() < minElements)
        return;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      auto iterators = op.getIteratorTypesArray();
      // The outermost parallel loop with room for the chunks.
      int64_t dim = -1;
      for (auto [i, it] : llvm::enumerate(iterators))
        if (it == utils::IteratorType::parallel && !ShapedType::isDynamic(ranges[i]) &&
            ranges[i] >= 2) {
          dim = i;
          break;
        }
      if (dim < 0)
        return;
      SmallVector<int64_t> sizes(ranges.size(), 0);
      sizes[dim] = llvm::divideCeil(ranges[dim], std::min(chunks.getValue(), ranges[dim]));
      op->setAttr(kTag, IntegerAttr::get(IntegerType::get(&getContext(), 64), id));
      std::string i = std::to_string(id++);
      body += "    %g" + i + " = transform.structured.match attributes {" +
              kTag.str() + " = " + i + " : i64} in %root : (!transform.any_op) -> !transform.any_op\n";
      body += "    %t" + i + ", %f" + i +
              " = transform.structured.tile_using_forall %g" + i + " tile_sizes " +
              list(sizes) + " : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n";
    });
    if (id && failed(runTransformScript(module, body)))
      return signalPassFailure();
    module.walk([](Operation *op) { op->removeAttr(kTag); });
  }
};

struct CpuVectorize : hodu::impl::CpuVectorizeBase<CpuVectorize> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    module.walk([&](linalg::Conv2DNchwFchwOp conv) { convs.push_back(conv); });
    for (auto conv : convs)
      if (conv.hasPureTensorSemantics())
        convToIm2colMatmul(conv);
    std::string perOp, hoists;
    int64_t id = 0;
    module.walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
          !op.hasPureTensorSemantics())
        return;
      auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!resultType || !isa<Float32Type, Float64Type>(resultType.getElementType()))
        return;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      if (llvm::any_of(ranges, ShapedType::isDynamic))
        return;
      bool batched = ranges.size() == 4;
      int64_t m = ranges[batched], n = ranges[batched + 1], k = ranges[batched + 2];
      // Register tile: up to registerM rows of registerN columns.
      int64_t nr = registerSize(n, {32, 16, 8, 4}, registerN);
      int64_t mr = registerSize(m, {8, 4, 2, 1}, registerM);
      if (n % 4 != 0)
        return; // no useful vector width: leave it to the scalar path
      int64_t mc = tileSize(m, cacheM, mr), nc = tileSize(n, cacheN, nr),
              kc = tileSize(k, cacheK, 1);
      // The cache tiles of one dimension are spread over threads (an
      // scf.forall, lowered to OpenMP later): the batch if there is one,
      // else whichever of M and N has more tiles.
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
      op->setAttr(kTag, IntegerAttr::get(IntegerType::get(&getContext(), 64), id));
      std::string i = std::to_string(id);
      perOp += "    %op" + i + " = transform.structured.match attributes {" +
               kTag.str() + " = " + i + " : i64} in %root : (!transform.any_op) -> !transform.any_op\n";
      std::string cacheTarget = "%op" + i;
      if (parallel) {
        perOp += "    %p" + i + ", %pl" + i +
                 " = transform.structured.tile_using_forall %op" + i +
                 " tile_sizes " + list(par) +
                 " : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n";
        cacheTarget = "%p" + i;
      }
      perOp += tileOp("%c" + i, "%cl" + i, cacheTarget, seq);
      perOp += tileOp("%r" + i, "%rl" + i, "%c" + i, reg);
      perOp += "    transform.structured.vectorize %r" + i + " : !transform.any_op\n";
      // The innermost (k) loop of the register tiling carries the accumulator.
      // Register tiling makes three loops (m, n, k) in both cases.
      hoists += "    transform.loop.hoist_loop_invariant_subsets %rl" + i +
                "#2 : !transform.any_op\n";
      ++id;
    });
    if (id == 0)
      return;

    std::string script =
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%root: !transform.any_op "
        "{transform.readonly}) {\n" +
        perOp +
        "    %funcs = transform.structured.match ops{[\"func.func\"]} in %root "
        ": (!transform.any_op) -> !transform.any_op\n"
        "    transform.apply_patterns to %funcs {\n"
        "      transform.apply_patterns.vector.lower_contraction lowering_strategy = \"outerproduct\"\n"
        "      transform.apply_patterns.vector.transfer_permutation_patterns\n"
        "      transform.apply_patterns.vector.lower_outerproduct\n"
        "      transform.apply_patterns.canonicalization\n"
        "    } : !transform.any_op\n" +
        hoists + "    transform.yield\n  }\n}\n";
    OwningOpRef<ModuleOp> transforms =
        parseSourceString<ModuleOp>(script, ParserConfig(&getContext()));
    if (!transforms) {
      module.emitError("hodu-cpu-vectorize: internal error in the generated "
                       "transform script");
      return signalPassFailure();
    }
    Operation *entry = transforms->lookupSymbol("__transform_main");
    if (failed(transform::applyTransformNamedSequence(
            module, entry, *transforms, transform::TransformOptions())))
      return signalPassFailure();
    module.walk([](Operation *op) { op->removeAttr(kTag); });
  }
};
} // namespace
