//===- ThreadAPI.cpp - OpenMP runtime calls through libhodurt's table -----===//
//
// LLVM's OpenMP translation calls libomp's entry points by name. A shared
// library that libhodurt loads calls them through its exported table
// `hodu_thread_api` instead (abi.h), which libhodurt fills after loading it
// with its own thread teams (runtime/src/threads.c): the library then
// needs no libomp where it runs and binds no symbol of the host process.
// Until then the table holds the library's own one-thread versions (the
// whole loop to the one thread, barriers that return), and a fork whose
// slot is empty calls its region directly: a library loaded without
// libhodurt (dlopen and the descriptor's entry, as abi.h allows) runs on
// one thread instead of calling through an empty slot.
//
//===----------------------------------------------------------------------===//

#include "CPUTarget.h"

#include "hodu/abi.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace mlir;
using namespace hodu;

namespace {
struct Entry {
  const char *name;
  int index;
};
} // namespace

static constexpr Entry kEntries[] = {
    {"__kmpc_fork_call", HODU_THREAD_FORK_CALL},
    {"__kmpc_for_static_init_4", HODU_THREAD_STATIC_INIT_4},
    {"__kmpc_for_static_init_4u", HODU_THREAD_STATIC_INIT_4U},
    {"__kmpc_for_static_init_8", HODU_THREAD_STATIC_INIT_8},
    {"__kmpc_for_static_init_8u", HODU_THREAD_STATIC_INIT_8U},
    {"__kmpc_for_static_fini", HODU_THREAD_STATIC_FINI},
    {"__kmpc_barrier", HODU_THREAD_BARRIER},
    {"__kmpc_global_thread_num", HODU_THREAD_GLOBAL_THREAD_NUM},
    {"omp_set_num_threads", HODU_THREAD_SET_NUM_THREADS},
};
static_assert(std::size(kEntries) == HODU_THREAD_API_SIZE,
              "one entry per hodu_thread_api slot");

/// The one-thread version of slot `index` (not the fork, whose calls test
/// their slot), with the type of its libomp entry point `f`.
static llvm::Function *serialEntry(llvm::Module &module, int index,
                                   llvm::FunctionType *type) {
  llvm::LLVMContext &ctx = module.getContext();
  auto *fn = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                    "hodu_serial_" + llvm::Twine(index),
                                    module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  switch (index) {
  case HODU_THREAD_STATIC_INIT_4:
  case HODU_THREAD_STATIC_INIT_4U:
  case HODU_THREAD_STATIC_INIT_8:
  case HODU_THREAD_STATIC_INIT_8U: {
    // (loc, gtid, schedule, plast, plower, pupper, pstride, incr, chunk):
    // the one thread runs lower..upper, the last iteration included.
    llvm::Type *t = type->getParamType(7);
    b.CreateStore(b.getInt32(1), fn->getArg(3));
    llvm::Value *lower = b.CreateLoad(t, fn->getArg(4));
    llvm::Value *upper = b.CreateLoad(t, fn->getArg(5));
    b.CreateStore(b.CreateAdd(b.CreateSub(upper, lower),
                              llvm::ConstantInt::get(t, 1)),
                  fn->getArg(6));
    b.CreateRetVoid();
    break;
  }
  case HODU_THREAD_GLOBAL_THREAD_NUM:
    b.CreateRet(b.getInt32(0));
    break;
  default: // fini, barrier, omp_set_num_threads
    b.CreateRetVoid();
    break;
  }
  return fn;
}

/// The function in a table slot, loaded before `call`: filled once before
/// any run and never written again.
static llvm::LoadInst *loadSlot(llvm::CallBase *call, llvm::Value *slot,
                                const char *name) {
  llvm::IRBuilder<> b(call);
  llvm::LoadInst *callee = b.CreateLoad(b.getPtrTy(), slot, name);
  callee->setMetadata(llvm::LLVMContext::MD_invariant_load,
                      llvm::MDNode::get(call->getContext(), {}));
  return callee;
}

/// A fork call through the table: when the slot is empty (no libhodurt
/// filled it), the region runs directly on the calling thread.
static void routeFork(llvm::CallBase *call, llvm::Value *slot,
                      llvm::PointerType *ptr) {
  llvm::IRBuilder<> b(call);
  llvm::LoadInst *callee = loadSlot(call, slot, "__kmpc_fork_call");
  llvm::Instruction *thenTerm, *elseTerm;
  llvm::SplitBlockAndInsertIfThenElse(b.CreateIsNull(callee), call, &thenTerm,
                                      &elseTerm);
  // Serially: region(&tid, &tid, shared...) with thread number 0.
  llvm::Function *parent = call->getFunction();
  llvm::IRBuilder<> entry(&*parent->getEntryBlock().getFirstInsertionPt());
  llvm::AllocaInst *tid = entry.CreateAlloca(entry.getInt32Ty(), nullptr,
                                             "hodu.serial.tid");
  b.SetInsertPoint(thenTerm);
  b.CreateStore(b.getInt32(0), tid);
  SmallVector<llvm::Value *> args = {tid, tid};
  SmallVector<llvm::Type *> types = {ptr, ptr};
  for (unsigned i = 3; i < call->arg_size(); ++i) {
    args.push_back(call->getArgOperand(i));
    types.push_back(call->getArgOperand(i)->getType());
  }
  b.CreateCall(llvm::FunctionType::get(b.getVoidTy(), types, false),
               call->getArgOperand(2), args);
  call->moveBefore(elseTerm->getIterator());
  call->setCalledOperand(callee);
}

LogicalResult cpu::routeThreadCalls(llvm::Module &module, Location loc) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::PointerType *ptr = llvm::PointerType::getUnqual(ctx);
  llvm::ArrayType *tableType = llvm::ArrayType::get(ptr, HODU_THREAD_API_SIZE);
  // Every slot starts as the library's one-thread version, the fork's as
  // null; a slot without a libomp declaration here is never called.
  SmallVector<llvm::Constant *> init(HODU_THREAD_API_SIZE,
                                     llvm::ConstantPointerNull::get(ptr));
  SmallVector<std::pair<const Entry *, llvm::Function *>> used;
  for (const Entry &e : kEntries)
    if (llvm::Function *f = module.getFunction(e.name)) {
      if (!f->isDeclaration())
        return emitError(loc, "internal error: '")
               << e.name << "' is defined in the module";
      used.push_back({&e, f});
      if (e.index != HODU_THREAD_FORK_CALL)
        init[e.index] = serialEntry(module, e.index, f->getFunctionType());
    }
  if (used.empty())
    return success();
  auto *table = new llvm::GlobalVariable(
      module, tableType, /*isConstant=*/false,
      llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantArray::get(tableType, init), HODU_THREAD_API_SYMBOL);

  for (auto [e, f] : used) {
    for (llvm::User *user : llvm::make_early_inc_range(f->users())) {
      auto *call = llvm::dyn_cast<llvm::CallBase>(user);
      if (!call || call->getCalledOperand() != f || !llvm::isa<llvm::CallInst>(call))
        return emitError(loc, "internal error: '")
               << e->name << "' is used other than by a call";
      llvm::IRBuilder<> b(call);
      llvm::Value *slot =
          b.CreateConstInBoundsGEP2_32(tableType, table, 0, e->index);
      if (e->index == HODU_THREAD_FORK_CALL) {
        // libhodurt's fork passes at most 16 shared arguments (threads.c);
        // LLVM's translation passes one aggregate.
        auto *argc = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(1));
        if (!argc || argc->getZExtValue() > 16 ||
            call->arg_size() != 3 + argc->getZExtValue())
          return emitError(loc, "internal error: a parallel region passes "
                                "more than 16 shared values, or not a "
                                "constant count, to __kmpc_fork_call");
        routeFork(call, slot, ptr);
        continue;
      }
      call->setCalledOperand(loadSlot(call, slot, e->name));
    }
    f->eraseFromParent();
  }
  // Any other OpenMP runtime call has no slot: the library would need libomp.
  for (llvm::Function &f : module)
    if (f.isDeclaration() &&
        (f.getName().starts_with("__kmpc_") || f.getName().starts_with("omp_")))
      return emitError(loc, "internal error: the OpenMP runtime entry '")
             << f.getName() << "' has no slot in hodu_thread_api (abi.h)";
  return success();
}
