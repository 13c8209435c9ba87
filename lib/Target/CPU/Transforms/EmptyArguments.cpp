//===- EmptyArguments.cpp - zero-element arguments as flat memrefs --------===//
//
// See hodu-cpu-empty-arguments in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUEMPTYARGUMENTS
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {
/// Whether `type` is a memref this pass rewrites: statically shaped with
/// the identity layout, without elements, and not already `memref<0 x T>`.
bool isEmptyMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() && memref.getNumElements() == 0 &&
         memref.getLayout().isIdentity() && memref.getRank() != 1;
}

MemRefType flatType(MemRefType type) {
  return MemRefType::get({0}, type.getElementType(),
                         MemRefLayoutAttrInterface(), type.getMemorySpace());
}

struct CpuEmptyArguments
    : hodu::cpu::impl::CpuEmptyArgumentsBase<CpuEmptyArguments> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The rewritten functions, by name, with the arguments rewritten.
    llvm::DenseMap<StringAttr, llvm::SmallBitVector> rewritten;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FunctionType type = func.getFunctionType();
      llvm::SmallBitVector which(type.getNumInputs());
      SmallVector<Type> inputs(type.getInputs());
      Block &entry = func.front();
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
        if (!isEmptyMemRef(arg.getType()))
          continue;
        auto original = cast<MemRefType>(arg.getType());
        // Zero bytes on the stack stand for the argument in its uses.
        Value stand = memref::AllocaOp::create(b, func.getLoc(), original);
        arg.replaceAllUsesWith(stand);
        arg.setType(flatType(original));
        inputs[i] = arg.getType();
        which.set(i);
      }
      if (which.none())
        continue;
      func.setFunctionType(b.getFunctionType(inputs, type.getResults()));
      rewritten[func.getSymNameAttr()] = which;
    }
    if (rewritten.empty())
      return;
    module.walk([&](func::CallOp call) {
      auto it = rewritten.find(call.getCalleeAttr().getAttr());
      if (it == rewritten.end())
        return;
      OpBuilder b(call);
      for (unsigned i : it->second.set_bits()) {
        auto original = cast<MemRefType>(call.getOperand(i).getType());
        call->setOperand(
            i, memref::AllocaOp::create(b, call.getLoc(), flatType(original)));
      }
    });
  }
};
} // namespace
