//===- HoduElementwiseOps.cpp - elementwise ops (HoduElementwiseOps.td) ---===//
//
// Folders and verifiers of the elementwise family.
//
// Verifier messages name the problem (which operand, which dim, what was
// expected and what was found): test/Dialect/Hodu/invalid.mlir hits each.
//
//===----------------------------------------------------------------------===//

#include "HoduOpsCommon.h"

#include "hodu/Dialect/Hodu/Evaluator.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::detail;

//===----------------------------------------------------------------------===//
// Binary folders: identities and constant evaluation of same-shape operands
//===----------------------------------------------------------------------===//

namespace {
/// Returns `lhs` when the op leaves it unchanged: same type as the result and
/// `rhs` is the identity element recognised by `isIdentity`.
template <typename OpT, typename Pred>
OpFoldResult foldIdentity(OpT op, Pred isIdentity) {
  if (op.getLhs().getType() == op.getType() && isIdentity(op.getRhs()))
    return op.getLhs();
  return {};
}

/// Evaluates a binary op on two constant operands of the result's type (no
/// broadcasting) with the dialect's evaluator. These are the only cases the
/// folders take: canonicalization must not grow constants or visit large
/// ones, which is hodu-fold-constants' business (it has size limits).
OpFoldResult foldConstants(Operation *op, ArrayRef<Attribute> operands) {
  Type type = op->getResult(0).getType();
  if (isBool(cast<RankedTensorType>(type).getElementType()))
    return {};
  SmallVector<ConstantView, 2> views;
  for (auto [value, attr] : llvm::zip_equal(op->getOperands(), operands)) {
    auto view = ConstantView::get(dyn_cast_if_present<DenseElementsAttr>(attr));
    if (value.getType() != type || !view)
      return {};
    views.push_back(*view);
  }
  // Operands have the result's shape, so the result is no larger than they
  // are; `dense` results like the folders always produced.
  return evaluate(op, views,
                  EvaluationLimits(INT64_MAX, INT64_MAX, INT64_MAX));
}

/// `lhs` when `rhs` is the identity, else the evaluated constant.
template <typename OpT, typename Pred>
OpFoldResult foldBinary(OpT op, ArrayRef<Attribute> operands, Pred isIdentity) {
  if (auto r = foldIdentity(op, isIdentity))
    return r;
  return foldConstants(op, operands);
}

bool isIntZero(Value v) { return matchPattern(v, m_Zero()); }
/// Integer or float one.
bool isOne(Value v) {
  return matchPattern(v, m_One()) || matchPattern(v, m_OneFloat());
}
} // namespace

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor.getOperands(), [](Value v) {
    return isIntZero(v) || matchPattern(v, m_NegZeroFloat());
  });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor.getOperands(), [](Value v) {
    return isIntZero(v) || matchPattern(v, m_PosZeroFloat());
  });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldBinary(*this, adaptor.getOperands(), isOne);
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(*this, isOne))
    return r;
  // Integer division stays for hodu-fold-constants, as before these folders
  // used the evaluator: canonicalization folding it would change the code
  // of models that divide integer constants without running that pass.
  if (!isa<FloatType>(getType().getElementType()))
    return {};
  return foldConstants(*this, adaptor.getOperands());
}

OpFoldResult RemOp::fold(FoldAdaptor) { return {}; }

OpFoldResult PowOp::fold(FoldAdaptor) {
  // x ** 1 == x.
  return foldIdentity(*this, isOne);
}

OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  return foldConstants(*this, adaptor.getOperands());
}

OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  return foldConstants(*this, adaptor.getOperands());
}

//===----------------------------------------------------------------------===//
// Cast, select
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto in = rankedType(getInput().getType());
  if (in.getShape() != getType().getShape())
    return emitOpError("expects the result shape to equal the input shape ")
           << shapeStr(in.getShape()) << ", got "
           << shapeStr(getType().getShape());
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto c = rankedType(adaptor.getCond().getType());
  auto t = rankedType(adaptor.getTrueValue().getType());
  auto f = rankedType(adaptor.getFalseValue().getType());
  if (t.getElementType() != f.getElementType())
    return emitOptionalError(loc, "expects true and false values of one element "
                                  "type, got ",
                             t.getElementType(), " and ", f.getElementType());
  SmallVector<int64_t> s1, s2;
  if (failed(detail::broadcastShapes(t.getShape(), f.getShape(), s1)) ||
      failed(detail::broadcastShapes(c.getShape(), s1, s2)))
    return emitOptionalError(loc, "operand shapes ", shapeStr(c.getShape()), ", ",
                             shapeStr(t.getShape()), " and ",
                             shapeStr(f.getShape()),
                             " are not broadcast-compatible");
  types.push_back(RankedTensorType::get(s2, t.getElementType()));
  return success();
}
