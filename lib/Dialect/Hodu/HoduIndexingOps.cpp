//===- HoduIndexingOps.cpp - gathers and scatters (HoduIndexingOps.td) ----===//
//
// Shape inference and verifiers of the indexing family.
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
// Indexing
//===----------------------------------------------------------------------===//

LogicalResult IndexSelectOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto idx = rankedType(adaptor.getIndices().getType());
  int64_t dim = adaptor.getDim();
  if (failed(checkDim(loc, dim, t.getRank())))
    return failure();
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
  if (failed(verifyDim(getOperation(), dim, t.getRank())))
    return failure();
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
  if (failed(checkDim(loc, dim, t.getRank())))
    return failure();
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
    return emitOpError("axis ") << static_cast<int64_t>(getAxis())
                                << " is out of range for result rank " << r;
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
