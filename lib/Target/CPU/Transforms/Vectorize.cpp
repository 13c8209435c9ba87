//===- Vectorize.cpp - tile and vectorise matmuls for CPUs ----------------===//
//
// See hodu-cpu-vectorize in include/hodu/Target/CPU/Passes.td. Rewrites
// convolutions as matmuls and packs matmul operands into panels (in C++),
// then chooses cache and register tile sizes per op, where the shapes are
// known, and lets upstream transform ops do the tiling, vectorisation and
// hoisting (TransformScript.h).
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "DirectConv.h"
#include "Int8Dot.h"
#include "Packing.h"
#include "Winograd.h"
#include "TileLoop.h"
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
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Remarks.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUVECTORIZE
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;
using hodu::cpu::tileLoop;
using namespace hodu::cpu;
using hodu::cpu::TileBody;

Value hodu::cpu::scaledIndex(OpBuilder &b, Location loc, Value base,
                             int64_t scale, int64_t offset) {
  Value s = scale == 1 ? base
                       : arith::MulIOp::create(
                             b, loc, base,
                             arith::ConstantIndexOp::create(b, loc, scale));
  return offset == 0 ? s
                     : arith::AddIOp::create(
                           b, loc, s,
                           arith::ConstantIndexOp::create(b, loc, offset));
}

Value hodu::cpu::tileLoop(OpBuilder &b, Location loc, int64_t count,
                          int64_t step, Value init, bool parallel,
                          TileBody body) {
  SmallVector<OpFoldResult> offsets, sizes;
  auto unit = [&](OpBuilder &nb) {
    return SmallVector<OpFoldResult>(offsets.size(), nb.getIndexAttr(1));
  };
  if (parallel) {
    auto forall = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(count)}, ValueRange{init},
        std::nullopt);
    OpBuilder nb = OpBuilder::atBlockBegin(forall.getBody());
    Value iv = forall.getInductionVar(0);
    if (step != 1)
      iv = arith::MulIOp::create(nb, loc, iv,
                                 arith::ConstantIndexOp::create(nb, loc, step));
    Value tile = body(nb, iv, forall.getRegionIterArgs()[0], offsets, sizes);
    nb.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(nb, loc, tile,
                                          forall.getRegionIterArgs()[0],
                                          offsets, sizes, unit(nb));
    return forall.getResult(0);
  }
  Value lb = arith::ConstantIndexOp::create(b, loc, 0);
  Value ub = arith::ConstantIndexOp::create(b, loc, count * step);
  Value st = arith::ConstantIndexOp::create(b, loc, step);
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, st, ValueRange{init},
      [&](OpBuilder &nb, Location l, Value iv, ValueRange iter) {
        Value tile = body(nb, iv, iter[0], offsets, sizes);
        Value c = tensor::InsertSliceOp::create(nb, l, tile, iter[0], offsets,
                                                sizes, unit(nb));
        scf::YieldOp::create(nb, l, c);
      });
  return loop.getResult(0);
}

int64_t hodu::cpu::panelWidth(int64_t width, int64_t widest,
                              int64_t narrowest) {
  int64_t nr = widest;
  while (nr > narrowest &&
         (llvm::alignTo(width, nr) - width) * 8 > llvm::alignTo(width, nr))
    nr /= 2;
  return nr;
}

int64_t hodu::cpu::rowTile(int64_t m, int64_t maxRows) {
  for (int64_t d = std::min(m, maxRows); d > 1; --d)
    if (m % d == 0)
      return d;
  return 1;
}

int64_t hodu::cpu::registerSize(int64_t dim, int64_t largest,
                                int64_t smallest) {
  for (int64_t s = llvm::bit_floor(uint64_t(std::max<int64_t>(largest, 1)));
       s >= std::max<int64_t>(smallest, 1); s /= 2)
    if (dim % s == 0)
      return s;
  return 1;
}

// The constant `v` is, looked for through reshapes (which keep its
// row-major data: a conv filter flattened to 2-D), or null.
arith::ConstantOp hodu::cpu::constantThroughReshapes(Value v) {
  while (isa_and_present<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
      v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  return v.getDefiningOp<arith::ConstantOp>();
}

// The raw data of a constant that is not a splat, or none.
std::optional<ArrayRef<char>> hodu::cpu::rawData(arith::ConstantOp cst) {
  if (!cst)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
    return dense.isSplat() ? std::nullopt
                           : std::optional<ArrayRef<char>>(dense.getRawData());
  if (auto res = dyn_cast<DenseResourceElementsAttr>(cst.getValue()))
    if (AsmResourceBlob *blob = res.getRawHandle().getBlob())
      return blob->getData();
  return std::nullopt;
}

namespace {
/// Marks the register-tile contractions of a packed matmul (and the fills
/// of their accumulators), built by panelMatmul inside the panel loops.
constexpr llvm::StringLiteral kPanel = "hodu.packed_panel";
/// Marks the matmul of an im2col convolution, whose B is not packed.
constexpr llvm::StringLiteral kIm2col = "hodu.im2col";
constexpr llvm::StringLiteral kCandidate = "hodu.vectorize_candidate";
/// The name of the remark that gives a convolution's strategy, which hoduc
/// --print-stats prints (lib/Driver/Stats.cpp).
constexpr llvm::StringLiteral kConvStrategy = "conv-strategy";

/// The largest divisor of `dim` that is at most `limit` and a multiple of
/// `step` (which divides `dim`); `step` itself if none is larger.
int64_t tileSize(int64_t dim, int64_t limit, int64_t step) {
  for (int64_t t = std::min(dim, limit) / step * step; t > step; t -= step)
    if (dim % t == 0)
      return t;
  return step;
}

/// Filter tap (i, j) of a batch-1 NCHW conv input, `width` output columns
/// wide: in[0, :, i*dh : +oh*sh : sh, j*dw : +width*sw : sw] as [C, OH, width],
/// given the tap's offsets `y` = i*dh and `x` = j*dw.
Value convTap(OpBuilder &b, Location loc, Value input, int64_t oh, int64_t width,
              OpFoldResult y, OpFoldResult x, ArrayRef<int64_t> strides) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t c = type.getDimSize(1);
  Type elt = type.getElementType();
  // A full-rank slice collapsed, not a rank-reducing one: with a 1x1 window
  // plane the latter leaves which unit dims it drops ambiguous, and
  // memref.subview's getDroppedDims crashed on such a slice (silero VAD's
  // last encoder convolutions, a 1x1 output).
  Value window = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({1, c, oh, width}, elt), input,
      SmallVector<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0), y, x},
      SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(c),
                                b.getIndexAttr(oh), b.getIndexAttr(width)},
      SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                                b.getIndexAttr(strides[0]),
                                b.getIndexAttr(strides[1])});
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({c, oh, width}, elt), window,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
}

/// A filter tap's coordinates: (i, j) and its input offsets (i*dh, j*dw).
struct Tap {
  OpFoldResult i, j, y, x;
};

/// Up to this many filter taps, a conv's columns are written by one slice
/// copy per tap, unrolled (each a contiguous vector copy when the stride is
/// 1); past it, by the same copy in a loop over the taps: a 1-D conv with a
/// 512-tap kernel (an STFT) unrolled into 512 copies whose chain of
/// tensor.insert_slice ops took eliminate-empty-tensors minutes.
constexpr int64_t kMaxUnrolledTaps = 64;

/// Threads `col` through `body` once per tap of a kh x kw filter.
Value forEachTap(OpBuilder &b, Location loc, int64_t kh, int64_t kw,
                 ArrayRef<int64_t> dilations, Value col,
                 function_ref<Value(OpBuilder &, Location, Tap, Value)> body) {
  if (kh * kw <= kMaxUnrolledTaps) {
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t j = 0; j < kw; ++j)
        col = body(b, loc,
                   {b.getIndexAttr(i), b.getIndexAttr(j),
                    b.getIndexAttr(i * dilations[0]),
                    b.getIndexAttr(j * dilations[1])},
                   col);
    return col;
  }
  auto index = [&](OpBuilder &nb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(nb, loc, v);
  };
  return scf::ForOp::create(
             b, loc, index(b, 0), index(b, kh * kw), index(b, 1),
             ValueRange{col},
             [&](OpBuilder &nb, Location l, Value t, ValueRange iter) {
               Value i = arith::DivUIOp::create(nb, l, t, index(nb, kw));
               Value j = arith::RemUIOp::create(nb, l, t, index(nb, kw));
               Value y = arith::MulIOp::create(nb, l, i, index(nb, dilations[0]));
               Value x = arith::MulIOp::create(nb, l, j, index(nb, dilations[1]));
               scf::YieldOp::create(nb, l, body(nb, l, {i, j, y, x}, iter[0]));
             })
      .getResult(0);
}

/// conv_2d_nchw_fchw with batch 1 and static shapes -> an im2col copy and a
/// named matmul, so that convolutions take the vectorised matmul path:
///   col[c, kh, kw, oh, ow] = in[0, c, oh*sh + kh*dh, ow*sw + kw*dw]
///   out[f, oh*ow] = filter[f, c*kh*kw] x col[c*kh*kw, oh*ow]
/// The col buffer is filled by one strided slice copy per filter tap.
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
  Type elt = out.getElementType();

  // One strided copy per filter tap (kh, kw), each a plain linalg.copy
  // that hodu-cpu-vectorize-generics turns into vector loads and stores:
  //   col[:, kh, kw, :, :] = in[0, :, kh*dh : +oh*sh : sh, kw*dw : +ow*sw : sw]
  Value col = tensor::EmptyOp::create(b, loc, {c, kh, kw, oh, ow}, elt);
  Value input = conv.getInputs()[0];
  auto sliceType = RankedTensorType::get({c, oh, ow}, elt);
  col = forEachTap(
      b, loc, kh, kw, dilations, col,
      [&](OpBuilder &b, Location loc, Tap tap, Value col) -> Value {
        Value src = convTap(b, loc, input, oh, ow, tap.y, tap.x, strides);
        SmallVector<OpFoldResult> colOffsets{b.getIndexAttr(0), tap.i, tap.j,
                                             b.getIndexAttr(0), b.getIndexAttr(0)};
        SmallVector<OpFoldResult> colSizes{b.getIndexAttr(c), b.getIndexAttr(1),
                                           b.getIndexAttr(1), b.getIndexAttr(oh),
                                           b.getIndexAttr(ow)};
        SmallVector<OpFoldResult> ones(5, b.getIndexAttr(1));
        Value dest = tensor::ExtractSliceOp::create(b, loc, sliceType, col,
                                                    colOffsets, colSizes, ones);
        Value copied =
            linalg::CopyOp::create(b, loc, ValueRange{src}, ValueRange{dest})
                .getResult(0);
        return tensor::InsertSliceOp::create(b, loc, copied, col, colOffsets,
                                             colSizes, ones);
      });
  Value col2d = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({c * kh * kw, oh * ow}, elt), col,
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4}});
  Value flt2d = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({f, c * kh * kw}, elt), conv.getInputs()[1],
      ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  Value init2d = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({f, oh * ow}, elt), conv.getOutputs()[0],
      ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  auto matmul = linalg::MatmulOp::create(b, loc, ValueRange{flt2d, col2d},
                                         ValueRange{init2d});
  // The unpacked fallback of convToPackedMatmul: packing these columns
  // would be a second copy of the largest buffer.
  matmul->setAttr(kIm2col, b.getUnitAttr());
  Value mm = matmul.getResult(0);
  Value res = tensor::ExpandShapeOp::create(
      b, loc, out, mm, ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  conv->getResult(0).replaceAllUsesWith(res);
  conv->erase();
}

/// dest[d...] = src[srcMap(d...)]: a copy as an all-parallel linalg.generic,
/// which hodu-cpu-parallelize and hodu-cpu-vectorize-generics take later.
Value permutedCopy(OpBuilder &b, Location loc, Value src, Value dest,
                   AffineMap srcMap) {
  unsigned rank = srcMap.getNumDims();
  auto id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, TypeRange{dest.getType()}, ValueRange{src},
             ValueRange{dest}, ArrayRef<AffineMap>{srcMap, id},
             SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, args[0]);
             })
      .getResult(0);
}

/// Whether `conv` has the static shapes, batch 1 and one float element type
/// (f32 or f64) for all three operands that the packed and transposed
/// conversions below take.
bool packableConv(linalg::Conv2DNchwFchwOp conv) {
  auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto flt = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  return in.hasStaticShape() && flt.hasStaticShape() && out.hasStaticShape() &&
         in.getDimSize(0) == 1 &&
         isa<Float32Type, Float64Type>(out.getElementType()) &&
         in.getElementType() == out.getElementType() &&
         flt.getElementType() == out.getElementType();
}

/// A batch-1 conv with a constant filter whose output plane is narrower than
/// a vector (P = OH*OW < `lanes`) and whose filters fill at least two vectors
/// (F >= 2 * lanes): an STFT front end (257 filters of 512 taps, 5 output
/// frames), a squeeze-and-excitation 1x1 conv on a 1x1 plane (P = 1). The
/// packed path vectorises over the output columns and would compute a whole
/// vector of them (16 for 5: 3x the work, 16x for 1); this computes
///   out^T [P, F] = col^T [P, K] x W^T [K, F]
/// with the filters as the vector dimension (W^T transposed at compile time,
/// then packed like any constant B), and transposes the small result back.
/// Returns the strategy, or none (nothing changed) if the conv does not
/// qualify.
std::optional<std::string> convToTransposedMatmul(linalg::Conv2DNchwFchwOp conv,
                                                  int64_t lanes) {
  if (!packableConv(conv))
    return std::nullopt;
  auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto flt = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t c = in.getDimSize(1), f = flt.getDimSize(0), kh = flt.getDimSize(2),
          kw = flt.getDimSize(3), oh = out.getDimSize(2), ow = out.getDimSize(3);
  int64_t p = oh * ow, k = c * kh * kw;
  if (p >= lanes || f < 2 * lanes)
    return std::nullopt;
  arith::ConstantOp cst = constantThroughReshapes(conv.getInputs()[1]);
  if (!cst)
    return std::nullopt;
  Type elt = out.getElementType();
  size_t bytes = elt.getIntOrFloatBitWidth() / 8;
  auto wtType = RankedTensorType::get({k, f}, elt);
  TypedAttr wt;
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      dense && dense.isSplat()) {
    wt = dense.resizeSplat(wtType);
  } else {
    std::optional<ArrayRef<char>> data = rawData(cst);
    if (!data || data->size() < static_cast<size_t>(f * k) * bytes)
      return std::nullopt;
    AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
        static_cast<size_t>(k * f) * bytes, alignof(uint64_t));
    char *dst = blob.getMutableData().data();
    for (int64_t fi = 0; fi < f; ++fi)
      for (int64_t ki = 0; ki < k; ++ki)
        std::memcpy(dst + (ki * f + fi) * bytes,
                    data->data() + (fi * k + ki) * bytes, bytes);
    wt = DenseResourceElementsAttr::get(wtType, "hodu_transposed", std::move(blob));
  }
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  MLIRContext *ctx = conv.getContext();
  // colT[oh, ow, c, kh, kw] = in[0, c, oh*sh + kh*dh, ow*sw + kw*dw]: one
  // transposing copy per tap ([C, OH, OW] -> [OH, OW, C]).
  Value colT = tensor::EmptyOp::create(b, loc, {oh, ow, c, kh, kw}, elt);
  // Full-rank slices: with oh = ow = 1 a rank-reducing [oh, ow, c] slice
  // would leave which unit dims it drops ambiguous (memref.subview's
  // getDroppedDims crashed on it).
  auto destType = RankedTensorType::get({oh, ow, c, 1, 1}, elt);
  AffineExpr t0, t1, t2, t3, t4;
  bindDims(ctx, t0, t1, t2, t3, t4);
  auto toPositions5 = AffineMap::get(5, 0, {t2, t0, t1}, ctx);
  Value input = conv.getInputs()[0];
  colT = forEachTap(
      b, loc, kh, kw, dilations, colT,
      [&](OpBuilder &b, Location loc, Tap tap, Value colT) -> Value {
        Value src = convTap(b, loc, input, oh, ow, tap.y, tap.x, strides);
        SmallVector<OpFoldResult> offsets{b.getIndexAttr(0), b.getIndexAttr(0),
                                          b.getIndexAttr(0), tap.i, tap.j};
        SmallVector<OpFoldResult> sizes{b.getIndexAttr(oh), b.getIndexAttr(ow),
                                        b.getIndexAttr(c), b.getIndexAttr(1),
                                        b.getIndexAttr(1)};
        SmallVector<OpFoldResult> ones(5, b.getIndexAttr(1));
        Value dest = tensor::ExtractSliceOp::create(b, loc, destType, colT,
                                                    offsets, sizes, ones);
        Value copied = permutedCopy(b, loc, src, dest, toPositions5);
        return tensor::InsertSliceOp::create(b, loc, copied, colT, offsets,
                                             sizes, ones);
      });
  Value col2d = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({p, k}, elt), colT,
      ArrayRef<ReassociationIndices>{{0, 1}, {2, 3, 4}});
  Value wtConst = arith::ConstantOp::create(b, loc, wt);
  // The accumulator, transposed: a fill stays a fill; anything else (a
  // bias broadcast) is copied across.
  Value init = conv.getOutputs()[0];
  AffineExpr e0, e1;
  bindDims(ctx, e0, e1);
  auto swap = AffineMap::get(2, 0, {e1, e0}, ctx); // [a, b] <-> [b, a]
  Value accT;
  if (auto fill = init.getDefiningOp<linalg::FillOp>();
      fill && fill.hasPureTensorSemantics()) {
    Value empty = tensor::EmptyOp::create(b, loc, {p, f}, elt);
    accT = linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
               .getResult(0);
  } else {
    Value init2d = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({f, p}, elt), init,
        ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
    accT = permutedCopy(b, loc, init2d,
                        tensor::EmptyOp::create(b, loc, {p, f}, elt), swap);
  }
  Value mmT = linalg::MatmulOp::create(b, loc, ValueRange{col2d, wtConst},
                                       ValueRange{accT})
                  .getResult(0);
  Value res2d = permutedCopy(b, loc, mmT,
                             tensor::EmptyOp::create(b, loc, {f, p}, elt), swap);
  Value res = tensor::ExpandShapeOp::create(
      b, loc, out, res2d, ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  conv->getResult(0).replaceAllUsesWith(res);
  conv->erase();
  return llvm::formatv("transposed matmul (filters as vector lanes), {0} "
                       "output position(s) x {1} filters",
                       p, f)
      .str();
}

/// Panels of a 2-D matrix `src` ([R, C]), `w` wide, each contiguous:
///   B-style (`rows` false): P[j, r, c] = src[r, j*w + c]   -> [C/w, R, w]
///   A-style (`rows` true):  P[i, c, r] = src[i*w + r, c]   -> [R/w, C, w]
/// A constant is packed here, into a new resource blob (the weight is copied
/// once; the unpacked constant dies with its last use); anything else by a
/// copy, a linalg.generic that is parallelised and vectorised later.
/// A-style panels may cover `paddedRows` (> R) rows, the extra ones zero.
Value packPanels(OpBuilder &b, Location loc, Value src, int64_t w, bool rows,
                 int64_t paddedRows = 0) {
  auto type = cast<RankedTensorType>(src.getType());
  Type elt = type.getElementType();
  int64_t r = type.getDimSize(0), c = type.getDimSize(1);
  int64_t rp = rows ? std::max(paddedRows, r) : r;
  int64_t outer = rows ? rp / w : c / w, inner = rows ? c : r;
  auto packed = RankedTensorType::get({outer, inner, w}, elt);
  if (auto cst = constantThroughReshapes(src)) {
    if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
        dense && dense.isSplat())
      return arith::ConstantOp::create(b, loc, dense.resizeSplat(packed));
    ArrayRef<char> data = rawData(cst).value_or(ArrayRef<char>());
    size_t bytes = elt.getIntOrFloatBitWidth() / 8;
    if (data.size() >= static_cast<size_t>(r * c) * bytes) {
      AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
          static_cast<size_t>(rp * c) * bytes, alignof(uint64_t));
      char *out = blob.getMutableData().data();
      std::memset(out, 0, blob.getData().size());
      const char *in = data.data();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          char *dst = out + ((o * inner + i) * w) * bytes;
          if (!rows) {
            std::memcpy(dst, in + (i * c + o * w) * bytes, w * bytes);
            continue;
          }
          for (int64_t l = 0; l < w && o * w + l < r; ++l)
            std::memcpy(dst + l * bytes, in + ((o * w + l) * c + i) * bytes,
                        bytes);
        }
      return arith::ConstantOp::create(
          b, loc,
          DenseResourceElementsAttr::get(packed, "hodu_packed", std::move(blob)));
    }
  }
  if (rp != r) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
    src = tensor::PadOp::create(
        b, loc, RankedTensorType::get({rp, c}, elt), src,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rp - r), b.getIndexAttr(0)}, zero);
  }
  // rows: src as [R/w, w, C], P[d0, d1, d2] = src3[d0, d2, d1];
  // else: src as [R, C/w, w], P[d0, d1, d2] = src3[d1, d0, d2].
  auto expandedType = rows ? RankedTensorType::get({outer, w, inner}, elt)
                           : RankedTensorType::get({inner, outer, w}, elt);
  Value src3 = tensor::ExpandShapeOp::create(
      b, loc, expandedType, src,
      rows ? ArrayRef<ReassociationIndices>{{0, 1}, {2}}
           : ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  Value empty = tensor::EmptyOp::create(b, loc, packed.getShape(), elt);
  MLIRContext *ctx = b.getContext();
  AffineExpr d0, d1, d2;
  bindDims(ctx, d0, d1, d2);
  auto in = rows ? AffineMap::get(3, 0, {d0, d2, d1}, ctx)
                 : AffineMap::get(3, 0, {d1, d0, d2}, ctx);
  return permutedCopy(b, loc, src3, empty, in);
}

/// A matmul whose constant B ([K, N]) has a column count no vector width
/// divides (6625 characters of an OCR head, 21 classes) gets B with zero
/// columns up to a multiple of the vector (a new constant) and a padded
/// accumulator; the extra result columns are dropped. Returns the new
/// matmul, or null if `mm` does not qualify.
linalg::MatmulOp padMatmulColumns(linalg::MatmulOp mm, int64_t lanes) {
  auto bt = dyn_cast<RankedTensorType>(mm.getInputs()[1].getType());
  auto ct = dyn_cast<RankedTensorType>(mm.getOutputs()[0].getType());
  if (!bt || !ct || !bt.hasStaticShape() || !ct.hasStaticShape() ||
      !mm.hasPureTensorSemantics() || mm.hasUserDefinedMaps() ||
      !isa<Float32Type, Float64Type>(bt.getElementType()) ||
      bt.getElementType() != ct.getElementType())
    return nullptr;
  int64_t k = bt.getDimSize(0), n = bt.getDimSize(1), m = ct.getDimSize(0);
  int64_t np = llvm::alignTo(n, lanes);
  // Padded when no vector width divides N, or when N is not whole vectors
  // and whole vectors waste at most an eighth (120 -> 128: 8-lane tiles ran
  // at half the speed of 16-lane ones with the padding).
  if (n < 2 * lanes || np == n || (n % 4 == 0 && (np - n) * 8 > np))
    return nullptr;
  std::optional<ArrayRef<char>> data =
      rawData(constantThroughReshapes(mm.getInputs()[1]));
  Type elt = bt.getElementType();
  size_t bytes = elt.getIntOrFloatBitWidth() / 8;
  if (!data || data->size() < static_cast<size_t>(k * n) * bytes)
    return nullptr;
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
      static_cast<size_t>(k * np) * bytes, alignof(uint64_t));
  char *out = blob.getMutableData().data();
  std::memset(out, 0, blob.getData().size());
  for (int64_t r = 0; r < k; ++r)
    std::memcpy(out + r * np * bytes, data->data() + r * n * bytes, n * bytes);
  OpBuilder b(mm);
  Location loc = mm.getLoc();
  auto padded = RankedTensorType::get({k, np}, elt);
  Value wide = arith::ConstantOp::create(
      b, loc, DenseResourceElementsAttr::get(padded, "hodu_padded", std::move(blob)));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
  Value init = tensor::PadOp::create(
      b, loc, RankedTensorType::get({m, np}, elt), mm.getOutputs()[0],
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(np - n)}, zero);
  auto wideMm = linalg::MatmulOp::create(
      b, loc, TypeRange{init.getType()},
      ValueRange{mm.getInputs()[0], wide}, ValueRange{init});
  Value res = tensor::ExtractSliceOp::create(
      b, loc, ct, wideMm.getResult(0),
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(m), b.getIndexAttr(n)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  mm.getResult(0).replaceAllUsesWith(res);
  mm.erase();
  return wideMm;
}

/// GotoBLAS-style packing for a static 2-D matmul C[M,N] += A[M,K] B[K,N].
/// The register kernel reads an nr-wide row of B and an mr-tall column of
/// A per k step. Unpacked, B's rows are N and A's rows K floats apart, so
/// they share L1 sets (4 KB aliasing) and pages. Packed as Bp[N/nr, K, nr]
/// and Ap[M/mr, K, mr], every kernel reads two contiguous streams. The
/// matmul becomes loops panel j (an scf.forall when `parallel`) / k block
/// (`kc`) / row block over `kPanel`-tagged register-tile matmuls
///   C[mb*mr : +mr, j*nr : +nr] += Ap[mb, kb : +kc]^T x Bp[j, kb : +kc]
/// which hodu-cpu-vectorize turns into one vector kernel each. Constants
/// (weights) are packed at compile time; a B computed at run time only when
/// M (the number of its panels' reuses) is at least `minM`, and A whenever B
/// is packed.
void packMatmul(linalg::MatmulOp mm, int64_t mr, int64_t nr, int64_t kc,
                int64_t minM, bool parallel) {
  Value a = mm.getInputs()[0], bMat = mm.getInputs()[1];
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(bMat.getType());
  int64_t m = aType.getDimSize(0), k = bType.getDimSize(0),
          n = bType.getDimSize(1);
  // A constant B is packed at compile time: packing pays whatever M is
  // (A, M x K, is then packed at run time: K x mr floats per row block,
  // against the 2 M N K flops of the matmul).
  auto isConstant = [](Value v) { return v.getDefiningOp<arith::ConstantOp>(); };
  if (m < minM && !isConstant(bMat))
    return;
  OpBuilder b(mm);
  Location loc = mm.getLoc();
  Value bp = packPanels(b, loc, bMat, nr, /*rows=*/false);
  Value ap = packPanels(b, loc, a, mr, /*rows=*/true);
  // A C that starts as a fill, with a single k block: each kernel starts
  // its accumulator from the fill value instead of loading a tile written
  // by a separate pass (the fill is vectorised with the kernel, and the
  // read of what it wrote folds away).
  Value init = mm.getOutputs()[0], fillValue;
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && k / kc == 1 && fill.hasPureTensorSemantics()) {
    fillValue = fill.getInputs()[0];
    init = fill.getOutputs()[0];
  }
  Value result =
      panelMatmul(b, loc, ap, bp, init, fillValue, m, n, k, mr, nr, kc, parallel);
  mm->getResult(0).replaceAllUsesWith(result);
  mm->erase();
}

} // namespace

Value hodu::cpu::panelMatmul(OpBuilder &b, Location loc, Value ap, Value bp,
                             Value init, Value fillValue, int64_t m, int64_t n,
                             int64_t k, int64_t mr, int64_t nr, int64_t kc,
                             bool parallel,
                             function_ref<Value(OpBuilder &, Location, Value)>
                                 makePanel) {
  MLIRContext *ctx = b.getContext();
  Type elt = cast<RankedTensorType>(init.getType()).getElementType();
  AffineExpr dm, dn, dk;
  bindDims(ctx, dm, dn, dk);
  SmallVector<AffineMap> maps{AffineMap::get(3, 0, {dk, dm}, ctx),
                              AffineMap::get(3, 0, {dk, dn}, ctx),
                              AffineMap::get(3, 0, {dm, dn}, ctx)};
  auto slice = [&](OpBuilder &nb, Value src, ArrayRef<OpFoldResult> offsets,
                   ArrayRef<int64_t> sizes, ArrayRef<int64_t> resultShape) {
    SmallVector<OpFoldResult> sz, ones(sizes.size(), nb.getIndexAttr(1));
    for (int64_t s : sizes)
      sz.push_back(nb.getIndexAttr(s));
    return tensor::ExtractSliceOp::create(
        nb, loc, RankedTensorType::get(resultShape, elt), src, offsets, sz, ones);
  };
  // Panel j (columns j0 = j*nr ..): C[:, j0 : +nr].
  return tileLoop(
      b, loc, n / nr, nr, init, parallel,
      [&](OpBuilder &nb, Value j0, Value c, SmallVector<OpFoldResult> &offsets,
          SmallVector<OpFoldResult> &sizes) -> Value {
        offsets = {nb.getIndexAttr(0), j0};
        sizes = {nb.getIndexAttr(m), nb.getIndexAttr(nr)};
        Value j = arith::DivUIOp::create(
            nb, loc, j0, arith::ConstantIndexOp::create(nb, loc, nr));
        Value cj = slice(nb, c, offsets, {m, nr}, {m, nr});
        Value panel = makePanel ? makePanel(nb, loc, j) : Value();
        // k block kb0 ..
        return tileLoop(
            nb, loc, k / kc, kc, cj, false,
            [&](OpBuilder &kb, Value kb0, Value ck,
                SmallVector<OpFoldResult> &kOffsets,
                SmallVector<OpFoldResult> &kSizes) -> Value {
              kOffsets = {kb.getIndexAttr(0), kb.getIndexAttr(0)};
              kSizes = {kb.getIndexAttr(m), kb.getIndexAttr(nr)};
              Value bt =
                  panel ? (kc == k ? panel
                                   : slice(kb, panel, {kb0, kb.getIndexAttr(0)},
                                           {kc, nr}, {kc, nr}))
                        : slice(kb, bp, {j, kb0, kb.getIndexAttr(0)},
                                {1, kc, nr}, {kc, nr});
              // Row block i0 = mb*mr ..
              return tileLoop(
                  kb, loc, m / mr, mr, ck, false,
                  [&](OpBuilder &rb, Value i0, Value cr,
                      SmallVector<OpFoldResult> &rOffsets,
                      SmallVector<OpFoldResult> &rSizes) -> Value {
                    rOffsets = {i0, rb.getIndexAttr(0)};
                    rSizes = {rb.getIndexAttr(mr), rb.getIndexAttr(nr)};
                    Value mb = arith::DivUIOp::create(
                        rb, loc, i0, arith::ConstantIndexOp::create(rb, loc, mr));
                    Value at = slice(rb, ap, {mb, kb0, rb.getIndexAttr(0)},
                                     {1, kc, mr}, {kc, mr});
                    Value ct = slice(rb, cr, rOffsets, {mr, nr}, {mr, nr});
                    if (fillValue) {
                      auto tileFill = linalg::FillOp::create(rb, loc, fillValue, ct);
                      tileFill->setAttr(kPanel, rb.getUnitAttr());
                      ct = tileFill.getResult(0);
                    }
                    auto kernel = linalg::ContractOp::create(
                        rb, loc, TypeRange{ct.getType()}, ValueRange{at, bt},
                        ValueRange{ct}, rb.getAffineMapArrayAttr(maps));
                    kernel->setAttr(kPanel, rb.getUnitAttr());
                    return kernel.getResult(0);
                  });
            });
      });
}

namespace {
/// conv_2d_nchw_fchw with batch 1 and static shapes -> a packed matmul whose
/// column panels are written by the im2col taps inside the panel loop, each
/// just before the register kernels read it, on the thread that reads it
/// (so the copies run in parallel and their output is still in cache):
///   Bp[(oh, q), (c, kh, kw), r] = in[0, c, oh*sh + kh*dh, (q*nr + r)*sw + kw*dw]
///   out[f, oh, q*nr + r] = sum Ap[f/mr, (c, kh, kw), f%mr] * Bp[...]
/// Output rows are computed OWp = OW rounded up to nr wide (the input is
/// widened with zeros if needed, the extra columns are dropped), so panels
/// never straddle rows; or, at stride 1 when that computes fewer columns
/// (rows narrower than a panel), over the flattened input plane:
///   Bp[q, (c, kh, kw), r] = in_flat[c, (q*nr + r) + kh*dh*W + kw*dw]
/// whose output column p is (p / W, p % W), the W - OW last of each row
/// dropped. The filter (usually a constant) is packed at compile time.
/// False (nothing changed) if the conv does not qualify; else `what` says
/// which form and tile it took.
bool convToPackedMatmul(linalg::Conv2DNchwFchwOp conv, RegisterTile tile,
                        int64_t maxKc, bool parallel, std::string &what) {
  if (!packableConv(conv))
    return false;
  auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto flt = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  int64_t c = in.getDimSize(1), h = in.getDimSize(2), w = in.getDimSize(3),
          f = flt.getDimSize(0), kh = flt.getDimSize(2), kw = flt.getDimSize(3),
          oh = out.getDimSize(2), ow = out.getDimSize(3);
  // Prefer the widest panel, from the register tile's width down to one
  // vector (and 4 columns), that wastes at most an eighth of each row; a
  // narrow row takes one vector and wastes the rest. Half-vector panels
  // compiled to scalar multiplies and blends and ran 2-4x slower than
  // full ones with the padding (PaddleOCR, openWakeWord; docs/performance.md).
  int64_t narrowest = std::max<int64_t>(tile.lanes, 4);
  int64_t nr = panelWidth(ow, tile.cols, narrowest);
  if (nr < narrowest)
    return false;
  int64_t owp = llvm::alignTo(ow, nr);
  SmallVector<int64_t> st(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dl(conv.getDilations().getValues<int64_t>());
  // Rows narrower than a panel (the deep layers of small-image models: 8, 4
  // or 2 columns in a 16-column panel) waste most of each panel. At stride
  // 1, a tap's window is a contiguous run of the flattened input (row
  // pitch w), so the output is computed over the flattened [OH, w] plane
  // instead, in panels that run across rows: the w - ow columns past each
  // row's end (kernel width - 1, for a padded input) are computed and
  // dropped. Taken when that computes fewer columns.
  bool flat = false;
  int64_t np = 0;
  if (st[0] == 1 && st[1] == 1 && oh > 1) {
    int64_t plane = oh * w, nrf = panelWidth(plane, tile.cols, narrowest);
    if (int64_t(llvm::alignTo(plane, nrf)) < oh * owp) {
      flat = true;
      nr = nrf;
      np = llvm::alignTo(plane, nrf);
    }
  }
  // Register rows: the largest divisor of F up to what the registers hold
  // beside panels of nr columns (12 for 24 or 480 filters, 10 for 120, 7
  // for 21).
  int64_t maxRows = tile.maxRowsFor(nr);
  int64_t mr = rowTile(f, maxRows);
  // Filters whose divisors make a short tile (257 FFT bins: 1) get zero
  // filters up to a power-of-two tile, for at most an eighth more (or up to
  // 4 rows when nothing else gives 4); their output rows are dropped.
  int64_t fp = f, pow2Rows = llvm::bit_floor(uint64_t(maxRows));
  if (mr < pow2Rows && f >= 4) {
    for (int64_t m = std::max<int64_t>(pow2Rows, 4); m > mr; m /= 2)
      if ((llvm::alignTo(f, m) - f) * 8 <= llvm::alignTo(f, m)) {
        fp = llvm::alignTo(f, m); // a wider tile for at most an eighth more
        mr = m;
        break;
      }
    if (mr < 4) {
      fp = llvm::alignTo(f, 4);
      mr = 4;
    }
  }
  if (mr < 4)
    return false;
  Value init = conv.getOutputs()[0];
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && !fill.hasPureTensorSemantics())
    fill = nullptr;
  bool padded = flat || owp != ow || fp != f;
  if (padded && !fill)
    return false; // the padded output needs a known start value
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  Type elt = out.getElementType();
  Value input = conv.getInputs()[0];
  // Panel rows of the column buffer: one per output row, or one for the
  // flattened plane; and the columns each holds.
  int64_t rows = flat ? 1 : oh, width = flat ? np : owp;
  Value flatInput;
  if (flat) {
    flatInput = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({c, h * w}, elt), input,
        ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
    int64_t need = (kh - 1) * dl[0] * w + (kw - 1) * dl[1] + np;
    if (need > h * w) {
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
      Value wide = tensor::EmptyOp::create(b, loc, {c, need}, elt);
      wide = linalg::FillOp::create(b, loc, zero, wide).getResult(0);
      SmallVector<OpFoldResult> zeros(2, b.getIndexAttr(0)),
          ones(2, b.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes{b.getIndexAttr(c), b.getIndexAttr(h * w)};
      flatInput = tensor::InsertSliceOp::create(b, loc, flatInput, wide, zeros,
                                                sizes, ones);
    }
  }
  int64_t wNeed = (owp - 1) * st[1] + (kw - 1) * dl[1] + 1;
  if (!flat && wNeed > w) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
    Value wide = tensor::EmptyOp::create(b, loc, {1, c, h, wNeed}, elt);
    wide = linalg::FillOp::create(b, loc, zero, wide).getResult(0);
    SmallVector<OpFoldResult> zeros(4, b.getIndexAttr(0)), ones(4, b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes{b.getIndexAttr(1), b.getIndexAttr(c),
                                    b.getIndexAttr(h), b.getIndexAttr(w)};
    input = tensor::InsertSliceOp::create(b, loc, input, wide, zeros, sizes, ones);
  }
  int64_t q = width / nr;
  int64_t k = c * kh * kw, n = rows * width;
  auto tapType = RankedTensorType::get({c, nr}, elt);
  auto rowType = VectorType::get({nr}, elt);
  // Panel j ([K, nr], K = (c, kh, kw)): for each tap, the nr input columns
  // of output panel j, one row of nr per channel, copied as they are (the
  // input's rows are contiguous along the panel's columns).
  auto makePanel = [&](OpBuilder &b, Location loc, Value j) -> Value {
    Value panel = tensor::EmptyOp::create(b, loc, {c, kh, kw, nr}, elt);
    Value row, x0;
    if (!flat) {
      Value qv = arith::ConstantIndexOp::create(b, loc, q);
      row = arith::DivUIOp::create(b, loc, j, qv);
      x0 = arith::RemUIOp::create(b, loc, j, qv);
    }
    panel = forEachTap(
        b, loc, kh, kw, dl, panel,
        [&](OpBuilder &b, Location loc, Tap tap, Value panel) -> Value {
          AffineExpr s0, s1, s2;
          bindSymbols(b.getContext(), s0, s1, s2);
          Value src;
          if (flat) {
            // in_flat[:, j*nr + y*w + x : +nr].
            OpFoldResult start = affine::makeComposedFoldedAffineApply(
                b, loc, s0 * nr + s1 * w + s2, {j, tap.y, tap.x});
            src = tensor::ExtractSliceOp::create(
                b, loc, tapType, flatInput,
                SmallVector<OpFoldResult>{b.getIndexAttr(0), start},
                SmallVector<OpFoldResult>{b.getIndexAttr(c), b.getIndexAttr(nr)},
                SmallVector<OpFoldResult>(2, b.getIndexAttr(1)));
          } else {
            // in[0, :, row*sh + y, (x0*nr)*sw + x : +nr : sw].
            OpFoldResult y = affine::makeComposedFoldedAffineApply(
                b, loc, s0 * st[0] + s1, {row, tap.y});
            OpFoldResult x = affine::makeComposedFoldedAffineApply(
                b, loc, s0 * (nr * st[1]) + s1, {x0, tap.x});
            // Full rank ([1, C, 1, nr]): a rank-reducing [C, nr] slice
            // leaves the dropped unit dims ambiguous when C is 1.
            src = tensor::ExtractSliceOp::create(
                b, loc, RankedTensorType::get({1, c, 1, nr}, elt), input,
                SmallVector<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0),
                                          y, x},
                SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(c),
                                          b.getIndexAttr(1), b.getIndexAttr(nr)},
                SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                                          b.getIndexAttr(1),
                                          b.getIndexAttr(st[1])});
          }
          // One nr-wide vector per channel (a loop: hundreds of channels
          // unrolled per tap would be too much code).
          Value zero = arith::ConstantIndexOp::create(b, loc, 0);
          Value ti = getValueOrCreateConstantIndexOp(b, loc, tap.i);
          Value tj = getValueOrCreateConstantIndexOp(b, loc, tap.j);
          Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
          return scf::ForOp::create(
                     b, loc, zero, arith::ConstantIndexOp::create(b, loc, c),
                     arith::ConstantIndexOp::create(b, loc, 1),
                     ValueRange{panel},
                     [&](OpBuilder &nb, Location l, Value ci, ValueRange it) {
                       SmallVector<Value> at{ci, zero};
                       if (!flat)
                         at = {zero, ci, zero, zero};
                       Value v = vector::TransferReadOp::create(
                           nb, l, rowType, src, at, pad, ArrayRef<bool>{true});
                       Value w = vector::TransferWriteOp::create(
                                     nb, l, v, it[0],
                                     ValueRange{ci, ti, tj, zero},
                                     ArrayRef<bool>{true})
                                     .getResult();
                       scf::YieldOp::create(nb, l, w);
                     })
              .getResult(0);
        });
    return tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({k, nr}, elt), panel,
        ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  };
  Value flt2d = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({f, k}, elt), conv.getInputs()[1],
      ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  Value ap = packPanels(b, loc, flt2d, mr, /*rows=*/true, fp);
  int64_t kc = tileSize(k, maxKc, 1);
  Value init2d, fillValue;
  if (fill && k / kc == 1) {
    fillValue = fill.getInputs()[0];
    init2d = tensor::EmptyOp::create(b, loc, {fp, n}, elt);
  } else if (padded) {
    init2d = tensor::EmptyOp::create(b, loc, {fp, n}, elt);
    init2d = linalg::FillOp::create(b, loc, fill.getInputs()[0], init2d).getResult(0);
  } else {
    init2d = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({f, n}, elt), init,
        ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  }
  Value res = panelMatmul(b, loc, ap, /*bp=*/Value(), init2d, fillValue, fp,
                          n, k, mr, nr, kc, parallel, makePanel);
  if (flat) {
    // The plane's first oh * w columns as [F, OH, w]; then as below.
    res = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({fp, oh * w}, elt), res,
        SmallVector<OpFoldResult>(2, b.getIndexAttr(0)),
        SmallVector<OpFoldResult>{b.getIndexAttr(fp), b.getIndexAttr(oh * w)},
        SmallVector<OpFoldResult>(2, b.getIndexAttr(1)));
    owp = w;
  }
  res = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({fp, oh, owp}, elt), res,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  if (owp != ow || fp != f)
    res = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({f, oh, ow}, elt), res,
        SmallVector<OpFoldResult>(3, b.getIndexAttr(0)),
        SmallVector<OpFoldResult>{b.getIndexAttr(f), b.getIndexAttr(oh),
                                  b.getIndexAttr(ow)},
        SmallVector<OpFoldResult>(3, b.getIndexAttr(1)));
  res = tensor::ExpandShapeOp::create(b, loc, out, res,
                                      ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
  what = llvm::formatv("packed matmul, {0}x{1} register tile, {2}", mr, nr,
                       flat ? "panels across rows of the flattened plane"
                            : "one panel row per output row")
             .str();
  conv->getResult(0).replaceAllUsesWith(res);
  conv->erase();
  return true;
}

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
      if (intDot)
        if (std::optional<std::string> what =
                hodu::cpu::convToInt8Dot(conv, parallel, int8Isa)) {
          record(loc, *what);
          continue;
        }
      if (packB && winograd != "off")
        if (std::optional<std::string> what = hodu::cpu::convToWinograd(
                conv, tile, parallel, /*allowF4=*/winograd == "auto")) {
          record(loc, *what);
          continue;
        }
      if (packB)
        if (std::optional<std::string> what =
                convToTransposedMatmul(conv, tile.lanes)) {
          record(loc, *what);
          continue;
        }
      std::string what;
      if (packB && convToPackedMatmul(conv, tile, packCacheK, parallel, what)) {
        record(loc, what);
        continue;
      }
      // Too few filters for a register tile: the direct kernel, one group.
      if (directConv)
        if (std::optional<std::string> what =
                hodu::cpu::convToDirect(conv, vectorBits, parallel)) {
          record(loc, *what);
          continue;
        }
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
      for (linalg::MatmulOp &mm : matmuls)
        if (!mm->hasAttr(kIm2col))
          if (linalg::MatmulOp wide = padMatmulColumns(mm, tile.lanes))
            mm = wide;
      for (linalg::MatmulOp mm : matmuls) {
        bool im2col = mm->hasAttr(kIm2col);
        mm->removeAttr(kIm2col);
        if (!packB || im2col || !mm.hasPureTensorSemantics() || mm.hasUserDefinedMaps())
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
