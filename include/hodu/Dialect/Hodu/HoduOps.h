//===- HoduOps.h - hodu ops, attributes and enums ---------------*- C++ -*-===//
#ifndef HODU_DIALECT_HODU_HODUOPS_H
#define HODU_DIALECT_HODU_HODUOPS_H

#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Hodu/HoduEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Hodu/HoduAttrs.h.inc"

namespace mlir {
// hodu.assert's canonicalize method (defined with PatternMatch.h included).
class PatternRewriter;
class RewritePatternSet;
} // namespace mlir

namespace hodu::detail {
// Shared verification and shape-inference helpers used by the generated op
// classes (see the extraClassDefinition blocks in dialects/Hodu/*.td).
llvm::LogicalResult inferBroadcastBinary(std::optional<mlir::Location> loc,
                                         mlir::Type lhs, mlir::Type rhs,
                                         bool boolResult,
                                         llvm::SmallVectorImpl<mlir::Type> &types);
llvm::LogicalResult inferElementwise(mlir::Type input, bool boolResult,
                                     llvm::SmallVectorImpl<mlir::Type> &types);
llvm::LogicalResult inferReduce(std::optional<mlir::Location> loc,
                                mlir::Type input, llvm::ArrayRef<int64_t> dims,
                                bool keepDim, llvm::StringRef resultKind,
                                llvm::SmallVectorImpl<mlir::Type> &types);
llvm::LogicalResult verifyScalarAttr(mlir::Operation *op, mlir::Type input,
                                     mlir::TypedAttr scalar);
llvm::LogicalResult verifyScatter(mlir::Operation *op, mlir::Type input,
                                  mlir::Type indices, mlir::Type src,
                                  int64_t dim);
/// Broadcasts two shapes with numpy rules; returns failure if incompatible.
llvm::LogicalResult broadcastShapes(llvm::ArrayRef<int64_t> a,
                                    llvm::ArrayRef<int64_t> b,
                                    llvm::SmallVectorImpl<int64_t> &out);
} // namespace hodu::detail

#define GET_OP_CLASSES
#include "Hodu/HoduOps.h.inc"

#endif
