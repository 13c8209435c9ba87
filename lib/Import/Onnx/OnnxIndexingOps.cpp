//===- OnnxIndexingOps.cpp - gathers, scatters, one-hot -------------------===//
//
// Gathers and scatters (elements and ND), OneHot, NonZero, Trilu, EyeLike.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

#include <algorithm>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

/// A constant index outside [-size, size) is an error here rather than a
/// value the lowering clamps at run time (ONNX Runtime refuses it too).
/// Indices computed at run time are checked then (hodu-check-indices), or
/// clamped with hoduc --index-checks=clamp (docs/security.md).
LogicalResult checkConstIndices(NodeContext &n, size_t input, int64_t size,
                                int64_t axis) {
  std::optional<ConstantView> c = n.constantInput(input);
  if (!c || ShapedType::isDynamic(size))
    return success();
  for (int64_t j = 0, e = c->isSplat() ? 1 : c->size(); j < e; ++j) {
    auto k = static_cast<int64_t>(c->s(j));
    if (k < -size || k >= size)
      return n.error("index " + Twine(k) + " (element " + Twine(j) +
                     " of the indices) is out of range for axis " +
                     Twine(axis) + " of size " + Twine(size));
  }
  return success();
}

/// The indices of input `input`, int32 or int64, as they are: the hodu ops
/// count negative ones from the end, and hodu-check-indices checks them
/// against [-size, size) as ONNX states the range.
FailureOr<Value> checkedIndices(NodeContext &n, size_t input, int64_t size,
                                int64_t axis) {
  if (failed(checkConstIndices(n, input, size, axis)))
    return failure();
  TRY(idx, n.in(input));
  auto t = tensorType(idx);
  Type elt = t.getElementType();
  if (!elt.isInteger(32) && !elt.isInteger(64))
    return n.error("indices must be int32 or int64");
  return idx;
}

/// Names the indices of the index op that made `r` for the run-time check's
/// message (hodu-check-indices).
void nameIndices(NodeContext &n, Value r) {
  if (Operation *op = r.getDefiningOp())
    op->setAttr("hodu.indices_name", n.b.getStringAttr(n.node.input(1)));
}

LogicalResult convertGather(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(idx, n.in(1));
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, tensorType(x).getRank()));
  Type elt = tensorType(idx).getElementType();
  if (!elt.isInteger(32) && !elt.isInteger(64))
    return n.error("indices must be int32 or int64");
  if (failed(checkConstIndices(n, 1, tensorType(x).getDimSize(axis), axis)))
    return failure();
  TRY(r, make<IndexSelectOp>(n, x, idx, axis));
  nameIndices(n, r);
  n.setOutput(0, r);
  return success();
}

LogicalResult convertGatherElements(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, tensorType(x).getRank()));
  TRY(idx, checkedIndices(n, 1, tensorType(x).getDimSize(axis), axis));
  TRY(r, make<GatherOp>(n, x, idx, axis));
  nameIndices(n, r);
  n.setOutput(0, r);
  return success();
}

LogicalResult convertScatter(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(src, n.in(2));
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, tensorType(x).getRank()));
  TRY(idx, checkedIndices(n, 1, tensorType(x).getDimSize(axis), axis));
  TRY(reduction, n.attrString("reduction", "none"));
  FailureOr<Value> r = failure();
  if (reduction == "none")
    r = make<ScatterOp>(n, x, idx, src, axis);
  else if (reduction == "add")
    r = make<ScatterAddOp>(n, x, idx, src, axis);
  else if (reduction == "max")
    r = make<ScatterMaxOp>(n, x, idx, src, axis);
  else if (reduction == "min")
    r = make<ScatterMinOp>(n, x, idx, src, axis);
  else if (reduction == "mul")
    r = make<ScatterMulOp>(n, x, idx, src, axis);
  else
    return n.error("reduction '" + reduction + "' is not supported");
  if (failed(r))
    return failure();
  nameIndices(n, *r);
  n.setOutput(0, *r);
  return success();
}

LogicalResult convertOneHot(NodeContext &n) {
  TRY(idx, n.in(0));
  TRY(axisAttr, n.attrInt("axis", -1));
  auto it = tensorType(idx);
  TRY(axis, normAxis(n, axisAttr, it.getRank() + 1));
  SmallVector<double> depthV;
  if (n.hasInput(1) && !n.constantInput(1)) {
    // Known only at run time: the declared output's dim, checked then.
    TRY(declared, scalarOrDeclared(n, 1, "depth", 0, axis));
    depthV.push_back((double)declared);
  } else {
    TRY(known, n.constFloats(1, "depth"));
    depthV = known;
  }
  // A depth past 2^40 (a dim no tensor may have) or NaN is refused before
  // the conversion, which would be undefined beyond int64's range.
  if (depthV.size() != 1 || !(depthV[0] >= 1 && depthV[0] <= 0x1p40))
    return n.error("depth must be one value from 1 to 2^40");
  int64_t depth = (int64_t)depthV[0];
  RankedTensorType vt = n.type(2);
  if (!vt || vt.getNumElements() != 2)
    return n.error("values must hold [off, on]");
  Type ielt = it.getElementType();
  if (!ielt.isInteger(64) && !ielt.isInteger(32))
    idx = n.cast(idx, n.b.getI64Type());
  // Negative indices count from the end.
  TRY(nidx, wrapNegative(n, idx, depth));
  SmallVector<int64_t> shape(it.getShape());
  shape.insert(shape.begin() + axis, depth);
  Type elt = vt.getElementType();
  Value oh = OneHotOp::create(n.b, n.loc, RankedTensorType::get(shape, elt), nidx,
                              depth, axis)
                 .getResult();
  // values = [off, on]: off + onehot * (on - off).
  if (auto k = n.constantInput(2)) {
    double off = k->f(0), on = k->f(1);
    Value y = oh;
    if (on - off != 1) {
      TRY(m, make<MulScalarOp>(n, y, n.scalarAttr(elt, on - off)));
      y = m;
    }
    if (off != 0) {
      TRY(a, make<AddScalarOp>(n, y, n.scalarAttr(elt, off)));
      y = a;
    }
    n.setOutput(0, y);
    return success();
  }
  TRY(values, n.in(2));
  values = n.reshape(values, {2});
  TRY(off, make<SliceOp>(n, values, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{1},
                         ArrayRef<int64_t>{1}));
  TRY(on, make<SliceOp>(n, values, ArrayRef<int64_t>{1}, ArrayRef<int64_t>{2},
                        ArrayRef<int64_t>{1}));
  TRY(d, make<SubOp>(n, on, off));
  TRY(m, make<MulOp>(n, oh, d));
  TRY(y, make<AddOp>(n, m, off));
  n.setOutput(0, y);
  return success();
}

/// The most elements a constant NonZero input or Compress condition is
/// read at import time.
constexpr int64_t kMaxConstantScan = int64_t(1) << 22;

LogicalResult convertNonZero(NodeContext &n) {
  // A constant input (a mask in a shape computation) has a known result.
  if (std::optional<ConstantView> c = n.constantInput(0);
      c && c->size() <= kMaxConstantScan) {
    RankedTensorType t = c->getType();
    int64_t rank = t.getRank();
    SmallVector<int64_t> hits = nonzeroPositions(*c);
    int64_t count = hits.size();
    ConstantWriter w(RankedTensorType::get({rank, count}, n.b.getI64Type()),
                     kSmallTensorBytes);
    for (auto [k, flat] : llvm::enumerate(hits)) {
      int64_t rest = flat;
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t size = t.getDimSize(d);
        w.setRaw(d * count + (int64_t)k, (uint64_t)(rest % size));
        rest /= size;
      }
    }
    n.setConstant(0, w.finish());
    return success();
  }
  // On data computed at run time the count of nonzero elements, the
  // output's size, is known only then: the output is computed at its bound
  // (every element nonzero) with that count (DataDependentDim).
  TRY(x, n.in(0));
  auto t = tensorType(x);
  int64_t rank = t.getRank(), size = t.getNumElements();
  if (rank == 0)
    return n.error("the input is a scalar computed at run time: the output "
                   "would have no elements");
  TRY(compacted, compactPositions(n, n.reshape(x, {size})));
  auto [kept, count] = compacted;
  // Row d of the output: the positions' coordinates along dim d.
  TRY(coords, unravelPositions(n, kept, t.getShape()));
  SmallVector<Value> rows;
  for (Value c : coords)
    rows.push_back(n.reshape(c, {1, size}));
  Value y = rows[0];
  if (rank > 1) {
    TRY(cat, make<ConcatOp>(n, ValueRange(rows), int64_t(0)));
    y = cat;
  }
  n.setOutput(0, y);
  n.setDataDim(0, 1, count);
  return success();
}

/// NonMaxSuppression: per batch and class, the boxes in descending score
/// order that pass the score threshold and overlap no box selected before
/// them by more than the IoU threshold, at most max_output_boxes_per_class
/// of them. Greedy, so a `hodu.loop` over the score ranks carries per
/// (batch, class) which ranks are suppressed, which kept and how many; each
/// iteration compares the candidate at that rank with every box of its
/// class (O(N) each, O(N^2) per class, no N x N matrix). The kept ranks are
/// compacted into [batch, class, box] rows at run time: the output is
/// computed at its bound (every box of every class) with the run-time count
/// of rows (DataDependentDim), whatever the thresholds and the limit (they
/// may be inputs computed at run time).
LogicalResult convertNonMaxSuppression(NodeContext &n) {
  TRY(boxes, n.in(0));
  TRY(scores, n.in(1));
  auto bt = tensorType(boxes), st = tensorType(scores);
  if (bt.getRank() != 3 || bt.getDimSize(2) != 4)
    return n.error("boxes must be [num_batches, spatial_dimension, 4]");
  if (st.getRank() != 3 || st.getDimSize(0) != bt.getDimSize(0) ||
      st.getDimSize(2) != bt.getDimSize(1))
    return n.error("scores must be [num_batches, num_classes, "
                   "spatial_dimension] for boxes " +
                   dimsString(bt.getShape()));
  Type elt = bt.getElementType();
  if (!isa<FloatType>(elt) || st.getElementType() != elt)
    return n.error("boxes and scores must have the same float type");
  TRY(center, n.attrInt("center_point_box", 0));
  if (center != 0 && center != 1)
    return n.error("center_point_box must be 0 or 1");
  int64_t B = bt.getDimSize(0), C = st.getDimSize(1), N = bt.getDimSize(1);
  Type i64 = n.b.getI64Type(), i1 = n.b.getI1Type();
  auto scalarOr = [&](size_t i, Type t, double dflt,
                      StringRef what) -> FailureOr<Value> {
    if (!n.hasInput(i))
      return n.constant(t, dflt);
    return scalarInput(n, i, t, what);
  };
  TRY(maxOut, scalarOr(2, i64, 0, "max_output_boxes_per_class"));
  TRY(iouThr, scalarOr(3, elt, 0, "iou_threshold"));
  // Without a score threshold every score passes.
  TRY(scoreThr, scalarOr(4, elt, -INFINITY, "score_threshold"));

  // The corners, lower and upper along each axis ([B, N] each).
  SmallVector<Value> coord;
  for (int64_t k = 0; k < 4; ++k) {
    TRY(c, make<SliceOp>(n, boxes, ArrayRef<int64_t>{0, 0, k},
                         ArrayRef<int64_t>{B, N, k + 1},
                         ArrayRef<int64_t>{1, 1, 1}));
    coord.push_back(n.reshape(c, {B, N}));
  }
  SmallVector<Value> lo, hi;
  for (int64_t a = 0; a < 2; ++a) {
    if (center) {
      // [x_center, y_center, width, height]
      TRY(half, make<MulScalarOp>(n, coord[2 + a], n.scalarAttr(elt, 0.5)));
      TRY(l, make<SubOp>(n, coord[a], half));
      TRY(h, make<AddOp>(n, coord[a], half));
      lo.push_back(l);
      hi.push_back(h);
    } else {
      // [y1, x1, y2, x2], either corner first.
      TRY(l, make<MinimumOp>(n, coord[a], coord[2 + a]));
      TRY(h, make<MaximumOp>(n, coord[a], coord[2 + a]));
      lo.push_back(l);
      hi.push_back(h);
    }
  }
  // The boxes of each class in descending score order ([B, C, N]).
  TRY(sorted, makeOp<TopKOp>(n, scores, N, int64_t(2), true, true));
  Value sortedScores = sorted->getResult(0), order = sorted->getResult(1);
  Value flatOrder = n.reshape(order, {B, C * N});
  auto inOrder = [&](Value v) -> FailureOr<Value> {
    TRY(g, make<GatherOp>(n, v, flatOrder, int64_t(1)));
    return n.reshape(g, {B, C, N});
  };
  SmallVector<Value> sLo, sHi;
  for (int64_t a = 0; a < 2; ++a) {
    TRY(l, inOrder(lo[a]));
    TRY(h, inOrder(hi[a]));
    sLo.push_back(l);
    sHi.push_back(h);
  }
  TRY(ext0, make<SubOp>(n, sHi[0], sLo[0]));
  TRY(ext1, make<SubOp>(n, sHi[1], sLo[1]));
  TRY(area, make<MulOp>(n, ext0, ext1));

  // The boxes selected so far, per batch and class, in K slots (K = the
  // limit when it is known at import time, else every box): their corners
  // and areas, and the rank each came from. Empty slots have area 0, which
  // overlaps nothing.
  int64_t K = N;
  if (std::optional<ConstantView> c = n.constantInput(2);
      c && c->size() == 1)
    K = std::clamp<int64_t>((int64_t)c->s(0), 1, N);
  Type fT = RankedTensorType::get({B, C, K}, elt);
  auto slotsI64 = RankedTensorType::get({B, C, K}, i64);
  auto countT = RankedTensorType::get({B, C, 1}, i64);
  auto i64Scalar = RankedTensorType::get({}, i64);
  auto boolScalar = RankedTensorType::get({}, i1);
  Value emptyF = n.constant(DenseElementsAttr::get(
      cast<ShapedType>(fT), n.scalarAttr(elt, 0)));
  Value emptyI = n.constant(DenseElementsAttr::get(slotsI64, APInt(64, 0)));
  Value zeroCount = n.constant(DenseElementsAttr::get(countT, APInt(64, 0)));
  Value trips = n.constant(DenseElementsAttr::get(i64Scalar, APInt(64, N)));
  Value slotIota = iota(n, i64, K, 3, 2); // [1, 1, K]
  // Whether any class may still select a box at rank `r`: scores are in
  // descending order, so once none passes the threshold (or every class is
  // full) no later rank does, and the loop stops there.
  auto anyLeft = [&](Value r, Value selected) -> FailureOr<Value> {
    TRY(s, make<IndexSelectOp>(n, sortedScores, n.reshape(r, {1}), int64_t(2)));
    TRY(passes, make<GtOp>(n, s, scoreThr));
    TRY(room, make<LtOp>(n, selected, maxOut));
    TRY(both, make<LogicalAndOp>(n, passes, room));
    return make<ReduceAnyOp>(n, both, ArrayRef<int64_t>{0, 1, 2}, false);
  };
  Value zero = n.constant(DenseElementsAttr::get(i64Scalar, APInt(64, 0)));
  TRY(start, anyLeft(zero, zeroCount));
  SmallVector<Value> inits = {emptyF, emptyF, emptyF, emptyF, emptyF, emptyI,
                              zeroCount};
  SmallVector<Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  auto loop = LoopOp::create(n.b, n.loc, types, trips, start, inits);
  Block *block = new Block();
  loop.getBody().push_back(block);
  Value it = block->addArgument(i64Scalar, n.loc);
  block->addArgument(boolScalar, n.loc); // the condition it entered with
  SmallVector<Value> state;
  for (Type t : types)
    state.push_back(block->addArgument(t, n.loc));
  {
    OpBuilder::InsertionGuard guard(n.b);
    n.b.setInsertionPointToEnd(block);
    Value at = n.reshape(it, {1});
    auto pick = [&](Value v) { return make<IndexSelectOp>(n, v, at, int64_t(2)); };
    Value count = state[6];
    // The candidate at this rank, per batch and class ([B, C, 1]), against
    // the boxes selected before it ([B, C, K]).
    TRY(cScore, pick(sortedScores));
    TRY(passes, make<GtOp>(n, cScore, scoreThr));
    TRY(room, make<LtOp>(n, count, maxOut));
    Value inter;
    SmallVector<Value> cand;
    for (int64_t a = 0; a < 2; ++a) {
      TRY(cl, pick(sLo[a]));
      TRY(ch, pick(sHi[a]));
      cand.push_back(cl);
      cand.push_back(ch);
      TRY(l, make<MaximumOp>(n, state[2 * a], cl));
      TRY(h, make<MinimumOp>(n, state[2 * a + 1], ch));
      TRY(d, make<SubOp>(n, h, l));
      TRY(e, make<MaximumScalarOp>(n, d, n.scalarAttr(elt, 0)));
      if (!inter) {
        inter = e;
      } else {
        TRY(m, make<MulOp>(n, inter, e));
        inter = m;
      }
    }
    TRY(cArea, pick(area));
    TRY(sum, make<AddOp>(n, state[4], cArea));
    TRY(uni, make<SubOp>(n, sum, inter));
    TRY(iou, make<DivOp>(n, inter, uni));
    // Boxes without area overlap nothing (as ONNX Runtime has it).
    TRY(pos1, make<GtScalarOp>(n, state[4], n.scalarAttr(elt, 0)));
    TRY(pos2, make<GtScalarOp>(n, cArea, n.scalarAttr(elt, 0)));
    TRY(over, make<GtOp>(n, iou, iouThr));
    TRY(o1, make<LogicalAndOp>(n, over, pos1));
    TRY(o2, make<LogicalAndOp>(n, o1, pos2));
    TRY(hit, make<ReduceAnyOp>(n, o2, ArrayRef<int64_t>{2}, true));
    TRY(free, make<LogicalNotOp>(n, hit));
    TRY(v1, make<LogicalAndOp>(n, passes, room));
    TRY(valid, make<LogicalAndOp>(n, v1, free));
    // A selected candidate goes to slot `count`.
    TRY(slot, make<EqOp>(n, slotIota, count));
    TRY(put, make<LogicalAndOp>(n, slot, valid));
    SmallVector<Value> next;
    for (int64_t k = 0; k < 4; ++k) {
      TRY(v, make<SelectOp>(n, put, cand[k], state[k]));
      next.push_back(v);
    }
    TRY(nextArea, make<SelectOp>(n, put, cArea, state[4]));
    next.push_back(nextArea);
    TRY(nextRank, make<SelectOp>(n, put, it, state[5]));
    next.push_back(nextRank);
    TRY(nextCount, make<AddOp>(n, count, n.cast(valid, i64)));
    next.push_back(nextCount);
    // (Past the last rank the index is clamped; the trip count stops there.)
    TRY(nextIt, make<AddScalarOp>(n, it, n.scalarAttr(i64, 1)));
    TRY(more, anyLeft(nextIt, nextCount));
    next.insert(next.begin(), more);
    YieldOp::create(n.b, n.loc, next);
  }
  // Rows [batch, class, box] of the filled slots, in order.
  int64_t bound = B * C * K;
  Value ranks = loop.getResult(5), selected = loop.getResult(6);
  TRY(filled, make<LtOp>(n, slotIota, selected));
  TRY(compacted, compactPositions(n, n.reshape(filled, {bound})));
  auto [at, total] = compacted;
  TRY(coords, unravelPositions(n, at, {B, C, K}));
  Value batch = coords[0], cls = coords[1];
  // The box: order[batch, class, rank of the slot].
  TRY(rank, make<IndexSelectOp>(n, n.reshape(ranks, {bound}), at, int64_t(0)));
  TRY(byK, make<DivScalarOp>(n, at, n.scalarAttr(i64, (double)K)));
  TRY(row, make<MulScalarOp>(n, byK, n.scalarAttr(i64, (double)N)));
  TRY(flat, make<AddOp>(n, row, rank));
  TRY(box, make<IndexSelectOp>(n, n.reshape(order, {B * C * N}), flat,
                               int64_t(0)));
  SmallVector<Value> cols = {n.reshape(batch, {bound, 1}),
                             n.reshape(cls, {bound, 1}),
                             n.reshape(box, {bound, 1})};
  TRY(rows, make<ConcatOp>(n, ValueRange(cols), int64_t(1)));
  n.setOutput(0, rows);
  n.setDataDim(0, 0, total);
  return success();
}

/// Unique on data known only at run time: the distinct elements (or slices
/// along `axis`), where each first occurs, each element's group and each
/// group's size. Every pair of rows is compared (O(D^2 M) for D rows of M
/// elements): equal rows form a group, whose first row is its
/// representative; sorted output places a group by how many distinct rows
/// are smaller (lexicographically), unsorted by where it first occurs. The
/// representatives are scattered to those places, so the values, indices
/// and counts are computed at their bound (every row distinct) with the
/// run-time count of groups (DataDependentDim); the inverse indices have
/// the input's static size.
LogicalResult convertUnique(NodeContext &n) {
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  TRY(sortedAttr, n.attrInt("sorted", 1));
  Type i64 = n.b.getI64Type();
  // The rows: [D, M], the compared axis first.
  SmallVector<int64_t> perm, restShape;
  int64_t axis = -1;
  Value rows;
  if (n.attr("axis")) {
    TRY(a, n.attrInt("axis", 0));
    TRY(norm, normAxis(n, a, xt.getRank()));
    axis = norm;
    perm.push_back(axis);
    for (int64_t d = 0; d < xt.getRank(); ++d)
      if (d != axis) {
        perm.push_back(d);
        restShape.push_back(xt.getDimSize(d));
      }
    TRY(t, make<TransposeOp>(n, x, ArrayRef<int64_t>(perm)));
    rows = n.reshape(t, {xt.getDimSize(axis), product(restShape)});
  } else {
    rows = n.reshape(x, {xt.getNumElements(), 1});
  }
  int64_t D = tensorType(rows).getDimSize(0), M = tensorType(rows).getDimSize(1);
  if (D > (int64_t(1) << 14))
    return n.error("Unique compares every pair of its " + Twine(D) +
                   " rows computed at run time; more than 2^14 is refused");
  Value a = n.reshape(rows, {D, 1, M}), b = n.reshape(rows, {1, D, M});
  TRY(eqk, make<EqOp>(n, a, b));
  TRY(eq, make<ReduceAllOp>(n, eqk, ArrayRef<int64_t>{2}, false)); // [D, D]
  // Rows before row i that equal it: then row i is not its group's first.
  TRY(before, make<LtOp>(n, iota(n, i64, D, 2, 1), iota(n, i64, D, 2, 0)));
  TRY(dupMask, make<LogicalAndOp>(n, eq, before));
  TRY(dup, make<ReduceAnyOp>(n, dupMask, ArrayRef<int64_t>{1}, false));
  TRY(first, make<LogicalNotOp>(n, dup)); // [D]
  TRY(sizes, make<ReduceSumOp>(n, n.cast(eq, i64), ArrayRef<int64_t>{1},
                               false));
  Value place, inverse;
  if (sortedAttr) {
    // less[i][j]: row j < row i, at the first element where they differ.
    Value less;
    TRY(ltk, make<LtOp>(n, b, a));
    if (M == 1) {
      less = n.reshape(ltk, {D, D});
    } else {
      TRY(nek, make<LogicalNotOp>(n, eqk));
      TRY(diffs, make<CumSumOp>(n, n.cast(nek, i64), int64_t(2), true, false));
      TRY(same, make<EqScalarOp>(n, diffs, n.scalarAttr(i64, 0)));
      TRY(decides, make<LogicalAndOp>(n, ltk, same));
      TRY(l, make<ReduceAnyOp>(n, decides, ArrayRef<int64_t>{2}, false));
      less = l;
    }
    // A group's place: the distinct rows smaller than it; every row of the
    // group has the same, which is its inverse index too.
    TRY(smaller, make<LogicalAndOp>(n, less, n.reshape(first, {1, D})));
    TRY(p, make<ReduceSumOp>(n, n.cast(smaller, i64), ArrayRef<int64_t>{1},
                             false));
    place = p;
    inverse = p;
  } else {
    // A group's place: the groups that first occur before it.
    TRY(rankOf, exclusiveScan(n, n.cast(first, i64)));
    place = rankOf;
    // Each row's group: its first equal row's place.
    TRY(firstEq, make<ArgMaxOp>(n, n.cast(eq, i64), ArrayRef<int64_t>{1},
                                false, false));
    TRY(inv, make<IndexSelectOp>(n, rankOf, firstEq, int64_t(0)));
    inverse = inv;
  }
  TRY(target, make<SelectOp>(n, first, place, n.constant(i64, (double)D)));
  auto scatterTo = [&](Value src) -> FailureOr<Value> {
    Value zeros = n.constant(i64, 0, {D + 1});
    TRY(sc, make<ScatterOp>(n, zeros, target, src, int64_t(0)));
    return make<SliceOp>(n, sc, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{D},
                         ArrayRef<int64_t>{1});
  };
  TRY(firstAt, scatterTo(iota(n, i64, D, 1, 0)));
  TRY(counts, scatterTo(sizes));
  TRY(groups, make<ReduceSumOp>(n, n.cast(first, i64), ArrayRef<int64_t>{0},
                                false));
  TRY(values, make<IndexSelectOp>(n, rows, firstAt, int64_t(0)));
  Value y;
  if (axis < 0) {
    y = n.reshape(values, {D});
  } else {
    SmallVector<int64_t> shape = {D};
    llvm::append_range(shape, restShape);
    SmallVector<int64_t> back(perm.size());
    for (auto [i, d] : llvm::enumerate(perm))
      back[d] = (int64_t)i;
    TRY(t, make<TransposeOp>(n, n.reshape(values, shape), ArrayRef<int64_t>(back)));
    y = t;
  }
  n.setOutput(0, y);
  n.setDataDim(0, axis < 0 ? 0 : axis, groups);
  n.setOutput(1, firstAt);
  n.setDataDim(1, 0, groups);
  n.setOutput(2, inverse);
  n.setOutput(3, counts);
  n.setDataDim(3, 0, groups);
  return success();
}

/// Compress: the elements (or slices along `axis`) where the condition is
/// true. With a condition known at import time (at most 2^22 elements) the
/// kept indices are constants and the result has a static shape; with one
/// computed at run time they are compacted at run time and the output is
/// computed at its bound (every element kept) with their count
/// (DataDependentDim).
LogicalResult convertCompress(NodeContext &n) {
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  Value data = x;
  int64_t axis = 0;
  if (n.attr("axis")) {
    TRY(a, n.attrInt("axis", 0));
    TRY(norm, normAxis(n, a, xt.getRank()));
    axis = norm;
  } else {
    data = n.reshape(x, {xt.getNumElements()});
  }
  int64_t dim = tensorType(data).getDimSize(axis);
  RankedTensorType ct = n.type(1);
  if (!ct || ct.getRank() != 1)
    return n.error("the condition must be 1-D");
  if (ct.getDimSize(0) > dim)
    return n.error("the condition has " + Twine(ct.getDimSize(0)) +
                   " elements for a dim of " + Twine(dim));
  std::optional<ConstantView> c = n.constantInput(1);
  if (c && c->size() <= kMaxConstantScan) {
    SmallVector<int64_t> kept = nonzeroPositions(*c);
    if (kept.empty())
      return n.error("the condition keeps no element; a tensor without "
                     "elements is not supported here");
    TRY(r, make<IndexSelectOp>(n, data, n.constant(ArrayRef<int64_t>(kept)),
                               axis));
    n.setOutput(0, r);
    return success();
  }
  TRY(cond, n.in(1));
  TRY(compacted, compactPositions(n, cond));
  auto [kept, count] = compacted;
  TRY(r, make<IndexSelectOp>(n, data, kept, axis));
  n.setOutput(0, r);
  n.setDataDim(0, axis, count);
  return success();
}

LogicalResult convertTrilu(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  if (t.getRank() < 2)
    return n.error("expects an input of rank >= 2");
  TRY(upper, n.attrInt("upper", 1));
  int64_t rows = t.getDimSize(t.getRank() - 2), cols = t.getDimSize(t.getRank() - 1);
  Value zero = n.constant(t.getElementType(), 0);
  if (n.hasInput(1) && !n.constantInput(1)) {
    // k known only at run time: the mask compares j - i with it, from a
    // row and a column index that broadcast (no rows x cols constant).
    Type i64 = n.b.getI64Type();
    TRY(k, scalarInput(n, 1, i64, "k"));
    TRY(diff, make<SubOp>(n, iota(n, i64, cols, 2, 1), iota(n, i64, rows, 2, 0)));
    FailureOr<Value> mask = upper ? make<GeOp>(n, diff, k) : make<LeOp>(n, diff, k);
    if (failed(mask))
      return failure();
    TRY(r, make<SelectOp>(n, *mask, x, zero));
    n.setOutput(0, r);
    return success();
  }
  int64_t k = 0;
  if (n.hasInput(1)) {
    TRY(kv, constScalar(n, 1, "k"));
    k = kv;
  }
  SmallVector<bool> mask;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      mask.push_back(upper ? j - i >= k : j - i <= k);
  Value maskV = n.constant(DenseElementsAttr::get(
      RankedTensorType::get({rows, cols}, n.b.getI1Type()), mask));
  TRY(r, make<SelectOp>(n, maskV, x, zero));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertEyeLike(NodeContext &n) {
  RankedTensorType t = n.type(0);
  if (!t || t.getRank() != 2)
    return n.error("expects a 2-D input");
  TRY(k, n.attrInt("k", 0));
  Type elt = t.getElementType();
  if (n.attr("dtype")) {
    TRY(dt, n.attrInt("dtype", 1));
    elt = onnxElementType(n.graph.ctx, (int)dt);
    if (!elt)
      return n.error("unsupported dtype " + Twine(dt));
  }
  ConstantWriter eye(t.clone(elt), kSmallTensorBytes);
  for (int64_t i = 0, cols = t.getDimSize(1); i < t.getDimSize(0); ++i)
    for (int64_t j = 0; j < cols; ++j)
      eye.setF(i * cols + j, j - i == k);
  n.setConstant(0, eye.finish());
  return success();
}

/// The linear row index of each index tuple (last dim of `indices`) into
/// the first `k` dims of `dataShape`, negative components normalized.
FailureOr<Value> linearIndices(NodeContext &n, ArrayRef<int64_t> dataShape,
                               size_t indicesInput) {
  TRY(idx, n.in(indicesInput));
  auto it = tensorType(idx);
  if (it.getRank() < 1 || !it.getElementType().isInteger(64))
    return n.error("indices must be int64 of rank >= 1");
  int64_t k = it.getDimSize(it.getRank() - 1);
  if (k < 1 || k > (int64_t)dataShape.size())
    return n.error("index tuples of length " + Twine(k) +
                   " do not fit the data's rank");
  int64_t stride = 1;
  SmallVector<int64_t> strides(k);
  for (int64_t i = k - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= dataShape[i];
  }
  TRY(neg, make<LtScalarOp>(n, idx, n.scalarAttr(n.b.getI64Type(), 0)));
  TRY(plus, make<AddOp>(n, idx, n.constant(dataShape.take_front(k))));
  TRY(norm, make<SelectOp>(n, neg, plus, idx));
  TRY(scaled, make<MulOp>(n, norm, n.constant(ArrayRef<int64_t>(strides))));
  return make<ReduceSumOp>(n, scaled, ArrayRef<int64_t>{it.getRank() - 1},
                           false);
}

/// GatherND and ScatterND see the data as rows, [prod(shape[:k]),
/// shape[k:]...] for index tuples of length k (the last dim of input 1),
/// and each tuple as its row number.
struct IndexRows {
  Value rowNumbers;          // i64, the indices' shape without the last dim
  SmallVector<int64_t> rows; // the data's shape as rows
  RankedTensorType indicesType;
  int64_t k;
};

/// The run-time check of GatherND's and ScatterND's index tuples: each
/// component j within [-d_j, d_j) for `dims` = d (the data's dims from
/// axis `batch`), a hodu.assert tagged `hodu.index_check`, which
/// hodu-check-indices keeps (--index-checks=error) or removes (clamp).
/// The row numbers alone cannot tell a bad component: (0, 5) of a 3x5 data
/// is row 5, which exists.
LogicalResult checkTuples(NodeContext &n, ArrayRef<int64_t> dims,
                          int64_t batch) {
  if (llvm::any_of(dims, ShapedType::isDynamic))
    return success();
  TRY(idx, n.in(1));
  SmallVector<int64_t> neg;
  std::string ranges, sizes;
  for (auto [j, d] : llvm::enumerate(dims)) {
    neg.push_back(-d);
    ranges += (j ? " x [" : "[") + std::to_string(-d) + ", " +
              std::to_string(d - 1) + "]";
    sizes += (j ? " x " : "") + std::to_string(d);
  }
  TRY(lo, make<GeOp>(n, idx, n.constant(ArrayRef<int64_t>(neg))));
  TRY(hi, make<LtOp>(n, idx, n.constant(dims)));
  TRY(ok, make<LogicalAndOp>(n, lo, hi));
  std::string axes = dims.size() == 1
                         ? "axis " + std::to_string(batch)
                         : "axes " + std::to_string(batch) + ".." +
                               std::to_string(batch + dims.size() - 1);
  return n.checkAtRunTime(ok,
                          "an index tuple in '" + n.node.input(1) +
                              "' is outside " + ranges + " (" + axes +
                              " of the data have " + sizes + " elements)",
                          /*indexCheck=*/true);
}

FailureOr<IndexRows> indexRows(NodeContext &n, ArrayRef<int64_t> dataShape,
                               int64_t batch = 0) {
  RankedTensorType it = n.type(1);
  if (!it || it.getRank() < 1)
    return n.error("expects indices of rank >= 1");
  int64_t k = it.getDimSize(it.getRank() - 1);
  // Constant tuples are checked here; run-time ones when the model runs
  // (linearIndices refuses a k that does not fit the data).
  std::optional<ConstantView> c = n.constantInput(1);
  if (c && k >= 1 && k <= (int64_t)dataShape.size())
    for (int64_t j = 0, e = c->isSplat() ? k : c->size(); j < e; ++j) {
      int64_t size = dataShape[j % k];
      auto v = static_cast<int64_t>(c->s(j));
      if (!ShapedType::isDynamic(size) && (v < -size || v >= size))
        return n.error("index " + Twine(v) + " (element " + Twine(j) +
                       " of the indices) is out of range for axis " +
                       Twine(j % k + batch) + " of size " + Twine(size));
    }
  TRY(lin, linearIndices(n, dataShape, 1));
  if (!c && failed(checkTuples(n, dataShape.take_front(k), batch)))
    return failure();
  SmallVector<int64_t> rows = {product(dataShape.take_front(k))};
  llvm::append_range(rows, dataShape.drop_front(k));
  return IndexRows{lin, rows, it, k};
}

LogicalResult convertGatherND(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(batch, n.attrInt("batch_dims", 0));
  auto xt = tensorType(x);
  RankedTensorType it = n.type(1);
  if (!it || batch < 0 || batch >= it.getRank() || batch >= xt.getRank())
    return n.error("batch_dims " + Twine(batch) +
                   " must be less than the ranks of data and indices");
  if (xt.getShape().take_front(batch) != it.getShape().take_front(batch))
    return n.error("the first batch_dims dims of data and indices differ");
  // The batch dims are flattened into one, B: each batch's data is seen as
  // rows, and its tuples' row numbers are offset by the batch's first row.
  TRY(ir, indexRows(n, xt.getShape().drop_front(batch), batch));
  int64_t b = product(xt.getShape().take_front(batch));
  int64_t rowsPerBatch = ir.rows[0];
  SmallVector<int64_t> rows = {b * rowsPerBatch};
  llvm::append_range(rows, ArrayRef<int64_t>(ir.rows).drop_front());
  Value numbers = ir.rowNumbers;
  if (batch > 0) {
    int64_t m = product(it.getShape().drop_front(batch).drop_back());
    numbers = n.reshape(numbers, {b, m});
    TRY(off, make<AddOp>(n, numbers,
                         iota(n, n.b.getI64Type(), b, 2, 0, rowsPerBatch)));
    numbers = off;
  }
  TRY(r, make<IndexSelectOp>(n, n.reshape(x, rows), numbers, 0));
  // [B, M, rest...] (or [M..., rest...]) back to batch + M dims + rest.
  SmallVector<int64_t> shape(it.getShape().drop_back());
  llvm::append_range(shape, xt.getShape().drop_front(batch + ir.k));
  n.setOutput(0, n.reshape(r, shape));
  return success();
}

LogicalResult convertScatterND(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(upd, n.in(2));
  TRY(reduction, n.attrString("reduction", "none"));
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min")
    return n.error("reduction '" + reduction + "' is not supported");
  auto xt = tensorType(x);
  TRY(ir, indexRows(n, xt.getShape()));
  int64_t m = product(ir.indicesType.getShape().drop_back());
  SmallVector<int64_t> updRows = {m};
  llvm::append_range(updRows, xt.getShape().drop_front(ir.k));
  if (product(updRows) != tensorType(upd).getNumElements())
    return n.error("updates do not match indices and data");
  Value data = n.reshape(x, ir.rows), numbers = n.reshape(ir.rowNumbers, {m});
  upd = n.reshape(upd, updRows);
  FailureOr<Value> r = failure();
  if (reduction == "none") {
    r = make<IndexPutOp>(n, data, numbers, upd, 0);
  } else {
    // A reduction is a scatter of elements along the rows: every element
    // of update row j goes to row numbers[j] of its column.
    SmallVector<int64_t> col(updRows.size(), 1);
    col[0] = m;
    Value idx = broadcastTo(n, n.reshape(numbers, col), updRows);
    if (reduction == "add")
      r = make<ScatterAddOp>(n, data, idx, upd, 0);
    else if (reduction == "mul")
      r = make<ScatterMulOp>(n, data, idx, upd, 0);
    else if (reduction == "max")
      r = make<ScatterMaxOp>(n, data, idx, upd, 0);
    else
      r = make<ScatterMinOp>(n, data, idx, upd, 0);
  }
  if (failed(r))
    return failure();
  n.setOutput(0, n.reshape(*r, xt.getShape()));
  return success();
}

LogicalResult convertReverseSequence(NodeContext &n) {
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  if (xt.getRank() < 2)
    return n.error("expects an input of rank >= 2");
  TRY(batchAxis, n.attrInt("batch_axis", 1));
  TRY(timeAxis, n.attrInt("time_axis", 0));
  if (!((batchAxis == 0 && timeAxis == 1) || (batchAxis == 1 && timeAxis == 0)))
    return n.error("batch_axis and time_axis must be 0 and 1 in some order");
  int64_t steps = xt.getDimSize(timeAxis), batch = xt.getDimSize(batchAxis);
  Type i64 = n.b.getI64Type();
  TRY(lensIn, n.in(1));
  if (tensorType(lensIn).getRank() != 1 ||
      tensorType(lensIn).getDimSize(0) != batch)
    return n.error("sequence_lens must be 1-D with one length per batch "
                   "entry (" + Twine(batch) + ")");
  // Lengths are clamped to [1, steps] (ONNX Runtime refuses others).
  Value lens = n.cast(lensIn, i64);
  TRY(lo, make<MaximumScalarOp>(n, lens, n.scalarAttr(i64, 1)));
  TRY(hi, make<MinimumScalarOp>(n, lo, n.scalarAttr(i64, (double)steps)));
  SmallVector<int64_t> lensShape = {1, 1};
  lensShape[batchAxis] = batch;
  Value len = n.reshape(hi, lensShape);
  // Source step of step t: len - 1 - t inside the sequence, t after it.
  Value t = iota(n, i64, steps, 2, timeAxis);
  TRY(inside, make<LtOp>(n, t, len));
  TRY(last, make<SubScalarOp>(n, len, n.scalarAttr(i64, 1)));
  TRY(rev, make<SubOp>(n, last, t));
  TRY(src, make<SelectOp>(n, inside, rev, t));
  SmallVector<int64_t> shape2 = {xt.getDimSize(0), xt.getDimSize(1)};
  SmallVector<int64_t> expanded(shape2);
  expanded.append(xt.getRank() - 2, 1);
  Value idx = broadcastTo(n, n.reshape(broadcastTo(n, src, shape2), expanded),
                          xt.getShape());
  TRY(r, make<GatherOp>(n, x, idx, timeAxis));
  n.setOutput(0, r);
  return success();
}

} // namespace

void hodu::onnx_import::registerIndexingOps(ConverterTable &table) {
  table.insert({
      {"Gather", convertGather},
      {"GatherElements", convertGatherElements},
      {"ScatterElements", convertScatter},
      {"Scatter", convertScatter},
      {"OneHot", convertOneHot},
      {"NonZero", convertNonZero},
      {"NonMaxSuppression", convertNonMaxSuppression},
      {"Unique", convertUnique},
      {"Compress", convertCompress},
      {"Trilu", convertTrilu},
      {"EyeLike", convertEyeLike},
      {"GatherND", convertGatherND},
      {"ScatterND", convertScatterND},
      {"ReverseSequence", convertReverseSequence},
  });
}
