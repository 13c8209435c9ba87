//===- SplitEmptyTensors.cpp - a tensor.empty per chain of uses -----------===//
//
// CSE leaves one tensor.empty per type, shared by every computation that
// writes a fresh tensor of that type. One-shot bufferization puts all those
// results in one alias set and compares each read with each write, which
// is quadratic in the set; and the one allocation it makes for the shared
// tensor.empty lives from the top of the function to its last use.
//
// Sharing helps in one case: B reads A and both write into the same
// tensor.empty, so B may overwrite A's buffer in place (an elementwise
// chain). So the uses are taken in program order and split into chains, a
// use joining the current chain when it reads a value written into the
// chain's buffer (a result of a use, or of an op that wrote into one, as a
// matmul into its fill), up to kMaxChain uses; each chain gets its own
// tensor.empty, placed right before its first use.
//
//===----------------------------------------------------------------------===//

#include "hodu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/RegionUtils.h"

namespace hodu {
#define GEN_PASS_DEF_SPLITEMPTYTENSORS
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;

namespace {

/// Most uses one tensor.empty keeps: bounds the analysis' quadratic cost.
constexpr size_t kMaxChain = 16;

/// The value whose buffer a result is, or part of: a destination-style
/// op's tied init, a loop's init, a reshape's or slice's source; or null.
Value tiedInit(Value v) {
  auto result = dyn_cast<OpResult>(v);
  if (!result)
    return nullptr;
  Operation *op = result.getOwner();
  if (auto reshape = dyn_cast<tensor::ExpandShapeOp>(op))
    return reshape.getSrc();
  if (auto reshape = dyn_cast<tensor::CollapseShapeOp>(op))
    return reshape.getSrc();
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return slice.getSource();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    return dps.getTiedOpOperand(result)->get();
  if (auto forall = dyn_cast<scf::ForallOp>(op))
    return forall.getTiedOpOperand(result)->get();
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return loop.getTiedLoopInit(result)->get();
  return nullptr;
}

/// Whether `user` reads a value written into `chain`'s buffer (a result of
/// one of its uses, or of an op that wrote into such a result), as an
/// operand or from inside its regions (a tile loop's body).
bool readsChain(Operation *user, const DenseSet<Value> &chain) {
  SetVector<Value> read(llvm::from_range, user->getOperands());
  getUsedValuesDefinedAbove(user->getRegions(), read);
  for (Value v : read)
    for (Value w = v; w; w = tiedInit(w))
      if (chain.contains(w))
        return true;
  return false;
}

struct SplitEmptyTensors
    : hodu::impl::SplitEmptyTensorsBase<SplitEmptyTensors> {
  void runOnOperation() override {
    // Program order: the ops' positions in a pre-order walk.
    DenseMap<Operation *, unsigned> position;
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      position[op] = position.size();
      if (auto empty = dyn_cast<tensor::EmptyOp>(op))
        if (!empty->use_empty())
          empties.push_back(empty);
    });
    for (tensor::EmptyOp op : empties) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op->getUses())
        uses.push_back(&use);
      if (uses.size() == 1 && op->getNextNode() == uses[0]->getOwner())
        continue;
      llvm::sort(uses, [&](OpOperand *a, OpOperand *b) {
        return position.lookup(a->getOwner()) < position.lookup(b->getOwner());
      });
      Value current;
      DenseSet<Value> chainValues;
      Operation *previous = nullptr;
      size_t chain = 0;
      for (OpOperand *use : uses) {
        Operation *user = use->getOwner();
        bool joins = current && chain < kMaxChain &&
                     (user == previous || readsChain(user, chainValues));
        if (!joins) {
          // Before the user's ancestor in the original's block: the
          // original dominates it, so its dynamic sizes do too, and a use
          // inside a loop does not allocate once per iteration. A user in
          // another block of a CFG region: right after the original.
          OpBuilder b(op);
          if (Operation *anchor = op->getBlock()->findAncestorOpInBlock(*user))
            b.setInsertionPoint(anchor);
          else
            b.setInsertionPointAfter(op);
          current = b.clone(*op)->getResult(0);
          chainValues.clear();
          chain = 0;
        }
        chainValues.insert(user->result_begin(), user->result_end());
        use->set(current);
        previous = user;
        ++chain;
      }
      op->erase();
    }
  }
};

} // namespace
