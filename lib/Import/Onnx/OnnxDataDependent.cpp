//===- OnnxDataDependent.cpp - sizes that depend on the data --------------===//
//
// NonZero and Compress on data known only at run time have outputs whose
// size depends on that data. Hodu compiles static shapes, so such an output
// is computed at its bound (NonZero of N elements has at most N nonzeros)
// with a run-time count of the entries that are its value along one dim
// (DataDependentDim); the rest is padding (zeros, or rows gathered from
// index 0).
//
// The padding is harmless only through ops that keep that dim's entries
// apart: an elementwise op computes each entry from the same entry of its
// inputs, a Gather by padded indices gathers padded rows, a MatMul's row
// depends on the same row of its left side. Those ops carry the dim to
// their outputs; an op that would mix the padding into the valid entries
// (a reduction over the dim, a Reshape that merges it with another dim, a
// Shape that would read the bound as the size) is refused with an error
// that names both nodes. At a graph output the count becomes the
// companion output `<name>#dims` (HODU_OUTPUT_DIMS_SUFFIX in abi.h), from
// which the runtime cuts the value out of the bound.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

using DimPtr = std::shared_ptr<const DataDependentDim>;

} // namespace

bool hodu::onnx_import::isElementwiseOp(StringRef op) {
  static const llvm::StringSet<> ops = {
      "Abs", "Acos", "Acosh", "Add", "And", "Asin", "Asinh", "Atan", "Atanh",
      "BitShift", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor",
      "Cast", "CastLike", "Ceil", "Celu", "Clip", "Cos", "Cosh", "Div",
      "Dropout", "Elu", "Equal", "Erf", "Exp", "Floor", "Gelu", "Greater",
      "GreaterOrEqual", "HardSigmoid", "HardSwish", "Identity", "IsInf",
      "IsNaN", "LeakyRelu", "Less", "LessOrEqual", "Log", "Max", "Mean",
      "Min", "Mish", "Mod", "Mul", "Neg", "Not", "Or", "Pow", "PRelu",
      "Reciprocal", "Relu", "Round", "Selu", "Shrink", "Sigmoid", "Sign",
      "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Sub", "Sum", "Tan",
      "Tanh", "ThresholdedRelu", "Where", "Xor", "DequantizeLinear",
      "QuantizeLinear"};
  return ops.contains(op);
}

namespace {

bool isReduction(StringRef op) {
  return op.starts_with("Reduce") || op == "ArgMax" || op == "ArgMin";
}

/// The node inputs that may carry a data-dependent dim into `op` (others,
/// such as shapes and axes, may not).
bool inputMayCarry(StringRef op, size_t i) {
  if (isElementwiseOp(op) || op == "Concat")
    return true;
  if (op == "Gather" || op == "MatMul")
    return i <= 1;
  if (op == "GatherND")
    return i == 1;
  if (op == "Gemm")
    return i <= 1;
  return i == 0 &&
         (op == "Transpose" || op == "Reshape" || op == "Flatten" ||
          op == "Squeeze" || op == "Unsqueeze" || op == "Slice" ||
          op == "Split" ||
          op == "Softmax" || op == "LogSoftmax" || op == "Hardmax" ||
          op == "TopK" || isReduction(op));
}

/// The refusal of an op that would mix a data-dependent dim's padding into
/// its result.
LogicalResult refuse(NodeContext &n, size_t input, const DataDependentDim &d,
                     const Twine &why) {
  return n.error("input #" + Twine(input) + " ('" + n.node.input((int)input) +
                 "'): " + d.describe() + ", and " + why +
                 "; Hodu carries such a size, computed at its bound, only "
                 "through ops that keep its entries apart (elementwise ops, "
                 "Gather, GatherND's indices, Transpose, reshapes that keep "
                 "the dim, Slice, Split "
                 "along other axes, Concat, MatMul rows, reductions, "
                 "Softmax and TopK over other axes) to a model output");
}

/// The axis, in the output of `rank` dims, of input dim `axis` under the
/// reshape from `in` to `out`, when it stays a dim of its own with the same
/// elements before and after it (so each of its entries stays a block of
/// its own); nullopt when the reshape merges or splits it.
std::optional<int64_t> reshapedAxis(ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                                    int64_t axis) {
  int64_t before = product(in.take_front(axis));
  int64_t prefix = 1;
  for (int64_t b = 0, e = (int64_t)out.size(); b < e; ++b) {
    if (prefix == before && out[b] == in[axis])
      return b;
    prefix = product(out.take_front(b + 1));
    if (prefix > before)
      break;
  }
  return std::nullopt;
}

/// The axes a reduction node reduces (sorted, non-negative), from its
/// `axes` attribute or input; every axis when there are none.
FailureOr<SmallVector<int64_t>> reducedAxes(NodeContext &n, int64_t rank) {
  StringRef op = n.node.op_type();
  if (op == "ArgMax" || op == "ArgMin") {
    TRY(a, n.attrInt("axis", 0));
    TRY(axis, normAxis(n, a, rank));
    return SmallVector<int64_t>{axis};
  }
  SmallVector<int64_t> axes;
  TRY(attr, n.attrInts("axes"));
  if (attr)
    axes = *attr;
  else if (n.hasInput(1)) {
    TRY(v, n.constInts(1, "axes"));
    axes = v;
  }
  if (axes.empty()) {
    TRY(noop, n.attrInt("noop_with_empty_axes", 0));
    if (!noop)
      for (int64_t i = 0; i < rank; ++i)
        axes.push_back(i);
    return axes;
  }
  return normAxes(n, axes, rank);
}

/// Concat along a data-dependent dim: the converted Concat laid the inputs'
/// bounds end to end, each input's valid entries followed by its padding.
/// The valid entries are moved together with one gather along the axis:
/// output entry i, in the k-th input's run [off_k, off_k + count_k) (off_k
/// the running sum of the counts before it), reads entry start_k + i - off_k
/// of the Concat (start_k the sum of the bounds before it); entries past
/// the total count read entry 0 (padding, as NonZero's). The output's count
/// is the sum of the counts; an input with no data-dependent dim counts its
/// whole size.
LogicalResult concatAlongDataDim(NodeContext &n, ArrayRef<DimPtr> inputs,
                                 int64_t axis) {
  Type i64 = n.b.getI64Type();
  std::string origin;
  for (auto [i, d] : llvm::enumerate(inputs)) {
    if (!d)
      continue;
    if (d->axis != axis)
      return refuse(n, i, *d,
                    "Concat joins along dim " + Twine(axis) +
                        ", which another input's data-dependent size is "
                        "along; a result carries one such dim");
    if (origin.empty())
      origin = d->origin;
  }
  auto it = n.graph.values.find(n.node.output(0));
  if (it == n.graph.values.end() || !it->second.value)
    return n.error("Concat along a data-dependent dim: no result to compact");
  Value cat = it->second.value;
  int64_t bound = tensorType(cat).getDimSize(axis);
  TRY(where, positions(n, bound));
  Value src = n.constant(i64, 0, {bound});
  Value off = n.constant(i64, 0);
  int64_t start = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!n.hasInput(i) || !n.type(i))
      continue;
    int64_t size = n.type(i).getDimSize(axis);
    if (size == 0)
      continue;
    Value count = inputs[i] ? inputs[i]->count : n.constant(i64, (double)size);
    TRY(end, make<AddOp>(n, off, count));
    TRY(ge, make<GeOp>(n, where, off));
    TRY(lt, make<LtOp>(n, where, end));
    TRY(in, make<LogicalAndOp>(n, ge, lt));
    TRY(rel, make<SubOp>(n, where, off));
    TRY(from, make<AddScalarOp>(n, rel, n.scalarAttr(i64, (double)start)));
    TRY(sel, make<SelectOp>(n, in, from, src));
    src = sel;
    off = end;
    start += size;
  }
  TRY(compact, make<IndexSelectOp>(n, cat, src, axis));
  n.setOutput(0, compact);
  n.setDataDim(0, axis, off, origin);
  return success();
}

} // namespace

std::string DataDependentDim::describe() const {
  if (everyDim())
    return "its dims depend on sizes known only at run time (computed by " +
           origin + ")";
  return "dim " + std::to_string(axis) +
         " depends on the data (its size is the count computed by " + origin +
         ")";
}

LogicalResult hodu::onnx_import::checkDataDependentInputs(NodeContext &n,
                                                          bool inSubgraph) {
  StringRef op = n.node.op_type();
  for (size_t i = 0, e = n.numInputs(); i < e; ++i) {
    DimPtr d = n.dataDim(i);
    if (!d)
      continue;
    // A sequence stores such an element compacted, with its run-time dims
    // (OnnxRuntimeSequence.cpp).
    if (op == "SequenceInsert" && i == 1)
      continue;
    if (d->everyDim())
      return n.error("input #" + Twine(i) + " ('" + n.node.input((int)i) +
                     "'): " + d->describe() +
                     "; Hodu computes such a value at its bound and returns "
                     "its dims, but no op may read it: it can only be a "
                     "model output");
    if (inSubgraph)
      return refuse(n, i, *d, "it is read inside a subgraph (If, Loop, Scan)");
    if (!inputMayCarry(op, i))
      return refuse(n, i, *d,
                    "'" + op + "' would read the bound as its size or mix "
                    "the padding into its result");
  }
  return success();
}

LogicalResult hodu::onnx_import::propagateDataDependentDims(
    NodeContext &n, ArrayRef<DimPtr> inputs) {
  if (llvm::all_of(inputs, [](const DimPtr &d) { return !d; }))
    return success();
  StringRef op = n.node.op_type();
  auto inType = [&](size_t i) { return n.type(i); };
  auto outType = [&](size_t i) -> RankedTensorType {
    return n.hasOutput(i) ? n.graph.typeOf(n.node.output((int)i))
                          : RankedTensorType();
  };
  RankedTensorType out0 = outType(0);
  if (!out0)
    return success();
  int64_t outRank = out0.getRank();
  // The one dim the output carries: every carrying input must agree on it.
  std::optional<int64_t> outAxis;
  Value count;
  std::string origin; // the node that computed the count
  auto carry = [&](size_t i, int64_t axis) -> LogicalResult {
    const DataDependentDim &d = *inputs[i];
    if (outAxis && (*outAxis != axis || count != d.count))
      return refuse(n, i, d,
                    "another input's data-dependent size, which may differ, "
                    "meets it in the result");
    outAxis = axis;
    count = d.count;
    origin = d.origin;
    return success();
  };
  // An input without a data-dependent dim that meets one at `axis` of the
  // output (right-aligned broadcast) must broadcast along it.
  auto broadcasts = [&](size_t i, int64_t axis, size_t carrier) {
    RankedTensorType t = inType(i);
    int64_t k = axis - (outRank - t.getRank());
    if (k < 0 || t.getDimSize(k) == 1)
      return success();
    return refuse(n, carrier, *inputs[carrier],
                  "it meets input #" + Twine(i) + " ('" +
                      n.node.input((int)i) + "'), whose size along that dim "
                      "is fixed, in an elementwise op");
  };

  if (isElementwiseOp(op) || op == "Concat") {
    int64_t catAxis = -1;
    if (op == "Concat") {
      TRY(a, n.attrInt("axis", 0));
      TRY(norm, normAxis(n, a, outRank));
      catAxis = norm;
      if (llvm::any_of(inputs, [&](const DimPtr &d) {
            return d && d->axis == catAxis;
          }))
        return concatAlongDataDim(n, inputs, catAxis);
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i])
        continue;
      int64_t axis = inputs[i]->axis + (outRank - inType(i).getRank());
      if (axis == catAxis)
        return refuse(n, i, *inputs[i], "Concat joins along that dim");
      if (failed(carry(i, axis)))
        return failure();
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] || !n.hasInput(i) || !inType(i))
        continue;
      size_t carrier = llvm::find_if(inputs, [](auto &d) { return !!d; }) -
                       inputs.begin();
      if (op == "Concat") {
        return refuse(n, carrier, *inputs[carrier],
                      "Concat joins it with input #" + Twine(i) +
                          ", whose size along that dim is fixed");
      }
      // Clip's and the quantizers' scalars broadcast; a data input must.
      if (failed(broadcasts(i, *outAxis, carrier)))
        return failure();
    }
    for (size_t o = 0; o < n.numOutputs(); ++o)
      if (RankedTensorType t = outType(o); t && t.getRank() == outRank)
        n.setDataDim(o, *outAxis, count, origin);
    return success();
  }

  if (op == "Gather") {
    RankedTensorType data = inType(0), idx = inType(1);
    TRY(a, n.attrInt("axis", 0));
    TRY(axis, normAxis(n, a, data.getRank()));
    if (inputs[0]) {
      int64_t d = inputs[0]->axis;
      // Gathering along the dim itself reads valid entries by index.
      if (d != axis &&
          failed(carry(0, d < axis ? d : d + idx.getRank() - 1)))
        return failure();
    }
    if (inputs[1] && failed(carry(1, axis + inputs[1]->axis)))
      return failure();
  } else if (op == "GatherND") {
    // Padded index tuples gather padded rows; the tuple axis itself (the
    // last) is not a row.
    int64_t d = inputs[1]->axis, rank = inType(1).getRank();
    TRY(batchDims, n.attrInt("batch_dims", 0));
    if (d == rank - 1 || d < batchDims)
      return refuse(n, 1, *inputs[1],
                    d == rank - 1 ? "it holds GatherND's index tuples"
                                  : "GatherND's batch dims meet the data's");
    if (failed(carry(1, d)))
      return failure();
  } else if (op == "MatMul") {
    int64_t ra = inType(0).getRank(), rb = inType(1).getRank();
    for (size_t i = 0; i < 2; ++i) {
      if (!inputs[i])
        continue;
      int64_t rank = i == 0 ? ra : rb, d = inputs[i]->axis;
      bool isK = rank == 1 || (i == 0 ? d == rank - 1 : d == rank - 2);
      if (isK)
        return refuse(n, i, *inputs[i], "MatMul sums over that dim");
      // A 1-D other side drops its dim from the result; otherwise the
      // leading dims align from the right.
      int64_t axis = i == 0 ? (rb == 1 ? d : d + (outRank - ra))
                     : d == rb - 1 ? outRank - 1
                     : ra == 1     ? d
                                   : d + (outRank - rb);
      if (failed(carry(i, axis)))
        return failure();
    }
    size_t carrier = inputs[0] ? 0 : 1;
    if (*outAxis < outRank - 2)
      for (size_t i = 0; i < 2; ++i)
        if (!inputs[i] && failed(broadcasts(i, *outAxis, carrier)))
          return failure();
  } else if (op == "Gemm") {
    TRY(transA, n.attrInt("transA", 0));
    TRY(transB, n.attrInt("transB", 0));
    if (inputs[0]) {
      if (inputs[0]->axis != (transA ? 0 : 1)) {
        if (failed(carry(0, 0)))
          return failure();
      } else {
        return refuse(n, 0, *inputs[0], "Gemm sums over that dim");
      }
    }
    if (inputs[1]) {
      if (inputs[1]->axis == (transB ? 0 : 1)) {
        if (failed(carry(1, 1)))
          return failure();
      } else {
        return refuse(n, 1, *inputs[1], "Gemm sums over that dim");
      }
    }
    if (n.hasInput(2) && failed(broadcasts(2, *outAxis, inputs[0] ? 0 : 1)))
      return failure();
  } else if (op == "Transpose") {
    int64_t rank = inType(0).getRank();
    SmallVector<int64_t> perm;
    TRY(p, n.attrInts("perm"));
    if (p)
      perm = *p;
    else
      for (int64_t i = rank - 1; i >= 0; --i)
        perm.push_back(i);
    auto it = llvm::find(perm, inputs[0]->axis);
    if (it == perm.end())
      return refuse(n, 0, *inputs[0], "the permutation does not name it");
    if (failed(carry(0, it - perm.begin())))
      return failure();
  } else if (op == "Reshape" || op == "Flatten" || op == "Squeeze" ||
             op == "Unsqueeze") {
    std::optional<int64_t> axis = reshapedAxis(
        inType(0).getShape(), out0.getShape(), inputs[0]->axis);
    if (!axis)
      return refuse(n, 0, *inputs[0],
                    "'" + op + "' merges it with another dim or splits it");
    if (failed(carry(0, *axis)))
      return failure();
  } else if (op == "Slice") {
    // A slice along the dim must take it whole: only then are the valid
    // entries still the leading ones.
    int64_t d = inputs[0]->axis;
    if (out0.getDimSize(d) != inType(0).getDimSize(d))
      return refuse(n, 0, *inputs[0], "Slice cuts that dim");
    if (n.opset >= 10 && n.hasInput(4)) {
      TRY(steps, n.constInts(4, "steps"));
      SmallVector<int64_t> axes;
      if (n.hasInput(3)) {
        TRY(a, n.constInts(3, "axes"));
        axes = a;
      } else {
        for (int64_t i = 0; i < (int64_t)steps.size(); ++i)
          axes.push_back(i);
      }
      for (auto [a, s] : llvm::zip(axes, steps))
        if ((a < 0 ? a + out0.getRank() : a) == d && s != 1)
          return refuse(n, 0, *inputs[0], "Slice steps along that dim");
    }
    if (failed(carry(0, d)))
      return failure();
  } else if (op == "Split") {
    // Along another axis every part keeps the dim whole.
    int64_t d = inputs[0]->axis;
    TRY(a, n.attrInt("axis", 0));
    TRY(axis, normAxis(n, a, outRank));
    if (d == axis)
      return refuse(n, 0, *inputs[0], "Split cuts that dim");
    if (failed(carry(0, d)))
      return failure();
    for (size_t o = 1; o < n.numOutputs(); ++o)
      n.setDataDim(o, d, count, origin);
  } else if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
    int64_t d = inputs[0]->axis;
    TRY(a, n.attrInt("axis", n.opset >= 13 ? -1 : 1));
    TRY(axis, normAxis(n, a, outRank));
    // Before opset 13 the op normalizes over every dim from `axis` on.
    if (n.opset >= 13 ? d == axis : d >= axis)
      return refuse(n, 0, *inputs[0], "'" + op + "' normalizes over it");
    if (failed(carry(0, d)))
      return failure();
  } else if (op == "TopK") {
    int64_t d = inputs[0]->axis;
    TRY(a, n.attrInt("axis", -1));
    TRY(axis, normAxis(n, a, outRank));
    if (d == axis)
      return refuse(n, 0, *inputs[0], "TopK sorts along it");
    if (failed(carry(0, d)))
      return failure();
    n.setDataDim(1, d, count, origin);
  } else if (isReduction(op)) {
    int64_t rank = inType(0).getRank(), d = inputs[0]->axis;
    TRY(axes, reducedAxes(n, rank));
    if (llvm::is_contained(axes, d))
      return refuse(n, 0, *inputs[0], "'" + op + "' reduces over it");
    int64_t axis = d;
    if (outRank < rank)
      axis -= llvm::count_if(axes, [&](int64_t a) { return a < d; });
    if (failed(carry(0, axis)))
      return failure();
  } else {
    // checkDataDependentInputs refused everything else.
    return n.error("data-dependent dim reached an op that cannot carry it "
                   "(importer bug)");
  }
  // (Gathering along the dim by fixed indices reads valid entries: the
  // result's size is fixed.)
  if (outAxis)
    n.setDataDim(0, *outAxis, count, origin);
  return success();
}

Value hodu::onnx_import::runtimeDims(OpBuilder &b, Location loc, Value v,
                                     const DataDependentDim &dim) {
  if (dim.everyDim())
    return dim.count;
  auto t = cast<RankedTensorType>(v.getType());
  Type i64 = b.getI64Type();
  auto vec = [&](ArrayRef<int64_t> values) {
    auto vt = RankedTensorType::get({(int64_t)values.size()}, i64);
    return ConstantOp::create(b, loc, DenseElementsAttr::get(vt, values))
        .getResult();
  };
  SmallVector<Value> parts;
  if (dim.axis > 0)
    parts.push_back(vec(t.getShape().take_front(dim.axis)));
  parts.push_back(ReshapeOp::create(b, loc, RankedTensorType::get({1}, i64),
                                    dim.count)
                      .getResult());
  if (dim.axis + 1 < t.getRank())
    parts.push_back(vec(t.getShape().drop_front(dim.axis + 1)));
  if (parts.size() == 1)
    return parts[0];
  return ConcatOp::create(b, loc, RankedTensorType::get({t.getRank()}, i64),
                          parts, b.getI64IntegerAttr(0))
      .getResult();
}

/// The exclusive running sum of `v` (1-D i64): `hodu.cumsum`, whose
/// lowering sums a long dim by blocks of 16 (O(16 n); docs/lowering.md).
FailureOr<Value> hodu::onnx_import::exclusiveScan(NodeContext &n, Value v) {
  return make<CumSumOp>(n, v, int64_t(0), /*exclusive=*/true,
                        /*reverse=*/false);
}

FailureOr<SmallVector<Value>> hodu::onnx_import::runtimeAxes(NodeContext &n,
                                                             size_t input) {
  RankedTensorType at = n.type(input);
  if (!at || at.getRank() != 1 || at.isDynamicDim(0))
    return n.error("axes must be a 1-D tensor of static length");
  // Each entry becomes ops of its own; a tensor has at most 64 dims to
  // name (a declared length of 2^31 ran out of memory building them).
  constexpr int64_t kMaxAxes = 64;
  if (at.getDimSize(0) > kMaxAxes)
    return n.error("axes known only at run time has " +
                   Twine(at.getDimSize(0)) + " entries; at most " +
                   Twine(kMaxAxes) +
                   ", as tensors have at most that many dims");
  TRY(v, n.in(input));
  Value w = n.cast(v, n.b.getI64Type());
  SmallVector<Value> out;
  for (int64_t j = 0; j < at.getDimSize(0); ++j) {
    TRY(e, takeAt(n, w, 0, j));
    out.push_back(e);
  }
  return out;
}

FailureOr<Value> hodu::onnx_import::namesDim(NodeContext &n,
                                             ArrayRef<Value> axes, int64_t d,
                                             int64_t rank) {
  Type i64 = n.b.getI64Type();
  Value any = n.constant(n.b.getI1Type(), 0);
  for (Value a : axes) {
    TRY(pos, make<EqScalarOp>(n, a, n.scalarAttr(i64, (double)d)));
    TRY(neg, make<EqScalarOp>(n, a, n.scalarAttr(i64, (double)(d - rank))));
    TRY(either, make<LogicalOrOp>(n, pos, neg));
    TRY(acc, make<LogicalOrOp>(n, any, either));
    any = acc;
  }
  return any;
}

/// Output dim k of a value with dims dropped at run time: the size of
/// input dim `i` where `which[i]` (0-d i64) equals k, among the input dims
/// `candidates`.
static FailureOr<Value> pickDim(NodeContext &n, ArrayRef<int64_t> inShape,
                                ArrayRef<Value> which, int64_t k,
                                ArrayRef<int64_t> candidates) {
  Type i64 = n.b.getI64Type();
  Value dim = n.constant(i64, 0);
  for (int64_t i : candidates) {
    TRY(is, make<EqScalarOp>(n, which[i], n.scalarAttr(i64, (double)k)));
    TRY(sel, make<SelectOp>(n, is, n.constant(i64, (double)inShape[i]), dim));
    dim = sel;
  }
  return dim;
}

LogicalResult hodu::onnx_import::checkNoDataDim(NodeContext &n,
                                                StringRef what) {
  DimPtr d = n.dataDim(0);
  if (!d)
    return success();
  return n.error("input #0 ('" + n.node.input(0) + "'): " + d->describe() +
                 ", and " + what +
                 " known only at run time too; a value has at most one dim "
                 "whose size depends on the data");
}

FailureOr<Value> hodu::onnx_import::gatherFlat(NodeContext &n, Value x,
                                               Value index,
                                               ArrayRef<int64_t> bound) {
  Type i64 = n.b.getI64Type();
  int64_t count = tensorType(x).getNumElements();
  TRY(low, make<MaximumScalarOp>(n, index, n.scalarAttr(i64, 0)));
  TRY(inside,
      make<MinimumScalarOp>(n, low, n.scalarAttr(i64, (double)count - 1)));
  if (tensorType(inside).getRank() == 0)
    inside = n.reshape(inside, {1});
  TRY(gathered,
      make<IndexSelectOp>(n, n.reshape(x, {count}), inside, int64_t(0)));
  return n.reshape(gathered, bound);
}

Value hodu::onnx_import::dimsVector(NodeContext &n, ArrayRef<Value> dims) {
  SmallVector<Value> parts;
  for (Value d : dims)
    parts.push_back(n.reshape(d, {1}));
  if (parts.size() == 1)
    return parts[0];
  return ConcatOp::create(
             n.b, n.loc,
             RankedTensorType::get({(int64_t)parts.size()}, n.b.getI64Type()),
             parts, n.b.getI64IntegerAttr(0))
      .getResult();
}

void hodu::onnx_import::setEveryDimOutput(NodeContext &n, Value y,
                                          ArrayRef<Value> dims) {
  n.setOutput(0, y);
  if (!dims.empty())
    n.setDataDim(0, DataDependentDim::kEveryDim, dimsVector(n, dims));
}

FailureOr<std::pair<Value, SmallVector<Value>>>
hodu::onnx_import::dropDims(NodeContext &n, Value x, ArrayRef<Value> dropped,
                            int64_t k) {
  Type i64 = n.b.getI64Type();
  auto t = tensorType(x);
  ArrayRef<int64_t> in = t.getShape();
  int64_t r = t.getRank(), outRank = r - k;
  if (outRank < 0)
    return n.error("drops " + Twine(k) + " dims of a " + Twine(r) + "-d value");
  // Input dim i, when kept, is output dim (the kept dims before it); a
  // dropped one is none (-1).
  SmallVector<Value> which;
  Value kept = n.constant(i64, 0);
  for (int64_t i = 0; i < r; ++i) {
    TRY(slot, make<SelectOp>(n, dropped[i], n.constant(i64, -1), kept));
    which.push_back(slot);
    TRY(keeps, make<LogicalNotOp>(n, dropped[i]));
    TRY(plus, make<AddOp>(n, kept, n.cast(keeps, i64)));
    kept = plus;
  }
  // Output dim o is one of input dims o .. o + k.
  SmallVector<Value> dims;
  SmallVector<int64_t> bound;
  for (int64_t o = 0; o < outRank; ++o) {
    auto candidates = llvm::to_vector(llvm::seq<int64_t>(o, o + k + 1));
    TRY(dim, pickDim(n, in, which, o, candidates));
    dims.push_back(dim);
    int64_t most = 1;
    for (int64_t i : candidates)
      most = std::max(most, in[i]);
    bound.push_back(most);
  }
  if (failed(n.checkElementCount(bound, "the bound of the result")))
    return failure();
  int64_t size = product(bound), count = t.getNumElements();
  if (count == 0 || size == 0)
    return std::make_pair(n.constant(t.getElementType(), 0, bound), dims);
  // Position p of the bound reads input position c: c_i is p's coordinate
  // along the output dim that input dim i became, 0 along a dropped dim.
  TRY(where, positions(n, size));
  SmallVector<Value> coords;
  if (outRank > 0) {
    TRY(c, unravelPositions(n, where, bound));
    coords = c;
  }
  Value index = n.constant(i64, 0);
  int64_t stride = count;
  for (int64_t i = 0; i < r; ++i) {
    stride /= in[i];
    if (in[i] == 1)
      continue;
    Value c = n.constant(i64, 0);
    for (int64_t o = std::max<int64_t>(0, i - k); o <= std::min(outRank - 1, i);
         ++o) {
      TRY(is, make<EqScalarOp>(n, which[i], n.scalarAttr(i64, (double)o)));
      TRY(sel, make<SelectOp>(n, is, coords[o], c));
      c = sel;
    }
    TRY(scaled, make<MulScalarOp>(n, c, n.scalarAttr(i64, (double)stride)));
    TRY(sum, make<AddOp>(n, index, scaled));
    index = sum;
  }
  TRY(y, gatherFlat(n, x, index, bound));
  return std::make_pair(y, dims);
}

FailureOr<Value> hodu::onnx_import::layAtBound(NodeContext &n, Value x,
                                               ArrayRef<Value> dims,
                                               ArrayRef<int64_t> bound) {
  // The bound can be far larger than `x` (each dim at its most): checked
  // before anything of its size is built.
  if (failed(n.checkElementCount(bound, "the bound of the result")))
    return failure();
  auto t = tensorType(x);
  int64_t count = t.getNumElements(), size = product(bound);
  if (count == 0 || size == 0)
    return n.constant(t.getElementType(), 0, bound);
  // Position p of the bound holds element sum_k p_k * S_k of `x`, where S
  // are the row-major strides of the run-time dims.
  TRY(where, positions(n, size));
  TRY(coords, unravelPositions(n, where, bound));
  Value index, stride;
  for (int64_t k = (int64_t)bound.size() - 1; k >= 0; --k) {
    Value term = coords[k];
    if (stride) {
      TRY(scaled, make<MulOp>(n, term, stride));
      term = scaled;
    }
    if (index) {
      TRY(sum, make<AddOp>(n, index, term));
      index = sum;
    } else {
      index = term;
    }
    if (k > 0) {
      if (stride) {
        TRY(next, make<MulOp>(n, stride, dims[k]));
        stride = next;
      } else {
        stride = dims[k];
      }
    }
  }
  return gatherFlat(n, x, index, bound);
}

FailureOr<Value> hodu::onnx_import::positions(NodeContext &n, int64_t size) {
  Type i64 = n.b.getI64Type();
  constexpr int64_t kConstant = 4096;
  if (size <= kConstant)
    return iota(n, i64, size, 1, 0);
  int64_t cols = 1;
  while (cols * cols < size)
    ++cols;
  int64_t rows = (size + cols - 1) / cols;
  Value starts = iota(n, i64, rows, 2, 0, (double)cols);
  TRY(grid, make<AddOp>(n, starts, iota(n, i64, cols, 2, 1)));
  Value flat = n.reshape(grid, {rows * cols});
  if (rows * cols == size)
    return flat;
  return make<SliceOp>(n, flat, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{size},
                       ArrayRef<int64_t>{1});
}

FailureOr<std::pair<Value, Value>>
hodu::onnx_import::compactPositions(NodeContext &n, Value values) {
  Type i64 = n.b.getI64Type();
  auto t = tensorType(values);
  int64_t size = t.getDimSize(0);
  Value mask = values;
  if (!t.getElementType().isInteger(1)) {
    TRY(ne, make<NeScalarOp>(n, values, n.scalarAttr(t.getElementType(), 0)));
    mask = ne;
  }
  Value ones = n.cast(mask, i64);
  // Where each kept position goes: the number kept before it; the others
  // go to an extra slot past the end, cut off after the scatter.
  TRY(slot, exclusiveScan(n, ones));
  TRY(target, make<SelectOp>(n, mask, slot, n.constant(i64, (double)size)));
  TRY(where, positions(n, size));
  Value zeros = n.constant(i64, 0, {size + 1});
  TRY(scattered, make<ScatterOp>(n, zeros, target, where, int64_t(0)));
  TRY(kept, make<SliceOp>(n, scattered, ArrayRef<int64_t>{0},
                          ArrayRef<int64_t>{size}, ArrayRef<int64_t>{1}));
  TRY(count, make<ReduceSumOp>(n, ones, ArrayRef<int64_t>{0}, false));
  return std::make_pair(kept, count);
}

FailureOr<SmallVector<Value>>
hodu::onnx_import::unravelPositions(NodeContext &n, Value flat,
                                    ArrayRef<int64_t> shape) {
  Type i64 = n.b.getI64Type();
  SmallVector<Value> coords;
  int64_t stride = product(shape);
  for (auto [d, dim] : llvm::enumerate(shape)) {
    stride /= dim;
    Value c = flat;
    if (stride != 1) {
      TRY(q, make<DivScalarOp>(n, c, n.scalarAttr(i64, (double)stride)));
      c = q;
    }
    if (d > 0) {
      TRY(r, make<RemScalarOp>(n, c, n.scalarAttr(i64, (double)dim)));
      c = r;
    }
    coords.push_back(c);
  }
  return coords;
}
