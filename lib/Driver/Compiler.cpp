//===- Compiler.cpp - the hoduc pipeline and artifact emission ------------===//
//
// import -> hodu -> linalg -> bufferized -> llvm (MLIR, in-process) -> LLVM IR
// -> optimised LLVM IR -> object code -> linked artifact. Nothing shells out
// except the final link of .so/executables, which runs ld.lld (LLVM 22).
//
//===----------------------------------------------------------------------===//

#include "hodu/Driver/Compiler.h"

#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Registry/Registry.h"
#include "hodu/Transforms/FusionGroups.h"
#include "hodu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <chrono>
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace hodu;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

std::optional<EmitKind> hodu::parseEmitKind(const std::string &name) {
  return llvm::StringSwitch<std::optional<EmitKind>>(name)
      .Case("mlir", EmitKind::Mlir)
      .Cases({"ll", "llvm"}, EmitKind::LLVMIR)
      .Cases({"bc", "bitcode"}, EmitKind::Bitcode)
      .Cases({"s", "asm"}, EmitKind::Assembly)
      .Cases({"o", "obj"}, EmitKind::Object)
      .Cases({"so", "shared"}, EmitKind::Shared)
      .Cases({"a", "static"}, EmitKind::Static)
      .Cases({"exe", "executable"}, EmitKind::Executable)
      .Default(std::nullopt);
}

std::optional<EmitKind> hodu::emitKindForPath(const std::string &path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  if (ext.empty())
    return std::nullopt;
  return parseEmitKind(ext.drop_front().str());
}

static constexpr const char *kPhaseNames[] = {"input", "hodu", "linalg",
                                              "bufferized", "llvm"};

std::optional<Phase> hodu::parsePhase(const std::string &name) {
  for (auto [i, n] : llvm::enumerate(kPhaseNames))
    if (name == n)
      return static_cast<Phase>(i);
  return std::nullopt;
}

const char *hodu::phaseName(Phase phase) {
  return kPhaseNames[static_cast<int>(phase)];
}

const char *hodu::phaseList() { return "input, hodu, linalg, bufferized, llvm"; }

std::string hodu::defaultModelName(const std::string &path) {
  std::string stem = llvm::sys::path::stem(path).str();
  std::string out;
  for (char c : stem)
    out += llvm::isAlnum(c) ? c : '_';
  if (out.empty() || llvm::isDigit(out[0]))
    out = "m_" + out;
  return out;
}

void hodu::registerCompilerDialects(DialectRegistry &registry) {
  registry.insert<HoduDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

//===----------------------------------------------------------------------===//
// The model's signature, recorded before lowering erases dtypes
//===----------------------------------------------------------------------===//

namespace {
struct TensorSig {
  std::string name;
  int32_t dtype;
  SmallVector<int64_t> shape;
};
struct ModelSig {
  std::string modelName;
  std::vector<TensorSig> inputs, outputs;
  /// Bytes of scratch @main takes as an extra last argument (the arena of
  /// hodu-plan-memory, `hodu.workspace_size` on the module); 0 = none.
  uint64_t workspaceSize = 0;
};

/// Upstream Hodu's DType numbering (runtime/include/hodu/abi.h).
std::optional<int32_t> hoduDType(Type t) {
  if (t.isInteger(1))
    return 0;
  if (isa<Float8E4M3FNType>(t))
    return 1;
  if (isa<Float8E5M2Type>(t))
    return 2;
  if (t.isBF16())
    return 3;
  if (t.isF16())
    return 4;
  if (t.isF32())
    return 5;
  if (t.isF64())
    return 6;
  if (auto i = dyn_cast<IntegerType>(t)) {
    int idx = llvm::Log2_32(i.getWidth()) - 3; // 8->0 ... 64->3
    if (i.getWidth() < 8 || i.getWidth() > 64 || !llvm::isPowerOf2_32(i.getWidth()))
      return std::nullopt;
    return i.isUnsigned() ? 7 + idx : 11 + idx;
  }
  return std::nullopt;
}

func::FuncOp findEntry(ModuleOp module) {
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    return main;
  func::FuncOp only;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isPrivate() || f.isExternal())
      continue;
    if (only)
      return {};
    only = f;
  }
  return only;
}

FailureOr<ModelSig> recordSignature(ModuleOp module, StringRef fallbackName) {
  func::FuncOp entry = findEntry(module);
  if (!entry)
    return module.emitError("expected one public function (named @main) as the "
                            "model entry point");
  ModelSig sig;
  if (auto n = module->getAttrOfType<StringAttr>("hodu.model_name"))
    sig.modelName = n.str();
  else
    sig.modelName = fallbackName.str();
  auto record = [&](Type t, DictionaryAttr attrs, std::string fallback,
                    std::vector<TensorSig> &out) -> LogicalResult {
    std::string name = fallback;
    if (attrs)
      if (auto n = attrs.getAs<StringAttr>("hodu.name"))
        name = n.str();
    auto tt = dyn_cast<RankedTensorType>(t);
    if (!tt || !tt.hasStaticShape())
      return entry.emitError("entry point ")
             << name << " has type " << t
             << "; the CPU backend needs tensors with static shapes (pin "
                "dynamic dims with --input-shape)";
    auto dtype = hoduDType(tt.getElementType());
    if (!dtype)
      return entry.emitError("entry point ")
             << name << " has unsupported element type "
             << tt.getElementType();
    out.push_back({name, *dtype, SmallVector<int64_t>(tt.getShape())});
    return success();
  };
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    if (failed(record(entry.getArgumentTypes()[i], entry.getArgAttrDict(i),
                      "input_" + std::to_string(i), sig.inputs)))
      return failure();
  for (unsigned i = 0; i < entry.getNumResults(); ++i)
    if (failed(record(entry.getResultTypes()[i], entry.getResultAttrDict(i),
                      "output_" + std::to_string(i), sig.outputs)))
      return failure();
  if (entry.getSymName() != "main")
    entry.setSymName("main");
  // The names now live in the signature; LLVM translation has no use for them.
  auto nameAttr = StringAttr::get(module.getContext(), "hodu.name");
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    entry.removeArgAttr(i, nameAttr);
  for (unsigned i = 0; i < entry.getNumResults(); ++i)
    entry.removeResultAttr(i, nameAttr);
  return sig;
}

//===----------------------------------------------------------------------===//
// MLIR phases
//===----------------------------------------------------------------------===//

/// Pass pipelines per phase. Strings rather than create*() calls so that
/// every step is also reproducible with `hodu-opt`; note the pipeline is
/// given without a `builtin.module(...)` anchor (see the feasibility notes).
std::string phasePipeline(Phase phase, unsigned optLevel) {
  switch (phase) {
  case Phase::Input:
    return "";
  case Phase::Hodu:
    // Constant evaluation (weights transposed, BatchNorm folded into conv
    // weights, ...) at -O1 and up.
    return optLevel >= 1 ? "canonicalize,hodu-fold-constants,canonicalize,cse"
                         : "canonicalize,cse";
  case Phase::Linalg: {
    std::string p = "canonicalize";
    if (PassInfo::lookup("convert-hodu-to-linalg"))
      p = "convert-hodu-to-linalg," + p;
    // Vectorise matmuls and convolutions before elementwise fusion: its
    // reshape propagation would otherwise fold reshapes into the named
    // matmuls and turn them into generics the vectoriser does not take.
    if (optLevel >= 2)
      p += ",hodu-cpu-vectorize,canonicalize";
    if (optLevel >= 1)
      p += ",func.func(linalg-fuse-elementwise-ops),canonicalize,cse";
    // Fused elementwise/pooling kernels run on all cores too.
    // Then the remaining elementwise/reduction kernels (and the tiles of
    // those forall loops) become vector code.
    if (optLevel >= 2)
      p += ",hodu-cpu-parallelize,canonicalize,hodu-cpu-vectorize-generics,"
           "canonicalize,cse";
    return p;
  }
  case Phase::Bufferized:
    return "eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries "
           "function-boundary-type-conversion=identity-layout-map},"
           "buffer-results-to-out-params{hoist-static-allocs "
           "modify-public-functions},"
           "canonicalize,buffer-deallocation-pipeline,canonicalize,"
           "convert-bufferization-to-memref," +
           // Intermediate buffers share one arena per call, reused by
           // liveness (the deallocation pipeline frees them all at the end).
           std::string(optLevel >= 1
                           ? "canonicalize,func.func(hodu-plan-memory),"
                           : "") +
           // Parallel tile loops run on OpenMP threads.
           "scf-forall-to-parallel,convert-scf-to-openmp";
  case Phase::LLVM:
    // expand-strided-metadata creates affine.apply ops: before lower-affine.
    // Memrefs go to LLVM before scf-to-cf: the memref.alloca_scope that
    // convert-scf-to-openmp puts in each parallel body must still hold a
    // single block when it is lowered.
    // The bare-pointer function conversion must come before the OpenMP
    // conversion, which would otherwise convert @main with memref descriptors.
    // Stride-2 vector reads (pooling windows) become contiguous loads plus
    // a deinterleave at -O2, before transfers are unrolled into scalars.
    return std::string("func.func(convert-linalg-to-loops),") +
           (optLevel >= 2 ? "func.func(hodu-cpu-strided-reads)," : "") +
           "convert-vector-to-scf{full-unroll},expand-strided-metadata,"
           "lower-affine,convert-math-to-llvm,convert-math-to-libm,"
           "func.func(arith-expand),finalize-memref-to-llvm,"
           "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
           "convert-scf-to-cf,convert-vector-to-llvm{reassociate-fp-reductions},"
           "convert-ub-to-llvm,"
           "convert-openmp-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,"
           "convert-index-to-llvm,"
           "reconcile-unrealized-casts";
  }
  llvm_unreachable("unknown phase");
}

/// The entry point's arena (hodu-plan-memory's `hodu.arena` alloc) becomes
/// a trailing argument, the run's workspace that the entry wrapper passes in
/// (the caller's, kept across runs, or one allocated for the run), and the
/// module records its size as `hodu.workspace_size`.
void arenaToWorkspace(ModuleOp module) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main || main.isExternal() || !main.getBody().hasOneBlock())
    return;
  memref::AllocOp arena;
  for (auto alloc : main.getBody().front().getOps<memref::AllocOp>())
    if (alloc->hasAttr("hodu.arena"))
      arena = alloc;
  // The ABI promises 64-byte alignment, no more.
  if (!arena || arena.getAlignment().value_or(1) > 64)
    return;
  for (Operation *user : llvm::make_early_inc_range(arena->getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  unsigned index = main.getNumArguments();
  if (failed(main.insertArgument(index, arena.getType(), {}, arena.getLoc())))
    return;
  arena.replaceAllUsesWith(main.getArgument(index));
  module->setAttr("hodu.workspace_size",
                  IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                                   arena.getType().getNumElements()));
  arena.erase();
}

LogicalResult runPhase(ModuleOp module, Phase phase, unsigned optLevel) {
  std::string pipeline = phasePipeline(phase, optLevel);
  if (pipeline.empty())
    return success();
  PassManager pm(module->getName());
  std::string errors;
  llvm::raw_string_ostream es(errors);
  if (failed(parsePassPipeline(pipeline, pm, es)))
    return module.emitError("internal error: bad pipeline for phase '")
           << phaseName(phase) << "': " << errors;
  if (failed(pm.run(module)))
    return module.emitError("compilation failed in phase '")
           << phaseName(phase) << "'";
  if (phase == Phase::Bufferized) {
    arenaToWorkspace(module);
    // Strided memref.copy lowers to a call to `memrefCopy` from MLIR's runner
    // utilities, which artifacts must not depend on: copy with loops instead.
    module.walk([](memref::CopyOp copy) {
      auto identity = [](Value v) {
        return cast<MemRefType>(v.getType()).getLayout().isIdentity();
      };
      if (identity(copy.getSource()) && identity(copy.getTarget()))
        return;
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      copy.erase();
    });
  }
  if (phase == Phase::Linalg) {
    // Anything still in the hodu dialect has no lowering for this target.
    WalkResult r = module.walk([](Operation *op) {
      if (isa<HoduDialect>(op->getDialect())) {
        op->emitError("'") << op->getName()
                           << "' cannot be lowered for the CPU target";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LLVM: descriptor, entry wrapper, optimisation, code generation
//===----------------------------------------------------------------------===//

/// Adds `<prefix>_entry` and the descriptor globals (abi.h) to the module and
/// makes everything else internal.
LogicalResult addDescriptor(llvm::Module &m, const ModelSig &sig,
                            StringRef prefix, StringRef target, bool alias,
                            Location loc) {
  llvm::Function *impl = m.getFunction("main");
  size_t nIn = sig.inputs.size(), nOut = sig.outputs.size();
  bool workspace = sig.workspaceSize != 0;
  if (!impl || impl->arg_size() != nIn + nOut + workspace ||
      !impl->getReturnType()->isVoidTy())
    return emitError(loc, "internal error: lowered entry point does not take ")
           << nIn << " inputs and " << nOut
           << " outputs as pointers (the model may have dynamic shapes)";
  impl->setName((prefix + "_main").str());

  llvm::LLVMContext &ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  auto *ptrT = llvm::PointerType::getUnqual(ctx);
  auto *i32 = b.getInt32Ty();
  auto *i64 = b.getInt64Ty();

  // int32_t <prefix>_entry(void *const *inputs, void *const *outputs, void *ctx)
  auto *entryT = llvm::FunctionType::get(i32, {ptrT, ptrT, ptrT}, false);
  auto *entry = llvm::Function::Create(entryT, llvm::GlobalValue::InternalLinkage,
                                       (prefix + "_entry").str(), m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", entry));
  SmallVector<llvm::Value *> args;
  auto loadAll = [&](llvm::Value *base, size_t n) {
    for (size_t i = 0; i < n; ++i)
      args.push_back(b.CreateLoad(
          ptrT, b.CreateConstInBoundsGEP1_64(ptrT, base, i)));
  };
  loadAll(entry->getArg(0), nIn);
  loadAll(entry->getArg(1), nOut);
  if (m.getFunction("__kmpc_fork_call")) {
    // A multi-threaded model: ctx (hodu_run_context, abi.h) carries the thread
    // budget of this run. omp_set_num_threads affects only the calling thread,
    // so concurrent runs with different budgets do not interfere.
    llvm::Value *ctxArg = entry->getArg(2);
    auto *setBB = llvm::BasicBlock::Create(ctx, "set_threads", entry);
    auto *runBB = llvm::BasicBlock::Create(ctx, "run", entry);
    auto *haveCtx = llvm::BasicBlock::Create(ctx, "have_ctx", entry);
    b.CreateCondBr(b.CreateIsNull(ctxArg), runBB, haveCtx);
    b.SetInsertPoint(haveCtx);
    llvm::Value *threads = b.CreateLoad(
        i32, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), ctxArg, 4));
    b.CreateCondBr(b.CreateICmpSGT(threads, b.getInt32(0)), setBB, runBB);
    b.SetInsertPoint(setBB);
    llvm::FunctionCallee setThreads = m.getOrInsertFunction(
        "omp_set_num_threads", llvm::FunctionType::get(b.getVoidTy(), {i32}, false));
    b.CreateCall(setThreads, {threads});
    b.CreateBr(runBB);
    b.SetInsertPoint(runBB);
  }
  llvm::Value *ownWorkspace = nullptr;
  if (workspace) {
    // The run's scratch: ctx->workspace when the caller gives one that is
    // large enough (hodu_run_context, abi.h: workspace at offset 8, its size
    // at 16, both present when struct_size >= 24), else our own for this run.
    llvm::Value *ctxArg = entry->getArg(2);
    llvm::Value *needed = b.getInt64(sig.workspaceSize);
    auto *checkBB = llvm::BasicBlock::Create(ctx, "ws_check", entry);
    auto *fieldsBB = llvm::BasicBlock::Create(ctx, "ws_fields", entry);
    auto *useBB = llvm::BasicBlock::Create(ctx, "ws_given", entry);
    auto *allocBB = llvm::BasicBlock::Create(ctx, "ws_alloc", entry);
    auto *failBB = llvm::BasicBlock::Create(ctx, "ws_fail", entry);
    auto *callBB = llvm::BasicBlock::Create(ctx, "call", entry);
    b.CreateCondBr(b.CreateIsNull(ctxArg), allocBB, checkBB);
    b.SetInsertPoint(checkBB);
    llvm::Value *structSize = b.CreateLoad(i32, ctxArg);
    b.CreateCondBr(b.CreateICmpUGE(structSize, b.getInt32(24)), fieldsBB,
                   allocBB);
    b.SetInsertPoint(fieldsBB);
    llvm::Value *given = b.CreateLoad(
        ptrT, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), ctxArg, 8));
    llvm::Value *givenSize = b.CreateLoad(
        i64, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), ctxArg, 16));
    b.CreateCondBr(b.CreateAnd(b.CreateIsNotNull(given),
                               b.CreateICmpUGE(givenSize, needed)),
                   useBB, allocBB);
    b.SetInsertPoint(useBB);
    b.CreateBr(callBB);
    b.SetInsertPoint(allocBB);
    llvm::FunctionCallee alignedAlloc = m.getOrInsertFunction(
        "aligned_alloc", llvm::FunctionType::get(ptrT, {i64, i64}, false));
    uint64_t rounded = (sig.workspaceSize + 63) / 64 * 64;
    llvm::Value *own =
        b.CreateCall(alignedAlloc, {b.getInt64(64), b.getInt64(rounded)});
    b.CreateCondBr(b.CreateIsNull(own), failBB, callBB);
    b.SetInsertPoint(failBB);
    b.CreateRet(b.getInt32(1)); // out of memory: nothing was run
    b.SetInsertPoint(callBB);
    auto *ws = b.CreatePHI(ptrT, 2, "workspace");
    ws->addIncoming(given, useBB);
    ws->addIncoming(own, allocBB);
    auto *owned = b.CreatePHI(ptrT, 2, "owned");
    owned->addIncoming(llvm::ConstantPointerNull::get(ptrT), useBB);
    owned->addIncoming(own, allocBB);
    args.push_back(ws);
    ownWorkspace = owned;
  }
  b.CreateCall(impl, args);
  if (ownWorkspace) {
    llvm::FunctionCallee freeFn = m.getOrInsertFunction(
        "free", llvm::FunctionType::get(b.getVoidTy(), {ptrT}, false));
    b.CreateCall(freeFn, {ownWorkspace}); // free(NULL) is a no-op
  }
  b.CreateRet(b.getInt32(0));

  auto cstring = [&](StringRef s, const Twine &name) -> llvm::Constant * {
    return b.CreateGlobalString(s, name, 0, &m);
  };
  auto *tensorT = llvm::StructType::create(ctx, {ptrT, i32, i32, ptrT},
                                           "hodu_tensor_desc");
  auto tensorArray = [&](const std::vector<TensorSig> &ts,
                         StringRef kind) -> llvm::Constant * {
    SmallVector<llvm::Constant *> elems;
    for (auto [i, t] : llvm::enumerate(ts)) {
      SmallVector<llvm::Constant *> dims;
      for (int64_t d : t.shape)
        dims.push_back(llvm::ConstantInt::get(i64, d));
      auto *dimsT = llvm::ArrayType::get(i64, dims.size());
      auto *shape = new llvm::GlobalVariable(
          m, dimsT, true, llvm::GlobalValue::PrivateLinkage,
          llvm::ConstantArray::get(dimsT, dims),
          (prefix + "_" + kind + "_shape" + Twine(i)).str());
      elems.push_back(llvm::ConstantStruct::get(
          tensorT, {cstring(t.name, prefix + "_" + kind + "_name" + Twine(i)),
                    llvm::ConstantInt::get(i32, t.dtype),
                    llvm::ConstantInt::get(i32, t.shape.size()), shape}));
    }
    auto *arrT = llvm::ArrayType::get(tensorT, elems.size());
    return new llvm::GlobalVariable(m, arrT, true,
                                    llvm::GlobalValue::PrivateLinkage,
                                    llvm::ConstantArray::get(arrT, elems),
                                    (prefix + "_" + kind + "s").str());
  };
  auto *modelT = llvm::StructType::create(
      ctx, {i32, i32, ptrT, ptrT, i32, i32, ptrT, ptrT, ptrT, i64},
      "hodu_model_desc");
  uint64_t size = m.getDataLayout().getTypeAllocSize(modelT);
  auto *init = llvm::ConstantStruct::get(
      modelT, {llvm::ConstantInt::get(i32, 1 /*HODU_ABI_VERSION*/),
               llvm::ConstantInt::get(i32, size),
               cstring(sig.modelName, prefix + "_model_name"),
               cstring(target, prefix + "_target"),
               llvm::ConstantInt::get(i32, nIn), llvm::ConstantInt::get(i32, nOut),
               tensorArray(sig.inputs, "input"),
               tensorArray(sig.outputs, "output"), entry,
               llvm::ConstantInt::get(i64, sig.workspaceSize)});

  // Internalise everything we defined so far: only descriptors are exported.
  for (llvm::Function &f : m.functions())
    if (!f.isDeclaration())
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &g : m.globals())
    if (!g.isDeclaration())
      g.setLinkage(llvm::GlobalValue::InternalLinkage);

  auto *desc = new llvm::GlobalVariable(
      m, modelT, true, llvm::GlobalValue::ExternalLinkage, init,
      (prefix + "_hodu_descriptor").str());
  if (alias)
    llvm::GlobalAlias::create(llvm::GlobalValue::ExternalLinkage,
                              "hodu_model_descriptor", desc);
  return success();
}

std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const CompileOptions &opts, Location loc) {
  static bool initialised = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
    return true;
  }();
  (void)initialised;
  bool host = opts.triple.empty();
  llvm::Triple triple(host ? llvm::sys::getDefaultTargetTriple()
                           : llvm::Triple::normalize(opts.triple));
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    emitError(loc, "unknown target triple '") << opts.triple << "': " << error;
    return nullptr;
  }
  std::string cpu = opts.cpu;
  std::string features = opts.features;
  if (cpu.empty() || cpu == "native" || cpu == "host") {
    if (host || cpu == "native" || cpu == "host") {
      cpu = llvm::sys::getHostCPUName().str();
      SmallVector<std::string> fs;
      for (auto &f : llvm::sys::getHostCPUFeatures())
        fs.push_back((f.second ? "+" : "-") + f.first().str());
      if (!features.empty())
        fs.push_back(features);
      features = llvm::join(fs, ",");
    } else {
      cpu = "generic";
    }
  }
  llvm::TargetOptions to;
  // Fuse multiplies and adds into FMAs, as ML runtimes do; -O0 keeps them apart.
  if (opts.optLevel >= 2)
    to.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  auto level = opts.optLevel == 0   ? llvm::CodeGenOptLevel::None
               : opts.optLevel == 1 ? llvm::CodeGenOptLevel::Less
               : opts.optLevel == 2 ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, to, llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm) {
    emitError(loc, "cannot create a target machine for '")
        << triple.str() << "' (cpu '" << cpu << "')";
    return nullptr;
  }
  if (!tm->getMCSubtargetInfo()->isCPUStringValid(cpu)) {
    emitError(loc, "unknown CPU '") << cpu << "' for " << triple.str();
    return nullptr;
  }
  return tm;
}

void optimize(llvm::Module &m, llvm::TargetMachine &tm, unsigned optLevel) {
  if (optLevel == 0)
    return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = optLevel >= 2;
  pto.SLPVectorization = optLevel >= 2;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel == 1   ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  pb.buildPerModuleDefaultPipeline(level).run(m, mam);
}

/// Writes to `path` through a temporary so that no half-written file is left.
struct AtomicOutput {
  std::string path, tmp;
  bool ok = false;
  explicit AtomicOutput(std::string p) : path(std::move(p)) {
    tmp = path + ".tmp-" + std::to_string(llvm::sys::Process::getProcessId());
  }
  ~AtomicOutput() {
    if (!ok)
      llvm::sys::fs::remove(tmp);
  }
  LogicalResult commit(Location loc) {
    if (auto ec = llvm::sys::fs::rename(tmp, path))
      return emitError(loc, "cannot write '") << path << "': " << ec.message();
    ok = true;
    return success();
  }
};

LogicalResult emitMachineCode(llvm::Module &m, llvm::TargetMachine &tm,
                              llvm::CodeGenFileType kind, StringRef path,
                              Location loc) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return emitError(loc, "cannot open '") << path << "': " << ec.message();
  {
    // The pass manager owns the streamer: destroy it (flushing the asm
    // printer) before closing the file.
    llvm::legacy::PassManager pm;
    if (tm.addPassesToEmitFile(pm, os, nullptr, kind))
      return emitError(loc, "the target cannot emit this file type");
    pm.run(m);
  }
  os.close();
  if (os.has_error())
    return emitError(loc, "error writing '") << path << "'";
  return success();
}

std::optional<std::string> findTool(ArrayRef<StringRef> names) {
  SmallVector<StringRef> dirs = {"/usr/lib/llvm-22/bin", "/usr/bin"};
  for (StringRef n : names) {
    if (auto p = llvm::sys::findProgramByName(n))
      return *p;
    if (auto p = llvm::sys::findProgramByName(n, dirs))
      return *p;
  }
  return std::nullopt;
}

LogicalResult runTool(StringRef tool, ArrayRef<std::string> argv, Location loc) {
  SmallVector<StringRef> args;
  for (auto &a : argv)
    args.push_back(a);
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(tool, args, std::nullopt, {}, 0, 0, &err);
  if (rc != 0)
    return emitError(loc, "'") << tool << "' failed (exit " << rc << ")"
                               << (err.empty() ? "" : ": ") << err;
  return success();
}

LogicalResult linkShared(StringRef object, StringRef out, bool hostLibs,
                         Location loc) {
  auto lld = findTool({"ld.lld-22", "ld.lld"});
  if (!lld)
    return emitError(loc, "linking a shared library needs ld.lld from LLVM 22, "
                          "which was not found; install it with: apt-get "
                          "install lld-22");
  std::vector<std::string> argv = {*lld, "-shared", "--hash-style=gnu",
                                   "-z", "noexecstack", "--as-needed",
                                   "-o", out.str(), object.str()};
  if (hostLibs) {
    // Maths from libm (expf, erff, ...), memory from libc.
    for (const char *dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                            "/lib64", "/usr/lib64", "/lib", "/usr/lib"})
      if (llvm::sys::fs::is_directory(dir))
        argv.push_back(std::string("-L") + dir);
    argv.push_back("-lm");
    argv.push_back("-lc");
  }
  // Multi-threaded models call the OpenMP runtime (LLVM's libomp).
  argv.push_back("-L" HODU_LLVM_LIBDIR);
  argv.push_back("-rpath=" HODU_LLVM_LIBDIR);
  argv.push_back("-lomp");
  return runTool(*lld, argv, loc);
}

/// Links an executable from the model object and hoduc's prebuilt main()
/// (lib/Driver/ExeMain). A C compiler driver supplies the C start-up files.
LogicalResult linkExecutable(StringRef object, StringRef out, Location loc) {
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable("hoduc", &anchor);
  SmallString<256> mainObj(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(self)));
  llvm::sys::path::append(mainObj, "lib", "hodu", "hodu_exe_main.o");
  if (!llvm::sys::fs::exists(mainObj))
    return emitError(loc, "cannot find hoduc's executable driver at '")
           << mainObj << "' (is the installation complete?)";
  auto cc = findTool({"cc", "clang-22", "clang", "gcc"});
  if (!cc)
    return emitError(loc, "linking an executable needs a C compiler driver (cc, "
                          "clang-22 or gcc) for the C start-up files; install "
                          "one with: apt-get install clang-22");
  return runTool(*cc, {*cc, "-o", out.str(), object.str(), mainObj.str().str(),
                       "-L" HODU_LLVM_LIBDIR, "-Wl,-rpath," HODU_LLVM_LIBDIR,
                       "-Wl,--as-needed", "-lomp", "-lm"},
                 loc);
}

LogicalResult writeArchive(StringRef object, StringRef out, Location loc) {
  auto member = llvm::NewArchiveMember::getFile(object, /*Deterministic=*/true);
  if (!member)
    return emitError(loc, "cannot read object: ")
           << llvm::toString(member.takeError());
  member->MemberName = "model.o";
  if (auto err = llvm::writeArchive(out, {std::move(*member)},
                                    llvm::SymtabWritingMode::NormalSymtab,
                                    llvm::object::Archive::K_GNU,
                                    /*Deterministic=*/true, /*Thin=*/false))
    return emitError(loc, "cannot write archive: ")
           << llvm::toString(std::move(err));
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// The typed C header (hoduc --header)
//===----------------------------------------------------------------------===//

namespace {
const char *cTypeOf(int32_t dtype) {
  static const char *const types[] = {
      "uint8_t",  "uint8_t",  "uint8_t",  "uint16_t", "uint16_t",
      "float",    "double",   "uint8_t",  "uint16_t", "uint32_t",
      "uint64_t", "int8_t",   "int16_t",  "int32_t",  "int64_t"};
  return types[dtype];
}
const char *dtypeNameOf(int32_t dtype) {
  static const char *const names[] = {"bool", "f8e4m3", "f8e5m2", "bf16", "f16",
                                      "f32",  "f64",    "u8",     "u16",  "u32",
                                      "u64",  "i8",     "i16",    "i32",  "i64"};
  return names[dtype];
}

/// Parameter names: the tensor names made C identifiers, unique.
std::vector<std::string> cNames(const ModelSig &sig) {
  std::vector<std::string> names;
  llvm::StringSet<> seen;
  auto add = [&](const std::string &raw) {
    std::string n = defaultModelName(raw + ".x");
    std::string unique = n;
    for (int i = 2; !seen.insert(unique).second; ++i)
      unique = n + "_" + std::to_string(i);
    names.push_back(unique);
  };
  for (auto &t : sig.inputs)
    add(t.name);
  for (auto &t : sig.outputs)
    add(t.name);
  return names;
}

LogicalResult writeHeader(const ModelSig &sig, StringRef prefix,
                          StringRef source, StringRef path, Location loc) {
  std::string guard = llvm::StringRef(prefix).upper() + "_HODU_H";
  std::string text;
  llvm::raw_string_ostream os(text);
  auto shape = [](const TensorSig &t) {
    std::string s;
    for (int64_t d : t.shape)
      s += "[" + std::to_string(d) + "]";
    return s.empty() ? std::string("(scalar)") : s;
  };
  os << "/* Generated by hoduc from " << llvm::sys::path::filename(source)
     << ": model '" << sig.modelName << "'. Do not edit. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n#include <hodu/abi.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* The model's descriptor: names, dtypes, shapes and the entry point\n"
     << " * (see hodu/abi.h); hodu_model_from_descriptor() wraps it for libhodurt. */\n"
     << "extern const hodu_model_desc " << prefix << "_hodu_descriptor;\n\n";
  std::vector<std::string> names = cNames(sig);
  os << "/* Runs the model once on dense row-major buffers owned by the caller:\n";
  size_t k = 0;
  for (auto &t : sig.inputs)
    os << " *   in  " << names[k++] << ": '" << t.name << "' "
       << dtypeNameOf(t.dtype) << shape(t) << "\n";
  for (auto &t : sig.outputs)
    os << " *   out " << names[k++] << ": '" << t.name << "' "
       << dtypeNameOf(t.dtype) << shape(t) << "\n";
  os << " * Returns 0 on success. Reentrant: safe to call from several threads. */\n"
     << "static inline int32_t " << prefix << "_run(";
  k = 0;
  bool first = true;
  for (auto &t : sig.inputs) {
    os << (first ? "" : ", ") << "const " << cTypeOf(t.dtype) << " *" << names[k++];
    first = false;
  }
  for (auto &t : sig.outputs) {
    os << (first ? "" : ", ") << cTypeOf(t.dtype) << " *" << names[k++];
    first = false;
  }
  if (first)
    os << "void";
  os << ") {\n";
  k = 0;
  os << "  void *const inputs[] = {";
  for (size_t i = 0; i < sig.inputs.size(); ++i)
    os << (i ? ", " : "") << "(void *)" << names[k++];
  os << (sig.inputs.empty() ? "0" : "") << "};\n  void *const outputs[] = {";
  for (size_t i = 0; i < sig.outputs.size(); ++i)
    os << (i ? ", " : "") << "(void *)" << names[k++];
  os << (sig.outputs.empty() ? "0" : "") << "};\n"
     << "  return " << prefix << "_hodu_descriptor.entry(inputs, outputs, 0);\n}\n\n";
  auto countMacros = [&](const std::vector<TensorSig> &ts, StringRef kind) {
    for (auto [i, t] : llvm::enumerate(ts)) {
      int64_t n = 1;
      for (int64_t d : t.shape)
        n *= d;
      os << "#define " << llvm::StringRef(prefix).upper() << "_" << kind << i
         << "_ELEMENTS " << n << "\n";
    }
  };
  countMacros(sig.inputs, "INPUT");
  countMacros(sig.outputs, "OUTPUT");
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";

  AtomicOutput out(path.str());
  std::error_code ec;
  {
    llvm::raw_fd_ostream file(out.tmp, ec);
    if (ec)
      return emitError(loc, "cannot write '") << path << "': " << ec.message();
    file << text;
  }
  return out.commit(loc);
}
} // namespace

//===----------------------------------------------------------------------===//
// compile()
//===----------------------------------------------------------------------===//

static LogicalResult printModule(ModuleOp module, StringRef path, Location loc) {
  std::string err;
  auto file = mlir::openOutputFile(path, &err);
  if (!file)
    return emitError(loc, err);
  module.print(file->os());
  file->os() << "\n";
  file->keep();
  return success();
}

/// `hoduc --stats`: kernel counts without and with fusion groups, measured
/// on a copy of the module at the hodu phase (the CPU path does not need the
/// group marks; GPU targets will compile each group to one kernel).
static void printKernelStats(ModuleOp module) {
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  PassManager pm(module->getName());
  if (!PassInfo::lookup("hodu-form-fusion-groups") ||
      failed(parsePassPipeline("hodu-form-fusion-groups", pm)) ||
      failed(pm.run(*copy))) {
    llvm::errs() << "hoduc: stats: fusion groups unavailable\n";
    return;
  }
  FusionStats stats = computeFusionStats(*copy);
  llvm::errs() << "hoduc: stats: kernels: " << stats.opsBefore
               << " without fusion, " << stats.kernelsAfter << " with "
               << stats.groups << " fusion groups (" << stats.groupedOps
               << " ops grouped)\n";
}

/// "9.4 MiB", "12.0 KiB", "300 B".
static std::string formatBytes(int64_t bytes) {
  if (bytes >= (1 << 20))
    return llvm::formatv("{0:f1} MiB", bytes / double(1 << 20)).str();
  if (bytes >= (1 << 10))
    return llvm::formatv("{0:f1} KiB", bytes / double(1 << 10)).str();
  return std::to_string(bytes) + " B";
}

/// `hoduc --stats`: what hodu-plan-memory recorded on each function.
static void printMemoryPlan(ModuleOp module) {
  int64_t buffers = 0, bufferBytes = 0, arenaBytes = 0, liveBytes = 0;
  module.walk([&](func::FuncOp func) {
    auto plan = func->getAttrOfType<DictionaryAttr>("hodu.memory_plan");
    if (!plan)
      return;
    auto get = [&](StringRef name) {
      auto v = plan.getAs<IntegerAttr>(name);
      return v ? v.getInt() : 0;
    };
    buffers += get("buffers");
    bufferBytes += get("buffer_bytes");
    arenaBytes += get("arena_bytes");
    liveBytes += get("live_bytes");
  });
  llvm::errs() << "hoduc: stats: memory plan: " << buffers << " buffers, "
               << formatBytes(bufferBytes) << " -> arena "
               << formatBytes(arenaBytes) << " (largest live set "
               << formatBytes(liveBytes) << ")\n";
}

static bool compileImpl(MLIRContext &context, const CompileOptions &opts) {
  auto start = std::chrono::steady_clock::now();
  auto lap = [&](const char *what) {
    if (!opts.stats)
      return;
    auto now = std::chrono::steady_clock::now();
    llvm::errs() << llvm::format("hoduc: stats: %-11s %8.1f ms\n", what,
                                 std::chrono::duration<double, std::milli>(
                                     now - start)
                                     .count());
    start = now;
  };
  Location loc = FileLineColLoc::get(&context, opts.inputPath, 0, 0);
  registerAllComponents();
  auto &registry = ComponentRegistry::get();

  if (!registry.findTarget(opts.target)) {
    std::string known;
    for (auto &t : registry.targets())
      known += (known.empty() ? "" : ", ") + t.name;
    emitError(loc, "unknown target '") << opts.target << "' (known: " << known
                                       << ")";
    return false;
  }
  if (!llvm::sys::fs::exists(opts.inputPath)) {
    emitError(loc, "no such file: '") << opts.inputPath << "'";
    return false;
  }
  const Importer *importer = registry.findImporterForPath(opts.inputPath);
  if (!importer) {
    std::string known;
    for (auto &i : registry.importers())
      for (auto &e : i.extensions)
        known += (known.empty() ? "" : ", ") + e;
    emitError(loc, "unknown model format for '")
        << opts.inputPath << "' (known extensions: " << known << ")";
    return false;
  }
  OwningOpRef<ModuleOp> module = importer->import(opts.inputPath, context, opts.import);
  if (!module)
    return false;
  if (failed(verify(*module)))
    return false;

  std::string prefix =
      opts.name.empty() ? defaultModelName(opts.inputPath) : opts.name;
  if (!module->getOperation()->hasAttr("hodu.model_name"))
    (*module)->setAttr("hodu.model_name", StringAttr::get(&context, prefix));

  // A phase to stop at: the last one for .mlir output, else as asked.
  bool mlirOut = opts.emit == EmitKind::Mlir || opts.compileTo.has_value();
  Phase stop = opts.compileTo.value_or(mlirOut ? Phase::Hodu : Phase::LLVM);

  FailureOr<ModelSig> sig = failure();
  lap("import");
  for (int p = 0; p <= static_cast<int>(stop); ++p) {
    Phase phase = static_cast<Phase>(p);
    if (failed(runPhase(*module, phase, opts.optLevel)))
      return false;
    lap(phaseName(phase));
    if (phase == Phase::Hodu && opts.stats) {
      printKernelStats(*module);
      start = std::chrono::steady_clock::now();
    }
    if (phase == Phase::Bufferized && opts.stats)
      printMemoryPlan(*module);
    if (phase == Phase::Hodu && !mlirOut) {
      sig = recordSignature(*module, prefix);
      if (failed(sig))
        return false;
    }
  }
  if (mlirOut) {
    std::string out = opts.outputPath.empty() ? "-" : opts.outputPath;
    return succeeded(printModule(*module, out, loc));
  }

  if (auto ws = (*module)->getAttrOfType<IntegerAttr>("hodu.workspace_size"))
    sig->workspaceSize = ws.getValue().getZExtValue();

  // MLIR LLVM dialect -> LLVM IR.
  llvm::LLVMContext llvmContext;
  auto llvmModule = translateModuleToLLVMIR(*module, llvmContext, prefix);
  if (!llvmModule) {
    emitError(loc, "translation to LLVM IR failed");
    return false;
  }
  auto tm = createTargetMachine(opts, loc);
  if (!tm)
    return false;
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(tm->getTargetTriple());
  if (!opts.headerPath.empty() &&
      failed(writeHeader(*sig, prefix, opts.inputPath, opts.headerPath, loc)))
    return false;
  bool selfContained =
      opts.emit == EmitKind::Shared || opts.emit == EmitKind::Executable;
  if (failed(addDescriptor(*llvmModule, *sig, prefix, opts.target,
                           selfContained, loc)))
    return false;
  if (llvm::verifyModule(*llvmModule, &llvm::errs())) {
    emitError(loc, "internal error: invalid LLVM IR");
    return false;
  }
  lap("translate");
  optimize(*llvmModule, *tm, opts.optLevel);
  lap("optimize");

  std::string outPath = opts.outputPath;
  AtomicOutput out(outPath);
  switch (opts.emit) {
  case EmitKind::LLVMIR:
  case EmitKind::Bitcode: {
    if (outPath == "-") {
      if (opts.emit == EmitKind::LLVMIR) {
        llvmModule->print(llvm::outs(), nullptr);
        return true;
      }
      emitError(loc, "refusing to write bitcode to stdout");
      return false;
    }
    std::error_code ec;
    llvm::raw_fd_ostream os(out.tmp, ec);
    if (ec) {
      emitError(loc, "cannot open '") << outPath << "': " << ec.message();
      return false;
    }
    if (opts.emit == EmitKind::LLVMIR)
      llvmModule->print(os, nullptr);
    else
      llvm::WriteBitcodeToFile(*llvmModule, os);
    os.close();
    return succeeded(out.commit(loc));
  }
  case EmitKind::Assembly:
    if (outPath == "-") {
      std::string tmp = out.tmp;
      if (failed(emitMachineCode(*llvmModule, *tm,
                                 llvm::CodeGenFileType::AssemblyFile, tmp, loc)))
        return false;
      auto buf = llvm::MemoryBuffer::getFile(tmp);
      if (buf)
        llvm::outs() << (*buf)->getBuffer();
      return true;
    }
    return succeeded(emitMachineCode(*llvmModule, *tm,
                                     llvm::CodeGenFileType::AssemblyFile,
                                     out.tmp, loc)) &&
           succeeded(out.commit(loc));
  case EmitKind::Object:
    return succeeded(emitMachineCode(*llvmModule, *tm,
                                     llvm::CodeGenFileType::ObjectFile, out.tmp,
                                     loc)) &&
           succeeded(out.commit(loc));
  case EmitKind::Shared:
  case EmitKind::Static:
  case EmitKind::Executable: {
    AtomicOutput obj(outPath + ".o");
    if (failed(emitMachineCode(*llvmModule, *tm,
                               llvm::CodeGenFileType::ObjectFile, obj.tmp, loc)))
      return false;
    LogicalResult linked =
        opts.emit == EmitKind::Shared
            ? linkShared(obj.tmp, out.tmp, opts.triple.empty(), loc)
        : opts.emit == EmitKind::Static
            ? writeArchive(obj.tmp, out.tmp, loc)
        : opts.triple.empty()
            ? linkExecutable(obj.tmp, out.tmp, loc)
            : emitError(loc, "executables can only be linked for the host; "
                             "use --emit=o or --emit=a with --target");
    return succeeded(linked) && succeeded(out.commit(loc));
  }
  case EmitKind::Mlir:
    break;
  }
  return false;
}

bool hodu::compile(MLIRContext &context, const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  bool ok = compileImpl(context, options);
  if (ok && options.stats) {
    uint64_t size = 0;
    if (options.outputPath != "-" && !llvm::sys::fs::file_size(options.outputPath, size))
      llvm::errs() << "hoduc: stats: artifact    " << size << " bytes\n";
    llvm::errs() << llvm::format(
        "hoduc: stats: total       %8.1f ms\n",
        std::chrono::duration<double, std::milli>(
            std::chrono::steady_clock::now() - start)
            .count());
  }
  return ok;
}
