//===- PadRewriter.h - hodu-pad-symbols' rewriter --------------*- C++ -*-===//
//
// The state of hodu-pad-symbols (PadSymbols.cpp: the masks) shared with
// PadSymbolsIndexing.cpp (the indices computed from the symbols' values).
// Internal to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TRANSFORMS_PADREWRITER_H
#define HODU_LIB_TRANSFORMS_PADREWRITER_H

#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Dialect/Hodu/Symbols.h"

#include "SymbolOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace hodu::pad_symbols {

using namespace mlir;

/// A dim's real extent, scale * n / divisor + offset (exact), n the value
/// of padded symbol `sym`; scale 0: a static dim. With a `period`, the dim
/// interleaves: position p is real when p mod period is below the extent
/// (the rows of an attention's heads flattened with its padded queries,
/// [heads * B] of [heads, B]); else the real positions are a prefix.
struct Extent {
  int64_t scale = 0, offset = 0, divisor = 1;
  int sym = -1;
  int64_t period = 0;
  bool symbolic() const { return scale != 0; }
};

/// What the padding of a dim must hold for the op that reads across it.
enum class Neutral { Zero, One, Lowest, Highest };

class PadRewriter {
public:
  /// `symbols`: the padded ones, each compiled at its bound (chunk).
  PadRewriter(ArrayRef<ChunkedSymbol> symbols, func::FuncOp f)
      : symbols(symbols), f(f), b(f.getContext()) {}

  LogicalResult read();
  LogicalResult run();

private:
  LogicalResult visit(Operation *op);
  /// The error at op, naming the first padded symbol its operands have.
  LogicalResult mixes(Operation *op, const Twine &why) {
    for (Value v : op->getOperands())
      if (auto it = table.find(v); it != table.end())
        for (const Extent &e : it->second)
          if (e.symbolic())
            return symbolCannotVary(op, symbols[e.sym].name, why);
    return symbolCannotVary(op, symbols.front().name, why);
  }
  LogicalResult readExtents(Value v, ArrayAttr dims, Operation *where,
                            bool isArgument = false);
  SmallVector<int64_t> symbolicDims(Value v) const {
    SmallVector<int64_t> dims;
    auto it = table.find(v);
    if (it != table.end())
      for (auto [d, e] : llvm::enumerate(it->second))
        if (e.symbolic())
          dims.push_back(d);
    return dims;
  }
  bool isSymbolic(Value v, int64_t d) const {
    auto it = table.find(v);
    return it != table.end() && d >= 0 && d < (int64_t)it->second.size() &&
           it->second[d].symbolic();
  }
  Extent extentOf(Value v, int64_t d) const { return table.lookup(v)[d]; }

  // Builders, at b's insertion point.
  Value i64Constant(ArrayRef<int64_t> shape, ArrayRef<int64_t> values);
  /// `index` (i64) clamped into [0, size): a padded position reads some
  /// real one.
  Value clampIndex(Location loc, Value index, int64_t size);
  Value scalar(Type elem, Neutral k);
  Value realExtent(Extent e);
  LogicalResult followSymbols(ConstantOp c);
  LogicalResult slideSlice(SliceOp s);
  FailureOr<Value> symbolOffset(Operation *at, DictionaryAttr slopes,
                                RankedTensorType like);
  void distinct(Value v);
  Value keep(ArrayRef<int64_t> shape, ArrayRef<std::pair<int64_t, Extent>> dims,
             Type like);
  Value masked(Value x, ArrayRef<int64_t> dims, Neutral k);
  void maskOperand(Operation *op, unsigned i, ArrayRef<int64_t> dims,
                   Neutral k);
  void propagateKnown(Operation *op);
  LogicalResult concat(ConcatOp c);
  LogicalResult pad(PadOp p);
  LogicalResult reshape(Operation *op);
  LogicalResult resize(ResizeOp r);
  Value edged(Value x, ArrayRef<int64_t> dims);
  bool interleaved(Value v) const {
    auto it = table.find(v);
    return it != table.end() &&
           llvm::any_of(it->second, [](const Extent &e) { return e.period; });
  }
  void propagatePeriods(Operation *op);
  template <class R> LogicalResult reduce(R r, Neutral k, bool mean = false);
  /// Whether reduction r reduces a padded dim.
  template <class R> bool overSymbolic(R r) const {
    int64_t rank = cast<RankedTensorType>(r.getInput().getType()).getRank();
    return llvm::any_of(symbolAxesOf(r.getDims(), rank),
                        [&](int64_t d) { return isSymbolic(r.getInput(), d); });
  }

  ArrayRef<ChunkedSymbol> symbols;
  func::FuncOp f;
  OpBuilder b;
  SmallVector<Value> n; // each symbol's value
  DenseMap<Value, SmallVector<Extent>> table;

public:
  /// The selects it made (hoduc --print-stats).
  int64_t masks = 0;

private:
  /// Values whose padding is known to hold a neutral value, on which dims.
  DenseMap<Value, std::pair<Neutral, SmallVector<int64_t>>> known;
};

} // namespace hodu::pad_symbols

#endif // HODU_LIB_TRANSFORMS_PADREWRITER_H
