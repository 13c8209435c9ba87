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
