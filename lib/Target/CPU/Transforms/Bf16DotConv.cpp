//===- Bf16DotConv.cpp - f32 convolutions on bf16 dot products ------------===//
//
// convToBf16Dot (Bf16Dot.h), hoduc --precision=bf16: a batch-1 f32
// convolution by a constant filter as f32 sums of bf16 pair products
// (AVX512-BF16 vdpbf16ps). The kernel is the int8 VNNI convolution's
// (Int8DotConv.cpp) with pairs of channels for quads:
//
//   - the filter is rounded to bf16 and packed at compile time as 32-bit
//     words Wp[tap * C2 + channel pair, filter], C2 = ceil(C / 2);
//   - the input is rounded to bf16 once per run and padded with zeros (the
//     conv's own padding, channels to whole pairs, and enough on the right
//     or below for the last panel's reads);
//   - per panel of 16 or 32 output columns of one output row (or of the
//     flattened plane, for rows narrower than a panel at stride 1), on the
//     thread that uses it, the panel Bp[tap * C2 + pair, 2 * column + j] =
//     x[2 * pair + j] at the tap's offset is written, two channel rows
//     interleaved;
//   - the register blocks (TileLoop's registerBlocks, the matmuls' kernel):
//     per filter a word broadcast to every lane, one vdpbf16ps per filter and
//     panel vector, the sums in registers over all of K.
//
// What rounds: the input and the filter to bf16 (nearest even), once each;
// the products and sums are f32 inside vdpbf16ps. A conv that does not start
// from zero (a bias folded into its init) adds its init to the sums.
//
//===----------------------------------------------------------------------===//

#include "Bf16Dot.h"

#include "ConvPanels.h"
#include "Int8DotCommon.h"
#include "TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using hodu::cpu::scaledIndex;
using hodu::cpu::int8dot::constantValues;
using hodu::cpu::int8dot::idx;
using hodu::cpu::int8dot::indexAttrs;
using hodu::cpu::int8dot::startsAtZero;

namespace {

constexpr int64_t kLanes = 16; // f32 sums of a 512-bit vector

/// How the output columns are cut into panels: `pw` columns (one or two
/// vectors), along each output row, or along the flattened padded plane.
struct Panels {
  int64_t pw = 0;
  bool flat = false;
};

/// The panels that compute the fewest columns, at least half of them used
/// (two-vector panels preferred: one broadcast feeds two dot products).
std::optional<Panels> choosePanels(int64_t oh, int64_t ow, int64_t wpad,
                                   bool unitStride) {
  std::optional<Panels> best;
  double bestCost = 0;
  for (int64_t pw : {2 * kLanes, kLanes}) {
    for (bool flat : {false, true}) {
      if (flat && !unitStride)
        continue;
      int64_t columns = flat ? hodu::cpu::ConvPanels::flatColumns(oh, wpad, pw)
                             : oh * int64_t(llvm::alignTo(ow, pw));
      if (oh * ow * 2 < columns)
        continue;
      double cost = static_cast<double>(columns) * (pw == kLanes ? 1.15 : 1.0);
      if (!best || cost < bestCost) {
        best = Panels{pw, flat};
        bestCost = cost;
      }
    }
  }
  return best;
}

} // namespace

std::optional<std::string>
hodu::cpu::convToBf16Dot(linalg::Conv2DNchwFchwOp conv, bool parallel,
                         int64_t registers) {
  if (!conv.hasPureTensorSemantics())
    return std::nullopt;
  auto inType = dyn_cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto wType = dyn_cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto outType = dyn_cast<RankedTensorType>(conv->getResult(0).getType());
  if (!inType || !wType || !outType || !inType.hasStaticShape() ||
      !wType.hasStaticShape() || !outType.hasStaticShape() ||
      inType.getDimSize(0) != 1 || !outType.getElementType().isF32() ||
      !inType.getElementType().isF32() || !wType.getElementType().isF32())
    return std::nullopt;

  // The input before its zero padding (spatial only), which is redone in
  // bf16 with the padding the panels need.
  // (A pad of another kind stays part of the input.)
  Value input = conv.getInputs()[0];
  hodu::cpu::SpatialZeroPad pad = hodu::cpu::spatialZeroPad(input).value_or(
      hodu::cpu::SpatialZeroPad{input, {0, 0, 0, 0}, {0, 0, 0, 0}});

  std::optional<std::vector<double>> w = constantValues(conv.getInputs()[1]);
  if (!w)
    return std::nullopt;
  int64_t f = wType.getDimSize(0), c = wType.getDimSize(1),
          kh = wType.getDimSize(2), kw = wType.getDimSize(3);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t taps = kh * kw;
  // Too little to pay for rounding and packing the input. An image stem of
  // 3 channels (a quarter of its pairs padding) ran 1.3x slower than on f32
  // with 32 filters and no faster with 16: its panels cost as much as their
  // dots.
  if (inType.getDimSize(1) != c || f < 4 || c < 8)
    return std::nullopt;
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  int64_t sh = strides[0], sw = strides[1];
  // Strides past 4 read too wide a row per vector.
  if (sw > 4)
    return std::nullopt;
  int64_t wpad = inType.getDimSize(3); // the conv's input is padded
  std::optional<Panels> panels =
      choosePanels(oh, ow, wpad, /*unitStride=*/sh == 1 && sw == 1);
  if (!panels)
    return std::nullopt;
  const int64_t pw = panels->pw, vecs = pw / kLanes;
  const bool flat = panels->flat;
  hodu::cpu::ConvPanels geo(pw, flat, oh, ow, kh, kw, strides, dilations,
                            inType.getDimSize(2), wpad);

  // Register blocks of the filters: 2 x 12 accumulators, two panel vectors
  // and a broadcast in 32 registers (16 rows with one vector), as even as
  // they divide.
  int64_t maxRows = std::clamp<int64_t>((registers - vecs - 1) / vecs, 1,
                                        vecs == 1 ? 16 : 12);
  int64_t blocks = llvm::divideCeil(f, maxRows);
  int64_t mr = llvm::divideCeil(f, blocks), mp = blocks * mr;
  int64_t c2 = llvm::divideCeil(c, 2), k2 = taps * c2;
  // A short K (a 1x1 conv of up to 16 channels) is bound by reading and
  // writing the plane, which rounding the input adds to: 1x1 convs of 8
  // and 16 channels to 16-64 filters ran 0.84-1.0x as fast as f32 on bf16
  // here, of 32 channels 1.13-1.24x.
  if (k2 < 12)
    return std::nullopt;

  // The filter words Wp[tap * c2 + pair, filter]: bf16(W[f, 2 pair]) in the
  // low half, bf16(W[f, 2 pair + 1]) in the high one, zeros past C and F.
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type(), bf16 = b.getBF16Type(), i32 = b.getI32Type();
  AsmResourceBlob packed = HeapAsmResourceBlob::allocate(
      static_cast<size_t>(k2 * mp * 4), alignof(uint64_t));
  char *words = packed.getMutableData().data();
  std::memset(words, 0, packed.getData().size());
  for (int64_t fi = 0; fi < f; ++fi)
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t ci = 0; ci < c; ++ci) {
        uint16_t h = hodu::cpu::bf16Bits(
            static_cast<float>((*w)[(fi * c + ci) * taps + t]));
        std::memcpy(words + ((t * c2 + ci / 2) * mp + fi) * 4 + (ci % 2) * 2,
                    &h, 2);
      }
  Value wp = arith::ConstantOp::create(
      b, loc,
      DenseResourceElementsAttr::get(RankedTensorType::get({k2, mp}, i32),
                                     "hodu_packed_bf16", std::move(packed)));

  // The input rounded once, then padded with zeros: spatially as the conv
  // pads, channels to whole pairs, and on the right (or below, flattened)
  // so that the last panel's reads stay inside.
  // (Flattened: the plane as one row, [1, 2 c2, 1, Hpad * Wpad].)
  Value zeroBf16 = arith::ConstantOp::create(b, loc, b.getFloatAttr(bf16, 0.0));
  Value xp = geo.padInput(b, loc, roundToBf16(b, loc, pad.source), pad, 2 * c2,
                          zeroBf16);

  auto pairs = VectorType::get({2 * kLanes}, bf16);
  auto sums = VectorType::get({kLanes}, f32);
  auto wordVec = VectorType::get({kLanes}, i32);
  // The sums of the f filters (the register blocks' mp - f padding rows
  // stay in each panel's tile: a whole-output copy without them otherwise).
  auto accType = RankedTensorType::get({f, geo.outRows, geo.outCols}, f32);
  Value accInit = tensor::EmptyOp::create(b, loc, accType.getShape(), f32);
  Value acc = hodu::cpu::tileLoop(
      b, loc, geo.outRows * geo.q, 1, accInit, parallel,
      [&](OpBuilder &nb, Value t, Value, SmallVector<OpFoldResult> &offsets,
          SmallVector<OpFoldResult> &sizes) -> Value {
        Value orow, col0;
        std::tie(orow, col0) = geo.origin(nb, loc, t);
        offsets = {nb.getIndexAttr(0), orow, col0};
        sizes = {nb.getIndexAttr(f), nb.getIndexAttr(1), nb.getIndexAttr(pw)};
        // The panel Bp[k2, 2 pw]: per tap and channel pair, the two
        // channels' rows at the tap's offset, interleaved.
        Value panel = geo.buildPanel(
            nb, loc, xp, orow, col0, 2, c2,
            RankedTensorType::get({k2, 2 * pw}, bf16),
            [&](OpBuilder &cb, ArrayRef<Value> rows) -> Value {
              return vector::InterleaveOp::create(cb, loc, rows[0], rows[1]);
            });
        Value padE =
            arith::ConstantOp::create(nb, loc, nb.getFloatAttr(bf16, 0.0));

        Value zeroAcc = arith::ConstantOp::create(
            nb, loc, DenseElementsAttr::get(sums, nb.getF32FloatAttr(0)));
        Value tile0 =
            tensor::EmptyOp::create(nb, loc, ArrayRef<int64_t>{mp, pw}, f32);
        Value tile = hodu::cpu::registerBlocks(
            nb, loc, tile0, blocks, mr, vecs, kLanes, k2, zeroAcc,
            [&](OpBuilder &kb, Value g) {
              SmallVector<Value> bv;
              for (int64_t v = 0; v < vecs; ++v)
                bv.push_back(vector::TransferReadOp::create(
                    kb, loc, pairs, panel,
                    ValueRange{g, idx(kb, loc, v * 2 * kLanes)}, padE,
                    ArrayRef<bool>{true}));
              return bv;
            },
            [&](OpBuilder &kb, Value filter, Value g) -> Value {
              Value word =
                  tensor::ExtractOp::create(kb, loc, wp, ValueRange{g, filter});
              return vector::BitCastOp::create(
                  kb, loc, pairs,
                  vector::BroadcastOp::create(kb, loc, wordVec, word));
            },
            [&](OpBuilder &kb, Value acc, Value a, Value bv) -> Value {
              return x86vector::DotBF16Op::create(kb, loc, sums, acc, a, bv);
            });
        if (mp != f)
          tile = tensor::ExtractSliceOp::create(
              nb, loc, RankedTensorType::get({f, pw}, f32), tile,
              indexAttrs(nb, {0, 0}), indexAttrs(nb, {f, pw}),
              indexAttrs(nb, {1, 1}));
        return tensor::ExpandShapeOp::create(
            nb, loc, RankedTensorType::get({f, 1, pw}, f32), tile,
            ArrayRef<ReassociationIndices>{{0, 1}, {2}});
      });

  // y[0, f, oh, ow] = acc[f, oh, ow] (flattened: column oh * Wpad + ow),
  // plus the conv's init unless it is zero.
  Value plane = geo.plane(b, loc, acc, 0, f);
  Value result = tensor::ExpandShapeOp::create(
      b, loc, outType, plane,
      SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
  bool fromZero = startsAtZero(conv.getOutputs()[0]);
  if (!fromZero) {
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    result =
        linalg::GenericOp::create(
            b, loc, TypeRange{outType}, ValueRange{result},
            ValueRange{conv.getOutputs()[0]}, ArrayRef<AffineMap>{id, id},
            SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
            [&](OpBuilder &gb, Location l, ValueRange args) {
              linalg::YieldOp::create(
                  gb, l,
                  arith::AddFOp::create(gb, l, args[1], args[0]).getResult());
            })
            .getResult(0);
  }
  conv->getResult(0).replaceAllUsesWith(result);
  conv->erase();
  return llvm::formatv(
             "bf16 dot products (AVX512-BF16 vdpbf16ps), {0}x{1} register "
             "tile, {2} pairs of channels per column{3}{4}",
             mr, pw, k2,
             flat ? ", panels across rows of the flattened plane" : "",
             fromZero ? "" : ", init added")
      .str();
}
