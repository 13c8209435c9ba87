//===- SymbolOps.h - op families the symbol passes share --------*- C++ -*-===//
//
// What hodu-chunk-symbols and hodu-pad-symbols both ask of an op.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TRANSFORMS_SYMBOLOPS_H
#define HODU_LIB_TRANSFORMS_SYMBOLOPS_H

#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Dialect/Hodu/Symbols.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace hodu {

/// Ops that compute each element from the elements at the same index of
/// their (broadcast) operands.
inline bool isElementwiseOp(mlir::Operation *op) {
  return mlir::isa<
      AddOp, SubOp, MulOp, DivOp, RemOp, PowOp, MaximumOp, MinimumOp,
      LogicalAndOp, LogicalOrOp, LogicalXorOp, EqOp, NeOp, LtOp, LeOp, GtOp,
      GeOp, EqScalarOp, NeScalarOp, LtScalarOp, LeScalarOp, GtScalarOp,
      GeScalarOp, AddScalarOp, SubScalarOp, MulScalarOp, DivScalarOp,
      RemScalarOp, PowScalarOp, MaximumScalarOp, MinimumScalarOp, LeakyReluOp,
      EluOp, PreluOp, NegOp, AbsOp, SignOp, SquareOp, ReluOp, SoftsignOp,
      SqrtOp, RecipOp, SigmoidOp, HardSigmoidOp, GeluOp, SoftplusOp, SiluOp,
      HardSiluOp, MishOp, SeluOp, CeluOp, SinOp, CosOp, TanOp, AsinOp, AcosOp,
      AtanOp, SinhOp, CoshOp, TanhOp, AsinhOp, AcoshOp, AtanhOp, ExpOp, Exp2Op,
      Exp10Op, LnOp, Log2Op, Log10Op, CeilOp, FloorOp, RoundOp, ErfOp,
      LogicalNotOp, IsNanOp, IsInfOp, IsFiniteOp, CastOp, SelectOp,
      ContiguousOp, DummyOp, TransferOp>(op);
}

/// The error of an op that a symbol's passes cannot take: "symbolic dim
/// 'seq' cannot vary: WHY; pin it (hoduc --dim=seq=<size>)".
inline mlir::LogicalResult symbolCannotVary(mlir::Operation *op,
                                            llvm::StringRef symbol,
                                            const llvm::Twine &why) {
  return op->emitError() << symbolCannotVaryText(symbol, why.str());
}

/// A dim attribute (stored as uint64_t) made non-negative.
inline int64_t symbolAxisOf(uint64_t dim, int64_t rank) {
  return (int64_t)dim < 0 ? (int64_t)dim + rank : (int64_t)dim;
}

inline llvm::SmallVector<int64_t> symbolAxesOf(llvm::ArrayRef<int64_t> dims,
                                               int64_t rank) {
  llvm::SmallVector<int64_t> out;
  for (int64_t d : dims)
    out.push_back(d < 0 ? d + rank : d);
  return out;
}

} // namespace hodu

#endif // HODU_LIB_TRANSFORMS_SYMBOLOPS_H
