//===- HoduEvaluatorCommon.h - what the evaluator's files share -*- C++ -*-===//
//
// Shared by the files of the evaluator of hodu ops on constants
// (HoduEvaluator*.cpp; the interface is include/hodu/Dialect/Hodu/
// Evaluator.h): the index walks every op's loop is made of, and the class
// that evaluates one op, whose members are defined by op family.
// Private to lib/Dialect/Hodu.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_LIB_DIALECT_HODU_HODUEVALUATORCOMMON_H
#define HODU_LIB_DIALECT_HODU_HODUEVALUATORCOMMON_H

#include "hodu/Dialect/Hodu/Evaluator.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace hodu::detail {

//===----------------------------------------------------------------------===//
// Index walks
//===----------------------------------------------------------------------===//

/// Row-major strides of a tensor of `shape`.
llvm::SmallVector<int64_t> contiguousStrides(llvm::ArrayRef<int64_t> shape);

/// Strides to read an input of shape `in` at the indices of an output of
/// shape `out` under numpy broadcasting (0 along broadcast dimensions).
llvm::SmallVector<int64_t> broadcastStrides(llvm::ArrayRef<int64_t> in,
                                            llvm::ArrayRef<int64_t> out);

/// An affine walk over one tensor: offset = base + sum(index[d] * strides[d]).
struct Walk {
  int64_t base = 0;
  llvm::SmallVector<int64_t> strides;
};

/// Calls `fn(offsets)` for every index of `shape` in row-major order, with
/// one offset per walk. Incremental (an odometer), so no index tables.
template <typename Fn>
void forEachIndex(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<Walk> walks,
                  Fn fn) {
  for (int64_t d : shape)
    if (d == 0)
      return;
  size_t n = walks.size(), rank = shape.size();
  llvm::SmallVector<int64_t> offsets, idx(rank, 0);
  for (const Walk &w : walks)
    offsets.push_back(w.base);
  while (true) {
    fn(llvm::ArrayRef<int64_t>(offsets));
    int64_t d = static_cast<int64_t>(rank) - 1;
    for (; d >= 0; --d) {
      for (size_t k = 0; k < n; ++k)
        offsets[k] += walks[k].strides[d];
      if (++idx[d] < shape[d])
        break;
      for (size_t k = 0; k < n; ++k)
        offsets[k] -= walks[k].strides[d] * shape[d];
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

enum class PredicateKind { Not, IsNan, IsInf, IsFinite };
enum class ReduceKind { Sum, Mean, Max, Min, Prod, All, Any };

/// Evaluates one op into a result of type `rt` (static, with an
/// ElementKind) once the limits have been checked.
class Evaluator {
public:
  explicit Evaluator(int64_t resourceBytes) : resourceBytes(resourceBytes) {}

  mlir::ElementsAttr run(mlir::Operation *op, llvm::ArrayRef<ConstantView> in,
                         mlir::RankedTensorType rt);
  /// The piece of `x` of type `rt` that starts at `offset` along `dim`.
  mlir::ElementsAttr piece(const ConstantView &x, int64_t dim, int64_t offset,
                           mlir::RankedTensorType rt);

private:
  mlir::ElementsAttr convert(const ConstantView &x, mlir::RankedTensorType rt);
  mlir::ElementsAttr predicate(PredicateKind kind, const ConstantView &x,
                               mlir::RankedTensorType rt);
  mlir::ElementsAttr unary(mlir::Operation *op, const ConstantView &x,
                           mlir::RankedTensorType rt);
  mlir::ElementsAttr broadcasting(mlir::Operation *op,
                                  llvm::ArrayRef<ConstantView> in,
                                  mlir::RankedTensorType rt);
  mlir::ElementsAttr movement(mlir::Operation *op,
                              llvm::ArrayRef<ConstantView> in,
                              mlir::RankedTensorType rt);
  mlir::ElementsAttr reduce(ReduceKind kind, llvm::ArrayRef<int64_t> dims,
                            const ConstantView &in, mlir::RankedTensorType rt);
  mlir::ElementsAttr logicalReduce(bool all, llvm::ArrayRef<int64_t> dims,
                                   const ConstantView &in,
                                   mlir::RankedTensorType rt);
  mlir::ElementsAttr matmul(const ConstantView &a, const ConstantView &b,
                            mlir::RankedTensorType rt);
  /// `hodu.reduce_window` (kind: a Window* below), its attributes one by
  /// one.
  enum { WindowMax, WindowMin, WindowSum, WindowMean };
  mlir::ElementsAttr reduceWindow(const ConstantView &x, int kind,
                                  llvm::ArrayRef<int64_t> window,
                                  llvm::ArrayRef<int64_t> strides,
                                  llvm::ArrayRef<int64_t> pads,
                                  llvm::ArrayRef<int64_t> dilations,
                                  bool countPads, mlir::RankedTensorType rt);
  /// `hodu.conv` of `x` by `w` (its attributes given one by one).
  mlir::ElementsAttr conv(const ConstantView &x, const ConstantView &w,
                          llvm::ArrayRef<int64_t> strides,
                          llvm::ArrayRef<int64_t> pads,
                          llvm::ArrayRef<int64_t> dilations, int64_t groups,
                          mlir::RankedTensorType rt);
  mlir::ElementsAttr indexSelect(const ConstantView &x,
                                 const ConstantView &indices, int64_t dim,
                                 mlir::RankedTensorType rt);
  mlir::ElementsAttr gather(const ConstantView &x, const ConstantView &indices,
                            int64_t dim, mlir::RankedTensorType rt);
  mlir::ElementsAttr indexPut(const ConstantView &x,
                              const ConstantView &indices,
                              const ConstantView &values, int64_t dim,
                              mlir::RankedTensorType rt);

  int64_t resourceBytes;
};

} // namespace hodu::detail

#endif // HODU_LIB_DIALECT_HODU_HODUEVALUATORCOMMON_H
