//===- ControlFlow.cpp - hodu.if -> scf.if, hodu.loop -> scf.while --------===//
//
// The condition's one element is read with tensor.extract; the regions move
// over as they are (their hodu ops are converted where they stand) and each
// hodu.yield becomes scf.yield. hodu.loop becomes scf.while over (i64
// counter, carried tensors, i1 condition): the `before` region tests
// `counter < max_trip_count && condition`, the `after` region is the body,
// its counter and condition arguments rebuilt as 0-d tensors, its yield the
// next counter, the carried values and the next condition's element.
// hodu.assert keeps its op, on the condition's element.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

using namespace mlir;

namespace hodu::lowering {
namespace {

/// The one element of a one-element tensor.
Value element(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> indices(type.getRank(), zero);
  return tensor::ExtractOp::create(b, loc, t, indices);
}

struct IfToScf : OpConversionPattern<hodu::IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(hodu::IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return failure();
    Location loc = op.getLoc();
    Value flag = element(rewriter, loc, adaptor.getCondition());
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

struct LoopToScf : OpConversionPattern<hodu::LoopOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(hodu::LoopOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return failure();
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type(), i1 = rewriter.getI1Type();
    Value maxTrip = element(rewriter, loc, adaptor.getMaxTripCount());
    Value cond = element(rewriter, loc, adaptor.getCondition());
    // The state is (counter, carried..., condition): the condition last, so
    // that when canonicalization drops it from what the `before` region
    // forwards (the `after` region knows it is true), the carried values
    // keep their positions, and bufferization sees each forwarded and
    // yielded buffer as its own argument's (no copy per iteration).
    SmallVector<Value> inits = {
        arith::ConstantIntOp::create(rewriter, loc, i64, 0)};
    llvm::append_range(inits, adaptor.getInits());
    inits.push_back(cond);
    SmallVector<Type> stateTypes = {i64};
    llvm::append_range(stateTypes, types);
    stateTypes.push_back(i1);
    SmallVector<Location> locs(stateTypes.size(), loc);
    auto whileOp = scf::WhileOp::create(rewriter, loc, stateTypes, inits);

    // before: continue while counter < max_trip_count && condition.
    Block *before = rewriter.createBlock(&whileOp.getBefore(), {}, stateTypes, locs);
    Value more = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                       before->getArgument(0), maxTrip);
    Value go = arith::AndIOp::create(rewriter, loc, more,
                                     before->getArguments().back());
    scf::ConditionOp::create(rewriter, loc, go, before->getArguments());

    // after: the body, whose arguments are 0-d tensors of the counter and
    // the condition it was entered with (true), then the carried values.
    Block *after = rewriter.createBlock(&whileOp.getAfter(), {}, stateTypes, locs);
    Value counter = tensor::FromElementsOp::create(
        rewriter, loc, RankedTensorType::get({}, i64), after->getArgument(0));
    Value entered = tensor::FromElementsOp::create(
        rewriter, loc, RankedTensorType::get({}, i1),
        after->getArguments().back());
    // The carried types as converted (unsigned to signless).
    FailureOr<Block *> converted =
        rewriter.convertRegionTypes(&op.getBody(), *getTypeConverter());
    if (failed(converted))
      return failure();
    Block &body = **converted;
    auto yield = cast<hodu::YieldOp>(body.getTerminator());
    SmallVector<Value> bodyArgs = {counter, entered};
    llvm::append_range(bodyArgs,
                       after->getArguments().drop_front().drop_back());
    rewriter.inlineBlockBefore(&body, after, after->end(), bodyArgs);
    rewriter.setInsertionPoint(yield);
    Value one = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
    Value next = arith::AddIOp::create(rewriter, loc, after->getArgument(0), one);
    SmallVector<Value> yielded = {next};
    llvm::append_range(yielded, yield.getValues().drop_front());
    yielded.push_back(element(rewriter, loc, yield.getValues().front()));
    rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, yielded);
    rewriter.replaceOp(op, whileOp.getResults().drop_front().drop_back());
    return success();
  }
};

struct YieldToScf : OpConversionPattern<hodu::YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(hodu::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<hodu::LoopOp>(op->getParentOp()))
      return failure(); // a hodu.loop's yield is rewritten with its loop
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getValues());
    return success();
  }
};

/// hodu.assert of a 0-d tensor becomes hodu.assert of its element: an op
/// on a scalar, which bufferization leaves alone, for the target's lowering
/// (on the CPU, hodu-lower-asserts).
struct AssertToScalar : OpConversionPattern<hodu::AssertOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(hodu::AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(adaptor.getCondition().getType()))
      return failure();
    Value flag = element(rewriter, op.getLoc(), adaptor.getCondition());
    rewriter.replaceOpWithNewOp<hodu::AssertOp>(op, flag, op.getMessage());
    return success();
  }
};

} // namespace

void populateControlFlowPatterns(TypeConverter &tc,
                                 RewritePatternSet &patterns) {
  patterns.add<IfToScf, LoopToScf, YieldToScf, AssertToScalar>(
      tc, patterns.getContext());
}

} // namespace hodu::lowering
