//===- ConvToMatmul.cpp - convolutions as matmuls -------------------------===//
//
// The convolutions hodu-cpu-vectorize computes as matmuls (ConvToMatmul.h):
// a packed matmul whose column panels the im2col taps write inside the
// panel loop, a transposed matmul (the filters as the vector lanes) for an
// output plane narrower than a vector, and the im2col copy and plain
// matmul that is left for the rest.
//
//===----------------------------------------------------------------------===//

#include "ConvToMatmul.h"
#include "hodu/Support/DType.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "Packing.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir;
using namespace hodu::cpu;

namespace {
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

} // namespace

linalg::Conv2DNchwFchwOp
hodu::cpu::splitConvBatch(linalg::Conv2DNchwFchwOp conv) {
  auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
  if (!conv.hasPureTensorSemantics() || !in.hasStaticShape() ||
      in.getDimSize(0) <= 1)
    return conv;
  IRRewriter rewriter(conv);
  rewriter.setInsertionPoint(conv);
  Value filter = conv.getInputs()[1];
  auto fill = conv.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  if (fill && !fill.hasPureTensorSemantics())
    fill = nullptr;
  scf::SCFTilingOptions options;
  SmallVector<OpFoldResult> sizes(conv.getNumLoops(), rewriter.getIndexAttr(0));
  sizes[0] = rewriter.getIndexAttr(1); // the batch loop
  options.setTileSizes(sizes);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(conv.getOperation()), options);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return conv;
  auto inner = dyn_cast<linalg::Conv2DNchwFchwOp>(tiled->tiledOps.front());
  if (!inner)
    return conv;
  rewriter.replaceOp(conv, tiled->replacements);
  // Its scratch is hoisted out of it once bufferized (one iteration at a
  // time: one buffer serves them all); hodu-cpu-hoist-parallel-allocs.
  for (LoopLikeOpInterface loop : tiled->loops)
    loop->setAttr(kBatchLoop, rewriter.getUnitAttr());
  // The filter itself, not the whole-tensor slice tiling made of it: the
  // strategies pack constant weights at compile time.
  if (inner.getInputs()[1].getType() == filter.getType())
    inner.getDpsInputOperand(1)->set(filter);
  // The strategies recognise a convolution from zero (or any fill) by its
  // init: fill the slice inside the loop too (each slice is written once).
  if (fill) {
    rewriter.setInsertionPoint(inner);
    Value slice = inner.getOutputs()[0];
    Value filled = linalg::FillOp::create(rewriter, inner.getLoc(),
                                          fill.getInputs()[0], slice)
                       .getResult(0);
    inner.getDpsInitsMutable()[0].set(filled);
  }
  return inner;
}

void hodu::cpu::convToIm2colMatmul(linalg::Conv2DNchwFchwOp conv) {
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

std::optional<std::string>
hodu::cpu::convToTransposedMatmul(linalg::Conv2DNchwFchwOp conv,
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
  // The filter [F, C*KH*KW] as [C*KH*KW, F].
  TypedAttr wt = hodu::transposedConstant(cst.getValue(), f, k,
                                          RankedTensorType::get({k, f}, elt),
                                          "hodu_transposed");
  if (!wt)
    return std::nullopt;
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

bool hodu::cpu::convToPackedMatmul(linalg::Conv2DNchwFchwOp conv,
                                   RegisterTile tile, int64_t maxKc,
                                   bool parallel, std::string &what) {
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
