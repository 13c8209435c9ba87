//===- OnnxFold.cpp - import-time evaluation of ONNX shape computations ---===//
//
// Exporters compute shapes at run time: Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape. With static input shapes all of it is known while
// importing, and ops such as Reshape or Slice need those values as
// attributes. This file evaluates such nodes on `Known` tensors; anything it
// does not handle falls through to the op conversions.
//
// It is the one evaluator of op semantics outside the dialect's
// (hodu/Dialect/Hodu/Evaluator.h, used by the folders and
// hodu-fold-constants). Replacing it with "convert the node, then evaluate
// the new hodu ops" needs two things first: the conversions reading
// constant inputs wherever they call NodeContext::constInts, and the
// evaluator knowing `gather`, `range` and ONNX Mod (sign of the divisor),
// which shape computations use. Until then, results here are capped at
// kMaxFoldElements.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporterImpl.h"

#include "onnx/onnx_pb.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/// Builds a tensor of `shape` whose element at multi-index `idx` is element
/// `map(idx)` of `src` (a flat index).
static Known gatherFrom(const Known &src, ArrayRef<int64_t> shape,
                        const std::function<int64_t(ArrayRef<int64_t>)> &map) {
  Known out;
  out.shape.assign(shape.begin(), shape.end());
  out.elemType = src.elemType;
  int64_t n = product(shape);
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t from = map(idx);
    if (src.isFloat())
      out.floats.push_back(src.floats[from]);
    else
      out.ints.push_back(src.ints[from]);
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
  return out;
}

/// The flat index into a tensor of `shape` broadcast to `outIdx`.
static int64_t broadcastIndex(ArrayRef<int64_t> shape, ArrayRef<int64_t> outIdx) {
  int64_t flat = 0, stride = 1;
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    int64_t o = outIdx[outIdx.size() - shape.size() + d];
    flat += (shape[d] == 1 ? 0 : o) * stride;
    stride *= shape[d];
  }
  return flat;
}

static std::optional<SmallVector<int64_t>> broadcast(ArrayRef<int64_t> a,
                                                     ArrayRef<int64_t> b) {
  SmallVector<int64_t> out;
  if (failed(hodu::detail::broadcastShapes(a, b, out)))
    return std::nullopt;
  return out;
}

static Known cast(const Known &k, Type elt) {
  Known out;
  out.shape = k.shape;
  out.elemType = elt;
  for (int64_t i = 0; i < k.numElements(); ++i) {
    if (k.isFloat())
      out.push(k.floats[i]);
    else
      out.pushInt(k.ints[i]);
  }
  // Truncate integers to the target width (with sign for signless types).
  if (!out.isFloat() && !elt.isInteger(1)) {
    unsigned w = elt.getIntOrFloatBitWidth();
    if (w < 64)
      for (int64_t &v : out.ints) {
        uint64_t mask = (uint64_t(1) << w) - 1;
        uint64_t u = (uint64_t)v & mask;
        v = elt.isUnsignedInteger() ? (int64_t)u
                                    : (int64_t)(u << (64 - w)) >> (64 - w);
      }
  }
  return out;
}

namespace {
enum class BinKind { Add, Sub, Mul, Div, Max, Min, Eq, Lt, Le, Gt, Ge, And, Or, Mod, Pow };
}

static std::optional<Known> binary(BinKind kind, const Known &a, const Known &b,
                                   MLIRContext &ctx) {
  if (a.elemType != b.elemType && kind != BinKind::Pow)
    return std::nullopt;
  auto shape = broadcast(a.shape, b.shape);
  if (!shape || product(*shape) > kMaxFoldElements)
    return std::nullopt;
  bool cmp = kind >= BinKind::Eq && kind <= BinKind::Or;
  Known out;
  out.shape = *shape;
  out.elemType = cmp ? IntegerType::get(&ctx, 1) : a.elemType;
  bool fl = a.isFloat();
  int64_t n = product(*shape);
  SmallVector<int64_t> idx(shape->size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t ia = broadcastIndex(a.shape, idx), ib = broadcastIndex(b.shape, idx);
    if (fl) {
      double x = a.floats[ia], y = b.asDouble(ib), r = 0;
      switch (kind) {
      case BinKind::Add: r = x + y; break;
      case BinKind::Sub: r = x - y; break;
      case BinKind::Mul: r = x * y; break;
      case BinKind::Div: r = x / y; break;
      case BinKind::Max: r = std::max(x, y); break;
      case BinKind::Min: r = std::min(x, y); break;
      case BinKind::Eq: r = x == y; break;
      case BinKind::Lt: r = x < y; break;
      case BinKind::Le: r = x <= y; break;
      case BinKind::Gt: r = x > y; break;
      case BinKind::Ge: r = x >= y; break;
      case BinKind::And: r = x && y; break;
      case BinKind::Or: r = x || y; break;
      case BinKind::Mod: r = std::fmod(x, y); break;
      case BinKind::Pow: r = std::pow(x, y); break;
      }
      if (cmp)
        out.ints.push_back(r != 0);
      else
        out.floats.push_back(r);
    } else {
      int64_t x = a.ints[ia], y = b.asInt(ib), r = 0;
      switch (kind) {
      case BinKind::Add: r = (int64_t)((uint64_t)x + (uint64_t)y); break;
      case BinKind::Sub: r = (int64_t)((uint64_t)x - (uint64_t)y); break;
      case BinKind::Mul: r = (int64_t)((uint64_t)x * (uint64_t)y); break;
      case BinKind::Div:
        if (y == 0 || (x == INT64_MIN && y == -1))
          return std::nullopt;
        r = x / y;
        break;
      case BinKind::Max: r = std::max(x, y); break;
      case BinKind::Min: r = std::min(x, y); break;
      case BinKind::Eq: r = x == y; break;
      case BinKind::Lt: r = x < y; break;
      case BinKind::Le: r = x <= y; break;
      case BinKind::Gt: r = x > y; break;
      case BinKind::Ge: r = x >= y; break;
      case BinKind::And: r = x && y; break;
      case BinKind::Or: r = x || y; break;
      case BinKind::Mod:
        if (y == 0 || (x == INT64_MIN && y == -1))
          return std::nullopt;
        r = x % y;
        if (r != 0 && ((r < 0) != (y < 0)))
          r += y; // ONNX Mod with fmod=0 follows the divisor's sign
        break;
      case BinKind::Pow: return std::nullopt;
      }
      out.ints.push_back(r);
    }
    for (int64_t d = (int64_t)shape->size() - 1; d >= 0; --d) {
      if (++idx[d] < (*shape)[d])
        break;
      idx[d] = 0;
    }
  }
  return cast(out, out.elemType);
}

static std::optional<int64_t> normAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

static std::optional<Known> ints(NodeContext &n, size_t i) {
  const Known *k = n.known(i);
  if (!k || k->isFloat())
    return std::nullopt;
  return *k;
}

using Folded = std::optional<SmallVector<Known>>;

static Folded one(Known k) { return SmallVector<Known>{std::move(k)}; }

/// Shape and Size only need the input's static type.
static Folded foldShapeOrSize(NodeContext &n, StringRef op) {
  RankedTensorType t = n.type(0);
  if (!t || !t.hasStaticShape())
    return std::nullopt;
  Known k;
  k.elemType = IntegerType::get(&n.graph.ctx, 64);
  if (op == "Size") {
    k.ints.push_back(t.getNumElements());
    return one(k);
  }
  int64_t r = t.getRank();
  auto start = n.attrInt("start", 0), end = n.attrInt("end", r);
  if (failed(start) || failed(end))
    return std::nullopt;
  int64_t s = std::clamp<int64_t>(*start < 0 ? *start + r : *start, 0, r);
  int64_t e = std::clamp<int64_t>(*end < 0 ? *end + r : *end, 0, r);
  for (int64_t d = s; d < e; ++d)
    k.ints.push_back(t.getDimSize(d));
  k.shape.push_back(k.ints.size());
  return one(k);
}

static Folded foldCast(NodeContext &n, const Known &x) {
  auto to = n.attrInt("to", 0);
  Type elt = failed(to) ? Type() : onnxElementType(n.graph.ctx, (int)*to);
  if (!elt)
    return std::nullopt;
  return one(cast(x, elt));
}

static Folded foldUnary(StringRef op, const Known &x) {
  Known out = x;
  for (int64_t i = 0; i < out.numElements(); ++i) {
    double v = x.asDouble(i), r = v;
    if (op == "Neg") r = -v;
    else if (op == "Abs") r = std::fabs(v);
    else if (op == "Floor") r = std::floor(v);
    else if (op == "Ceil") r = std::ceil(v);
    else if (op == "Sqrt") r = std::sqrt(v);
    else if (op == "Not") r = v == 0;
    else if (op == "Sign") r = (v > 0) - (v < 0);
    else if (op == "Relu") r = std::max(v, 0.0);
    if (out.isFloat())
      out.floats[i] = r;
    else
      out.ints[i] = (int64_t)r;
  }
  return one(out);
}

/// Where(x, a, b) with the condition `x`.
static Folded foldWhere(NodeContext &n, const Known &x) {
  const Known &a = *n.known(1), &b = *n.known(2);
  if (a.elemType != b.elemType)
    return std::nullopt;
  auto s1 = broadcast(x.shape, a.shape);
  auto s = s1 ? broadcast(*s1, b.shape) : std::nullopt;
  if (!s || product(*s) > kMaxFoldElements)
    return std::nullopt;
  Known out;
  out.shape = *s;
  out.elemType = a.elemType;
  SmallVector<int64_t> idx(s->size(), 0);
  for (int64_t flat = 0, e = product(*s); flat < e; ++flat) {
    bool c = x.asInt(broadcastIndex(x.shape, idx)) != 0;
    const Known &src = c ? a : b;
    int64_t j = broadcastIndex(src.shape, idx);
    if (out.isFloat())
      out.floats.push_back(src.floats[j]);
    else
      out.ints.push_back(src.ints[j]);
    for (int64_t d = (int64_t)s->size() - 1; d >= 0; --d) {
      if (++idx[d] < (*s)[d])
        break;
      idx[d] = 0;
    }
  }
  return one(out);
}

static Folded foldGather(NodeContext &n, const Known &x) {
  auto idxK = ints(n, 1);
  auto axisOr = n.attrInt("axis", 0);
  if (!idxK || failed(axisOr))
    return std::nullopt;
  int64_t r = x.shape.size();
  auto axis = normAxis(*axisOr, r);
  if (!axis)
    return std::nullopt;
  int64_t dim = x.shape[*axis];
  SmallVector<int64_t> idxs;
  for (int64_t v : idxK->ints) {
    if (v < -dim || v >= dim)
      return std::nullopt;
    idxs.push_back(v < 0 ? v + dim : v);
  }
  SmallVector<int64_t> shape(x.shape.begin(), x.shape.begin() + *axis);
  llvm::append_range(shape, idxK->shape);
  shape.append(x.shape.begin() + *axis + 1, x.shape.end());
  auto strides = stridesOf(x.shape);
  int64_t ir = idxK->shape.size();
  auto istrides = stridesOf(idxK->shape);
  return one(gatherFrom(x, shape, [&](ArrayRef<int64_t> o) {
    int64_t flat = 0;
    for (int64_t d = 0; d < *axis; ++d)
      flat += o[d] * strides[d];
    int64_t ii = 0;
    for (int64_t d = 0; d < ir; ++d)
      ii += o[*axis + d] * istrides[d];
    flat += idxs[ii] * strides[*axis];
    for (int64_t d = *axis + 1; d < r; ++d)
      flat += o[d - 1 + ir] * strides[d];
    return flat;
  }));
}

static Folded foldConcat(NodeContext &n, const Known &x) {
  auto axisOr = n.attrInt("axis", 0);
  if (failed(axisOr))
    return std::nullopt;
  int64_t r = x.shape.size();
  auto axis = normAxis(*axisOr, r);
  if (!axis)
    return std::nullopt;
  SmallVector<const Known *> parts;
  SmallVector<int64_t> shape = x.shape;
  shape[*axis] = 0;
  for (size_t i = 0; i < n.numInputs(); ++i) {
    const Known *k = n.known(i);
    if (!k || k->elemType != x.elemType || (int64_t)k->shape.size() != r)
      return std::nullopt;
    for (int64_t d = 0; d < r; ++d)
      if (d != *axis && k->shape[d] != x.shape[d])
        return std::nullopt;
    shape[*axis] += k->shape[*axis];
    parts.push_back(k);
  }
  // Outer product of the leading dims, then each part's block in turn.
  int64_t outer = product(ArrayRef<int64_t>(shape).take_front(*axis));
  Known out;
  out.shape = shape;
  out.elemType = x.elemType;
  for (int64_t o = 0; o < outer; ++o)
    for (const Known *k : parts) {
      int64_t block = product(ArrayRef<int64_t>(k->shape).drop_front(*axis));
      for (int64_t j = 0; j < block; ++j) {
        if (k->isFloat())
          out.floats.push_back(k->floats[o * block + j]);
        else
          out.ints.push_back(k->ints[o * block + j]);
      }
    }
  return one(out);
}

/// The axes of Squeeze and Unsqueeze: an input from opset 13, an attribute
/// before.
static std::optional<SmallVector<int64_t>> squeezeAxes(NodeContext &n) {
  SmallVector<int64_t> axes;
  if (n.opset >= 13) {
    if (n.hasInput(1)) {
      auto a = ints(n, 1);
      if (!a)
        return std::nullopt;
      axes = a->ints;
    }
  } else {
    auto a = n.attrInts("axes");
    if (failed(a))
      return std::nullopt;
    if (*a)
      axes = **a;
  }
  return axes;
}

static std::optional<SmallVector<int64_t>>
unsqueezedShape(const Known &x, ArrayRef<int64_t> axes) {
  int64_t outRank = x.shape.size() + axes.size();
  SmallVector<bool> isNew(outRank, false);
  for (int64_t a : axes) {
    auto ax = normAxis(a, outRank);
    if (!ax || isNew[*ax])
      return std::nullopt;
    isNew[*ax] = true;
  }
  SmallVector<int64_t> shape;
  int64_t j = 0;
  for (int64_t d = 0; d < outRank; ++d)
    shape.push_back(isNew[d] ? 1 : x.shape[j++]);
  return shape;
}

static std::optional<SmallVector<int64_t>>
squeezedShape(const Known &x, ArrayRef<int64_t> axes) {
  int64_t r = x.shape.size();
  SmallVector<bool> drop(r, axes.empty());
  for (int64_t a : axes) {
    auto ax = normAxis(a, r);
    if (!ax || x.shape[*ax] != 1)
      return std::nullopt;
    drop[*ax] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < r; ++d)
    if (!drop[d] || x.shape[d] != 1)
      shape.push_back(x.shape[d]);
  return shape;
}

static std::optional<SmallVector<int64_t>> flattenedShape(NodeContext &n,
                                                          const Known &x) {
  int64_t r = x.shape.size();
  auto axisOr = n.attrInt("axis", 1);
  if (failed(axisOr))
    return std::nullopt;
  int64_t axis = *axisOr < 0 ? *axisOr + r : *axisOr;
  if (axis < 0 || axis > r)
    return std::nullopt;
  return SmallVector<int64_t>{
      product(ArrayRef<int64_t>(x.shape).take_front(axis)),
      product(ArrayRef<int64_t>(x.shape).drop_front(axis))};
}

/// The target shape of Reshape: 0 copies the input dim (unless allowzero),
/// one -1 is inferred from the element count.
static std::optional<SmallVector<int64_t>> reshapedShape(NodeContext &n,
                                                         const Known &x) {
  auto s = ints(n, 1);
  if (!s)
    return std::nullopt;
  int64_t r = x.shape.size();
  bool allowZero = n.attrInt("allowzero", 0).value_or(0) != 0;
  SmallVector<int64_t> shape;
  int64_t known = 1, infer = -1;
  for (auto [i, d] : llvm::enumerate(s->ints)) {
    if (d == 0 && !allowZero) {
      if ((int64_t)i >= r)
        return std::nullopt;
      d = x.shape[i];
    }
    if (d == -1) {
      if (infer >= 0)
        return std::nullopt;
      infer = i;
    } else if (d < 0) {
      return std::nullopt;
    } else {
      known *= d;
    }
    shape.push_back(d);
  }
  if (infer >= 0) {
    if (known == 0 || x.numElements() % known)
      return std::nullopt;
    shape[infer] = x.numElements() / known;
  }
  if (product(shape) != x.numElements())
    return std::nullopt;
  return shape;
}

/// Unsqueeze, Squeeze, Flatten, Reshape: the elements stay in order.
static Folded foldReshapeLike(NodeContext &n, StringRef op, const Known &x) {
  std::optional<SmallVector<int64_t>> shape;
  if (op == "Unsqueeze" || op == "Squeeze") {
    auto axes = squeezeAxes(n);
    if (!axes)
      return std::nullopt;
    shape = op == "Unsqueeze" ? unsqueezedShape(x, *axes)
                              : squeezedShape(x, *axes);
  } else if (op == "Flatten") {
    shape = flattenedShape(n, x);
  } else {
    shape = reshapedShape(n, x);
  }
  if (!shape)
    return std::nullopt;
  Known out = x;
  out.shape = std::move(*shape);
  return one(out);
}

/// Expand repeats the elements along the broadcast dims.
static Folded foldExpand(NodeContext &n, const Known &x) {
  auto s = ints(n, 1);
  if (!s)
    return std::nullopt;
  auto b = broadcast(x.shape, s->ints);
  if (!b || product(*b) > kMaxFoldElements)
    return std::nullopt;
  return one(gatherFrom(
      x, *b, [&](ArrayRef<int64_t> o) { return broadcastIndex(x.shape, o); }));
}

static Folded foldSlice(NodeContext &n, const Known &x) {
  auto starts = ints(n, 1), ends = ints(n, 2);
  if (!starts || !ends || starts->ints.size() != ends->ints.size())
    return std::nullopt;
  int64_t r = x.shape.size();
  SmallVector<int64_t> axes, steps(starts->ints.size(), 1);
  if (n.hasInput(3)) {
    auto a = ints(n, 3);
    if (!a)
      return std::nullopt;
    axes = a->ints;
  } else {
    for (size_t i = 0; i < starts->ints.size(); ++i)
      axes.push_back(i);
  }
  if (n.hasInput(4)) {
    auto s = ints(n, 4);
    if (!s)
      return std::nullopt;
    steps = s->ints;
  }
  if (axes.size() != starts->ints.size() || steps.size() != axes.size())
    return std::nullopt;
  SmallVector<int64_t> b(r, 0), st(r, 1), shape(x.shape);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto ax = normAxis(axes[i], r);
    if (!ax || steps[i] == 0)
      return std::nullopt;
    int64_t dim = x.shape[*ax], s = steps[i];
    int64_t lo = starts->ints[i], hi = ends->ints[i];
    if (lo < 0) lo += dim;
    if (hi < 0) hi += dim;
    if (s > 0) {
      lo = std::clamp<int64_t>(lo, 0, dim);
      hi = std::clamp<int64_t>(hi, 0, dim);
      shape[*ax] = hi > lo ? (hi - lo + s - 1) / s : 0;
    } else {
      lo = std::clamp<int64_t>(lo, 0, dim - 1);
      hi = std::clamp<int64_t>(hi, -1, dim - 1);
      shape[*ax] = lo > hi ? (lo - hi + (-s) - 1) / (-s) : 0;
    }
    b[*ax] = lo;
    st[*ax] = s;
  }
  auto strides = stridesOf(x.shape);
  return one(gatherFrom(x, shape, [&](ArrayRef<int64_t> o) {
    int64_t flat = 0;
    for (int64_t d = 0; d < r; ++d)
      flat += (b[d] + o[d] * st[d]) * strides[d];
    return flat;
  }));
}

static Folded foldRange(NodeContext &n, const Known &x) {
  const Known &limit = *n.known(1), &delta = *n.known(2);
  if (x.numElements() != 1 || limit.numElements() != 1 ||
      delta.numElements() != 1)
    return std::nullopt;
  double s = x.asDouble(0), l = limit.asDouble(0), d = delta.asDouble(0);
  if (d == 0)
    return std::nullopt;
  double count = std::ceil((l - s) / d);
  if (!(count < kMaxFoldElements))
    return std::nullopt;
  Known out;
  out.elemType = x.elemType;
  int64_t c = std::max<int64_t>((int64_t)count, 0);
  out.shape = {c};
  for (int64_t i = 0; i < c; ++i) {
    if (x.isFloat())
      out.floats.push_back(s + i * d);
    else
      out.ints.push_back(x.ints[0] + i * delta.ints[0]);
  }
  return one(out);
}

static Folded foldConstantOfShape(NodeContext &n, const Known &x) {
  if (x.isFloat())
    return std::nullopt;
  for (int64_t d : x.ints)
    if (d < 0)
      return std::nullopt;
  if (product(x.ints) > kMaxFoldElements)
    return std::nullopt;
  Known out;
  out.shape = x.ints;
  out.elemType = Float32Type::get(&n.graph.ctx);
  double v = 0;
  if (const onnx::TensorProto *t = n.attrTensor("value")) {
    auto e = n.graph.decodeTensor(*t, n.loc);
    if (failed(e) || !e->known || e->known->numElements() != 1)
      return std::nullopt;
    out.elemType = e->known->elemType;
    v = e->known->asDouble(0);
    for (int64_t i = 0, e2 = product(x.ints); i < e2; ++i) {
      if (e->known->isFloat())
        out.floats.push_back(v);
      else
        out.ints.push_back(e->known->ints[0]);
    }
    return one(out);
  }
  for (int64_t i = 0, e2 = product(x.ints); i < e2; ++i)
    out.floats.push_back(v);
  return one(out);
}

/// Only full reductions of 1-D shape vectors (element counts).
static Folded foldReduce(NodeContext &n, StringRef op, const Known &x) {
  if (x.shape.size() != 1 || n.numInputs() > 1)
    return std::nullopt;
  auto keep = n.attrInt("keepdims", 1);
  if (failed(keep))
    return std::nullopt;
  Known out;
  out.elemType = x.elemType;
  if (*keep)
    out.shape = {1};
  double acc = op == "ReduceProd" ? 1 : op == "ReduceSum" ? 0
               : x.numElements() ? x.asDouble(0) : 0;
  for (int64_t i = 0; i < x.numElements(); ++i) {
    double v = x.asDouble(i);
    acc = op == "ReduceProd" ? acc * v
          : op == "ReduceSum" ? acc + v
          : op == "ReduceMin" ? std::min(acc, v)
                              : std::max(acc, v);
  }
  out.push(acc);
  return one(out);
}

/// Evaluates one node over known inputs; nullopt when it cannot.
static Folded fold(NodeContext &n) {
  StringRef op = n.node.op_type();
  if (op == "Shape" || op == "Size")
    return foldShapeOrSize(n, op);

  // Everything else needs every present input known.
  for (size_t i = 0; i < n.numInputs(); ++i)
    if (n.hasInput(i) && !n.known(i))
      return std::nullopt;
  if (n.numInputs() == 0 || !n.known(0))
    return std::nullopt;
  const Known &x = *n.known(0);

  static const llvm::StringMap<BinKind> binKinds = {
      {"Add", BinKind::Add},     {"Sub", BinKind::Sub},
      {"Mul", BinKind::Mul},     {"Div", BinKind::Div},
      {"Max", BinKind::Max},     {"Min", BinKind::Min},
      {"Equal", BinKind::Eq},    {"Less", BinKind::Lt},
      {"LessOrEqual", BinKind::Le}, {"Greater", BinKind::Gt},
      {"GreaterOrEqual", BinKind::Ge}, {"And", BinKind::And},
      {"Or", BinKind::Or},       {"Mod", BinKind::Mod},
      {"Pow", BinKind::Pow}};
  auto bk = binKinds.find(op);
  if (bk != binKinds.end() && n.numInputs() == 2 && n.known(1)) {
    if (op == "Mod" && n.attrInt("fmod", 0).value_or(0) != 0)
      return std::nullopt;
    if (auto r = binary(bk->second, x, *n.known(1), n.graph.ctx))
      return one(*r);
    return std::nullopt;
  }
  if (op == "Identity")
    return one(x);
  if (op == "Cast")
    return foldCast(n, x);
  if (op == "CastLike" && n.known(1))
    return one(cast(x, n.known(1)->elemType));
  if (op == "Neg" || op == "Abs" || op == "Floor" || op == "Ceil" ||
      op == "Sqrt" || op == "Not" || op == "Sign" || op == "Relu")
    return foldUnary(op, x);
  if (op == "Where" && n.known(1) && n.known(2))
    return foldWhere(n, x);
  if (op == "Gather")
    return foldGather(n, x);
  if (op == "Concat")
    return foldConcat(n, x);
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" ||
      op == "Flatten")
    return foldReshapeLike(n, op, x);
  if (op == "Expand")
    return foldExpand(n, x);
  if (op == "Slice" && n.opset >= 10)
    return foldSlice(n, x);
  if (op == "Range" && n.known(1) && n.known(2))
    return foldRange(n, x);
  if (op == "ConstantOfShape")
    return foldConstantOfShape(n, x);
  if (op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMin" ||
      op == "ReduceMax")
    return foldReduce(n, op, x);
  return std::nullopt;
}

bool hodu::onnx_import::tryFoldNode(NodeContext &n) {
  auto outs = fold(n);
  if (!outs)
    return false;
  for (auto [i, k] : llvm::enumerate(*outs))
    n.setKnown(i, std::move(k));
  return true;
}

