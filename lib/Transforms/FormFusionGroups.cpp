//===- FormFusionGroups.cpp - mark fusion groups on hodu ops --------------===//
//
// A fusion group is a set of hodu ops of one block that a GPU target turns
// into one kernel and the CPU path inlines. Groups are marked with
// discardable attributes (see FusionGroups.h) so that the dialect needs no
// region op for them.
//
// Groups are grown from their root towards their producers: an op joins when
// all its users are already members. So only the root's result leaves the
// group, nothing is computed twice, and the group is convex: a path that
// left the group would have to start at the root, and could not come back
// to a member, which reaches the root, without a cycle.
//
// Anchors (matmul, conv, ...) go first, walking forward along their
// elementwise epilogue, so that a bias add belongs to the matmul before it
// rather than to a softmax after it; the remaining ops are then visited from
// the end of the block, each unassigned one starting a group.
//
//===----------------------------------------------------------------------===//

#include "hodu/Transforms/FusionGroups.h"
#include "hodu/Transforms/Passes.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <vector>

namespace hodu {
#define GEN_PASS_DEF_FORMFUSIONGROUPS
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;

namespace hodu {
namespace {

/// How an op may take part in a group.
enum class Role {
  None,        // never a member (constants, gathers, sorts, ...)
  Elementwise, // elementwise families, select and cast
  Shape,       // data movement without arithmetic (reshape, transpose, ...)
  Reduction,   // Reduce family
  Anchor,      // matmul/conv: the one heavy op of a group
};

Role roleOf(Operation *op) {
  if (op->getNumResults() != 1 || !isa<HoduDialect>(op->getDialect()))
    return Role::None;
  if (isa<
          // Binary, BinaryLogical, Cmp
          AddOp, SubOp, MulOp, DivOp, RemOp, PowOp, MaximumOp, MinimumOp,
          LogicalAndOp, LogicalOrOp, LogicalXorOp, EqOp, NeOp, LtOp, LeOp,
          GtOp, GeOp,
          // CmpScalar, UnaryScalar
          EqScalarOp, NeScalarOp, LtScalarOp, LeScalarOp, GtScalarOp,
          GeScalarOp, AddScalarOp, SubScalarOp, MulScalarOp, DivScalarOp,
          RemScalarOp, PowScalarOp, MaximumScalarOp, MinimumScalarOp,
          LeakyReluOp, EluOp, PreluOp,
          // Unary, UnaryLogical
          NegOp, AbsOp, SignOp, SquareOp, ReluOp, SoftsignOp, SqrtOp, RecipOp,
          SigmoidOp, HardSigmoidOp, GeluOp, SoftplusOp, SiluOp, HardSiluOp,
          MishOp, SeluOp, CeluOp, SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp,
          SinhOp, CoshOp, TanhOp, AsinhOp, AcoshOp, AtanhOp, ExpOp, Exp2Op,
          Exp10Op, LnOp, Log2Op, Log10Op, CeilOp, FloorOp, RoundOp, ErfOp,
          LogicalNotOp, IsNanOp, IsInfOp, IsFiniteOp,
          // Cast, select
          CastOp, SelectOp>(op))
    return Role::Elementwise;
  if (isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, BroadcastOp,
          TransposeOp, ContiguousOp, DummyOp>(op))
    return Role::Shape;
  if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
          ReduceStdOp, ReduceVarOp, ReduceNormOp, ReduceLogSumOp,
          ReduceLogSumExpOp, ArgMaxOp, ArgMinOp, ReduceAnyOp, ReduceAllOp>(op))
    return Role::Reduction;
  if (isa<MatmulOp, DotOp, ConvOp, ConvTransposeOp, EinsumOp>(op))
    return Role::Anchor;
  return Role::None;
}

/// What all reductions of a group must share: they read the same shape and
/// reduce the same dims, so one kernel can walk rows of the same length.
struct ReductionKey {
  ShapedType inputType;
  ArrayRef<int64_t> dims;
  bool operator==(const ReductionKey &o) const {
    return inputType.getShape() == o.inputType.getShape() && dims == o.dims;
  }
};

ReductionKey reductionKey(Operation *op) {
  auto dims = op->getAttrOfType<DenseI64ArrayAttr>("dims");
  return {cast<ShapedType>(op->getOperand(0).getType()),
          dims ? dims.asArrayRef() : ArrayRef<int64_t>()};
}

/// One group being formed.
struct Group {
  Operation *root = nullptr;
  llvm::SetVector<Operation *> members;
  Operation *anchor = nullptr;
  std::optional<ReductionKey> reduction;
};

class GroupFormer {
public:
  GroupFormer(Block &block, int64_t maxSize)
      : block(block), maxSize(std::max<int64_t>(maxSize, 1)) {}

  /// Forms the groups of the block and returns them in program order of
  /// their first member; groups with a single op are dropped.
  std::vector<Group> run() {
    // Anchors first, in program order, each walking down its epilogue.
    for (Operation &op : block)
      if (roleOf(&op) == Role::Anchor && !assigned.contains(&op))
        growFromAnchor(&op);
    // Everything else from the end, so each group starts at its root.
    for (Operation &op : llvm::reverse(block)) {
      if (assigned.contains(&op) || roleOf(&op) == Role::None)
        continue;
      Group g = newGroup(&op);
      pullProducers(g);
      finish(std::move(g));
    }
    std::vector<Group> result;
    for (Group &g : groups) {
      // A group needs something that would be a kernel of its own.
      if (g.members.size() < 2 || llvm::none_of(g.members, needsKernel))
        continue;
      result.push_back(std::move(g));
    }
    llvm::sort(result, [](const Group &a, const Group &b) {
      return firstOp(a)->isBeforeInBlock(firstOp(b));
    });
    return result;
  }

private:
  static Operation *firstOp(const Group &g) {
    Operation *first = g.members.front();
    for (Operation *m : g.members)
      if (m->isBeforeInBlock(first))
        first = m;
    return first;
  }

  Group newGroup(Operation *root) {
    Group g;
    g.root = root;
    add(g, root);
    return g;
  }

  void add(Group &g, Operation *op) {
    g.members.insert(op);
    assigned.insert(op);
    Role role = roleOf(op);
    if (role == Role::Anchor)
      g.anchor = op;
    else if (role == Role::Reduction && !g.reduction)
      g.reduction = reductionKey(op);
  }

  void finish(Group g) { groups.push_back(std::move(g)); }

  /// Whether the group's kinds allow `op` in: one anchor at most, anchors
  /// and reductions never together, reductions of one shape.
  bool kindAllows(const Group &g, Operation *op) const {
    switch (roleOf(op)) {
    case Role::None:
      return false;
    case Role::Elementwise:
    case Role::Shape:
      return true;
    case Role::Reduction:
      return !g.anchor && (!g.reduction || *g.reduction == reductionKey(op));
    case Role::Anchor:
      return !g.anchor && !g.reduction;
    }
    return false;
  }

  /// The op of this block that `use` is in (or nested in), if any.
  Operation *userInBlock(OpOperand &use) const {
    return block.findAncestorOpInBlock(*use.getOwner());
  }

  /// The walk down from an anchor: while the root's only user is an
  /// elementwise or shape op, that user becomes the new root. Then side
  /// inputs of the epilogue are pulled in.
  void growFromAnchor(Operation *anchor) {
    Group g = newGroup(anchor);
    while ((int64_t)g.members.size() < maxSize) {
      Operation *user = nullptr;
      bool single = true;
      for (OpOperand &use : g.root->getUses()) {
        Operation *u = userInBlock(use);
        if (!u || (user && u != user)) {
          single = false;
          break;
        }
        user = u;
      }
      if (!single || !user || assigned.contains(user))
        break;
      Role role = roleOf(user);
      if (role != Role::Elementwise && role != Role::Shape)
        break;
      add(g, user);
      g.root = user;
    }
    pullProducers(g);
    finish(std::move(g));
  }

  /// Adds producers of members, to a fixpoint, while they qualify: defined
  /// in this block, unassigned, of a kind the group allows, every user
  /// already a member (so they are not results of the group), and, in a
  /// group with an anchor, not feeding the anchor (the anchor takes no
  /// prologue; its operands are read as they are).
  void pullProducers(Group &g) {
    bool changed = true;
    while (changed && (int64_t)g.members.size() < maxSize) {
      changed = false;
      for (size_t i = 0; i < g.members.size(); ++i) {
        for (Value operand : g.members[i]->getOperands()) {
          Operation *p = operand.getDefiningOp();
          if (!p || p->getBlock() != &block || assigned.contains(p) ||
              !kindAllows(g, p) || !allUsersIn(g, p))
            continue;
          if (g.anchor && llvm::is_contained(g.anchor->getOperands(),
                                             p->getResult(0)))
            continue;
          add(g, p);
          changed = true;
          if ((int64_t)g.members.size() >= maxSize)
            return;
        }
      }
    }
  }

  bool allUsersIn(const Group &g, Operation *op) const {
    return llvm::all_of(op->getUses(), [&](OpOperand &use) {
      Operation *u = userInBlock(use);
      return u && g.members.contains(u);
    });
  }

  Block &block;
  int64_t maxSize;
  llvm::DenseSet<Operation *> assigned;
  std::vector<Group> groups;
};

struct FormFusionGroupsPass
    : impl::FormFusionGroupsBase<FormFusionGroupsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (maxGroupSize < 1) {
      module.emitError("max-group-size must be at least 1, got ")
          << static_cast<int64_t>(maxGroupSize);
      return signalPassFailure();
    }
    // Start from a clean slate so the pass can run again.
    module.walk([](Operation *op) {
      op->removeAttr(kFusionGroupAttr);
      op->removeAttr(kFusionRootAttr);
    });

    // Blocks that hold hodu ops, in walk order, each grouped on its own.
    llvm::SetVector<Block *> blocks;
    module.walk([&](Operation *op) {
      if (roleOf(op) != Role::None)
        blocks.insert(op->getBlock());
    });

    Builder b(module.getContext());
    int64_t nextId = 0;
    for (Block *block : blocks) {
      for (Group &g : GroupFormer(*block, maxGroupSize).run()) {
        IntegerAttr id = b.getI64IntegerAttr(nextId++);
        for (Operation *m : g.members)
          m->setAttr(kFusionGroupAttr, id);
        g.root->setAttr(kFusionRootAttr, b.getUnitAttr());
      }
    }

    if (printStats) {
      FusionStats s = computeFusionStats(module);
      module.emitRemark() << "fusion: " << s.opsBefore << " ops in "
                          << s.kernelsAfter << " kernels (" << s.groups
                          << " groups)";
    }
  }
};

} // namespace

bool needsKernel(Operation *op) {
  if (!isa<HoduDialect>(op->getDialect()))
    return false;
  // Constants are data; these shape ops only relabel a buffer.
  return !isa<ConstantOp, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp,
              ContiguousOp, DummyOp>(op);
}

FusionStats computeFusionStats(ModuleOp module) {
  FusionStats stats;
  llvm::DenseSet<int64_t> groupIds;
  module.walk([&](Operation *op) {
    bool kernel = needsKernel(op);
    if (kernel)
      ++stats.opsBefore;
    if (auto id = op->getAttrOfType<IntegerAttr>(kFusionGroupAttr)) {
      ++stats.groupedOps;
      groupIds.insert(id.getInt());
    } else if (kernel) {
      ++stats.kernelsAfter;
    }
  });
  stats.groups = groupIds.size();
  stats.kernelsAfter += stats.groups;
  return stats;
}

} // namespace hodu
