//===- TileLoop.cpp - a loop over tiles carrying one tensor ---------------===//
//
// The loop and index helpers of TileLoop.h, which the hand-built kernels of
// hodu-cpu-vectorize (Packing.cpp, DirectConv.cpp, Int8DotConv.cpp,
// Int8DotMatmul.cpp, Winograd.cpp) build their loops over tiles with.
//
//===----------------------------------------------------------------------===//

#include "TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
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

Value hodu::cpu::registerBlocks(
    OpBuilder &b, Location loc, Value tile, int64_t blocks, int64_t mr,
    int64_t vecs, int64_t lanes, int64_t steps, Value zero,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Value)> readB,
    llvm::function_ref<Value(OpBuilder &, Value, Value)> readA,
    llvm::function_ref<Value(OpBuilder &, Value, Value, Value)> dot) {
  auto index = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  auto blockLoop = scf::ForOp::create(
      b, loc, index(b, 0), index(b, blocks), index(b, 1), ValueRange{tile},
      [&](OpBuilder &rb, Location, Value blk, ValueRange blkIter) {
        Value row0 = scaledIndex(rb, loc, blk, mr, 0);
        SmallVector<Value> inits(mr * vecs, zero);
        auto kLoop = scf::ForOp::create(
            rb, loc, index(rb, 0), index(rb, steps), index(rb, 1), inits,
            [&](OpBuilder &kb, Location, Value g, ValueRange accs) {
              SmallVector<Value> bv = readB(kb, g);
              SmallVector<Value> next;
              for (int64_t r = 0; r < mr; ++r) {
                Value a = readA(
                    kb, arith::AddIOp::create(kb, loc, row0, index(kb, r)), g);
                for (int64_t v = 0; v < vecs; ++v)
                  next.push_back(dot(kb, accs[r * vecs + v], a, bv[v]));
              }
              scf::YieldOp::create(kb, loc, next);
            });
        Value t = blkIter[0];
        for (int64_t r = 0; r < mr; ++r)
          for (int64_t v = 0; v < vecs; ++v)
            t = vector::TransferWriteOp::create(
                    rb, loc, kLoop.getResult(r * vecs + v), t,
                    ValueRange{
                        arith::AddIOp::create(rb, loc, row0, index(rb, r)),
                        index(rb, v * lanes)},
                    ArrayRef<bool>{true})
                    .getResult();
        scf::YieldOp::create(rb, loc, t);
      });
  return blockLoop.getResult(0);
}

int64_t hodu::cpu::registerRows(int64_t registers, int64_t vecs,
                                int64_t spare) {
  return std::clamp<int64_t>((registers - vecs - spare) / vecs, 1,
                             vecs == 1   ? 16
                             : vecs == 2 ? 12
                                         : 8);
}

bool hodu::cpu::threeVectorPanels(int64_t m, int64_t n, int64_t lanes,
                                  int64_t maxRows2, int64_t maxRows3) {
  auto padded = [&](int64_t vecs, int64_t maxRows) {
    int64_t blocks = llvm::divideCeil(m, maxRows);
    return blocks * llvm::divideCeil(m, blocks) *
           static_cast<int64_t>(llvm::alignTo(n, vecs * lanes));
  };
  return n >= 3 * lanes && padded(3, maxRows3) <= padded(2, maxRows2);
}
