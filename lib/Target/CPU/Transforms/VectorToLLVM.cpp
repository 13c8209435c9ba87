//===- VectorToLLVM.cpp - the vector dialect to LLVM, per function --------===//
//
// See hodu-cpu-vector-to-llvm in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "Int8Dot.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Dialect/X86Vector/Transforms.h"
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

/// An int8 dot product of hodu-cpu-vectorize (Int8Dot.cpp):
///   multi_reduction<add>(shape_cast(extui(u) * extsi(s)) : 16x4, acc) [1]
/// on 64 bytes each -> one AVX-512 VNNI vpdpbusd(acc, u, s); on int16
/// pairs (8x2 or 16x2, u's values uint8) -> acc + vpmaddwd(u, s). Marked
/// ops only (the pass that made them checked the target); any other form
/// is left to the generic lowering.
struct Int8DotToX86 : OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::MultiDimReductionOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasAttr(hodu::cpu::kInt8Dot) ||
        op.getKind() != vector::CombiningKind::ADD)
      return failure();
    auto cast = op.getSource().getDefiningOp<vector::ShapeCastOp>();
    auto mul = cast ? cast.getSource().getDefiningOp<arith::MulIOp>() : nullptr;
    if (!mul)
      return failure();
    Value u, s;
    for (auto [a, b] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())}) {
      auto zext = a.getDefiningOp<arith::ExtUIOp>();
      auto sext = b.getDefiningOp<arith::ExtSIOp>();
      if (zext && sext) {
        u = zext.getIn();
        s = sext.getIn();
        break;
      }
    }
    if (!u || u.getType() != s.getType())
      return failure();
    auto type = llvm::cast<VectorType>(u.getType());
    auto acc = dyn_cast<VectorType>(op.getAcc().getType());
    if (!acc || type.getRank() != 1 || acc.getRank() != 1 ||
        !acc.getElementType().isInteger(32))
      return failure();
    int64_t n = type.getDimSize(0), lanes = acc.getDimSize(0);
    if (type.getElementType().isInteger(8) && n == 64 && lanes == 16) {
      rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
          op, acc, rewriter.getStringAttr("llvm.x86.avx512.vpdpbusd.512"),
          ValueRange{op.getAcc(), u, s});
      return success();
    }
    if (!type.getElementType().isInteger(16) || n != 2 * lanes ||
        (lanes != 8 && lanes != 16))
      return failure();
    Value pairs =
        LLVM::CallIntrinsicOp::create(
            rewriter, op.getLoc(), acc,
            rewriter.getStringAttr(lanes == 8 ? "llvm.x86.avx2.pmadd.wd"
                                              : "llvm.x86.avx512.pmaddw.d.512"),
            ValueRange{u, s})
            .getResult(0);
    rewriter.replaceOpWithNewOp<LLVM::AddOp>(op, op.getAcc(), pairs);
    return success();
  }
};

struct CpuVectorToLLVM
    : hodu::cpu::impl::CpuVectorToLLVMBase<CpuVectorToLLVM> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();

    {
      RewritePatternSet patterns(ctx);
      patterns.add<Int8DotToX86>(ctx);
      (void)applyPatternsGreedily(root, std::move(patterns));
    }

    // Vector-to-vector lowerings, as upstream's pass with its defaults
    // (dot contractions, 32-bit mask indices), but 16x16 transposes.
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorToVectorCanonicalizationPatterns(patterns);
      vector::populateVectorBitCastLoweringPatterns(patterns);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      vector::populateVectorContractLoweringPatterns(
          patterns, vector::VectorContractLowering::Dot);
      vector::populateVectorMaskOpLoweringPatterns(patterns);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerReduction);
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      vector::populateVectorInterleaveLoweringPatterns(patterns);
      // 16x16 transposes as shuffles; other shapes element by element.
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::Shuffle16x16);
      // Transfers of rank > 1 were unrolled by convert-vector-to-scf.
      vector::populateVectorTransferLoweringPatterns(patterns,
                                                     /*maxTransferRank=*/1);
      vector::populateVectorMaskMaterializationPatterns(
          patterns, /*force32BitVectorIndices=*/true);
      vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
      vector::populateVectorStepLoweringPatterns(patterns);
      vector::populateVectorRankReducingFMAPattern(patterns);
      vector::populateVectorGatherLoweringPatterns(patterns);
      // Elements extracted from a read (a register kernel's column of A,
      // each broadcast) are scalar loads, which LLVM folds into its
      // broadcasts. Left as a read, a column of 6 (or 10, 14) floats was a
      // 4-element load and a 2-element one whose lanes took registers of
      // their own to broadcast: with 16 registers, 2 of the 6x16 kernel's
      // 12 accumulators then lived on the stack.
      vector::populateScalarVectorTransferLoweringPatterns(
          patterns, /*benefit=*/1, /*allowMultipleUses=*/true);
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
    // The bf16 kernels' x86vector.avx512.dot (Bf16Dot.cpp): vdpbf16ps.
    populateX86VectorLegalizeForLLVMExportPatterns(converter, patterns);
    LLVMConversionTarget target(*ctx);
    configureX86VectorLegalizeForExportTarget(target);
    target.addLegalDialect<arith::ArithDialect, memref::MemRefDialect>();
    target.addLegalOp<UnrealizedConversionCastOp>();
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
