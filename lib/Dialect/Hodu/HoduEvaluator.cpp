//===- HoduEvaluator.cpp - hodu op semantics on constants -----------------===//
//
// The evaluator of include/hodu/Dialect/Hodu/Evaluator.h: the elementwise
// families (Unary, UnaryScalar, Binary with numpy broadcasting, Cmp,
// CmpScalar, BinaryLogical, UnaryLogical), `select`, `cast`, the shape ops
// that only move elements (`reshape`, `flatten`, `squeeze`, `unsqueeze`,
// `contiguous`, `broadcast`, `transpose`, `slice`, `flip`, `concat`), the
// indexing ops (`index_select`, `gather`, `index_put`) and
// `reduce_sum`/`mean`/`max`/`min`/`prod`; and `evaluateRange` (ONNX Range,
// which has no hodu op). Ops are told apart by class (TypeSwitch), never by
// name.
//
// This file holds the entry points (the limits, splats, `split`, Range,
// folding to constants), the index walks and the dispatch of an op to its
// family (HoduEvaluatorCommon.h): the views and writers of constants are
// in HoduEvaluatorConstants.cpp, the elementwise families in
// HoduEvaluatorElementwise.cpp, the shape, indexing and reduction ops in
// HoduEvaluatorShape.cpp.
//
//===----------------------------------------------------------------------===//

#include "HoduEvaluatorCommon.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace hodu;
using namespace hodu::detail;

//===----------------------------------------------------------------------===//
// Index walks
//===----------------------------------------------------------------------===//

SmallVector<int64_t> hodu::detail::contiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

SmallVector<int64_t>
hodu::detail::broadcastStrides(ArrayRef<int64_t> in, ArrayRef<int64_t> out) {
  SmallVector<int64_t> s(out.size(), 0);
  SmallVector<int64_t> cs = contiguousStrides(in);
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d)
    s[lead + d] = in[d] == 1 ? 0 : cs[d];
  return s;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

ElementsAttr Evaluator::run(Operation *op, ArrayRef<ConstantView> in,
                            RankedTensorType rt) {
  auto reduceCase = [&](ReduceKind kind) {
    return [&, kind](auto r) { return reduce(kind, r.getDims(), in[0], rt); };
  };
  auto predicateCase = [&](PredicateKind kind) {
    return [&, kind](auto) { return predicate(kind, in[0], rt); };
  };
  return llvm::TypeSwitch<Operation *, ElementsAttr>(op)
      .Case<CastOp>([&](auto) { return convert(in[0], rt); })
      .Case<LogicalNotOp>(predicateCase(PredicateKind::Not))
      .Case<IsNanOp>(predicateCase(PredicateKind::IsNan))
      .Case<IsInfOp>(predicateCase(PredicateKind::IsInf))
      .Case<IsFiniteOp>(predicateCase(PredicateKind::IsFinite))
      .Case<ReduceSumOp>(reduceCase(ReduceKind::Sum))
      .Case<ReduceMeanOp>(reduceCase(ReduceKind::Mean))
      .Case<ReduceMaxOp>(reduceCase(ReduceKind::Max))
      .Case<ReduceMinOp>(reduceCase(ReduceKind::Min))
      .Case<ReduceProdOp>(reduceCase(ReduceKind::Prod))
      .Case<ReduceAllOp>(reduceCase(ReduceKind::All))
      .Case<ReduceAnyOp>(reduceCase(ReduceKind::Any))
      .Case<MatmulOp>([&](auto) { return matmul(in[0], in[1], rt); })
      .Case<ReduceWindowOp>([&](ReduceWindowOp w) {
        WindowKind k = w.getKind();
        int kind = k == WindowKind::max   ? WindowMax
                   : k == WindowKind::min ? WindowMin
                   : k == WindowKind::sum ? WindowSum
                                          : WindowMean;
        return reduceWindow(in[0], kind, w.getWindowDims(), w.getStrides(),
                            w.getPads(), w.getDilations(),
                            w.getCountIncludePad(), rt);
      })
      .Case<ConvOp>([&](ConvOp c) {
        return conv(in[0], in[1], c.getStrides(), c.getPads(), c.getDilations(),
                    c.getGroups(), rt);
      })
      // Shape-only ops reuse the data (a dense reshape or the same blob).
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, ContiguousOp>(
          [&](auto) -> ElementsAttr {
            ElementsAttr attr = in[0].getAttr();
            if (auto dense = dyn_cast<DenseElementsAttr>(attr))
              return dense.reshape(rt);
            if (auto res = dyn_cast<DenseResourceElementsAttr>(attr))
              return DenseResourceElementsAttr::get(rt, res.getRawHandle());
            return {};
          })
      .Case<TransposeOp, BroadcastOp, SliceOp, ConcatOp, FlipOp>(
          [&](auto) { return movement(op, in, rt); })
      .Case<IndexSelectOp>([&](IndexSelectOp s) {
        return indexSelect(in[0], in[1], s.getDim(), rt);
      })
      .Case<GatherOp>(
          [&](GatherOp g) { return gather(in[0], in[1], g.getDim(), rt); })
      .Case<IndexPutOp>([&](IndexPutOp p) {
        return indexPut(in[0], in[1], in[2], p.getDim(), rt);
      })
      .Default([&](Operation *) -> ElementsAttr {
        if (in.size() == 1 && !op->hasAttr("scalar"))
          return unary(op, in[0], rt);
        return broadcasting(op, in, rt);
      });
}

static bool isReduction(Operation *op) {
  return isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
             ReduceAllOp, ReduceAnyOp>(op);
}

/// `split`: one piece per result, each after the ones before it.
/// Whether a static shape's element count fits int64 (a model may declare
/// dims whose product does not; such a tensor is left for run time, where
/// the tensor-size check refuses it).
static bool countable(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return false;
  return true;
}

static SmallVector<ElementsAttr> evaluateSplit(SplitOp op,
                                               const ConstantView &x,
                                               const EvaluationLimits &limits) {
  // The pieces together visit (and hold) every input element once.
  if (!countable(x.getType().getShape()))
    return {};
  if (!x.isSplat() &&
      (x.size() > limits.maxElements || x.size() > limits.maxWork))
    return {};
  SmallVector<ElementsAttr> results;
  int64_t offset = 0, dim = op.getDim();
  for (Value r : op.getResults()) {
    auto rt = dyn_cast<RankedTensorType>(r.getType());
    if (!rt || !rt.hasStaticShape() ||
        rt.getElementType() != x.getType().getElementType())
      return {};
    if (x.isSplat()) {
      ConstantWriter one(RankedTensorType::get({}, rt.getElementType()),
                         INT64_MAX);
      one.copy(0, x, 0);
      results.push_back(cast<DenseElementsAttr>(one.finish()).resizeSplat(rt));
    } else {
      results.push_back(
          Evaluator(limits.resourceBytes).piece(x, dim, offset, rt));
    }
    offset += rt.getDimSize(dim);
  }
  return results;
}

SmallVector<ElementsAttr>
hodu::evaluateResults(Operation *op, ArrayRef<ConstantView> operands,
                      const EvaluationLimits &limits) {
  if (auto split = dyn_cast<SplitOp>(op))
    return operands.size() == 1 ? evaluateSplit(split, operands[0], limits)
                                : SmallVector<ElementsAttr>();
  if (ElementsAttr value = evaluate(op, operands, limits))
    return {value};
  return {};
}

ElementsAttr hodu::evaluate(Operation *op, ArrayRef<ConstantView> operands,
                            const EvaluationLimits &limits) {
  if (op->getNumResults() != 1 || operands.empty() ||
      operands.size() != op->getNumOperands())
    return {};
  auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!rt || !rt.hasStaticShape() || !getElementKind(rt.getElementType()) ||
      !countable(rt.getShape()) ||
      llvm::any_of(operands, [](const ConstantView &e) {
        return !countable(e.getType().getShape());
      }))
    return {};

  // All-splat inputs give a splat result (except concat, reductions and the
  // indexing ops, whose indices must be checked), which costs one element
  // whatever its size: evaluate one element.
  if (llvm::all_of(operands,
                   [](const ConstantView &e) { return e.isSplat(); }) &&
      !isa<ConcatOp, IndexSelectOp, GatherOp, IndexPutOp, MatmulOp, ConvOp,
           ReduceWindowOp>(op) &&
      !isReduction(op)) {
    SmallVector<ConstantView, 3> scalars;
    for (const ConstantView &e : operands)
      scalars.push_back(e.asScalar());
    auto scalarType = RankedTensorType::get({}, rt.getElementType());
    ElementsAttr value;
    if (isa<TransposeOp, BroadcastOp, SliceOp, FlipOp, ReshapeOp, FlattenOp,
            SqueezeOp, UnsqueezeOp, ContiguousOp>(op)) {
      ConstantWriter out(scalarType, INT64_MAX);
      out.copy(0, scalars[0], 0);
      value = out.finish();
    } else {
      value = Evaluator(INT64_MAX).run(op, scalars, scalarType);
    }
    if (auto dense = dyn_cast_if_present<DenseElementsAttr>(value))
      return dense.resizeSplat(rt);
    return {};
  }
  // A reduction visits every element of its input, `index_put` its input
  // and its values, a matmul or conv each result element's whole dot
  // product; everything else visits each result element once.
  int64_t work = isReduction(op) ? operands[0].size()
                 : isa<IndexPutOp>(op)
                     ? rt.getNumElements() + operands[2].size()
                     : rt.getNumElements();
  int64_t dot = 1;
  if (isa<MatmulOp>(op) && !operands[0].shape().empty())
    dot = operands[0].shape().back();
  if (isa<ConvOp>(op) && operands[1].shape().size() >= 2)
    dot = operands[1].size() / std::max<int64_t>(operands[1].shape()[0], 1);
  if (auto w = dyn_cast<ReduceWindowOp>(op))
    for (int64_t d : w.getWindowDims())
      if (llvm::MulOverflow(dot, std::max<int64_t>(d, 1), dot))
        return {};
  if (llvm::MulOverflow(work, std::max<int64_t>(dot, 1), work))
    return {};
  if (rt.getNumElements() > limits.maxElements || work > limits.maxWork)
    return {};
  return Evaluator(limits.resourceBytes).run(op, operands, rt);
}

ElementsAttr hodu::evaluateRange(const ConstantView &start,
                                 const ConstantView &limit,
                                 const ConstantView &delta,
                                 const EvaluationLimits &limits) {
  Type elt = start.getType().getElementType();
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1 ||
      limit.getType().getElementType() != elt ||
      delta.getType().getElementType() != elt ||
      start.getKind() == ElementKind::Bool)
    return {};
  bool isFloat = start.getKind() == ElementKind::Float;
  int64_t count;
  if (isFloat) {
    double s = start.f(0), l = limit.f(0), d = delta.f(0);
    double n = std::ceil((l - s) / d);
    // Also refuses NaN and infinite counts (delta 0, non-finite bounds).
    if (!(n < static_cast<double>(limits.maxElements) + 1))
      return {};
    // n may be far below int64's range (converting it is undefined).
    count = n > 0 ? static_cast<int64_t>(n) : 0;
  } else {
    // Exact in 64-bit unsigned arithmetic: limit - start may overflow the
    // signed type, never the span between them as an unsigned number.
    bool isUnsigned = start.getKind() == ElementKind::Unsigned;
    uint64_t s = start.s(0), l = limit.s(0), d = delta.s(0);
    auto less = [&](uint64_t a, uint64_t b) {
      return isUnsigned ? a < b
                        : static_cast<int64_t>(a) < static_cast<int64_t>(b);
    };
    if (d == 0)
      return {};
    bool up = isUnsigned || static_cast<int64_t>(d) > 0;
    uint64_t span = up ? (less(s, l) ? l - s : 0) : (less(l, s) ? s - l : 0);
    uint64_t step = up ? d : 0 - d;
    uint64_t n = span / step + (span % step != 0);
    if (n > static_cast<uint64_t>(limits.maxElements))
      return {};
    count = static_cast<int64_t>(n);
  }
  if (count > limits.maxElements || count > limits.maxWork)
    return {};
  ConstantWriter out(RankedTensorType::get({count}, elt), limits.resourceBytes);
  for (int64_t i = 0; i < count; ++i) {
    if (isFloat)
      out.setF(i, start.f(0) + static_cast<double>(i) * delta.f(0));
    else
      out.setRaw(i, start.s(0) + static_cast<uint64_t>(i) * delta.s(0));
  }
  return out.finish();
}

ElementsAttr hodu::getConstantValue(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  return c ? c.getValue() : ElementsAttr();
}

SmallVector<Value> hodu::foldToConstants(Operation *op,
                                         const EvaluationLimits &limits) {
  if (!isa<HoduDialect>(op->getDialect()) || isa<ConstantOp>(op) ||
      op->getNumOperands() == 0)
    return {};
  SmallVector<ConstantView, 3> operands;
  for (Value v : op->getOperands()) {
    auto view = ConstantView::get(getConstantValue(v));
    if (!view)
      return {};
    operands.push_back(std::move(*view));
  }
  SmallVector<ElementsAttr> values = evaluateResults(op, operands, limits);
  if (values.empty())
    return {};
  OpBuilder b(op);
  SmallVector<Value> constants;
  for (auto [result, value] : llvm::zip_equal(op->getResults(), values)) {
    constants.push_back(ConstantOp::create(b, op->getLoc(), value));
    result.replaceAllUsesWith(constants.back());
  }
  op->erase();
  return constants;
}
