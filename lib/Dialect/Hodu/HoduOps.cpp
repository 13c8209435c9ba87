//===- HoduOps.cpp - hodu dialect: verifiers, inference, folders ----------===//
//
// Verifier messages name the problem (which operand, which dim, what was
// expected and what was found): test/Dialect/Hodu/invalid.mlir hits each.
//
//===----------------------------------------------------------------------===//

#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace hodu;

#include "Hodu/HoduDialect.cpp.inc"
#include "Hodu/HoduEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "Hodu/HoduAttrs.cpp.inc"

void HoduDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Hodu/HoduOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Hodu/HoduAttrs.cpp.inc"
      >();
}

Operation *HoduDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

namespace {
std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += ShapedType::isDynamic(d) ? "?" : std::to_string(d);
  }
  return s + "]";
}

RankedTensorType rankedType(Type t) { return cast<RankedTensorType>(t); }

bool isBool(Type t) { return t.isInteger(1); }

/// Checks that every entry of `dims` is in [0, rank) and appears once.
LogicalResult checkDims(std::optional<Location> loc, ArrayRef<int64_t> dims,
                        int64_t rank, StringRef what) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return emitOptionalError(loc, what, " ", d, " is out of range for rank ",
                               rank);
    if (!seen.insert(d).second)
      return emitOptionalError(loc, what, " ", d, " appears more than once");
  }
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// Shared inference helpers (declared in HoduOps.h)
//===----------------------------------------------------------------------===//

LogicalResult hodu::detail::broadcastShapes(ArrayRef<int64_t> a,
                                            ArrayRef<int64_t> b,
                                            SmallVectorImpl<int64_t> &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1) {
      out[i] = db;
    } else if (db == 1) {
      out[i] = da;
    } else if (ShapedType::isDynamic(da) || ShapedType::isDynamic(db)) {
      out[i] = ShapedType::isDynamic(da) ? db : da;
    } else if (da != db) {
      return failure();
    } else {
      out[i] = da;
    }
  }
  return success();
}

LogicalResult hodu::detail::inferBroadcastBinary(std::optional<Location> loc,
                                                 Type lhs, Type rhs,
                                                 bool boolResult,
                                                 SmallVectorImpl<Type> &types) {
  auto l = rankedType(lhs), r = rankedType(rhs);
  if (l.getElementType() != r.getElementType())
    return emitOptionalError(loc, "expects operands of one element type, got ",
                             l.getElementType(), " and ", r.getElementType());
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(l.getShape(), r.getShape(), shape)))
    return emitOptionalError(loc, "operand shapes ", shapeStr(l.getShape()),
                             " and ", shapeStr(r.getShape()),
                             " are not broadcast-compatible");
  Type elt = boolResult ? IntegerType::get(lhs.getContext(), 1)
                        : l.getElementType();
  types.push_back(RankedTensorType::get(shape, elt));
  return success();
}

LogicalResult hodu::detail::inferElementwise(Type input, bool boolResult,
                                             SmallVectorImpl<Type> &types) {
  auto t = rankedType(input);
  types.push_back(boolResult ? t.clone(IntegerType::get(input.getContext(), 1))
                             : t);
  return success();
}

LogicalResult hodu::detail::inferReduce(std::optional<Location> loc,
                                        Type input, ArrayRef<int64_t> dims,
                                        bool keepDim, StringRef resultKind,
                                        SmallVectorImpl<Type> &types) {
  auto t = rankedType(input);
  if (failed(checkDims(loc, dims, t.getRank(), "reduction dim")))
    return failure();
  if (resultKind == "i64" && dims.size() != 1)
    return emitOptionalError(loc, "expects exactly one reduction dim, got ",
                             dims.size());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < t.getRank(); ++i) {
    if (!llvm::is_contained(dims, i))
      shape.push_back(t.getDimSize(i));
    else if (keepDim)
      shape.push_back(1);
  }
  MLIRContext *ctx = input.getContext();
  Type elt = resultKind == "i64"    ? IntegerType::get(ctx, 64)
             : resultKind == "bool" ? IntegerType::get(ctx, 1)
                                    : t.getElementType();
  types.push_back(RankedTensorType::get(shape, elt));
  return success();
}

LogicalResult hodu::detail::verifyScalarAttr(Operation *op, Type input,
                                             TypedAttr scalar) {
  Type elt = rankedType(input).getElementType();
  // The kind is checked first: a tensor-typed attribute (`dense<...>`) would
  // otherwise be reported as a type mismatch.
  if (!isa<IntegerAttr, FloatAttr>(scalar))
    return op->emitOpError("expects an integer or float scalar attribute, got ")
           << scalar;
  if (scalar.getType() != elt)
    return op->emitOpError("expects the scalar's type to be the element type ")
           << elt << ", got " << scalar.getType();
  return success();
}

LogicalResult hodu::detail::verifyScatter(Operation *op, Type input,
                                          Type indices, Type src, int64_t dim) {
  auto in = rankedType(input), idx = rankedType(indices), s = rankedType(src);
  if (dim < 0 || dim >= in.getRank())
    return op->emitOpError("dim ") << dim << " is out of range for rank "
                                   << in.getRank();
  if (idx.getRank() != in.getRank())
    return op->emitOpError("expects indices of the input's rank ")
           << in.getRank() << ", got " << idx.getRank();
  if (idx.getShape() != s.getShape())
    return op->emitOpError("expects src of the indices' shape ")
           << shapeStr(idx.getShape()) << ", got " << shapeStr(s.getShape());
  if (s.getElementType() != in.getElementType())
    return op->emitOpError("expects src of the input's element type ")
           << in.getElementType() << ", got " << s.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

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
  if (getType().getElementType() != elt)
    return emitOpError("expects the result element type ")
           << elt << ", got " << getType().getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Windowing, Scan, Sort
//===----------------------------------------------------------------------===//

/// Output size of a window of `k` taps with dilation `d` and stride `s` over
/// `in` padded by `pb`/`pe`.
static int64_t windowOutSize(int64_t in, int64_t k, int64_t s, int64_t d,
                             int64_t pb, int64_t pe) {
  if (ShapedType::isDynamic(in))
    return ShapedType::kDynamic;
  int64_t span = d * (k - 1) + 1;
  int64_t padded = in + pb + pe;
  if (padded < span)
    return 0;
  return (padded - span) / s + 1;
}

LogicalResult ReduceWindowOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  int64_t r = t.getRank();
  auto w = adaptor.getWindowDims(), s = adaptor.getStrides(),
       d = adaptor.getDilations(), p = adaptor.getPads();
  if ((int64_t)w.size() != r || (int64_t)s.size() != r ||
      (int64_t)d.size() != r)
    return emitOptionalError(loc, "expects window_dims, strides and dilations "
                                  "with one entry per dim (",
                             r, "), got ", w.size(), ", ", s.size(), " and ",
                             d.size());
  if ((int64_t)p.size() != 2 * r)
    return emitOptionalError(loc, "expects ", 2 * r,
                             " pads (begin and end per dim), got ", p.size());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < r; ++i) {
    if (w[i] <= 0 || s[i] <= 0 || d[i] <= 0)
      return emitOptionalError(loc, "expects positive window_dims, strides and "
                                    "dilations (dim ",
                               i, ")");
    if (p[i] < 0 || p[r + i] < 0)
      return emitOptionalError(loc, "expects non-negative pads (dim ", i, ")");
    int64_t out =
        windowOutSize(t.getDimSize(i), w[i], s[i], d[i], p[i], p[r + i]);
    if (out == 0)
      return emitOptionalError(loc, "the window of dim ", i, " (", w[i],
                               " taps, dilation ", d[i],
                               ") is larger than the padded input (",
                               t.getDimSize(i) + p[i] + p[r + i], ")");
    shape.push_back(out);
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult CumSumOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim >= t.getRank())
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             t.getRank());
  types.push_back(t);
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  int64_t dim = adaptor.getDim(), k = adaptor.getK();
  if (dim < 0 || dim >= t.getRank())
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             t.getRank());
  if (k < 0 || (!t.isDynamicDim(dim) && k > t.getDimSize(dim)))
    return emitOptionalError(loc, "k = ", k, " is out of range for dim ", dim,
                             " of size ", t.getDimSize(dim));
  SmallVector<int64_t> shape(t.getShape());
  shape[dim] = k;
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// Concat, Split
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "expects at least one input");
  auto first = rankedType(inputs[0].getType());
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim >= first.getRank())
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, v] : llvm::enumerate(inputs.drop_front())) {
    auto t = rankedType(v.getType());
    if (t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "input #", i + 1, " has element type ",
                               t.getElementType(), ", expected ",
                               first.getElementType());
    if (t.getRank() != first.getRank())
      return emitOptionalError(loc, "input #", i + 1, " has rank ", t.getRank(),
                               ", expected ", first.getRank());
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (d == dim) {
        shape[d] = ShapedType::isDynamic(shape[d]) || t.isDynamicDim(d)
                       ? ShapedType::kDynamic
                       : shape[d] + t.getDimSize(d);
      } else if (ShapedType::isDynamic(shape[d])) {
        shape[d] = t.getDimSize(d);
      } else if (!t.isDynamicDim(d) && t.getDimSize(d) != shape[d]) {
        return emitOptionalError(loc, "input #", i + 1, " has size ",
                                 t.getDimSize(d), " in dim ", d, ", expected ",
                                 shape[d]);
      }
    }
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim >= t.getRank())
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             t.getRank());
  int64_t total = 0;
  for (int64_t s : adaptor.getSizes()) {
    if (s < 0)
      return emitOptionalError(loc, "expects non-negative sizes, got ", s);
    total += s;
  }
  if (!t.isDynamicDim(dim) && total != t.getDimSize(dim))
    return emitOptionalError(loc, "sizes add up to ", total, ", but dim ", dim,
                             " has size ", t.getDimSize(dim));
  for (int64_t s : adaptor.getSizes()) {
    SmallVector<int64_t> shape(t.getShape());
    shape[dim] = s;
    types.push_back(RankedTensorType::get(shape, t.getElementType()));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shape family
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = rankedType(getInput().getType());
  if (in.getElementType() != getType().getElementType())
    return emitOpError("expects the result element type ")
           << in.getElementType() << ", got " << getType().getElementType();
  if (in.hasStaticShape() && getType().hasStaticShape() &&
      in.getNumElements() != getType().getNumElements())
    return emitOpError("cannot reshape ")
           << in.getNumElements() << " elements " << shapeStr(in.getShape())
           << " into " << getType().getNumElements() << " elements "
           << shapeStr(getType().getShape());
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // reshape(reshape(x)) -> reshape(x)
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  // A constant reshapes for free (DenseElementsAttr needs a static shape).
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return dense.reshape(getType());
  return {};
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  int64_t r = std::max<int64_t>(t.getRank(), 1);
  int64_t start = adaptor.getStartDim(), end = adaptor.getEndDim();
  if (start < 0)
    start += r;
  if (end < 0)
    end += r;
  if (start < 0 || start >= r || end < 0 || end >= r || start > end)
    return emitOptionalError(loc, "invalid dim range [", adaptor.getStartDim(),
                             ", ", adaptor.getEndDim(), "] for rank ",
                             t.getRank());
  SmallVector<int64_t> shape;
  if (t.getRank() == 0) {
    shape.push_back(1);
  } else {
    int64_t merged = 1;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (d < start || d > end) {
        shape.push_back(t.getDimSize(d));
        continue;
      }
      merged = (ShapedType::isDynamic(merged) || t.isDynamicDim(d))
                   ? ShapedType::kDynamic
                   : merged * t.getDimSize(d);
      if (d == end)
        shape.push_back(merged);
    }
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto dims = adaptor.getDims();
  if (failed(checkDims(loc, dims, t.getRank(), "squeeze dim")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d : dims) {
    if (t.getDimSize(d) != 1 && !t.isDynamicDim(d))
      return emitOptionalError(loc, "cannot squeeze dim ", d, " of size ",
                               t.getDimSize(d));
  }
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (!llvm::is_contained(dims, d))
      shape.push_back(t.getDimSize(d));
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto dims = adaptor.getDims();
  int64_t r = t.getRank() + dims.size();
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= r)
      return emitOptionalError(loc, "unsqueeze dim ", d,
                               " is out of range for result rank ", r);
    if (!seen.insert(d).second)
      return emitOptionalError(loc, "unsqueeze dim ", d,
                               " appears more than once");
  }
  SmallVector<int64_t> shape;
  auto it = t.getShape().begin();
  for (int64_t d = 0; d < r; ++d)
    shape.push_back(seen.contains(d) ? 1 : *it++);
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto in = rankedType(getInput().getType());
  auto out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("expects the result element type ")
           << in.getElementType() << ", got " << out.getElementType();
  if (in.getRank() > out.getRank())
    return emitOpError("cannot broadcast rank ")
           << in.getRank() << " to the smaller rank " << out.getRank();
  int64_t off = out.getRank() - in.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t a = in.getDimSize(d), b = out.getDimSize(d + off);
    if (a != 1 && a != b && !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b))
      return emitOpError("cannot broadcast ")
             << shapeStr(in.getShape()) << " to " << shapeStr(out.getShape())
             << ": input dim " << d << " is " << a;
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat() && getType().hasStaticShape())
      return DenseElementsAttr::get(getType(), dense.getSplatValue<Attribute>());
  return {};
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto perm = adaptor.getPerm();
  if ((int64_t)perm.size() != t.getRank())
    return emitOptionalError(loc, "expects a permutation of ", t.getRank(),
                             " dims, got ", perm.size());
  SmallVector<bool> seen(t.getRank(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= t.getRank() || seen[p])
      return emitOptionalError(loc, "perm is not a permutation of [0, ",
                               t.getRank(), ")");
    seen[p] = true;
    shape.push_back(t.getDimSize(p));
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto perm = getPerm();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  // transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2)
  if (auto producer = getInput().getDefiningOp<TransposeOp>()) {
    auto inner = producer.getPerm();
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner[p]);
    getInputMutable().assign(producer.getInput());
    setPerm(composed);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
      return getInput();
    return getResult();
  }
  return {};
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto starts = adaptor.getStarts(), ends = adaptor.getEnds(),
       steps = adaptor.getSteps();
  int64_t r = t.getRank();
  if ((int64_t)starts.size() != r || (int64_t)ends.size() != r ||
      (int64_t)steps.size() != r)
    return emitOptionalError(loc, "expects starts, ends and steps with one "
                                  "entry per dim (",
                             r, "), got ", starts.size(), ", ", ends.size(),
                             " and ", steps.size());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < r; ++d) {
    int64_t size = t.getDimSize(d), b = starts[d], e = ends[d], s = steps[d];
    if (s == 0)
      return emitOptionalError(loc, "step of dim ", d, " is zero");
    if (!ShapedType::isDynamic(size)) {
      bool ok = s > 0 ? (b >= 0 && b <= size && e >= 0 && e <= size)
                      : (b >= -1 && b < size && e >= -1 && e < size);
      if (!ok)
        return emitOptionalError(loc, "slice [", b, ":", e, ":", s, "] of dim ",
                                 d, " is out of bounds for size ", size);
    }
    int64_t n = s > 0 ? (e - b + s - 1) / s : (b - e + (-s) - 1) / (-s);
    shape.push_back(ShapedType::isDynamic(size) ? ShapedType::kDynamic
                                                : std::max<int64_t>(n, 0));
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  // The identity only when every dim is taken whole: a matching type is not
  // enough, a dynamic dim has the same type whatever the bounds.
  auto t = rankedType(getInput().getType());
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (t.isDynamicDim(d) || getStarts()[d] != 0 ||
        getEnds()[d] != t.getDimSize(d) || getSteps()[d] != 1)
      return {};
  return getInput();
}

LogicalResult FlipOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  if (failed(checkDims(loc, adaptor.getDims(), t.getRank(), "flip dim")))
    return failure();
  types.push_back(t);
  return success();
}

//===----------------------------------------------------------------------===//
// Padding, Resize
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto pads = adaptor.getPads();
  int64_t r = t.getRank();
  if ((int64_t)pads.size() != 2 * r)
    return emitOptionalError(loc, "expects ", 2 * r,
                             " pads (begin and end per dim), got ", pads.size());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < r; ++d) {
    if (pads[d] < 0 || pads[r + d] < 0)
      return emitOptionalError(loc, "expects non-negative pads, dim ", d,
                               " has ", pads[d], " and ", pads[r + d]);
    shape.push_back(t.isDynamicDim(d) ? ShapedType::kDynamic
                                      : t.getDimSize(d) + pads[d] + pads[r + d]);
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult PadOp::verify() {
  auto t = rankedType(getInput().getType());
  if (auto value = getValueAttr()) {
    if (getMode() != PadMode::constant)
      return emitOpError("a pad value is only allowed in constant mode");
    if (value.getType() != t.getElementType())
      return emitOpError("expects the pad value's type to be the element type ")
             << t.getElementType() << ", got " << value.getType();
  }
  if (getMode() == PadMode::reflect) {
    auto pads = getPads();
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (!t.isDynamicDim(d) &&
          (pads[d] >= t.getDimSize(d) || pads[t.getRank() + d] >= t.getDimSize(d)))
        return emitOpError("reflect padding of dim ")
               << d << " must be smaller than its size " << t.getDimSize(d);
  }
  return success();
}

LogicalResult ResizeOp::verify() {
  auto in = rankedType(getInput().getType());
  if (in.getRank() != getType().getRank())
    return emitOpError("expects the result rank to equal the input rank ")
           << in.getRank() << ", got " << getType().getRank();
  if (in.getElementType() != getType().getElementType())
    return emitOpError("expects the result element type ")
           << in.getElementType() << ", got " << getType().getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Memory, Dummy
//===----------------------------------------------------------------------===//

LogicalResult ContiguousOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location>,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  types.push_back(adaptor.getInput().getType());
  return success();
}
OpFoldResult ContiguousOp::fold(FoldAdaptor) { return getInput(); }

LogicalResult DummyOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  types.push_back(adaptor.getInput().getType());
  return success();
}
OpFoldResult DummyOp::fold(FoldAdaptor) { return getInput(); }

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

LogicalResult IndexSelectOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto idx = rankedType(adaptor.getIndices().getType());
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim >= t.getRank())
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             t.getRank());
  SmallVector<int64_t> shape(t.getShape().take_front(dim));
  llvm::append_range(shape, idx.getShape());
  llvm::append_range(shape, t.getShape().drop_front(dim + 1));
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult IndexPutOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  types.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult IndexPutOp::verify() {
  auto t = rankedType(getInput().getType());
  auto idx = rankedType(getIndices().getType());
  auto v = rankedType(getValues().getType());
  int64_t dim = getDim();
  if (dim < 0 || dim >= t.getRank())
    return emitOpError("dim ") << dim << " is out of range for rank "
                               << t.getRank();
  if (idx.getRank() != 1)
    return emitOpError("expects 1-D indices, got rank ") << idx.getRank();
  SmallVector<int64_t> expected(t.getShape());
  expected[dim] = idx.getDimSize(0);
  if (v.getShape() != ArrayRef(expected))
    return emitOpError("expects values of shape ")
           << shapeStr(expected) << ", got " << shapeStr(v.getShape());
  if (v.getElementType() != t.getElementType())
    return emitOpError("expects values of the input's element type ")
           << t.getElementType() << ", got " << v.getElementType();
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto idx = rankedType(adaptor.getIndices().getType());
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim >= t.getRank())
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             t.getRank());
  if (idx.getRank() != t.getRank())
    return emitOptionalError(loc, "expects indices of the input's rank ",
                             t.getRank(), ", got ", idx.getRank());
  types.push_back(RankedTensorType::get(idx.getShape(), t.getElementType()));
  return success();
}

LogicalResult OneHotOp::verify() {
  auto idx = rankedType(getIndices().getType());
  int64_t r = idx.getRank() + 1, axis = getAxis();
  if (axis < 0)
    axis += r;
  if (axis < 0 || axis >= r)
    return emitOpError("axis ") << getAxis() << " is out of range for result rank "
                                << r;
  if (getNumClasses() <= 0)
    return emitOpError("expects a positive num_classes, got ")
           << getNumClasses();
  SmallVector<int64_t> expected(idx.getShape());
  expected.insert(expected.begin() + axis, getNumClasses());
  if (getType().getShape() != ArrayRef(expected))
    return emitOpError("expects result shape ")
           << shapeStr(expected) << ", got " << shapeStr(getType().getShape());
  return success();
}

LogicalResult NonzeroOp::verify() {
  auto t = rankedType(getInput().getType());
  auto out = getType();
  if (out.getRank() != 2 || out.getDimSize(1) != t.getRank())
    return emitOpError("expects a result of shape [?, ")
           << t.getRank() << "], got " << shapeStr(out.getShape());
  return success();
}

LogicalResult UniqueOp::verify() {
  auto t = rankedType(getInput().getType());
  auto values = cast<RankedTensorType>(getValues().getType());
  if (values.getRank() != 1 || values.getElementType() != t.getElementType())
    return emitOpError("expects 1-D values of element type ")
           << t.getElementType() << ", got " << values;
  auto inverse = cast<RankedTensorType>(getInverse().getType());
  if (inverse.getShape() != t.getShape())
    return emitOpError("expects inverse indices of the input's shape ")
           << shapeStr(t.getShape()) << ", got " << shapeStr(inverse.getShape());
  auto counts = cast<RankedTensorType>(getCounts().getType());
  if (counts.getRank() != 1)
    return emitOpError("expects 1-D counts, got rank ") << counts.getRank();
  return success();
}

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

#define GET_OP_CLASSES
#include "Hodu/HoduOps.cpp.inc"
