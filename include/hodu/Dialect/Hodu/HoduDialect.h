//===- HoduDialect.h - the hodu dialect -------------------------*- C++ -*-===//
#ifndef HODU_DIALECT_HODU_HODUDIALECT_H
#define HODU_DIALECT_HODU_HODUDIALECT_H

#include "mlir/IR/Dialect.h"

#include "Hodu/HoduDialect.h.inc"

#endif
