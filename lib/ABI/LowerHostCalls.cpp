//===- LowerHostCalls.cpp - CPU partitions exported for HOST_CALL ---------===//
//
// See hodu-lower-host-calls in dialects/ABI/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/ABI/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace hodu {
#define GEN_PASS_DEF_LOWERHOSTCALLS
#include "ABI/Passes.h.inc"
} // namespace hodu

using namespace mlir;

namespace {
struct LowerHostCallsPass
    : hodu::impl::LowerHostCallsBase<LowerHostCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i32 = IntegerType::get(ctx, 32);
    SmallVector<LLVM::LLVMFuncOp> partitions;
    for (auto f : module.getOps<LLVM::LLVMFuncOp>())
      if (f->hasAttr("hodu.host_call") && !f.isExternal())
        partitions.push_back(f);
    for (LLVM::LLVMFuncOp f : partitions) {
      LLVM::LLVMFunctionType type = f.getFunctionType();
      if (!isa<LLVM::LLVMVoidType>(type.getReturnType()) ||
          llvm::any_of(type.getParams(),
                       [](Type t) { return !isa<LLVM::LLVMPointerType>(t); })) {
        f.emitError("internal error: a host partition must take bare "
                    "pointers and return nothing");
        return signalPassFailure();
      }
      OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
      Location loc = f.getLoc();
      auto wrapper = LLVM::LLVMFuncOp::create(
          b, loc, ("hodu_host_" + f.getSymName()).str(),
          LLVM::LLVMFunctionType::get(i32, {ptr}));
      Block *body = wrapper.addEntryBlock(b);
      b.setInsertionPointToStart(body);
      SmallVector<Value> args;
      for (unsigned i = 0; i < type.getNumParams(); ++i) {
        Value at = LLVM::GEPOp::create(
            b, loc, ptr, ptr, body->getArgument(0),
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        args.push_back(LLVM::LoadOp::create(b, loc, ptr, at));
      }
      LLVM::CallOp::create(b, loc, f, args);
      Value zero = LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0));
      LLVM::ReturnOp::create(b, loc, zero);
      f.setLinkage(LLVM::Linkage::Internal);
      f->removeAttr("hodu.host_call");
    }
  }
};
} // namespace
