//===- OnnxShapeOps.cpp - shape and layout ONNX ops -----------------------===//
//
// Reshapes, transposes, broadcasts, concatenation, slicing, padding and
// resizing. Shapes, axes, pads and sizes are read as import-time constants.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

#include <numeric>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

/// A Reshape by a shape known only at run time, to the shape the model
/// declares for its output: checked when the model runs, entry by entry
/// (the declared dim; 0 for the input's dim where that is the declared
/// one, unless `allowzero`; -1, at most once, which then stands for the
/// declared dim as the element counts agree).
LogicalResult reshapeToDeclared(NodeContext &n, Value x, int64_t allowZero) {
  auto t = tensorType(x);
  TRY(shape, n.declaredShapeFor(0, 1, "shape"));
  RankedTensorType st = n.type(1);
  if (!st || st.getRank() != 1 || st.isDynamicDim(0))
    return n.error("input #1 ('shape') must be 1-D");
  int64_t rank = (int64_t)shape.size();
  if (st.getDimSize(0) != rank)
    return n.error("the model declares output '" + n.node.output(0) +
                   "' with shape " + dimsString(shape) +
                   ", but input #1 "
                   "('shape') has " +
                   Twine(st.getDimSize(0)) + " entries");
  if (product(shape) != t.getNumElements())
    return n.error("cannot reshape " + Twine(t.getNumElements()) +
                   " elements to the declared shape " + dimsString(shape) +
                   " of output '" + n.node.output(0) + "'");
  TRY(s, n.in(1));
  SmallVector<bool> zeroKeeps;
  for (int64_t i = 0; i < rank; ++i)
    zeroKeeps.push_back(!allowZero && i < t.getRank() &&
                        t.getDimSize(i) == shape[i]);
  Type i64 = n.b.getI64Type();
  TRY(same, make<EqOp>(n, s, n.constant(shape)));
  TRY(minusOne, make<EqScalarOp>(n, s, n.scalarAttr(i64, -1)));
  TRY(zero, make<EqScalarOp>(n, s, n.scalarAttr(i64, 0)));
  TRY(zeroOk,
      make<LogicalAndOp>(n, zero, n.constant(boolTensor(n, zeroKeeps))));
  TRY(either, make<LogicalOrOp>(n, same, minusOne));
  TRY(entryOk, make<LogicalOrOp>(n, either, zeroOk));
  TRY(entriesOk, make<ReduceAllOp>(n, entryOk, ArrayRef<int64_t>{0}, false));
  TRY(minusOnes,
      make<ReduceSumOp>(n, n.cast(minusOne, i64), ArrayRef<int64_t>{0}, false));
  TRY(oneInfer, make<LeScalarOp>(n, minusOnes, n.scalarAttr(i64, 1)));
  TRY(ok, make<LogicalAndOp>(n, entriesOk, oneInfer));
  if (failed(n.checkAtRunTime(
          ok, "input '" + n.node.input(1) + "' must give the shape " +
                  dimsString(shape) + " " + n.declaredFor(0))))
    return failure();
  n.setOutput(0, n.reshape(x, shape));
  return success();
}

LogicalResult convertReshape(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  TRY(allowZero, n.attrInt("allowzero", 0));
  if (n.hasInput(1) && !n.constantInput(1))
    return reshapeToDeclared(n, x, allowZero);
  TRY(shapeV, n.constInts(1, "shape"));
  SmallVector<int64_t> shape;
  int64_t known = 1, infer = -1;
  for (auto [i, d] : llvm::enumerate(shapeV)) {
    if (d == 0 && !allowZero) {
      if ((int64_t)i >= t.getRank())
        return n.error("shape entry " + Twine(i) + " is 0 but the input has rank " +
                       Twine(t.getRank()));
      d = t.getDimSize(i);
    }
    if (d == -1) {
      if (infer >= 0)
        return n.error("shape has more than one -1");
      infer = i;
    } else if (d < 0) {
      return n.error("shape entry " + Twine(d) + " is invalid");
    } else if (__builtin_mul_overflow(known, d, &known)) {
      return n.error("the new shape " + dimsString(shapeV) +
                     " has more than 2^63 elements");
    }
    shape.push_back(d);
  }
  if (infer >= 0) {
    if (known == 0 || t.getNumElements() % known)
      return n.error("cannot infer the -1 dim of the new shape");
    shape[infer] = t.getNumElements() / known;
  }
  if (product(shape) != t.getNumElements())
    return n.error("cannot reshape " + Twine(t.getNumElements()) +
                   " elements to shape " + dimsString(shape) + " (" +
                   Twine(product(shape)) + " elements)");
  n.setOutput(0, n.reshape(x, shape));
  return success();
}

LogicalResult convertFlatten(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  TRY(axisAttr, n.attrInt("axis", 1));
  int64_t r = t.getRank();
  int64_t axis = axisAttr < 0 ? axisAttr + r : axisAttr;
  if (axis < 0 || axis > r)
    return n.error("axis " + Twine(axisAttr) + " is out of range");
  n.setOutput(0, n.reshape(x, {product(t.getShape().take_front(axis)),
                               product(t.getShape().drop_front(axis))}));
  return success();
}

FailureOr<SmallVector<int64_t>> axesOf(NodeContext &n, bool required) {
  if (n.opset >= 13) {
    if (n.hasInput(1))
      return n.constInts(1, "axes");
  } else {
    TRY(a, n.attrInts("axes"));
    if (a)
      return *a;
  }
  if (required)
    return n.error("needs axes");
  return SmallVector<int64_t>();
}

/// Squeeze or Unsqueeze by axes known only at run time. Which of the
/// input's dims of size 1 a Squeeze drops (the others cannot be dropped)
/// decides the result only where it has more of them than it drops; then,
/// as for every Unsqueeze, the result's every dim is known only at run
/// time (DataDependentDim::kEveryDim): its elements are the input's, in
/// order, laid out at the bound of each dim.
LogicalResult convertSqueezeRuntime(NodeContext &n, Value x, bool squeeze) {
  auto t = tensorType(x);
  int64_t r = t.getRank();
  ArrayRef<int64_t> in = t.getShape();
  if (failed(checkNoDataDim(n, "the axes are")))
    return failure();
  TRY(axes, runtimeAxes(n, 1));
  int64_t k = axes.size();
  SmallVector<int64_t> ones;
  for (int64_t d = 0; d < r; ++d)
    if (in[d] == 1)
      ones.push_back(d);
  if (squeeze && (int64_t)ones.size() == k) {
    TRY(y, make<SqueezeOp>(n, x, ones));
    n.setOutput(0, y);
    return success();
  }
  if (squeeze && (int64_t)ones.size() < k)
    return n.error("squeezes " + Twine(k) + " dims, but the input (" +
                   Twine(r) + "-d) has " + Twine(ones.size()) + " of size 1");
  if (squeeze) {
    // The dims the axes name, all of size 1, are dropped.
    SmallVector<Value> dropped;
    for (int64_t i = 0; i < r; ++i) {
      TRY(named, namesDim(n, axes, i, r));
      dropped.push_back(named);
    }
    TRY(result, dropDims(n, x, dropped, k));
    setEveryDimOutput(n, result.first, result.second);
    return success();
  }
  // Output dim o is a new dim of size 1 where the axes name it, else
  // input dim o - (the new dims up to o).
  Type i64 = n.b.getI64Type();
  int64_t outRank = r + k;
  SmallVector<Value> dims;
  SmallVector<int64_t> bound;
  Value upTo = n.constant(i64, 0);
  for (int64_t o = 0; o < outRank; ++o) {
    TRY(named, namesDim(n, axes, o, outRank));
    TRY(plus, make<AddOp>(n, upTo, n.cast(named, i64)));
    upTo = plus;
    TRY(source, make<SubOp>(n, n.constant(i64, (double)o), upTo));
    auto candidates = llvm::to_vector(llvm::seq<int64_t>(
        std::max<int64_t>(0, o - k), std::min(r - 1, o) + 1));
    int64_t most = 1;
    Value picked = n.constant(i64, 1);
    for (int64_t i : candidates) {
      most = std::max(most, in[i]);
      TRY(is, make<EqScalarOp>(n, source, n.scalarAttr(i64, (double)i)));
      TRY(sel, make<SelectOp>(n, is, n.constant(i64, (double)in[i]), picked));
      picked = sel;
    }
    TRY(one, make<SelectOp>(n, named, n.constant(i64, 1), picked));
    dims.push_back(one);
    bound.push_back(most);
  }
  TRY(y, layAtBound(n, x, dims, bound));
  setEveryDimOutput(n, y, dims);
  return success();
}

LogicalResult convertSqueeze(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  if (n.opset >= 13 && n.hasInput(1) && !n.constantInput(1))
    return convertSqueezeRuntime(n, x, /*squeeze=*/true);
  TRY(axes, axesOf(n, false));
  SmallVector<int64_t> dims;
  if (axes.empty()) {
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (t.getDimSize(d) == 1)
        dims.push_back(d);
  } else {
    TRY(norm, normAxes(n, axes, t.getRank()));
    for (int64_t d : norm)
      if (t.getDimSize(d) != 1)
        return n.error("cannot squeeze dim " + Twine(d) + " of size " +
                       Twine(t.getDimSize(d)));
    dims = norm;
  }
  TRY(r, make<SqueezeOp>(n, x, dims));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertUnsqueeze(NodeContext &n) {
  TRY(x, n.in(0));
  if (n.opset >= 13 && n.hasInput(1) && !n.constantInput(1))
    return convertSqueezeRuntime(n, x, /*squeeze=*/false);
  TRY(axes, axesOf(n, true));
  TRY(dims, normAxes(n, axes, tensorType(x).getRank() + axes.size()));
  TRY(r, make<UnsqueezeOp>(n, x, dims));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertTranspose(NodeContext &n) {
  TRY(x, n.in(0));
  int64_t r = tensorType(x).getRank();
  TRY(permAttr, n.attrInts("perm"));
  SmallVector<int64_t> perm;
  if (permAttr) {
    perm = *permAttr;
    SmallVector<int64_t> sorted = perm;
    llvm::sort(sorted);
    for (int64_t i = 0; i < (int64_t)sorted.size(); ++i)
      if (sorted[i] != i || (int64_t)sorted.size() != r)
        return n.error("perm is not a permutation of the input's dims");
  } else {
    for (int64_t i = r - 1; i >= 0; --i)
      perm.push_back(i);
  }
  TRY(y, make<TransposeOp>(n, x, perm));
  n.setOutput(0, y);
  return success();
}

/// The shape of an Expand whose shape input is known only at run time: the
/// shape the model declares for its output, which the input must broadcast
/// to, checked when the model runs (each entry gives the declared dim, or
/// 1 where the input's dim already does).
FailureOr<SmallVector<int64_t>> expandToDeclared(NodeContext &n,
                                                 RankedTensorType t) {
  TRY(out, n.declaredShapeFor(0, 1, "shape"));
  RankedTensorType st = n.type(1);
  int64_t r = st && st.getRank() == 1 ? st.getDimSize(0) : -1;
  int64_t rank = (int64_t)out.size();
  SmallVector<int64_t> check;
  if (r < 0 || rank != std::max(r, t.getRank()) ||
      failed(hodu::detail::broadcastShapes(t.getShape(), out, check)) ||
      ArrayRef<int64_t>(check) != ArrayRef<int64_t>(out))
    return n.error("the input (" + dimsString(t.getShape()) +
                   ") cannot expand by a shape of " + Twine(r) +
                   " entries to the declared shape " + dimsString(out) +
                   " of output '" + n.node.output(0) + "'");
  SmallVector<int64_t> want, alt;
  for (int64_t j = 0; j < r; ++j) {
    int64_t o = j + rank - r, xi = o - (rank - t.getRank());
    int64_t xd = xi >= 0 ? t.getDimSize(xi) : 1;
    want.push_back(out[o]);
    alt.push_back(xd != 1 ? 1 : out[o]);
  }
  if (failed(checkEntries(n, 1, want, alt,
                          "input '" + n.node.input(1) +
                              "' must expand the input to the shape " +
                              dimsString(out) + " " + n.declaredFor(0))))
    return failure();
  return out;
}

LogicalResult convertExpand(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  SmallVector<int64_t> out;
  if (n.hasInput(1) && !n.constantInput(1)) {
    TRY(declared, expandToDeclared(n, t));
    out = declared;
  } else {
    TRY(shape, n.constInts(1, "shape"));
    if (failed(hodu::detail::broadcastShapes(t.getShape(), shape, out)))
      return n.error("cannot expand the input to the given shape");
  }
  if (ArrayRef<int64_t>(out) == t.getShape()) {
    n.setOutput(0, x);
    return success();
  }
  n.setOutput(0, BroadcastOp::create(n.b, n.loc,
                                     RankedTensorType::get(out, t.getElementType()),
                                     x)
                     .getResult());
  return success();
}

/// The repeats of a Tile whose repeats are known only at run time: those
/// that give the shape the model declares for its output, checked when the
/// model runs.
FailureOr<SmallVector<int64_t>> tileToDeclared(NodeContext &n,
                                               RankedTensorType t) {
  TRY(out, n.declaredShapeFor(0, 1, "repeats"));
  SmallVector<int64_t> reps;
  bool fits = (int64_t)out.size() == t.getRank();
  for (int64_t i = 0; fits && i < t.getRank(); ++i) {
    int64_t d = t.getDimSize(i);
    fits = d ? out[i] % d == 0 : out[i] == 0;
    reps.push_back(d ? out[i] / d : 0);
  }
  if (!fits)
    return n.error("no repeats tile the input (" + dimsString(t.getShape()) +
                   ") to the declared shape " + dimsString(out) +
                   " of output '" + n.node.output(0) + "'");
  // Any repeat of an empty dim gives the declared 0.
  SmallVector<bool> anyEntry;
  for (int64_t d : t.getShape())
    anyEntry.push_back(d == 0);
  if (failed(checkEntries(n, 1, reps, reps,
                          "input '" + n.node.input(1) +
                              "' must tile the input to the shape " +
                              dimsString(out) + " " + n.declaredFor(0),
                          anyEntry)))
    return failure();
  return reps;
}

LogicalResult convertTile(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  SmallVector<int64_t> reps;
  if (n.hasInput(1) && !n.constantInput(1)) {
    TRY(declared, tileToDeclared(n, t));
    reps = declared;
  } else {
    TRY(constant, n.constInts(1, "repeats"));
    reps = constant;
  }
  if ((int64_t)reps.size() != t.getRank())
    return n.error("repeats must have one entry per dim");
  // [d0, d1] -> [1, d0, 1, d1] -> broadcast [r0, d0, r1, d1] -> reshape.
  SmallVector<int64_t> inter, bcast, out;
  for (auto [d, rep] : llvm::zip(t.getShape(), reps)) {
    if (rep < 0)
      return n.error("repeats must be non-negative");
    // d is at most kMaxDim (the model check); so must the tiled dim be.
    if (rep > 0 && d > kMaxDim / rep)
      return n.error("repeats of " + std::to_string(rep) + " on a dim of " +
                     std::to_string(d) + " make it larger than 2^40");
    inter.append({1, d});
    bcast.append({rep, d});
    out.push_back(rep * d);
  }
  Value r = n.reshape(x, inter);
  r = BroadcastOp::create(n.b, n.loc,
                          RankedTensorType::get(bcast, t.getElementType()), r)
          .getResult();
  n.setOutput(0, n.reshape(r, out));
  return success();
}

LogicalResult convertConcat(NodeContext &n) {
  SmallVector<Value> inputs;
  for (size_t i = 0; i < n.numInputs(); ++i) {
    TRY(x, n.in(i));
    inputs.push_back(x);
  }
  if (inputs.empty())
    return n.error("needs at least one input");
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, tensorType(inputs[0]).getRank()));
  TRY(r, make<ConcatOp>(n, ValueRange(inputs), axis));
  n.setOutput(0, r);
  return success();
}

} // namespace

FailureOr<SmallVector<std::pair<Value, Value>>>
hodu::onnx_import::splitAtRunTime(NodeContext &n, Value x, int64_t axis,
                                  Value sizes, int64_t parts) {
  Type i64 = n.b.getI64Type();
  int64_t dim = tensorType(x).getDimSize(axis);
  TRY(nonNegative,
      make<MaximumScalarOp>(n, n.cast(sizes, i64), n.scalarAttr(i64, 0)));
  TRY(offsets, exclusiveScan(n, nonNegative));
  SmallVector<std::pair<Value, Value>> result;
  Value where;
  if (dim > 0) {
    TRY(w, positions(n, dim));
    where = w;
  }
  for (int64_t i = 0; i < parts; ++i) {
    TRY(offset, takeAt(n, offsets, 0, i));
    TRY(size, takeAt(n, nonNegative, 0, i));
    // The entries left after the offset bound the part's size.
    TRY(left, make<SubOp>(n, n.constant(i64, (double)dim), offset));
    TRY(leftPos, make<MaximumScalarOp>(n, left, n.scalarAttr(i64, 0)));
    TRY(count, make<MinimumOp>(n, size, leftPos));
    if (dim == 0) {
      result.push_back({x, count});
      continue;
    }
    // Padding rows repeat the last entry of the dim.
    TRY(from, make<AddOp>(n, where, offset));
    TRY(index,
        make<MinimumScalarOp>(n, from, n.scalarAttr(i64, (double)(dim - 1))));
    TRY(part, make<IndexSelectOp>(n, x, index, axis));
    result.push_back({part, count});
  }
  return result;
}

namespace {

/// Split whose sizes are known only at run time (splitAtRunTime).
LogicalResult convertSplitRuntimeSizes(NodeContext &n, Value x, int64_t axis) {
  if (failed(checkNoDataDim(n, "the split sizes are")))
    return failure();
  int64_t parts = n.numOutputs();
  RankedTensorType st = n.type(1);
  if (!st || st.getRank() != 1 || st.getDimSize(0) != parts)
    return n.error("split must be a 1-D tensor of " + Twine(parts) +
                   " sizes, one per output");
  TRY(raw, n.in(1));
  TRY(split, splitAtRunTime(n, x, axis, raw, parts));
  for (auto [i, part] : llvm::enumerate(split)) {
    n.setOutput(i, part.first);
    n.setDataDim(i, axis, part.second);
  }
  return success();
}

LogicalResult convertSplit(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, t.getRank()));
  SmallVector<int64_t> sizes;
  if (n.opset >= 13) {
    if (n.hasInput(1) && !n.constantInput(1))
      return convertSplitRuntimeSizes(n, x, axis);
    if (n.hasInput(1)) {
      TRY(s, n.constInts(1, "split"));
      sizes = s;
    }
  } else {
    TRY(s, n.attrInts("split"));
    if (s)
      sizes = *s;
  }
  int64_t dim = t.getDimSize(axis);
  if (sizes.empty()) {
    int64_t parts = n.numOutputs();
    TRY(numOut, n.attrInt("num_outputs", parts));
    if (numOut != parts)
      return n.error("num_outputs is " + Twine(numOut) + " but the node has " +
                     Twine(parts) + " outputs");
    if (parts <= 0)
      return n.error("needs at least one output");
    int64_t chunk = dim / parts + (dim % parts != 0);
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  if ((int64_t)sizes.size() != (int64_t)n.numOutputs())
    return n.error("split has " + Twine(sizes.size()) + " sizes for " +
                   Twine(n.numOutputs()) + " outputs");
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return n.error("negative split size");
    if (s > dim)
      return n.error("split size " + Twine(s) + " is larger than the dim, " +
                     Twine(dim));
    sum += s;
  }
  if (sum != dim)
    return n.error("split sizes add up to " + Twine(sum) + ", not " + Twine(dim));
  TRY(op, makeOp<SplitOp>(n, x, axis, sizes));
  for (size_t i = 0; i < op->getNumResults(); ++i)
    n.setOutput(i, op->getResult(i));
  return success();
}

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

/// Input #`in` of `n` (1-D float, one entry per axis of `axes`, once per
/// entry of `fill`: a roi's starts, then its ends) as f32 with one entry
/// per dim of rank `r`, once per entry of `fill`; the dims not in `axes`
/// take `fill[g]`.
static FailureOr<Value> perDim(NodeContext &n, size_t in,
                               ArrayRef<int64_t> axes, int64_t r,
                               ArrayRef<float> fill, StringRef what) {
  auto k = (int64_t)axes.size(), groups = (int64_t)fill.size();
  RankedTensorType t = n.type(in);
  if (!t || t.getRank() != 1 || t.getDimSize(0) != groups * k ||
      !isa<FloatType>(t.getElementType()))
    return n.error("input #" + Twine(in) + " ('" + what +
                   "') must be 1-D float with " + Twine(groups * k) +
                   " entries (" + (groups == 1 ? "one" : "two") + " per axis)");
  TRY(v, n.in(in));
  Type f32 = n.b.getF32Type();
  v = n.cast(v, f32);
  if (llvm::equal(axes, llvm::seq<int64_t>(0, r)))
    return v;
  Value rest = n.constant(
      DenseElementsAttr::get(RankedTensorType::get({groups}, f32), fill));
  TRY(cat, make<ConcatOp>(n, ValueRange{v, rest}, int64_t(0)));
  SmallVector<int64_t> idx;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t d = 0; d < r; ++d) {
      const int64_t *pos = llvm::find(axes, d);
      idx.push_back(pos != axes.end() ? g * k + (pos - axes.begin())
                                      : groups * k + g);
    }
  return make<IndexSelectOp>(n, cat, n.constant(idx), int64_t(0));
}

/// The scales of a Resize (Upsample) whose scales input #`in` is known only
/// at run time, as the op's scales operand (f32, one per dim); `sizes`
/// becomes the shape the model declares for its output, checked when the
/// model runs: floor(input size * scale) (in f64) is the declared size of
/// every axis.
static FailureOr<Value> runtimeScales(NodeContext &n, RankedTensorType t,
                                      size_t in, ArrayRef<int64_t> axes,
                                      SmallVector<int64_t> &sizes) {
  TRY(declared, n.declaredShapeFor(0, in, "scales"));
  int64_t r = t.getRank();
  if ((int64_t)declared.size() != r)
    return n.error("the model declares output '" + n.node.output(0) +
                   "' with shape " + dimsString(declared) +
                   " for an input of rank " + Twine(r));
  for (int64_t d = 0; d < r; ++d)
    if (!llvm::is_contained(axes, d) && declared[d] != t.getDimSize(d))
      return n.error("the model declares output '" + n.node.output(0) +
                     "' with shape " + dimsString(declared) +
                     ", but Resize keeps the size of axis " + Twine(d));
  TRY(scales, perDim(n, in, axes, r, {1.0f}, "scales"));
  Type f64 = n.b.getF64Type();
  auto vec = RankedTensorType::get({r}, f64);
  SmallVector<double> inDims(t.getShape()),
      outDims(declared.begin(), declared.end());
  TRY(wide, make<MulOp>(n, n.cast(scales, f64),
                        n.constant(DenseElementsAttr::get(
                            vec, ArrayRef<double>(inDims)))));
  TRY(fl, make<FloorOp>(n, wide));
  TRY(ok, make<EqOp>(n, fl,
                     n.constant(DenseElementsAttr::get(
                         vec, ArrayRef<double>(outDims)))));
  if (failed(n.checkAtRunTime(ok, "input '" + n.node.input((int)in) +
                                      "' must hold scales that give the "
                                      "shape " +
                                      dimsString(declared) + " " +
                                      n.declaredFor(0) +
                                      " (floor(input size * scale))")))
    return failure();
  sizes.assign(declared.begin(), declared.end());
  return scales;
}

LogicalResult convertResize(NodeContext &n) {
  StringRef op = n.node.op_type();
  TRY(x, n.in(0));
  auto t = tensorType(x);
  int64_t r = t.getRank();
  TRY(modeStr, n.attrString("mode", "nearest"));
  std::string coordStr = "half_pixel", nearestStr = "round_prefer_floor";
  SmallVector<double> scales;
  SmallVector<int64_t> sizes;
  Value scaleValues, roi; // the op's operands, when known only at run time
  float extrapolation = 0.0f;
  if (op == "Upsample" || n.opset < 11) {
    coordStr = "asymmetric";
    nearestStr = "floor";
    if (op == "Upsample" && n.opset < 9) {
      TRY(s, n.attrFloats("scales"));
      if (!s)
        return n.error("needs the scales attribute");
      scales.assign(s->begin(), s->end());
    } else if (n.hasInput(1) && !n.constantInput(1)) {
      auto all = llvm::to_vector(llvm::seq<int64_t>(0, r));
      TRY(s, runtimeScales(n, t, 1, all, sizes));
      scaleValues = s;
    } else {
      TRY(s, n.constFloats(1, "scales"));
      scales = s;
    }
  } else {
    TRY(c, n.attrString("coordinate_transformation_mode", "half_pixel"));
    TRY(nm, n.attrString("nearest_mode", "round_prefer_floor"));
    coordStr = c;
    nearestStr = nm;
    TRY(antialias, n.attrInt("antialias", 0));
    if (antialias)
      return n.error("antialias is not supported");
    TRY(policy, n.attrString("keep_aspect_ratio_policy", "stretch"));
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      return n.error("unknown keep_aspect_ratio_policy '" + policy + "'");
    // Opset 18's `axes`: scales or sizes for these dims only.
    TRY(axesAttr, n.attrInts("axes"));
    SmallVector<int64_t> axes;
    if (axesAttr) {
      for (int64_t a : *axesAttr) {
        TRY(ax, normAxis(n, a, r, "axis"));
        if (llvm::is_contained(axes, ax))
          return n.error("axis " + Twine(a) + " appears more than once");
        axes.push_back(ax);
      }
    } else {
      for (int64_t i = 0; i < r; ++i)
        axes.push_back(i);
    }
    bool crop = coordStr == "tf_crop_and_resize";
    if (crop) {
      TRY(e, n.attrFloat("extrapolation_value", 0.0f));
      extrapolation = e;
      if (n.hasInput(1)) {
        TRY(v, perDim(n, 1, axes, r, {0.0f, 1.0f}, "roi"));
        roi = v;
      }
    }
    // Given scales, tf_crop_and_resize's size is the region's times the
    // scale.
    if (crop && !n.hasInput(3) && n.hasInput(2) && n.hasInput(1) &&
        !(n.constantInput(1) && n.constantInput(2)))
      return n.error("tf_crop_and_resize given scales needs the roi and the "
                     "scales known at import time (or sizes)");
    SmallVector<int64_t> given;
    SmallVector<double> givenScales;
    if (n.hasInput(3) && !n.constantInput(3) && policy == "stretch") {
      // Sizes known only at run time: the declared output's, checked then.
      TRY(declared, n.declaredShapeFor(0, 3, "sizes"));
      if ((int64_t)declared.size() != r)
        return n.error("the model declares output '" + n.node.output(0) +
                       "' with shape " + dimsString(declared) +
                       " for an input of rank " + Twine(r));
      for (int64_t ax : axes)
        given.push_back(declared[ax]);
      if (failed(checkEntries(n, 3, given, given,
                              "input '" + n.node.input(3) +
                                  "' must give the sizes of the shape " +
                                  dimsString(declared) + " " +
                                  n.declaredFor(0))))
        return failure();
    } else if (n.hasInput(3)) {
      TRY(s, n.constInts(3, "sizes"));
      given = s;
    } else if (n.hasInput(2) && !n.constantInput(2)) {
      TRY(s, runtimeScales(n, t, 2, axes, sizes));
      scaleValues = s;
    } else if (n.hasInput(2)) {
      TRY(s, n.constFloats(2, "scales"));
      givenScales = s;
    }
    if (given.empty() && givenScales.empty() && !scaleValues)
      return n.error("needs scales or sizes");
    size_t count = given.empty() ? givenScales.size() : given.size();
    if (!scaleValues && count != axes.size())
      return n.error(Twine(given.empty() ? "scales" : "sizes") + " has " +
                     Twine(count) + " entries for " + Twine(axes.size()) +
                     " axes");
    scales.assign(r, 1.0);
    if (scaleValues) {
      scales.clear(); // the operand's
    } else if (!given.empty()) {
      for (int64_t v : given)
        if (v < 1 || v > kMaxDim)
          return n.error("sizes must be between 1 and 2^40, got " + Twine(v));
      sizes.assign(t.getShape().begin(), t.getShape().end());
      if (policy == "stretch") {
        for (auto [k, ax] : llvm::enumerate(axes))
          sizes[ax] = given[k];
        scales.clear(); // output / input
      } else {
        // One scale for all the axes, the largest (not_larger: smallest)
        // that keeps the image within (around) the sizes asked for.
        double scale = policy == "not_larger" ? INFINITY : 0.0;
        for (auto [k, ax] : llvm::enumerate(axes)) {
          double s = double(given[k]) / double(t.getDimSize(ax));
          scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
        }
        for (int64_t ax : axes) {
          // A zero-sized input dim makes the scale infinite and this NaN.
          double size = std::floor(double(t.getDimSize(ax)) * scale + 0.5);
          if (!(size >= 0 && size <= double(kMaxDim)))
            return n.error("keep_aspect_ratio_policy '" + policy +
                           "' gives no size between 0 and 2^40 for axis " +
                           Twine(ax));
          sizes[ax] = (int64_t)size;
          scales[ax] = scale;
        }
      }
    } else {
      for (auto [k, ax] : llvm::enumerate(axes))
        scales[ax] = givenScales[k];
      if (crop && roi) {
        // ONNX: floor(input * (roi end - roi start) * scale).
        TRY(region, n.constFloats(1, "roi"));
        sizes.assign(t.getShape().begin(), t.getShape().end());
        for (auto [k, ax] : llvm::enumerate(axes)) {
          double size = std::floor(double(t.getDimSize(ax)) *
                                   (region[axes.size() + k] - region[k]) *
                                   givenScales[k]);
          if (!(size >= 0 && size <= double(kMaxDim)))
            return n.error("roi and scales give no size between 0 and 2^40 "
                           "for axis " +
                           Twine(ax));
          sizes[ax] = (int64_t)size;
        }
        scales.clear(); // tf_crop_and_resize maps by the sizes
      }
    }
  }
  if (sizes.empty()) {
    if ((int64_t)scales.size() != r)
      return n.error("scales must have one entry per dim");
    for (int64_t i = 0; i < r; ++i) {
      if (!(scales[i] > 0) || !std::isfinite(scales[i]) ||
          double(t.getDimSize(i)) * scales[i] > double(kMaxDim))
        return n.error("scales must be positive and keep dims under 2^40");
      sizes.push_back((int64_t)std::floor(t.getDimSize(i) * scales[i]));
    }
  }
  if ((int64_t)sizes.size() != r)
    return n.error("sizes must have one entry per dim");
  std::optional<ResizeMode> mode = modeStr == "nearest" ? ResizeMode::nearest
                                   : modeStr == "linear" || modeStr == "bilinear"
                                       ? ResizeMode::linear
                                   : modeStr == "cubic" ? ResizeMode::cubic
                                                        : std::optional<ResizeMode>();
  if (!mode)
    return n.error("unknown mode '" + modeStr + "'");
  std::optional<CoordTransform> coord = symbolizeCoordTransform(coordStr);
  if (!coord)
    return n.error("unknown coordinate_transformation_mode '" + coordStr + "'");
  std::optional<NearestMode> nearest = symbolizeNearestMode(nearestStr);
  if (!nearest)
    return n.error("unknown nearest_mode '" + nearestStr + "'");
  TRY(cubicA, n.attrFloat("cubic_coeff_a", -0.75f));
  TRY(exclude, n.attrInt("exclude_outside", 0));
  MLIRContext *ctx = n.b.getContext();
  // Nearest at the same size and scale 1 (the default region) reads each
  // element where it is.
  if (ArrayRef<int64_t>(sizes) == t.getShape() &&
      *mode == ResizeMode::nearest && !scaleValues && !roi &&
      llvm::all_of(scales, [](double s) { return s == 1.0; })) {
    n.setOutput(0, x);
    return success();
  }
  // The scales the coordinate transforms divide by: the ones the model
  // gives (they differ from output / input when input * scale is not whole).
  DenseF64ArrayAttr scalesAttr;
  if (!scales.empty())
    scalesAttr = n.b.getDenseF64ArrayAttr(scales);
  n.setOutput(
      0, ResizeOp::create(
             n.b, n.loc, RankedTensorType::get(sizes, t.getElementType()), x,
             scaleValues, roi, ResizeModeAttr::get(ctx, *mode),
             CoordTransformAttr::get(ctx, *coord),
             NearestModeAttr::get(ctx, *nearest), n.b.getF32FloatAttr(cubicA),
             exclude ? n.b.getUnitAttr() : UnitAttr(), scalesAttr,
             n.b.getF32FloatAttr(extrapolation))
             .getResult());
  return success();
}

LogicalResult convertDepthSpace(NodeContext &n) {
  TRY(x, n.in(0));
  auto t = tensorType(x);
  if (t.getRank() != 4)
    return n.error("expects a 4-D input");
  TRY(bs, n.attrInt("blocksize", 0));
  if (bs <= 0)
    return n.error("blocksize must be positive");
  int64_t N = t.getDimSize(0), C = t.getDimSize(1), H = t.getDimSize(2),
          W = t.getDimSize(3);
  Value y;
  // Every dim is at most 2^40 (the model check), so is a sane blocksize;
  // bs * bs and the products below then stay far from overflowing.
  if (bs > kMaxDim)
    return n.error("blocksize must be at most 2^40");
  if (n.node.op_type() == "DepthToSpace") {
    if (bs > C / bs || C % (bs * bs))
      return n.error("channels are not divisible by blocksize^2");
    TRY(mode, n.attrString("mode", "DCR"));
    int64_t c = C / (bs * bs);
    SmallVector<int64_t> shape, perm;
    if (mode == "DCR") {
      shape = {N, bs, bs, c, H, W};
      perm = {0, 3, 4, 1, 5, 2};
    } else if (mode == "CRD") {
      shape = {N, c, bs, bs, H, W};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      return n.error("unknown mode '" + mode + "'");
    }
    TRY(tr, make<TransposeOp>(n, n.reshape(x, shape), perm));
    y = n.reshape(tr, {N, c, H * bs, W * bs});
  } else {
    if (H % bs || W % bs)
      return n.error("spatial dims are not divisible by blocksize");
    if (product({C, bs, bs}) > kMaxDim)
      return n.error("channels times blocksize^2 exceed 2^40");
    TRY(tr, make<TransposeOp>(n, n.reshape(x, {N, C, H / bs, bs, W / bs, bs}),
                              ArrayRef<int64_t>{0, 3, 5, 1, 2, 4}));
    y = n.reshape(tr, {N, C * bs * bs, H / bs, W / bs});
  }
  n.setOutput(0, y);
  return success();
}

} // namespace

void hodu::onnx_import::registerShapeOps(ConverterTable &table) {
  table.insert({
      {"Reshape", convertReshape},
      {"Flatten", convertFlatten},
      {"Squeeze", convertSqueeze},
      {"Unsqueeze", convertUnsqueeze},
      {"Transpose", convertTranspose},
      {"Expand", convertExpand},
      {"Tile", convertTile},
      {"Concat", convertConcat},
      {"Split", convertSplit},
      {"Slice", convertSlice},
      {"Pad", convertPad},
      {"Resize", convertResize},
      {"Upsample", convertResize},
      {"DepthToSpace", convertDepthSpace},
      {"SpaceToDepth", convertDepthSpace},
  });
}
