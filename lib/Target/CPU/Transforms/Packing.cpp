//===- Packing.cpp - packed register-tile matmuls -------------------------===//
//
// The packing of hodu-cpu-vectorize (Packing.h): the tile sizes, the panels
// of a matmul's operands (constants packed at compile time, anything else
// by a copy), the panel loops over register-tile contractions that a
// packed matmul becomes, and the padding of a constant B whose columns no
// vector width divides.
//
//===----------------------------------------------------------------------===//

#include "Packing.h"
#include "TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;
using namespace hodu::cpu;

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

int64_t hodu::cpu::tileSize(int64_t dim, int64_t limit, int64_t step) {
  for (int64_t t = std::min(dim, limit) / step * step; t > step; t -= step)
    if (dim % t == 0)
      return t;
  return step;
}

Value hodu::cpu::permutedCopy(OpBuilder &b, Location loc, Value src,
                              Value dest, AffineMap srcMap) {
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

Value hodu::cpu::packPanels(OpBuilder &b, Location loc, Value src, int64_t w,
                            bool rows, int64_t paddedRows) {
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

linalg::MatmulOp hodu::cpu::padMatmulColumns(linalg::MatmulOp mm,
                                              int64_t lanes) {
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

void hodu::cpu::packMatmul(linalg::MatmulOp mm, int64_t mr, int64_t nr,
                           int64_t kc, int64_t minM, bool parallel) {
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
