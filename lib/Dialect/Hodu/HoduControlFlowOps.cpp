//===- HoduControlFlowOps.cpp - hodu.if, hodu.loop, hodu.assert
//------------===//
#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace hodu;

LogicalResult IfOp::verify() {
  if (auto t = getCondition().getType(); t.getNumElements() != 1)
    return emitOpError("needs a condition of one element, not ")
           << t;
  for (Region *region : {&getThenRegion(), &getElseRegion()}) {
    StringRef which = region == &getThenRegion() ? "then" : "else";
    auto yield = dyn_cast<YieldOp>(region->front().getTerminator());
    if (!yield)
      return emitOpError() << "'" << which
                           << "' region must end with hodu.yield";
    if (yield.getValues().getTypes() != getResultTypes())
      return emitOpError() << "'" << which << "' region yields "
                           << yield.getValues().getTypes()
                           << " but the op gives " << getResultTypes();
  }
  return success();
}

LogicalResult LoopOp::verify() {
  if (getMaxTripCount().getType().getNumElements() != 1)
    return emitOpError("needs a trip count of one element, not ")
           << getMaxTripCount().getType();
  if (getCondition().getType().getNumElements() != 1)
    return emitOpError("needs a condition of one element, not ")
           << getCondition().getType();
  if (getInits().getTypes() != getResultTypes())
    return emitOpError("carries ") << getInits().getTypes()
                                   << " but gives " << getResultTypes();
  Block &body = getBody().front();
  MLIRContext *ctx = getContext();
  SmallVector<Type> args = {
      RankedTensorType::get({}, IntegerType::get(ctx, 64)),
      RankedTensorType::get({}, IntegerType::get(ctx, 1))};
  llvm::append_range(args, getResultTypes());
  if (body.getArgumentTypes() != ArrayRef<Type>(args))
    return emitOpError("the body must take (tensor<i64>, tensor<i1>, the "
                       "carried types), not ")
           << body.getArgumentTypes();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("the body must end with hodu.yield");
  ValueRange values = yield.getValues();
  if (values.empty())
    return emitOpError("the body must yield the next condition");
  auto cond = dyn_cast<RankedTensorType>(values.front().getType());
  if (!cond || !cond.getElementType().isInteger(1) ||
      !cond.hasStaticShape() || cond.getNumElements() != 1)
    return emitOpError("the body's first yielded value must be a one-element "
                       "boolean tensor, not ")
           << values.front().getType();
  if (values.drop_front().getTypes() != getResultTypes())
    return emitOpError("the body yields ") << values.drop_front().getTypes()
                                           << " for the carried types "
                                           << getResultTypes();
  return success();
}

/// An assert that holds whatever the data goes.
LogicalResult AssertOp::canonicalize(AssertOp op, PatternRewriter &rewriter) {
  Attribute value;
  if (!matchPattern(op.getCondition(), m_Constant(&value)))
    return failure();
  bool holds = false;
  if (auto i = dyn_cast<IntegerAttr>(value))
    holds = i.getValue().getBoolValue();
  else if (auto e = dyn_cast<DenseIntElementsAttr>(value))
    holds = e.isSplat() && e.getSplatValue<bool>();
  if (!holds)
    return failure();
  rewriter.eraseOp(op);
  return success();
}
