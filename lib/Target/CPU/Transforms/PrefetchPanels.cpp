//===- PrefetchPanels.cpp - prefetch a packed matmul's next B block -------===//
//
// See hodu-cpu-prefetch-panels in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUPREFETCHPANELS
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {

/// The constant value of `v`, if it is one.
std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (v && matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// An scf.for from 0 with constant bounds and step: its trip count.
std::optional<int64_t> tripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = constantOf(loop.getLowerBound()),
                         ub = constantOf(loop.getUpperBound()),
                         step = constantOf(loop.getStep());
  if (!lb || !ub || !step || *lb != 0 || *step <= 0 || *ub % *step != 0)
    return std::nullopt;
  return *ub / *step;
}

/// What a register kernel's B read is made of:
///   %block = memref.subview %packed[%p, %kb, 0] [1, kc, nr] [1, 1, 1]
///   %row   = memref.subview %block[%k, 0] [1, nr] [1, 1]
///   vector.transfer_read %row[...] : vector<nr x elt>
struct BRead {
  Value packed; ///< [P, K, nr], contiguous
  OpFoldResult panel, kBlock;
  int64_t panels, k, kc, nr, eltBytes;
};

std::optional<BRead> matchBRead(vector::TransferReadOp read, scf::ForOp kLoop,
                                int64_t nr) {
  if (read.getVectorType().getRank() != 1 ||
      read.getVectorType().getNumElements() != nr)
    return std::nullopt;
  auto row = read.getBase().getDefiningOp<memref::SubViewOp>();
  if (!row || row.getMixedOffsets().size() != 2)
    return std::nullopt;
  // The row is the k loop's induction variable.
  auto rowOffset = dyn_cast<Value>(row.getMixedOffsets()[0]);
  if (rowOffset != kLoop.getInductionVar())
    return std::nullopt;
  auto block = row.getSource().getDefiningOp<memref::SubViewOp>();
  if (!block)
    return std::nullopt;
  auto packedType = dyn_cast<MemRefType>(block.getSource().getType());
  if (!packedType || packedType.getRank() != 3 ||
      !packedType.hasStaticShape() || !packedType.getLayout().isIdentity() ||
      packedType.getDimSize(2) != nr ||
      !packedType.getElementType().isIntOrFloat())
    return std::nullopt;
  SmallVector<OpFoldResult> offsets = block.getMixedOffsets(),
                            sizes = block.getMixedSizes(),
                            strides = block.getMixedStrides();
  std::optional<int64_t> kc = getConstantIntValue(sizes[1]);
  if (!kc || getConstantIntValue(sizes[0]) != 1 ||
      getConstantIntValue(sizes[2]) != nr ||
      getConstantIntValue(offsets[2]) != 0 ||
      !llvm::all_of(strides, [](OpFoldResult s) { return isOneInteger(s); }))
    return std::nullopt;
  std::optional<int64_t> trips = tripCount(kLoop);
  if (!trips || *trips != *kc)
    return std::nullopt;
  return BRead{block.getSource(),
               offsets[0],
               offsets[1],
               packedType.getDimSize(0),
               packedType.getDimSize(1),
               *kc,
               nr,
               int64_t(packedType.getElementTypeBitWidth() / 8)};
}

struct CpuPrefetchPanels
    : hodu::cpu::impl::CpuPrefetchPanelsBase<CpuPrefetchPanels> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp kLoop : loops)
      addPrefetch(kLoop);
  }

  void addPrefetch(scf::ForOp kLoop) {
    // The k loop carries the register tile's accumulator, mr x nr.
    if (kLoop.getNumRegionIterArgs() != 1)
      return;
    auto acc = dyn_cast<VectorType>(kLoop.getRegionIterArgs()[0].getType());
    if (!acc || acc.getRank() != 2 || acc.isScalable())
      return;
    int64_t mr = acc.getDimSize(0), nr = acc.getDimSize(1);
    // A's column of mr values and B's row of nr would be told apart only
    // by which loop indexes their block; leave square tiles alone.
    if (mr == nr)
      return;
    // Inside a row-block loop of few iterations.
    auto rowLoop = dyn_cast_or_null<scf::ForOp>(kLoop->getParentOp());
    if (!rowLoop)
      return;
    std::optional<int64_t> rowBlocks = tripCount(rowLoop);
    if (!rowBlocks || *rowBlocks > maxRowBlocks)
      return;
    std::optional<BRead> b;
    kLoop.getBody()->walk([&](vector::TransferReadOp read) {
      if (!b)
        b = matchBRead(read, kLoop, nr);
    });
    if (!b)
      return;
    // The B block's value must not depend on the row block (else it is
    // A's, or a B that changes between the row blocks).
    for (OpFoldResult ofr : {b->panel, b->kBlock})
      if (auto v = dyn_cast<Value>(ofr))
        if (rowLoop->isAncestor(v.getParentBlock()->getParentOp()) ||
            v == rowLoop.getInductionVar())
          return;

    OpBuilder builder = OpBuilder::atBlockBegin(kLoop.getBody());
    Location loc = kLoop.getLoc();
    auto cst = [&](int64_t v) {
      return arith::ConstantIndexOp::create(builder, loc, v).getResult();
    };
    auto val = [&](OpFoldResult ofr) -> Value {
      if (auto v = dyn_cast<Value>(ofr))
        return v;
      return cst(*getConstantIntValue(ofr));
    };
    // mb = (row loop iv) / step; t = mb * kc + k; the part of the next
    // block this step fetches starts at element t * nr / row-blocks.
    Value mb = arith::DivUIOp::create(builder, loc, rowLoop.getInductionVar(),
                                      rowLoop.getStep());
    Value t = arith::AddIOp::create(
        builder, loc, arith::MulIOp::create(builder, loc, mb, cst(b->kc)),
        kLoop.getInductionVar());
    Value e = arith::DivUIOp::create(
        builder, loc, arith::MulIOp::create(builder, loc, t, cst(b->nr)),
        cst(*rowBlocks));
    // Cache lines per step: the block's bytes over the steps of all row
    // blocks, rounded up.
    int64_t lineElts = std::max<int64_t>(64 / b->eltBytes, 1);
    int64_t perStep =
        (b->nr + lineElts * *rowBlocks - 1) / (lineElts * *rowBlocks);
    Value panel = val(b->panel), kBlock = val(b->kBlock);
    for (int64_t j = 0; j < perStep; ++j) {
      Value ej = j ? arith::AddIOp::create(builder, loc, e, cst(j * lineElts))
                         .getResult()
                   : e;
      // Row kb + kc + ej / nr of panel p, carried into the panels after it
      // (the layout is contiguous) and clamped to the last one.
      Value row = arith::AddIOp::create(
          builder, loc, kBlock,
          arith::AddIOp::create(
              builder, loc, cst(b->kc),
              arith::DivUIOp::create(builder, loc, ej, cst(b->nr))));
      Value col = arith::RemUIOp::create(builder, loc, ej, cst(b->nr));
      Value p = arith::AddIOp::create(
          builder, loc, panel,
          arith::DivUIOp::create(builder, loc, row, cst(b->k)));
      Value last = cst(b->panels - 1);
      Value pc = arith::MinUIOp::create(builder, loc, p, last);
      Value rc = arith::RemUIOp::create(builder, loc, row, cst(b->k));
      memref::PrefetchOp::create(builder, loc, b->packed,
                                 ValueRange{pc, rc, col},
                                 /*isWrite=*/false, /*localityHint=*/2,
                                 /*isDataCache=*/true);
    }
  }
};

} // namespace
