//===- OnnxOps.cpp - ONNX ops to hodu ops ---------------------------------===//
//
// One conversion per ONNX op type, decomposing into hodu ops where the
// dialect has no direct equivalent. The conversions live in one file per op
// family (Onnx<Family>Ops.cpp), each registering its own ops into the table
// built here. Conversions read attribute-like inputs (shapes, axes, pads,
// sizes) as import-time constants (NodeContext::constInts): whatever
// import-time evaluation (OnnxNodeLoop.cpp) computed from constants.
//
// Ops are built through `make<OpT>`, which runs the op's type inference
// before creating it: the generated builders abort on inference failure,
// and a malformed model must give an error instead.
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/MathExtras.h"
#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

#include <cmath>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

RankedTensorType hodu::onnx_import::tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

ElementsAttr hodu::onnx_import::boolTensor(NodeContext &n,
                                           ArrayRef<bool> values) {
  return DenseElementsAttr::get(
      RankedTensorType::get({(int64_t)values.size()}, n.b.getI1Type()), values);
}

int64_t hodu::onnx_import::product(ArrayRef<int64_t> s) {
  // Saturates rather than overflow (declared element counts are bounded by
  // the model check; computed shapes by the tensor-size check after import).
  int64_t p = 1;
  for (int64_t d : s)
    if (llvm::MulOverflow(p, d, p))
      return INT64_MAX;
  return p;
}

FailureOr<int64_t> hodu::onnx_import::normAxis(NodeContext &n, int64_t axis,
                                               int64_t rank, StringRef what) {
  if (axis < -rank || axis >= rank)
    return n.error(what + " " + Twine(axis) + " is out of range for rank " +
                   Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

FailureOr<SmallVector<int64_t>>
hodu::onnx_import::normAxes(NodeContext &n, ArrayRef<int64_t> axes,
                            int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t a : axes) {
    TRY(ax, normAxis(n, a, rank));
    if (llvm::is_contained(out, ax))
      return n.error("axis " + Twine(a) + " appears more than once");
    out.push_back(ax);
  }
  llvm::sort(out);
  return out;
}

FailureOr<Value> hodu::onnx_import::requantize(NodeContext &n, Value acc,
                                               Value multiplier,
                                               std::optional<Value> zeroPoint,
                                               Type quantType) {
  Type ft = tensorType(acc).getElementType();
  TRY(scaled, make<MulOp>(n, acc, multiplier));
  TRY(y, make<RoundOp>(n, scaled));
  Type qe = quantType;
  if (zeroPoint) {
    qe = tensorType(*zeroPoint).getElementType();
    Value z = n.cast(*zeroPoint, ft);
    if (tensorType(z).getNumElements() == 1)
      z = n.reshape(z, {});
    TRY(shifted, make<AddOp>(n, y, z));
    y = shifted;
  }
  return saturateToInteger(n, y, qe);
}

FailureOr<Value> hodu::onnx_import::saturateToInteger(NodeContext &n, Value y,
                                                      Type qe) {
  if (!qe.isInteger() || qe.getIntOrFloatBitWidth() > 32)
    return n.error("the quantized type must be an integer of up to 32 bits");
  Type ft = tensorType(y).getElementType();
  unsigned w = qe.getIntOrFloatBitWidth();
  double lo = qe.isUnsignedInteger() ? 0 : -std::ldexp(1.0, w - 1);
  double hi = qe.isUnsignedInteger() ? std::ldexp(1.0, w) - 1
                                     : std::ldexp(1.0, w - 1) - 1;
  TRY(c1, make<MaximumScalarOp>(n, y, n.scalarAttr(ft, lo)));
  TRY(c2, make<MinimumScalarOp>(n, c1, n.scalarAttr(ft, hi)));
  return n.cast(c2, qe);
}

FailureOr<Value> hodu::onnx_import::takeAt(NodeContext &n, Value v,
                                           int64_t dim, int64_t i) {
  auto t = tensorType(v);
  if (t.getDimSize(dim) == 1) {
    SmallVector<int64_t> shape(t.getShape());
    shape.erase(shape.begin() + dim);
    return n.reshape(v, shape);
  }
  TRY(sl, sliceDim(n, v, dim, i, i + 1));
  return make<SqueezeOp>(n, sl, ArrayRef<int64_t>{dim});
}

FailureOr<Value> hodu::onnx_import::sliceDim(NodeContext &n, Value v,
                                             int64_t dim, int64_t lo,
                                             int64_t hi) {
  auto t = tensorType(v);
  SmallVector<int64_t> starts(t.getRank(), 0), ends(t.getShape()),
      steps(t.getRank(), 1);
  starts[dim] = lo;
  ends[dim] = hi;
  return make<SliceOp>(n, v, starts, ends, steps);
}

Type hodu::onnx_import::floatComputeType(NodeContext &n, Type elt) {
  return elt.isF64() ? elt : Type(n.b.getF32Type());
}

Value hodu::onnx_import::broadcastTo(NodeContext &n, Value v,
                                     ArrayRef<int64_t> shape) {
  auto t = tensorType(v);
  if (t.getShape() == shape)
    return v;
  return BroadcastOp::create(
             n.b, n.loc, RankedTensorType::get(shape, t.getElementType()), v)
      .getResult();
}

Value hodu::onnx_import::iota(NodeContext &n, Type elt, int64_t size,
                              int64_t rank, int64_t dim, double scale,
                              double offset) {
  SmallVector<int64_t> shape(rank, 1);
  shape[dim] = size;
  ConstantWriter w(RankedTensorType::get(shape, elt), kSmallTensorBytes);
  for (int64_t i = 0; i < size; ++i)
    w.setF(i, offset + scale * (double)i);
  return n.constant(w.finish());
}

FailureOr<Value> hodu::onnx_import::wrapNegative(NodeContext &n, Value idx,
                                                 int64_t size) {
  Type elt = tensorType(idx).getElementType();
  TRY(neg, make<LtScalarOp>(n, idx, n.scalarAttr(elt, 0)));
  TRY(plus, make<AddScalarOp>(n, idx, n.scalarAttr(elt, (double)size)));
  return make<SelectOp>(n, neg, plus, idx);
}

double hodu::onnx_import::integerOperandBound(NodeContext &n, Type elt,
                                              size_t zeroInput) {
  auto it = cast<IntegerType>(elt);
  unsigned bits = std::min(it.getWidth(), 62u);
  double lo = it.isUnsigned() ? 0.0 : -std::ldexp(1.0, bits - 1);
  double hi = it.isUnsigned() ? std::ldexp(1.0, bits) - 1
                              : std::ldexp(1.0, bits - 1) - 1;
  if (!n.hasInput(zeroInput))
    return std::max(-lo, hi);
  std::optional<ConstantView> zp = n.constantInput(zeroInput);
  if (!zp || zp->getKind() == ElementKind::Float)
    return hi - lo;
  double bound = 0;
  for (int64_t j = 0, e = zp->isSplat() ? 1 : zp->size(); j < e; ++j) {
    double z = double(int64_t(zp->s(j)));
    bound = std::max({bound, std::abs(lo - z), std::abs(hi - z)});
  }
  return bound;
}

std::optional<std::vector<double>>
hodu::onnx_import::integerTermSums(NodeContext &n, size_t wInput,
                                   size_t zeroInput, int64_t outputs,
                                   function_ref<int64_t(int64_t)> outputOf,
                                   function_ref<int64_t(int64_t)> zeroOf) {
  std::optional<ConstantView> w = n.constantInput(wInput);
  std::optional<ConstantView> zp;
  if (n.hasInput(zeroInput) && !(zp = n.constantInput(zeroInput)))
    return std::nullopt; // the terms' values are not known
  if (!w || w->getKind() == ElementKind::Float ||
      (zp && zp->getKind() == ElementKind::Float))
    return std::nullopt;
  // The zero points, read once (they are few).
  std::vector<double> zeros;
  if (zp)
    for (int64_t j = 0, e = zp->isSplat() ? 1 : zp->size(); j < e; ++j)
      zeros.push_back(double(int64_t(zp->s(j))));
  // One pass over the weights, summing per output.
  std::vector<double> sums(static_cast<size_t>(outputs), 0.0);
  bool wSplat = w->isSplat();
  for (int64_t i = 0, e = w->size(); i < e; ++i) {
    double v = double(int64_t(w->s(wSplat ? 0 : i)));
    if (zp) {
      size_t z = zeros.size() == 1 ? 0 : static_cast<size_t>(zeroOf(i));
      if (z >= zeros.size()) // zero points that do not fit the weights
        return std::nullopt;
      v -= zeros[z];
    }
    sums[static_cast<size_t>(outputOf(i))] += std::abs(v);
  }
  return sums;
}

double hodu::onnx_import::integerDotBound(
    NodeContext &n, double xBound, size_t wInput, size_t zeroInput,
    int64_t terms, int64_t outputs, function_ref<int64_t(int64_t)> outputOf,
    function_ref<int64_t(int64_t)> zeroOf) {
  std::optional<std::vector<double>> sums =
      integerTermSums(n, wInput, zeroInput, outputs, outputOf, zeroOf);
  if (!sums)
    return xBound *
           integerOperandBound(n, n.type(wInput).getElementType(), zeroInput) *
           double(terms);
  double largest = 0;
  for (double s : *sums)
    largest = std::max(largest, s);
  return xBound * largest;
}

int64_t hodu::onnx_import::fewestExactParts(
    int64_t size, function_ref<double(int64_t)> boundOf) {
  for (int64_t p = 2; p <= std::min<int64_t>(size, 16); ++p)
    if (exactInF32(boundOf(p)))
      return p;
  return 0;
}

FailureOr<Value> hodu::onnx_import::sumOfParts(
    NodeContext &n, int64_t size, int64_t parts,
    function_ref<FailureOr<Value>(int64_t, int64_t)> part) {
  int64_t per = llvm::divideCeil(size, parts);
  std::optional<Value> sum;
  for (int64_t lo = 0; lo < size; lo += per) {
    TRY(p, part(lo, std::min(size, lo + per)));
    Value acc = n.cast(p, n.b.getI32Type());
    if (sum) {
      TRY(added, make<AddOp>(n, *sum, acc));
      acc = added;
    }
    sum = acc;
  }
  return *sum;
}

SmallVector<int64_t> hodu::onnx_import::nonzeroPositions(const ConstantView &c) {
  SmallVector<int64_t> positions;
  for (int64_t i = 0, e = c.size(); i < e; ++i)
    if (c.truth(c.isSplat() ? 0 : i))
      positions.push_back(i);
  return positions;
}

FailureOr<int64_t> hodu::onnx_import::constScalar(NodeContext &n, size_t input,
                                                  StringRef what) {
  TRY(v, n.constInts(input, what));
  if (v.size() != 1)
    return n.error(what + " must hold one value");
  return v[0];
}

/// The check that input #`in` (1-D i64), known only at run time, holds
/// `want[j]` or `alt[j]` at each entry j (any value where `anyEntry[j]`).
LogicalResult hodu::onnx_import::checkEntries(NodeContext &n, size_t in,
                                              ArrayRef<int64_t> want,
                                              ArrayRef<int64_t> alt,
                                              const Twine &what,
                                              ArrayRef<bool> anyEntry) {
  RankedTensorType st = n.type(in);
  if (!st || st.getRank() != 1 || st.getDimSize(0) != (int64_t)want.size())
    return n.error("input #" + Twine(in) + " ('" + n.node.input((int)in) +
                   "') must be 1-D with " + Twine(want.size()) +
                   " entries for the declared shape of output '" +
                   n.node.output(0) + "'");
  TRY(s, n.in(in));
  s = n.cast(s, n.b.getI64Type());
  TRY(ok, make<EqOp>(n, s, n.constant(want)));
  if (alt != want) {
    TRY(okAlt, make<EqOp>(n, s, n.constant(alt)));
    TRY(either, make<LogicalOrOp>(n, ok, okAlt));
    ok = either;
  }
  if (llvm::is_contained(anyEntry, true)) {
    TRY(either, make<LogicalOrOp>(n, ok, n.constant(boolTensor(n, anyEntry))));
    ok = either;
  }
  return n.checkAtRunTime(ok, what);
}

FailureOr<int64_t>
hodu::onnx_import::scalarOrDeclared(NodeContext &n, size_t input,
                                    StringRef what, size_t out, int64_t dim) {
  if (!n.hasInput(input) || n.constantInput(input))
    return constScalar(n, input, what);
  TRY(shape, n.declaredShapeFor(out, input, what));
  if (dim < 0 || dim >= (int64_t)shape.size())
    return n.error("the model declares output '" + n.node.output((int)out) +
                   "' with shape " + dimsString(shape) + ", which has no dim " +
                   Twine(dim) + " to give " + what);
  TRY(v, scalarInput(n, input, n.b.getI64Type(), what));
  TRY(ok, make<EqScalarOp>(n, v,
                           n.scalarAttr(n.b.getI64Type(), (double)shape[dim])));
  if (failed(n.checkAtRunTime(ok, "input '" + n.node.input((int)input) + "' (" +
                                      what + ") must be " + Twine(shape[dim]) +
                                      ", as the shape " + dimsString(shape) +
                                      " " + n.declaredFor(out) + " says")))
    return failure();
  return shape[dim];
}

FailureOr<Value> hodu::onnx_import::scalarInput(NodeContext &n, size_t input,
                                                Type elt, StringRef what) {
  TRY(v, n.in(input));
  if (tensorType(v).getNumElements() != 1)
    return n.error(what + " (input #" + Twine(input) + ") must hold one value");
  return n.cast(n.reshape(v, {}), elt);
}

FailureOr<Value> hodu::onnx_import::legacyBroadcast(NodeContext &n, Value a,
                                                    Value b) {
  TRY(bcast, n.attrInt("broadcast", 0));
  auto at = tensorType(a), bt = tensorType(b);
  if (!bcast || !n.attr("axis") || at.getShape() == bt.getShape())
    return b;
  TRY(axisAttr, n.attrInt("axis", 0));
  TRY(axis, normAxis(n, axisAttr, at.getRank()));
  if (axis + bt.getRank() > at.getRank())
    return n.error("B (rank " + Twine(bt.getRank()) +
                   ") does not fit A (rank " + Twine(at.getRank()) +
                   ") from axis " + Twine(axis));
  SmallVector<int64_t> shape(bt.getShape());
  shape.append(at.getRank() - axis - bt.getRank(), 1);
  return n.reshape(b, shape);
}

bool hodu::onnx_import::isFloatTensor(Value v) {
  return isa<FloatType>(tensorType(v).getElementType());
}

namespace {
const ConverterTable &converters() {
  static const ConverterTable table = [] {
    ConverterTable t;
    registerElementwiseOps(t);
    registerLinalgOps(t);
    registerAttentionOps(t);
    registerConvOps(t);
    registerNormalizationOps(t);
    registerRecurrentOps(t);
    registerReductionOps(t);
    registerSamplingOps(t);
    registerSequenceOps(t);
    registerSignalOps(t);
    registerRandomOps(t);
    registerTrainingOps(t);
    registerShapeOps(t);
    registerSliceOps(t);
    registerResizeOps(t);
    registerIndexingOps(t);
    registerMiscOps(t);
    return t;
  }();
  return table;
}
} // namespace

/// The converter table's key of an op: its type in the default domain,
/// "domain:OpType" in another.
static std::string converterKey(StringRef domain, StringRef opType) {
  if (domain.empty() || domain == "ai.onnx")
    return opType.str();
  return (domain + ":" + opType).str();
}

std::string hodu::onnx_import::trainingOpKey(StringRef opType) {
  return converterKey("ai.onnx.preview.training", opType);
}

bool hodu::onnx_import::isSupportedOp(StringRef domain, StringRef opType) {
  std::string key = converterKey(domain, opType);
  // If, Loop, Scan and SequenceMap are imported by the node loop itself
  // (OnnxNodeLoop.cpp; OnnxIf.cpp, OnnxLoop.cpp, OnnxScan.cpp), which imports
  // their subgraphs.
  return key == "If" || key == "Loop" || key == "Scan" ||
         key == "SequenceMap" || converters().count(key);
}

LogicalResult hodu::onnx_import::convertNode(NodeContext &n) {
  const auto &table = converters();
  auto it = table.find(converterKey(n.node.domain(), n.node.op_type()));
  if (it == table.end())
    return n.error("unsupported op");
  // Every op is created at the node's location.
  return it->second(n);
}
