//===- PadInPlace.cpp - padded tensors written in place -------------------===//
//
// See hodu-cpu-pad-in-place in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUPADINPLACE
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {

/// The padding of one tensor: low and high per dim.
struct Padding {
  SmallVector<int64_t> low, high;
};

/// The padding of the reshape's source that, reshaped, gives `outer` of
/// its result; failure where a padded dim shares its group with another dim
/// of size other than 1 (the padding would then interleave with data).
/// `groups` are the reassociation groups of the larger-rank side, each the
/// dims of one dim of the smaller-rank side; `manyShape` is the larger side.
FailureOr<Padding> mapThroughGroups(ArrayRef<ReassociationIndices> groups,
                                    ArrayRef<int64_t> manyShape,
                                    const Padding &many, bool toFew) {
  Padding out;
  if (toFew) {
    // Many (the expanded result) -> few (the source): one padded dim per
    // group at most, the others of size 1.
    for (const ReassociationIndices &group : groups) {
      int64_t low = 0, high = 0;
      int padded = 0;
      for (int64_t d : group)
        if (many.low[d] || many.high[d]) {
          ++padded;
          low = many.low[d];
          high = many.high[d];
        }
      if (padded > 1)
        return failure();
      if (padded == 1)
        for (int64_t d : group)
          if (!(many.low[d] || many.high[d]) && manyShape[d] != 1)
            return failure();
      out.low.push_back(low);
      out.high.push_back(high);
    }
    return out;
  }
  // Few (the collapsed result) -> many (the source): a padded dim goes to
  // the one dim of its group whose size is not 1 (the last if all are 1).
  out.low.assign(manyShape.size(), 0);
  out.high.assign(manyShape.size(), 0);
  for (auto [i, group] : llvm::enumerate(groups)) {
    if (!(many.low[i] || many.high[i]))
      continue;
    int64_t target = group.back();
    int notOne = 0;
    for (int64_t d : group)
      if (manyShape[d] != 1) {
        ++notOne;
        target = d;
      }
    if (notOne > 1)
      return failure();
    out.low[target] = many.low[i];
    out.high[target] = many.high[i];
  }
  return out;
}

SmallVector<int64_t> paddedShape(ArrayRef<int64_t> shape, const Padding &p) {
  SmallVector<int64_t> out;
  for (auto [i, size] : llvm::enumerate(shape))
    out.push_back(size + p.low[i] + p.high[i]);
  return out;
}

/// A reshape moved after the pad: its kind, reassociation and result type
/// once padded.
struct MovedReshape {
  bool expand;
  SmallVector<ReassociationIndices> groups;
  RankedTensorType paddedResult;
};

/// Rewrites one pad; false where it does not apply.
bool rewritePad(tensor::PadOp pad, DominanceInfo &dominance) {
  auto resultType = pad.getResultType();
  Value padValue = pad.getConstantPaddingValue();
  if (pad.getNofold() || !padValue || !resultType.hasStaticShape() ||
      !pad.getLow().empty() || !pad.getHigh().empty())
    return false;
  Padding padding{llvm::to_vector(pad.getStaticLow()),
                  llvm::to_vector(pad.getStaticHigh())};
  if (llvm::any_of(padding.low, [](int64_t v) { return v < 0; }) ||
      llvm::any_of(padding.high, [](int64_t v) { return v < 0; }))
    return false;

  // Walk up through reshapes whose only user is the pad's chain.
  Value source = pad.getSource();
  SmallVector<MovedReshape> moved; // outermost (nearest the pad) first
  Padding current = padding;
  RankedTensorType currentPadded = resultType;
  while (Operation *def = source.getDefiningOp()) {
    if (!source.hasOneUse())
      break;
    FailureOr<Padding> inner = failure();
    SmallVector<ReassociationIndices> groups;
    bool expand = false;
    Value next;
    if (auto e = dyn_cast<tensor::ExpandShapeOp>(def)) {
      if (!e.getSrcType().hasStaticShape())
        break;
      groups = e.getReassociationIndices();
      inner = mapThroughGroups(groups, e.getResultType().getShape(), current,
                               /*toFew=*/true);
      expand = true;
      next = e.getSrc();
    } else if (auto c = dyn_cast<tensor::CollapseShapeOp>(def)) {
      if (!c.getSrcType().hasStaticShape())
        break;
      groups = c.getReassociationIndices();
      inner = mapThroughGroups(groups, c.getSrcType().getShape(), current,
                               /*toFew=*/false);
      next = c.getSrc();
    } else {
      break;
    }
    if (failed(inner))
      break;
    moved.push_back({expand, groups, currentPadded});
    auto nextType = cast<RankedTensorType>(next.getType());
    currentPadded = RankedTensorType::get(
        paddedShape(nextType.getShape(), *inner), nextType.getElementType());
    current = *inner;
    source = next;
  }

  // A source with other users keeps its pad: eliminate-empty-tensors would
  // still hand its producer the padded tensor's interior (it moves the
  // fill up), and the other users, which read a dense tensor, may address
  // it as one (a resize's vector.gather takes flat offsets). So does a
  // producer that scatters by flat offsets itself.
  if (!source.hasOneUse())
    return false;
  if (Operation *def = source.getDefiningOp();
      def &&
      def->walk([](vector::ScatterOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return false;

  // The fill goes before the source's producer, so that
  // eliminate-empty-tensors may hand the producer a slice of the padded
  // tensor; the padding value must then be available there.
  OpBuilder b(pad);
  Location loc = pad.getLoc();
  Operation *producer = source.getDefiningOp();
  // A producer in another block (the pad inside a loop) keeps the fill at
  // the pad: hoisted, each iteration's insert would copy the whole tensor.
  // An empty tensor has nothing to write in place.
  if (producer && producer->getBlock() == pad->getBlock() &&
      !isa<tensor::EmptyOp>(producer)) {
    if (dominance.properlyDominates(padValue, producer)) {
      b.setInsertionPoint(producer);
    } else if (Operation *constant = padValue.getDefiningOp();
               constant && constant->hasTrait<OpTrait::ConstantLike>()) {
      b.setInsertionPoint(producer);
      padValue = b.clone(*constant)->getResult(0);
    }
  }

  auto sourceType = cast<RankedTensorType>(source.getType());
  ArrayRef<int64_t> sizes = sourceType.getShape();
  ArrayRef<int64_t> full = currentPadded.getShape();
  int64_t rank = sourceType.getRank();
  // The whole tensor is filled, then the interior is overwritten: a
  // memset. Filling the border alone (a fill per padded side) was no faster
  // on PP-OCRv4's detector, its strided column fills lowered to scalar
  // loops, and it doubled the code generation time of PP-OCR's classifier.
  Value filled =
      tensor::EmptyOp::create(b, loc, full, sourceType.getElementType());
  filled =
      linalg::FillOp::create(b, loc, ValueRange{padValue}, ValueRange{filled})
          .getResult(0);

  b.setInsertionPoint(pad);
  SmallVector<OpFoldResult> offsets, interior, strides(rank, b.getIndexAttr(1));
  for (int64_t d = 0; d < rank; ++d) {
    offsets.push_back(b.getIndexAttr(current.low[d]));
    interior.push_back(b.getIndexAttr(sizes[d]));
  }
  Value result = tensor::InsertSliceOp::create(b, loc, source, filled, offsets,
                                               interior, strides);
  for (const MovedReshape &r : llvm::reverse(moved)) {
    if (r.expand)
      result = tensor::ExpandShapeOp::create(b, loc, r.paddedResult, result,
                                             r.groups);
    else
      result = tensor::CollapseShapeOp::create(b, loc, r.paddedResult, result,
                                               r.groups);
  }
  // The moved reshapes' old ops lose their only user with the pad.
  Value oldSource = pad.getSource();
  pad.getResult().replaceAllUsesWith(result);
  pad.erase();
  while (Operation *def = oldSource.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def) ||
        !def->use_empty())
      break;
    oldSource = def->getOperand(0);
    def->erase();
  }
  return true;
}

struct CpuPadInPlace : hodu::cpu::impl::CpuPadInPlaceBase<CpuPadInPlace> {
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    DominanceInfo dominance(getOperation());
    for (tensor::PadOp pad : pads)
      rewritePad(pad, dominance);
  }
};

} // namespace
