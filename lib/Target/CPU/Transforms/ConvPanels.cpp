//===- ConvPanels.cpp - the panels of direct dot-product convs ------------===//
//
// ConvPanels.h: the geometry the int8 and bf16 convolution kernels share.
//
//===----------------------------------------------------------------------===//

#include "ConvPanels.h"

#include "Int8DotCommon.h"
#include "TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
using hodu::cpu::ConvPanels;
using hodu::cpu::scaledIndex;

using hodu::cpu::int8dot::idx;
using hodu::cpu::int8dot::indexAttrs;

std::optional<hodu::cpu::SpatialZeroPad>
hodu::cpu::spatialZeroPad(Value input) {
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (!pad)
    return SpatialZeroPad{input, {0, 0, 0, 0}, {0, 0, 0, 0}};
  Value pv = pad.getConstantPaddingValue();
  auto pc = pv ? pv.getDefiningOp<arith::ConstantOp>() : nullptr;
  auto pa = pc ? dyn_cast<FloatAttr>(pc.getValue()) : nullptr;
  if (!pa || !pa.getValue().isZero())
    return std::nullopt;
  SpatialZeroPad out{pad.getSource(), {}, {}};
  for (auto [i, l, h] :
       llvm::enumerate(pad.getStaticLow(), pad.getStaticHigh())) {
    if (ShapedType::isDynamic(l) || ShapedType::isDynamic(h) || l < 0 ||
        h < 0 || (i < 2 && (l || h)))
      return std::nullopt;
    out.low.push_back(l);
    out.high.push_back(h);
  }
  return out;
}

int64_t ConvPanels::flatColumns(int64_t oh, int64_t wpad, int64_t pw) {
  return llvm::alignTo(oh * wpad, pw);
}

ConvPanels::ConvPanels(int64_t pw, bool flat, int64_t oh, int64_t ow,
                       int64_t kh, int64_t kw, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> dilations, int64_t hpad, int64_t wpad)
    : pw(pw), flat(flat), oh(oh), ow(ow), kh(kh), kw(kw), sh(strides[0]),
      sw(strides[1]), dh(dilations[0]), dw(dilations[1]), hpad(hpad),
      wpad(wpad) {
  outRows = flat ? 1 : oh;
  outCols = flat ? flatColumns(oh, wpad, pw) : llvm::alignTo(ow, pw);
  q = outCols / pw;
  if (flat)
    extraH = std::max<int64_t>(
        0,
        llvm::divideCeil(outCols + (kh - 1) * dh * wpad + (kw - 1) * dw, wpad) -
            hpad);
  else
    extraW = std::max<int64_t>(0, outCols * sw + (kw - 1) * dw - wpad);
}

Value ConvPanels::padInput(OpBuilder &b, Location loc, Value x,
                           const SpatialZeroPad &pad, int64_t channels,
                           Value value) const {
  auto type = cast<RankedTensorType>(x.getType());
  Type elt = type.getElementType();
  int64_t rows = hpad + extraH;
  Value xp = tensor::PadOp::create(
      b, loc, RankedTensorType::get({1, channels, rows, wpad + extraW}, elt), x,
      indexAttrs(b, {0, 0, pad.low[2], pad.low[3]}),
      indexAttrs(b, {0, channels - type.getDimSize(1), pad.high[2] + extraH,
                     pad.high[3] + extraW}),
      value);
  if (!flat)
    return xp;
  // The plane as one row: [1, C, 1, rows * Wpad].
  SmallVector<ReassociationIndices> r{{0}, {1}, {2, 3}};
  xp = tensor::CollapseShapeOp::create(b, loc, xp, r);
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({1, channels, 1, rows * wpad}, elt), xp, r);
}

std::pair<Value, Value> ConvPanels::origin(OpBuilder &b, Location loc,
                                           Value t) const {
  Value row = arith::DivUIOp::create(b, loc, t, idx(b, loc, q));
  Value col0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, t, idx(b, loc, q)),
      idx(b, loc, pw));
  return {row, col0};
}

std::pair<Value, Value> ConvPanels::tapOrigin(OpBuilder &b, Location loc,
                                              Value row, Value col0,
                                              Value tap) const {
  // A tap (i, j) reads i * rowStep rows and i * rowToCol + j * dw columns
  // further; in the flattened plane, rows are columns.
  int64_t rowStep = flat ? 0 : dh, rowToCol = flat ? dh * wpad : 0;
  Value i = arith::DivUIOp::create(b, loc, tap, idx(b, loc, kw));
  Value j = arith::RemUIOp::create(b, loc, tap, idx(b, loc, kw));
  Value y = arith::AddIOp::create(b, loc, scaledIndex(b, loc, row, sh, 0),
                                  scaledIndex(b, loc, i, rowStep, 0));
  Value x = arith::AddIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, scaledIndex(b, loc, col0, sw, 0),
                            scaledIndex(b, loc, i, rowToCol, 0)),
      scaledIndex(b, loc, j, dw, 0));
  return {y, x};
}

Value ConvPanels::buildPanel(
    OpBuilder &b, Location loc, Value xp, Value row, Value col0, int64_t per,
    int64_t groups, RankedTensorType panelType,
    function_ref<Value(OpBuilder &, ArrayRef<Value>)> combine) const {
  Type elt = cast<RankedTensorType>(xp.getType()).getElementType();
  auto wide = VectorType::get({pw * sw}, elt);
  Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
  Value c0 = idx(b, loc, 0), c1 = idx(b, loc, 1);
  Value panel0 = tensor::EmptyOp::create(b, loc, panelType.getShape(),
                                         panelType.getElementType());
  auto tapLoop = scf::ForOp::create(
      b, loc, c0, idx(b, loc, kh * kw), c1, ValueRange{panel0},
      [&](OpBuilder &tb, Location, Value tap, ValueRange tapIter) {
        Value y, x;
        std::tie(y, x) = tapOrigin(tb, loc, row, col0, tap);
        Value base = scaledIndex(tb, loc, tap, groups, 0);
        auto groupLoop = scf::ForOp::create(
            tb, loc, idx(tb, loc, 0), idx(tb, loc, groups), idx(tb, loc, 1),
            ValueRange{tapIter[0]},
            [&](OpBuilder &cb, Location, Value g, ValueRange gIter) {
              SmallVector<Value> channels;
              for (int64_t r = 0; r < per; ++r) {
                Value v = vector::TransferReadOp::create(
                    cb, loc, wide, xp,
                    ValueRange{idx(cb, loc, 0), scaledIndex(cb, loc, g, per, r),
                               y, x},
                    pad, ArrayRef<bool>{true});
                if (sw > 1) { // every sw-th column
                  SmallVector<int64_t> mask;
                  for (int64_t l = 0; l < pw; ++l)
                    mask.push_back(l * sw);
                  v = vector::ShuffleOp::create(cb, loc, v, v, mask);
                }
                channels.push_back(v);
              }
              Value at = arith::AddIOp::create(cb, loc, base, g);
              scf::YieldOp::create(cb, loc,
                                   vector::TransferWriteOp::create(
                                       cb, loc, combine(cb, channels), gIter[0],
                                       ValueRange{at, idx(cb, loc, 0)},
                                       ArrayRef<bool>{true})
                                       .getResult());
            });
        scf::YieldOp::create(tb, loc, groupLoop.getResult(0));
      });
  return tapLoop.getResult(0);
}

Value ConvPanels::plane(OpBuilder &b, Location loc, Value sums, int64_t first,
                        int64_t count) const {
  Type elt = cast<RankedTensorType>(sums.getType()).getElementType();
  if (!flat)
    return tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({count, oh, ow}, elt), sums,
        indexAttrs(b, {first, 0, 0}), indexAttrs(b, {count, oh, ow}),
        indexAttrs(b, {1, 1, 1}));
  Value rows = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({count, oh * wpad}, elt), sums,
      indexAttrs(b, {first, 0, 0}), indexAttrs(b, {count, 1, oh * wpad}),
      indexAttrs(b, {1, 1, 1}));
  Value grid = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({count, oh, wpad}, elt), rows,
      SmallVector<ReassociationIndices>{{0}, {1, 2}});
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({count, oh, ow}, elt), grid,
      indexAttrs(b, {0, 0, 0}), indexAttrs(b, {count, oh, ow}),
      indexAttrs(b, {1, 1, 1}));
}
