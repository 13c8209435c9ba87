//===- ControlFlow.cpp - hodu.if -> scf.if ---------------------------------===//
//
// The condition's one element is read with tensor.extract; the regions move
// over as they are (their hodu ops are converted where they stand) and each
// hodu.yield becomes scf.yield.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

using namespace mlir;

namespace hodu::lowering {
namespace {

struct IfToScf : OpConversionPattern<hodu::IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(hodu::IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return failure();
    Location loc = op.getLoc();
    Value cond = adaptor.getCondition();
    auto condType = cast<RankedTensorType>(cond.getType());
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    SmallVector<Value> indices(condType.getRank(), zero);
    Value flag = tensor::ExtractOp::create(rewriter, loc, cond, indices);
    auto ifOp = scf::IfOp::create(rewriter, loc, types, flag,
                                  /*addThenBlock=*/false,
                                  /*addElseBlock=*/false);
    rewriter.inlineRegionBefore(op.getThenRegion(), ifOp.getThenRegion(),
                                ifOp.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseRegion(), ifOp.getElseRegion(),
                                ifOp.getElseRegion().end());
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

struct YieldToScf : OpConversionPattern<hodu::YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(hodu::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getValues());
    return success();
  }
};

} // namespace

void populateControlFlowPatterns(TypeConverter &tc,
                                 RewritePatternSet &patterns) {
  patterns.add<IfToScf, YieldToScf>(tc, patterns.getContext());
}

} // namespace hodu::lowering
