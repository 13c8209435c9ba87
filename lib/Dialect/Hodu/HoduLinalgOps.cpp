//===- HoduLinalgOps.cpp - matrix ops (HoduLinalgOps.td) ------------------===//
//
// Shape inference and verifiers of the matrix family.
//
// Verifier messages name the problem (which operand, which dim, what was
// expected and what was found): test/Dialect/Hodu/invalid.mlir hits each.
//
//===----------------------------------------------------------------------===//

#include "HoduOpsCommon.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::detail;

//===----------------------------------------------------------------------===//
// Matrix and Linalg
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto l = rankedType(adaptor.getLhs().getType());
  auto r = rankedType(adaptor.getRhs().getType());
  if (l.getElementType() != r.getElementType())
    return emitOptionalError(loc, "expects operands of one element type, got ",
                             l.getElementType(), " and ", r.getElementType());
  if (l.getRank() < 1 || r.getRank() < 1)
    return emitOptionalError(loc, "expects operands of rank >= 1, got ",
                             l.getRank(), " and ", r.getRank());
  SmallVector<int64_t> ls(l.getShape()), rs(r.getShape());
  bool lVec = ls.size() == 1, rVec = rs.size() == 1;
  if (lVec)
    ls.insert(ls.begin(), 1);
  if (rVec)
    rs.push_back(1);
  int64_t k1 = ls.back(), k2 = rs[rs.size() - 2];
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return emitOptionalError(loc, "contracted dimensions differ: lhs has ", k1,
                             ", rhs has ", k2);
  SmallVector<int64_t> batch;
  if (failed(detail::broadcastShapes(ArrayRef(ls).drop_back(2),
                                     ArrayRef(rs).drop_back(2), batch)))
    return emitOptionalError(loc, "batch dimensions ",
                             shapeStr(ArrayRef(ls).drop_back(2)), " and ",
                             shapeStr(ArrayRef(rs).drop_back(2)),
                             " are not broadcast-compatible");
  if (!lVec)
    batch.push_back(ls[ls.size() - 2]);
  if (!rVec)
    batch.push_back(rs.back());
  types.push_back(RankedTensorType::get(batch, l.getElementType()));
  return success();
}

LogicalResult DotOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto l = rankedType(adaptor.getLhs().getType());
  auto r = rankedType(adaptor.getRhs().getType());
  if (l.getRank() != 1 || r.getRank() != 1)
    return emitOptionalError(loc, "expects 1-D operands, got ranks ",
                             l.getRank(), " and ", r.getRank());
  if (l.getElementType() != r.getElementType())
    return emitOptionalError(loc, "expects operands of one element type, got ",
                             l.getElementType(), " and ", r.getElementType());
  if (!ShapedType::isDynamic(l.getDimSize(0)) &&
      !ShapedType::isDynamic(r.getDimSize(0)) &&
      l.getDimSize(0) != r.getDimSize(0))
    return emitOptionalError(loc, "expects operands of equal length, got ",
                             l.getDimSize(0), " and ", r.getDimSize(0));
  types.push_back(RankedTensorType::get({}, l.getElementType()));
  return success();
}

static LogicalResult inferSquareMatrix(std::optional<Location> loc, Type input,
                                       bool keepMatrix,
                                       SmallVectorImpl<Type> &types) {
  auto t = rankedType(input);
  if (t.getRank() < 2)
    return emitOptionalError(loc, "expects a tensor of rank >= 2, got rank ",
                             t.getRank());
  int64_t n = t.getDimSize(t.getRank() - 1), m = t.getDimSize(t.getRank() - 2);
  if (!ShapedType::isDynamic(n) && !ShapedType::isDynamic(m) && n != m)
    return emitOptionalError(loc, "expects square matrices, got ", m, "x", n);
  if (keepMatrix)
    types.push_back(t);
  else
    types.push_back(RankedTensorType::get(t.getShape().drop_back(2),
                                          t.getElementType()));
  return success();
}

LogicalResult DetOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferSquareMatrix(loc, adaptor.getInput().getType(), false, types);
}
LogicalResult InvOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferSquareMatrix(loc, adaptor.getInput().getType(), true, types);
}
LogicalResult TraceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  return inferSquareMatrix(loc, adaptor.getInput().getType(), false, types);
}

LogicalResult EinsumOp::verify() {
  StringRef eq = getEquation();
  auto arrow = eq.find("->");
  if (arrow == StringRef::npos)
    return emitOpError("expects an explicit output ('->') in equation '")
           << eq << "'";
  SmallVector<StringRef> terms;
  eq.substr(0, arrow).split(terms, ',');
  StringRef out = eq.substr(arrow + 2).trim();
  if (terms.size() != getInputs().size())
    return emitOpError("equation '")
           << eq << "' has " << terms.size() << " input terms for "
           << getInputs().size() << " operands";
  // Sizes may be dynamic: a label's size is the first static size seen.
  auto known = [](int64_t v) { return !ShapedType::isDynamic(v); };
  llvm::DenseMap<char, int64_t> sizes;
  Type elt = rankedType(getInputs()[0].getType()).getElementType();
  for (auto [i, term, in] : llvm::enumerate(terms, getInputs())) {
    term = term.trim();
    auto t = rankedType(in.getType());
    if (t.getElementType() != elt)
      return emitOpError("expects operands of one element type, operand #")
             << i << " has " << t.getElementType() << ", operand #0 has "
             << elt;
    if ((int64_t)term.size() != t.getRank())
      return emitOpError("term '") << term << "' of operand #" << i << " has "
                                   << term.size() << " labels, but the operand "
                                   << "has rank " << t.getRank();
    for (auto [d, c] : llvm::enumerate(term)) {
      if (!llvm::isAlpha(c))
        return emitOpError("invalid label '") << c << "' in equation '" << eq
                                              << "'";
      int64_t size = t.getDimSize(d);
      auto [it, inserted] = sizes.try_emplace(c, size);
      if (inserted || !known(size))
        continue;
      if (!known(it->second))
        it->second = size;
      else if (it->second != size)
        return emitOpError("label '") << c << "' has sizes " << it->second
                                      << " and " << size << " (operand #" << i
                                      << ", dim " << d << ")";
    }
  }
  if ((int64_t)out.size() != getType().getRank())
    return emitOpError("output term '") << out << "' has " << out.size()
                                        << " labels, but the result has rank "
                                        << getType().getRank();
  llvm::SmallSet<char, 8> seenOut;
  for (auto [d, c] : llvm::enumerate(out)) {
    auto it = sizes.find(c);
    if (it == sizes.end())
      return emitOpError("output label '") << c << "' appears in no input";
    if (!seenOut.insert(c).second)
      return emitOpError("output label '") << c << "' appears more than once";
    int64_t got = getType().getDimSize(d);
    if (known(it->second) && known(got) && it->second != got)
      return emitOpError("result dim ") << d << " should be " << it->second
                                        << " (label '" << c << "'), got " << got;
  }
  if (failed(verifyResultElementType(*this, elt)))
    return failure();
  return success();
}
