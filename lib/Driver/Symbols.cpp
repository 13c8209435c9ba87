//===- Symbols.cpp - importing a model with a symbolic dim ----------------===//
//
// A model whose inputs keep a symbolic dim (an ONNX dim_param, an unnamed
// dynamic dim, a `?` in --input-shape) is imported twice: once at a probe
// size, a prime that no other dim of a model is likely to have, on which
// hodu-chunk-symbols proves that no op mixes positions along the symbol and
// finds where it reaches the outputs; then at the chunk size, the module
// that is compiled. The entry point runs the chunk's code over consecutive
// chunks of whatever size a run gives (hodu-lower-entry-point); on an
// accelerator, the runtime runs the bundle's plan once per chunk.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Dialect/Hodu/Symbols.h"
#include "hodu/Transforms/Passes.h"
#include "hodu/bundle.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace hodu;

/// The probe size: prime, and not a size models give their dims.
static constexpr int64_t kProbeSize = 29;

SmallVector<int64_t> driver::probeSizes(int64_t min, int64_t max,
                                        int64_t multiple, unsigned count) {
  auto isPrime = [](int64_t v) {
    for (int64_t k = 2; k * k <= v; ++k)
      if (v % k == 0)
        return false;
    return v >= 2;
  };
  multiple = std::max<int64_t>(multiple, 1);
  int64_t lo = std::max<int64_t>(min, 2);
  auto fits = [&](int64_t v) { return v >= lo && (max < 0 || v <= max); };
  SmallVector<int64_t> out;
  // multiple * q for primes q: a value the symbol may take.
  auto take = [&](int64_t q) {
    int64_t v = q * multiple;
    if (out.size() < count && fits(v) && !llvm::is_contained(out, v))
      out.push_back(v);
  };
  for (int64_t q : {kProbeSize, int64_t(31), int64_t(37)})
    take(q);
  // Then, under a small bound, the largest primes below it (sizes of 2 or 3
  // hit special cases that larger ones do not); else the smallest above
  // the least value (cheap to import).
  if (max >= 0 && max < 37 * multiple) {
    for (int64_t q = max / multiple; out.size() < count && q >= 2; --q)
      if (isPrime(q))
        take(q);
  } else {
    for (int64_t q = std::max<int64_t>(2, (lo + multiple - 1) / multiple);
         out.size() < count && q < lo / multiple + 100000; ++q)
      if (isPrime(q))
        take(q);
  }
  return out;
}

/// The probe for `opts`: kProbeSize, or a size within the bounds (and a
/// multiple of the multiple) that --dim gives an unpinned symbol: a model
/// whose position table has 16 rows cannot be imported at a sequence of 29,
/// nor a spectrogram of 512-sample windows at 29 samples.
static int64_t probeSizeFor(const CompileOptions &opts) {
  for (const DimSpec &d : opts.dims)
    if (!d.size && (d.min > kProbeSize || d.multiple > 1 ||
                    (d.max >= 0 && d.max < kProbeSize)))
      if (SmallVector<int64_t> p =
              driver::probeSizes(d.min, d.max, d.multiple, 1);
          !p.empty())
        return p.front();
  return kProbeSize;
}

static func::FuncOp entryOf(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>("main"))
    return f;
  func::FuncOp only;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isPrivate() && !f.isExternal()) {
      if (only)
        return {};
      only = f;
    }
  return only;
}

/// The symbols the entry's arguments name in `hodu.dims`, in order of
/// appearance.
static SmallVector<std::string> symbolsOf(func::FuncOp f) {
  SmallVector<std::string> out;
  for (unsigned i = 0; f && i < f.getNumArguments(); ++i)
    if (auto dims = f.getArgAttrOfType<ArrayAttr>(i, "hodu.dims"))
      for (Attribute a : dims)
        if (auto s = dyn_cast<StringAttr>(a))
          if (!s.getValue().empty() && !llvm::is_contained(out, s.getValue()))
            out.push_back(s.getValue().str());
  return out;
}

static LogicalResult runChunkSymbols(ModuleOp module) {
  PassManager pm(module->getName());
  pm.addPass(createChunkSymbols());
  return pm.run(module);
}

static OwningOpRef<ModuleOp>
checkSymbols(OwningOpRef<ModuleOp> module, const Importer *importer,
             MLIRContext &context, const CompileOptions &opts, ImportOptions io,
             bool probe, SmallVectorImpl<driver::PaddedBucket> *buckets);

/// The error for a model whose symbols Hodu cannot compile together: pin
/// all but `kept` (the one --dim gives a range, else the first).
static std::nullptr_t pinOthers(Location loc, ArrayRef<std::string> symbols,
                                const CompileOptions &opts, const Twine &why) {
  std::string kept = symbols.front();
  for (const DimSpec &d : opts.dims)
    if (llvm::is_contained(symbols, d.name) && !d.size)
      kept = d.name;
  std::string pins;
  for (const std::string &s : symbols)
    if (s != kept)
      pins += " --dim=" + s + "=<size>";
  emitError(loc) << "the model has " << symbols.size() << " symbolic dims ("
                 << llvm::join(symbols, ", ") << "); " << why
                 << ", so pin the others, e.g." << pins;
  return nullptr;
}

/// The --dim of `symbol` (its name alone when there is none).
static DimSpec specOf(const CompileOptions &opts, StringRef symbol) {
  DimSpec spec;
  spec.name = symbol.str();
  for (const DimSpec &d : opts.dims)
    if (d.name == symbol)
      spec = d;
  return spec;
}

/// The WHY of a chunk analysis error "symbolic dim 'seq' cannot vary: WHY;
/// pin it ..." (empty for none).
static std::string
mixedReason(const std::optional<std::pair<Location, std::string>> &error) {
  StringRef text = error ? StringRef(error->second) : StringRef();
  return text.split(" cannot vary: ").second.split("; pin it").first.str();
}

/// A symbol run in chunks must not be used as a value: code that divides
/// by the batch size would divide by the chunk in every pass. The importer
/// folds such shape arithmetic into constants, so the model imported at a
/// second probe size must have the same ops, and constants that agree with
/// the first probe's wherever both have an element (a mask of ones that
/// grows with the batch does; the batch size itself does not).
/// `io` imported `probed`, with the symbol at `probeSize` (one of its
/// probeSymbolSizes, else its unboundSymbolSize); `avoid`: the other
/// symbols' probe sizes.
static LogicalResult
checkValueUnused(ModuleOp probed, int64_t probeSize, const Importer &importer,
                 MLIRContext &context, const CompileOptions &opts,
                 ImportOptions io, StringRef symbol, const DimSpec &spec,
                 ArrayRef<int64_t> avoid = {}) {
  Location loc = FileLineColLoc::get(&context, opts.inputPath, 0, 0);
  SmallVector<int64_t> sizes =
      driver::probeSizes(spec.min, spec.max, spec.multiple, 4);
  llvm::erase(sizes, probeSize);
  for (int64_t other : avoid)
    llvm::erase(sizes, other);
  if (sizes.empty())
    return success(); // the bounds leave no second size to compare with
  auto probeOf = io.probeSymbolSizes.find(symbol.str());
  if (probeOf != io.probeSymbolSizes.end())
    probeOf->second = sizes.front();
  else
    io.unboundSymbolSize = sizes.front();
  OwningOpRef<ModuleOp> other;
  {
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    other = importer.import(opts.inputPath, context, io);
  }
  auto opsOf = [](ModuleOp m) {
    SmallVector<Operation *> ops;
    m.walk([&](Operation *op) { ops.push_back(op); });
    return ops;
  };
  SmallVector<Operation *> a = opsOf(probed), b;
  if (other)
    b = opsOf(*other);
  auto changes = [&](Operation *at, const Twine &what) {
    InFlightDiagnostic d = at ? at->emitError() : emitError(loc);
    d << symbolCannotVaryText(symbol.str(),
                              (what + " (imported at " + Twine(probeSize) +
                               " and " + Twine(sizes.front()) + ")")
                                  .str());
    return failure();
  };
  if (!other || a.size() != b.size())
    return changes(nullptr, "the model's ops change with its value");
  for (auto [x, y] : llvm::zip(a, b)) {
    if (x->getName() != y->getName())
      return changes(x, "the model's ops change with its value");
    auto cx = dyn_cast<ConstantOp>(x);
    if (cx &&
        !driver::constantsAgree(cx.getValue(), cast<ConstantOp>(y).getValue()))
      return changes(x, "a constant computed from its value (the model "
                        "computes with the size itself)");
  }
  return success();
}

/// Whether `opts` asks an accelerator for a bare code object (--emit=ptx,
/// spv, ...), which has no place for symbols: only a bundle records them.
static bool bareCodeObject(const CompileOptions &opts) {
  return opts.target != "cpu" && !opts.emit.empty() && opts.emit != "bundle" &&
         opts.emit != "mlir" && !opts.compileTo;
}

/// Where a padded symbol's value goes: an accelerator's kernels read it
/// from a meta slot that the runtime writes at each run (docs/bundle.md,
/// "Padded symbols"), so the value argument hodu-pad-symbols added becomes
/// one; the CPU entry point passes it itself.
static void placeSymbolValue(ModuleOp module, bool accelerator) {
  if (func::FuncOp f = entryOf(module))
    for (unsigned i = 0; i < f.getNumArguments(); ++i) {
      if (!f.getArgAttr(i, "hodu.symbol_value"))
        continue;
      if (accelerator)
        f.setArgAttr(i, "hodu.meta_slot", UnitAttr::get(module.getContext()));
      else
        f.removeArgAttr(i, "hodu.meta_slot");
    }
}

/// A model with several symbols: at most one that no op mixes (a batch)
/// runs over chunks, and the others, which ops mix (a sequence, an image's
/// height and width) and which have bounds, are padded to them. The model
/// is imported with each at a probe size of its own; hodu-chunk-symbols,
/// following one symbol at a time, says which of them no op mixes and
/// where it reaches the outputs; the padded import (importPadded) runs with
/// the chunked one at its chunk, and that one's dims are added to what it
/// compiles.
static OwningOpRef<ModuleOp>
checkSeveralSymbols(const Importer *importer, MLIRContext &context,
                    const CompileOptions &opts, ImportOptions io, bool probe,
                    SmallVectorImpl<driver::PaddedBucket> *buckets,
                    ArrayRef<std::string> symbols) {
  Location loc = FileLineColLoc::get(&context, opts.inputPath, 0, 0);
  size_t count = symbols.size();
  if (!probe)
    return pinOthers(loc, symbols, opts,
                     "a .mlir input has one symbol per model");
  // An accelerator's bundle records them (docs/bundle.md); bare code
  // objects have no place for them.
  bool accelerator = opts.target != "cpu";
  if (bareCodeObject(opts))
    return pinOthers(loc, symbols, opts,
                     "only a bundle records them (--emit=" + opts.emit +
                         " does not)");
  SmallVector<DimSpec> specs;
  for (const std::string &name : symbols)
    specs.push_back(specOf(opts, name));
  // Each symbol at a probe size of its own.
  SmallVector<int64_t> probes;
  for (const DimSpec &spec : specs) {
    for (int64_t size :
         driver::probeSizes(spec.min, spec.max, spec.multiple, count + 2))
      if (probes.size() < (size_t)(&spec - specs.data()) + 1 &&
          !llvm::is_contained(probes, size))
        probes.push_back(size);
    if (probes.size() != (size_t)(&spec - specs.data()) + 1)
      return pinOthers(loc, symbols, opts,
                       "their bounds leave no sizes to tell them apart");
  }
  ImportOptions pio = io;
  pio.unboundSymbolSize = 0;
  pio.probeSymbolSizes.clear();
  for (auto [name, size] : llvm::zip(symbols, probes))
    pio.probeSymbolSizes[name] = size;
  OwningOpRef<ModuleOp> probed = importer->import(opts.inputPath, context, pio);
  if (!probed)
    return nullptr;
  // Which of them no op mixes.
  SmallVector<OwningOpRef<ModuleOp>> followed(count);
  SmallVector<std::optional<std::pair<Location, std::string>>> why(count);
  SmallVector<bool> chunkable(count);
  for (size_t i = 0; i < count; ++i) {
    followed[i] = probed->clone();
    ScopedDiagnosticHandler quiet(&context, [&](Diagnostic &d) {
      if (!why[i])
        why[i] = {d.getLocation(), d.str()};
      return success();
    });
    PassManager pm((*followed[i])->getName());
    pm.addPass(createChunkSymbols(ChunkSymbolsOptions{symbols[i]}));
    chunkable[i] = succeeded(pm.run(*followed[i]));
  }
  // The one run in chunks: of those no op mixes, the first that --dim
  // gives no bound, else the first (the others are padded: give them
  // bounds). None when ops mix every one.
  int c = -1;
  for (size_t i = 0; i < count; ++i)
    if (chunkable[i] && (c < 0 || (specs[c].max >= 1 && specs[i].max < 1)))
      c = (int)i;
  SmallVector<size_t> padded;
  for (size_t i = 0; i < count; ++i)
    if ((int)i != c)
      padded.push_back(i);
  for (size_t p : padded) {
    const DimSpec &ps = specs[p];
    if (ps.max >= 1)
      continue;
    if (chunkable[p]) {
      emitError(loc) << "symbolic dims '" << symbols[c] << "' and '"
                     << symbols[p] << "': no op mixes either, and Hodu runs "
                     << "one symbol per model in chunks; give the other a "
                     << "bound to compile it padded (--dim=" << ps.name
                     << "=1..MAX), or pin it (--dim=" << ps.name << "=<size>)";
      return nullptr;
    }
    emitError(why[p] ? why[p]->first : loc)
        << "symbolic dim '" << ps.name << "' is mixed by the model's ops"
        << (why[p] ? " (" + mixedReason(why[p]) + ")" : std::string())
        << "; it compiles padded when it has an upper bound (--dim=" << ps.name
        << "=1..MAX), or pin it (--dim=" << ps.name << "=<size>)";
    return nullptr;
  }
  // A bundle's runtime stages the boxes of a few padded symbols (bundle
  // format 1.5).
  constexpr size_t kBundlePadded = HODU_BUNDLE_MAX_PADDED_SYMBOLS;
  if (accelerator && padded.size() > kBundlePadded) {
    std::string pins;
    for (size_t p : ArrayRef(padded).drop_front(kBundlePadded))
      pins += " --dim=" + symbols[p] + "=<size>";
    emitError(loc) << "the model has " << padded.size() << " symbols that "
                   << "its ops mix; a bundle pads " << kBundlePadded
                   << " at most, so pin the others, e.g." << pins;
    return nullptr;
  }
  int64_t chunk = 1;
  if (c >= 0) {
    const DimSpec &cs = specs[c];
    SmallVector<int64_t> others;
    for (size_t p : padded)
      others.push_back(probes[p]);
    if (failed(checkValueUnused(*probed, probes[c], *importer, context, opts,
                                pio, symbols[c], cs, others)))
      return nullptr;
    chunk = cs.chunk ? cs.chunk : cs.multiple;
    if (chunk % cs.multiple != 0 || (cs.max >= 0 && chunk > cs.max) ||
        cs.buckets.size() > 1) {
      emitError(loc) << "--dim=" << cs.name << ": no op mixes '" << cs.name
                     << "', which runs in chunks: give it one chunk (@C), a "
                     << "multiple of " << cs.multiple
                     << " and at most the bound";
      return nullptr;
    }
  }
  // Each padded symbol's sizes to compile at besides its bound (@).
  SmallVector<SmallVector<int64_t>> sizes(padded.size());
  bool anySizes = false;
  for (auto [k, p] : llvm::enumerate(padded))
    for (int64_t size : specs[p].buckets)
      if (size != specs[p].max) {
        sizes[k].push_back(size);
        anySizes = true;
      }
  if (anySizes && (!buckets || opts.emit == "mlir" || opts.compileTo)) {
    emitError(loc) << "--dim=" << specs[padded.front()].name
                   << ": sizes to compile at (@) make one artifact of several "
                   << "modules; "
                   << (buckets ? "--emit=mlir and --compile-to show one"
                               : "this path compiles one");
    return nullptr;
  }
  // The padded import, the chunked symbol at its chunk.
  ImportOptions cio = io;
  cio.probeSymbolSizes.clear();
  cio.unboundSymbolSize = 0;
  if (c >= 0)
    cio.symbolSizes[specs[c].name] = chunk;
  SmallVector<ChunkedSymbol> padSyms;
  for (size_t p : padded)
    padSyms.push_back({specs[p].name, specs[p].min, specs[p].max,
                       specs[p].multiple, specs[p].max, /*padded=*/true});
  size_t firstBucket = buckets ? buckets->size() : 0;
  OwningOpRef<ModuleOp> compiled = driver::importPadded(
      nullptr, 0, *importer, context, opts, cio, padSyms, sizes, buckets);
  if (!compiled)
    return nullptr;

  // The chunked symbol's dims, added to each compiled module's.
  func::FuncOp from = c >= 0 ? entryOf(*followed[c]) : func::FuncOp();
  Builder b(&context);
  auto addDims = [&](Attribute chunkDims, Attribute padDims, Type type,
                     const Twine &what, bool result) -> FailureOr<Attribute> {
    auto rt = dyn_cast<RankedTensorType>(type);
    auto cd = dyn_cast_or_null<ArrayAttr>(chunkDims);
    if (!cd)
      return padDims;
    const DimSpec &cs = specs[c];
    if (!rt || (int64_t)cd.size() != rt.getRank())
      return emitError(loc) << what << " changes rank with '" << cs.name << "'";
    SmallVector<Attribute> dims(rt.getRank(), b.getStringAttr(""));
    if (auto pd = dyn_cast_or_null<ArrayAttr>(padDims))
      dims.assign(pd.begin(), pd.end());
    for (auto [d, a] : llvm::enumerate(cd)) {
      StringRef text = cast<StringAttr>(a).getValue();
      std::optional<SymbolicExtent> e = parseSymbolicExtent(text);
      if (!e || e->symbol != cs.name)
        continue;
      if (!cast<StringAttr>(dims[d]).getValue().empty())
        return emitError(loc)
               << what << " dim " << d << " is '" << text << "' and '"
               << cast<StringAttr>(dims[d]).getValue()
               << "': a dim that merges the two symbols";
      if (result && rt.getDimSize(d) != chunk * e->scale)
        return emitError(loc)
               << what << " has " << rt.getDimSize(d) << " in dim " << d
               << " at " << cs.name << " = " << chunk << ", not "
               << chunk * e->scale << "; its size depends on the padded "
               << "symbols too, so pin one";
      dims[d] = b.getStringAttr(text);
    }
    return Attribute(b.getArrayAttr(dims));
  };
  auto finish = [&](ModuleOp m) -> LogicalResult {
    func::FuncOp f = entryOf(m);
    // (hodu-pad-symbols appended the padded symbols' values.)
    if (!f || (from && (f.getNumArguments() < from.getNumArguments() ||
                        f.getNumResults() != from.getNumResults())))
      return emitError(loc) << "the model's signature changes with its "
                            << "symbols";
    for (unsigned i = 0; from && i < from.getNumArguments(); ++i) {
      FailureOr<Attribute> dims =
          addDims(from.getArgAttr(i, "hodu.dims"), f.getArgAttr(i, "hodu.dims"),
                  f.getArgumentTypes()[i], "input #" + Twine(i), false);
      if (failed(dims))
        return failure();
      if (*dims)
        f.setArgAttr(i, "hodu.dims", *dims);
    }
    for (unsigned i = 0; from && i < f.getNumResults(); ++i) {
      FailureOr<Attribute> dims = addDims(
          from.getResultAttr(i, "hodu.dims"), f.getResultAttr(i, "hodu.dims"),
          f.getResultTypes()[i], "output #" + Twine(i), true);
      if (failed(dims))
        return failure();
      if (*dims)
        f.setResultAttr(i, "hodu.dims", *dims);
    }
    SmallVector<ChunkedSymbol> read;
    std::string error;
    if (failed(readSymbols(m, read, error)) || read.size() != padded.size())
      return emitError(loc) << "internal error: the padded import recorded "
                            << "other symbols";
    // In the order the inputs name them.
    SmallVector<ChunkedSymbol> list(count);
    for (auto [k, p] : llvm::enumerate(padded))
      list[p] = read[k];
    if (c >= 0)
      list[c] = {specs[c].name, specs[c].min, specs[c].max, specs[c].multiple,
                 chunk};
    writeSymbols(m, list);
    return success();
  };
  if (failed(finish(*compiled)))
    return nullptr;
  if (accelerator)
    placeSymbolValue(*compiled, accelerator);
  if (buckets)
    for (size_t i = firstBucket; i < buckets->size(); ++i) {
      if (failed(finish(*(*buckets)[i].module)))
        return nullptr;
      if (accelerator)
        placeSymbolValue(*(*buckets)[i].module, accelerator);
      (*buckets)[i].symbolIndices.assign(padded.begin(), padded.end());
      (*buckets)[i].numSymbols = count;
    }
  return compiled;
}

OwningOpRef<ModuleOp>
driver::importWithSymbols(const Importer &importer, MLIRContext &context,
                          const CompileOptions &opts, ImportOptions io,
                          SmallVectorImpl<PaddedBucket> *buckets) {
  Location loc = FileLineColLoc::get(&context, opts.inputPath, 0, 0);
  bool probe = importer.name == "onnx";
  if (probe) {
    io.unboundSymbolSize = probeSizeFor(opts);
    io.unboundSymbols = std::make_shared<std::vector<std::string>>();
  }
  OwningOpRef<ModuleOp> module = importer.import(opts.inputPath, context, io);
  if (!module) {
    if (probe && !io.unboundSymbols->empty())
      llvm::errs() << "hoduc: note: the model's symbolic dims ("
                   << llvm::join(*io.unboundSymbols, ", ")
                   << ") were imported at " << probeSizeFor(opts)
                   << " to check that the model lets them vary; pin them "
                      "(--dim=NAME=<size>) to compile the model at one size\n";
    return nullptr;
  }
  return checkSymbols(std::move(module), &importer, context, opts, io, probe,
                      buckets);
}

/// A module that hoduc wrote (--emit=mlir) after a padded import has its
/// symbols and masks already (hodu.symbols lists a padded symbol): it
/// compiles as it is, success; an error where the options would change it;
/// none for any other module.
static std::optional<LogicalResult> compiledPadded(ModuleOp module,
                                                   const CompileOptions &opts) {
  SmallVector<ChunkedSymbol> recorded;
  std::string error;
  Location loc = module.getLoc();
  if (failed(readSymbols(module, recorded, error)))
    return LogicalResult(emitError(loc) << error);
  if (llvm::none_of(recorded, [](const ChunkedSymbol &s) { return s.padded; }))
    return std::nullopt;
  // The value argument: a meta slot in a bundle, the CPU entry's own
  // argument otherwise (whichever target wrote the .mlir).
  if (bareCodeObject(opts))
    return LogicalResult(emitError(loc)
                         << "the module has a padded symbol; only a bundle "
                            "records it (--emit="
                         << opts.emit << " does not)");
  placeSymbolValue(module, opts.target != "cpu");
  if (!opts.dims.empty())
    return LogicalResult(
        emitError(loc) << "the module's symbols were set when hoduc imported "
                          "it padded (hodu.symbols); --dim cannot change them: "
                          "compile the model itself with the --dim you want");
  return success();
}

/// What follows the first import: the symbols of `module`, proved and
/// recorded; with `probe`, the module imported again at the chunk size.
static OwningOpRef<ModuleOp>
checkSymbols(OwningOpRef<ModuleOp> module, const Importer *importer,
             MLIRContext &context, const CompileOptions &opts, ImportOptions io,
             bool probe, SmallVectorImpl<driver::PaddedBucket> *buckets) {
  Location loc = FileLineColLoc::get(&context, opts.inputPath, 0, 0);
  if (!probe)
    if (std::optional<LogicalResult> done = compiledPadded(*module, opts))
      return succeeded(*done) ? std::move(module) : nullptr;
  int64_t probeSize = probeSizeFor(opts);
  func::FuncOp entry = entryOf(*module);
  SmallVector<std::string> symbols = symbolsOf(entry);
  for (const DimSpec &d : opts.dims)
    if (!llvm::is_contained(symbols, d.name)) {
      emitError(loc) << "--dim names '" << d.name
                     << "', which is not a symbolic dim of the model"
                     << (symbols.empty()
                             ? std::string(" (it has none)")
                             : " (it has " + llvm::join(symbols, ", ") + ")");
      return nullptr;
    }
  if (symbols.empty())
    return module;
  if (symbols.size() > 1)
    return checkSeveralSymbols(importer, context, opts, io, probe, buckets,
                               symbols);
  const std::string &symbol = symbols.front();
  // An accelerator's bundle records the symbol and runs its plan once per
  // chunk (docs/bundle.md), a --fallback=cpu plan's CPU partitions and
  // transfers included; other artifact kinds (bare code objects) have no
  // place for the symbol.
  if (bareCodeObject(opts)) {
    emitError(loc) << "symbolic dim '" << symbol << "': only a bundle records "
                   << "it (--emit=" << opts.emit << " does not); pin it with "
                   << "--dim=" << symbol << "=<size>";
    return nullptr;
  }
  DimSpec spec = specOf(opts, symbol);
  int64_t chunk = spec.chunk ? spec.chunk : spec.multiple;
  if (chunk % spec.multiple != 0 || (spec.max >= 0 && chunk > spec.max)) {
    // (A chunk, or for a symbol that ops mix, a size to compile at.)
    InFlightDiagnostic d = emitError(loc);
    d << "--dim=" << symbol << ": @" << chunk << " must be a multiple of "
      << spec.multiple;
    if (spec.max >= 0)
      d << " and at most the bound " << spec.max;
    return nullptr;
  }
  // A symbol that ops mix compiles padded at its bound (on an accelerator
  // too, its value in a meta slot); the chunk analysis's errors are the
  // answer when it cannot.
  bool paddable =
      probe && spec.max >= 1 && (spec.chunk == 0 || !spec.buckets.empty());
  if (paddable) {
    std::optional<std::pair<Location, std::string>> mixed;
    LogicalResult chunked = success();
    {
      ScopedDiagnosticHandler quiet(&context, [&](Diagnostic &d) {
        if (!mixed)
          mixed = {d.getLocation(), d.str()};
        return success();
      });
      chunked = runChunkSymbols(*module);
    }
    if (failed(chunked)) {
      SmallVector<int64_t> sizes;
      for (int64_t size : spec.buckets)
        if (size != spec.max) // the bound is compiled anyway
          sizes.push_back(size);
      bool accelerator = opts.target != "cpu";
      if (!sizes.empty() &&
          (!buckets || opts.emit == "mlir" || opts.compileTo)) {
        emitError(loc) << "--dim=" << symbol << ": sizes to compile at (@) "
                       << "make one artifact of several modules; "
                       << (buckets ? "--emit=mlir and --compile-to show one"
                                   : "this path compiles one");
        return nullptr;
      }
      ChunkedSymbol sym{symbol,        spec.min, spec.max,
                        spec.multiple, spec.max, /*padded=*/true};
      SmallVector<SmallVector<int64_t>> perSymbol = {sizes};
      OwningOpRef<ModuleOp> padded =
          driver::importPadded(std::move(module), probeSize, *importer, context,
                               opts, io, sym, perSymbol, buckets);
      if (padded && accelerator) {
        placeSymbolValue(*padded, accelerator);
        for (size_t i = 0; buckets && i < buckets->size(); ++i)
          placeSymbolValue(*(*buckets)[i].module, accelerator);
      }
      return padded;
    }
    if (spec.buckets.size() > 1) {
      emitError(loc) << "--dim=" << symbol << ": several sizes after @ are for "
                     << "a symbol that ops mix; no op mixes '" << symbol
                     << "', so give it one chunk (@C)";
      return nullptr;
    }
  } else if (failed(runChunkSymbols(*module))) {
    if (probe && spec.max < 0)
      llvm::errs() << "hoduc: note: a symbol that ops mix compiles when it "
                      "has an upper bound (--dim="
                   << symbol << "=1..MAX): the code is compiled at MAX and "
                   << "masks the padding\n";
    return nullptr;
  }

  if (probe && failed(checkValueUnused(*module, probeSize, *importer, context,
                                       opts, io, symbol, spec)))
    return nullptr;

  // What the probe proved, carried over to the module that is compiled.
  SmallVector<Attribute> argDims, resultDims;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    argDims.push_back(entry.getArgAttr(i, "hodu.dims"));
  for (unsigned i = 0; i < entry.getNumResults(); ++i)
    resultDims.push_back(entry.getResultAttr(i, "hodu.dims"));
  SmallVector<Type> probeResults(entry.getResultTypes());
  OwningOpRef<ModuleOp> compiled = module.release();
  if (probe) {
    io.unboundSymbolSize = 0;
    io.symbolSizes[symbol] = chunk;
    compiled = importer->import(opts.inputPath, context, io);
    if (!compiled)
      return nullptr;
  }
  func::FuncOp f = entryOf(*compiled);
  if (!f || f.getNumArguments() != argDims.size() ||
      f.getNumResults() != resultDims.size()) {
    emitError(loc) << "the model's signature changes with symbol '" << symbol
                   << "'";
    return nullptr;
  }
  for (auto [i, a] : llvm::enumerate(argDims))
    if (a)
      f.setArgAttr(i, "hodu.dims", a);
  for (auto [i, a] : llvm::enumerate(resultDims)) {
    if (!a)
      continue;
    // The output dim that was p * inner at the probe is chunk * inner here.
    auto probeType = cast<RankedTensorType>(probeResults[i]);
    auto type = cast<RankedTensorType>(f.getResultTypes()[i]);
    for (auto [d, s] : llvm::enumerate(cast<ArrayAttr>(a))) {
      StringRef text = cast<StringAttr>(s).getValue();
      if (text.empty())
        continue;
      int64_t inner = probeType.getDimSize(d) / probeSize;
      if (!probe)
        inner = 1; // what the pass wrote: the .mlir's own sizes
      if (probe && type.getDimSize(d) != chunk * inner) {
        emitError(loc) << "output #" << i << " has " << type.getDimSize(d)
                       << " in dim " << d << " at " << symbol << " = " << chunk
                       << ", not " << chunk * inner
                       << "; the model's structure changes with the symbol";
        return nullptr;
      }
    }
    f.setResultAttr(i, "hodu.dims", a);
  }
  if (!probe) // a .mlir's own size of the symbol is its chunk
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      if (auto dims = f.getArgAttrOfType<ArrayAttr>(i, "hodu.dims"))
        for (auto [d, s] : llvm::enumerate(dims))
          if (!cast<StringAttr>(s).getValue().empty())
            chunk = cast<RankedTensorType>(f.getArgumentTypes()[i])
                        .getDimSize(d);
  writeSymbols(*compiled, {{symbol, spec.min, spec.max, spec.multiple, chunk}});
  return compiled;
}

LogicalResult driver::applySymbols(ModuleOp module,
                                   const CompileOptions &opts) {
  // Checked on a clone: checkSymbols owns the module it is given.
  OwningOpRef<ModuleOp> checked = checkSymbols(
      OwningOpRef<ModuleOp>(module.clone()), nullptr, *module.getContext(),
      opts, opts.import, /*probe=*/false, nullptr);
  if (!checked)
    return failure();
  // Carry what it recorded over: hodu.symbols, and the results' hodu.dims.
  if (Attribute symbols = (*checked)->getAttr("hodu.symbols"))
    module->setAttr("hodu.symbols", symbols);
  func::FuncOp from = entryOf(*checked), to = entryOf(module);
  if (from && to)
    for (unsigned i = 0; i < to.getNumResults(); ++i)
      if (Attribute dims = from.getResultAttr(i, "hodu.dims"))
        to.setResultAttr(i, "hodu.dims", dims);
  return success();
}
