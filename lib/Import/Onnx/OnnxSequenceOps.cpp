//===- OnnxSequenceOps.cpp - sequences and optionals at import time -------===//
//
// Most ONNX sequences never reach the IR as such: a sequence is a list of
// its elements' values whose length is known at import time
// (ValueEntry::sequence), as the unrolled loops and the static shapes
// already require. The sequence ops rearrange that list; a position known
// only at run time selects among the elements (which must then have one
// type) with `hodu.select`, so the length stays known. A sequence whose
// length is known only at run time (a run-time Loop grows it, a run-time
// If chooses it, an element's size depends on the data) is three tensors
// (OnnxRuntimeSequence.cpp), which SequenceInsert, SequenceErase and
// SequenceLength handle here.
//
// Optionals do not reach the IR either: an optional is its element's entry
// plus a 0-d bool, whether it holds the element (ValueEntry::hasElement),
// known at import time or computed (a graph input's "NAME#present", a
// run-time If's result). An empty optional holds zeros of its type.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

Value valueOf(NodeContext &n, const ValueEntry &e) {
  return n.graph.valueOf(e, n.loc);
}

Type typeOfEntry(const ValueEntry &e) {
  return e.value ? e.value.getType() : Type(e.constant.getType());
}

/// A position input: its value when known at import time (normalized
/// against `length`, where `inclusive` allows `length` itself), else a 0-d
/// i64 value normalized at run time.
struct Position {
  std::optional<int64_t> known;
  Value runtime;
};

FailureOr<Position> position(NodeContext &n, size_t input, int64_t length,
                             bool inclusive) {
  int64_t hi = inclusive ? length : length - 1;
  if (n.constantInput(input)) {
    TRY(v, constScalar(n, input, "the position"));
    int64_t p = v < 0 ? v + length : v;
    if (p < 0 || p > hi)
      return n.error("position " + Twine(v) + " is out of range for a "
                     "sequence of " + Twine(length) + " element(s)");
    return Position{p, {}};
  }
  TRY(p, scalarInput(n, input, n.b.getI64Type(), "position"));
  TRY(norm, wrapNegative(n, p, length));
  return Position{std::nullopt, norm};
}

/// Whether the elements (and `extra`) share one type, so that a run-time
/// position can select among them; otherwise the sequence becomes a
/// run-time sequence.
bool uniform(ArrayRef<ValueEntry> elements,
             std::optional<Type> extra = std::nullopt) {
  std::optional<Type> t = extra;
  for (const ValueEntry &e : elements) {
    if (e.isSequence() || e.hasElement || e.dataDim)
      return false;
    Type et = typeOfEntry(e);
    if (t && *t != et)
      return false;
    t = et;
  }
  return true;
}

/// Elements chosen by a run-time position (SequenceAt's result) must share
/// one type.
LogicalResult checkUniform(NodeContext &n, ArrayRef<ValueEntry> elements) {
  if (uniform(elements))
    return success();
  if (llvm::any_of(elements,
                   [](const ValueEntry &e) { return e.isSequence(); }))
    return n.error("sequences of sequences are not supported");
  return n.error("the position is computed at run time, so the elements "
                 "it chooses among must have one type; this sequence "
                 "mixes shapes or element types");
}

/// `list` as a run-time sequence with room for `extra` more elements.
FailureOr<ValueEntry> listToRuntime(NodeContext &n,
                                    const std::vector<ValueEntry> &list,
                                    int64_t extra) {
  ValueEntry l;
  l.sequence = std::make_shared<const std::vector<ValueEntry>>(list);
  TRY(layout, sequenceLayout(n, l));
  layout.capacity += extra;
  return toRuntimeSequence(n, l, layout);
}

/// `pos == j` (or `pos > j`) for a run-time position, as a 0-d bool.
FailureOr<Value> compare(NodeContext &n, Value pos, int64_t j, bool greater) {
  TypedAttr c = n.scalarAttr(n.b.getI64Type(), (double)j);
  return greater ? make<GtScalarOp>(n, pos, c) : make<EqScalarOp>(n, pos, c);
}

FailureOr<ValueEntry> select(NodeContext &n, Value cond, const ValueEntry &a,
                             const ValueEntry &b) {
  TRY(r, make<SelectOp>(n, cond, valueOf(n, a), valueOf(n, b)));
  ValueEntry e;
  e.value = r;
  return e;
}

LogicalResult checkLength(NodeContext &n, size_t length) {
  if ((int64_t)length > kMaxSequenceLength)
    return n.error("a sequence of more than " + Twine(kMaxSequenceLength) +
                   " elements");
  return success();
}

LogicalResult convertSequenceConstruct(NodeContext &n) {
  std::vector<ValueEntry> elements;
  for (size_t i = 0; i < n.numInputs(); ++i) {
    TRY(v, n.in(i));
    ValueEntry e;
    e.value = v;
    elements.push_back(e);
  }
  if (failed(checkLength(n, elements.size())))
    return failure();
  n.setSequence(0, std::move(elements));
  return success();
}

LogicalResult convertSequenceEmpty(NodeContext &n) {
  n.setSequence(0, {});
  return success();
}

/// Input `i`'s entry when it is a sequence whose length is known only at
/// run time, else null.
const ValueEntry *runtimeSequenceIn(NodeContext &n, size_t i) {
  if (!n.hasInput(i))
    return nullptr;
  auto it = n.graph.values.find(n.node.input((int)i));
  return it != n.graph.values.end() && it->second.runtimeSequence ? &it->second
                                                                  : nullptr;
}

/// A one-element integer position input known only at run time, 0-d.
FailureOr<Value> runtimePosition(NodeContext &n, size_t i) {
  TRY(p, n.in(i));
  auto t = tensorType(p);
  if (t.getNumElements() != 1 || !t.getElementType().isInteger() ||
      t.getElementType().isInteger(1))
    return n.error("the position must be one integer");
  return n.reshape(p, {});
}

LogicalResult convertSequenceLength(NodeContext &n) {
  if (const ValueEntry *rs = runtimeSequenceIn(n, 0)) {
    n.setOutput(0, rs->runtimeSequence->length);
    return success();
  }
  TRY(seq, n.sequenceIn(0));
  n.setConstant(0, DenseElementsAttr::get(
                       RankedTensorType::get({}, n.b.getI64Type()),
                       APInt(64, seq.size())));
  return success();
}

LogicalResult convertSequenceAt(NodeContext &n) {
  TRY(seq, n.sequenceIn(0));
  if (seq.empty())
    return n.error("reads an element of an empty sequence");
  TRY(pos, position(n, 1, seq.size(), false));
  if (pos.known) {
    n.setOutput(0, seq[*pos.known]);
    return success();
  }
  if (failed(checkUniform(n, seq)))
    return failure();
  ValueEntry r = seq.back();
  for (int64_t j = (int64_t)seq.size() - 2; j >= 0; --j) {
    TRY(is, compare(n, pos.runtime, j, false));
    TRY(s, select(n, is, seq[j], r));
    r = s;
  }
  n.setOutput(0, r);
  return success();
}

LogicalResult convertSequenceErase(NodeContext &n) {
  if (const ValueEntry *rs = runtimeSequenceIn(n, 0)) {
    Value pos;
    if (n.hasInput(1)) {
      TRY(p, runtimePosition(n, 1));
      pos = p;
    }
    TRY(out, runtimeSequenceErase(n, *rs, pos));
    n.setOutput(0, out);
    return success();
  }
  TRY(seq, n.sequenceIn(0));
  // A run-time position among elements of different shapes: the sequence
  // becomes a run-time one.
  if (!seq.empty() && n.hasInput(1) && !n.constantInput(1) && !uniform(seq)) {
    TRY(rs, listToRuntime(n, seq, 0));
    TRY(p, runtimePosition(n, 1));
    TRY(out, runtimeSequenceErase(n, rs, p));
    n.setOutput(0, out);
    return success();
  }
  if (seq.empty())
    return n.error("erases from an empty sequence");
  Position pos{(int64_t)seq.size() - 1, {}};
  if (n.hasInput(1)) {
    TRY(p, position(n, 1, seq.size(), false));
    pos = p;
  }
  std::vector<ValueEntry> out;
  if (pos.known) {
    out = seq;
    out.erase(out.begin() + *pos.known);
  } else {
    // (Elements of different types made it a run-time sequence above.)
    // Element j is old j before the position, old j + 1 from it on.
    for (int64_t j = 0; j + 1 < (int64_t)seq.size(); ++j) {
      TRY(before, compare(n, pos.runtime, j, true));
      TRY(s, select(n, before, seq[j], seq[j + 1]));
      out.push_back(s);
    }
  }
  n.setSequence(0, std::move(out));
  return success();
}

LogicalResult convertSequenceInsert(NodeContext &n) {
  // Into a sequence of run-time length, or an element whose size is known
  // only at run time (stored compacted): a run-time sequence.
  const ValueEntry *rs = runtimeSequenceIn(n, 0);
  std::vector<ValueEntry> seq;
  if (!rs) {
    TRY(list, n.sequenceIn(0));
    seq = std::move(list);
  }
  // (Also a run-time position among elements of different shapes.)
  bool mixed = false;
  if (!rs && n.hasInput(2) && !n.constantInput(2) && n.hasInput(1)) {
    const ValueEntry &item = n.graph.values.lookup(n.node.input(1));
    if (item.holdsValue() && !item.isSequence())
      mixed = !uniform(seq, typeOfEntry(item));
  }
  if (rs || n.dataDim(1) || mixed) {
    if (!n.hasInput(1))
      return n.error("input #1 is required");
    ValueEntry element = n.graph.values.lookup(n.node.input(1));
    if (element.isSequence() || element.hasElement || !element.holdsValue())
      return n.error("input #1 must be a tensor");
    ValueEntry from;
    if (rs)
      from = *rs;
    else
      from.sequence = std::make_shared<const std::vector<ValueEntry>>(seq);
    Value pos;
    if (n.hasInput(2)) {
      TRY(p, runtimePosition(n, 2));
      pos = p;
    }
    TRY(out, runtimeSequenceInsert(n, from, element, pos));
    n.setOutput(0, out);
    return success();
  }
  TRY(t, n.in(1));
  ValueEntry item;
  item.value = t;
  if (failed(checkLength(n, seq.size() + 1)))
    return failure();
  Position pos{(int64_t)seq.size(), {}};
  if (n.hasInput(2)) {
    TRY(p, position(n, 2, seq.size(), true));
    pos = p;
  }
  std::vector<ValueEntry> out = seq;
  if (pos.known) {
    out.insert(out.begin() + *pos.known, item);
  } else {
    // (Elements of another type than the item's made it a run-time
    // sequence above.)
    // Element j: old j before the position, the item at it, old j - 1
    // after it.
    out.clear();
    for (int64_t j = 0; j <= (int64_t)seq.size(); ++j) {
      const ValueEntry &beforeIt = j < (int64_t)seq.size() ? seq[j] : item;
      const ValueEntry &afterIt = j > 0 ? seq[j - 1] : item;
      TRY(at, compare(n, pos.runtime, j, false));
      TRY(tail, select(n, at, item, afterIt));
      TRY(before, compare(n, pos.runtime, j, true));
      TRY(s, select(n, before, beforeIt, tail));
      out.push_back(s);
    }
  }
  n.setSequence(0, std::move(out));
  return success();
}

LogicalResult convertSplitToSequence(NodeContext &n) {
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  if (xt.getRank() < 1)
    return n.error("expects an input of rank >= 1");
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, xt.getRank()));
  TRY(keep, n.attrInt("keepdims", 1));
  int64_t dim = xt.getDimSize(axis);
  SmallVector<int64_t> sizes;
  bool squeeze = false;
  // The element count is checked before any list of that length is made
  // (a dim of 2^31 from a stranger's model must not become 16 GB of sizes).
  if (!n.hasInput(1)) {
    if (failed(checkLength(n, dim)))
      return failure();
    sizes.assign(dim, 1);
    squeeze = keep == 0;
  } else if (!n.constantInput(1) && n.type(1) && n.type(1).getRank() == 1) {
    // Sizes known only at run time: as many elements as sizes, each of a
    // size known only at run time, so a run-time sequence.
    if (failed(checkNoDataDim(n, "the split sizes are")))
      return failure();
    int64_t parts = n.type(1).getDimSize(0);
    if (parts < 1 || failed(checkLength(n, parts)))
      return n.error("split must have 1 to " + Twine(kMaxSequenceLength) +
                     " sizes");
    TRY(raw, n.in(1));
    TRY(split, splitAtRunTime(n, x, axis, raw, parts));
    std::vector<ValueEntry> elements;
    for (auto &[part, count] : split) {
      ValueEntry e;
      e.value = part;
      e.dataDim = std::make_shared<const DataDependentDim>(DataDependentDim{
          axis, count, "node '" + n.name + "' (SplitToSequence)"});
      elements.push_back(e);
    }
    TRY(rs, listToRuntime(n, elements, 0));
    n.setOutput(0, rs);
    return success();
  } else {
    TRY(split, n.constInts(1, "split"));
    RankedTensorType st = n.type(1);
    if (st && st.getRank() == 0) {
      if (split.size() != 1 || split[0] <= 0)
        return n.error("a scalar split must be positive");
      if (failed(checkLength(n, (dim + split[0] - 1) / split[0])))
        return failure();
      for (int64_t at = 0; at < dim; at += split[0])
        sizes.push_back(std::min(split[0], dim - at));
    } else {
      sizes.assign(split.begin(), split.end());
      int64_t sum = 0;
      for (int64_t s : sizes) {
        if (s < 0)
          return n.error("split sizes must be non-negative");
        sum += s;
      }
      if (sum != dim)
        return n.error("split sizes add up to " + Twine(sum) +
                       ", not the dim's " + Twine(dim));
    }
  }
  if (failed(checkLength(n, sizes.size())))
    return failure();
  std::vector<ValueEntry> out;
  int64_t at = 0;
  for (int64_t size : sizes) {
    SmallVector<int64_t> starts(xt.getRank(), 0), ends(xt.getShape()),
        steps(xt.getRank(), 1);
    starts[axis] = at;
    ends[axis] = at + size;
    at += size;
    TRY(part, make<SliceOp>(n, x, starts, ends, steps));
    Value v = part;
    if (squeeze) {
      TRY(sq, make<SqueezeOp>(n, part, ArrayRef<int64_t>{axis}));
      v = sq;
    }
    ValueEntry e;
    e.value = v;
    out.push_back(e);
  }
  n.setSequence(0, std::move(out));
  return success();
}

LogicalResult convertConcatFromSequence(NodeContext &n) {
  TRY(seq, n.sequenceIn(0));
  if (seq.empty())
    return n.error("concatenates an empty sequence");
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(newAxis, n.attrInt("new_axis", 0));
  SmallVector<Value> parts;
  for (const ValueEntry &e : seq) {
    if (e.sequence)
      return n.error("sequences of sequences are not supported");
    parts.push_back(valueOf(n, e));
  }
  int64_t rank = tensorType(parts.front()).getRank() + (newAxis ? 1 : 0);
  TRY(axis, normAxis(n, axisAttr, rank));
  if (newAxis)
    for (Value &p : parts) {
      TRY(u, make<UnsqueezeOp>(n, p, ArrayRef<int64_t>{axis}));
      p = u;
    }
  if (parts.size() == 1) {
    n.setOutput(0, parts.front());
    return success();
  }
  TRY(r, make<ConcatOp>(n, ValueRange(parts), axis));
  n.setOutput(0, r);
  return success();
}

/// A 0-d bool entry.
std::shared_ptr<const ValueEntry> knownFlag(NodeContext &n, bool v) {
  auto e = std::make_shared<ValueEntry>();
  e->constant = DenseElementsAttr::get(
      RankedTensorType::get({}, n.b.getI1Type()), APInt(1, v));
  return e;
}

/// The element of an empty optional of type `type` (Optional's attribute):
/// zeros of a tensor type of static shape, an empty sequence for a sequence
/// type, nothing where the shape is not static.
FailureOr<ValueEntry> emptyElement(NodeContext &n,
                                   const onnx::TypeProto &type) {
  ValueEntry e;
  if (type.has_sequence_type()) {
    e.sequence = std::make_shared<const std::vector<ValueEntry>>();
    return e;
  }
  if (!type.has_tensor_type())
    return n.error("'type' must be a tensor or sequence type (maps and "
                   "optionals of optionals are not supported)");
  const auto &tt = type.tensor_type();
  Type elt = onnxElementType(n.graph.ctx, tt.elem_type());
  if (!elt)
    return n.error("'type' has data type " + Twine(tt.elem_type()) +
                   ", which has no hodu dtype");
  if (!tt.has_shape())
    return e;
  SmallVector<int64_t> dims;
  int64_t count = 1;
  for (const auto &d : tt.shape().dim()) {
    if (!d.has_dim_value())
      return e;
    if (d.dim_value() < 0 || d.dim_value() > kMaxDim ||
        (d.dim_value() && count > kMaxDim / d.dim_value()))
      return n.error("'type' has a dim out of range");
    count *= d.dim_value();
    dims.push_back(d.dim_value());
  }
  e.constant =
      cast<ElementsAttr>(n.b.getZeroAttr(RankedTensorType::get(dims, elt)));
  return e;
}

/// Optional(x) holds x; Optional() with a 'type' attribute is empty.
LogicalResult convertOptional(NodeContext &n) {
  ValueEntry e;
  if (n.hasInput(0)) {
    auto it = n.graph.values.find(n.node.input(0));
    if (it == n.graph.values.end())
      return n.error("input '" + n.node.input(0) + "' is not defined");
    if (it->second.hasElement)
      return n.error("optionals of optionals are not supported");
    e = it->second;
    e.hasElement = knownFlag(n, true);
  } else {
    const onnx::AttributeProto *type = n.attr("type");
    if (!type || !type->has_tp())
      return n.error("an empty optional needs the 'type' attribute");
    TRY(element, emptyElement(n, type->tp()));
    e = element;
    e.hasElement = knownFlag(n, false);
  }
  n.setOutput(0, e);
  return success();
}

/// Whether an optional holds an element; a tensor or sequence does, an
/// absent input (opset 18) does not.
LogicalResult convertOptionalHasElement(NodeContext &n) {
  if (!n.hasInput(0)) {
    n.setOutput(0, *knownFlag(n, false));
    return success();
  }
  auto it = n.graph.values.find(n.node.input(0));
  if (it == n.graph.values.end())
    return n.error("input '" + n.node.input(0) + "' is not defined");
  n.setOutput(0, it->second.hasElement ? *it->second.hasElement
                                       : *knownFlag(n, true));
  return success();
}

/// An optional's element (a tensor or sequence input passes through, as
/// opset 18 allows). Reading an empty optional is an error in ONNX; here an
/// optional known to be empty gives its zeros, so that a branch a run-time
/// If does not take still compiles.
LogicalResult convertOptionalGetElement(NodeContext &n) {
  if (!n.hasInput(0))
    return n.error("input #0 is required");
  auto it = n.graph.values.find(n.node.input(0));
  if (it == n.graph.values.end())
    return n.error("input '" + n.node.input(0) + "' is not defined");
  ValueEntry e = it->second;
  e.hasElement = nullptr;
  if (!e.holdsValue())
    return n.error("input '" + n.node.input(0) +
                   "' is an empty optional whose type has no static shape; "
                   "it has no element to read");
  n.setOutput(0, e);
  return success();
}

} // namespace

void hodu::onnx_import::registerSequenceOps(ConverterTable &table) {
  table.insert({
      {"SequenceConstruct", convertSequenceConstruct},
      {"SequenceEmpty", convertSequenceEmpty},
      {"SequenceLength", convertSequenceLength},
      {"SequenceAt", convertSequenceAt},
      {"SequenceErase", convertSequenceErase},
      {"SequenceInsert", convertSequenceInsert},
      {"SplitToSequence", convertSplitToSequence},
      {"ConcatFromSequence", convertConcatFromSequence},
      {"Optional", convertOptional},
      {"OptionalHasElement", convertOptionalHasElement},
      {"OptionalGetElement", convertOptionalGetElement},
  });
}
