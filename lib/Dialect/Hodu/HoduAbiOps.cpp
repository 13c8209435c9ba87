//===- HoduAbiOps.cpp - hodu.entry_point ----------------------------------===//
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Dialect/Hodu/Symbols.h"
#include "hodu/Support/DType.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace hodu;

/// Each entry of `inputs`/`outputs` is {name = "...", type = tensor<...>}
/// with a static shape and an element type the ABI can describe. Inputs
/// may be state tensors (`state`) and then meta slots (`meta`), both
/// optionally with an `init` value of their type, after the other inputs;
/// outputs may be state tensors' new values (`state`), the last outputs.
/// The number of state tensors is returned in `numState`.
static LogicalResult verifyTensors(EntryPointOp op, ArrayAttr list,
                                   StringRef kind, unsigned &numState) {
  bool sawMeta = false, sawState = false;
  numState = 0;
  for (auto [i, attr] : llvm::enumerate(list)) {
    auto dict = cast<DictionaryAttr>(attr);
    auto name = dict.getAs<StringAttr>("name");
    auto type = dict.getAs<TypeAttr>("type");
    bool input = kind == "input";
    bool meta = input && dict.get("meta");
    bool state = bool(dict.get("state"));
    auto init = dict.getAs<ElementsAttr>("init");
    auto dims = dict.getAs<ArrayAttr>("dims");
    // A meta slot may hold a padded symbol's value (an accelerator's).
    auto symbolValue = dict.getAs<StringAttr>("symbol_value");
    bool initAllowed = input && (meta || state);
    if (!name || !type || (meta && state) || (init && !initAllowed) ||
        (symbolValue && !meta) ||
        dict.size() != 2 + (meta ? 1 : 0) + (state ? 1 : 0) + (init ? 1 : 0) +
                           (dims ? 1 : 0) + (symbolValue ? 1 : 0))
      return op.emitOpError()
             << kind << " #" << i
             << " must be {name = \"...\", type = ...} (inputs may add "
                "meta or state and init, a meta slot symbol_value, outputs "
                "state, and any tensor dims)";
    if (dims) {
      auto ranked = dyn_cast<RankedTensorType>(type.getValue());
      if (!ranked || (int64_t)dims.size() != ranked.getRank() ||
          !llvm::all_of(dims, llvm::IsaPred<StringAttr>))
        return op.emitOpError()
               << kind << " #" << i
               << ": dims must give one symbol (or \"\") per dim";
    }
    if (init && init.getType() != type.getValue())
      return op.emitOpError()
             << (meta ? "meta slot '" : "state tensor '") << name.getValue()
             << "' has an initial value of type " << init.getType() << ", not "
             << type.getValue();
    if (sawMeta && !meta)
      return op.emitOpError() << "input '" << name.getValue()
                              << "' follows a meta slot; meta slots are the "
                                 "last inputs";
    if (sawState && !state && !meta)
      return op.emitOpError()
             << kind << " '" << name.getValue()
             << "' follows a state tensor; state tensors are the last "
             << (input ? "inputs before the meta slots" : "outputs");
    sawMeta |= meta;
    sawState |= state;
    numState += state ? 1 : 0;
    auto tensor = dyn_cast<RankedTensorType>(type.getValue());
    if (!tensor || !tensor.hasStaticShape())
      return op.emitOpError() << kind << " '" << name.getValue() << "' has type "
                              << type.getValue()
                              << "; entry points need tensors with static shapes";
    if (!dtypeOf(tensor.getElementType()))
      return op.emitOpError() << kind << " '" << name.getValue()
                              << "' has element type "
                              << tensor.getElementType()
                              << ", which the artifact ABI cannot describe";
  }
  return success();
}

LogicalResult EntryPointOp::verify() {
  if (getPrefix().empty())
    return emitOpError("needs a non-empty symbol prefix");
  unsigned stateIn = 0, stateOut = 0;
  if (failed(verifyTensors(*this, getInputs(), "input", stateIn)) ||
      failed(verifyTensors(*this, getOutputs(), "output", stateOut)))
    return failure();
  if (stateIn != stateOut)
    return emitOpError() << stateIn << " state tensor inputs but " << stateOut
                         << " state tensor outputs: each state tensor is one "
                            "of each";
  // Pairwise: the k-th state input and output have one type.
  auto nthState = [](ArrayAttr list, unsigned k) {
    for (Attribute a : list)
      if (cast<DictionaryAttr>(a).get("state") && k-- == 0)
        return cast<DictionaryAttr>(a);
    return DictionaryAttr();
  };
  for (unsigned k = 0; k < stateIn; ++k) {
    DictionaryAttr in = nthState(getInputs(), k),
                   out = nthState(getOutputs(), k);
    if (in.get("type") != out.get("type"))
      return emitOpError() << "state tensor '"
                           << in.getAs<StringAttr>("name").getValue() << "' is "
                           << in.getAs<TypeAttr>("type").getValue()
                           << " but its new value '"
                           << out.getAs<StringAttr>("name").getValue()
                           << "' is " << out.getAs<TypeAttr>("type").getValue();
  }
  return success();
}

LogicalResult
EntryPointOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *fn = symbolTable.lookupNearestSymbolFrom(*this, getFunctionAttr());
  if (!fn || !isa<func::FuncOp, LLVM::LLVMFuncOp>(fn))
    return emitOpError("names '")
           << getFunction() << "', which is not a function of this module";
  return success();
}

//===----------------------------------------------------------------------===//
// Symbolic dims (hodu/Dialect/Hodu/Symbols.h)
//===----------------------------------------------------------------------===//

LogicalResult hodu::readSymbols(Operation *module,
                                SmallVectorImpl<ChunkedSymbol> &out,
                                std::string &error) {
  out.clear();
  auto symbols = module->getAttrOfType<ArrayAttr>("hodu.symbols");
  if (!symbols)
    return success();
  unsigned chunked = 0;
  for (Attribute a : symbols) {
    auto dict = dyn_cast<DictionaryAttr>(a);
    auto name = dict ? dict.getAs<StringAttr>("name") : StringAttr();
    if (!name) {
      error = "hodu.symbols: a dictionary with a name";
      return failure();
    }
    ChunkedSymbol s;
    s.name = name.str();
    for (auto [key, field] :
         {std::pair("min", &s.min), std::pair("max", &s.max),
          std::pair("multiple", &s.multiple), std::pair("chunk", &s.chunk)})
      if (auto v = dict.getAs<IntegerAttr>(key))
        *field = v.getInt();
    s.padded = (bool)dict.get("padded");
    if (s.padded && s.chunk != s.max) {
      error = "hodu.symbols: padded symbol '" + s.name +
              "' must be compiled at its bound";
      return failure();
    }
    if (s.min < 0 || s.multiple < 1 || s.chunk < 1 ||
        (s.max >= 0 && s.max < s.min)) {
      error = "hodu.symbols: bad bounds for '" + s.name + "'";
      return failure();
    }
    if (llvm::any_of(
            out, [&](const ChunkedSymbol &o) { return o.name == s.name; })) {
      error = "hodu.symbols: '" + s.name + "' twice";
      return failure();
    }
    chunked += !s.padded;
    out.push_back(std::move(s));
  }
  if (chunked > 1) {
    error = "hodu.symbols: at most one symbol run in chunks";
    return failure();
  }
  return success();
}

void hodu::writeSymbols(Operation *module, ArrayRef<ChunkedSymbol> symbols) {
  Builder b(module->getContext());
  SmallVector<Attribute> list;
  for (const ChunkedSymbol &symbol : symbols) {
    NamedAttribute fields[] = {
        b.getNamedAttr("name", b.getStringAttr(symbol.name)),
        b.getNamedAttr("min", b.getI64IntegerAttr(symbol.min)),
        b.getNamedAttr("max", b.getI64IntegerAttr(symbol.max)),
        b.getNamedAttr("multiple", b.getI64IntegerAttr(symbol.multiple)),
        b.getNamedAttr("chunk", b.getI64IntegerAttr(symbol.chunk))};
    SmallVector<NamedAttribute> all(std::begin(fields), std::end(fields));
    if (symbol.padded)
      all.push_back(b.getNamedAttr("padded", b.getUnitAttr()));
    list.push_back(b.getDictionaryAttr(all));
  }
  module->setAttr("hodu.symbols", b.getArrayAttr(list));
}

std::optional<SymbolicExtent> hodu::parseSymbolicExtent(StringRef text) {
  SymbolicExtent e;
  auto [factor, rest] = text.split('*');
  if (rest.empty()) {
    rest = factor;
  } else if (factor.getAsInteger(10, e.scale) || e.scale < 1) {
    return std::nullopt;
  }
  size_t end = rest.find_first_of("/+-");
  e.symbol = rest.take_front(end);
  rest = end == StringRef::npos ? StringRef() : rest.drop_front(end);
  if (rest.consume_front("/")) {
    size_t digits = rest.find_first_of("+-");
    if (rest.take_front(digits).getAsInteger(10, e.divisor) || e.divisor < 1)
      return std::nullopt;
    rest = digits == StringRef::npos ? StringRef() : rest.drop_front(digits);
  }
  if (!rest.empty()) {
    bool minus = rest.front() == '-';
    StringRef digits = rest.drop_front();
    if (digits.empty() || digits.getAsInteger(10, e.offset) || e.offset < 0)
      return std::nullopt;
    if (minus)
      e.offset = -e.offset;
  }
  if (e.symbol.empty() || e.symbol.find('*') != StringRef::npos)
    return std::nullopt;
  return e;
}

std::optional<std::pair<StringRef, int64_t>>
hodu::parseSymbolicDim(StringRef text) {
  std::optional<SymbolicExtent> e = parseSymbolicExtent(text);
  if (!e || e->offset != 0 || e->divisor != 1)
    return std::nullopt;
  return std::pair(e->symbol, e->scale);
}

std::string hodu::symbolicDimText(StringRef symbol, int64_t scale) {
  return scale == 1 ? symbol.str() : std::to_string(scale) + "*" + symbol.str();
}

std::string hodu::symbolCannotVaryText(StringRef symbol, StringRef why) {
  return ("symbolic dim '" + symbol + "' cannot vary: " + why +
          "; pin it (hoduc --dim=" + symbol + "=<size>)")
      .str();
}

std::string hodu::symbolicExtentText(StringRef symbol, int64_t scale,
                                     int64_t offset, int64_t divisor) {
  std::string text = symbolicDimText(symbol, scale);
  if (divisor > 1)
    text += "/" + std::to_string(divisor);
  if (offset > 0)
    text += "+" + std::to_string(offset);
  else if (offset < 0)
    text += "-" + std::to_string(-offset);
  return text;
}
