//===- HoduReductionOps.cpp - windows and scans (HoduReductionOps.td) -----===//
//
// Shape inference of the reduction family (plain reductions share
// hodu::detail::inferReduce).
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
// Windowing, Scan, Sort
//===----------------------------------------------------------------------===//

LogicalResult ReduceWindowOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  int64_t r = t.getRank();
  auto w = adaptor.getWindowDims(), s = adaptor.getStrides(),
       d = adaptor.getDilations(), p = adaptor.getPads();
  if ((int64_t)w.size() != r || (int64_t)s.size() != r ||
      (int64_t)d.size() != r)
    return emitOptionalError(loc, "expects window_dims, strides and dilations "
                                  "with one entry per dim (",
                             r, "), got ", w.size(), ", ", s.size(), " and ",
                             d.size());
  if ((int64_t)p.size() != 2 * r)
    return emitOptionalError(loc, "expects ", 2 * r,
                             " pads (begin and end per dim), got ", p.size());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < r; ++i) {
    if (w[i] <= 0 || s[i] <= 0 || d[i] <= 0)
      return emitOptionalError(loc, "expects positive window_dims, strides and "
                                    "dilations (dim ",
                               i, ")");
    if (p[i] < 0 || p[r + i] < 0)
      return emitOptionalError(loc, "expects non-negative pads (dim ", i, ")");
    int64_t out =
        windowOutSize(t.getDimSize(i), w[i], s[i], d[i], p[i], p[r + i]);
    if (out == 0)
      return emitOptionalError(loc, "the window of dim ", i, " (", w[i],
                               " taps, dilation ", d[i],
                               ") is larger than the padded input (",
                               t.getDimSize(i) + p[i] + p[r + i], ")");
    shape.push_back(out);
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult CumSumOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  int64_t dim = adaptor.getDim();
  if (failed(checkDim(loc, dim, t.getRank())))
    return failure();
  types.push_back(t);
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  int64_t dim = adaptor.getDim(), k = adaptor.getK();
  if (failed(checkDim(loc, dim, t.getRank())))
    return failure();
  if (k < 0 || (!t.isDynamicDim(dim) && k > t.getDimSize(dim)))
    return emitOptionalError(loc, "k = ", k, " is out of range for dim ", dim,
                             " of size ", t.getDimSize(dim));
  SmallVector<int64_t> shape(t.getShape());
  shape[dim] = k;
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}
