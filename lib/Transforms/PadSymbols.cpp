//===- PadSymbols.cpp - masks that keep a padded symbol's padding out -----===//
//
// A symbol that ops mix (a sequence length, a decoder's past, a time axis)
// is compiled at its bound and run on inputs padded to it; the real
// positions of every dim it reaches are a prefix of that dim, whose length
// the driver recorded as `scale * symbol + offset` (`hodu.extents`). Ops
// that compute per position need nothing; this pass puts a select before
// every op that reads across such a dim, so that the padding holds the
// op's neutral value there, and rebuilds the ops that would move real
// positions behind padding (concat, constant pads). The value of the
// symbol is the entry's new last argument (docs/architecture.md,
// "Symbolic dims").
//
//===----------------------------------------------------------------------===//

#include "hodu/Dialect/Hodu/Entry.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Dialect/Hodu/Symbols.h"
#include "hodu/Transforms/Passes.h"

#include "PadRewriter.h"
#include "SymbolOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace hodu {
#define GEN_PASS_DEF_PADSYMBOLS
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;
using namespace hodu;
using namespace hodu::pad_symbols;

/// Reads `dims` (one string per dim of v) into the table.
LogicalResult PadRewriter::readExtents(Value v, ArrayAttr dims,
                                       Operation *where, bool isArgument) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || (int64_t)dims.size() != type.getRank())
    return where->emitError("hodu.extents: one entry per dim of ")
           << v.getType();
  SmallVector<Extent> row(type.getRank());
  bool any = false;
  for (auto [d, attr] : llvm::enumerate(dims)) {
    auto text = dyn_cast<StringAttr>(attr);
    if (!text)
      return where->emitError("hodu.extents: strings, not ") << attr;
    if (text.getValue().empty())
      continue;
    std::optional<SymbolicExtent> e = parseSymbolicExtent(text.getValue());
    int sym = -1;
    for (auto [k, s] : llvm::enumerate(symbols))
      if (e && s.name == e->symbol)
        sym = (int)k;
    // An argument's dims may name a symbol run in chunks, which no op mixes.
    if (e && sym < 0 && isArgument)
      continue;
    if (!e || sym < 0)
      return where->emitError("hodu.extents: '")
             << text.getValue() << "' is not an extent of a padded symbol";
    int64_t bound = symbols[sym].chunk;
    if ((e->scale * bound) % e->divisor != 0 ||
        type.getDimSize(d) != e->at(bound))
      return where->emitError("hodu.extents: dim ")
             << d << " of " << type << " is not " << text.getValue() << " at "
             << e->symbol << " = " << bound;
    row[d] = Extent{e->scale, e->offset, e->divisor, sym};
    any = true;
  }
  if (any)
    table[v] = std::move(row);
  return success();
}

LogicalResult PadRewriter::read() {
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (auto dims = f.getArgAttrOfType<ArrayAttr>(i, "hodu.dims"))
      if (failed(readExtents(f.getArgument(i), dims, f, /*isArgument=*/true)))
        return failure();
  WalkResult walk = f.walk([&](Operation *op) {
    auto all = op->getAttrOfType<ArrayAttr>("hodu.extents");
    if (!all)
      return WalkResult::advance();
    if (all.size() != op->getNumResults()) {
      op->emitError("hodu.extents: one array per result");
      return WalkResult::interrupt();
    }
    for (auto [r, dims] : llvm::zip(op->getResults(), all)) {
      auto array = dyn_cast<ArrayAttr>(dims);
      if (!array || failed(readExtents(r, array, op)))
        return WalkResult::interrupt();
    }
    op->removeAttr("hodu.extents");
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

Value PadRewriter::i64Constant(ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, b.getI64Type());
  return ConstantOp::create(b, f.getLoc(),
                            DenseElementsAttr::get(type, values));
}

Value PadRewriter::clampIndex(Location loc, Value index, int64_t size) {
  Type type = index.getType();
  index = MaximumOp::create(b, loc, type, index, i64Constant({}, {0}));
  return MinimumOp::create(b, loc, type, index, i64Constant({}, {size - 1}));
}

/// The 0-d constant an op's padding must hold.
Value PadRewriter::scalar(Type elem, Neutral k) {
  auto type = RankedTensorType::get({}, elem);
  Attribute value;
  if (auto ft = dyn_cast<FloatType>(elem)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    APFloat v = k == Neutral::Zero ? APFloat::getZero(sem)
                : k == Neutral::One
                    ? APFloat::getOne(sem)
                    : APFloat::getInf(sem, k == Neutral::Lowest);
    value = FloatAttr::get(ft, v);
  } else {
    auto it = cast<IntegerType>(elem);
    unsigned w = it.getWidth();
    bool isUnsigned = it.isUnsigned() || w == 1;
    APInt v = k == Neutral::Zero ? APInt(w, 0)
              : k == Neutral::One
                  ? APInt(w, 1)
                  : (k == Neutral::Lowest
                         ? (isUnsigned ? APInt::getMinValue(w)
                                       : APInt::getSignedMinValue(w))
                         : (isUnsigned ? APInt::getMaxValue(w)
                                       : APInt::getSignedMaxValue(w)));
    value = IntegerAttr::get(it, v);
  }
  return ConstantOp::create(b, f.getLoc(), DenseElementsAttr::get(type, value));
}

/// scale * n / divisor + offset, a 0-d i64 tensor.
Value PadRewriter::realExtent(Extent e) {
  auto type = RankedTensorType::get({}, b.getI64Type());
  Value v = n[e.sym];
  if (e.scale != 1)
    v = MulOp::create(b, f.getLoc(), type, v, i64Constant({}, {e.scale}));
  if (e.divisor != 1)
    v = DivOp::create(b, f.getLoc(), type, v, i64Constant({}, {e.divisor}));
  if (e.offset != 0)
    v = AddOp::create(b, f.getLoc(), type, v, i64Constant({}, {e.offset}));
  return v;
}

/// Marks a mask's condition op as its own (`hodu.mask`, a number), so that
/// CSE keeps one per mask: with one user, the select, it joins the
/// select's fusion group and is computed there, a compare per element in
/// the vectorised loop, rather than loaded from an i1 tensor that every
/// mask of that shape shares (which the CPU's loops do not vectorise).
void PadRewriter::distinct(Value v) {
  v.getDefiningOp()->setAttr("hodu.mask", b.getI64IntegerAttr(masks));
}

/// An i1 tensor, true at the real positions of `dims` (each index below
/// its real extent), shaped to broadcast against `shape`. The indices are
/// of the masked tensor's element type where it is a float of at least 32
/// bits (exact up to 2^24 positions): a compare of the width of the data
/// vectorises with the select that reads it; i64 otherwise.
Value PadRewriter::keep(ArrayRef<int64_t> shape,
                        ArrayRef<std::pair<int64_t, Extent>> dims, Type like) {
  Location loc = f.getLoc();
  auto ft = dyn_cast<FloatType>(like);
  bool useFloat = ft && ft.getWidth() >= 32 && llvm::all_of(dims, [&](auto de) {
                    return shape[de.first] <= (int64_t(1) << 24);
                  });
  Value all;
  SmallVector<int64_t> allShape(shape.size(), 1);
  for (auto [d, e] : dims) {
    SmallVector<int64_t> s(shape.size(), 1);
    s[d] = shape[d];
    auto iota = llvm::to_vector(llvm::seq<int64_t>(0, shape[d]));
    if (e.period)
      for (int64_t &v : iota)
        v %= e.period;
    Value index, limit = realExtent(e);
    if (useFloat) {
      SmallVector<APFloat> values;
      for (int64_t v : iota) {
        APFloat x((double)v);
        bool lost;
        x.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
        values.push_back(x);
      }
      index = ConstantOp::create(
          b, loc, DenseElementsAttr::get(RankedTensorType::get(s, ft), values));
      limit = CastOp::create(b, loc, RankedTensorType::get({}, ft), limit);
    } else {
      index = i64Constant(s, iota);
    }
    Value lt = LtOp::create(b, loc, RankedTensorType::get(s, b.getI1Type()),
                            index, limit);
    distinct(lt);
    if (!all) {
      all = lt;
      allShape = s;
      continue;
    }
    allShape[d] = shape[d];
    all = LogicalAndOp::create(
        b, loc, RankedTensorType::get(allShape, b.getI1Type()), all, lt);
    distinct(all);
  }
  return all;
}

/// x with the padding of `dims` replaced by the neutral value.
Value PadRewriter::masked(Value x, ArrayRef<int64_t> dims, Neutral k) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<std::pair<int64_t, Extent>> which;
  for (int64_t d : dims)
    which.push_back({d, extentOf(x, d)});
  Value cond = keep(type.getShape(), which, type.getElementType());
  Value r = SelectOp::create(b, f.getLoc(), type, cond, x,
                             scalar(type.getElementType(), k));
  table[r] = table.lookup(x);
  ++masks;
  return r;
}

/// Gives operand i of op the neutral value k in the padding of `dims`. A
/// value whose padding holds nothing known is masked once, for all its
/// users (what the padding holds never reaches a real position, so any
/// user may see the mask); one already neutral there is left alone.
void PadRewriter::maskOperand(Operation *op, unsigned i, ArrayRef<int64_t> dims,
                              Neutral k) {
  if (dims.empty())
    return;
  Value x = op->getOperand(i);
  auto it = known.find(x);
  if (it != known.end()) {
    if (it->second.first == k && llvm::all_of(dims, [&](int64_t d) {
          return llvm::is_contained(it->second.second, d);
        }))
      return;
    // Neutral for another op: a mask of this use alone.
    b.setInsertionPoint(op);
    op->setOperand(i, masked(x, dims, k));
    return;
  }
  if (Operation *def = x.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(x.getParentBlock());
  Value m = masked(x, dims, k);
  x.replaceAllUsesExcept(m, m.getDefiningOp());
  known[m] = {k, SmallVector<int64_t>(dims)};
}

/// What an elementwise op's result holds in the padding, from what its
/// operands hold there: -inf minus (or plus) a value broadcast along the
/// padded dims stays -inf, its exp is 0, and 0 times (or over) such a value
/// stays 0 -- the steps of a softmax, whose input was masked once. The
/// broadcast values are finite where the model's real positions are.
void PadRewriter::propagateKnown(Operation *op) {
  if (op->getNumResults() != 1)
    return;
  auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!rt)
    return;
  // Whether v is 1 (or absent) along every dim of `dims` of the result.
  auto broadcastAlong = [&](Value v, ArrayRef<int64_t> dims) {
    auto vt = dyn_cast<RankedTensorType>(v.getType());
    if (!vt)
      return false;
    int64_t lead = rt.getRank() - vt.getRank();
    return llvm::all_of(dims, [&](int64_t d) {
      return d < lead || vt.getDimSize(d - lead) == 1;
    });
  };
  auto knownOf =
      [&](Value v) -> std::optional<std::pair<Neutral, SmallVector<int64_t>>> {
    auto it = known.find(v);
    if (it == known.end() ||
        cast<RankedTensorType>(v.getType()).getRank() != rt.getRank())
      return std::nullopt;
    return it->second;
  };
  auto binary = [&](Neutral from, Neutral to, bool either) {
    for (unsigned i = 0; i < 2; ++i) {
      if (i == 1 && !either)
        break;
      auto k = knownOf(op->getOperand(i));
      if (k && k->first == from &&
          broadcastAlong(op->getOperand(1 - i), k->second)) {
        known[op->getResult(0)] = {to, k->second};
        return;
      }
    }
  };
  if (isa<SubOp>(op))
    binary(Neutral::Lowest, Neutral::Lowest, /*either=*/false);
  else if (isa<AddOp>(op))
    binary(Neutral::Lowest, Neutral::Lowest, /*either=*/true);
  else if (isa<MulOp>(op))
    binary(Neutral::Zero, Neutral::Zero, /*either=*/true);
  else if (isa<DivOp>(op))
    binary(Neutral::Zero, Neutral::Zero, /*either=*/false);
  else if (isa<ExpOp>(op))
    if (auto k = knownOf(op->getOperand(0)); k && k->first == Neutral::Lowest)
      known[op->getResult(0)] = {Neutral::Zero, k->second};
}

/// Reductions over a padded dim: its padding is the neutral value; a mean
/// is scaled from the padded count to the real one.
template <class R>
LogicalResult PadRewriter::reduce(R r, Neutral k, bool mean) {
  Value in = r.getInput();
  int64_t rank = cast<RankedTensorType>(in.getType()).getRank();
  SmallVector<int64_t> axes = symbolAxesOf(r.getDims(), rank);
  SmallVector<int64_t> dims;
  for (int64_t d : axes)
    if (isSymbolic(in, d))
      dims.push_back(d);
  // The kept dims' interleaving, where they land in the result.
  if (interleaved(in) && table.count(r.getResult())) {
    SmallVector<Extent> &row = table[r.getResult()];
    int64_t at = 0;
    for (int64_t d = 0; d < rank; ++d) {
      bool reduced = llvm::is_contained(axes, d);
      if (reduced && mean && extentOf(in, d).period)
        return mixes(r, "a mean over it interleaved");
      if (!reduced || r.getKeepDim()) {
        if (!reduced && extentOf(in, d).period && at < (int64_t)row.size())
          row[at] = extentOf(in, d);
        ++at;
      }
    }
  }
  if (dims.empty())
    return success();
  maskOperand(r, 0, dims, k);
  if (!mean)
    return success();
  // result * (padded count / real count)
  b.setInsertionPointAfter(r);
  Location loc = r.getLoc();
  auto i64T = RankedTensorType::get({}, b.getI64Type());
  Value count;
  int64_t padded = 1;
  for (int64_t d : dims) {
    Value e = realExtent(extentOf(in, d));
    count = count ? Value(MulOp::create(b, loc, i64T, count, e)) : e;
    padded *= cast<RankedTensorType>(in.getType()).getDimSize(d);
  }
  auto rt = cast<RankedTensorType>(r.getResult().getType());
  auto elemT = RankedTensorType::get({}, rt.getElementType());
  Value realCount = CastOp::create(b, loc, elemT, count);
  Value paddedCount = CastOp::create(b, loc, elemT, i64Constant({}, {padded}));
  Value factor = DivOp::create(b, loc, elemT, paddedCount, realCount);
  auto scaled = MulOp::create(b, loc, rt, r.getResult(), factor);
  r.getResult().replaceAllUsesExcept(scaled, scaled);
  if (table.count(r.getResult()))
    table[scaled] = table.lookup(r.getResult());
  return success();
}

/// A concat along a padded dim: result position p is operand i's position
/// p - start_i for start_i <= p < start_i + extent_i, where the starts add
/// up the operands' real extents; rebuilt as a select over index_selects.
LogicalResult PadRewriter::concat(ConcatOp c) {
  auto rt = cast<RankedTensorType>(c.getResult().getType());
  int64_t dim = symbolAxisOf(c.getDim(), rt.getRank());
  bool along =
      isSymbolic(c.getResult(), dim) ||
      llvm::any_of(c.getInputs(), [&](Value v) { return isSymbolic(v, dim); });
  if (!along)
    return success();
  b.setInsertionPoint(c);
  Location loc = c.getLoc();
  int64_t size = rt.getDimSize(dim);
  auto i64T = RankedTensorType::get({}, b.getI64Type());
  auto indexT = RankedTensorType::get({size}, b.getI64Type());
  Value positions =
      i64Constant({size}, llvm::to_vector(llvm::seq<int64_t>(0, size)));
  SmallVector<int64_t> bcast(rt.getRank(), 1);
  bcast[dim] = size;
  Value broadcastPositions =
      i64Constant(bcast, llvm::to_vector(llvm::seq<int64_t>(0, size)));
  Value start = i64Constant({}, {0});
  Value result;
  SmallVector<std::pair<Value, Value>> parts; // (part, its start)
  for (Value in : c.getInputs()) {
    auto it = cast<RankedTensorType>(in.getType());
    int64_t len = it.getDimSize(dim);
    // index = clamp(p - start, 0, len - 1)
    Value index =
        clampIndex(loc, SubOp::create(b, loc, indexT, positions, start), len);
    Value part = IndexSelectOp::create(b, loc, rt, in, index, dim);
    parts.push_back({part, start});
    Value extent = isSymbolic(in, dim) ? realExtent(extentOf(in, dim))
                                       : i64Constant({}, {len});
    start = AddOp::create(b, loc, i64T, start, extent);
  }
  // The last part's positions and beyond come from it; each earlier one
  // from where the next starts down.
  result = parts.back().first;
  auto condT = RankedTensorType::get(bcast, b.getI1Type());
  for (int64_t i = (int64_t)parts.size() - 2; i >= 0; --i) {
    Value before =
        LtOp::create(b, loc, condT, broadcastPositions, parts[i + 1].second);
    result = SelectOp::create(b, loc, rt, before, parts[i].first, result);
  }
  table[result] = table.lookup(c.getResult());
  c.getResult().replaceAllUsesWith(result);
  c.erase();
  return success();
}

/// A constant pad along a padded dim puts its end padding after the
/// padding of the input; the positions from begin + extent on take the
/// pad value instead.
LogicalResult PadRewriter::pad(PadOp p) {
  Value in = p.getInput();
  auto rt = cast<RankedTensorType>(p.getResult().getType());
  int64_t rank = rt.getRank();
  ArrayRef<int64_t> pads = p.getPads();
  SmallVector<std::pair<int64_t, Extent>> ends;
  for (int64_t d : symbolicDims(in)) {
    if (p.getMode() != PadMode::constant)
      return mixes(p, "the pad fills it from its edges (mode " +
                          stringifyPadMode(p.getMode()) + ")");
    if (pads[rank + d] != 0) {
      Extent e = extentOf(in, d);
      ends.push_back(
          {d, Extent{e.scale, e.offset + pads[d], e.divisor, e.sym}});
    }
  }
  if (ends.empty())
    return success();
  b.setInsertionPointAfter(p);
  Value fill;
  if (auto v = p.getValueAttr())
    fill = ConstantOp::create(
        b, p.getLoc(),
        DenseElementsAttr::get(RankedTensorType::get({}, rt.getElementType()),
                               Attribute(v)));
  else
    fill = scalar(rt.getElementType(), Neutral::Zero);
  Value cond = keep(rt.getShape(), ends, rt.getElementType());
  auto sel = SelectOp::create(b, p.getLoc(), rt, cond, p.getResult(), fill);
  p.getResult().replaceAllUsesExcept(sel, sel);
  table[sel] = table.lookup(p.getResult());
  return success();
}

/// Reshapes keep each padded dim's padding a suffix when the dims before it
/// hold as many elements before and after: the padded dims pair up in
/// order, each with one of the same symbol (merged with, or split from,
/// dims after it only). A padded dim merged with dims before it interleaves
/// (`period`: [8, B] -> [8 * B], an attention's heads and padded queries
/// flattened for a 2-D softmax), and a split that puts whole periods in
/// the dims before it ([8 * B] -> [8, B]) makes it a prefix again.
LogicalResult PadRewriter::reshape(Operation *op) {
  Value in = op->getOperand(0), out = op->getResult(0);
  SmallVector<int64_t> from = symbolicDims(in), to = symbolicDims(out);
  if (from.empty())
    return success();
  if (from.size() != to.size())
    return mixes(op, "the reshape spreads it over other dims");
  ArrayRef<int64_t> inShape = cast<RankedTensorType>(in.getType()).getShape();
  ArrayRef<int64_t> outShape = cast<RankedTensorType>(out.getType()).getShape();
  auto product = [](ArrayRef<int64_t> dims) {
    int64_t p = 1;
    for (int64_t e : dims)
      p *= e;
    return p;
  };
  SmallVector<Extent> row = table.lookup(out);
  for (auto [a, z] : llvm::zip(from, to)) {
    Extent ei = extentOf(in, a), eo = extentOf(out, z);
    if (ei.sym != eo.sym)
      return mixes(op, "the reshape merges it with the dims before it");
    int64_t preIn = product(inShape.take_front(a));
    int64_t preOut = product(outShape.take_front(z));
    int64_t postIn = product(inShape.drop_front(a + 1));
    int64_t postOut = product(outShape.drop_front(z + 1));
    if (preIn == preOut && !ei.period)
      continue; // a prefix stays a prefix (the driver's extent)
    Extent e = ei;
    if (preIn == preOut || (preOut < preIn && preIn % preOut == 0)) {
      // Merged with dims after it (c of them) and, when preOut < preIn,
      // with dims before it: the positions of each of its periods (each
      // index of the dims before it) come c at a time.
      if (postIn % postOut != 0)
        return mixes(op, "the reshape merges it with the dims before it");
      int64_t c = postIn / postOut;
      e.scale *= c;
      e.offset *= c;
      e.period = (ei.period ? ei.period : inShape[a]) * c;
    } else if (preOut % preIn == 0 && ei.period && postOut % postIn == 0) {
      // Split: whole periods go to the dims before it, c positions of a
      // period to the dims after it.
      int64_t c = postOut / postIn;
      if (ei.period != outShape[z] * c || e.scale % c || e.offset % c)
        return mixes(op, "the reshape cuts its interleaved positions apart");
      e.scale /= c;
      e.offset /= c;
      e.period = 0;
    } else {
      return mixes(op, "the reshape merges it with the dims before it");
    }
    if (e.period && e.period == outShape[z])
      e.period = 0;
    row[z] = e;
  }
  table[out] = row;
  return success();
}

/// A result's interleaved dims, from its operands': elementwise ops (their
/// operands broadcast from the trailing dims) and reductions (their kept
/// dims) keep each dim where it is.
void PadRewriter::propagatePeriods(Operation *op) {
  if (op->getNumResults() != 1 || !table.count(op->getResult(0)))
    return;
  Value r = op->getResult(0);
  auto rt = cast<RankedTensorType>(r.getType());
  SmallVector<Extent> &row = table[r];
  for (Value v : op->getOperands()) {
    auto it = table.find(v);
    if (it == table.end())
      continue;
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    int64_t lead = rt.getRank() - rank;
    for (auto [d, e] : llvm::enumerate(it->second)) {
      int64_t rd = lead + (int64_t)d;
      if (e.period && rd >= 0 && rd < rt.getRank() &&
          rt.getDimSize(rd) ==
              cast<RankedTensorType>(v.getType()).getDimSize(d) &&
          row[rd].symbolic())
        row[rd] = e;
    }
  }
}

LogicalResult PadRewriter::visit(Operation *op) {
  bool any = llvm::any_of(op->getOperands(),
                          [&](Value v) { return table.count(v) != 0; });
  bool readsInside = false;
  op->walk([&](Operation *inner) {
    if (inner != op)
      for (Value v : inner->getOperands())
        if (table.count(v))
          readsInside = true;
  });
  if (!any && !readsInside)
    return success();
  if (op->getNumRegions())
    return mixes(op, "the op's regions read it");
  if (isElementwiseOp(op)) {
    propagateKnown(op);
    propagatePeriods(op);
    return success();
  }
  // An interleaved dim (a reshape's merge of a padded dim with the dims
  // before it) goes through elementwise ops, reductions, and the reshape
  // that splits it again; other ops would read it by position.
  if (llvm::any_of(op->getOperands(),
                   [&](Value v) { return interleaved(v); }) &&
      !isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, ReduceSumOp,
           ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
           ReduceLogSumExpOp>(op))
    return mixes(op, "'" + op->getName().getStringRef() +
                         "' reads it interleaved (a reshape merged it with "
                         "the dims before it)");
  if (isa<func::ReturnOp, AssertOp, BroadcastOp, TransposeOp, GatherOp,
          IndexSelectOp, OneHotOp>(op))
    return success();
  if (isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(op))
    return reshape(op);
  if (auto r = dyn_cast<ReduceSumOp>(op))
    return reduce(r, Neutral::Zero);
  if (auto r = dyn_cast<ReduceMeanOp>(op))
    return reduce(r, Neutral::Zero, /*mean=*/true);
  if (auto r = dyn_cast<ReduceNormOp>(op))
    return reduce(r, Neutral::Zero);
  if (auto r = dyn_cast<ReduceLogSumOp>(op))
    return reduce(r, Neutral::Zero);
  if (auto r = dyn_cast<ReduceAnyOp>(op))
    return reduce(r, Neutral::Zero);
  if (auto r = dyn_cast<ReduceMaxOp>(op))
    return reduce(r, Neutral::Lowest);
  if (auto r = dyn_cast<ReduceLogSumExpOp>(op))
    return reduce(r, Neutral::Lowest);
  if (auto r = dyn_cast<ArgMaxOp>(op))
    return reduce(r, Neutral::Lowest);
  if (auto r = dyn_cast<ReduceMinOp>(op))
    return reduce(r, Neutral::Highest);
  if (auto r = dyn_cast<ArgMinOp>(op))
    return reduce(r, Neutral::Highest);
  if (auto r = dyn_cast<ReduceAllOp>(op))
    return reduce(r, Neutral::One);
  if (auto r = dyn_cast<ReduceProdOp>(op))
    return reduce(r, Neutral::One);
  if (auto r = dyn_cast<ReduceVarOp>(op))
    return overSymbolic(r) ? mixes(op, "a variance over it") : success();
  if (auto r = dyn_cast<ReduceStdOp>(op))
    return overSymbolic(r) ? mixes(op, "a standard deviation over it")
                           : success();
  if (auto m = dyn_cast<MatmulOp>(op)) {
    int64_t rl = cast<RankedTensorType>(m.getLhs().getType()).getRank();
    int64_t rr = cast<RankedTensorType>(m.getRhs().getType()).getRank();
    int64_t kl = rl - 1, kr = rr == 1 ? 0 : rr - 2;
    if (isSymbolic(m.getLhs(), kl))
      maskOperand(op, 0, {kl}, Neutral::Zero);
    if (isSymbolic(m.getRhs(), kr))
      maskOperand(op, 1, {kr}, Neutral::Zero);
    return success();
  }
  if (isa<DotOp>(op)) {
    for (unsigned i = 0; i < 2; ++i)
      if (isSymbolic(op->getOperand(i), 0))
        maskOperand(op, i, {0}, Neutral::Zero);
    return success();
  }
  if (auto e = dyn_cast<EinsumOp>(op)) {
    auto [lhs, out] = e.getEquation().split("->");
    if (lhs.contains("...") || !e.getEquation().contains("->"))
      return mixes(op, "an einsum with '...' or no output reads it");
    SmallVector<StringRef> terms;
    lhs.split(terms, ',');
    for (auto [i, term] : llvm::enumerate(terms)) {
      term = term.trim();
      SmallVector<int64_t> dims;
      for (auto [d, label] : llvm::enumerate(term))
        if (!out.contains(label) && isSymbolic(e.getInputs()[i], d))
          dims.push_back(d);
      maskOperand(op, i, dims, Neutral::Zero);
    }
    return success();
  }
  if (isa<ConvOp, ConvTransposeOp>(op)) {
    // Positions along the channels are summed, and the window reads the
    // spatial dims; the batch is not read across. A convolution's last real
    // output reads at most `in + pe - 1` (its extent is floor((in + pb + pe
    // - window) / s) + 1), so a spatial dim without end padding reads no
    // padding; a transposed one spreads every input position, padding too.
    auto conv = dyn_cast<ConvOp>(op);
    SmallVector<int64_t> dims;
    for (int64_t d : symbolicDims(op->getOperand(0))) {
      if (d == 0)
        continue;
      if (conv && d >= 2) {
        ArrayRef<int64_t> pads = conv.getPads();
        size_t spatial = pads.size() / 2;
        if (pads[spatial + (d - 2)] == 0)
          continue;
      }
      dims.push_back(d);
    }
    if (table.count(op->getOperand(1)))
      return mixes(op, "the convolution's weights have it");
    maskOperand(op, 0, dims, Neutral::Zero);
    return success();
  }
  if (auto w = dyn_cast<ReduceWindowOp>(op)) {
    Value in = w.getInput();
    int64_t rank = cast<RankedTensorType>(in.getType()).getRank();
    SmallVector<int64_t> dims;
    for (int64_t d : symbolicDims(in)) {
      bool slides = w.getWindowDims()[d] > 1 || w.getStrides()[d] != 1 ||
                    w.getPads()[d] != 0 || w.getPads()[rank + d] != 0;
      if (!slides)
        continue;
      if (w.getKind() == WindowKind::mean && !w.getCountIncludePad() &&
          w.getPads()[rank + d] != 0)
        return mixes(op, "a mean window that leaves its end padding out of "
                         "the count slides along it");
      dims.push_back(d);
    }
    Neutral k = w.getKind() == WindowKind::max   ? Neutral::Lowest
                : w.getKind() == WindowKind::min ? Neutral::Highest
                                                 : Neutral::Zero;
    maskOperand(op, 0, dims, k);
    return success();
  }
  if (auto c = dyn_cast<CumSumOp>(op)) {
    int64_t rank = cast<RankedTensorType>(c.getInput().getType()).getRank();
    int64_t d = symbolAxisOf(c.getDim(), rank);
    if (c.getReverse() && isSymbolic(c.getInput(), d))
      maskOperand(op, 0, {d}, Neutral::Zero);
    return success();
  }
  if (auto t = dyn_cast<TopKOp>(op)) {
    int64_t rank = cast<RankedTensorType>(t.getInput().getType()).getRank();
    int64_t d = symbolAxisOf(t.getDim(), rank);
    if (isSymbolic(t.getInput(), d))
      maskOperand(op, 0, {d},
                  t.getLargest() ? Neutral::Lowest : Neutral::Highest);
    return success();
  }
  if (auto c = dyn_cast<ConcatOp>(op))
    return concat(c);
  if (auto s = dyn_cast<SplitOp>(op)) {
    int64_t rank = cast<RankedTensorType>(s.getInput().getType()).getRank();
    if (isSymbolic(s.getInput(), symbolAxisOf(s.getDim(), rank)))
      return mixes(op, "the split cuts along it");
    return success();
  }
  if (auto s = dyn_cast<SliceOp>(op)) {
    for (int64_t d : symbolicDims(s.getInput()))
      if (s.getSteps()[d] != 1)
        return mixes(op, "the slice steps along it");
    return success();
  }
  if (auto p = dyn_cast<PadOp>(op))
    return pad(p);
  if (auto r = dyn_cast<ResizeOp>(op))
    return resize(r);
  if (auto fl = dyn_cast<FlipOp>(op)) {
    int64_t rank = cast<RankedTensorType>(fl.getInput().getType()).getRank();
    for (int64_t d : symbolAxesOf(fl.getDims(), rank))
      if (isSymbolic(fl.getInput(), d))
        return mixes(op, "the op reverses along it");
    return success();
  }
  return mixes(op, "'" + op->getName().getStringRef() +
                       "' has no rule for a padded symbol");
}

LogicalResult PadRewriter::run() {
  // Each symbol's value: a new argument after the others, in the order of
  // hodu.symbols, which the entry point passes.
  Builder ab(f.getContext());
  for (const ChunkedSymbol &s : symbols) {
    unsigned at = f.getNumArguments();
    NamedAttribute attrs[] = {
        ab.getNamedAttr("hodu.symbol_value", ab.getStringAttr(s.name)),
        ab.getNamedAttr("hodu.name", ab.getStringAttr(s.name))};
    if (failed(f.insertArgument(at, RankedTensorType::get({}, ab.getI64Type()),
                                ab.getDictionaryAttr(attrs), f.getLoc())))
      return failure();
    n.push_back(f.getArgument(at));
  }
  // The constants and slices that follow the symbols' values
  // (PadSymbolsIndexing.cpp), then the masks.
  SmallVector<Operation *> following;
  f.walk([&](Operation *op) {
    if (isa<ConstantOp>(op)
            ? op->hasAttr("hodu.symbol_slopes")
            : isa<SliceOp>(op) && op->hasAttr("hodu.start_slopes"))
      following.push_back(op);
  });
  for (Operation *op : following) {
    auto c = dyn_cast<ConstantOp>(op);
    if (failed(c ? followSymbols(c) : slideSlice(cast<SliceOp>(op))))
      return failure();
  }
  SmallVector<Operation *> ops;
  for (Operation &op : f.getBody().front())
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(visit(op)))
      return failure();
  return success();
}

namespace {

struct PadSymbolsPass : hodu::impl::PadSymbolsBase<PadSymbolsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ChunkedSymbol> symbols;
    std::string error;
    if (failed(readSymbols(module, symbols, error))) {
      module.emitError(error);
      return signalPassFailure();
    }
    SmallVector<ChunkedSymbol> padded;
    for (const ChunkedSymbol &s : symbols)
      if (s.padded)
        padded.push_back(s);
    if (padded.empty())
      return;
    func::FuncOp f = findEntryFunction(module);
    if (!f) {
      module.emitError("hodu-pad-symbols: no entry function");
      return signalPassFailure();
    }
    PadRewriter rewriter(padded, f);
    if (failed(rewriter.read()) || failed(rewriter.run()))
      return signalPassFailure();
    // For hoduc --print-stats, which removes it.
    module->setAttr(
        "hodu.padded_masks",
        Builder(module.getContext()).getI64IntegerAttr(rewriter.masks));
  }
};

} // namespace
