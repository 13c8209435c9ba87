//===- HoduConvOps.cpp - convolutions (HoduConvOps.td) --------------------===//
//
// The verifier shared by the four convolution kinds.
//
// Verifier messages name the problem (which operand, which dim, what was
// expected and what was found): test/Dialect/Hodu/invalid.mlir hits each.
//
//===----------------------------------------------------------------------===//

#include "HoduOpsCommon.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::detail;

//===----------------------------------------------------------------------===//
// Conv family
//===----------------------------------------------------------------------===//

namespace {
enum class ConvKind { Forward, Transpose, GradWeight, TransposeGradWeight };

/// Verifies the shared attribute rules and the exact result shape of every
/// conv kind (`lhs`, `rhs` and result roles differ per kind; see the .td).
LogicalResult verifyConv(Operation *op, ConvKind kind, RankedTensorType lhs,
                         RankedTensorType rhs, RankedTensorType res,
                         ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                         ArrayRef<int64_t> dilations, int64_t groups,
                         ArrayRef<int64_t> outputPadding) {
  int64_t rank = lhs.getRank();
  if (rank < 3 || rank > 5)
    return op->emitOpError("expects rank 3, 4 or 5 (1-D, 2-D or 3-D "
                           "convolution), got ")
           << rank;
  if (rhs.getRank() != rank || res.getRank() != rank)
    return op->emitOpError("expects operands and result of one rank, got ")
           << rank << ", " << rhs.getRank() << " and " << res.getRank();
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != res.getElementType())
    return op->emitOpError("expects operands and result of one element type");
  int64_t n = rank - 2;
  if ((int64_t)strides.size() != n || (int64_t)dilations.size() != n)
    return op->emitOpError("expects ")
           << n << " strides and dilations (one per spatial dim), got "
           << strides.size() << " and " << dilations.size();
  if ((int64_t)pads.size() != 2 * n)
    return op->emitOpError("expects ")
           << 2 * n << " pads (begin and end per spatial dim), got "
           << pads.size();
  bool transposed =
      kind == ConvKind::Transpose || kind == ConvKind::TransposeGradWeight;
  if (transposed && (int64_t)outputPadding.size() != n)
    return op->emitOpError("expects ")
           << n << " output_padding entries, got " << outputPadding.size();
  if (llvm::any_of(strides, [](int64_t v) { return v <= 0; }) ||
      llvm::any_of(dilations, [](int64_t v) { return v <= 0; }))
    return op->emitOpError("expects positive strides and dilations");
  if (llvm::any_of(pads, [](int64_t v) { return v < 0; }))
    return op->emitOpError("expects non-negative pads");
  if (groups <= 0)
    return op->emitOpError("expects positive groups, got ") << groups;

  // Name the activation, weight and output tensors of the forward op.
  RankedTensorType x = lhs, w = rhs, y = res;
  bool gradWeight =
      kind == ConvKind::GradWeight || kind == ConvKind::TransposeGradWeight;
  if (gradWeight) {
    w = res;
    y = rhs;
  }
  auto dim = [](RankedTensorType t, int64_t d) { return t.getDimSize(d); };
  auto known = [](int64_t v) { return !ShapedType::isDynamic(v); };
  int64_t c = dim(x, 1);
  // Weight layouts: forward [O, C/g, k...], transposed [C, O/g, k...].
  int64_t wIn = transposed ? dim(w, 0) : dim(w, 1) * groups;
  int64_t o = transposed ? dim(w, 1) * groups : dim(w, 0);
  if (known(c) && known(wIn) && c != wIn)
    return op->emitOpError("input channels (")
           << c << ") do not match the weights (" << wIn << " with groups "
           << groups << ")";
  if (known(c) && c % groups != 0)
    return op->emitOpError("input channels (")
           << c << ") are not divisible by groups (" << groups << ")";
  if (known(o) && o % groups != 0)
    return op->emitOpError("output channels (")
           << o << ") are not divisible by groups (" << groups << ")";

  SmallVector<int64_t> expected{dim(x, 0), o};
  for (int64_t i = 0; i < n; ++i) {
    int64_t in = dim(x, 2 + i), k = dim(w, 2 + i);
    if (!known(in) || !known(k)) {
      expected.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t out = transposed ? strides[i] * (in - 1) + outputPadding[i] +
                                   dilations[i] * (k - 1) + 1 - pads[i] -
                                   pads[n + i]
                             : windowOutSize(in, k, strides[i], dilations[i],
                                             pads[i], pads[n + i]);
    if (out <= 0)
      return op->emitOpError("spatial dim ")
             << i << " has an empty output (input " << in << ", kernel " << k
             << ")";
    expected.push_back(out);
  }
  auto matches = [&](ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
    for (auto [p, q] : llvm::zip(a, b))
      if (known(p) && known(q) && p != q)
        return false;
    return true;
  };
  if (!matches(expected, y.getShape()))
    return op->emitOpError("expects ")
           << (gradWeight ? "output gradient (rhs)" : "result") << " shape "
           << shapeStr(expected) << ", got " << shapeStr(y.getShape());
  return success();
}
} // namespace

LogicalResult ConvOp::verify() {
  return verifyConv(*this, ConvKind::Forward, rankedType(getLhs().getType()),
                    rankedType(getRhs().getType()), getType(), getStrides(),
                    getPads(), getDilations(), getGroups(), {});
}
LogicalResult ConvTransposeOp::verify() {
  return verifyConv(*this, ConvKind::Transpose, rankedType(getLhs().getType()),
                    rankedType(getRhs().getType()), getType(), getStrides(),
                    getPads(), getDilations(), getGroups(), getOutputPadding());
}
LogicalResult ConvGradWeightOp::verify() {
  return verifyConv(*this, ConvKind::GradWeight, rankedType(getLhs().getType()),
                    rankedType(getRhs().getType()), getType(), getStrides(),
                    getPads(), getDilations(), getGroups(), {});
}
LogicalResult ConvTransposeGradWeightOp::verify() {
  return verifyConv(*this, ConvKind::TransposeGradWeight,
                    rankedType(getLhs().getType()),
                    rankedType(getRhs().getType()), getType(), getStrides(),
                    getPads(), getDilations(), getGroups(), getOutputPadding());
}
