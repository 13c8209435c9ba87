//===- Bf16Dot.cpp - f32 matmuls on bf16 dot products ---------------------===//
//
// matmulToBf16Dot (Bf16Dot.h), hoduc --precision=bf16: an f32 matmul by a
// constant as f32 sums of bf16 pair products (AVX512-BF16 vdpbf16ps, 32
// products per instruction where an f32 FMA does 16). The kernel is the int8
// VNNI matmul's (Int8DotMatmul.cpp) with pairs for quads: the constant packed
// in panels of columns at compile time, a row's pair of A broadcast to every
// lane, one dot per row and B vector, the sums in registers over all of K.
//
// What rounds: A and B to bf16 (8 bits of mantissa, nearest even), once
// each; the products and sums are f32 inside vdpbf16ps, which treats
// subnormal inputs and outputs as zero. docs/hoduc.md gives the tolerance.
//
//===----------------------------------------------------------------------===//

#include "Bf16Dot.h"

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
using hodu::cpu::int8dot::constantValues;
using hodu::cpu::int8dot::idx;
using hodu::cpu::int8dot::indexAttrs;
using hodu::cpu::int8dot::startsAtZero;

Value hodu::cpu::roundToBf16(OpBuilder &b, Location loc, Value f32Tensor) {
  auto type = cast<RankedTensorType>(f32Tensor.getType());
  auto out = RankedTensorType::get(type.getShape(), b.getBF16Type());
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<utils::IteratorType> par(type.getRank(),
                                       utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{out}, ValueRange{f32Tensor},
             ValueRange{tensor::EmptyOp::create(b, loc, out.getShape(),
                                                out.getElementType())},
             ArrayRef<AffineMap>{id, id}, par,
             [&](OpBuilder &gb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   gb, l,
                   arith::TruncFOp::create(gb, l, gb.getBF16Type(), args[0])
                       .getResult());
             })
      .getResult(0);
}

uint16_t hodu::cpu::bf16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep it one, quiet
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

namespace {

constexpr int64_t kLanes = 16; // f32 sums of a 512-bit vector

/// The tiles of y[b] = A[b] B[b] for `bs` batches of A [m, k] by B [k, n].
struct Tiles {
  int64_t bs, m, k, n;
  int64_t vecs, nr, np, panels; // panels of one to three vectors' columns
  int64_t blocks, mr, mp;       // row blocks of mr rows, mp in all
  int64_t k2;                   // K in pairs
  Tiles(int64_t bs, int64_t m, int64_t k, int64_t n, int64_t registers)
      : bs(bs), m(m), k(k), n(n) {
    // Panels of two vectors' columns where N has them, else one; row
    // blocks of up to 12 rows (2 x 12 accumulators, two B vectors and a
    // broadcast in 32 registers), or 16 with one vector, as even as they
    // divide; panels of three and blocks of up to 8 rows where they pad no
    // more (threeVectorPanels).
    auto maxRows = [&](int64_t v) {
      return hodu::cpu::registerRows(registers, v, /*spare=*/1);
    };
    vecs = n >= 2 * kLanes ? 2 : 1;
    if (vecs == 2 && registers >= 32 &&
        hodu::cpu::threeVectorPanels(m, n, kLanes, maxRows(2), maxRows(3)))
      vecs = 3;
    nr = vecs * kLanes;
    np = llvm::alignTo(n, nr);
    panels = np / nr;
    blocks = llvm::divideCeil(m, maxRows(vecs));
    mr = llvm::divideCeil(m, blocks);
    mp = blocks * mr;
    k2 = llvm::divideCeil(k, 2);
  }
};

/// B [k, n] (the values `w`, row-major) rounded to bf16 and packed at
/// compile time: Bp[0, panel, word, 2 column + j] = bf16(W[2 word + j,
/// column]), zeros past K and N, as i16.
Value packConstant(OpBuilder &b, Location loc, ArrayRef<double> w,
                   const Tiles &t) {
  AsmResourceBlob packed = HeapAsmResourceBlob::allocate(
      static_cast<size_t>(t.panels * t.k2 * t.nr * 2 * 2), alignof(uint64_t));
  char *out = packed.getMutableData().data();
  std::memset(out, 0, packed.getData().size());
  for (int64_t p = 0; p < t.panels; ++p)
    for (int64_t g = 0; g < t.k2; ++g)
      for (int64_t l = 0; l < t.nr; ++l)
        for (int64_t j = 0; j < 2; ++j) {
          int64_t col = p * t.nr + l, row = 2 * g + j;
          if (col >= t.n || row >= t.k)
            continue;
          uint16_t h =
              hodu::cpu::bf16Bits(static_cast<float>(w[row * t.n + col]));
          std::memcpy(out + (((p * t.k2 + g) * t.nr + l) * 2 + j) * 2, &h, 2);
        }
  return arith::ConstantOp::create(
      b, loc,
      DenseResourceElementsAttr::get(
          RankedTensorType::get({1, t.panels, t.k2, t.nr * 2}, b.getI16Type()),
          "hodu_packed_bf16", std::move(packed)));
}

/// The same packing of B [bs, k, n] (f32, any values) on every run: padded
/// to whole pairs and panels with zeros, rounded (arith.truncf: nearest
/// even), each bf16 as its i16 bits.
Value packAtRunTime(OpBuilder &b, Location loc, Value bIn, const Tiles &t) {
  MLIRContext *ctx = b.getContext();
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  Value padded = tensor::PadOp::create(
      b, loc, RankedTensorType::get({t.bs, 2 * t.k2, t.np}, b.getF32Type()),
      bIn, indexAttrs(b, {0, 0, 0}),
      indexAttrs(b, {0, 2 * t.k2 - t.k, t.np - t.n}), zero);
  auto outType =
      RankedTensorType::get({t.bs, t.panels, t.k2, t.nr, 2}, b.getI16Type());
  AffineExpr bi, p, g, l, j;
  bindDims(ctx, bi, p, g, l, j);
  Value words =
      linalg::GenericOp::create(
          b, loc, TypeRange{outType}, ValueRange{padded},
          ValueRange{tensor::EmptyOp::create(b, loc, outType.getShape(),
                                             b.getI16Type())},
          ArrayRef<AffineMap>{
              AffineMap::get(5, 0, {bi, g * 2 + j, p * t.nr + l}, ctx),
              AffineMap::getMultiDimIdentityMap(5, ctx)},
          SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
          [&](OpBuilder &gb, Location gl, ValueRange args) {
            Value h =
                arith::TruncFOp::create(gb, gl, gb.getBF16Type(), args[0]);
            linalg::YieldOp::create(
                gb, gl,
                arith::BitcastOp::create(gb, gl, gb.getI16Type(), h)
                    .getResult());
          })
          .getResult(0);
  return tensor::CollapseShapeOp::create(
      b, loc, words, ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
}

/// The kernels: acc[b, i, p nr + c] = sum over pairs of A[b] and Bp[b, p]
/// for `a` f32 [bs, m, k] and `bp` i16 [bs or 1, panels, k2, 2 nr] (one
/// packed B for every batch when its first dim is 1); units of one batch
/// and one panel over threads. Returns acc, f32 [bs, mp, np].
Value bf16Kernels(OpBuilder &b, Location loc, Value a, Value bp, const Tiles &t,
                  bool parallel) {
  Type f32 = b.getF32Type(), bf16 = b.getBF16Type(), i16 = b.getI16Type(),
       i32 = b.getI32Type();
  bool sharedB = cast<RankedTensorType>(bp.getType()).getDimSize(0) == 1;
  // A as bf16 [bs, mp, 2 k2]: rows padded to whole blocks and K to whole
  // words with zeros (their weights are zero too), rounded once.
  Value zeroF = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  Value ap = tensor::PadOp::create(
      b, loc, RankedTensorType::get({t.bs, t.mp, 2 * t.k2}, f32), a,
      indexAttrs(b, {0, 0, 0}), indexAttrs(b, {0, t.mp - t.m, 2 * t.k2 - t.k}),
      zeroF);
  Value ae = hodu::cpu::roundToBf16(b, loc, ap);

  const int64_t vecs = t.vecs, nr = t.nr, mr = t.mr;
  auto pairs = VectorType::get({2 * kLanes}, bf16);
  auto pairBits = VectorType::get({2 * kLanes}, i16);
  auto sums = VectorType::get({kLanes}, f32);
  auto word = VectorType::get({2}, bf16);
  auto word1 = VectorType::get({1}, i32);
  auto words = VectorType::get({kLanes}, i32);
  Value accInit =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{t.bs, t.mp, t.np}, f32);
  return hodu::cpu::tileLoop(
      b, loc, t.bs * t.panels, 1, accInit, parallel,
      [&](OpBuilder &nb, Value u, Value, SmallVector<OpFoldResult> &offsets,
          SmallVector<OpFoldResult> &sizes) -> Value {
        Value bi = idx(nb, loc, 0), p = u;
        if (t.bs > 1) {
          bi = arith::DivUIOp::create(nb, loc, u, idx(nb, loc, t.panels));
          p = arith::RemUIOp::create(nb, loc, u, idx(nb, loc, t.panels));
        }
        Value bb = sharedB ? idx(nb, loc, 0) : bi;
        offsets = {
            bi, nb.getIndexAttr(0),
            arith::MulIOp::create(nb, loc, p, idx(nb, loc, nr)).getResult()};
        sizes = {nb.getIndexAttr(1), nb.getIndexAttr(t.mp),
                 nb.getIndexAttr(nr)};
        Value padBits =
            arith::ConstantOp::create(nb, loc, nb.getIntegerAttr(i16, 0));
        Value padBf16 =
            arith::ConstantOp::create(nb, loc, nb.getFloatAttr(bf16, 0.0));
        Value zeroAcc = arith::ConstantOp::create(
            nb, loc, DenseElementsAttr::get(sums, nb.getF32FloatAttr(0)));
        Value tile0 =
            tensor::EmptyOp::create(nb, loc, ArrayRef<int64_t>{t.mp, nr}, f32);
        return hodu::cpu::registerBlocks(
            nb, loc, tile0, t.blocks, mr, vecs, kLanes, t.k2, zeroAcc,
            [&](OpBuilder &kb, Value g) {
              SmallVector<Value> bv;
              for (int64_t v = 0; v < vecs; ++v)
                bv.push_back(vector::BitCastOp::create(
                    kb, loc, pairs,
                    vector::TransferReadOp::create(
                        kb, loc, pairBits, bp,
                        ValueRange{bb, p, g, idx(kb, loc, v * 2 * kLanes)},
                        padBits, ArrayRef<bool>{true})));
              return bv;
            },
            [&](OpBuilder &kb, Value row, Value g) -> Value {
              Value two = vector::TransferReadOp::create(
                  kb, loc, word, ae,
                  ValueRange{bi, row, hodu::cpu::scaledIndex(kb, loc, g, 2, 0)},
                  padBf16, ArrayRef<bool>{true});
              return vector::BitCastOp::create(
                  kb, loc, pairs,
                  vector::BroadcastOp::create(
                      kb, loc, words,
                      vector::BitCastOp::create(kb, loc, word1, two)));
            },
            [&](OpBuilder &kb, Value acc, Value a, Value bv) -> Value {
              return x86vector::DotBF16Op::create(kb, loc, sums, acc, a, bv);
            });
      });
}

/// Whether `op` is a static f32 (batch) matmul from zero.
bool f32FromZero(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1)
    return false;
  for (Value v : std::initializer_list<Value>{
           op.getDpsInputs()[0], op.getDpsInputs()[1], op->getResult(0)}) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
      return false;
  }
  return startsAtZero(op.getDpsInits()[0]);
}

std::string describe(const Tiles &t, bool constant) {
  return llvm::formatv("bf16 dot products (AVX512-BF16 vdpbf16ps), {0}x{1} "
                       "register tile, {2} pairs of K, {3} panel(s){4}",
                       t.mr, t.nr, t.k2, t.panels,
                       constant ? ""
                                : llvm::formatv(", B packed per run ({0} "
                                                "batch(es))",
                                                t.bs)
                                      .str())
      .str();
}

} // namespace

std::optional<std::string> hodu::cpu::matmulToBf16Dot(linalg::MatmulOp mm,
                                                      bool parallel,
                                                      int64_t registers) {
  if (mm.hasUserDefinedMaps() || !f32FromZero(mm))
    return std::nullopt;
  auto aType = cast<RankedTensorType>(mm.getInputs()[0].getType());
  auto bType = cast<RankedTensorType>(mm.getInputs()[1].getType());
  Tiles t(1, aType.getDimSize(0), aType.getDimSize(1), bType.getDimSize(1),
          registers);
  // Too little to pay for rounding and padding A.
  if (t.k < 8 || t.n < kLanes)
    return std::nullopt;
  std::optional<std::vector<double>> w = constantValues(mm.getInputs()[1]);
  OpBuilder b(mm);
  Location loc = mm.getLoc();
  auto expand = [&](Value v, int64_t rows, int64_t cols) -> Value {
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1, rows, cols}, b.getF32Type()), v,
        ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  };
  Value bp = w ? packConstant(b, loc, *w, t)
               : packAtRunTime(b, loc, expand(mm.getInputs()[1], t.k, t.n), t);
  Value acc =
      bf16Kernels(b, loc, expand(mm.getInputs()[0], t.m, t.k), bp, t, parallel);
  Value result = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({t.m, t.n}, b.getF32Type()), acc,
      indexAttrs(b, {0, 0, 0}), indexAttrs(b, {1, t.m, t.n}),
      indexAttrs(b, {1, 1, 1}));
  mm->getResult(0).replaceAllUsesWith(result);
  mm->erase();
  return describe(t, w.has_value());
}

std::optional<std::string>
hodu::cpu::batchMatmulToBf16Dot(linalg::BatchMatmulOp mm, bool parallel,
                                int64_t registers) {
  if (mm.hasUserDefinedMaps() || !f32FromZero(mm))
    return std::nullopt;
  auto aType = cast<RankedTensorType>(mm.getInputs()[0].getType());
  auto bType = cast<RankedTensorType>(mm.getInputs()[1].getType());
  Tiles t(aType.getDimSize(0), aType.getDimSize(1), aType.getDimSize(2),
          bType.getDimSize(2), registers);
  if (t.k < 8 || t.n < kLanes)
    return std::nullopt;
  OpBuilder b(mm);
  Location loc = mm.getLoc();
  Value bp = packAtRunTime(b, loc, mm.getInputs()[1], t);
  Value acc = bf16Kernels(b, loc, mm.getInputs()[0], bp, t, parallel);
  Value result = acc;
  if (t.mp != t.m || t.np != t.n)
    result = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({t.bs, t.m, t.n}, b.getF32Type()), acc,
        indexAttrs(b, {0, 0, 0}), indexAttrs(b, {t.bs, t.m, t.n}),
        indexAttrs(b, {1, 1, 1}));
  mm->getResult(0).replaceAllUsesWith(result);
  mm->erase();
  return describe(t, false);
}
