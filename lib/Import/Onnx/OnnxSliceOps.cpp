//===- OnnxSliceOps.cpp - Slice and Pad -----------------------------------===//
//
// Slice and Pad: by starts, ends, axes, steps and pads known at import
// time (read as constants), or known only at run time, where a Slice is
// computed at its bound with a run-time count of its entries
// (DataDependentDim) and a Pad takes the shape the model declares for its
// output, checked when the model runs.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

#include <algorithm>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

/// Slice whose starts, ends, axes or steps are known only at run time: the
/// result is computed at its bound, the input's shape, each dim the slice
/// may cut gathered from its run-time start by its run-time step (padding
/// repeats an edge entry), with the run-time count of entries ONNX's
/// clamping leaves (DataDependentDim). Where the axes are known and one
/// dim is cut, that dim carries the count on through the model; otherwise
/// every dim does, and the result can only be a model output.
LogicalResult convertSliceRuntime(NodeContext &n, Value x) {
  auto t = tensorType(x);
  int64_t r = t.getRank();
  if (failed(checkNoDataDim(n, "the slice's bounds are")))
    return failure();
  RankedTensorType st = n.type(1);
  if (!st || st.getRank() != 1 || st.isDynamicDim(0))
    return n.error("starts must be a 1-D tensor of static length");
  int64_t k = st.getDimSize(0);
  // Each entry names a dim of its own (ONNX: axes are unique), and an op
  // is built per entry: a declared length of 2^31 must not be followed.
  if (k > r)
    return n.error("starts has " + Twine(k) + " entries for an input of rank " +
                   Twine(r) + "; each names a different dim");
  Type i64 = n.b.getI64Type();
  // Entry j of input `i` as a 0-d i64, or `dflt` when the input is absent.
  auto entries =
      [&](size_t i, StringRef what,
          function_ref<double(int64_t)> dflt) -> FailureOr<SmallVector<Value>> {
    SmallVector<Value> out;
    if (!n.hasInput(i)) {
      for (int64_t j = 0; j < k; ++j)
        out.push_back(n.constant(i64, dflt(j)));
      return out;
    }
    RankedTensorType ti = n.type(i);
    if (!ti || ti.getRank() != 1 || ti.getDimSize(0) != k)
      return n.error(what + " must be a 1-D tensor of " + Twine(k) +
                     " entries, as starts is");
    TRY(v, n.in(i));
    Value w = n.cast(v, i64);
    for (int64_t j = 0; j < k; ++j) {
      TRY(e, takeAt(n, w, 0, j));
      out.push_back(e);
    }
    return out;
  };
  auto j0 = [](int64_t) { return 0.0; };
  TRY(starts, entries(1, "starts", j0));
  TRY(ends, entries(2, "ends", j0));
  TRY(axes, entries(3, "axes", [](int64_t j) { return (double)j; }));
  TRY(steps, entries(4, "steps", [](int64_t) { return 1.0; }));
  // Where the axes are known, only the dims they name are cut.
  std::optional<SmallVector<int64_t>> known;
  if (!n.hasInput(3)) {
    known = SmallVector<int64_t>();
    for (int64_t j = 0; j < k; ++j)
      known->push_back(j);
  } else if (n.constantInput(3)) {
    TRY(a, n.constInts(3, "axes"));
    known = a;
  }
  if (known) {
    for (int64_t &a : *known) {
      TRY(ax, normAxis(n, a, r));
      a = ax;
    }
  }
  auto scalar = [&](double v) { return n.constant(i64, v); };
  auto clamp = [&](Value v, double lo, double hi) -> FailureOr<Value> {
    TRY(a, make<MaximumScalarOp>(n, v, n.scalarAttr(i64, lo)));
    return make<MinimumScalarOp>(n, a, n.scalarAttr(i64, hi));
  };
  // Each cut dim is computed at its bound, the input's size, with the
  // count as its data-dependent size; inside a subgraph, where no value
  // may have such a size, a shape the model declares for the output (that
  // the slice can give: no dim past the input's, the dims no axis names
  // kept) is the output's, checked when the model runs. (A GPU target
  // runs the bounded form, not the check.)
  std::optional<SmallVector<int64_t>> want;
  if (n.inSubgraph)
    want = n.declaredShape(0);
  if (want && ((int64_t)want->size() != r ||
               llvm::any_of(llvm::seq<int64_t>(0, r), [&](int64_t d) {
                 int64_t w = (*want)[d], size = t.getDimSize(d);
                 if (known && !llvm::is_contained(*known, d))
                   return w != size;
                 return w < 1 || w > size;
               })))
    want.reset();
  Value y = x;
  SmallVector<Value> dims;
  SmallVector<int64_t> cut;
  for (int64_t d = 0; d < r; ++d) {
    int64_t size = t.getDimSize(d);
    if (known && !llvm::is_contained(*known, d)) {
      dims.push_back(n.reshape(scalar((double)size), {1}));
      continue;
    }
    cut.push_back(d);
    // The entries that name dim d (as d or d - r); the last one wins.
    Value start = scalar(0), end = scalar((double)size), step = scalar(1);
    for (int64_t j = 0; j < k; ++j) {
      Value is;
      if (known) {
        if ((*known)[j] != d)
          continue;
        is = n.constant(n.b.getI1Type(), 1);
      } else {
        TRY(named, namesDim(n, ArrayRef<Value>(axes[j]), d, r));
        is = named;
      }
      TRY(s1, make<SelectOp>(n, is, starts[j], start));
      TRY(e1, make<SelectOp>(n, is, ends[j], end));
      TRY(st1, make<SelectOp>(n, is, steps[j], step));
      start = s1;
      end = e1;
      step = st1;
    }
    // ONNX's clamping. A step of 0 (an error in ONNX) takes nothing; a
    // step longer than the dim takes at most one entry, so it is cut to
    // size + 1 and the arithmetic below cannot overflow.
    Value dimV = scalar((double)size);
    auto fromEnd = [&](Value v) -> FailureOr<Value> {
      TRY(isNeg, make<LtScalarOp>(n, v, n.scalarAttr(i64, 0)));
      TRY(clampedLow, clamp(v, -(double)size - 1, (double)size + 1));
      TRY(plus, make<AddOp>(n, clampedLow, dimV));
      return make<SelectOp>(n, isNeg, plus, clampedLow);
    };
    TRY(s0, fromEnd(start));
    TRY(e0, fromEnd(end));
    TRY(zero, make<EqScalarOp>(n, step, n.scalarAttr(i64, 0)));
    TRY(forward, make<GtScalarOp>(n, step, n.scalarAttr(i64, 0)));
    TRY(stepC, clamp(step, -(double)size - 1, (double)size + 1));
    TRY(stepNZ, make<SelectOp>(n, zero, scalar(1), stepC));
    // Forward: start and end in [0, size]; count ceil((end - start) / step).
    TRY(sF, clamp(s0, 0, (double)size));
    TRY(eF, clamp(e0, 0, (double)size));
    TRY(lenF, make<SubOp>(n, eF, sF));
    // Backward: start and end in [-1, size - 1]; count ceil((start - end) /
    // -step).
    TRY(sB, clamp(s0, -1, (double)size - 1));
    TRY(eB, clamp(e0, -1, (double)size - 1));
    TRY(lenB, make<SubOp>(n, sB, eB));
    TRY(len, make<SelectOp>(n, forward, lenF, lenB));
    TRY(absStep, make<AbsOp>(n, stepNZ));
    TRY(lenUp, make<AddOp>(n, len, absStep));
    TRY(lenUp1, make<SubOp>(n, lenUp, scalar(1)));
    TRY(q, make<DivOp>(n, lenUp1, absStep));
    TRY(qPos, make<MaximumScalarOp>(n, q, n.scalarAttr(i64, 0)));
    TRY(count, make<SelectOp>(n, zero, scalar(0), qPos));
    TRY(first, make<SelectOp>(n, forward, sF, sB));
    // Entry i of the result is entry first + i * step of the input.
    TRY(where, positions(n, want ? (*want)[d] : size));
    TRY(scaled, make<MulOp>(n, where, stepNZ));
    TRY(from, make<AddOp>(n, scaled, first));
    TRY(index, clamp(from, 0, (double)std::max<int64_t>(size - 1, 0)));
    TRY(gathered, make<IndexSelectOp>(n, y, index, d));
    y = gathered;
    dims.push_back(n.reshape(count, {1}));
  }
  n.setOutput(0, y);
  if (want && !cut.empty()) {
    TRY(all, make<ConcatOp>(n, ValueRange(dims), int64_t(0)));
    TRY(ok, make<EqOp>(n, all, n.constant(ArrayRef<int64_t>(*want))));
    return n.checkAtRunTime(ok, "starts, ends, axes and steps must give the "
                                "shape " +
                                    dimsString(*want) + " " +
                                    n.declaredFor(0));
  }
  if (cut.size() == 1) {
    TRY(count, takeAt(n, dims[cut[0]], 0, 0));
    n.setDataDim(0, cut[0], count);
  } else if (!cut.empty()) {
    TRY(all, make<ConcatOp>(n, ValueRange(dims), int64_t(0)));
    n.setDataDim(0, DataDependentDim::kEveryDim, all);
  }
  return success();
}

LogicalResult convertSlice(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  int64_t r = t.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset >= 10 && llvm::any_of(llvm::seq<size_t>(1, 5), [&](size_t i) {
        return n.hasInput(i) && !n.constantInput(i);
      }))
    return convertSliceRuntime(n, x);
  if (n.opset < 10) {
    TRY(s, n.attrInts("starts"));
    TRY(e, n.attrInts("ends"));
    TRY(a, n.attrInts("axes"));
    if (!s || !e)
      return n.error("needs starts and ends");
    starts = *s;
    ends = *e;
    if (a)
      axes = *a;
  } else {
    TRY(s, n.constInts(1, "starts"));
    TRY(e, n.constInts(2, "ends"));
    starts = s;
    ends = e;
    if (n.hasInput(3)) {
      TRY(a, n.constInts(3, "axes"));
      axes = a;
    }
    if (n.hasInput(4)) {
      TRY(st, n.constInts(4, "steps"));
      steps = st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return n.error("starts, ends, axes and steps must have equal lengths");
  SmallVector<int64_t> b(r, 0), e(t.getShape()), st(r, 1);
  SmallVector<bool> seen(r, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    TRY(ax, normAxis(n, axes[i], r));
    if (seen[ax])
      return n.error("axis " + Twine(axes[i]) + " appears more than once");
    seen[ax] = true;
    int64_t dim = t.getDimSize(ax), s = steps[i];
    if (s == 0)
      return n.error("step must not be zero");
    int64_t lo = starts[i], hi = ends[i];
    if (lo < 0)
      lo += dim;
    if (hi < 0)
      hi += dim;
    if (s > 0) {
      lo = std::clamp<int64_t>(lo, 0, dim);
      hi = std::clamp<int64_t>(hi, lo, dim);
    } else {
      lo = std::clamp<int64_t>(lo, -1, dim - 1);
      hi = std::clamp<int64_t>(hi, -1, std::max<int64_t>(lo, -1));
      if (lo < 0) { // nothing to take
        lo = -1;
        hi = -1;
      }
    }
    b[ax] = lo;
    e[ax] = hi;
    st[ax] = s;
  }
  TRY(y, make<SliceOp>(n, x, b, e, st));
  n.setOutput(0, y);
  return success();
}

/// Pad by pads known only at run time, to the shape the model declares for
/// its output: each output position reads the input at its position less
/// the leading pad of each axis (clamped for `edge`, reflected for
/// `reflect`, outside the input the constant value), by a gather along
/// each axis; checked when the model runs: the pads of each axis add up to
/// the declared growth.
LogicalResult padToDeclared(NodeContext &n, Value x, StringRef mode) {
  auto t = tensorType(x);
  int64_t r = t.getRank();
  Type elt = t.getElementType(), i64 = n.b.getI64Type();
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return n.error("pads known only at run time support the modes constant, "
                   "edge and reflect, not '" +
                   mode + "'");
  if (n.hasInput(3))
    return n.error("pads known only at run time need all the axes (no "
                   "'axes' input)");
  TRY(shape, n.declaredShapeFor(0, 1, "pads"));
  RankedTensorType pt = n.type(1);
  if ((int64_t)shape.size() != r || !pt || pt.getRank() != 1 ||
      pt.getDimSize(0) != 2 * r)
    return n.error("the pads (" + Twine(pt ? pt.getNumElements() : 0) +
                   " entries) and the declared shape " + dimsString(shape) +
                   " of output '" + n.node.output(0) +
                   "' must have two entries and one dim per input dim (" +
                   Twine(r) + ")");
  SmallVector<int64_t> growth;
  for (int64_t i = 0; i < r; ++i) {
    if (shape[i] > 0 && t.getDimSize(i) == 0)
      return n.error("cannot pad the empty dim " + Twine(i) +
                     " to the declared " + Twine(shape[i]));
    growth.push_back(shape[i] - t.getDimSize(i));
  }
  TRY(pads, n.in(1));
  Value flat = n.cast(pads, i64), pairs = n.reshape(flat, {2, r});
  TRY(sums, make<ReduceSumOp>(n, pairs, ArrayRef<int64_t>{0}, false));
  TRY(fits, make<EqOp>(n, sums, n.constant(growth)));
  if (failed(n.checkAtRunTime(fits, "input '" + n.node.input(1) +
                                        "' must pad the input to the shape " +
                                        dimsString(shape) + " " +
                                        n.declaredFor(0))))
    return failure();
  Value y = x, inside;
  for (int64_t ax = 0; ax < r; ++ax) {
    int64_t len = t.getDimSize(ax), out = shape[ax];
    if (out == 0 || len == 0)
      continue; // nothing to read: the output dim is empty
    TRY(lead, make<SliceOp>(n, flat, ArrayRef<int64_t>{ax},
                            ArrayRef<int64_t>{ax + 1}, ArrayRef<int64_t>{1}));
    TRY(pos, positions(n, out));
    TRY(src, make<SubOp>(n, pos, lead));
    Value idx = src;
    if (mode == "reflect" && len > 1) {
      // |j| folds the left edge; (len-1) - |(len-1) - j| the right one.
      TRY(a, make<AbsOp>(n, src));
      TRY(d, make<SubScalarOp>(n, a, n.scalarAttr(i64, double(len - 1))));
      TRY(ad, make<AbsOp>(n, d));
      TRY(back, make<MulScalarOp>(n, ad, n.scalarAttr(i64, -1)));
      TRY(refl, make<AddScalarOp>(n, back, n.scalarAttr(i64, double(len - 1))));
      idx = refl;
    }
    // Every mode reads within the input whatever the pads.
    TRY(lo, make<MaximumScalarOp>(n, idx, n.scalarAttr(i64, 0)));
    TRY(clamped,
        make<MinimumScalarOp>(n, lo, n.scalarAttr(i64, double(len - 1))));
    TRY(g, make<IndexSelectOp>(n, y, clamped, ax));
    y = g;
    if (mode == "constant") {
      TRY(ge, make<GeScalarOp>(n, src, n.scalarAttr(i64, 0)));
      TRY(lt, make<LtScalarOp>(n, src, n.scalarAttr(i64, double(len))));
      TRY(in, make<LogicalAndOp>(n, ge, lt));
      SmallVector<int64_t> along(r, 1);
      along[ax] = out;
      Value v = n.reshape(in, along);
      if (inside) {
        TRY(both, make<LogicalAndOp>(n, inside, v));
        inside = both;
      } else {
        inside = v;
      }
    }
  }
  if (mode == "constant" && inside) {
    Value value = n.constant(elt, 0);
    if (n.hasInput(2)) {
      TRY(v, scalarInput(n, 2, elt, "constant_value"));
      value = v;
    }
    Value mask =
        BroadcastOp::create(
            n.b, n.loc, RankedTensorType::get(shape, n.b.getI1Type()), inside)
            .getResult();
    TRY(sel, make<SelectOp>(n, mask, y, value));
    y = sel;
  }
  n.setOutput(0, y);
  return success();
}

LogicalResult convertPad(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  int64_t r = t.getRank();
  Type elt = t.getElementType();
  TRY(modeStr, n.attrString("mode", "constant"));
  if (n.opset >= 11 && n.hasInput(1) && !n.constantInput(1))
    return padToDeclared(n, x, modeStr);
  SmallVector<int64_t> pads;
  double value = 0;
  if (n.opset < 11) {
    TRY(p, n.attrInts("pads"));
    if (!p)
      return n.error("needs the pads attribute");
    pads = *p;
    TRY(v, n.attrFloat("value", 0));
    value = v;
  } else {
    TRY(p, n.constInts(1, "pads"));
    pads = p;
    if (n.hasInput(2)) {
      TRY(v, n.constFloats(2, "constant_value"));
      if (v.size() != 1)
        return n.error("constant_value must hold one value");
      value = v[0];
    }
    if (n.hasInput(3)) {
      TRY(axes, n.constInts(3, "axes"));
      if (pads.size() != 2 * axes.size())
        return n.error("pads must have two entries per axis");
      SmallVector<int64_t> full(2 * r, 0);
      for (auto [i, a] : llvm::enumerate(axes)) {
        TRY(ax, normAxis(n, a, r));
        full[ax] = pads[i];
        full[r + ax] = pads[axes.size() + i];
      }
      pads = full;
    }
  }
  if ((int64_t)pads.size() != 2 * r)
    return n.error("pads must have " + Twine(2 * r) + " entries");
  PadMode mode;
  if (modeStr == "constant")
    mode = PadMode::constant;
  else if (modeStr == "reflect")
    mode = PadMode::reflect;
  else if (modeStr == "edge")
    mode = PadMode::replicate;
  else if (modeStr == "wrap")
    mode = PadMode::circular;
  else
    return n.error("unknown pad mode '" + modeStr + "'");
  // Negative pads crop: pad by the positive parts, then slice.
  SmallVector<int64_t> pos(2 * r), starts(r), ends(r), steps(r, 1);
  bool crop = false;
  for (int64_t i = 0; i < 2 * r; ++i) {
    pos[i] = std::max<int64_t>(pads[i], 0);
    crop |= pads[i] < 0;
  }
  Value y = x;
  if (llvm::any_of(pos, [](int64_t p) { return p > 0; })) {
    TypedAttr v = mode == PadMode::constant ? n.scalarAttr(elt, value) : TypedAttr();
    TRY(p, make<PadOp>(n, x, mode, pos, v));
    y = p;
  }
  if (crop) {
    auto pt = tensorType(y);
    for (int64_t i = 0; i < r; ++i) {
      starts[i] = -std::min<int64_t>(pads[i], 0);
      ends[i] = pt.getDimSize(i) + std::min<int64_t>(pads[r + i], 0);
      if (ends[i] < starts[i])
        return n.error("negative pads remove more than the whole dim");
    }
    TRY(s, make<SliceOp>(n, y, starts, ends, steps));
    y = s;
  }
  n.setOutput(0, y);
  return success();
}

} // namespace

void hodu::onnx_import::registerSliceOps(ConverterTable &table) {
  table.insert({
      {"Slice", convertSlice},
      {"Pad", convertPad},
  });
}
