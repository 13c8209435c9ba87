//===- Symbols.h - the symbolic dims' attributes ----------------*- C++ -*-===//
//
// One reader and writer for what symbols leave in the IR (docs/
// architecture.md, "Symbolic dims"): the module attribute `hodu.symbols`
// (hoduc's driver writes it; the entry point's lowering, the C header and
// the bundle read it) and the per-dim text of `hodu.dims` ("batch", or
// "4*batch" where the symbol is the outer factor of a dim 4 times larger).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_DIALECT_HODU_SYMBOLS_H
#define HODU_DIALECT_HODU_SYMBOLS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace mlir {
class Operation;
} // namespace mlir

namespace hodu {

/// A symbol compiled at `chunk` and run over chunks (hodu_symbol_desc).
/// A `padded` symbol is one that ops mix (a sequence, a decoder's past):
/// its code is compiled at `chunk` = `max`, runs once on inputs padded to
/// it, and masks what the padding would change (hodu-pad-symbols).
struct ChunkedSymbol {
  std::string name;
  int64_t min = 1, max = -1, multiple = 1, chunk = 1;
  bool padded = false;
};

/// A dim's extent as `scale * symbol / divisor + offset`, the division
/// exact for every value the symbol takes (a strided window over a symbol
/// that is a multiple of the stride: `samples/160-3`).
struct SymbolicExtent {
  llvm::StringRef symbol;
  int64_t scale = 1, offset = 0, divisor = 1;
  int64_t at(int64_t n) const { return scale * n / divisor + offset; }
};

/// The module's `hodu.symbols`, in the descriptor's order: none when it has
/// no such attribute; an error (in `error`) when one is malformed, two have
/// one name, or more than one runs in chunks or more than one is padded
/// (the entry point runs one symbol over chunks and pads one).
llvm::LogicalResult readSymbols(mlir::Operation *module,
                                llvm::SmallVectorImpl<ChunkedSymbol> &symbols,
                                std::string &error);

/// Sets the module's `hodu.symbols` to `symbols`.
void writeSymbols(mlir::Operation *module,
                  llvm::ArrayRef<ChunkedSymbol> symbols);

/// The symbol and scale a `hodu.dims` entry names ("batch": 1, "4*batch":
/// 4); none for "" or a malformed entry.
std::optional<std::pair<llvm::StringRef, int64_t>>
parseSymbolicDim(llvm::StringRef text);

/// The `hodu.dims` entry for `scale` times `symbol`.
std::string symbolicDimText(llvm::StringRef symbol, int64_t scale);

/// The error of an op or a model that a symbol cannot take: "symbolic dim
/// 'seq' cannot vary: WHY; pin it (hoduc --dim=seq=<size>)".
std::string symbolCannotVaryText(llvm::StringRef symbol, llvm::StringRef why);

/// "seq", "2*seq", "seq+1", "2*seq-3", "samples/160-3": the symbol, scale
/// (>= 1), divisor (>= 1) and offset; none for "" or a malformed entry.
std::optional<SymbolicExtent> parseSymbolicExtent(llvm::StringRef text);

/// The `hodu.dims` entry for `scale * symbol / divisor + offset`.
std::string symbolicExtentText(llvm::StringRef symbol, int64_t scale,
                               int64_t offset, int64_t divisor = 1);

} // namespace hodu

#endif // HODU_DIALECT_HODU_SYMBOLS_H
