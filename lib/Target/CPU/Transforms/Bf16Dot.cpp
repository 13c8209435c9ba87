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
#include <cmath>
#include <cstring>

using namespace mlir;
using hodu::cpu::int8dot::constantValues;
using hodu::cpu::int8dot::idx;
using hodu::cpu::int8dot::indexAttrs;
using hodu::cpu::int8dot::startsAtZero;

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

/// A tensor of f32 rounded to bf16 (arith.truncf: nearest even).
Value roundToBf16(OpBuilder &b, Location loc, Value f32Tensor) {
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

} // namespace

std::optional<std::string> hodu::cpu::matmulToBf16Dot(linalg::MatmulOp mm,
                                                      bool parallel,
                                                      int64_t registers) {
  if (!mm.hasPureTensorSemantics() || mm.hasUserDefinedMaps())
    return std::nullopt;
  auto aType = dyn_cast<RankedTensorType>(mm.getInputs()[0].getType());
  auto bType = dyn_cast<RankedTensorType>(mm.getInputs()[1].getType());
  auto cType = dyn_cast<RankedTensorType>(mm->getResult(0).getType());
  if (!aType || !bType || !cType || !aType.hasStaticShape() ||
      !bType.hasStaticShape() || !cType.hasStaticShape())
    return std::nullopt;
  if (!aType.getElementType().isF32() || !bType.getElementType().isF32() ||
      !cType.getElementType().isF32() || !startsAtZero(mm.getOutputs()[0]))
    return std::nullopt;
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1),
          n = bType.getDimSize(1);
  // Too little to pay for rounding and padding A.
  if (k < 8 || n < kLanes || m < 1)
    return std::nullopt;
  std::optional<std::vector<double>> w = constantValues(mm.getInputs()[1]);
  if (!w)
    return std::nullopt;

  // Panels of two vectors' columns where N has them, else one; row blocks
  // of up to 12 rows (2 x 12 accumulators, two B vectors and a broadcast in
  // 32 registers), or 16 with one vector, as even as they divide. K in
  // words of 2 values: k2 of them.
  int64_t vecs = n >= 2 * kLanes ? 2 : 1, nr = vecs * kLanes;
  int64_t np = llvm::alignTo(n, nr), panels = np / nr;
  int64_t maxRows = std::clamp<int64_t>((registers - vecs - 1) / vecs, 1,
                                        vecs == 1 ? 16 : 12);
  int64_t blocks = llvm::divideCeil(m, maxRows);
  int64_t mr = llvm::divideCeil(m, blocks), mp = blocks * mr;
  int64_t k2 = llvm::divideCeil(k, 2);

  // Bp[panel, word, 2 column + j] = bf16(W[2 word + j, column]), zeros past
  // K and N.
  AsmResourceBlob packed = HeapAsmResourceBlob::allocate(
      static_cast<size_t>(panels * k2 * nr * 2 * 2), alignof(uint64_t));
  {
    char *out = packed.getMutableData().data();
    std::memset(out, 0, packed.getData().size());
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t g = 0; g < k2; ++g)
        for (int64_t l = 0; l < nr; ++l)
          for (int64_t j = 0; j < 2; ++j) {
            int64_t col = p * nr + l, t = 2 * g + j;
            if (col >= n || t >= k)
              continue;
            uint16_t h = bf16Bits(static_cast<float>((*w)[t * n + col]));
            std::memcpy(out + (((p * k2 + g) * nr + l) * 2 + j) * 2, &h, 2);
          }
  }

  OpBuilder b(mm);
  Location loc = mm.getLoc();
  Type f32 = b.getF32Type(), bf16 = b.getBF16Type(), i16 = b.getI16Type(),
       i32 = b.getI32Type();
  Value bp = arith::ConstantOp::create(
      b, loc,
      DenseResourceElementsAttr::get(
          RankedTensorType::get({panels, k2, nr * 2}, i16), "hodu_packed_bf16",
          std::move(packed)));

  // A as bf16 [mp, 2 k2]: rows padded to whole blocks and K to whole words
  // with zeros (their weights are zero too), rounded once.
  Value zeroF = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  Value ap = tensor::PadOp::create(
      b, loc, RankedTensorType::get({mp, 2 * k2}, f32), mm.getInputs()[0],
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(mp - m),
                             b.getIndexAttr(2 * k2 - k)},
      zeroF);
  Value ae = roundToBf16(b, loc, ap);

  auto pairs = VectorType::get({2 * kLanes}, bf16);
  auto pairBits = VectorType::get({2 * kLanes}, i16);
  auto sums = VectorType::get({kLanes}, f32);
  auto word = VectorType::get({2}, bf16);
  auto word1 = VectorType::get({1}, i32);
  auto words = VectorType::get({kLanes}, i32);
  Value accInit =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{mp, np}, f32);
  Value acc = hodu::cpu::tileLoop(
      b, loc, panels, 1, accInit, parallel,
      [&](OpBuilder &nb, Value p, Value, SmallVector<OpFoldResult> &offsets,
          SmallVector<OpFoldResult> &sizes) -> Value {
        offsets = {
            nb.getIndexAttr(0),
            arith::MulIOp::create(nb, loc, p, idx(nb, loc, nr)).getResult()};
        sizes = {nb.getIndexAttr(mp), nb.getIndexAttr(nr)};
        Value padBits =
            arith::ConstantOp::create(nb, loc, nb.getIntegerAttr(i16, 0));
        Value padBf16 =
            arith::ConstantOp::create(nb, loc, nb.getFloatAttr(bf16, 0.0));
        Value zeroAcc = arith::ConstantOp::create(
            nb, loc, DenseElementsAttr::get(sums, nb.getF32FloatAttr(0)));
        Value tile0 =
            tensor::EmptyOp::create(nb, loc, ArrayRef<int64_t>{mp, nr}, f32);
        auto blockLoop = scf::ForOp::create(
            nb, loc, idx(nb, loc, 0), idx(nb, loc, blocks), idx(nb, loc, 1),
            ValueRange{tile0},
            [&](OpBuilder &rb, Location, Value blk, ValueRange blkIter) {
              Value row0 = hodu::cpu::scaledIndex(rb, loc, blk, mr, 0);
              SmallVector<Value> inits(mr * vecs, zeroAcc);
              auto kLoop = scf::ForOp::create(
                  rb, loc, idx(rb, loc, 0), idx(rb, loc, k2), idx(rb, loc, 1),
                  inits,
                  [&](OpBuilder &kb, Location, Value g, ValueRange accs) {
                    SmallVector<Value> bv;
                    for (int64_t v = 0; v < vecs; ++v)
                      bv.push_back(vector::BitCastOp::create(
                          kb, loc, pairs,
                          vector::TransferReadOp::create(
                              kb, loc, pairBits, bp,
                              ValueRange{p, g, idx(kb, loc, v * 2 * kLanes)},
                              padBits, ArrayRef<bool>{true})));
                    Value col = hodu::cpu::scaledIndex(kb, loc, g, 2, 0);
                    SmallVector<Value> next;
                    for (int64_t r = 0; r < mr; ++r) {
                      Value row =
                          arith::AddIOp::create(kb, loc, row0, idx(kb, loc, r));
                      Value two = vector::TransferReadOp::create(
                          kb, loc, word, ae, ValueRange{row, col}, padBf16,
                          ArrayRef<bool>{true});
                      Value av = vector::BitCastOp::create(
                          kb, loc, pairs,
                          vector::BroadcastOp::create(
                              kb, loc, words,
                              vector::BitCastOp::create(kb, loc, word1, two)));
                      for (int64_t v = 0; v < vecs; ++v)
                        next.push_back(x86vector::DotBF16Op::create(
                            kb, loc, sums, accs[r * vecs + v], av, bv[v]));
                    }
                    scf::YieldOp::create(kb, loc, next);
                  });
              Value tile = blkIter[0];
              for (int64_t r = 0; r < mr; ++r)
                for (int64_t v = 0; v < vecs; ++v)
                  tile = vector::TransferWriteOp::create(
                             rb, loc, kLoop.getResult(r * vecs + v), tile,
                             ValueRange{arith::AddIOp::create(rb, loc, row0,
                                                              idx(rb, loc, r)),
                                        idx(rb, loc, v * kLanes)},
                             ArrayRef<bool>{true})
                             .getResult();
              scf::YieldOp::create(rb, loc, tile);
            });
        return blockLoop.getResult(0);
      });

  Value result = acc;
  if (mp != m || np != n)
    result = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({m, n}, f32), acc, indexAttrs(b, {0, 0}),
        indexAttrs(b, {m, n}), indexAttrs(b, {1, 1}));
  mm->getResult(0).replaceAllUsesWith(result);
  mm->erase();
  return llvm::formatv("bf16 dot products (AVX512-BF16 vdpbf16ps), {0}x{1} "
                       "register tile, {2} pairs of K, {3} panel(s)",
                       mr, nr, k2, panels)
      .str();
}
