//===- OnnxShapeOps.cpp - shape and layout ONNX ops -----------------------===//
//
// Reshapes (Reshape, Flatten, Squeeze, Unsqueeze), transposes, broadcasts
// (Expand, Tile), concatenation, splitting, DepthToSpace and SpaceToDepth.
// Shapes, axes and sizes are read as import-time constants, or, known only
// at run time, checked against the shape the model declares. Slicing and
// padding are in OnnxSliceOps.cpp, resizing in OnnxResizeOps.cpp.
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
      {"DepthToSpace", convertDepthSpace},
      {"SpaceToDepth", convertDepthSpace},
  });
}
