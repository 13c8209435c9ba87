//===- EntryPointLowering.h - hodu.entry_point to the LLVM dialect -*- C++
//-*-===//
//
// The class behind hodu-lower-entry-point, shared by its two files:
// LowerEntryPoint.cpp (the descriptor and the entry wrapper) and
// SymbolLoop.cpp (symbolic dims: the symbol tables, and the run over chunks
// of one symbol with another padded to its bound).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_ABI_ENTRYPOINTLOWERING_H
#define HODU_LIB_ABI_ENTRYPOINTLOWERING_H

#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Dialect/Hodu/Symbols.h"
#include "hodu/Support/DType.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace hodu::abi {

using namespace mlir;

/// Builds the descriptor and the entry wrapper for one entry point.
class EntryPointLowering {
public:
  EntryPointLowering(ModuleOp module, EntryPointOp op, StringRef target)
      : module(module), op(op), target(target), ctx(module.getContext()),
        b(ctx), loc(op.getLoc()) {
    ptrT = LLVM::LLVMPointerType::get(ctx);
    i32 = b.getI32Type();
    i64 = b.getI64Type();
  }

  LogicalResult lower(bool exportAlias);

private:
  Value constant(Type t, int64_t v) {
    return LLVM::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
  }
  /// Loads a `t` at byte `offset` of `base`.
  Value loadAt(Type t, Value base, int64_t offset) {
    Value p = base;
    if (offset)
      p = LLVM::GEPOp::create(b, loc, ptrT, b.getI8Type(), base,
                              ArrayRef<LLVM::GEPArg>{offset},
                              LLVM::GEPNoWrapFlags::inbounds);
    return LLVM::LoadOp::create(b, loc, t, p);
  }
  LLVM::LLVMFuncOp declare(StringRef name, Type result, ArrayRef<Type> args) {
    if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      return f;
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(module.getBody());
    return LLVM::LLVMFuncOp::create(b, loc, name,
                                    LLVM::LLVMFunctionType::get(result, args));
  }
  LLVM::GlobalOp global(Type t, StringRef name, Attribute value,
                        uint64_t align = 0) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(module.getBody());
    return LLVM::GlobalOp::create(b, loc, t, /*isConstant=*/true,
                                  LLVM::Linkage::Internal, name, value, align);
  }
  /// A constant global holding `value`'s bytes, 64-byte aligned: a flat
  /// array of its element type sharing the attribute's storage (a
  /// dense_resource blob stays one, with no copy through a string: a train
  /// step's initial weights are laid out like weights), or of bytes for
  /// what has no LLVM element array (i1); null when it cannot be laid out.
  LLVM::GlobalOp initGlobal(ElementsAttr value, const Twine &name) {
    auto type = cast<ShapedType>(value.getType());
    Type elt = type.getElementType();
    auto flat = RankedTensorType::get({type.getNumElements()}, elt);
    // Types LLVM has arrays of (not the f8 types, not i1).
    bool typed =
        (isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(elt) ||
         elt.isInteger(8) || elt.isInteger(16) || elt.isInteger(32) ||
         elt.isInteger(64)) &&
        type.getNumElements() > 0;
    if (typed) {
      Attribute attr;
      if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
        attr = DenseResourceElementsAttr::get(flat, resource.getRawHandle());
      else if (auto dense = dyn_cast<DenseElementsAttr>(value))
        attr = dense.reshape(flat);
      if (attr)
        return global(LLVM::LLVMArrayType::get(elt, type.getNumElements()),
                      name.str(), attr, /*align=*/64);
    }
    std::string bytes;
    if (!constantBytes(value, bytes))
      return {};
    return global(LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size()),
                  name.str(), b.getStringAttr(bytes), /*align=*/64);
  }
  LLVM::GlobalOp cString(StringRef s, const Twine &name) {
    std::string bytes = s.str();
    bytes.push_back('\0');
    auto g = global(LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size()),
                    name.str(), b.getStringAttr(bytes), /*align=*/1);
    g.setUnnamedAddr(LLVM::UnnamedAddr::Global);
    return g;
  }
  /// A global whose initializer is built by `fill` in its region.
  template <typename Fill>
  LLVM::GlobalOp aggregate(Type t, StringRef name, LLVM::Linkage linkage,
                           Fill fill) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(module.getBody());
    auto global = LLVM::GlobalOp::create(b, loc, t, /*isConstant=*/true,
                                         linkage, name, Attribute());
    b.setInsertionPointToStart(b.createBlock(&global.getInitializerRegion()));
    LLVM::ReturnOp::create(b, loc, fill());
    return global;
  }
  Value insert(Value aggregate, Value v, int64_t position) {
    return LLVM::InsertValueOp::create(b, loc, aggregate, v,
                                       ArrayRef<int64_t>{position});
  }
  /// A new block at the end of the entry wrapper, with arguments `args`.
  Block *newBlock(TypeRange args = {}) {
    Block *blk = new Block();
    entry.getBody().push_back(blk);
    for (Type t : args)
      blk->addArgument(t, loc);
    return blk;
  }
  Value addressOf(LLVM::GlobalOp g) {
    return LLVM::AddressOfOp::create(b, loc, g);
  }

  LLVM::GlobalOp tensorArray(ArrayAttr tensors, StringRef kind);
  LogicalResult buildEntry(LLVM::LLVMFuncOp impl, uint64_t workspaceSize,
                           bool checks);

  // Symbolic dims (SymbolLoop.cpp).
  LogicalResult readSymbols();
  /// The staging copies' offsets in the workspace, after `coreWorkspace`,
  /// and the workspace size with them; the checks of the symbols' values
  /// appended to `messages`.
  uint64_t planStaging(SmallVectorImpl<std::string> &messages);
  LLVM::GlobalOp symbolTable();
  LLVM::GlobalOp dynamicDimTable();
  LLVM::GlobalOp divisorTable(); // after dynamicDimTable
  SmallVector<int64_t> divisors; // one per dynamic_dims record
  void buildSymbolLoop(LLVM::LLVMFuncOp impl, ArrayRef<Value> pointers,
                       Value workspace, Value status, bool passStatus,
                       Value ctxArg, Block *exit);
  bool hasSymbols() const { return !symbols.empty(); }
  // i64 arithmetic, comparisons and byte offsets for the symbol loop.
  Value i64c(int64_t v) { return constant(i64, v); }
  Value mul(Value x, Value y) { return LLVM::MulOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return LLVM::AddOp::create(b, loc, x, y); }
  Value andOf(Value x, Value y) { return LLVM::AndOp::create(b, loc, x, y); }
  Value icmp(LLVM::ICmpPredicate p, Value x, Value y) {
    return LLVM::ICmpOp::create(b, loc, p, x, y);
  }
  Value gep(Value base, Value bytes) {
    return LLVM::GEPOp::create(b, loc, ptrT, b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{bytes});
  }
  /// How many symbols are padded (each a value argument of the code).
  unsigned numPadded() const {
    return llvm::count_if(symbols,
                          [](const ChunkedSymbol &s) { return s.padded; });
  }

  /// Where each symbol (by its index in `symbols`: at most one run over
  /// chunks, the others padded to their bounds) is in an input or output:
  /// its dim (-1: none), as `scale * n / divisor + offset`; the tensor's
  /// shape in the code.
  struct TensorSymbols {
    SmallVector<int64_t, 3> dim, scale, offset, divisor;
    SmallVector<int64_t, 6> shape;
    uint64_t eltBytes = 0;
    explicit TensorSymbols(size_t numSymbols = 0)
        : dim(numSymbols, -1), scale(numSymbols, 1), offset(numSymbols, 0),
          divisor(numSymbols, 1) {}
    bool any() const {
      return llvm::any_of(dim, [](int64_t d) { return d >= 0; });
    }
    /// The number of symbolic dims.
    unsigned count() const {
      return llvm::count_if(dim, [](int64_t d) { return d >= 0; });
    }
    /// The symbol of dim d, -1 for none.
    int symbolAt(int64_t d) const {
      for (auto [k, e] : llvm::enumerate(dim))
        if (e == d)
          return (int)k;
      return -1;
    }
    /// Bytes of the dims after `d`, in the code's layout.
    uint64_t bytesAfter(int64_t d) const {
      uint64_t n = eltBytes;
      for (int64_t e : ArrayRef<int64_t>(shape).drop_front(d + 1))
        n *= e;
      return n;
    }
    /// Elements of the dims before `d`.
    int64_t outer(int64_t d) const {
      int64_t n = 1;
      for (int64_t e : ArrayRef<int64_t>(shape).take_front(d))
        n *= e;
      return n;
    }
  };
  /// The values of one pass of the symbol loop.
  struct Pass {
    SmallVector<Value> n; // each symbol's value
    Value off, rows; // the chunk: its first unit and units (1: none)
  };
  void copyBox(const TensorSymbols &t, const Pass &pass, Value caller,
               Value stage, bool toStage, bool repeatLast, bool zeros);

  SmallVector<ChunkedSymbol> symbols; // hodu.symbols, the descriptor's order
  int chunkedIndex = -1;
  /// Whether tensor t has a padded dim.
  bool hasPaddedDim(const TensorSymbols &t) const {
    for (auto [k, d] : llvm::enumerate(t.dim))
      if (d >= 0 && symbols[k].padded)
        return true;
    return false;
  }
  SmallVector<TensorSymbols> tensorSymbols; // inputs, then outputs
  uint64_t coreWorkspace = 0;
  SmallVector<uint64_t> stagingOffsets; // inputs, then outputs; ~0: none
  int64_t symbolCheck = 0; // the check index of the first symbol's values

  ModuleOp module;
  EntryPointOp op;
  StringRef target;
  MLIRContext *ctx;
  OpBuilder b;
  Location loc;
  Type ptrT, i32, i64;
  LLVM::LLVMStructType tensorT, modelT;
  LLVM::LLVMFuncOp entry;
};

} // namespace hodu::abi

#endif // HODU_LIB_ABI_ENTRYPOINTLOWERING_H
