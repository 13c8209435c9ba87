//===- OnnxMiscOps.cpp - constants and quantization -----------------------===//
//
// Constants, the ops only evaluated at import time, and quantization.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

LogicalResult convertConstant(NodeContext &n) {
  if (const onnx::TensorProto *t = n.attrTensor("value")) {
    auto e = n.graph.decodeTensor(*t, n.loc);
    if (failed(e))
      return n.error("bad value tensor");
    n.graph.values[n.node.output(0)] = *e;
    return success();
  }
  Known k;
  if (const auto *a = n.attr("value_float")) {
    k.elemType = n.b.getF32Type();
    k.floats.push_back(a->f());
  } else if (const auto *a = n.attr("value_int")) {
    k.elemType = n.b.getI64Type();
    k.ints.push_back(a->i());
  } else if (const auto *a = n.attr("value_floats")) {
    k.elemType = n.b.getF32Type();
    k.floats.assign(a->floats().begin(), a->floats().end());
    k.shape = {(int64_t)k.floats.size()};
  } else if (const auto *a = n.attr("value_ints")) {
    k.elemType = n.b.getI64Type();
    k.ints.assign(a->ints().begin(), a->ints().end());
    k.shape = {(int64_t)k.ints.size()};
  } else {
    return n.error("only tensor, float and int values are supported");
  }
  n.setKnown(0, k);
  return success();
}

LogicalResult convertConstantOfShape(NodeContext &n) {
  TRY(shape, n.constInts(0, "shape"));
  for (int64_t d : shape)
    if (d < 0)
      return n.error("negative dim in shape");
  Type elt = n.b.getF32Type();
  double v = 0;
  if (const onnx::TensorProto *t = n.attrTensor("value")) {
    auto e = n.graph.decodeTensor(*t, n.loc);
    if (failed(e) || !e->known || e->known->numElements() != 1)
      return n.error("value must be a one-element tensor");
    elt = e->known->elemType;
    v = e->known->asDouble(0);
  }
  n.setOutput(0, n.constant(elt, v, shape));
  return success();
}

/// Ops that are only evaluated at import time (OnnxFold.cpp): reaching
/// here means an input is computed at run time.
LogicalResult unsupportedRuntime(NodeContext &n) {
  for (size_t i = 0; i < n.numInputs(); ++i)
    if (n.hasInput(i) && !n.known(i))
      return n.notKnownError(i, "an input of an op evaluated at import time");
  return n.error("cannot be evaluated at import time");
}

LogicalResult convertQuantize(NodeContext &n) {
  StringRef op = n.node.op_type();
  TRY(x, n.in(0));
  TRY(scale, n.in(1));
  auto xt = tensorType(x);
  TRY(axisAttr, n.attrInt("axis", 1));
  auto perAxis = [&](Value v) -> FailureOr<Value> {
    auto vt = tensorType(v);
    if (vt.getRank() == 0)
      return v;
    if (vt.getRank() != 1)
      return n.error("scale and zero point must be scalars or 1-D");
    TRY(axis, normAxis(n, axisAttr, xt.getRank()));
    SmallVector<int64_t> shape(xt.getRank(), 1);
    shape[axis] = vt.getDimSize(0);
    if (vt.getDimSize(0) == 1)
      return n.reshape(v, {});
    return n.reshape(v, shape);
  };
  TRY(s, perAxis(scale));
  Type fe = tensorType(s).getElementType();
  Value zp;
  Type qe = IntegerType::get(n.b.getContext(), 8, IntegerType::Unsigned);
  if (n.hasInput(2)) {
    TRY(z, n.in(2));
    TRY(zz, perAxis(z));
    zp = zz;
    qe = tensorType(zz).getElementType();
  }
  if (op == "DequantizeLinear") {
    Value xf = n.cast(x, fe);
    if (zp) {
      TRY(d, make<SubOp>(n, xf, n.cast(zp, fe)));
      xf = d;
    }
    TRY(y, make<MulOp>(n, xf, s));
    n.setOutput(0, y);
    return success();
  }
  TRY(d, make<DivOp>(n, x, s));
  TRY(rd, make<RoundOp>(n, d));
  Value y = rd;
  if (zp) {
    TRY(a, make<AddOp>(n, y, n.cast(zp, fe)));
    y = a;
  }
  unsigned w = qe.getIntOrFloatBitWidth();
  double lo = qe.isUnsignedInteger() ? 0 : -std::ldexp(1.0, w - 1);
  double hi = qe.isUnsignedInteger() ? std::ldexp(1.0, w) - 1
                                     : std::ldexp(1.0, w - 1) - 1;
  TRY(c1, make<MaximumScalarOp>(n, y, n.scalarAttr(fe, lo)));
  TRY(c2, make<MinimumScalarOp>(n, c1, n.scalarAttr(fe, hi)));
  n.setOutput(0, n.cast(c2, qe));
  return success();
}

LogicalResult convertDynamicQuantize(NodeContext &n) {
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  Type f = xt.getElementType();
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < xt.getRank(); ++d)
    all.push_back(d);
  auto attr = [&](double v) { return n.scalarAttr(f, v); };
  TRY(mx, make<ReduceMaxOp>(n, x, all, false));
  TRY(mn, make<ReduceMinOp>(n, x, all, false));
  TRY(hi, make<MaximumScalarOp>(n, mx, attr(0)));
  TRY(lo, make<MinimumScalarOp>(n, mn, attr(0)));
  TRY(range, make<SubOp>(n, hi, lo));
  TRY(scale, make<DivScalarOp>(n, range, attr(255)));
  TRY(q0, make<DivOp>(n, lo, scale));
  TRY(q1, make<NegOp>(n, q0));
  TRY(q2, make<RoundOp>(n, q1));
  TRY(q3, make<MaximumScalarOp>(n, q2, attr(0)));
  TRY(zpF, make<MinimumScalarOp>(n, q3, attr(255)));
  TRY(d, make<DivOp>(n, x, scale));
  TRY(rd, make<RoundOp>(n, d));
  TRY(a, make<AddOp>(n, rd, zpF));
  TRY(c1, make<MaximumScalarOp>(n, a, attr(0)));
  TRY(c2, make<MinimumScalarOp>(n, c1, attr(255)));
  Type u8 = IntegerType::get(n.b.getContext(), 8, IntegerType::Unsigned);
  n.setOutput(0, n.cast(c2, u8));
  n.setOutput(1, scale);
  n.setOutput(2, n.cast(zpF, u8));
  return success();
}

} // namespace

void hodu::onnx_import::registerMiscOps(ConverterTable &table) {
  table.insert({
      {"Constant", convertConstant},
      {"ConstantOfShape", convertConstantOfShape},
      {"Range", unsupportedRuntime},
      {"Shape", unsupportedRuntime},
      {"Size", unsupportedRuntime},
      {"QuantizeLinear", convertQuantize},
      {"DynamicQuantizeLinear", convertDynamicQuantize},
      {"DequantizeLinear", convertQuantize},
  });
}
