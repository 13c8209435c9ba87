//===- LowerEntryPoint.cpp - hodu.entry_point to the LLVM dialect ---------===//
//
// The model's descriptor and `hodu_entry_fn` wrapper (runtime/include/hodu/
// abi.h), built as LLVM dialect ops so that `--compile-to=llvm` shows them
// and `hodu-opt` replays the step (the model: onnx-mlir's
// KrnlToLLVM/KrnlEntryPoint.cpp). Layouts come from abi.h itself.
//
//===----------------------------------------------------------------------===//

#include "hodu/ABI/Passes.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Dialect/Hodu/Symbols.h"
#include "hodu/Support/DType.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <cstddef>

namespace hodu {
#define GEN_PASS_DEF_LOWERENTRYPOINT
#include "ABI/Passes.h.inc"
} // namespace hodu

using namespace mlir;
using namespace hodu;

// The LLVM struct types below mirror these C structs field by field; the
// ABI is LP64 (64-bit pointers), which every target Hodu emits for has.
static_assert(sizeof(void *) == 8, "the artifact ABI assumes 64-bit pointers");
static_assert(offsetof(hodu_tensor_desc, name) == 0 &&
                  offsetof(hodu_tensor_desc, dtype) == 8 &&
                  offsetof(hodu_tensor_desc, rank) == 12 &&
                  offsetof(hodu_tensor_desc, shape) == 16 &&
                  sizeof(hodu_tensor_desc) == 24,
              "hodu_tensor_desc is {ptr, i32, i32, ptr}");
static_assert(offsetof(hodu_model_desc, abi_version) == 0 &&
                  offsetof(hodu_model_desc, struct_size) == 4 &&
                  offsetof(hodu_model_desc, model_name) == 8 &&
                  offsetof(hodu_model_desc, target) == 16 &&
                  offsetof(hodu_model_desc, num_inputs) == 24 &&
                  offsetof(hodu_model_desc, num_outputs) == 28 &&
                  offsetof(hodu_model_desc, inputs) == 32 &&
                  offsetof(hodu_model_desc, outputs) == 40 &&
                  offsetof(hodu_model_desc, entry) == 48 &&
                  offsetof(hodu_model_desc, workspace_size) == 56 &&
                  offsetof(hodu_model_desc, num_meta_slots) == 64 &&
                  offsetof(hodu_model_desc, meta_slot_init) == 72 &&
                  offsetof(hodu_model_desc, num_checks) == 80 &&
                  offsetof(hodu_model_desc, check_messages) == 88 &&
                  offsetof(hodu_model_desc, num_symbols) == 96 &&
                  offsetof(hodu_model_desc, symbols) == 104 &&
                  offsetof(hodu_model_desc, num_dynamic_dims) == 112 &&
                  offsetof(hodu_model_desc, dynamic_dims) == 120 &&
                  offsetof(hodu_model_desc, num_state_tensors) == 128 &&
                  offsetof(hodu_model_desc, state_tensor_init) == 136 &&
                  sizeof(hodu_model_desc) == 144,
              "hodu_model_desc is {i32, i32, ptr, ptr, i32, i32, ptr, ptr, "
              "ptr, i64, i32, ptr, i32, ptr, i32, ptr, i32, ptr, i32, ptr}");
static_assert(offsetof(hodu_symbol_desc, name) == 0 &&
                  offsetof(hodu_symbol_desc, min) == 8 &&
                  offsetof(hodu_symbol_desc, max) == 16 &&
                  offsetof(hodu_symbol_desc, multiple) == 24 &&
                  offsetof(hodu_symbol_desc, chunk) == 32 &&
                  sizeof(hodu_symbol_desc) == 40,
              "hodu_symbol_desc is {ptr, i64, i64, i64, i64}");
static_assert(offsetof(hodu_dynamic_dim, is_output) == 0 &&
                  offsetof(hodu_dynamic_dim, tensor) == 4 &&
                  offsetof(hodu_dynamic_dim, dim) == 8 &&
                  offsetof(hodu_dynamic_dim, symbol) == 12 &&
                  offsetof(hodu_dynamic_dim, scale) == 16 &&
                  offsetof(hodu_dynamic_dim, offset) == 24 &&
                  sizeof(hodu_dynamic_dim) == 32,
              "hodu_dynamic_dim is {i32, i32, i32, i32, i64, i64}");
static_assert(offsetof(hodu_run_context, symbol_values) == 24 &&
                  offsetof(hodu_run_context, num_symbol_values) == 32,
              "the entry wrapper loads symbol_values at 24 and "
              "num_symbol_values at 32");
static_assert(sizeof(hodu_run_context::struct_size) == 4 &&
                  sizeof(hodu_run_context::num_threads) == 4 &&
                  sizeof(hodu_run_context::workspace_size) == 8,
              "the entry wrapper loads these fields as i32, i32 and i64");

namespace {

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
  LogicalResult readSymbols();
  LLVM::GlobalOp symbolTable();
  LLVM::GlobalOp dynamicDimTable();
  LogicalResult buildEntry(LLVM::LLVMFuncOp impl, uint64_t workspaceSize,
                           bool checks);
  void buildChunkLoop(LLVM::LLVMFuncOp impl, ArrayRef<Value> pointers,
                      Value workspace, Value status, bool passStatus,
                      Value ctxArg, Block *exit);

  /// The symbol of a chunked model (hodu.symbols) and, per input and
  /// output, the dim it is (-1: none) with its scale.
  struct Chunked {
    int64_t dim = -1, scale = 1;
    int64_t offset = 0;     // a padded symbol's dims: scale * n + offset
    int64_t outer = 1;      // the dims before it: >1, its chunks are strided
    uint64_t unitBytes = 0; // bytes per unit of the symbol (scale rows)
    uint64_t rowBytes = 0;  // bytes per index of the dim
  };
  std::optional<ChunkedSymbol> symbol;
  SmallVector<Chunked> inputChunks, outputChunks;
  uint64_t coreWorkspace = 0, stagingOffset = 0;
  SmallVector<uint64_t> stagingOffsets; // inputs, then outputs; ~0: none
  int64_t symbolCheck = 0;              // the check index of "symbol values"

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

LLVM::GlobalOp EntryPointLowering::tensorArray(ArrayAttr tensors,
                                               StringRef kind) {
  std::string prefix = op.getPrefix().str();
  SmallVector<std::tuple<LLVM::GlobalOp, int32_t, int32_t, LLVM::GlobalOp>>
      descs;
  for (auto [i, attr] : llvm::enumerate(tensors)) {
    auto dict = cast<DictionaryAttr>(attr);
    StringRef name = dict.getAs<StringAttr>("name").getValue();
    auto type = cast<RankedTensorType>(dict.getAs<TypeAttr>("type").getValue());
    SmallVector<int64_t> shape(type.getShape());
    if (auto dims = dict.getAs<ArrayAttr>("dims"))
      for (auto [d, a] : llvm::enumerate(dims))
        if (!cast<StringAttr>(a).getValue().empty())
          shape[d] = HODU_DIM_DYNAMIC;
    auto dimsT = LLVM::LLVMArrayType::get(i64, shape.size());
    std::string shapeName = (prefix + "_" + kind + "_shape" + Twine(i)).str();
    LLVM::GlobalOp shapeG =
        shape.empty()
            ? aggregate(dimsT, shapeName, LLVM::Linkage::Internal,
                        [&]() -> Value {
                          return LLVM::ZeroOp::create(b, loc, dimsT);
                        })
            : global(dimsT, shapeName,
                     DenseElementsAttr::get(
                         RankedTensorType::get({(int64_t)shape.size()}, i64),
                         ArrayRef<int64_t>(shape)));
    auto nameG = cString(name, prefix + "_" + kind + "_name" + Twine(i));
    descs.emplace_back(nameG, *dtypeOf(type.getElementType()),
                       (int32_t)shape.size(), shapeG);
  }
  auto arrT = LLVM::LLVMArrayType::get(tensorT, descs.size());
  return aggregate(arrT, (prefix + "_" + kind + "s").str(),
                   LLVM::Linkage::Internal, [&]() -> Value {
                     Value arr = LLVM::UndefOp::create(b, loc, arrT);
                     for (auto [i, d] : llvm::enumerate(descs)) {
                       auto [nameG, dtype, rank, shapeG] = d;
                       Value s = LLVM::UndefOp::create(b, loc, tensorT);
                       s = insert(s, addressOf(nameG), 0);
                       s = insert(s, constant(i32, dtype), 1);
                       s = insert(s, constant(i32, rank), 2);
                       s = insert(s, addressOf(shapeG), 3);
                       arr = insert(arr, s, i);
                     }
                     return arr;
                   });
}

/// Reads the module's `hodu.symbols` and the entry point's `dims`: where
/// the chunked symbol is in each input and output, and the bytes one unit
/// of it holds there.
LogicalResult EntryPointLowering::readSymbols() {
  std::optional<ChunkedSymbol> read;
  std::string error;
  if (failed(readChunkedSymbol(module, read, error)))
    return op.emitError(error);
  if (!read)
    return success();
  const ChunkedSymbol &sym = *read;
  symbol = sym;
  for (auto [list, out] : {std::pair(op.getInputs(), &inputChunks),
                           std::pair(op.getOutputs(), &outputChunks)})
    for (Attribute a : list) {
      auto tensor = cast<DictionaryAttr>(a);
      auto type =
          cast<RankedTensorType>(tensor.getAs<TypeAttr>("type").getValue());
      Chunked c;
      if (auto dims = tensor.getAs<ArrayAttr>("dims"))
        for (auto [d, attr] : llvm::enumerate(dims)) {
          StringRef text = cast<StringAttr>(attr).getValue();
          if (text.empty())
            continue;
          auto named = parseSymbolicExtent(text);
          if (!named || (named->offset != 0 && !sym.padded))
            return op.emitError("bad symbolic dim '") << text << "'";
          int64_t scale = named->scale;
          if (named->symbol != sym.name || c.dim >= 0)
            return op.emitError("dims of '")
                   << tensor.getAs<StringAttr>("name").getValue()
                   << "' name a symbol other than '" << sym.name
                   << "' or it twice";
          ArrayRef<int64_t> shape = type.getShape();
          int64_t extent = sym.chunk * scale + named->offset;
          if (shape[d] != extent || extent < 1)
            return op.emitError("'")
                   << tensor.getAs<StringAttr>("name").getValue()
                   << "' must have " << extent << " in dim " << d;
          for (int64_t e : shape.take_front(d))
            c.outer *= e;
          uint64_t bytes = dtypeSize(*dtypeOf(type.getElementType()));
          for (int64_t e : shape.drop_front(d + 1))
            bytes *= e;
          c.dim = d;
          c.scale = scale;
          c.offset = named->offset;
          c.rowBytes = bytes;
          c.unitBytes = scale * bytes;
        }
      out->push_back(c);
    }
  return success();
}

/// The descriptor's `symbols`: one hodu_symbol_desc.
LLVM::GlobalOp EntryPointLowering::symbolTable() {
  std::string prefix = op.getPrefix().str();
  auto symT = LLVM::LLVMStructType::getLiteral(ctx, {ptrT, i64, i64, i64, i64});
  auto arrT = LLVM::LLVMArrayType::get(symT, 1);
  auto nameG = cString(symbol->name, prefix + "_symbol_name0");
  return aggregate(arrT, prefix + "_symbols", LLVM::Linkage::Internal,
                   [&]() -> Value {
                     Value s = LLVM::UndefOp::create(b, loc, symT);
                     s = insert(s, addressOf(nameG), 0);
                     s = insert(s, constant(i64, symbol->min), 1);
                     s = insert(s, constant(i64, symbol->max), 2);
                     s = insert(s, constant(i64, symbol->multiple), 3);
                     s = insert(s, constant(i64, symbol->chunk), 4);
                     Value arr = LLVM::UndefOp::create(b, loc, arrT);
                     return insert(arr, s, 0);
                   });
}

/// The descriptor's `dynamic_dims`: one hodu_dynamic_dim per chunked
/// input and output.
LLVM::GlobalOp EntryPointLowering::dynamicDimTable() {
  SmallVector<std::array<int64_t, 6>> rows;
  for (auto [isOutput, list] :
       {std::pair(0, &inputChunks), std::pair(1, &outputChunks)})
    for (auto [i, c] : llvm::enumerate(*list))
      if (c.dim >= 0)
        rows.push_back({isOutput, (int64_t)i, c.dim, 0, c.scale, c.offset});
  if (rows.empty())
    return {};
  auto rowT =
      LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32, i64, i64});
  auto arrT = LLVM::LLVMArrayType::get(rowT, rows.size());
  return aggregate(arrT, op.getPrefix().str() + "_dynamic_dims",
                   LLVM::Linkage::Internal, [&]() -> Value {
                     Value arr = LLVM::UndefOp::create(b, loc, arrT);
                     for (auto [k, row] : llvm::enumerate(rows)) {
                       Value r = LLVM::UndefOp::create(b, loc, rowT);
                       for (int f = 0; f < 6; ++f)
                         r = insert(r, constant(f < 4 ? i32 : i64, row[f]), f);
                       arr = insert(arr, r, k);
                     }
                     return arr;
                   });
}

/// The run over chunks: the symbol's value n from ctx (checked against its
/// bounds, else check "symbol values"), then for each chunk of `chunk`
/// units the model's code on pointers into the caller's tensors -- the last
/// chunk, when n is not a multiple, on staging copies in the workspace
/// whose rows past n repeat the last real row, its outputs copied back.
/// Branches to `exit` with the return code.
void EntryPointLowering::buildChunkLoop(LLVM::LLVMFuncOp impl,
                                        ArrayRef<Value> pointers,
                                        Value workspace, Value status,
                                        bool passStatus, Value ctxArg,
                                        Block *exit) {
  auto icmp = [&](LLVM::ICmpPredicate p, Value x, Value y) {
    return LLVM::ICmpOp::create(b, loc, p, x, y);
  };
  auto gep = [&](Value base, Value bytes) {
    return LLVM::GEPOp::create(b, loc, ptrT, b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{bytes});
  };
  Value null = LLVM::ZeroOp::create(b, loc, ptrT);
  Value badSymbols = constant(i32, 2 + symbolCheck);
  // The value: ctx, its struct_size, the count and the array.
  Block *sizeBB = newBlock(), *fieldsBB = newBlock(), *valueBB = newBlock(),
        *boundsBB = newBlock();
  LLVM::CondBrOp::create(b, loc, icmp(LLVM::ICmpPredicate::eq, ctxArg, null),
                         exit, ValueRange{badSymbols}, sizeBB, ValueRange{});
  b.setInsertionPointToStart(sizeBB);
  constexpr int64_t kSymbolFieldsEnd =
      offsetof(hodu_run_context, num_symbol_values) +
      sizeof(hodu_run_context::num_symbol_values);
  Value structSize = LLVM::LoadOp::create(b, loc, i32, ctxArg);
  LLVM::CondBrOp::create(b, loc,
                         icmp(LLVM::ICmpPredicate::uge, structSize,
                              constant(i32, kSymbolFieldsEnd)),
                         fieldsBB, ValueRange{}, exit, ValueRange{badSymbols});
  b.setInsertionPointToStart(fieldsBB);
  Value values =
      loadAt(ptrT, ctxArg, offsetof(hodu_run_context, symbol_values));
  Value count =
      loadAt(i32, ctxArg, offsetof(hodu_run_context, num_symbol_values));
  Value given = LLVM::AndOp::create(
      b, loc, icmp(LLVM::ICmpPredicate::ne, values, null),
      icmp(LLVM::ICmpPredicate::eq, count, constant(i32, 1)));
  LLVM::CondBrOp::create(b, loc, given, valueBB, ValueRange{}, exit,
                         ValueRange{badSymbols});
  b.setInsertionPointToStart(valueBB);
  Value n = LLVM::LoadOp::create(b, loc, i64, values);
  Value ok = icmp(LLVM::ICmpPredicate::sge, n, constant(i64, symbol->min));
  if (symbol->max >= 0)
    ok = LLVM::AndOp::create(
        b, loc, ok,
        icmp(LLVM::ICmpPredicate::sle, n, constant(i64, symbol->max)));
  if (symbol->multiple > 1)
    ok = LLVM::AndOp::create(
        b, loc, ok,
        icmp(LLVM::ICmpPredicate::eq,
             LLVM::SRemOp::create(b, loc, n, constant(i64, symbol->multiple)),
             constant(i64, 0)));
  LLVM::CondBrOp::create(b, loc, ok, boundsBB, ValueRange{}, exit,
                         ValueRange{badSymbols});
  b.setInsertionPointToStart(boundsBB);

  // for (off = 0; off < n; off += chunk)
  int64_t chunk = symbol->chunk;
  auto i64c = [&](int64_t v) { return constant(i64, v); };
  auto mul = [&](Value x, Value y) {
    return LLVM::MulOp::create(b, loc, x, y);
  };
  auto add = [&](Value x, Value y) {
    return LLVM::AddOp::create(b, loc, x, y);
  };
  // for (i = from; i < to; ++i) body(i), at the insertion point.
  auto loop = [&](Value from, Value to, llvm::function_ref<void(Value)> body) {
    Block *head = newBlock({i64}), *inner = newBlock(), *done = newBlock();
    LLVM::BrOp::create(b, loc, ValueRange{from}, head);
    b.setInsertionPointToStart(head);
    Value i = head->getArgument(0);
    LLVM::CondBrOp::create(b, loc, icmp(LLVM::ICmpPredicate::slt, i, to), inner,
                           done);
    b.setInsertionPointToStart(inner);
    body(i);
    LLVM::BrOp::create(b, loc, ValueRange{add(i, i64c(1))}, head);
    b.setInsertionPointToStart(done);
  };
  size_t nIn = inputChunks.size();
  auto chunkOf = [&](size_t k) -> const Chunked & {
    return k < nIn ? inputChunks[k] : outputChunks[k - nIn];
  };
  auto stageOf = [&](size_t k) {
    return gep(workspace, i64c(stagingOffsets[k]));
  };
  Block *headBB = newBlock({i64}), *bodyBB = newBlock(),
        *partialBB = newBlock(), *callBB = newBlock({b.getI1Type()}),
        *afterBB = newBlock(), *copyBackBB = newBlock(), *nextBB = newBlock();
  // A padded symbol runs one pass, also for n = 0 (outputs of `past + 1`).
  Value limit = n;
  if (symbol->padded)
    limit = LLVM::SelectOp::create(
        b, loc, icmp(LLVM::ICmpPredicate::sgt, n, i64c(1)), n, i64c(1));
  // Its value for the code: the hidden argument after the inputs.
  Value valueSlot;
  if (symbol->padded) {
    valueSlot = LLVM::AllocaOp::create(b, loc, ptrT, i64, i64c(1),
                                       /*alignment=*/8);
    LLVM::StoreOp::create(b, loc, n, valueSlot);
  }
  LLVM::BrOp::create(b, loc, ValueRange{i64c(0)}, headBB);
  b.setInsertionPointToStart(headBB);
  Value off = headBB->getArgument(0);
  LLVM::CondBrOp::create(b, loc, icmp(LLVM::ICmpPredicate::slt, off, limit),
                         bodyBB, ValueRange{}, exit,
                         ValueRange{constant(i32, 0)});
  b.setInsertionPointToStart(bodyBB);
  Value left = LLVM::SubOp::create(b, loc, n, off);
  Value full = icmp(LLVM::ICmpPredicate::sge, left, i64c(chunk));
  Value rows = LLVM::SelectOp::create(b, loc, full, i64c(chunk), left);
  // The bytes of `units` units of the symbol in tensor k: its dim is
  // scale * units + offset long.
  auto extentBytes = [&](size_t k, Value units) {
    const Chunked &c = chunkOf(k);
    return mul(add(mul(units, i64c(c.scale)), i64c(c.offset)),
               i64c(c.rowBytes));
  };
  // Block o of tensor k in the caller's buffer: rows [off, off + rows) of
  // its o-th outer slice; in the staging copy, rows [0, chunk).
  auto callerBlock = [&](size_t k, Value o) {
    const Chunked &c = chunkOf(k);
    return gep(pointers[k],
               add(mul(o, extentBytes(k, n)), mul(off, i64c(c.unitBytes))));
  };
  auto stageBlock = [&](size_t k, Value o) {
    const Chunked &c = chunkOf(k);
    return gep(stageOf(k),
               mul(o, i64c((chunk * c.scale + c.offset) * c.rowBytes)));
  };
  // Stages input k's chunk: its rows, then up to `chunk` the last row
  // repeated (nothing to repeat for a full chunk) or, for a padded symbol,
  // zeros (the code masks them; there may be no last row).
  auto stageInput = [&](size_t k) {
    const Chunked &c = chunkOf(k);
    Value unit = i64c(c.unitBytes);
    loop(i64c(0), i64c(c.outer), [&](Value o) {
      Value src = callerBlock(k, o), dst = stageBlock(k, o);
      Value copied = extentBytes(k, rows);
      LLVM::MemcpyOp::create(b, loc, dst, src, copied, /*isVolatile=*/false);
      if (symbol->padded) {
        Value rest =
            LLVM::SubOp::create(b, loc, extentBytes(k, i64c(chunk)), copied);
        LLVM::MemsetOp::create(b, loc, gep(dst, copied),
                               LLVM::ConstantOp::create(b, loc, b.getI8Type(),
                                                        b.getI8IntegerAttr(0)),
                               rest, /*isVolatile=*/false);
        return;
      }
      Value last =
          gep(src, mul(LLVM::SubOp::create(b, loc, rows, i64c(1)), unit));
      loop(rows, i64c(chunk), [&](Value r) {
        LLVM::MemcpyOp::create(b, loc, gep(dst, mul(r, unit)), last, unit,
                               /*isVolatile=*/false);
      });
    });
  };
  // Strided tensors go through the workspace for every chunk.
  for (size_t k = 0; k < nIn; ++k)
    if (chunkOf(k).dim >= 0 && chunkOf(k).outer > 1)
      stageInput(k);
  LLVM::CondBrOp::create(b, loc, full, callBB, ValueRange{full}, partialBB,
                         ValueRange{});
  // The last, partial chunk: stage the contiguous inputs too.
  b.setInsertionPointToStart(partialBB);
  for (size_t k = 0; k < nIn; ++k)
    if (chunkOf(k).dim >= 0 && chunkOf(k).outer == 1)
      stageInput(k);
  LLVM::BrOp::create(b, loc, ValueRange{full}, callBB);

  // The call, on the slices or the staging copies.
  b.setInsertionPointToStart(callBB);
  Value isFull = callBB->getArgument(0);
  SmallVector<Value> args;
  for (size_t k = 0; k < pointers.size(); ++k) {
    if (k == nIn && valueSlot)
      args.push_back(valueSlot);
    const Chunked &c = chunkOf(k);
    if (c.dim < 0)
      args.push_back(pointers[k]);
    else if (c.outer > 1)
      args.push_back(stageOf(k));
    else
      args.push_back(LLVM::SelectOp::create(
          b, loc, isFull, callerBlock(k, i64c(0)), stageOf(k)));
  }
  if (coreWorkspace)
    args.push_back(workspace);
  if (passStatus)
    args.push_back(status);
  LLVM::CallOp::create(b, loc, impl, args);
  Value code = passStatus ? Value(LLVM::LoadOp::create(b, loc, i32, status))
                          : constant(i32, 0);
  LLVM::CondBrOp::create(b, loc,
                         icmp(LLVM::ICmpPredicate::ne, code, constant(i32, 0)),
                         exit, ValueRange{code}, afterBB, ValueRange{});
  // Outputs back: strided ones always, contiguous ones from a partial chunk.
  auto unstage = [&](size_t k) {
    const Chunked &c = chunkOf(k);
    loop(i64c(0), i64c(c.outer), [&](Value o) {
      LLVM::MemcpyOp::create(b, loc, callerBlock(k, o), stageBlock(k, o),
                             extentBytes(k, rows), /*isVolatile=*/false);
    });
  };
  b.setInsertionPointToStart(afterBB);
  for (size_t k = nIn; k < pointers.size(); ++k)
    if (chunkOf(k).dim >= 0 && chunkOf(k).outer > 1)
      unstage(k);
  LLVM::CondBrOp::create(b, loc, isFull, nextBB, copyBackBB);
  b.setInsertionPointToStart(copyBackBB);
  for (size_t k = nIn; k < pointers.size(); ++k)
    if (chunkOf(k).dim >= 0 && chunkOf(k).outer == 1)
      unstage(k);
  LLVM::BrOp::create(b, loc, nextBB);
  b.setInsertionPointToStart(nextBB);
  LLVM::BrOp::create(b, loc, ValueRange{add(off, i64c(chunk))}, headBB);
}

/// int32_t <prefix>_entry(void *const *inputs, void *const *outputs, void *ctx)
LogicalResult EntryPointLowering::buildEntry(LLVM::LLVMFuncOp impl,
                                             uint64_t workspaceSize,
                                             bool checks) {
  size_t nIn = op.getInputs().size(), nOut = op.getOutputs().size();
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(module.getBody());
  entry = LLVM::LLVMFuncOp::create(
      b, loc, (op.getPrefix() + "_entry").str(),
      LLVM::LLVMFunctionType::get(i32, {ptrT, ptrT, ptrT}),
      LLVM::Linkage::Internal);
  Block *start = entry.addEntryBlock(b);
  Value inputs = start->getArgument(0), outputs = start->getArgument(1),
        ctxArg = start->getArgument(2);
  b.setInsertionPointToStart(start);
  SmallVector<Value> args;
  auto loadAll = [&](Value base, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      Value p = LLVM::GEPOp::create(b, loc, ptrT, ptrT, base,
                                    ArrayRef<LLVM::GEPArg>{(int32_t)i},
                                    LLVM::GEPNoWrapFlags::inbounds);
      args.push_back(LLVM::LoadOp::create(b, loc, ptrT, p));
    }
  };
  loadAll(inputs, nIn);
  loadAll(outputs, nOut);
  Value null = LLVM::ZeroOp::create(b, loc, ptrT);
  auto isNull = [&](Value p) {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, p, null);
  };

  // A multi-threaded model: ctx (hodu_run_context) carries the thread budget
  // of this run. omp_set_num_threads affects only the calling thread, so
  // concurrent runs with different budgets do not interfere.
  bool openmp = false;
  module.walk([&](omp::ParallelOp) {
    openmp = true;
    return WalkResult::interrupt();
  });
  if (openmp) {
    Block *haveCtx = newBlock(), *setBB = newBlock(), *runBB = newBlock();
    LLVM::CondBrOp::create(b, loc, isNull(ctxArg), runBB, haveCtx);
    b.setInsertionPointToStart(haveCtx);
    Value threads =
        loadAt(i32, ctxArg, offsetof(hodu_run_context, num_threads));
    LLVM::CondBrOp::create(b, loc,
                           LLVM::ICmpOp::create(b, loc,
                                                LLVM::ICmpPredicate::sgt,
                                                threads, constant(i32, 0)),
                           setBB, runBB);
    b.setInsertionPointToStart(setBB);
    auto setThreads =
        declare("omp_set_num_threads", LLVM::LLVMVoidType::get(ctx), {i32});
    LLVM::CallOp::create(b, loc, setThreads, ValueRange{threads});
    LLVM::BrOp::create(b, loc, runBB);
    b.setInsertionPointToStart(runBB);
  }

  Value owned, workspace;
  if (workspaceSize) {
    // The run's scratch: ctx->workspace when the caller gives one that is
    // large enough (present when struct_size covers workspace_size), else
    // our own for this run.
    Block *checkBB = newBlock(), *fieldsBB = newBlock(), *useBB = newBlock(),
          *allocBB = newBlock(), *failBB = newBlock(),
          *callBB = newBlock({ptrT, ptrT});
    LLVM::CondBrOp::create(b, loc, isNull(ctxArg), allocBB, checkBB);
    b.setInsertionPointToStart(checkBB);
    Value structSize = LLVM::LoadOp::create(b, loc, i32, ctxArg);
    constexpr int64_t kWorkspaceFieldsEnd =
        offsetof(hodu_run_context, workspace_size) +
        sizeof(hodu_run_context::workspace_size);
    LLVM::CondBrOp::create(
        b, loc,
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge, structSize,
                             constant(i32, kWorkspaceFieldsEnd)),
        fieldsBB, allocBB);
    b.setInsertionPointToStart(fieldsBB);
    Value given = loadAt(ptrT, ctxArg, offsetof(hodu_run_context, workspace));
    Value givenSize =
        loadAt(i64, ctxArg, offsetof(hodu_run_context, workspace_size));
    Value usable = LLVM::AndOp::create(
        b, loc,
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, given, null),
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge, givenSize,
                             constant(i64, workspaceSize)));
    LLVM::CondBrOp::create(b, loc, usable, useBB, allocBB);
    b.setInsertionPointToStart(useBB);
    LLVM::BrOp::create(b, loc, ValueRange{given, null}, callBB);
    b.setInsertionPointToStart(allocBB);
    auto alignedAlloc = declare("aligned_alloc", ptrT, {i64, i64});
    uint64_t rounded = (workspaceSize + HODU_WORKSPACE_ALIGNMENT - 1) /
                       HODU_WORKSPACE_ALIGNMENT * HODU_WORKSPACE_ALIGNMENT;
    Value own =
        LLVM::CallOp::create(b, loc, alignedAlloc,
                             ValueRange{constant(i64, HODU_WORKSPACE_ALIGNMENT),
                                        constant(i64, rounded)})
            .getResult();
    LLVM::CondBrOp::create(b, loc, isNull(own), failBB, ValueRange{}, callBB,
                           ValueRange{own, own});
    b.setInsertionPointToStart(failBB);
    LLVM::ReturnOp::create(b, loc, constant(i32, 1)); // out of memory
    b.setInsertionPointToStart(callBB);
    workspace = callBB->getArgument(0);
    owned = callBB->getArgument(1);
  }
  // The run's status word (hodu-lower-asserts): 0, or 2 + the index of
  // the first run-time check that failed.
  Value status;
  if (checks || symbol) {
    status = LLVM::AllocaOp::create(b, loc, ptrT, i32, constant(i64, 1),
                                    /*alignment=*/4);
    LLVM::StoreOp::create(b, loc, constant(i32, 0), status);
  }
  // One way out: free our own workspace, return the code.
  Block *exitBB = newBlock({i32});
  if (symbol) {
    buildChunkLoop(impl, args, workspace, status, checks, ctxArg, exitBB);
  } else {
    if (coreWorkspace)
      args.push_back(workspace);
    if (checks)
      args.push_back(status);
    LLVM::CallOp::create(b, loc, impl, args);
    LLVM::BrOp::create(
        b, loc,
        ValueRange{status ? Value(LLVM::LoadOp::create(b, loc, i32, status))
                          : constant(i32, 0)},
        exitBB);
  }
  b.setInsertionPointToStart(exitBB);
  if (owned) {
    auto freeFn = declare("free", LLVM::LLVMVoidType::get(ctx), {ptrT});
    LLVM::CallOp::create(b, loc, freeFn,
                         ValueRange{owned}); // free(NULL): no-op
  }
  LLVM::ReturnOp::create(b, loc, exitBB->getArgument(0));
  return success();
}

LogicalResult EntryPointLowering::lower(bool exportAlias) {
  std::string prefix = op.getPrefix().str();
  auto impl = module.lookupSymbol<LLVM::LLVMFuncOp>(op.getFunction());
  size_t nIn = op.getInputs().size(), nOut = op.getOutputs().size();
  uint64_t workspaceSize = 0;
  if (auto ws = module->getAttrOfType<IntegerAttr>("hodu.workspace_size"))
    workspaceSize = ws.getValue().getZExtValue();
  auto checks = module->getAttrOfType<ArrayAttr>("hodu.asserts");
  if (checks && !llvm::all_of(checks, llvm::IsaPred<StringAttr>))
    return op.emitError("hodu.asserts must list the checks' messages");
  size_t numChecks = checks ? checks.size() : 0;
  coreWorkspace = workspaceSize;
  if (failed(readSymbols()))
    return failure();
  SmallVector<std::string> messages;
  if (checks)
    for (Attribute m : checks)
      messages.push_back(cast<StringAttr>(m).getValue().str());
  if (symbol) {
    // Staging for the last chunk, after the model's own scratch.
    auto alignUp = [](uint64_t v) {
      return (v + HODU_WORKSPACE_ALIGNMENT - 1) / HODU_WORKSPACE_ALIGNMENT *
             HODU_WORKSPACE_ALIGNMENT;
    };
    uint64_t at = alignUp(coreWorkspace);
    for (auto *list : {&inputChunks, &outputChunks})
      for (const Chunked &c : *list) {
        stagingOffsets.push_back(c.dim < 0 ? ~uint64_t(0) : at);
        if (c.dim >= 0)
          at = alignUp(at + c.outer * (symbol->chunk * c.scale + c.offset) *
                                c.rowBytes);
      }
    workspaceSize = at;
    symbolCheck = messages.size();
    std::string bounds = std::to_string(symbol->min) + ".." +
                         (symbol->max >= 0 ? std::to_string(symbol->max) : "");
    messages.push_back(
        "symbol '" + symbol->name +
        "': the run gives no value, or one outside " + bounds +
        (symbol->multiple > 1
             ? " or not a multiple of " + std::to_string(symbol->multiple)
             : std::string()));
  }
  if (!impl || impl.isExternal() ||
      impl.getNumArguments() != nIn + nOut + (coreWorkspace != 0) +
                                    (numChecks != 0) +
                                    (symbol && symbol->padded) ||
      !isa<LLVM::LLVMVoidType>(impl.getFunctionType().getReturnType()) ||
      !llvm::all_of(impl.getArgumentTypes(),
                    llvm::IsaPred<LLVM::LLVMPointerType>)) {
    // A tensor without elements has no buffer to point to.
    for (auto [list, what] : {std::pair(op.getInputs(), "input"),
                              std::pair(op.getOutputs(), "output")})
      for (Attribute a : list) {
        auto dict = cast<DictionaryAttr>(a);
        auto type = cast<ShapedType>(dict.getAs<TypeAttr>("type").getValue());
        if (type.hasStaticShape() && type.getNumElements() == 0)
          return op.emitError()
                 << what << " '" << dict.getAs<StringAttr>("name").getValue()
                 << "' has no elements (" << type
                 << "); the artifact passes tensors of at "
                    "least one element";
      }
    return op.emitError("the lowered entry point does not take ")
           << nIn << " inputs and " << nOut
           << " outputs as pointers (the model may have dynamic shapes)";
  }
  SymbolTable symbols(module);
  if (failed(symbols.rename(impl, b.getStringAttr(prefix + "_main"))))
    return op.emitError("cannot rename the entry point to ")
           << prefix << "_main";

  tensorT = LLVM::LLVMStructType::getIdentified(ctx, "hodu_tensor_desc");
  if (!tensorT.isInitialized() &&
      failed(tensorT.setBody({ptrT, i32, i32, ptrT}, false)))
    return op.emitError("cannot define the hodu_tensor_desc type");
  modelT = LLVM::LLVMStructType::getIdentified(ctx, "hodu_model_desc");
  if (!modelT.isInitialized() &&
      failed(modelT.setBody({i32,  i32,  ptrT, ptrT, i32,  i32, ptrT,
                             ptrT, ptrT, i64,  i32,  ptrT, i32, ptrT,
                             i32,  ptrT, i32,  ptrT, i32,  ptrT},
                            false)))
    return op.emitError("cannot define the hodu_model_desc type");

  if (failed(buildEntry(impl, workspaceSize, numChecks != 0)))
    return failure();
  auto modelName = cString(op.getModelName(), prefix + "_model_name");
  auto targetName = cString(target, prefix + "_target");
  auto inputArray = tensorArray(op.getInputs(), "input");
  auto outputArray = tensorArray(op.getOutputs(), "output");

  // Meta slots (the inputs marked `meta`, always the last ones) and state
  // tensors (the inputs marked `state`, just before them), counted in
  // num_meta_slots and num_state_tensors, with their initial values (zeros
  // without `init`): a table of pointers each, or null when every one is
  // zeros.
  auto initTable = [&](StringRef role, StringRef what, int32_t &count,
                       LLVM::GlobalOp &table) -> LogicalResult {
    SmallVector<LLVM::GlobalOp> inits;
    for (Attribute attr : op.getInputs()) {
      auto dict = cast<DictionaryAttr>(attr);
      if (!dict.get(role))
        continue;
      LLVM::GlobalOp init;
      if (auto value = dict.getAs<ElementsAttr>("init")) {
        init = initGlobal(value, prefix + "_" + role.str() + "_init" +
                                     std::to_string(inits.size()));
        if (!init)
          return op.emitError(what)
                 << " '" << dict.getAs<StringAttr>("name").getValue()
                 << "': its initial value cannot be laid out as bytes";
      }
      inits.push_back(init);
    }
    count = (int32_t)inits.size();
    if (llvm::none_of(inits, [](LLVM::GlobalOp g) { return bool(g); }))
      return success();
    auto arrT = LLVM::LLVMArrayType::get(ptrT, inits.size());
    table = aggregate(arrT, prefix + "_" + role.str() + "_inits",
                      LLVM::Linkage::Internal, [&]() -> Value {
                        Value arr = LLVM::UndefOp::create(b, loc, arrT);
                        for (auto [i, g] : llvm::enumerate(inits))
                          arr = insert(
                              arr,
                              g ? addressOf(g)
                                : Value(LLVM::ZeroOp::create(b, loc, ptrT)),
                              i);
                        return arr;
                      });
    return success();
  };
  int32_t numMeta = 0, numState = 0;
  LLVM::GlobalOp metaInitArray, stateInitArray;
  if (failed(initTable("meta", "meta slot", numMeta, metaInitArray)) ||
      failed(initTable("state", "state tensor", numState, stateInitArray)))
    return failure();

  // The checks' messages, in the order of their codes.
  LLVM::GlobalOp checkArray;
  if (!messages.empty()) {
    SmallVector<LLVM::GlobalOp> strings;
    for (auto [k, m] : llvm::enumerate(messages))
      strings.push_back(cString(m, prefix + "_check" + Twine(k)));
    auto arrT = LLVM::LLVMArrayType::get(ptrT, strings.size());
    checkArray = aggregate(arrT, prefix + "_checks", LLVM::Linkage::Internal,
                           [&]() -> Value {
                             Value arr = LLVM::UndefOp::create(b, loc, arrT);
                             for (auto [i, g] : llvm::enumerate(strings))
                               arr = insert(arr, addressOf(g), i);
                             return arr;
                           });
  }
  LLVM::GlobalOp symbolArray, dynamicDimArray;
  if (symbol) {
    symbolArray = symbolTable();
    dynamicDimArray = dynamicDimTable();
  }
  int64_t numDynamicDims = 0;
  for (auto *list : {&inputChunks, &outputChunks})
    numDynamicDims +=
        llvm::count_if(*list, [](const Chunked &c) { return c.dim >= 0; });

  // Everything defined so far is internal: only descriptors are exported.
  for (auto f : module.getOps<LLVM::LLVMFuncOp>())
    if (!f.isExternal())
      f.setLinkage(LLVM::Linkage::Internal);
  for (auto g : module.getOps<LLVM::GlobalOp>())
    if (g.getValueOrNull() || !g.getInitializerRegion().empty())
      g.setLinkage(LLVM::Linkage::Internal);

  auto desc = aggregate(
      modelT, prefix + HODU_DESCRIPTOR_SUFFIX, LLVM::Linkage::External,
      [&]() -> Value {
        Value d = LLVM::UndefOp::create(b, loc, modelT);
        Value fields[] = {
            constant(i32, HODU_ABI_VERSION),
            constant(i32, sizeof(hodu_model_desc)),
            addressOf(modelName),
            addressOf(targetName),
            constant(i32, nIn),
            constant(i32, nOut),
            addressOf(inputArray),
            addressOf(outputArray),
            LLVM::AddressOfOp::create(b, loc, entry),
            constant(i64, workspaceSize),
            constant(i32, numMeta),
            metaInitArray ? addressOf(metaInitArray)
                          : Value(LLVM::ZeroOp::create(b, loc, ptrT)),
            constant(i32, (int64_t)messages.size()),
            checkArray ? addressOf(checkArray)
                       : Value(LLVM::ZeroOp::create(b, loc, ptrT)),
            constant(i32, symbol ? 1 : 0),
            symbolArray ? addressOf(symbolArray)
                        : Value(LLVM::ZeroOp::create(b, loc, ptrT)),
            constant(i32, numDynamicDims),
            dynamicDimArray ? addressOf(dynamicDimArray)
                            : Value(LLVM::ZeroOp::create(b, loc, ptrT)),
            constant(i32, numState),
            stateInitArray ? addressOf(stateInitArray)
                           : Value(LLVM::ZeroOp::create(b, loc, ptrT))};
        for (auto [i, v] : llvm::enumerate(fields))
          d = insert(d, v, i);
        return d;
      });
  if (exportAlias) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(module.getBody());
    auto alias = LLVM::AliasOp::create(b, loc, modelT, LLVM::Linkage::External,
                                       HODU_DESCRIPTOR_SYMBOL);
    b.setInsertionPointToStart(b.createBlock(&alias.getInitializerRegion()));
    LLVM::ReturnOp::create(b, loc, addressOf(desc));
  }
  op.erase();
  return success();
}

struct LowerEntryPointPass
    : hodu::impl::LowerEntryPointBase<LowerEntryPointPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto ops = llvm::to_vector(module.getOps<EntryPointOp>());
    if (ops.size() != 1) {
      module.emitError("expected one hodu.entry_point, found ") << ops.size();
      return signalPassFailure();
    }
    EntryPointLowering lowering(module, ops.front(), target);
    if (failed(lowering.lower(exportAlias)))
      signalPassFailure();
  }
};

} // namespace
