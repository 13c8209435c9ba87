//===- OnnxReductionOps.cpp - reductions, scans, sorting ------------------===//
//
// ReduceX, ArgMax/ArgMin, CumSum and TopK.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

/// One dim of a reduction whose axes are known only at run time: `op`'s
/// reduction of `y` over dim `d` (kept), or its inner step.
FailureOr<Value> reduceOneDim(NodeContext &n, StringRef op, Value y,
                              int64_t d) {
  SmallVector<int64_t, 1> dims{d};
  if (op == "ReduceMean")
    return make<ReduceMeanOp>(n, y, dims, true);
  if (op == "ReduceMax")
    return make<ReduceMaxOp>(n, y, dims, true);
  if (op == "ReduceMin")
    return make<ReduceMinOp>(n, y, dims, true);
  if (op == "ReduceProd")
    return make<ReduceProdOp>(n, y, dims, true);
  if (op == "ReduceLogSumExp")
    return make<ReduceLogSumExpOp>(n, y, dims, true);
  // Sum, and the sums inside L1, L2, SumSquare and LogSum.
  return make<ReduceSumOp>(n, y, dims, true);
}

/// A reduction whose axes are a run-time input: each dim the axes may name
/// is reduced in turn, its result broadcast back and selected where the
/// axes name the dim (L1, L2, SumSquare and LogSum as a sum between their
/// elementwise steps), so the result has the input's shape with each
/// reduced dim's value at its entry 0. With keepdims its dims are the
/// input's, 1 where reduced; without, the reduced dims are dropped at run
/// time (dropDims). Either way every dim is known only at run time.
LogicalResult convertReduceRuntime(NodeContext &n, Value x, bool keep) {
  StringRef op = n.node.op_type();
  auto t = tensorType(x);
  int64_t r = t.getRank();
  if (failed(checkNoDataDim(n, "the axes are")))
    return failure();
  TRY(axes, runtimeAxes(n, 1));
  Value y = x;
  if (op == "ReduceL1") {
    TRY(a, make<AbsOp>(n, y));
    y = a;
  } else if (op == "ReduceL2" || op == "ReduceSumSquare") {
    TRY(sq, make<SquareOp>(n, y));
    y = sq;
  }
  Type i64 = n.b.getI64Type();
  SmallVector<Value> reduced, dims;
  for (int64_t d = 0; d < r; ++d) {
    TRY(named, namesDim(n, axes, d, r));
    reduced.push_back(named);
    TRY(dim, make<SelectOp>(n, named, n.constant(i64, 1),
                            n.constant(i64, (double)t.getDimSize(d))));
    dims.push_back(dim);
    TRY(one, reduceOneDim(n, op, y, d));
    TRY(sel, make<SelectOp>(n, named, broadcastTo(n, one, t.getShape()), y));
    y = sel;
  }
  if (op == "ReduceL2") {
    TRY(root, make<SqrtOp>(n, y));
    y = root;
  } else if (op == "ReduceLogSum") {
    TRY(log, make<LnOp>(n, y));
    y = log;
  }
  if (keep) {
    setEveryDimOutput(n, y, dims);
    return success();
  }
  TRY(result, dropDims(n, y, reduced, (int64_t)axes.size()));
  setEveryDimOutput(n, result.first, result.second);
  return success();
}

LogicalResult convertReduce(NodeContext &n) {
  StringRef op = n.node.op_type();
  TRY(x, n.in(0));
  int64_t rank = tensorType(x).getRank();
  TRY(keep, n.attrInt("keepdims", 1));
  TRY(noop, n.attrInt("noop_with_empty_axes", 0));
  bool axesAsInput = op == "ReduceSum" ? n.opset >= 13 : n.opset >= 18;
  SmallVector<int64_t> axes;
  if (axesAsInput && n.hasInput(1) && !n.constantInput(1) && rank > 0)
    return convertReduceRuntime(n, x, keep != 0);
  if (axesAsInput) {
    if (n.hasInput(1)) {
      TRY(a, n.constInts(1, "axes"));
      axes = a;
    }
  } else {
    TRY(a, n.attrInts("axes"));
    if (a)
      axes = *a;
  }
  if (axes.empty()) {
    if (noop) {
      n.setOutput(0, x);
      return success();
    }
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  TRY(dims, normAxes(n, axes, rank));
  bool k = keep != 0;
  FailureOr<Value> r = failure();
  if (op == "ReduceSum")
    r = make<ReduceSumOp>(n, x, dims, k);
  else if (op == "ReduceMean")
    r = make<ReduceMeanOp>(n, x, dims, k);
  else if (op == "ReduceMax")
    r = make<ReduceMaxOp>(n, x, dims, k);
  else if (op == "ReduceMin")
    r = make<ReduceMinOp>(n, x, dims, k);
  else if (op == "ReduceProd")
    r = make<ReduceProdOp>(n, x, dims, k);
  else if (op == "ReduceL2")
    r = make<ReduceNormOp>(n, x, dims, k);
  else if (op == "ReduceLogSum")
    r = make<ReduceLogSumOp>(n, x, dims, k);
  else if (op == "ReduceLogSumExp")
    r = make<ReduceLogSumExpOp>(n, x, dims, k);
  else if (op == "ReduceL1") {
    TRY(a, make<AbsOp>(n, x));
    r = make<ReduceSumOp>(n, a, dims, k);
  } else if (op == "ReduceSumSquare") {
    TRY(a, make<SquareOp>(n, x));
    r = make<ReduceSumOp>(n, a, dims, k);
  }
  if (failed(r))
    return failure();
  n.setOutput(0, *r);
  return success();
}

LogicalResult convertArg(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(keep, n.attrInt("keepdims", 1));
  TRY(last, n.attrInt("select_last_index", 0));
  TRY(axis, normAxis(n, axisAttr, tensorType(x).getRank()));
  bool lastAttr = last != 0;
  FailureOr<Value> r =
      n.node.op_type() == "ArgMax"
          ? make<ArgMaxOp>(n, x, ArrayRef<int64_t>{axis}, keep != 0, lastAttr)
          : make<ArgMinOp>(n, x, ArrayRef<int64_t>{axis}, keep != 0, lastAttr);
  if (failed(r))
    return failure();
  n.setOutput(0, *r);
  return success();
}

LogicalResult convertCumSum(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(excl, n.attrInt("exclusive", 0));
  TRY(rev, n.attrInt("reverse", 0));
  int64_t rank = tensorType(x).getRank();
  if (n.hasInput(1) && !n.constantInput(1) && rank > 0) {
    // The axis is known only at run time: the sum along each axis that it
    // can name, the one it names selected (an axis out of range leaves the
    // input as it is). The result's shape does not depend on it.
    Type i64 = n.b.getI64Type();
    TRY(axis, scalarInput(n, 1, i64, "axis"));
    Value acc = x;
    for (int64_t d = 0; d < rank; ++d) {
      TRY(sum, make<CumSumOp>(n, x, d, excl != 0, rev != 0));
      // Axis d is named as d or as d - rank.
      TRY(isPos, make<EqScalarOp>(n, axis, n.scalarAttr(i64, (double)d)));
      TRY(isNeg, make<EqScalarOp>(n, axis, n.scalarAttr(i64, (double)(d - rank))));
      TRY(is, make<LogicalOrOp>(n, isPos, isNeg));
      TRY(sel, make<SelectOp>(n, is, sum, acc));
      acc = sel;
    }
    n.setOutput(0, acc);
    return success();
  }
  TRY(axisV, constScalar(n, 1, "axis"));
  TRY(axis, normAxis(n, axisV, rank));
  TRY(r, make<CumSumOp>(n, x, axis, excl != 0, rev != 0));
  n.setOutput(0, r);
  return success();
}

/// TopK whose k is known only at run time: the outputs are computed at
/// their bound, every entry along the axis sorted, and the first k of them
/// are the value (DataDependentDim; k is clamped to [0, size], where ONNX
/// leaves a k outside it undefined).
LogicalResult convertTopKRuntimeK(NodeContext &n, Value x, int64_t axis,
                                  bool largest) {
  if (failed(checkNoDataDim(n, "k is")))
    return failure();
  Type i64 = n.b.getI64Type();
  int64_t size = tensorType(x).getDimSize(axis);
  TRY(k, scalarInput(n, 1, i64, "k"));
  TRY(atLeast0, make<MaximumScalarOp>(n, k, n.scalarAttr(i64, 0)));
  TRY(count,
      make<MinimumScalarOp>(n, atLeast0, n.scalarAttr(i64, (double)size)));
  // Sorted, so that the first k entries are the k largest (smallest).
  TRY(op, makeOp<TopKOp>(n, x, size, axis, largest, true));
  for (unsigned i = 0; i < 2; ++i) {
    n.setOutput(i, op->getResult(i));
    n.setDataDim(i, axis, count);
  }
  return success();
}

LogicalResult convertTopK(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(axisAttr, n.attrInt("axis", -1));
  TRY(largest, n.attrInt("largest", 1));
  TRY(sorted, n.attrInt("sorted", 1));
  auto t = tensorType(x);
  TRY(axis, normAxis(n, axisAttr, t.getRank()));
  int64_t k;
  if (n.opset >= 10) {
    if (n.hasInput(1) && !n.constantInput(1))
      return convertTopKRuntimeK(n, x, axis, largest != 0);
    TRY(kv, constScalar(n, 1, "k"));
    k = kv;
  } else {
    TRY(ka, n.attrInt("k", -1));
    k = ka;
  }
  if (k < 0 || k > t.getDimSize(axis))
    return n.error("k = " + Twine(k) + " is out of range for dim " +
                   Twine(axis) + " of size " + Twine(t.getDimSize(axis)));
  TRY(op, makeOp<TopKOp>(n, x, k, axis, largest != 0, sorted != 0));
  n.setOutput(0, op->getResult(0));
  n.setOutput(1, op->getResult(1));
  return success();
}

} // namespace

void hodu::onnx_import::registerReductionOps(ConverterTable &table) {
  table.insert({
      {"ReduceSum", convertReduce},
      {"ReduceMean", convertReduce},
      {"ReduceMax", convertReduce},
      {"ReduceMin", convertReduce},
      {"ReduceProd", convertReduce},
      {"ReduceL1", convertReduce},
      {"ReduceL2", convertReduce},
      {"ReduceLogSum", convertReduce},
      {"ReduceLogSumExp", convertReduce},
      {"ReduceSumSquare", convertReduce},
      {"ArgMax", convertArg},
      {"ArgMin", convertArg},
      {"CumSum", convertCumSum},
      {"TopK", convertTopK},
  });
}
