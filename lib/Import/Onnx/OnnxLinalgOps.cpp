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

/// An einsum equation with '...' written out: the ellipsis of each term
/// becomes labels no term uses, aligned at the right across the inputs
/// (numpy broadcasting; an input whose ellipsis dim is 1 where another's is
/// larger is broadcast first), and the output's ellipsis (or, without
/// '->', the ellipsis before the labels that appear once) those labels.
FailureOr<std::string> expandEllipsis(NodeContext &n, StringRef eq,
                                      SmallVector<Value> &inputs) {
  size_t arrow = eq.find("->");
  StringRef lhs = eq.substr(0, arrow);
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != inputs.size())
    return n.error("equation '" + eq + "' has " + Twine(terms.size()) +
                   " terms for " + Twine(inputs.size()) + " inputs");
  std::string unused;
  for (char c = 'A'; c <= 'Z'; ++c)
    if (eq.find(c) == StringRef::npos)
      unused += c;
  for (char c = 'a'; c <= 'z'; ++c)
    if (eq.find(c) == StringRef::npos)
      unused += c;
  // Each term's ellipsis rank, and the widest.
  SmallVector<int64_t> ranks;
  int64_t widest = 0;
  for (auto [term, v] : llvm::zip(terms, inputs)) {
    size_t at = term.find("...");
    int64_t named = (int64_t)term.size() - (at == StringRef::npos ? 0 : 3);
    int64_t e = at == StringRef::npos ? 0 : tensorType(v).getRank() - named;
    if (e < 0 || (at != StringRef::npos && term.find("...", at + 3) != StringRef::npos))
      return n.error("term '" + term + "' does not match rank " +
                     Twine(tensorType(v).getRank()));
    ranks.push_back(e);
    widest = std::max(widest, e);
  }
  if (widest > (int64_t)unused.size())
    return n.error("the ellipsis covers more dims than there are free labels");
  std::string labels = unused.substr(0, widest);
  // Sizes of the ellipsis dims (aligned at the right), then broadcasts.
  SmallVector<int64_t> sizes(widest, 1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    int64_t e = ranks[i];
    size_t at = terms[i].find("...");
    for (int64_t k = 0; k < e; ++k) {
      int64_t d = tensorType(inputs[i]).getDimSize(at + k);
      int64_t &size = sizes[widest - e + k];
      if (size != 1 && d != 1 && d != size)
        return n.error("the ellipsis dims of the inputs do not broadcast");
      size = std::max(size, d);
    }
  }
  std::string out;
  for (auto [i, term] : llvm::enumerate(terms)) {
    size_t at = term.find("...");
    if (at == StringRef::npos) {
      out += (i ? "," : "") + term.str();
      continue;
    }
    int64_t e = ranks[i];
    auto t = tensorType(inputs[i]);
    SmallVector<int64_t> shape(t.getShape());
    for (int64_t k = 0; k < e; ++k)
      shape[at + k] = sizes[widest - e + k];
    inputs[i] = broadcastTo(n, inputs[i], shape);
    out += (i ? "," : "") + term.substr(0, at).str() +
           labels.substr(widest - e) + term.substr(at + 3).str();
  }
  if (arrow != StringRef::npos) {
    StringRef rhs = eq.substr(arrow + 2);
    size_t at = rhs.find("...");
    out += "->" + (at == StringRef::npos
                       ? rhs.str()
                       : rhs.substr(0, at).str() + labels + rhs.substr(at + 3).str());
    return out;
  }
  // Implicit output: the ellipsis, then the labels that appear once, sorted.
  std::map<char, int> counts;
  for (StringRef term : terms)
    for (char c : term)
      if (c != '.')
        counts[c]++;
  out += "->" + labels;
  for (auto [c, cnt] : counts)
    if (cnt == 1)
      out += c;
  return out;
}

LogicalResult convertEinsum(NodeContext &n) {
  TRY(eqAttr, n.attrString("equation", ""));
  std::string eq;
  for (char c : eqAttr)
    if (c != ' ')
      eq += c;
  SmallVector<Value> inputs;
  for (size_t i = 0; i < n.numInputs(); ++i) {
    TRY(x, n.in(i));
    inputs.push_back(x);
  }
  if (eq.find("...") != std::string::npos) {
    TRY(expanded, expandEllipsis(n, eq, inputs));
    eq = expanded;
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

/// (a - a_zero) @ (b - b_zero) in int32, exact, of inputs `aIn`, `bIn`
/// and their zero points inputs `aZero`, `bZero`. A 1-D zero point of A
/// runs along its rows, one of B along its columns. Computed in f32 (the
/// packed float kernels) when every partial sum is an integer f32 holds
/// exactly (integerDotBound: by B's values when they are known at import
/// time, else by A's, else by the types' ranges); with a constant B whose
/// sums are larger, in the fewest parts of K (at most 16) each exact in
/// f32, added in int32; else in int32.
FailureOr<Value> integerMatmul(NodeContext &n, size_t aIn, size_t aZero,
                               size_t bIn, size_t bZero) {
  TRY(a, n.in(aIn));
  TRY(b, n.in(bIn));
  auto at = tensorType(a), bt = tensorType(b);
  if (!isa<IntegerType>(at.getElementType()) ||
      !isa<IntegerType>(bt.getElementType()))
    return n.error("expects integer operands");
  if (at.getRank() < 1 || bt.getRank() < 1)
    return n.error("expects operands of rank 1 or more");
  // A [..., M, K] x B [..., K, N]; a 1-D A is one row, a 1-D B one column.
  int64_t k = at.getShape().back();
  int64_t rows = at.getRank() >= 2 ? at.getShape().drop_back().back() : 1;
  int64_t cols = bt.getRank() >= 2 ? bt.getShape().back() : 1;
  // Whether a zero point has one entry per row (A) or column (B).
  auto perVector = [&](size_t zero) {
    return n.hasInput(zero) && n.type(zero).getRank() == 1 &&
           n.type(zero).getDimSize(0) != 1;
  };
  double bound;
  int64_t parts = 1;
  if (n.constantInput(bIn)) {
    bool perColumn = perVector(bZero);
    int64_t batches = product(bt.getShape()) / std::max<int64_t>(k * cols, 1);
    double aBound = integerOperandBound(n, at.getElementType(), aZero);
    // The bound of the sums over `p` equal parts of K.
    auto boundOf = [&](int64_t p) {
      int64_t per = llvm::divideCeil(k, p);
      return integerDotBound(
          n, aBound, bIn, bZero, per, batches * cols * p,
          [&](int64_t i) {
            return (i / (k * cols) * cols + i % cols) * p + i / cols % k / per;
          },
          [&](int64_t i) { return perColumn ? i % cols : 0; });
    };
    bound = boundOf(1);
    // Sums f32 does not hold exactly: the fewest parts of K (at most 16)
    // whose sums it does, one f32 matmul each, added in int32 (as
    // integerConv splits channels); else the matmul is in int32.
    if (!exactInF32(bound) && bt.getRank() >= 2)
      parts = std::max<int64_t>(fewestExactParts(k, boundOf), 1);
  } else {
    bool perRow = perVector(aZero);
    int64_t outputs = product(at.getShape()) / std::max<int64_t>(k, 1);
    bound = integerDotBound(
        n, integerOperandBound(n, bt.getElementType(), bZero), aIn, aZero, k,
        outputs, [&](int64_t i) { return i / k; },
        [&](int64_t i) { return perRow ? i / k % rows : 0; });
  }
  Type i32 = n.b.getI32Type();
  Type ct = parts > 1 || exactInF32(bound) ? (Type)n.b.getF32Type() : i32;
  Value ac = n.cast(a, ct), bc = n.cast(b, ct);
  if (n.hasInput(aZero)) {
    TRY(za, n.in(aZero));
    // A 1-D zero point of A runs along the rows (dim -2).
    Value z = n.cast(za, ct);
    if (tensorType(z).getRank() == 1 && tensorType(z).getDimSize(0) != 1)
      z = n.reshape(z, {tensorType(z).getDimSize(0), 1});
    TRY(s, make<SubOp>(n, ac, z));
    ac = s;
  }
  if (n.hasInput(bZero)) {
    TRY(zb, n.in(bZero));
    TRY(s, make<SubOp>(n, bc, n.cast(zb, ct)));
    bc = s;
  }
  if (parts == 1) {
    TRY(product, make<MatmulOp>(n, ac, bc));
    return ct == i32 ? product : n.cast(product, i32);
  }
  // One f32 matmul per part of K (A's last dim, B's second to last).
  return sumOfParts(n, k, parts,
                    [&](int64_t lo, int64_t hi) -> FailureOr<Value> {
                      TRY(as, sliceDim(n, ac, tensorType(ac).getRank() - 1,
                                       lo, hi));
                      TRY(bs, sliceDim(n, bc, tensorType(bc).getRank() - 2,
                                       lo, hi));
                      return make<MatmulOp>(n, as, bs);
                    });
}

LogicalResult convertMatMulInteger(NodeContext &n) {
  TRY(r, integerMatmul(n, 0, 2, 1, 3));
  n.setOutput(0, r);
  return success();
}

/// QLinearMatMul: the int32 product, scaled by a_scale * b_scale / y_scale,
/// rounded half to even, shifted by y_zero_point, saturated to y's type.
LogicalResult convertQLinearMatMul(NodeContext &n) {
  TRY(a, n.in(0));
  TRY(aScale, n.in(1));
  TRY(bScale, n.in(4));
  TRY(yScale, n.in(6));
  TRY(acc, integerMatmul(n, 0, 2, 3, 5));
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
