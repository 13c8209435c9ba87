//===- HoduToLinalg.cpp - the convert-hodu-to-linalg pass -----------------===//
//
// The type conversion (unsigned dtypes become signless integers), the
// conversion target and the pass. The patterns live in one file per family.
//
//===----------------------------------------------------------------------===//

#include "hodu/Conversion/HoduToLinalg.h"
#include "hodu/Conversion/Passes.h"

#include "Common.h"

#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace hodu {
#define GEN_PASS_DEF_CONVERTHODUTOLINALG
#include "hodu/Conversion/Passes.h.inc"
} // namespace hodu

void hodu::populateHoduToSignlessTypeConversion(TypeConverter &converter) {
  converter.addConversion([](Type t) { return t; });
  converter.addConversion(
      [](IntegerType t) -> Type { return lowering::toSignless(t); });
  converter.addConversion(
      [](RankedTensorType t) -> Type { return lowering::toSignless(t); });
}

void hodu::populateHoduToLinalgConversionPatterns(TypeConverter &converter,
                                                  RewritePatternSet &patterns) {
  lowering::populateElementwisePatterns(converter, patterns);
  lowering::populateLinalgFamilyPatterns(converter, patterns);
  lowering::populateReductionPatterns(converter, patterns);
  lowering::populateShapePatterns(converter, patterns);
  lowering::populateIndexingPatterns(converter, patterns);
  lowering::populateConvPatterns(converter, patterns);
  lowering::populateControlFlowPatterns(converter, patterns);
}

namespace {

/// Reports the ops no pattern can lower for a reason the user should see
/// (dynamic shapes), instead of the conversion's generic "failed to
/// legalize".
LogicalResult checkSupported(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    if (!isa<hodu::HoduDialect>(op->getDialect()))
      return WalkResult::advance();
    if (isa<hodu::NonzeroOp, hodu::UniqueOp>(op)) {
      op->emitError() << op->getName()
                      << ": data-dependent output shapes are not supported by "
                         "the CPU backend yet";
      return WalkResult::interrupt();
    }
    auto isStatic = [](Type t) {
      auto st = dyn_cast<ShapedType>(t);
      return !st || st.hasStaticShape();
    };
    if (!llvm::all_of(op->getOperandTypes(), isStatic) ||
        !llvm::all_of(op->getResultTypes(), isStatic)) {
      op->emitError() << op->getName()
                      << ": dynamically shaped tensors are not supported by "
                         "the CPU backend yet";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct ConvertHoduToLinalgPass
    : hodu::impl::ConvertHoduToLinalgBase<ConvertHoduToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (failed(checkSupported(module)))
      return signalPassFailure();

    TypeConverter converter;
    hodu::populateHoduToSignlessTypeConversion(converter);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<hodu::HoduDialect>();
    // The entry point is the artifact ABI, lowered by the target.
    target.addLegalOp<hodu::EntryPointOp>();
    // An assert on a scalar is the target's to lower.
    target.addDynamicallyLegalOp<hodu::AssertOp>([](hodu::AssertOp op) {
      return op.getCondition().getType().isInteger(1);
    });
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect,
                           bufferization::BufferizationDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });

    RewritePatternSet patterns(ctx);
    hodu::populateHoduToLinalgConversionPatterns(converter, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);

    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
