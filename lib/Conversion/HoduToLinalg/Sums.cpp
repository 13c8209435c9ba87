//===- Sums.cpp - reductions into accumulators, and blocked sums ---------===//
//
// reduceOver builds the linalg.generic every reduction of the Reduce family
// is made of; blockedSum sums in stages so that long floating-point sums
// stay accurate (see its comment).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

using namespace mlir;

namespace hodu::lowering {
namespace {

/// How many terms one stage of a floating-point sum adds. When the input's
/// innermost dim is reduced, the CPU adds it in vector lanes (4 x 16 on
/// AVX-512), so a block of 4096 is 64 terms per accumulator; otherwise
/// every output element has one accumulator of its own, and the block is
/// 256. A sum of at most `max` terms is one generic, as it always was; a
/// dim longer than that is split into blocks of a divisor of its size in
/// [min, max] where one exists (closest to `target`; with lanes, multiples
/// of 64 and then 16 first: a block with a remainder in every row costs a
/// masked tail per block, measured 10% on a 10^7-element sum).
struct SumBlock {
  int64_t target, min, max;
  bool lanes;
};

SumBlock sumBlockFor(RankedTensorType type, ArrayRef<int64_t> dims) {
  if (!dims.empty() && dims.back() == type.getRank() - 1)
    return {4096, 1024, 8192, true};
  return {256, 64, 512, false};
}

/// The divisor of `n` `block` splits it by, or 0.
int64_t sumBlockOf(int64_t n, const SumBlock &block) {
  int64_t best = 0;
  auto rank = [&](int64_t d) {
    int align = !block.lanes ? 0 : d % 64 == 0 ? 0 : d % 16 == 0 ? 1 : 2;
    double distance =
        d > block.target ? double(d) / block.target : double(block.target) / d;
    return std::make_pair(align, distance);
  };
  for (int64_t d = block.min; d <= block.max && d <= n; ++d)
    if (n % d == 0 && (!best || rank(d) < rank(best)))
      best = d;
  return best;
}

} // namespace

/// Reduces `input` over `dims` into accumulators initialised with `inits`.
/// `extra` are tensors of the reduced shape read at the output position
/// (e.g. a mean); `extraDims`, when given, are the input dims they are
/// indexed by instead of every kept dim. The body gets the input scalar, the
/// extra scalars, the accumulators and, with `withIndices`, all loop indices
/// (input dims order).
SmallVector<Value> reduceOver(OpBuilder &b, Location loc, Value input,
                              ArrayRef<int64_t> dims, ValueRange inits,
                              ValueRange extra, const ReduceBody &body,
                              bool withIndices,
                              std::optional<ArrayRef<int64_t>> extraDims) {
  MLIRContext *ctx = b.getContext();
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t rank = inType.getRank();
  llvm::SmallDenseSet<int64_t> reduced(dims.begin(), dims.end());
  SmallVector<int64_t> outShape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iters;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced.contains(d)) {
      iters.push_back(utils::IteratorType::reduction);
      continue;
    }
    iters.push_back(utils::IteratorType::parallel);
    outShape.push_back(inType.getDimSize(d));
    outExprs.push_back(getAffineDimExpr(d, ctx));
  }
  AffineMap outMap = AffineMap::get(rank, 0, outExprs, ctx);
  AffineMap extraMap = outMap;
  if (extraDims) {
    SmallVector<AffineExpr> exprs;
    for (int64_t d : *extraDims)
      exprs.push_back(getAffineDimExpr(d, ctx));
    extraMap = AffineMap::get(rank, 0, exprs, ctx);
  }
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank)};
  SmallVector<Value> ins{input};
  for (Value e : extra) {
    ins.push_back(e);
    maps.push_back(extraMap);
  }
  SmallVector<Value> outs;
  SmallVector<Type> outTypes;
  for (Value init : inits) {
    outs.push_back(filledTensor(b, loc, outShape, init));
    outTypes.push_back(outs.back().getType());
    maps.push_back(outMap);
  }
  auto generic = linalg::GenericOp::create(
      b, loc, outTypes, ins, outs, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> ivs;
        for (int64_t d = 0; withIndices && d < rank; ++d)
          ivs.push_back(linalg::IndexOp::create(nb, nloc, d));
        unsigned nIns = ins.size();
        SmallVector<Value> r =
            body(nb, nloc, args.take_front(nIns), args.drop_front(nIns), ivs);
        linalg::YieldOp::create(nb, nloc, r);
      });
  return SmallVector<Value>(generic.getResults());
}

/// Sums term(x) over `dims` of `input` (sorted, static sizes) into a tensor
/// of the kept dims in their order, accumulating in `acc`. `extra` are read
/// at input dims `extraDims` (kept dims). Long float sums go in stages:
///   - the innermost reduced dims whose sizes multiply to at most a
///     block's `max` are reduced first, the rest of the partial sums after;
///   - an innermost reduced dim longer than that is split into
///     [n / b, b] (b from sumBlockOf), or, when n has no such divisor, into
///     its first multiple of the block's `target` elements, split that way,
///     and the remainder, summed apart and added.
/// Every stage is a plain reduction generic, so each target's reduction
/// strategy (vector lanes on the CPU, a workgroup tree on GPUs) applies.
Value blockedSum(OpBuilder &b, Location loc, Value input,
                 SmallVector<int64_t> dims, SmallVector<int64_t> extraDims,
                 ValueRange extra, Type acc, const SumTerm &term,
                 const Combiner &combiner) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto body = [&](OpBuilder &nb, Location l, ValueRange ins, ValueRange accs,
                  ValueRange) -> SmallVector<Value> {
    Value x = widen(nb, l, ins[0]);
    if (term)
      x = term(nb, l, x, ins.drop_front());
    if (combiner.combine)
      return {combiner.combine(nb, l, accs[0], x)};
    return {emitAdd(nb, l, accs[0], x)};
  };
  auto single = [&](Value in, ArrayRef<int64_t> ds) {
    return reduceOver(b, loc, in, ds,
                      constNumber(b, loc, acc, combiner.identity), extra, body,
                      false, ArrayRef<int64_t>(extraDims))[0];
  };
  int64_t count = 1;
  for (int64_t d : dims)
    count *= inType.getDimSize(d);
  SumBlock blocks = sumBlockFor(inType, dims);
  if (count <= blocks.max)
    return single(input, dims);

  // The innermost reduced dims that fit a block, and the next one, `e`.
  size_t inner = 0;
  int64_t block = 1;
  while (inner < dims.size() &&
         block * inType.getDimSize(dims[dims.size() - 1 - inner]) <= blocks.max)
    block *= inType.getDimSize(dims[dims.size() - 1 - inner++]);
  int64_t e = dims[dims.size() - 1 - inner], n = inType.getDimSize(e);
  // When the inner dims make less than a block, split `e` into [n / k, k]
  // so that k completes it (the loops of one block stay those of the
  // unsplit reduction: a global pooling over 112 x 112 keeps its rows).
  SumBlock part{std::max<int64_t>(1, blocks.target / block),
                std::max<int64_t>(2, blocks.min / block), blocks.max / block,
                blocks.lanes && inner == 0};
  int64_t k = block < blocks.min ? sumBlockOf(n, part) : 0, whole = n;
  if (!k && inner > 0) {
    // No such divisor: the inner dims first, the rest of the partial sums
    // after.
    SmallVector<int64_t> first(dims.end() - inner, dims.end());
    Value partial = single(input, first);
    SmallVector<int64_t> rest;
    for (int64_t d : ArrayRef<int64_t>(dims).drop_back(inner))
      rest.push_back(d -
                     llvm::count_if(first, [&](int64_t f) { return f < d; }));
    return blockedSum(b, loc, partial, rest, {}, {}, acc, nullptr, combiner);
  }
  if (!k) {
    // The innermost reduced dim is longer than a block and has no divisor
    // near one: its first multiple of a block, split, and the remainder.
    k = blocks.target;
    whole = n / k * k;
  }
  auto sliceOf = [&](int64_t offset, int64_t size) {
    SmallVector<OpFoldResult> offsets(inType.getRank(), b.getIndexAttr(0)),
        sizes, strides(inType.getRank(), b.getIndexAttr(1));
    for (int64_t i = 0; i < inType.getRank(); ++i)
      sizes.push_back(b.getIndexAttr(i == e ? size : inType.getDimSize(i)));
    offsets[e] = b.getIndexAttr(offset);
    return tensor::ExtractSliceOp::create(b, loc, input, offsets, sizes,
                                          strides)
        .getResult();
  };
  Value head = whole == n ? input : sliceOf(0, whole);
  SmallVector<int64_t> shape(inType.getShape());
  shape[e] = whole / k;
  shape.insert(shape.begin() + e + 1, k);
  SmallVector<ReassociationIndices> re;
  for (int64_t i = 0; i < inType.getRank(); ++i) {
    int64_t at = i <= e ? i : i + 1;
    re.push_back(i == e ? ReassociationIndices{at, at + 1}
                        : ReassociationIndices{at});
  }
  Value split = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, inType.getElementType()), head, re);
  // Dims after the split: e (the block index) and e + 1 (inside a block);
  // dims past e move by one.
  SmallVector<int64_t> splitDims, splitExtra;
  for (int64_t d : dims) {
    if (d == e)
      splitDims.push_back(e);
    splitDims.push_back(d < e ? d : d + 1);
  }
  for (int64_t d : extraDims)
    splitExtra.push_back(d < e ? d : d + 1);
  Value sum = blockedSum(b, loc, split, splitDims, splitExtra, extra, acc, term,
                         combiner);
  if (whole == n)
    return sum;
  Value tail = blockedSum(b, loc, sliceOf(whole, n - whole), dims, extraDims,
                          extra, acc, term, combiner);
  return buildElementwise(
      b, loc, cast<RankedTensorType>(sum.getType()), {sum, tail},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        if (combiner.combine)
          return combiner.combine(nb, l, a[0], a[1]);
        return emitAdd(nb, l, a[0], a[1]);
      });
}

} // namespace hodu::lowering
