//===- HoduControlFlowOps.cpp - hodu.if ------------------------------------===//
#include "hodu/Dialect/Hodu/HoduOps.h"

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
