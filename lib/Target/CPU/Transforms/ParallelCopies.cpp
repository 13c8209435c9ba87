//===- ParallelCopies.cpp - large copies and fills over threads -----------===//
//
// See hodu-cpu-parallel-copies in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"
#include "hodu/Target/CPU/WorkSplit.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUPARALLELCOPIES
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {

/// Most pieces a copy is cut into, as hodu-cpu-parallelize's loops.
constexpr int64_t kMaxPieces = 16;

/// Cuts `copy` (a copy from `input`, or a fill of `output` when `input` is
/// its scalar) into pieces along its outermost dim that splits evenly;
/// false where none does.
bool parallelize(Operation *copy, Value input, Value output) {
  auto target = dyn_cast<MemRefType>(output.getType());
  auto source = dyn_cast<MemRefType>(input.getType());
  bool isFill = !source;
  if (isFill)
    source = target;
  if (!source || !target || !source.hasStaticShape() ||
      source.getShape() != target.getShape())
    return false;
  ArrayRef<int64_t> shape = source.getShape();
  int64_t dim = -1, pieces = 1;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (size < 2)
      continue;
    pieces = hodu::cpu::choosePieces(size, kMaxPieces, /*divisorsOnly=*/true);
    if (pieces > 1) {
      dim = d;
      break;
    }
  }
  if (dim < 0)
    return false;
  int64_t part = shape[dim] / pieces;
  OpBuilder b(copy);
  Location loc = copy->getLoc();
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(pieces)}, ValueRange{},
      std::nullopt);
  b.setInsertionPointToStart(forall.getBody());
  Value offset = affine::AffineApplyOp::create(
      b, loc, b.getAffineDimExpr(0) * part, forall.getInductionVar(0));
  auto slice = [&](Value memref) {
    int64_t rank = shape.size();
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
        strides(rank, b.getIndexAttr(1));
    for (int64_t size : shape)
      sizes.push_back(b.getIndexAttr(size));
    offsets[dim] = offset;
    sizes[dim] = b.getIndexAttr(part);
    return memref::SubViewOp::create(b, loc, memref, offsets, sizes, strides);
  };
  Value to = slice(output);
  if (isFill)
    linalg::FillOp::create(b, loc, ValueRange{input}, ValueRange{to});
  else
    linalg::CopyOp::create(b, loc, Value(slice(input)), to);
  copy->erase();
  return true;
}

struct CpuParallelCopies
    : hodu::cpu::impl::CpuParallelCopiesBase<CpuParallelCopies> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // The copies and fills of the function body (strided memref.copy ops
    // are linalg.copy by now: hodu-cpu-expand-strided-copies runs first;
    // contiguous ones are a memcpy).
    SmallVector<std::tuple<Operation *, Value, Value>> copies;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (auto copy = dyn_cast<linalg::CopyOp>(op);
            copy && copy.hasPureBufferSemantics())
          copies.push_back({copy, copy.getInputs()[0], copy.getOutputs()[0]});
        else if (auto fill = dyn_cast<linalg::FillOp>(op);
                 fill && fill.hasPureBufferSemantics())
          copies.push_back({fill, fill.getInputs()[0], fill.getOutputs()[0]});
    for (auto [copy, input, output] : copies) {
      auto type = dyn_cast<MemRefType>(output.getType());
      if (!type || !type.hasStaticShape() ||
          !type.getElementType().isIntOrFloat())
        continue;
      int64_t bytes = type.getNumElements() *
                      llvm::divideCeil(type.getElementTypeBitWidth(), 8);
      if (bytes >= minBytes)
        parallelize(copy, input, output);
    }
  }
};

} // namespace
