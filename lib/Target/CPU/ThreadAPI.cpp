//===- ThreadAPI.cpp - OpenMP runtime calls through libhodurt's table -----===//
//
// LLVM's OpenMP translation calls libomp's entry points by name. A shared
// library that libhodurt loads calls them through its exported table
// `hodu_thread_api` instead (abi.h), which libhodurt fills after loading it
// with its own thread teams (runtime/src/threads.c): the library then
// needs no libomp where it runs and binds no symbol of the host process.
//
//===----------------------------------------------------------------------===//

#include "CPUTarget.h"

#include "hodu/abi.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

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

LogicalResult cpu::routeThreadCalls(llvm::Module &module, Location loc) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::PointerType *ptr = llvm::PointerType::getUnqual(ctx);
  llvm::ArrayType *tableType = llvm::ArrayType::get(ptr, HODU_THREAD_API_SIZE);
  llvm::GlobalVariable *table = nullptr;
  for (const Entry &e : kEntries) {
    llvm::Function *f = module.getFunction(e.name);
    if (!f)
      continue;
    if (!f->isDeclaration())
      return emitError(loc, "internal error: '")
             << e.name << "' is defined in the module";
    if (!table)
      table = new llvm::GlobalVariable(
          module, tableType, /*isConstant=*/false,
          llvm::GlobalValue::ExternalLinkage,
          llvm::ConstantAggregateZero::get(tableType), HODU_THREAD_API_SYMBOL);
    for (llvm::User *user : llvm::make_early_inc_range(f->users())) {
      auto *call = llvm::dyn_cast<llvm::CallBase>(user);
      if (!call || call->getCalledOperand() != f)
        return emitError(loc, "internal error: '")
               << e.name << "' is used other than by a call";
      // libhodurt's fork passes at most 16 shared arguments (threads.c);
      // LLVM's translation passes one aggregate.
      if (e.index == HODU_THREAD_FORK_CALL) {
        auto *argc = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(1));
        if (!argc || argc->getZExtValue() > 16 ||
            call->arg_size() != 3 + argc->getZExtValue())
          return emitError(loc, "internal error: a parallel region passes "
                                "more than 16 shared values, or not a "
                                "constant count, to __kmpc_fork_call");
      }
      llvm::IRBuilder<> b(call);
      llvm::Value *slot = b.CreateConstInBoundsGEP2_32(tableType, table, 0,
                                                       e.index);
      llvm::LoadInst *callee = b.CreateLoad(ptr, slot, e.name);
      // Filled once before any run and never written again.
      callee->setMetadata(llvm::LLVMContext::MD_invariant_load,
                          llvm::MDNode::get(ctx, {}));
      call->setCalledOperand(callee);
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
