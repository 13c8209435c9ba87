//===- OnnxLinalgOps.cpp - matrix ONNX ops --------------------------------===//
//
// MatMul, Gemm, Det, Einsum and MatMulInteger.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

LogicalResult convertGemm(NodeContext &n) {
  TRY(a, n.in(0));
  TRY(b, n.in(1));
  TRY(transA, n.attrInt("transA", 0));
  TRY(transB, n.attrInt("transB", 0));
  TRY(alpha, n.attrFloat("alpha", 1));
  TRY(beta, n.attrFloat("beta", 1));
  if (tensorType(a).getRank() != 2 || tensorType(b).getRank() != 2)
    return n.error("expects 2-D A and B");
  SmallVector<int64_t> swap = {1, 0};
  if (transA) {
    TRY(t, make<TransposeOp>(n, a, swap));
    a = t;
  }
  if (transB) {
    TRY(t, make<TransposeOp>(n, b, swap));
    b = t;
  }
  TRY(y, make<MatmulOp>(n, a, b));
  Type elt = tensorType(y).getElementType();
  if (alpha != 1) {
    TRY(s, make<MulScalarOp>(n, y, n.scalarAttr(elt, alpha)));
    y = s;
  }
  if (n.hasInput(2) && beta != 0) {
    TRY(c, n.in(2));
    if (beta != 1) {
      TRY(s, make<MulScalarOp>(n, c, n.scalarAttr(elt, beta)));
      c = s;
    }
    TRY(s, make<AddOp>(n, y, c));
    y = s;
  }
  n.setOutput(0, y);
  return success();
}

LogicalResult convertDet(NodeContext &n) { return unary<DetOp>(n); }

LogicalResult convertEinsum(NodeContext &n) {
  TRY(eqAttr, n.attrString("equation", ""));
  std::string eq;
  for (char c : eqAttr)
    if (c != ' ')
      eq += c;
  if (eq.find("...") != std::string::npos)
    return n.error("einsum equations with '...' are not supported");
  SmallVector<Value> inputs;
  for (size_t i = 0; i < n.numInputs(); ++i) {
    TRY(x, n.in(i));
    inputs.push_back(x);
  }
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  SmallVector<StringRef> terms;
  StringRef(lhs).split(terms, ',');
  if (terms.size() != inputs.size())
    return n.error("equation '" + eq + "' has " + Twine(terms.size()) +
                   " terms for " + Twine(inputs.size()) + " inputs");
  std::map<char, int64_t> sizes, counts;
  for (auto [term, v] : llvm::zip(terms, inputs)) {
    auto t = tensorType(v);
    if ((int64_t)term.size() != t.getRank())
      return n.error("term '" + term + "' does not match rank " +
                     Twine(t.getRank()));
    for (auto [i, c] : llvm::enumerate(term)) {
      sizes[c] = std::max(sizes[c], t.getDimSize(i));
      counts[c]++;
    }
  }
  std::string out;
  if (arrow == std::string::npos) {
    for (auto [c, cnt] : counts)
      if (cnt == 1)
        out += c;
    eq += "->" + out;
  } else {
    out = eq.substr(arrow + 2);
  }
  SmallVector<int64_t> shape;
  for (char c : out) {
    if (!sizes.count(c))
      return n.error("output label '" + Twine(c) + "' appears in no input");
    shape.push_back(sizes[c]);
  }
  auto t = RankedTensorType::get(shape, tensorType(inputs[0]).getElementType());
  n.setOutput(0, EinsumOp::create(n.b, n.loc, t, inputs, eq).getResult());
  return success();
}

/// (a - a_zero) @ (b - b_zero) in int32, exact. A 1-D zero point of A
/// runs along its rows, one of B along its columns.
FailureOr<Value> integerMatmul(NodeContext &n, Value a, size_t aZero, Value b,
                               size_t bZero) {
  Type i32 = n.b.getI32Type();
  Value a32 = n.cast(a, i32), b32 = n.cast(b, i32);
  if (n.hasInput(aZero)) {
    TRY(za, n.in(aZero));
    // A 1-D zero point of A runs along the rows (dim -2).
    Value z = n.cast(za, i32);
    if (tensorType(z).getRank() == 1 && tensorType(z).getDimSize(0) != 1)
      z = n.reshape(z, {tensorType(z).getDimSize(0), 1});
    TRY(s, make<SubOp>(n, a32, z));
    a32 = s;
  }
  if (n.hasInput(bZero)) {
    TRY(zb, n.in(bZero));
    TRY(s, make<SubOp>(n, b32, n.cast(zb, i32)));
    b32 = s;
  }
  return make<MatmulOp>(n, a32, b32);
}

LogicalResult convertMatMulInteger(NodeContext &n) {
  TRY(a, n.in(0));
  TRY(b, n.in(1));
  TRY(r, integerMatmul(n, a, 2, b, 3));
  n.setOutput(0, r);
  return success();
}

/// QLinearMatMul: the int32 product, scaled by a_scale * b_scale / y_scale,
/// rounded half to even, shifted by y_zero_point, saturated to y's type.
LogicalResult convertQLinearMatMul(NodeContext &n) {
  TRY(a, n.in(0));
  TRY(aScale, n.in(1));
  TRY(b, n.in(3));
  TRY(bScale, n.in(4));
  TRY(yScale, n.in(6));
  TRY(acc, integerMatmul(n, a, 2, b, 5));
  Type ft = tensorType(aScale).getElementType();
  auto asScale = [&](Value s, bool rows) -> Value {
    auto st = tensorType(s);
    if (st.getNumElements() == 1)
      return n.reshape(s, {});
    if (st.getRank() == 1 && rows)
      return n.reshape(s, {st.getDimSize(0), 1});
    return s;
  };
  TRY(m0, make<MulOp>(n, asScale(aScale, true), asScale(bScale, false)));
  TRY(multiplier, make<DivOp>(n, m0, asScale(yScale, false)));
  std::optional<Value> yZero;
  if (n.hasInput(7)) {
    TRY(z, n.in(7));
    yZero = z;
  }
  TRY(y, requantize(n, n.cast(acc, ft), multiplier, yZero,
                    tensorType(a).getElementType()));
  n.setOutput(0, y);
  return success();
}

} // namespace

void hodu::onnx_import::registerLinalgOps(ConverterTable &table) {
  table.insert({
      {"MatMul", binary<MatmulOp>},
      {"Gemm", convertGemm},
      {"Det", convertDet},
      {"Einsum", convertEinsum},
      {"MatMulInteger", convertMatMulInteger},
      {"QLinearMatMul", convertQLinearMatMul},
  });
}
