//===- LowerHostCalls.cpp - CPU partitions exported for HOST_CALL ---------===//
//
// See hodu-lower-host-calls in dialects/ABI/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/ABI/Passes.h"

#include "hodu/bundle.h"

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
      // hodu-lower-asserts gave a partition with run-time checks the
      // status word as a last parameter: the wrapper's own, returned.
      bool status = f->hasAttr("hodu.host_call_status");
      unsigned buffers = type.getNumParams() - (status ? 1 : 0);
      OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
      Location loc = f.getLoc();
      auto wrapper = LLVM::LLVMFuncOp::create(
          b, loc, ("hodu_host_" + f.getSymName()).str(),
          LLVM::LLVMFunctionType::get(i32, {ptr}));
      Block *body = wrapper.addEntryBlock(b);
      b.setInsertionPointToStart(body);
      SmallVector<Value> args;
      for (unsigned i = 0; i < buffers; ++i) {
        Value at = LLVM::GEPOp::create(
            b, loc, ptr, ptr, body->getArgument(0),
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        args.push_back(LLVM::LoadOp::create(b, loc, ptr, at));
      }
      Value zero = LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0));
      Value word;
      if (status) {
        Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                             b.getI64IntegerAttr(1));
        word = LLVM::AllocaOp::create(b, loc, ptr, i32, one, /*alignment=*/4);
        LLVM::StoreOp::create(b, loc, zero, word);
        args.push_back(word);
      }
      LLVM::CallOp::create(b, loc, f, args);
      LLVM::ReturnOp::create(
          b, loc, word ? Value(LLVM::LoadOp::create(b, loc, i32, word)) : zero);
      f.setLinkage(LLVM::Linkage::Internal);
      f->removeAttr("hodu.host_call");
      f->removeAttr("hodu.host_call_status");
    }
    exportCheckMessages(module);
  }

  /// The checks' messages (hodu-lower-asserts' hodu.asserts, in the order
  /// of their codes) for the runtime: HODU_HOST_CHECKS_SYMBOL, each
  /// NUL-terminated, one after the other, and HODU_HOST_NUM_CHECKS_SYMBOL.
  void exportCheckMessages(ModuleOp module) {
    auto checks = module->getAttrOfType<ArrayAttr>("hodu.asserts");
    if (!checks || checks.empty())
      return;
    std::string blob;
    for (Attribute m : checks) {
      blob += cast<StringAttr>(m).getValue().str();
      blob.push_back('\0');
    }
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = module.getLoc();
    LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), blob.size()),
        /*isConstant=*/true, LLVM::Linkage::External, HODU_HOST_CHECKS_SYMBOL,
        b.getStringAttr(blob), /*alignment=*/1);
    LLVM::GlobalOp::create(b, loc, b.getI32Type(), /*isConstant=*/true,
                           LLVM::Linkage::External, HODU_HOST_NUM_CHECKS_SYMBOL,
                           b.getI32IntegerAttr(int32_t(checks.size())),
                           /*alignment=*/4);
    module->removeAttr("hodu.asserts");
  }
};
} // namespace
