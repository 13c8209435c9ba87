//===- OnnxRuntimeSequence.cpp - sequences of run-time length -------------===//
//
// Most ONNX sequences are lists whose length is known at import time
// (OnnxSequenceOps.cpp). A sequence carried through a Loop whose iterations
// are known only at run time, and whose body inserts into it, has a length
// known only at run time; so has one a run-time If chooses between
// sequences of different lengths. Such a sequence is three tensors
// (RuntimeSequence): its elements stored flat and padded, one row each, at
// a capacity (hoduc --sequence-capacity, checked when an element is
// inserted), their shapes (rank, then dims), and its length. Elements may
// differ in shape and rank; they share an element type. Inserting and
// erasing at a position known only at run time moves rows with
// `index_select`; appending scatters one row.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

/// The most bytes a run-time sequence's data may take.
static constexpr uint64_t kMaxSequenceBytes = uint64_t(1) << 30;

int64_t RuntimeSequence::capacity() const {
  return cast<RankedTensorType>(data.getType()).getDimSize(0);
}
int64_t RuntimeSequence::maxElements() const {
  return cast<RankedTensorType>(data.getType()).getDimSize(1);
}
int64_t RuntimeSequence::maxRank() const {
  return cast<RankedTensorType>(shapes.getType()).getDimSize(1) - 1;
}
Type RuntimeSequence::elementType() const {
  return cast<RankedTensorType>(data.getType()).getElementType();
}

static std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

/// The layout of one element: its (bound's) element count and rank.
static FailureOr<SequenceLayout> elementLayout(NodeContext &n,
                                               const ValueEntry &e) {
  if (e.isSequence() || e.hasElement)
    return n.error("sequences of sequences or of optionals are not supported");
  auto t = cast<RankedTensorType>(e.value ? e.value.getType()
                                          : Type(e.constant.getType()));
  SequenceLayout l;
  l.capacity = 1;
  l.maxElements = std::max<int64_t>(1, t.getNumElements());
  l.maxRank = t.getRank();
  l.elementType = t.getElementType();
  return l;
}

FailureOr<SequenceLayout>
hodu::onnx_import::joinLayouts(NodeContext &n, const SequenceLayout &a,
                               const SequenceLayout &b) {
  if (a.elementType && b.elementType && a.elementType != b.elementType)
    return n.error("a sequence holds one element type; here it would hold " +
                   typeString(a.elementType) + " and " +
                   typeString(b.elementType));
  SequenceLayout l;
  l.capacity = std::max(a.capacity, b.capacity);
  l.maxElements = std::max(a.maxElements, b.maxElements);
  l.maxRank = std::max(a.maxRank, b.maxRank);
  l.elementType = a.elementType ? a.elementType : b.elementType;
  return l;
}

FailureOr<SequenceLayout>
hodu::onnx_import::sequenceLayout(NodeContext &n, const ValueEntry &seq) {
  if (const auto &rs = seq.runtimeSequence) {
    SequenceLayout l;
    l.capacity = rs->capacity();
    l.maxElements = rs->maxElements();
    l.maxRank = rs->maxRank();
    l.elementType = rs->elementType();
    return l;
  }
  SequenceLayout l;
  l.capacity = (int64_t)seq.sequence->size();
  for (const ValueEntry &e : *seq.sequence) {
    TRY(el, elementLayout(n, e));
    el.capacity = 0;
    TRY(joined, joinLayouts(n, l, el));
    l = joined;
  }
  return l;
}

bool hodu::onnx_import::sameCarriedKind(const ValueEntry &a,
                                        const ValueEntry &b) {
  // (A value whose size depends on the data is never carried as it is.)
  if (!a.hasElement != !b.hasElement || !a.sequence != !b.sequence ||
      !a.runtimeSequence != !b.runtimeSequence || a.dataDim || b.dataDim)
    return false;
  auto typeOf = [](const ValueEntry &e) {
    return e.value ? e.value.getType() : Type(e.constant.getType());
  };
  if (a.runtimeSequence)
    return a.runtimeSequence->data.getType() ==
               b.runtimeSequence->data.getType() &&
           a.runtimeSequence->shapes.getType() ==
               b.runtimeSequence->shapes.getType();
  if (a.sequence) {
    if (a.sequence->size() != b.sequence->size())
      return false;
    for (auto [x, y] : llvm::zip(*a.sequence, *b.sequence))
      if (!sameCarriedKind(x, y))
        return false;
    return true;
  }
  if (!a.holdsValue() || !b.holdsValue())
    return a.holdsValue() == b.holdsValue();
  return typeOf(a) == typeOf(b);
}

/// `v` (rank 2) extended with zeros to `rows` x `cols`.
static FailureOr<Value> padRowsCols(NodeContext &n, Value v, int64_t rows,
                                    int64_t cols) {
  auto t = tensorType(v);
  Type elt = t.getElementType();
  if (cols > t.getDimSize(1)) {
    Value zeros = n.constant(elt, 0, {t.getDimSize(0), cols - t.getDimSize(1)});
    TRY(wider, make<ConcatOp>(n, ValueRange{v, zeros}, int64_t(1)));
    v = wider;
  }
  if (rows > t.getDimSize(0)) {
    Value zeros = n.constant(elt, 0, {rows - t.getDimSize(0), cols});
    TRY(longer, make<ConcatOp>(n, ValueRange{v, zeros}, int64_t(0)));
    v = longer;
  }
  return v;
}

/// Element `e` as a row of the layout: its elements in row-major order,
/// padded, [1, maxElements]; and its shape row [1, 1 + maxRank]. An
/// element with sizes known only at run time (a value at its bound) is
/// compacted: entry p of the row is the element at p's coordinates under
/// the run-time dims.
static FailureOr<std::pair<Value, Value>>
elementRow(NodeContext &n, const ValueEntry &e, const SequenceLayout &layout) {
  TRY(el, elementLayout(n, e));
  if (el.elementType != layout.elementType)
    return n.error("the element is of " + typeString(el.elementType) +
                   " but the sequence holds " + typeString(layout.elementType));
  Type i64 = n.b.getI64Type();
  Value v = n.graph.valueOf(e, n.loc);
  auto t = tensorType(v);
  int64_t rank = t.getRank(), count = t.getNumElements();
  Value flat, dims;
  if (!e.dataDim) {
    if (count > 0)
      flat = n.reshape(v, {count});
    if (rank > 0)
      dims = n.constant(t.getShape());
  } else {
    dims = runtimeDims(n.b, n.loc, v, *e.dataDim);
    TRY(where, positions(n, count));
    // From the last dim in: the coordinate along dim k is p / S_k % d_k,
    // S_k the product of the run-time dims after k; it is read at stride
    // B_k of the bound.
    Value index, stride;
    int64_t boundStride = 1;
    for (int64_t k = rank - 1; k >= 0; --k) {
      TRY(dk, takeAt(n, dims, 0, k));
      TRY(safe, make<MaximumScalarOp>(n, dk, n.scalarAttr(i64, 1)));
      Value c = where;
      if (stride) {
        TRY(q, make<DivOp>(n, c, stride));
        c = q;
      }
      if (k > 0) {
        TRY(r, make<RemOp>(n, c, safe));
        c = r;
      }
      TRY(scaled,
          make<MulScalarOp>(n, c, n.scalarAttr(i64, (double)boundStride)));
      if (index) {
        TRY(sum, make<AddOp>(n, index, scaled));
        index = sum;
      } else {
        index = scaled;
      }
      if (stride) {
        TRY(next, make<MulOp>(n, stride, safe));
        stride = next;
      } else {
        stride = safe;
      }
      boundStride *= t.getDimSize(k);
    }
    TRY(gathered, gatherFlat(n, v, index, {count}));
    flat = gathered;
  }
  SmallVector<Value> parts;
  if (flat)
    parts.push_back(flat);
  if (count < layout.maxElements)
    parts.push_back(
        n.constant(layout.elementType, 0, {layout.maxElements - count}));
  Value row = parts.front();
  if (parts.size() > 1) {
    TRY(cat, make<ConcatOp>(n, ValueRange(parts), int64_t(0)));
    row = cat;
  }
  parts.clear();
  parts.push_back(n.constant(ArrayRef<int64_t>{rank}));
  if (dims)
    parts.push_back(dims);
  if (rank < layout.maxRank)
    parts.push_back(n.constant(i64, 0, {layout.maxRank - rank}));
  Value shape = parts.front();
  if (parts.size() > 1) {
    TRY(cat, make<ConcatOp>(n, ValueRange(parts), int64_t(0)));
    shape = cat;
  }
  return std::make_pair(n.reshape(row, {1, layout.maxElements}),
                        n.reshape(shape, {1, 1 + layout.maxRank}));
}

/// An error unless the layout's data fits the limits.
static LogicalResult checkLayoutSize(NodeContext &n,
                                     const SequenceLayout &layout) {
  uint64_t bytes =
      (uint64_t)layout.capacity * (uint64_t)layout.maxElements *
      std::max<uint64_t>(1, layout.elementType.getIntOrFloatBitWidth() / 8);
  if (failed(n.checkElementCount(
          {layout.capacity, layout.maxElements},
          "a sequence whose length is known only at run time, stored for "
          "its capacity (--sequence-capacity),")))
    return failure();
  if (bytes > kMaxSequenceBytes)
    return n.error("a sequence whose length is known only at run time is "
                   "stored for " +
                   Twine(layout.capacity) + " elements of up to " +
                   Twine(layout.maxElements) + " values each, " + Twine(bytes) +
                   " bytes; at most " + Twine(kMaxSequenceBytes) +
                   " (a smaller --sequence-capacity stores fewer elements)");
  return success();
}

FailureOr<ValueEntry>
hodu::onnx_import::toRuntimeSequence(NodeContext &n, const ValueEntry &seq,
                                     const SequenceLayout &layout) {
  TRY(have, sequenceLayout(n, seq));
  TRY(joined, joinLayouts(n, have, layout));
  if (joined.capacity != layout.capacity ||
      joined.maxElements != layout.maxElements ||
      joined.maxRank != layout.maxRank)
    return n.error("internal: a sequence layout narrower than its sequence");
  if (!layout.elementType)
    return n.error("an empty sequence whose element type nothing fixes "
                   "cannot be stored at run time");
  if (failed(checkLayoutSize(n, layout)))
    return failure();
  auto rs = std::make_shared<RuntimeSequence>();
  if (seq.runtimeSequence) {
    if (have.maxElements == layout.maxElements &&
        have.maxRank == layout.maxRank && have.capacity == layout.capacity)
      return seq;
    TRY(data, padRowsCols(n, seq.runtimeSequence->data, layout.capacity,
                          layout.maxElements));
    TRY(shapes, padRowsCols(n, seq.runtimeSequence->shapes, layout.capacity,
                            1 + layout.maxRank));
    rs->data = data;
    rs->shapes = shapes;
    rs->length = seq.runtimeSequence->length;
  } else {
    SmallVector<Value> rows, shapeRows;
    for (const ValueEntry &e : *seq.sequence) {
      TRY(row, elementRow(n, e, layout));
      rows.push_back(row.first);
      shapeRows.push_back(row.second);
    }
    int64_t size = (int64_t)rows.size();
    if (size < layout.capacity) {
      rows.push_back(n.constant(layout.elementType, 0,
                                {layout.capacity - size, layout.maxElements}));
      shapeRows.push_back(n.constant(
          n.b.getI64Type(), 0, {layout.capacity - size, 1 + layout.maxRank}));
    }
    rs->data = rows.front();
    rs->shapes = shapeRows.front();
    if (rows.size() > 1) {
      TRY(data, make<ConcatOp>(n, ValueRange(rows), int64_t(0)));
      TRY(shapes, make<ConcatOp>(n, ValueRange(shapeRows), int64_t(0)));
      rs->data = data;
      rs->shapes = shapes;
    }
    rs->length = n.constant(n.b.getI64Type(), (double)size);
  }
  ValueEntry e;
  e.runtimeSequence = rs;
  e.hasElement = seq.hasElement;
  return e;
}

/// `pos` (0-d, any integer type) as i64, counted from the end where
/// negative, and whether it lies in [0, length) (`inclusive`: [0, length]).
static FailureOr<std::pair<Value, Value>>
normalizePosition(NodeContext &n, Value pos, Value length, bool inclusive) {
  Type i64 = n.b.getI64Type();
  Value p = n.cast(pos, i64);
  TRY(negative, make<LtScalarOp>(n, p, n.scalarAttr(i64, 0)));
  TRY(fromEnd, make<AddOp>(n, p, length));
  TRY(norm, make<SelectOp>(n, negative, fromEnd, p));
  TRY(low, make<GeScalarOp>(n, norm, n.scalarAttr(i64, 0)));
  FailureOr<Value> high =
      inclusive ? make<LeOp>(n, norm, length) : make<LtOp>(n, norm, length);
  if (failed(high))
    return failure();
  TRY(ok, make<LogicalAndOp>(n, low, *high));
  return std::make_pair(norm, ok);
}

FailureOr<ValueEntry>
hodu::onnx_import::runtimeSequenceInsert(NodeContext &n, const ValueEntry &seq,
                                         const ValueEntry &element, Value pos) {
  TRY(have, sequenceLayout(n, seq));
  TRY(el, elementLayout(n, element));
  el.capacity = 0;
  TRY(layout, joinLayouts(n, have, el));
  // A list becomes a run-time sequence with room for the element.
  if (seq.sequence)
    layout.capacity = (int64_t)seq.sequence->size() + 1;
  TRY(wide, toRuntimeSequence(n, seq, layout));
  const RuntimeSequence &rs = *wide.runtimeSequence;
  Type i64 = n.b.getI64Type();
  int64_t cap = layout.capacity;
  TRY(row, elementRow(n, element, layout));
  TRY(room, make<LtScalarOp>(n, rs.length, n.scalarAttr(i64, (double)cap)));
  Value ok = room;
  auto out = std::make_shared<RuntimeSequence>();
  if (!pos) {
    // One row scattered at the length.
    auto scatterAt = [&](Value into, Value r) -> FailureOr<Value> {
      auto rt = tensorType(r);
      Value at = broadcastTo(n, n.reshape(rs.length, {1, 1}), rt.getShape());
      return make<ScatterOp>(n, into, at, r, int64_t(0));
    };
    TRY(data, scatterAt(rs.data, row.first));
    TRY(shapes, scatterAt(rs.shapes, row.second));
    out->data = data;
    out->shapes = shapes;
  } else {
    TRY(norm, normalizePosition(n, pos, rs.length, true));
    TRY(both, make<LogicalAndOp>(n, ok, norm.second));
    ok = both;
    // Row i: old row i before the position, the element at it, old row
    // i - 1 after it.
    Value i = iota(n, i64, cap, 1, 0);
    TRY(after, make<GtOp>(n, i, norm.first));
    TRY(back, make<SubOp>(n, i, n.cast(after, i64)));
    TRY(src, make<MaximumScalarOp>(n, back, n.scalarAttr(i64, 0)));
    TRY(at, make<EqOp>(n, i, norm.first));
    Value at2 = n.reshape(at, {cap, 1});
    auto place = [&](Value from, Value r) -> FailureOr<Value> {
      auto ft = tensorType(from);
      TRY(moved, make<IndexSelectOp>(n, from, src, int64_t(0)));
      return make<SelectOp>(n, broadcastTo(n, at2, ft.getShape()),
                            broadcastTo(n, r, ft.getShape()), moved);
    };
    TRY(data, place(rs.data, row.first));
    TRY(shapes, place(rs.shapes, row.second));
    out->data = data;
    out->shapes = shapes;
  }
  if (failed(n.checkAtRunTime(
          ok,
          Twine(pos ? "the position must lie within the sequence, and " : "") +
              "a sequence whose length is known only at run time holds "
              "at most " +
              Twine(cap) + " elements (hoduc --sequence-capacity)")))
    return failure();
  TRY(longer, make<AddScalarOp>(n, rs.length, n.scalarAttr(i64, 1)));
  out->length = longer;
  ValueEntry e;
  e.runtimeSequence = out;
  return e;
}

FailureOr<ValueEntry>
hodu::onnx_import::runtimeSequenceErase(NodeContext &n, const ValueEntry &seq,
                                        Value pos) {
  const RuntimeSequence &rs = *seq.runtimeSequence;
  Type i64 = n.b.getI64Type();
  int64_t cap = rs.capacity();
  TRY(last, make<SubScalarOp>(n, rs.length, n.scalarAttr(i64, 1)));
  Value p = last;
  TRY(nonEmpty, make<GeScalarOp>(n, rs.length, n.scalarAttr(i64, 1)));
  Value ok = nonEmpty;
  if (pos) {
    TRY(norm, normalizePosition(n, pos, rs.length, false));
    TRY(both, make<LogicalAndOp>(n, ok, norm.second));
    ok = both;
    p = norm.first;
  }
  if (failed(n.checkAtRunTime(
          ok, "the position must lie within the sequence (which must not be "
              "empty)")))
    return failure();
  // Row i: old row i before the position, old row i + 1 from it on.
  Value i = iota(n, i64, cap, 1, 0);
  TRY(from, make<GeOp>(n, i, p));
  TRY(ahead, make<AddOp>(n, i, n.cast(from, i64)));
  TRY(src, make<MinimumScalarOp>(n, ahead, n.scalarAttr(i64, (double)cap - 1)));
  auto out = std::make_shared<RuntimeSequence>();
  TRY(data, make<IndexSelectOp>(n, rs.data, src, int64_t(0)));
  TRY(shapes, make<IndexSelectOp>(n, rs.shapes, src, int64_t(0)));
  out->data = data;
  out->shapes = shapes;
  out->length = last;
  ValueEntry e;
  e.runtimeSequence = out;
  return e;
}
