//===- HoduElementwiseOps.cpp - elementwise ops (HoduElementwiseOps.td) ---===//
//
// Folders and verifiers of the elementwise family.
//
// Verifier messages name the problem (which operand, which dim, what was
// expected and what was found): test/Dialect/Hodu/invalid.mlir hits each.
//
//===----------------------------------------------------------------------===//

#include "HoduOpsCommon.h"

#include "mlir/Dialect/CommonFolders.h"
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
/// broadcasting). `intFn(a, b, isUnsigned)` gets the signedness of the Hodu
/// dtype: signless integers are signed, `ui*` unsigned. Either function may
/// return std::nullopt to leave the op alone.
template <typename OpT, typename FloatFn, typename IntFn>
OpFoldResult foldConstants(OpT op, ArrayRef<Attribute> operands,
                           FloatFn floatFn, IntFn intFn) {
  if (op.getLhs().getType() != op.getType() ||
      op.getRhs().getType() != op.getType())
    return {};
  Type elt = op.getType().getElementType();
  // `void`: the hodu dialect has no poison values.
  if (isa<FloatType>(elt))
    return constFoldBinaryOpConditional<FloatAttr, APFloat, void>(
        operands, [&](const APFloat &a, const APFloat &b) {
          return std::optional<APFloat>(floatFn(a, b));
        });
  if (isa<IntegerType>(elt) && !isBool(elt)) {
    bool isUnsigned = elt.isUnsignedInteger();
    return constFoldBinaryOpConditional<IntegerAttr, APInt, void>(
        operands, [&](const APInt &a, const APInt &b) {
          return std::optional<APInt>(intFn(a, b, isUnsigned));
        });
  }
  return {};
}

bool isIntZero(Value v) { return matchPattern(v, m_Zero()); }
bool isIntOne(Value v) { return matchPattern(v, m_One()); }
} // namespace

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(*this, [](Value v) {
        return isIntZero(v) || matchPattern(v, m_NegZeroFloat());
      }))
    return r;
  return foldConstants(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) { return a + b; },
      [](const APInt &a, const APInt &b, bool) { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(*this, [](Value v) {
        return isIntZero(v) || matchPattern(v, m_PosZeroFloat());
      }))
    return r;
  return foldConstants(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) { return a - b; },
      [](const APInt &a, const APInt &b, bool) { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(*this, [](Value v) {
        return isIntOne(v) || matchPattern(v, m_OneFloat());
      }))
    return r;
  return foldConstants(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) { return a * b; },
      [](const APInt &a, const APInt &b, bool) { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(*this, [](Value v) {
        return isIntOne(v) || matchPattern(v, m_OneFloat());
      }))
    return r;
  // Integer division by constants is left to the constant-folding pass, which
  // knows signedness and division by zero.
  return foldConstants(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) { return a / b; },
      [](const APInt &, const APInt &, bool) -> std::optional<APInt> {
        return std::nullopt;
      });
}

OpFoldResult RemOp::fold(FoldAdaptor) { return {}; }

OpFoldResult PowOp::fold(FoldAdaptor) {
  // x ** 1 == x.
  return foldIdentity(*this, [](Value v) {
    return isIntOne(v) || matchPattern(v, m_OneFloat());
  });
}

OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  return foldConstants(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) { return llvm::maximum(a, b); },
      [](const APInt &a, const APInt &b, bool isUnsigned) {
        return isUnsigned ? llvm::APIntOps::umax(a, b)
                          : llvm::APIntOps::smax(a, b);
      });
}

OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  return foldConstants(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) { return llvm::minimum(a, b); },
      [](const APInt &a, const APInt &b, bool isUnsigned) {
        return isUnsigned ? llvm::APIntOps::umin(a, b)
                          : llvm::APIntOps::smin(a, b);
      });
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
