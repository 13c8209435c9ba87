//===- HoduDialect.cpp - hodu dialect, shared helpers, op classes ---------===//
//
// The dialect's registration, the helpers the per-family op files share
// (HoduOpsCommon.h, HoduOps.h) and the generated op classes. Each op's
// hand-written verifier, inference and folder lives in the file of its
// TableGen family: Hodu<Family>Ops.cpp for dialects/Hodu/Hodu<Family>Ops.td.
//
//===----------------------------------------------------------------------===//

#include "HoduOpsCommon.h"

#include "hodu/Dialect/Hodu/Entry.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::detail;

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

std::string hodu::detail::shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += ShapedType::isDynamic(d) ? "?" : std::to_string(d);
  }
  return s + "]";
}

LogicalResult hodu::detail::checkDims(std::optional<Location> loc,
                                      ArrayRef<int64_t> dims, int64_t rank,
                                      StringRef what) {
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

LogicalResult hodu::detail::verifyDim(Operation *op, int64_t dim,
                                      int64_t rank) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError("dim ")
           << dim << " is out of range for rank " << rank;
  return success();
}

LogicalResult hodu::detail::verifyResultElementType(Operation *op,
                                                    Type expected) {
  Type got = cast<ShapedType>(op->getResult(0).getType()).getElementType();
  if (got != expected)
    return op->emitOpError("expects the result element type ")
           << expected << ", got " << got;
  return success();
}

int64_t hodu::detail::windowOutSize(int64_t in, int64_t k, int64_t s,
                                    int64_t d, int64_t pb, int64_t pe) {
  if (ShapedType::isDynamic(in))
    return ShapedType::kDynamic;
  int64_t span = d * (k - 1) + 1;
  int64_t padded = in + pb + pe;
  if (padded < span)
    return 0;
  return (padded - span) / s + 1;
}


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
  if (failed(verifyDim(op, dim, in.getRank())))
    return failure();
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

#define GET_OP_CLASSES
#include "Hodu/HoduOps.cpp.inc"

mlir::func::FuncOp hodu::findEntryFunction(mlir::ModuleOp module) {
  if (auto main = module.lookupSymbol<mlir::func::FuncOp>("main"))
    return main;
  mlir::func::FuncOp only;
  for (auto f : module.getOps<mlir::func::FuncOp>()) {
    if (f.isPrivate() || f.isExternal())
      continue;
    if (only)
      return {};
    only = f;
  }
  return only;
}
