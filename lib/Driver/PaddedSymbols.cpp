//===- PaddedSymbols.cpp - a mixed symbol compiled at its bound ----------===//
//
// A symbol that ops mix (hodu-chunk-symbols refused it) and that has an
// upper bound is compiled padded: the model is imported at two more probe
// sizes and at the bound, the modules are compared op by op, and every dim
// whose size changes with the symbol must be `scale * symbol + offset` at
// all of them. Those extents go on the module compiled at the bound
// (`hodu.extents`), and hodu-pad-symbols masks what the padding would
// change (docs/architecture.md, "Symbolic dims").
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "hodu/Dialect/Hodu/Entry.h"
#include "hodu/Dialect/Hodu/Evaluator.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Dialect/Hodu/Symbols.h"
#include "hodu/Support/DType.h"
#include "hodu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

using namespace mlir;
using namespace hodu;

namespace {

/// The sizes the model is imported at: the first probe (already imported),
/// two more primes within the symbol's bounds to find scale and offset and
/// check them (sizes outside the bounds may not import: a position table
/// has as many rows as the bound), then the bound.
SmallVector<int64_t> probeSizesFrom(int64_t first, const ChunkedSymbol &sym) {
  SmallVector<int64_t> at = {first};
  for (int64_t p : driver::probeSizes(sym.min, sym.max, sym.multiple, 3))
    if (at.size() < 3 && p != first)
      at.push_back(p);
  at.push_back(sym.max);
  return at;
}

struct Import {
  int64_t size;
  OwningOpRef<ModuleOp> module;
  func::FuncOp entry;
  SmallVector<Operation *> ops; // the entry's ops, in pre-order
};

/// The imports of a model with padded symbols: the first (every symbol at
/// its first probe), then for each symbol two that move it alone to its
/// other probes, then the one compiled (every symbol at its bound, or a
/// bucket's size).
class PaddedImport {
public:
  PaddedImport(ArrayRef<ChunkedSymbol> syms,
               ArrayRef<SmallVector<int64_t>> probes, Location loc)
      : syms(syms), probes(probes), loc(loc) {}

  /// The extent text of symbol k for dim sizes `sizes` (one per import, at
  /// its sizes `at`), "" when the dim is static; none (after an error at
  /// `where`) when it is neither.
  std::optional<std::string> extent(size_t k, ArrayRef<int64_t> sizes,
                                    ArrayRef<int64_t> at, Operation *where,
                                    const Twine &what);
  /// `types`: one per import, in order; `target`: the sizes the last one
  /// has each symbol at.
  LogicalResult compareTypes(ArrayRef<Type> types, ArrayRef<int64_t> target,
                             Operation *where, const Twine &what,
                             SmallVectorImpl<Attribute> &dims, bool &any);
  LogicalResult compareAttributes(Operation *a, Operation *b);
  /// Integers that change with the symbols (a constant's values, a
  /// slice's starts: one per import, in order; `target`: the last one's
  /// sizes): each element must be `value at the target + sum_k slope_k *
  /// (symbol k - target k)`, an integer line in every symbol. Returns the
  /// slopes by symbol name (i64 shaped like the values; symbols they do not
  /// follow left out), or failure after the error `what` at `at`.
  FailureOr<DictionaryAttr> valueSlopes(Operation *at,
                                        ArrayRef<ElementsAttr> values,
                                        ArrayRef<int64_t> target,
                                        StringRef what);

  ArrayRef<ChunkedSymbol> syms;
  ArrayRef<SmallVector<int64_t>> probes; // each symbol's three
  Location loc;

  LogicalResult mixes(Operation *where, const Twine &why, size_t k = 0) {
    return (where ? where->emitError() : emitError(loc))
           << symbolCannotVaryText(syms[k].name, why.str());
  }
};

std::optional<std::string>
PaddedImport::extent(size_t k, ArrayRef<int64_t> sizes, ArrayRef<int64_t> at,
                     Operation *where, const Twine &what) {
  StringRef symbol = syms[k].name;
  int64_t multiple = syms[k].multiple;
  auto same = [&](int64_t s) { return s == sizes[0]; };
  if (llvm::all_of(sizes, same))
    return std::string();
  // scale / divisor from the first two sizes, in lowest terms; the division
  // must be exact for every value the symbol takes (multiples of
  // `multiple`), and the line must hold at every size.
  int64_t diff = sizes[1] - sizes[0], step = at[1] - at[0];
  if (step < 0) {
    diff = -diff;
    step = -step;
  }
  bool ok = step > 0 && diff > 0;
  int64_t g = ok ? std::gcd(diff, step) : 1;
  int64_t scale = diff / g, divisor = step / g;
  ok = ok && multiple % divisor == 0;
  int64_t offset = ok ? sizes[0] - scale * at[0] / divisor : 0;
  for (auto [s, p] : llvm::zip(sizes, at))
    ok = ok && (scale * p) % divisor == 0 && s == scale * p / divisor + offset;
  if (ok)
    return symbolicExtentText(symbol, scale, offset, divisor);
  std::string list;
  for (auto [s, p] : llvm::zip(sizes, at))
    list += (list.empty() ? "" : ", ") + std::to_string(s) + " at " +
            std::to_string(p);
  (void)mixes(where,
              what + " is " + list + ", which is not scale * " + symbol +
                  " / divisor + offset (a reshape that depends on "
                  "it, or a strided window: with --dim=" +
                  symbol + "=MIN..MAX%STRIDE its sizes are exact)",
              k);
  return std::nullopt;
}

/// One value's types across the imports: same rank, each dim static or an
/// extent of one symbol; `dims` gets the extent texts.
LogicalResult PaddedImport::compareTypes(ArrayRef<Type> types,
                                         ArrayRef<int64_t> target,
                                         Operation *where, const Twine &what,
                                         SmallVectorImpl<Attribute> &dims,
                                         bool &any) {
  Builder b(loc.getContext());
  auto first = dyn_cast<RankedTensorType>(types[0]);
  any = false;
  if (!first) {
    if (!llvm::all_equal(types))
      return mixes(where, what + " changes type with it");
    return success();
  }
  for (Type t : types) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || rt.getRank() != first.getRank() ||
        rt.getElementType() != first.getElementType())
      return mixes(where, what + " changes rank or element type with it");
  }
  auto sizeAt = [&](size_t i, int64_t d) {
    return cast<RankedTensorType>(types[i]).getDimSize(d);
  };
  for (int64_t d = 0; d < first.getRank(); ++d) {
    // The symbol the dim follows, from the imports that move each alone.
    std::string text;
    int follows = -1;
    SmallVector<int64_t> followed; // its sizes at the probes that move it
    for (size_t k = 0; k < syms.size(); ++k) {
      SmallVector<int64_t> sizes = {sizeAt(0, d), sizeAt(1 + 2 * k, d),
                                    sizeAt(2 + 2 * k, d)};
      std::optional<std::string> t =
          extent(k, sizes, probes[k], where, what + " dim " + Twine(d));
      if (!t)
        return failure();
      if (t->empty())
        continue;
      if (follows >= 0)
        return mixes(where,
                     what + " dim " + Twine(d) + " depends on both '" +
                         syms[follows].name + "' and '" + syms[k].name +
                         "' (a reshape that merges them)",
                     k);
      follows = (int)k;
      text = *t;
      followed = std::move(sizes);
    }
    // And the import compiled.
    int64_t last = sizeAt(types.size() - 1, d);
    if (follows < 0 && last != sizeAt(0, d))
      return mixes(where, what + " dim " + Twine(d) + " is " +
                              Twine(sizeAt(0, d)) + " at the probes but " +
                              Twine(last) + " at the sizes compiled");
    if (follows >= 0) {
      followed.push_back(last);
      SmallVector<int64_t> at(probes[follows]);
      at.push_back(target[follows]);
      if (!extent(follows, followed, at, where, what + " dim " + Twine(d)))
        return failure();
    }
    any |= !text.empty();
    dims.push_back(b.getStringAttr(text));
  }
  return success();
}

} // namespace

bool driver::constantsAgree(ElementsAttr ea, ElementsAttr eb) {
  if (ea == eb)
    return true;
  auto ta = cast<ShapedType>(ea.getType()), tb = cast<ShapedType>(eb.getType());
  ArrayRef<int64_t> sa = ta.getShape(), sb = tb.getShape();
  if (sa.size() != sb.size() || ta.getElementType() != tb.getElementType())
    return false;
  // Row-major strides of both, and the shape they share.
  size_t rank = sa.size();
  SmallVector<int64_t> strideA(rank, 1), strideB(rank, 1), common(rank);
  for (int64_t d = (int64_t)rank - 2; d >= 0; --d) {
    strideA[d] = strideA[d + 1] * sa[d + 1];
    strideB[d] = strideB[d + 1] * sb[d + 1];
  }
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    common[d] = std::min(sa[d], sb[d]);
    count *= common[d];
  }
  // Element i of a and element j of b, for each index both have.
  auto agree = [&](llvm::function_ref<bool(int64_t, int64_t)> equal) {
    for (int64_t k = 0; k < count; ++k) {
      int64_t rest = k, i = 0, j = 0;
      for (int64_t d = (int64_t)rank - 1; d >= 0; --d) {
        int64_t at = rest % common[d];
        rest /= common[d];
        i += at * strideA[d];
        j += at * strideB[d];
      }
      if (!equal(i, j))
        return false;
    }
    return true;
  };
  // Element by element, in the bytes they are stored in (a dense i1,
  // packed in bits, as constantBytes spells it out: a byte each).
  unsigned width = ta.getElementTypeBitWidth();
  std::string copyA, copyB;
  auto storage =
      [&](ElementsAttr e,
          std::string &copy) -> std::optional<std::pair<ArrayRef<char>, bool>> {
    if (width % 8 == 0)
      return constantStorage(e);
    if (!constantBytes(e, copy))
      return std::nullopt;
    return std::pair(ArrayRef<char>(copy.data(), copy.size()), false);
  };
  auto ba = storage(ea, copyA), bb = storage(eb, copyB);
  size_t size = std::max(width / 8, 1u);
  bool same = ba && bb && agree([&](int64_t i, int64_t j) {
                auto [da, splatA] = *ba;
                auto [db, splatB] = *bb;
                size_t x = splatA ? 0 : i * size, y = splatB ? 0 : j * size;
                return x + size <= da.size() && y + size <= db.size() &&
                       !memcmp(da.data() + x, db.data() + y, size);
              });
  return same;
}

namespace {

/// Ops' attributes are equal -- a slice's ends excepted, which may follow
/// the dim they cut. (Constants and a slice's starts are compared by
/// `annotate`.)
LogicalResult PaddedImport::compareAttributes(Operation *a, Operation *b) {
  if (isa<ConstantOp>(a))
    return success();
  if (a->getAttrDictionary() == b->getAttrDictionary())
    return success();
  if (auto sa = dyn_cast<SliceOp>(a)) {
    // (`annotate` fits the starts.)
    if (sa.getSteps() == cast<SliceOp>(b).getSteps())
      return success();
    return mixes(a, "the slice's steps depend on it");
  }
  return mixes(a, "the op's attributes depend on its value");
}

FailureOr<DictionaryAttr>
PaddedImport::valueSlopes(Operation *at, ArrayRef<ElementsAttr> values,
                          ArrayRef<int64_t> target, StringRef what) {
  auto fail = [&](const Twine &why) -> FailureOr<DictionaryAttr> {
    (void)mixes(at, what + why);
    return failure();
  };
  SmallVector<ConstantView> views;
  for (ElementsAttr value : values) {
    std::optional<ConstantView> v = ConstantView::get(value);
    if (!v || v->getKind() != ElementKind::Signed)
      return fail(" (its values are not integers)");
    views.push_back(*v);
  }
  const ConstantView &last = views.back();
  int64_t rank = last.getType().getRank();
  if (last.size() > (int64_t(1) << 16) ||
      llvm::any_of(views, [&](const ConstantView &v) {
        return v.getType().getRank() != rank ||
               v.getType().getElementType() != last.getType().getElementType();
      }))
    return fail(" (its shape or element type changes)");
  bool sameShapes = llvm::all_of(
      views, [&](const ConstantView &v) { return v.shape() == last.shape(); });
  // The sizes of import i: every symbol at its first probe, symbol k at its
  // second and third in imports 1 + 2k and 2 + 2k, the target last.
  auto sizesOf = [&](size_t i) {
    SmallVector<int64_t> sizes;
    for (const SmallVector<int64_t> &p : probes)
      sizes.push_back(p[0]);
    if (i + 1 == views.size())
      return SmallVector<int64_t>(target);
    if (i > 0)
      sizes[(i - 1) / 2] = probes[(i - 1) / 2][1 + (i - 1) % 2];
    return sizes;
  };
  // Element `flat` of a (row-major) at the index it has in b's shape, or
  // -1 when b has no such index.
  auto indexIn = [&](ArrayRef<int64_t> from, int64_t flat,
                     ArrayRef<int64_t> to) -> int64_t {
    int64_t j = 0, stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t i = flat % from[d];
      flat /= from[d];
      if (i >= to[d])
        return -1;
      j += i * stride;
      stride *= to[d];
    }
    return j;
  };
  auto value = [](const ConstantView &v, int64_t j) { return (int64_t)v.s(j); };
  // Each symbol's slopes, per element of the target (from the first two
  // imports that move it), or one for all where the shapes change.
  SmallVector<SmallVector<int64_t>> slopes(syms.size());
  for (size_t k = 0; k < syms.size(); ++k) {
    const ConstantView &a = views[0], &b = views[1 + 2 * k];
    int64_t step = probes[k][1] - probes[k][0];
    std::optional<int64_t> uniform;
    SmallVector<int64_t> perElement(last.size(), 0);
    for (int64_t j = 0; j < last.size(); ++j) {
      int64_t ia = indexIn(last.shape(), j, a.shape()),
              ib = indexIn(last.shape(), j, b.shape());
      if (ia < 0 || ib < 0)
        continue;
      int64_t diff = value(b, ib) - value(a, ia);
      if (step == 0 || diff % step != 0)
        return fail(" (its values change by a fraction of it)");
      perElement[j] = diff / step;
      if (!sameShapes && uniform && *uniform != perElement[j])
        return fail(" (its values change at different rates, and its shape "
                    "changes too)");
      uniform = perElement[j];
    }
    if (!sameShapes)
      perElement.assign(last.size(), uniform.value_or(0));
    slopes[k] = std::move(perElement);
  }
  // Every import on the lines through the target.
  for (size_t i = 0; i + 1 < views.size(); ++i) {
    SmallVector<int64_t> sizes = sizesOf(i);
    for (int64_t j = 0; j < last.size(); ++j) {
      int64_t ii = indexIn(last.shape(), j, views[i].shape());
      if (ii < 0)
        continue;
      int64_t expect = value(last, j);
      for (size_t k = 0; k < syms.size(); ++k)
        expect += slopes[k][j] * (sizes[k] - target[k]);
      if (value(views[i], ii) != expect)
        return fail(" (its values are not a line in it)");
    }
  }
  Builder b(loc.getContext());
  SmallVector<NamedAttribute> named;
  for (size_t k = 0; k < syms.size(); ++k)
    if (llvm::any_of(slopes[k], [](int64_t s) { return s != 0; }))
      named.push_back(b.getNamedAttr(
          syms[k].name, DenseElementsAttr::get(
                            RankedTensorType::get(last.shape(), b.getI64Type()),
                            ArrayRef<int64_t>(slopes[k]))));
  return b.getDictionaryAttr(named);
}

} // namespace

/// The last import's module annotated with the extents that the probes and
/// it show (`hodu.extents`, the entry's `hodu.dims`); `target`: the sizes
/// it has each symbol at. Failure after an error.
static LogicalResult annotate(PaddedImport &pi, ArrayRef<Import *> imports,
                              ArrayRef<int64_t> target, MLIRContext &context) {
  Import &last = *imports.back();
  Builder b(&context);
  // The same ops at every size.
  for (Import *im : imports)
    if (im->ops.size() != imports[0]->ops.size() ||
        im->entry.getNumArguments() != imports[0]->entry.getNumArguments() ||
        im->entry.getNumResults() != imports[0]->entry.getNumResults())
      return pi.mixes(nullptr,
                      "the model imports to " + Twine(imports[0]->ops.size()) +
                          " ops at " + Twine(imports[0]->size) + " but " +
                          Twine(im->ops.size()) + " at " + Twine(im->size));
  for (size_t i = 0; i < imports[0]->ops.size(); ++i) {
    SmallVector<Operation *> ops;
    for (Import *im : imports)
      ops.push_back(im->ops[i]);
    Operation *op = ops.back();
    if (llvm::any_of(ops, [&](Operation *o) {
          return o->getName() != op->getName() ||
                 o->getNumResults() != op->getNumResults();
        }))
      return pi.mixes(op, "the ops of the model change with it");
    if (auto c = dyn_cast<ConstantOp>(op)) {
      // Constants agree where their shapes overlap (a Range over the
      // symbol grows; its first values stay), or follow the symbols'
      // values (a decoder's position, Shape(past)[2], as data).
      if (llvm::any_of(ArrayRef(ops).drop_front(), [&](Operation *o) {
            return !driver::constantsAgree(
                cast<ConstantOp>(ops.front()).getValue(),
                cast<ConstantOp>(o).getValue());
          })) {
        SmallVector<ElementsAttr> values;
        for (Operation *o : ops)
          values.push_back(cast<ConstantOp>(o).getValue());
        FailureOr<DictionaryAttr> slopes = pi.valueSlopes(
            op, values, target, "a constant computed from its value");
        if (failed(slopes))
          return failure();
        if (!slopes->empty())
          op->setAttr("hodu.symbol_slopes", *slopes);
      }
    }
    if (auto sl = dyn_cast<SliceOp>(op)) {
      // A slice that starts where the symbols put it (a causal mask's rows
      // from past to past + 1 of a table): its starts follow them.
      SmallVector<ElementsAttr> starts;
      for (Operation *o : ops)
        starts.push_back(b.getI64TensorAttr(cast<SliceOp>(o).getStarts()));
      if (!llvm::all_equal(starts)) {
        FailureOr<DictionaryAttr> slopes =
            pi.valueSlopes(op, starts, target,
                           "the slice starts at a place that depends on it");
        if (failed(slopes))
          return failure();
        op->setAttr("hodu.start_slopes", *slopes);
      }
    }
    for (Operation *o : ArrayRef(ops).drop_front())
      if (failed(pi.compareAttributes(ops.front(), o)))
        return failure();
    SmallVector<Attribute> perResult;
    bool anyResult = false;
    for (unsigned r = 0; r < op->getNumResults(); ++r) {
      SmallVector<Type> types;
      for (Operation *o : ops)
        types.push_back(o->getResult(r).getType());
      SmallVector<Attribute> dims;
      bool any;
      if (failed(pi.compareTypes(types, target, op, "result #" + Twine(r), dims,
                                 any)))
        return failure();
      anyResult |= any;
      perResult.push_back(b.getArrayAttr(dims));
    }
    if (anyResult)
      op->setAttr("hodu.extents", b.getArrayAttr(perResult));
  }
  // The entry's arguments and results.
  func::FuncOp f = last.entry;
  auto entryDims = [&](bool results, unsigned i) -> LogicalResult {
    SmallVector<Type> types;
    for (Import *im : imports)
      types.push_back(results ? im->entry.getResultTypes()[i]
                              : im->entry.getArgumentTypes()[i]);
    SmallVector<Attribute> dims;
    bool any;
    if (failed(pi.compareTypes(types, target, nullptr,
                               (results ? "output #" : "input #") + Twine(i),
                               dims, any)))
      return failure();
    if (any && results)
      f.setResultAttr(i, "hodu.dims", b.getArrayAttr(dims));
    else if (any)
      f.setArgAttr(i, "hodu.dims", b.getArrayAttr(dims));
    return success();
  };
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (failed(entryDims(/*results=*/false, i)))
      return failure();
  for (unsigned i = 0; i < f.getNumResults(); ++i)
    if (failed(entryDims(/*results=*/true, i)))
      return failure();
  return success();
}

OwningOpRef<ModuleOp> driver::importPadded(
    OwningOpRef<ModuleOp> probed, int64_t probe, const Importer &importer,
    MLIRContext &context, const CompileOptions &opts, ImportOptions io,
    ArrayRef<ChunkedSymbol> syms, ArrayRef<SmallVector<int64_t>> bucketSizes,
    SmallVectorImpl<PaddedBucket> *buckets) {
  Location loc = FileLineColLoc::get(&context, opts.inputPath, 0, 0);
  // Each symbol's three probes; the first import has every symbol at its
  // first (`probe` for the first symbol, when `probed` is given).
  SmallVector<SmallVector<int64_t>> probes;
  for (const ChunkedSymbol &sym : syms) {
    SmallVector<int64_t> one =
        driver::probeSizes(sym.min, sym.max, sym.multiple, 1);
    int64_t first = probed && probes.empty() ? probe
                    : one.empty()            ? sym.max
                                             : one.front();
    SmallVector<int64_t> at = probeSizesFrom(first, sym);
    if (at.size() < 4) {
      emitError(loc) << "symbolic dim '" << sym.name << "': its bounds "
                     << sym.min << ".." << sym.max << " leave too few sizes to "
                     << "check how the model's dims follow it; pin it "
                     << "(hoduc --dim=" << sym.name << "=<size>)";
      return nullptr;
    }
    at.pop_back(); // the probes; each compiled size is the fourth
    probes.push_back(std::move(at));
  }
  PaddedImport pi(syms, probes, loc);
  auto load = [&](Import &im) -> LogicalResult {
    im.entry = findEntryFunction(*im.module);
    if (!im.entry)
      return emitError(loc) << "the model has no entry function";
    im.entry.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != im.entry)
        im.ops.push_back(op);
    });
    return success();
  };
  auto importAt = [&](ArrayRef<int64_t> sizes, Import &im) -> LogicalResult {
    io.unboundSymbolSize = 0;
    for (auto [sym, size] : llvm::zip(syms, sizes)) {
      io.symbolSizes[sym.name] = size;
      if (!llvm::is_contained(io.freeSymbols, sym.name))
        io.freeSymbols.push_back(sym.name);
    }
    im.size = sizes.front();
    im.module = importer.import(opts.inputPath, context, io);
    return failure(!im.module || failed(load(im)));
  };
  SmallVector<int64_t> base;
  for (const SmallVector<int64_t> &p : probes)
    base.push_back(p[0]);
  SmallVector<Import> imports(1 + 2 * syms.size());
  if (probed) {
    imports[0].size = probe;
    imports[0].module = std::move(probed);
    if (failed(load(imports[0])))
      return nullptr;
  } else if (failed(importAt(base, imports[0]))) {
    return nullptr;
  }
  for (size_t k = 0; k < syms.size(); ++k)
    for (int j = 1; j <= 2; ++j) {
      SmallVector<int64_t> sizes(base);
      sizes[k] = probes[k][j];
      if (failed(importAt(sizes, imports[2 * k + j])))
        return nullptr;
    }
  // The module at `sizes`, annotated, with its symbols and masks.
  auto compiledAt = [&](ArrayRef<int64_t> sizes) -> OwningOpRef<ModuleOp> {
    Import target;
    if (failed(importAt(sizes, target)))
      return nullptr;
    SmallVector<Import *> all;
    for (Import &im : imports)
      all.push_back(&im);
    all.push_back(&target);
    if (failed(annotate(pi, all, sizes, context)))
      return nullptr;
    SmallVector<ChunkedSymbol> list(syms);
    for (auto [s, size] : llvm::zip(list, sizes))
      s.max = s.chunk = size;
    writeSymbols(*target.module, list);
    ModuleOp m = *target.module;
    PassManager pm(m->getName());
    pm.addPass(createPadSymbols());
    if (failed(pm.run(m)))
      return nullptr;
    if (auto masks = m->getAttrOfType<IntegerAttr>("hodu.padded_masks")) {
      if (opts.stats)
        for (auto [k, sym] : llvm::enumerate(syms)) {
          llvm::errs() << "hoduc: stats: symbolic dim '" << sym.name
                       << "' compiled at " << sizes[k];
          if (k + 1 == syms.size())
            llvm::errs() << ": " << masks.getInt() << " mask(s)";
          llvm::errs() << " (imported at " << probes[k][0] << ", "
                       << probes[k][1] << ", " << probes[k][2]
                       << " to find its extents)\n";
        }
      m->removeAttr("hodu.padded_masks");
    }
    return std::move(target.module);
  };
  SmallVector<int64_t> bounds;
  for (const ChunkedSymbol &sym : syms)
    bounds.push_back(sym.max);
  // Each symbol's sizes and its bound; every combination but the bounds'.
  SmallVector<SmallVector<int64_t>> axes;
  for (auto [k, sym] : llvm::enumerate(syms)) {
    SmallVector<int64_t> sizes;
    for (int64_t size : k < bucketSizes.size() ? ArrayRef(bucketSizes[k])
                                               : ArrayRef<int64_t>()) {
      if (size < sym.min || size >= sym.max) {
        emitError(loc) << "--dim=" << sym.name << ": the size " << size
                       << " to compile at is outside " << sym.min << ".."
                       << sym.max - 1 << " (the bound " << sym.max
                       << " is compiled anyway)";
        return nullptr;
      }
      if (!llvm::is_contained(sizes, size))
        sizes.push_back(size);
    }
    llvm::sort(sizes);
    sizes.push_back(sym.max);
    axes.push_back(std::move(sizes));
  }
  SmallVector<SmallVector<int64_t>> grid = {{}};
  for (const SmallVector<int64_t> &axis : axes) {
    SmallVector<SmallVector<int64_t>> next;
    for (const SmallVector<int64_t> &prefix : grid)
      for (int64_t size : axis) {
        next.push_back(prefix);
        next.back().push_back(size);
      }
    grid = std::move(next);
  }
  // Smallest first (the dispatcher takes the first that holds a run).
  auto work = [](ArrayRef<int64_t> sizes) {
    int64_t p = 1;
    for (int64_t v : sizes)
      p *= v;
    return p;
  };
  // Of equal work, the one with the smaller first sizes (8x32 before 16x16).
  llvm::sort(grid,
             [&](const SmallVector<int64_t> &a, const SmallVector<int64_t> &b) {
               return std::pair(work(a), ArrayRef<int64_t>(a)) <
                      std::pair(work(b), ArrayRef<int64_t>(b));
             });
  for (const SmallVector<int64_t> &sizes : grid) {
    if (ArrayRef<int64_t>(sizes) == ArrayRef<int64_t>(bounds))
      continue;
    OwningOpRef<ModuleOp> m = compiledAt(sizes);
    if (!m)
      return nullptr;
    PaddedBucket bucket;
    bucket.sizes.assign(sizes.begin(), sizes.end());
    bucket.module = std::move(m);
    buckets->push_back(std::move(bucket));
  }
  return compiledAt(bounds);
}
