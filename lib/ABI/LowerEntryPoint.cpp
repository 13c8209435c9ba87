//===- LowerEntryPoint.cpp - hodu.entry_point to the LLVM dialect ---------===//
//
// The model's descriptor and `hodu_entry_fn` wrapper (runtime/include/hodu/
// abi.h), built as LLVM dialect ops so that `--compile-to=llvm` shows them
// and `hodu-opt` replays the step (the model: onnx-mlir's
// KrnlToLLVM/KrnlEntryPoint.cpp). Layouts come from abi.h itself. The
// symbols' tables and the run over them are SymbolLoop.cpp's.
//
//===----------------------------------------------------------------------===//

#include "EntryPointLowering.h"

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
                  offsetof(hodu_model_desc, dynamic_dim_divisors) == 144 &&
                  sizeof(hodu_model_desc) == 152,
              "hodu_model_desc is {i32, i32, ptr, ptr, i32, i32, ptr, ptr, "
              "ptr, i64, i32, ptr, i32, ptr, i32, ptr, i32, ptr, i32, ptr, "
              "ptr}");
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

using hodu::abi::EntryPointLowering;

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
  if (checks || hasSymbols()) {
    status = LLVM::AllocaOp::create(b, loc, ptrT, i32, constant(i64, 1),
                                    /*alignment=*/4);
    LLVM::StoreOp::create(b, loc, constant(i32, 0), status);
  }
  // One way out: free our own workspace, return the code.
  Block *exitBB = newBlock({i32});
  if (hasSymbols()) {
    buildSymbolLoop(impl, args, workspace, status, checks, ctxArg, exitBB);
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
  if (hasSymbols())
    workspaceSize = planStaging(messages);
  if (!impl || impl.isExternal() ||
      impl.getNumArguments() !=
          nIn + nOut + (coreWorkspace != 0) + (numChecks != 0) + numPadded() ||
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
  SymbolTable table(module);
  if (failed(table.rename(impl, b.getStringAttr(prefix + "_main"))))
    return op.emitError("cannot rename the entry point to ")
           << prefix << "_main";

  tensorT = LLVM::LLVMStructType::getIdentified(ctx, "hodu_tensor_desc");
  if (!tensorT.isInitialized() &&
      failed(tensorT.setBody({ptrT, i32, i32, ptrT}, false)))
    return op.emitError("cannot define the hodu_tensor_desc type");
  modelT = LLVM::LLVMStructType::getIdentified(ctx, "hodu_model_desc");
  if (!modelT.isInitialized() &&
      failed(modelT.setBody({i32,  i32,  ptrT, ptrT, i32,  i32,  ptrT,
                             ptrT, ptrT, i64,  i32,  ptrT, i32,  ptrT,
                             i32,  ptrT, i32,  ptrT, i32,  ptrT, ptrT},
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
  LLVM::GlobalOp symbolArray, dynamicDimArray, divisorArray;
  if (hasSymbols()) {
    symbolArray = symbolTable();
    dynamicDimArray = dynamicDimTable();
    divisorArray = divisorTable();
  }
  int64_t numDynamicDims = 0;
  for (const TensorSymbols &t : tensorSymbols)
    numDynamicDims += t.count();

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
            // Version 3 only where it matters: a version 2 runtime loads
            // the rest.
            constant(i32, divisorArray ? 3 : 2),
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
            constant(i32, (int64_t)symbols.size()),
            symbolArray ? addressOf(symbolArray)
                        : Value(LLVM::ZeroOp::create(b, loc, ptrT)),
            constant(i32, numDynamicDims),
            dynamicDimArray ? addressOf(dynamicDimArray)
                            : Value(LLVM::ZeroOp::create(b, loc, ptrT)),
            constant(i32, numState),
            stateInitArray ? addressOf(stateInitArray)
                           : Value(LLVM::ZeroOp::create(b, loc, ptrT)),
            divisorArray ? addressOf(divisorArray)
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

namespace {

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
