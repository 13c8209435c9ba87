//===- PadSymbolsIndexing.cpp - indices from a padded symbol's value ------===//
//
// The rules of hodu-pad-symbols that compute indices from the padded
// symbols' values rather than masking: a constant that follows them (a
// decoder's position Shape(past)[2] as data), a slice that starts where
// they say (a mask's row past), and a resize's edge rows (the padding made
// to hold the last real row). docs/architecture.md, "Symbolic dims".
//
//===----------------------------------------------------------------------===//

#include "PadRewriter.h"
#include "SymbolOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::pad_symbols;

/// `sum_k slope_k * (n_k - B_k)` of `slopes` (`hodu.symbol_slopes` or
/// `hodu.start_slopes`: i64 per element of `like`, by symbol name): how far
/// a value the import computed at the bounds B moves at the run's values
/// (0-d where every slope is one number).
FailureOr<Value> PadRewriter::symbolOffset(Operation *at, DictionaryAttr slopes,
                                           RankedTensorType like) {
  Location loc = at->getLoc();
  auto scalarType = RankedTensorType::get({}, b.getI64Type());
  Value sum;
  for (NamedAttribute s : slopes) {
    auto it = llvm::find_if(symbols, [&](const ChunkedSymbol &sym) {
      return sym.name == s.getName();
    });
    auto slope = dyn_cast<DenseIntElementsAttr>(s.getValue());
    if (it == symbols.end() || !slope ||
        slope.getType().getShape() != like.getShape())
      return at->emitError()
             << "hodu-pad-symbols: the slopes name '" << s.getName().getValue()
             << "', which is no padded symbol of this shape";
    size_t k = it - symbols.begin();
    Value term =
        SubOp::create(b, loc, scalarType, n[k], i64Constant({}, {it->chunk}));
    if (!slope.isSplat()) {
      term = MulOp::create(b, loc, like.clone(b.getI64Type()),
                           ConstantOp::create(b, loc, slope), term);
    } else if (int64_t one = slope.getSplatValue<APInt>().getSExtValue();
               one != 1) {
      term = MulOp::create(b, loc, scalarType, term, i64Constant({}, {one}));
    }
    if (sum) {
      auto type = cast<RankedTensorType>(sum.getType()).getRank() >
                          cast<RankedTensorType>(term.getType()).getRank()
                      ? sum.getType()
                      : term.getType();
      term = AddOp::create(b, loc, type, sum, term);
    }
    sum = term;
  }
  if (!sum)
    return at->emitError() << "hodu-pad-symbols: empty slopes";
  return sum;
}

/// A constant that the driver found to follow the symbols' values
/// (`hodu.symbol_slopes`: a decoder's position Shape(past)[2] used as an
/// index, which the import computed at the bound B) becomes
/// `c + sum_k slope_k * (n_k - B_k)`, in i64 and cast back.
LogicalResult PadRewriter::followSymbols(ConstantOp c) {
  auto slopes = c->getAttrOfType<DictionaryAttr>("hodu.symbol_slopes");
  c->removeAttr("hodu.symbol_slopes");
  auto type = cast<RankedTensorType>(c.getType());
  auto i64 = type.clone(b.getI64Type());
  Location loc = c.getLoc();
  // The constant's readers, which read the sum instead.
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : c.getResult().getUses())
    uses.push_back(&use);
  b.setInsertionPointAfter(c);
  FailureOr<Value> offset = symbolOffset(c, slopes, type);
  if (failed(offset))
    return failure();
  Value v = c.getResult();
  if (type.getElementType() != b.getI64Type())
    v = CastOp::create(b, loc, i64, v);
  v = AddOp::create(b, loc, i64, v, *offset);
  if (type.getElementType() != b.getI64Type())
    v = CastOp::create(b, loc, type, v);
  for (OpOperand *use : uses)
    use->set(v);
  return success();
}

/// A slice whose starts follow the symbols' values (`hodu.start_slopes`:
/// a causal mask's rows past .. past + 1 of a table) reads the dims whose
/// start moves by `index_select` at `start + i`, the start computed from
/// the run's values, each index clamped into the dim (a padded row reads
/// some row). Such a dim must be static in the input and in the result.
LogicalResult PadRewriter::slideSlice(SliceOp s) {
  auto slopes = s->getAttrOfType<DictionaryAttr>("hodu.start_slopes");
  s->removeAttr("hodu.start_slopes");
  Value x = s.getInput();
  auto inType = cast<RankedTensorType>(x.getType());
  auto outType = cast<RankedTensorType>(s.getType());
  int64_t rank = inType.getRank();
  // Each dim whose start moves, with its start's slopes (0-d, by symbol).
  auto scalar = RankedTensorType::get({}, b.getI64Type());
  SmallVector<std::pair<int64_t, DictionaryAttr>> moving;
  for (int64_t d = 0; d < rank; ++d) {
    SmallVector<NamedAttribute> at;
    for (NamedAttribute sl : slopes) {
      auto v = dyn_cast<DenseIntElementsAttr>(sl.getValue());
      if (!v || v.getNumElements() != rank)
        return s.emitError()
               << "hodu-pad-symbols: the slopes of '" << sl.getName().getValue()
               << "' are not one per dim of the slice";
      if (int64_t k = v.getValues<APInt>()[d].getSExtValue())
        at.push_back(b.getNamedAttr(
            sl.getName(),
            DenseElementsAttr::get(scalar, ArrayRef<int64_t>{k})));
    }
    if (!at.empty())
      moving.push_back({d, b.getDictionaryAttr(at)});
  }
  for (int64_t d : llvm::make_first_range(moving))
    if (isSymbolic(x, d) || isSymbolic(s.getResult(), d) ||
        s.getSteps()[d] != 1)
      return mixes(s, "the slice starts at a place that depends on it, "
                      "along a padded dim or by steps");
  Location loc = s.getLoc();
  b.setInsertionPoint(s);
  // The other dims as the slice takes them; the moving ones whole.
  SmallVector<int64_t> starts(s.getStarts()), ends(s.getEnds());
  SmallVector<int64_t> shape(outType.getShape());
  for (int64_t d : llvm::make_first_range(moving)) {
    starts[d] = 0;
    ends[d] = shape[d] = inType.getDimSize(d);
  }
  Value y = x;
  if (llvm::any_of(llvm::seq<int64_t>(0, rank), [&](int64_t d) {
        return starts[d] != 0 || ends[d] != inType.getDimSize(d) ||
               s.getSteps()[d] != 1;
      })) {
    y = SliceOp::create(b, loc, outType.clone(shape), x, starts, ends,
                        s.getSteps());
    table[y] = table.lookup(s.getResult());
  }
  for (auto [d, at] : moving) {
    FailureOr<Value> shift = symbolOffset(s, at, scalar);
    if (failed(shift))
      return failure();
    int64_t len = outType.getDimSize(d);
    auto indexT = RankedTensorType::get({len}, b.getI64Type());
    SmallVector<int64_t> from;
    for (int64_t i = 0; i < len; ++i)
      from.push_back(s.getStarts()[d] + i);
    Value index = clampIndex(
        loc, AddOp::create(b, loc, indexT, i64Constant({len}, from), *shift),
        inType.getDimSize(d));
    shape[d] = len;
    y = IndexSelectOp::create(b, loc, outType.clone(shape), y, index, d);
    table[y] = table.lookup(s.getResult());
  }
  s.getResult().replaceAllUsesWith(y);
  table.erase(s.getResult());
  s.erase();
  return success();
}

/// x with the padding of `dims` holding the last real position's values
/// (what an op that clamps its reads at the edge reads there).
Value PadRewriter::edged(Value x, ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(x.getType());
  Location loc = f.getLoc();
  for (int64_t d : dims) {
    int64_t size = type.getDimSize(d);
    auto indexT = RankedTensorType::get({size}, b.getI64Type());
    auto i64T = RankedTensorType::get({}, b.getI64Type());
    Value last = SubOp::create(b, loc, i64T, realExtent(extentOf(x, d)),
                               i64Constant({}, {1}));
    Value index = MinimumOp::create(
        b, loc, indexT,
        i64Constant({size}, llvm::to_vector(llvm::seq<int64_t>(0, size))),
        last);
    Value r = IndexSelectOp::create(b, loc, type, x, index, d);
    table[r] = table.lookup(x);
    x = r;
  }
  return x;
}

/// A resize along a padded dim by an integer factor k: the output's real
/// extent is k times the input's, and each real output position reads the
/// input at a coordinate that depends on k alone, clamped to the input's
/// last position -- so the input's padding holds that position's values
/// (none needed for nearest-floor asymmetric, which never reads past it).
/// Coordinates that depend on the sizes (align_corners, a region of
/// interest, exclude_outside) are refused.
LogicalResult PadRewriter::resize(ResizeOp r) {
  Value in = r.getInput(), out = r.getResult();
  auto inT = cast<RankedTensorType>(in.getType());
  auto outT = cast<RankedTensorType>(out.getType());
  SmallVector<int64_t> dims;
  for (int64_t d : symbolicDims(in)) {
    if (r.getScaleValues() || r.getRoi())
      return mixes(r, "the resize's scales or region are read at run time");
    CoordTransform ct = r.getCoordTransform();
    if (ct != CoordTransform::asymmetric && ct != CoordTransform::half_pixel &&
        ct != CoordTransform::pytorch_half_pixel &&
        ct != CoordTransform::tf_half_pixel_for_nn)
      return mixes(r, "the resize's coordinates depend on the sizes "
                      "(coordinate transform " +
                          stringifyCoordTransform(ct) + ")");
    if (r.getExcludeOutside())
      return mixes(r, "the resize leaves the outside out (exclude_outside)");
    double scale = r.getScales()
                       ? (*r.getScales())[d]
                       : double(outT.getDimSize(d)) / double(inT.getDimSize(d));
    int64_t k = (int64_t)scale;
    Extent ei = extentOf(in, d);
    Extent eo = isSymbolic(out, d) ? extentOf(out, d) : Extent();
    // out = k * in: scale_o / div_o == k * scale_i / div_i, offsets k times.
    if ((double)k != scale || k < 1 || eo.sym != ei.sym ||
        eo.scale * ei.divisor != k * ei.scale * eo.divisor ||
        eo.offset != k * ei.offset)
      return mixes(r, "the resize scales it by " + llvm::formatv("{0}", scale) +
                          ", not by a whole factor");
    if (!(r.getMode() == ResizeMode::nearest &&
          ct == CoordTransform::asymmetric &&
          r.getNearestMode() == NearestMode::floor))
      dims.push_back(d);
  }
  if (dims.empty())
    return success();
  b.setInsertionPoint(r);
  r->setOperand(0, edged(in, dims));
  return success();
}
