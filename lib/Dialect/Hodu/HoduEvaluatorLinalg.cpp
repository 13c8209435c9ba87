//===- HoduEvaluatorLinalg.cpp - matmul, conv and pooling on constants ----===//
//
// The evaluator's matrix products, convolutions and windows: `hodu.matmul`
// (numpy semantics, broadcast batches, 1-D operands), `hodu.conv` (N-D,
// strides, pads, dilations, groups) and `hodu.reduce_window` (pooling).
// Sums are taken in double (floats) or in 64-bit wrapping integers, as the
// reductions do, and rounded once.
//
//===----------------------------------------------------------------------===//

#include "HoduEvaluatorCommon.h"
#include "hodu/Dialect/Hodu/HoduOps.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace hodu;
using namespace hodu::detail;

/// Steps `idx` to the next index of `shape` in row-major order; false
/// after the last.
static bool nextIndex(SmallVectorImpl<int64_t> &idx, ArrayRef<int64_t> shape) {
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    if (++idx[d] < shape[d])
      return true;
    idx[d] = 0;
  }
  return false;
}

ElementsAttr Evaluator::matmul(const ConstantView &a, const ConstantView &b,
                               RankedTensorType rt) {
  ArrayRef<int64_t> as = a.shape(), bs = b.shape();
  if (as.empty() || bs.empty() || a.getKind() == ElementKind::Bool ||
      a.getKind() != b.getKind())
    return {};
  bool aVector = as.size() == 1, bVector = bs.size() == 1;
  int64_t m = aVector ? 1 : as[as.size() - 2], k = as.back();
  int64_t n = bVector ? 1 : bs.back(), kb = bVector ? bs[0] : bs[bs.size() - 2];
  if (k != kb)
    return {};
  ArrayRef<int64_t> aBatch = as.drop_back(aVector ? 1 : 2);
  ArrayRef<int64_t> bBatch = bs.drop_back(bVector ? 1 : 2);
  SmallVector<int64_t> batch;
  if (failed(broadcastShapes(aBatch, bBatch, batch)))
    return {};
  int64_t batches = 1;
  for (int64_t d : batch)
    batches *= d;
  if (batches * m * n != rt.getNumElements())
    return {};
  // Each operand's matrix offset per batch index (0 along broadcast dims).
  SmallVector<int64_t> aStrides = broadcastStrides(aBatch, batch);
  SmallVector<int64_t> bStrides = broadcastStrides(bBatch, batch);
  for (int64_t &s : aStrides)
    s *= m * k;
  for (int64_t &s : bStrides)
    s *= k * n;
  bool isFloat = a.getKind() == ElementKind::Float;
  ConstantWriter out(rt, resourceBytes);
  int64_t next = 0;
  auto product = [&](ArrayRef<int64_t> o) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j, ++next) {
        if (isFloat) {
          double acc = 0;
          for (int64_t p = 0; p < k; ++p)
            acc += a.f(o[0] + i * k + p) * b.f(o[1] + p * n + j);
          out.setF(next, acc);
        } else {
          uint64_t acc = 0;
          for (int64_t p = 0; p < k; ++p)
            acc += a.s(o[0] + i * k + p) * b.s(o[1] + p * n + j);
          out.setRaw(next, acc);
        }
      }
  };
  if (batch.empty())
    product({0, 0});
  else
    forEachIndex(batch, {Walk{0, aStrides}, Walk{0, bStrides}}, product);
  return out.finish();
}

ElementsAttr Evaluator::conv(const ConstantView &x, const ConstantView &w,
                             ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                             ArrayRef<int64_t> dilations, int64_t groups,
                             RankedTensorType rt) {
  ArrayRef<int64_t> xs = x.shape(), ws = w.shape(), ys = rt.getShape();
  size_t spatial = xs.size() < 2 ? 0 : xs.size() - 2;
  if (xs.size() < 3 || ws.size() != xs.size() || ys.size() != xs.size() ||
      strides.size() != spatial || dilations.size() != spatial ||
      pads.size() != 2 * spatial || groups < 1 || ws[0] % groups != 0 ||
      xs[1] != ws[1] * groups || ys[0] != xs[0] || ys[1] != ws[0] ||
      x.getKind() != ElementKind::Float || w.getKind() != ElementKind::Float)
    return {};
  int64_t batch = xs[0], channels = ws[1], outChannels = ws[0];
  int64_t perGroup = outChannels / groups;
  ArrayRef<int64_t> inSpatial = xs.drop_front(2), kernel = ws.drop_front(2),
                    outSpatial = ys.drop_front(2);
  SmallVector<int64_t> xStrides = contiguousStrides(xs);
  SmallVector<int64_t> wStrides = contiguousStrides(ws);
  SmallVector<int64_t> at(spatial), tap(spatial), pos(spatial);
  ConstantWriter out(rt, resourceBytes);
  int64_t next = 0;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t o = 0; o < outChannels; ++o) {
      int64_t g = o / perGroup;
      std::fill(at.begin(), at.end(), 0);
      do {
        double acc = 0;
        for (int64_t c = 0; c < channels; ++c) {
          std::fill(tap.begin(), tap.end(), 0);
          do {
            int64_t xi = b * xStrides[0] + (g * channels + c) * xStrides[1];
            int64_t wi = o * wStrides[0] + c * wStrides[1];
            bool inside = true;
            for (size_t d = 0; d < spatial && inside; ++d) {
              pos[d] = at[d] * strides[d] - pads[d] + tap[d] * dilations[d];
              inside = pos[d] >= 0 && pos[d] < inSpatial[d];
              xi += pos[d] * xStrides[2 + d];
              wi += tap[d] * wStrides[2 + d];
            }
            if (inside)
              acc += x.f(xi) * w.f(wi);
          } while (nextIndex(tap, kernel));
        }
        out.setF(next++, acc);
      } while (nextIndex(at, outSpatial));
    }
  return out.finish();
}

ElementsAttr Evaluator::reduceWindow(const ConstantView &x, int kind,
                                     ArrayRef<int64_t> window,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> pads,
                                     ArrayRef<int64_t> dilations,
                                     bool countPads, RankedTensorType rt) {
  ArrayRef<int64_t> xs = x.shape(), ys = rt.getShape();
  size_t rank = xs.size();
  if (window.size() != rank || strides.size() != rank ||
      dilations.size() != rank || pads.size() != 2 * rank ||
      ys.size() != rank || x.getKind() != ElementKind::Float)
    return {};
  bool isMax = kind == WindowMax, isMin = kind == WindowMin;
  SmallVector<int64_t> strided = contiguousStrides(xs);
  SmallVector<int64_t> at(rank, 0), tap(rank, 0);
  ConstantWriter out(rt, resourceBytes);
  int64_t next = 0;
  if (rt.getNumElements() == 0)
    return out.finish();
  do {
    double acc = isMax ? -INFINITY : isMin ? INFINITY : 0.0;
    int64_t inside = 0, padded = 0;
    std::fill(tap.begin(), tap.end(), 0);
    do {
      int64_t offset = 0;
      bool in = true, inPadded = true;
      for (size_t d = 0; d < rank; ++d) {
        int64_t p = at[d] * strides[d] - pads[d] + tap[d] * dilations[d];
        in = in && p >= 0 && p < xs[d];
        inPadded = inPadded && p >= -pads[d] && p < xs[d] + pads[rank + d];
        offset += p * strided[d];
      }
      padded += inPadded;
      if (!in)
        continue;
      ++inside;
      double v = x.f(offset);
      if (isMax || isMin)
        acc = std::isnan(v) || std::isnan(acc)
                  ? NAN
                  : (isMax ? std::max(acc, v) : std::min(acc, v));
      else
        acc += v;
    } while (nextIndex(tap, window));
    if (kind == WindowMean)
      acc /= double(std::max<int64_t>(countPads ? padded : inside, 1));
    out.setF(next++, acc);
  } while (nextIndex(at, ys));
  return out.finish();
}
