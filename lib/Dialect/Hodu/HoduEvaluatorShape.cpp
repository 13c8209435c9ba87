//===- HoduEvaluatorShape.cpp - shape, indexing and reduction ops ---------===//
//
// What the evaluator computes for the ops that walk their operands by index
// rather than element by element: the shape ops that move elements
// (`transpose`, `broadcast`, `slice`, `flip`, `concat`) and the pieces of
// `split`, the indexing ops (`index_select`, `gather`, `index_put`) and the
// reductions (`reduce_sum`/`mean`/`max`/`min`/`prod`).
//
//===----------------------------------------------------------------------===//

#include "HoduEvaluatorCommon.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace hodu;
using namespace hodu::detail;

ElementsAttr Evaluator::movement(Operation *op, ArrayRef<ConstantView> in,
                                 RankedTensorType rt) {
  ConstantWriter out(rt, resourceBytes);
  ArrayRef<int64_t> shape = rt.getShape();
  SmallVector<int64_t> outStrides = contiguousStrides(shape);
  const ConstantView &x = in[0];
  SmallVector<int64_t> inStrides = contiguousStrides(x.shape());
  auto copyAll = [&](ArrayRef<int64_t> iterShape, Walk src, Walk dst,
                     const ConstantView &from) {
    forEachIndex(iterShape, {src, dst},
                 [&](ArrayRef<int64_t> o) { out.copy(o[1], from, o[0]); });
  };
  Walk dense{0, outStrides};
  llvm::TypeSwitch<Operation *>(op)
      .Case<TransposeOp>([&](TransposeOp t) {
        Walk src;
        for (int64_t p : t.getPerm())
          src.strides.push_back(inStrides[p]);
        copyAll(shape, src, dense, x);
      })
      .Case<BroadcastOp>([&](auto) {
        copyAll(shape, {0, broadcastStrides(x.shape(), shape)}, dense, x);
      })
      .Case<SliceOp>([&](SliceOp s) {
        Walk src;
        for (size_t d = 0; d < shape.size(); ++d) {
          // A dim of one entry or none never steps (a step of INT64_MAX
          // times the stride would overflow); one of none starts nowhere.
          if (shape[d] > 0)
            src.base += s.getStarts()[d] * inStrides[d];
          src.strides.push_back(shape[d] > 1 ? s.getSteps()[d] * inStrides[d]
                                             : 0);
        }
        copyAll(shape, src, dense, x);
      })
      .Case<FlipOp>([&](FlipOp f) {
        Walk src{0, inStrides};
        for (int64_t d : f.getDims()) {
          src.base += (shape[d] - 1) * inStrides[d];
          src.strides[d] = -inStrides[d];
        }
        copyAll(shape, src, dense, x);
      })
      .Case<ConcatOp>([&](ConcatOp c) {
        int64_t dim = c.getDim(), at = 0;
        for (const ConstantView &e : in) {
          copyAll(e.shape(), {0, contiguousStrides(e.shape())},
                  {at * outStrides[dim], outStrides}, e);
          at += e.shape()[dim];
        }
      });
  return out.finish();
}

/// Strides of a reduction's result over its input's index space: row-major
/// over the kept dims, 0 along the reduced ones.
static SmallVector<int64_t> reducedStrides(ArrayRef<int64_t> shape,
                                           ArrayRef<int64_t> dims) {
  SmallVector<int64_t> keptShape;
  SmallVector<bool> reduced(shape.size(), false);
  for (int64_t d : dims)
    reduced[d] = true;
  for (size_t d = 0; d < shape.size(); ++d)
    keptShape.push_back(reduced[d] ? 1 : shape[d]);
  SmallVector<int64_t> outStrides = contiguousStrides(keptShape);
  for (size_t d = 0; d < shape.size(); ++d)
    if (reduced[d])
      outStrides[d] = 0;
  return outStrides;
}

/// `reduce_all` and `reduce_any`: whether every (some) element along `dims`
/// is nonzero.
ElementsAttr Evaluator::logicalReduce(bool all, ArrayRef<int64_t> dims,
                                      const ConstantView &in,
                                      RankedTensorType rt) {
  ArrayRef<int64_t> shape = in.shape();
  std::vector<char> acc(rt.getNumElements(), all ? 1 : 0);
  forEachIndex(
      shape,
      {Walk{0, contiguousStrides(shape)}, Walk{0, reducedStrides(shape, dims)}},
      [&](ArrayRef<int64_t> o) {
        char &a = acc[o[1]];
        bool v = in.truth(o[0]);
        a = all ? (a && v) : (a || v);
      });
  ConstantWriter out(rt, resourceBytes);
  for (size_t j = 0; j < acc.size(); ++j)
    out.setRaw(int64_t(j), uint64_t(acc[j]));
  return out.finish();
}

ElementsAttr Evaluator::reduce(ReduceKind kind, ArrayRef<int64_t> dims,
                               const ConstantView &in, RankedTensorType rt) {
  bool isFloat = in.getKind() == ElementKind::Float;
  if (kind == ReduceKind::All || kind == ReduceKind::Any)
    return logicalReduce(kind == ReduceKind::All, dims, in, rt);
  if (in.getKind() == ElementKind::Bool ||
      (!isFloat && kind == ReduceKind::Mean))
    return {};
  bool isMax = kind == ReduceKind::Max, isMin = kind == ReduceKind::Min;
  bool isProd = kind == ReduceKind::Prod;
  ArrayRef<int64_t> shape = in.shape();
  SmallVector<int64_t> outStrides = reducedStrides(shape, dims);
  int64_t n = rt.getNumElements(), count = in.size() / std::max<int64_t>(n, 1);
  bool isUnsigned = in.getKind() == ElementKind::Unsigned;
  double init = isMax ? -INFINITY : isMin ? INFINITY : isProd ? 1.0 : 0.0;
  std::vector<double> accF(isFloat ? n : 0, init);
  std::vector<uint64_t> accI(isFloat ? 0 : n, isProd ? 1 : 0);
  std::vector<bool> seen(isFloat ? 0 : n, false);
  forEachIndex(shape, {Walk{0, contiguousStrides(shape)}, Walk{0, outStrides}},
               [&](ArrayRef<int64_t> o) {
                 int64_t j = o[1];
                 if (isFloat) {
                   double v = in.f(o[0]);
                   double &acc = accF[j];
                   if (isMax || isMin)
                     acc = std::isnan(v) || std::isnan(acc)
                               ? NAN
                               : (isMax ? std::max(acc, v) : std::min(acc, v));
                   else if (isProd)
                     acc *= v;
                   else
                     acc += v;
                   return;
                 }
                 uint64_t v = in.s(o[0]);
                 uint64_t &acc = accI[j];
                 if (isMax || isMin) {
                   bool better = isUnsigned
                                     ? (isMax ? v > acc : v < acc)
                                     : (isMax ? int64_t(v) > int64_t(acc)
                                              : int64_t(v) < int64_t(acc));
                   if (!seen[j] || better)
                     acc = v;
                   seen[j] = true;
                 } else if (isProd) {
                   acc *= v;
                 } else {
                   acc += v;
                 }
               });
  ConstantWriter out(rt, resourceBytes);
  for (int64_t j = 0; j < n; ++j) {
    if (isFloat)
      out.setF(j, kind == ReduceKind::Mean ? accF[j] / count : accF[j]);
    else
      out.setRaw(j, accI[j]);
  }
  return out.finish();
}

namespace {

/// The index `indices[j]` into a dimension of `size`, negative values
/// counting from the end; nullopt when it is outside (left to run time,
/// where the lowering clamps it).
std::optional<int64_t> indexAt(const ConstantView &indices, int64_t j,
                               int64_t size) {
  auto k = static_cast<int64_t>(indices.s(j));
  if (k < 0)
    k += size;
  if (k < 0 || k >= size)
    return std::nullopt;
  return k;
}

/// The slice copies of `index_select` and `index_put` along `dim` of a
/// tensor of `shape`: for every j, each element of slice `indices[j]` of
/// that tensor and the same element of slice j of a tensor with `count`
/// slices (flat offsets, passed to `copy(indexed, counted)`). False when an
/// index is outside the dim.
template <typename Fn>
bool forEachSlicePair(ArrayRef<int64_t> shape, int64_t dim,
                      const ConstantView &indices, int64_t count, Fn copy) {
  int64_t size = shape[dim], outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (size_t d = dim + 1; d < shape.size(); ++d)
    inner *= shape[d];
  for (int64_t j = 0; j < count; ++j) {
    std::optional<int64_t> k = indexAt(indices, j, size);
    if (!k)
      return false;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        copy((o * size + *k) * inner + i, (o * count + j) * inner + i);
  }
  return true;
}

} // namespace

/// `index_select`: result[o, j..., i] = x[o, indices[j...], i] along `dim`.
ElementsAttr Evaluator::indexSelect(const ConstantView &x,
                                    const ConstantView &indices, int64_t dim,
                                    RankedTensorType rt) {
  ConstantWriter out(rt, resourceBytes);
  bool ok = forEachSlicePair(
      x.shape(), dim, indices, indices.size(),
      [&](int64_t indexed, int64_t counted) { out.copy(counted, x, indexed); });
  return ok ? out.finish() : ElementsAttr();
}

/// `gather` (ONNX GatherElements): result[p] = x[p with p[dim] replaced by
/// indices[p]].
ElementsAttr Evaluator::gather(const ConstantView &x,
                               const ConstantView &indices, int64_t dim,
                               RankedTensorType rt) {
  SmallVector<int64_t> inStrides = contiguousStrides(x.shape());
  int64_t size = x.shape()[dim], dimStride = inStrides[dim];
  // Every index but `dim` reads the input where it writes the result.
  Walk src{0, inStrides};
  src.strides[dim] = 0;
  ConstantWriter out(rt, resourceBytes);
  bool ok = true;
  forEachIndex(rt.getShape(), {src, Walk{0, contiguousStrides(rt.getShape())}},
               [&](ArrayRef<int64_t> o) {
                 std::optional<int64_t> k =
                     ok ? indexAt(indices, o[1], size) : std::nullopt;
                 ok = k.has_value();
                 if (ok)
                   out.copy(o[1], x, o[0] + *k * dimStride);
               });
  return ok ? out.finish() : ElementsAttr();
}

/// `index_put`: a copy of `x` where slice `indices[j]` along `dim` is slice
/// `j` of `values`, in order (a repeated index keeps the last).
ElementsAttr Evaluator::indexPut(const ConstantView &x,
                                 const ConstantView &indices,
                                 const ConstantView &values, int64_t dim,
                                 RankedTensorType rt) {
  int64_t count = indices.size();
  if (values.getType().getElementType() != rt.getElementType() ||
      values.getType().getRank() != rt.getRank() ||
      values.shape()[dim] != count)
    return {};
  ConstantWriter out(rt, resourceBytes);
  for (int64_t i = 0, n = x.size(); i < n; ++i)
    out.copy(i, x, i);
  bool ok = forEachSlicePair(x.shape(), dim, indices, count,
                             [&](int64_t indexed, int64_t counted) {
                               out.copy(indexed, values, counted);
                             });
  return ok ? out.finish() : ElementsAttr();
}

ElementsAttr Evaluator::piece(const ConstantView &x, int64_t dim,
                              int64_t offset, RankedTensorType rt) {
  SmallVector<int64_t> inStrides = contiguousStrides(x.shape());
  ConstantWriter out(rt, resourceBytes);
  forEachIndex(rt.getShape(),
               {Walk{offset * inStrides[dim], inStrides},
                Walk{0, contiguousStrides(rt.getShape())}},
               [&](ArrayRef<int64_t> o) { out.copy(o[1], x, o[0]); });
  return out.finish();
}
