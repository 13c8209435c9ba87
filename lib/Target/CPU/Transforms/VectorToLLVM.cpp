//===- VectorToLLVM.cpp - the vector dialect to LLVM, per function --------===//
//
// See hodu-cpu-vector-to-llvm in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/AlignmentAttrInterface.h"
#include "mlir/Target/LLVMIR/TypeToLLVM.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/IR/LLVMContext.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUVECTORTOLLVM
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {

/// The memref operand of a vector memory op that takes an alignment.
Value memrefOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<vector::LoadOp, vector::StoreOp, vector::MaskedLoadOp,
            vector::MaskedStoreOp, vector::GatherOp, vector::ScatterOp,
            vector::ExpandLoadOp, vector::CompressStoreOp>(
          [](auto memOp) { return memOp.getBase(); })
      .Default([](Operation *) { return Value(); });
}

struct CpuVectorToLLVM
    : hodu::cpu::impl::CpuVectorToLLVMBase<CpuVectorToLLVM> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();

    // Vector-to-vector lowerings, as upstream's pass with its defaults
    // (dot contractions, element-wise transposes, 32-bit mask indices).
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorToVectorCanonicalizationPatterns(patterns);
      vector::populateVectorBitCastLoweringPatterns(patterns);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      vector::populateVectorContractLoweringPatterns(
          patterns, vector::VectorContractLowering::Dot);
      vector::populateVectorMaskOpLoweringPatterns(patterns);
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      vector::populateVectorInterleaveLoweringPatterns(patterns);
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::EltWise);
      // Transfers of rank > 1 were unrolled by convert-vector-to-scf.
      vector::populateVectorTransferLoweringPatterns(patterns,
                                                     /*maxTransferRank=*/1);
      vector::populateVectorMaskMaterializationPatterns(
          patterns, /*force32BitVectorIndices=*/true);
      vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
      vector::populateVectorStepLoweringPatterns(patterns);
      vector::populateVectorRankReducingFMAPattern(patterns);
      vector::populateVectorGatherLoweringPatterns(patterns);
      vector::populateVectorFromElementsUnrollPatterns(patterns);
      vector::populateVectorToElementsUnrollPatterns(patterns);
      GreedyRewriteConfig config;
      config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
      (void)applyPatternsGreedily(root, std::move(patterns), config);
    }

    LowerToLLVMOptions options(ctx);
    LLVMTypeConverter converter(ctx, options);

    // Each memory op's alignment: the element type's preferred alignment
    // under the converter's data layout (what upstream computes per op).
    {
      llvm::LLVMContext llvmContext;
      LLVM::TypeToLLVMIRTranslator translator(llvmContext);
      llvm::DenseMap<Type, uint64_t> alignments;
      root->walk([&](AlignmentAttrOpInterface op) {
        Value base = memrefOf(op);
        if (!base || op.getMaybeAlign())
          return;
        auto memref = dyn_cast<MemRefType>(base.getType());
        if (!memref)
          return;
        Type element = memref.getElementType();
        auto [it, inserted] = alignments.try_emplace(element, 0);
        if (inserted) {
          Type llvmElement = converter.convertType(element);
          if (llvmElement)
            it->second = translator.getPreferredAlignment(
                llvmElement, converter.getDataLayout());
        }
        // An element type without one keeps upstream's own path.
        if (!it->second)
          return;
        op->setAttr("alignment",
                    IntegerAttr::get(IntegerType::get(ctx, 64), it->second));
      });
    }

    RewritePatternSet patterns(ctx);
    vector::populateVectorTransferLoweringPatterns(patterns);
    populateVectorToLLVMConversionPatterns(
        converter, patterns, reassociateFPReductions,
        /*force32BitVectorIndices=*/true, /*useVectorAlignment=*/false);
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, memref::MemRefDialect>();
    target.addLegalOp<UnrealizedConversionCastOp>();
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
