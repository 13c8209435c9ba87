//===- HoduPartitionOps.cpp - hodu.transfer -------------------------------===//
#include "hodu/Dialect/Hodu/HoduOps.h"

using namespace mlir;
using namespace hodu;

LogicalResult TransferOp::verify() {
  if (getTo().empty())
    return emitOpError("needs a destination device");
  return success();
}
