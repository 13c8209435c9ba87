//===- OnnxIf.cpp - ONNX If -----------------------------------------------===//
//
// If: the branch taken inlined when the condition is known at import time,
// else `hodu.if` with both branches imported into its regions; the
// branches' outputs matched kind by kind (an empty optional takes the other
// branch's shape, sequences of different lengths become run-time
// sequences) and yielded as their values (NodeLoop::appendYielded and
// takeYielded, which the run-time Loop uses for its carried values too).
//
//===----------------------------------------------------------------------===//

#include "OnnxNodeLoop.h"
#include "OnnxOpsCommon.h"

#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

/// ONNX If. A condition known at import time (constants, or shapes once
/// the inputs are pinned) inlines the branch taken, whose nodes are then
/// imported like any others (an If inside it is decided the same way). A
/// condition known only at run time becomes `hodu.if`, each branch imported
/// into its region; the branches must give the same types (a sequence
/// output, the same length: its elements are yielded one by one).
LogicalResult NodeLoop::importIf(NodeContext &n, unsigned depth) {
  if (depth >= kMaxSubgraphDepth)
    return n.error("subgraphs nest more than " + Twine(kMaxSubgraphDepth) +
                   " levels deep");
  const onnx::AttributeProto *thenAttr = n.attr("then_branch");
  const onnx::AttributeProto *elseAttr = n.attr("else_branch");
  if (!thenAttr || !thenAttr->has_g() || !elseAttr || !elseAttr->has_g())
    return n.error("needs the graph attributes 'then_branch' and "
                   "'else_branch'");
  RankedTensorType condType = n.type(0);
  if (!condType || !condType.getElementType().isInteger(1) ||
      !condType.hasStaticShape() || condType.getNumElements() != 1)
    return n.error("the condition must be a bool tensor of one element");

  if (std::optional<ConstantView> cond = n.constantInput(0)) {
    bool taken = cond->truth(0);
    StringRef attrName = taken ? "then_branch" : "else_branch";
    TRY(outputs, importBranch(n, attrName, (taken ? thenAttr : elseAttr)->g(),
                              depth + 1));
    for (auto [i, name] : llvm::enumerate(outputs)) {
      n.setOutput(i, g.values[name]);
    }
    return success();
  }

  TRY(cond, n.in(0));
  OpBuilder &b = g.builder;
  // The result types are known once both branches are imported: the
  // regions are built under a placeholder, then moved. Each branch's
  // outputs are kept as entries and yielded once both are known, so that
  // an optional one branch leaves empty takes the shape of the other's.
  auto placeholder = IfOp::create(b, n.loc, TypeRange{}, cond);
  std::vector<ValueEntry> outs[2];
  Block *blocks[2];
  for (int k = 0; k < 2; ++k) {
    StringRef attrName = k == 0 ? "then_branch" : "else_branch";
    Region &region = k == 0 ? placeholder.getThenRegion()
                            : placeholder.getElseRegion();
    blocks[k] = new Block();
    region.push_back(blocks[k]);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(blocks[k]);
    llvm::StringSet<> outer = definedNames();
    auto outputs = importBranch(n, attrName, (k == 0 ? thenAttr : elseAttr)->g(),
                                depth + 1);
    if (failed(outputs)) {
      placeholder->erase();
      return n.error("the condition is known only at run time, so both "
                     "branches are compiled, and '" + attrName +
                     "' cannot be for these input shapes; freeze the inputs "
                     "the condition depends on (hoduc --freeze-input=NAME=FILE) "
                     "to compile only the branch taken");
    }
    for (const std::string &name : *outputs)
      outs[k].push_back(g.values[name]);
    // The branch's own names end with it; outer names materialized inside
    // the region are unmaterialized again, so that code after the If
    // creates its own constant.
    dropNamesOutside(outer);
    for (auto &entry : g.values) {
      Value v = entry.getValue().value;
      if (v && entry.getValue().constant && region.isAncestor(v.getParentRegion()))
        entry.getValue().value = {};
    }
  }
  // Each output is yielded as its values: a tensor's, a sequence's
  // elements' (both branches must give it the same length), an optional's
  // flag and then its element's.
  SmallVector<Type> types[2];
  SmallVector<std::optional<SequenceLayout>> joins;
  for (size_t i = 0; i < outs[0].size(); ++i) {
    auto join = succeeded(matchBranchOutputs(n, i, outs[0][i], outs[1][i]))
                    ? branchJoin(n, outs[0][i], outs[1][i])
                    : FailureOr<std::optional<SequenceLayout>>(failure());
    if (failed(join)) {
      placeholder->erase();
      return failure();
    }
    joins.push_back(*join);
  }
  SmallVector<size_t> outputOf; // per yielded value, its output
  for (int k = 0; k < 2; ++k) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(blocks[k]);
    SmallVector<Value> yielded;
    // Sequences of different lengths or shapes become run-time sequences
    // of one layout.
    for (auto [i, join] : llvm::enumerate(joins)) {
      if (!join)
        continue;
      auto converted = toRuntimeSequence(n, outs[k][i], *join);
      if (failed(converted)) {
        placeholder->erase();
        return failure();
      }
      outs[k][i] = *converted;
    }
    for (auto [i, entry] : llvm::enumerate(outs[k])) {
      appendYielded(entry, n.loc, yielded);
      if (k == 0)
        outputOf.resize(yielded.size(), i);
    }
    YieldOp::create(b, n.loc, yielded);
    for (Value v : yielded)
      types[k].push_back(v.getType());
  }
  for (auto [i, pair] : llvm::enumerate(llvm::zip(types[0], types[1]))) {
    auto [thenType, elseType] = pair;
    if (thenType == elseType)
      continue;
    std::string t, e;
    llvm::raw_string_ostream(t) << thenType;
    llvm::raw_string_ostream(e) << elseType;
    placeholder->erase();
    return n.error(
        "output " + Twine(outputOf[i]) +
        (outs[0][outputOf[i]].isSequence() || outs[0][outputOf[i]].hasElement
             ? " has " + t + " in 'then_branch' but "
             : " is " + t + " in 'then_branch' but ") +
        e +
        " in 'else_branch'; a condition known only at run "
        "time needs branches of the same type");
  }
  auto ifOp = IfOp::create(b, n.loc, types[0], cond);
  ifOp.getThenRegion().takeBody(placeholder.getThenRegion());
  ifOp.getElseRegion().takeBody(placeholder.getElseRegion());
  placeholder->erase();
  size_t next = 0;
  for (auto [i, entry] : llvm::enumerate(outs[0]))
    n.setOutput(i, takeYielded(entry, ifOp->getResults(), next));
  return success();
}

/// Zeros shaped like `e`: an empty optional's element, where the other
/// branch of a run-time If decides its shape.
static ValueEntry zerosLike(const ValueEntry &e) {
  ValueEntry z;
  // (A run-time If joins the empty list with the other branch's sequence.)
  if (e.runtimeSequence) {
    z.sequence = std::make_shared<const std::vector<ValueEntry>>();
    return z;
  }
  if (e.sequence) {
    std::vector<ValueEntry> elements;
    for (const ValueEntry &element : *e.sequence)
      elements.push_back(zerosLike(element));
    z.sequence =
        std::make_shared<const std::vector<ValueEntry>>(std::move(elements));
    return z;
  }
  auto type = cast<RankedTensorType>(e.value ? e.value.getType()
                                             : Type(e.constant.getType()));
  z.constant = cast<ElementsAttr>(Builder(type.getContext()).getZeroAttr(type));
  return z;
}

/// Whether `e` is an optional known at import time to be empty.
static bool knownEmpty(const ValueEntry &e) {
  if (!e.hasElement || !e.hasElement->constant)
    return false;
  std::optional<ConstantView> flag = ConstantView::get(e.hasElement->constant);
  return flag && !flag->truth(0);
}

LogicalResult NodeLoop::matchBranchOutputs(NodeContext &n, size_t i,
                                           ValueEntry &a, ValueEntry &b) {
  auto describe = [](const ValueEntry &e) { return describeEntry(e, false); };
  auto mismatch = [&]() {
    return n.error("output " + Twine(i) + " is " + describe(a) +
                   " in 'then_branch' but " + describe(b) +
                   " in 'else_branch'; a condition known only at run time "
                   "needs branches of the same kind and length");
  };
  if (!a.hasElement != !b.hasElement)
    return mismatch();
  // (Sequences of either kind are of one kind: a run-time If joins them.)
  auto sameKind = [](const ValueEntry &x, const ValueEntry &y) {
    return x.isSequence() == y.isSequence() &&
           (!x.sequence || !y.sequence ||
            x.sequence->size() == y.sequence->size());
  };
  // An empty optional holds what the other branch's holds, as zeros.
  auto adopt = [&](ValueEntry &x, const ValueEntry &y) {
    if (!x.hasElement || !y.holdsValue() || !knownEmpty(x) ||
        (x.holdsValue() && sameKind(x, y)))
      return false;
    auto flag = x.hasElement;
    x = zerosLike(y);
    x.hasElement = flag;
    return true;
  };
  if (!adopt(a, b))
    adopt(b, a);
  if (!a.holdsValue() || !b.holdsValue())
    return n.error("output " + Twine(i) +
                   " is an empty optional in both branches, of a type "
                   "without a static shape");
  if (!a.isSequence() && !sameKind(a, b))
    return mismatch();
  return success();
}

FailureOr<std::optional<SequenceLayout>>
NodeLoop::branchJoin(NodeContext &n, const ValueEntry &a, const ValueEntry &b) {
  if (!a.isSequence() || !b.isSequence())
    return std::optional<SequenceLayout>();
  // Lists whose elements match one by one are yielded element by element.
  auto plain = [](const ValueEntry &e) {
    ValueEntry p = e;
    p.hasElement = nullptr;
    return p;
  };
  if (sameCarriedKind(plain(a), plain(b)) && !a.runtimeSequence)
    return std::optional<SequenceLayout>();
  TRY(la, sequenceLayout(n, a));
  TRY(lb, sequenceLayout(n, b));
  TRY(joined, joinLayouts(n, la, lb));
  return std::optional<SequenceLayout>(joined);
}

void NodeLoop::appendYielded(const ValueEntry &e, Location loc,
                             SmallVectorImpl<Value> &yielded) {
  if (e.hasElement)
    yielded.push_back(g.valueOf(*e.hasElement, loc));
  if (const auto &rs = e.runtimeSequence) {
    yielded.append({rs->data, rs->shapes, rs->length});
    return;
  }
  if (!e.sequence) {
    yielded.push_back(g.valueOf(e, loc));
    return;
  }
  for (const ValueEntry &element : *e.sequence)
    yielded.push_back(g.valueOf(element, loc));
}

ValueEntry NodeLoop::takeYielded(const ValueEntry &like, ValueRange results,
                                 size_t &next) {
  ValueEntry e;
  if (like.hasElement) {
    auto flag = std::make_shared<ValueEntry>();
    flag->value = results[next++];
    e.hasElement = flag;
  }
  if (like.runtimeSequence) {
    auto rs = std::make_shared<RuntimeSequence>();
    rs->data = results[next++];
    rs->shapes = results[next++];
    rs->length = results[next++];
    e.runtimeSequence = rs;
    return e;
  }
  if (!like.sequence) {
    e.value = results[next++];
    return e;
  }
  std::vector<ValueEntry> elements(like.sequence->size());
  for (ValueEntry &element : elements)
    element.value = results[next++];
  e.sequence =
      std::make_shared<const std::vector<ValueEntry>>(std::move(elements));
  return e;
}
