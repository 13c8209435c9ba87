//===- TransformScript.cpp - transform scripts of the CPU passes ----------===//
//
// Builds the scripts op by op with the transform ops' C++ builders (no text
// to parse back) and runs them with the transform interpreter.
//
//===----------------------------------------------------------------------===//

#include "TransformScript.h"

#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Transform/LoopExtension/LoopExtensionOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using hodu::cpu::TransformScript;

TransformScript::TransformScript(ModuleOp payload)
    : payload(payload), builder(payload.getContext()) {
  Location loc = payload.getLoc();
  script = ModuleOp::create(loc);
  (*script)->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                     builder.getUnitAttr());
  builder.setInsertionPointToEnd(script->getBody());
  auto readOnly = builder.getDictionaryAttr(builder.getNamedAttr(
      transform::TransformDialect::kArgReadOnlyAttrName, builder.getUnitAttr()));
  auto main = transform::NamedSequenceOp::create(
      builder, loc, "__transform_main", transform::AnyOpType::get(loc.getContext()),
      TypeRange{},
      [](OpBuilder &b, Location l, BlockArgument) {
        transform::YieldOp::create(b, l);
      },
      /*attrs=*/{}, /*argAttrs=*/{readOnly});
  entry = main;
  Block &body = main.getBody().front();
  root = body.getArgument(0);
  builder.setInsertionPoint(body.getTerminator());
}

Value TransformScript::matchTagged(Operation *op, StringRef tag, int64_t id) {
  auto tagName = builder.getStringAttr(tag);
  if (!llvm::is_contained(tags, tagName))
    tags.push_back(tagName);
  auto value = builder.getI64IntegerAttr(id);
  op->setAttr(tagName, value);
  return transform::MatchOp::create(
      builder, payload.getLoc(), transform::AnyOpType::get(builder.getContext()),
      root, /*ops=*/ArrayAttr(), /*interface=*/{},
      builder.getDictionaryAttr(builder.getNamedAttr(tagName, value)),
      /*filter_result_type=*/TypeAttr(), /*filter_operand_types=*/ArrayAttr());
}

TransformScript::Tiled TransformScript::tileUsingFor(Value target,
                                                     ArrayRef<int64_t> sizes) {
  auto tile =
      transform::TileUsingForOp::create(builder, payload.getLoc(), target, sizes);
  return {tile.getTiledLinalgOp(), tile.getLoops()};
}

TransformScript::Tiled
TransformScript::tileUsingForall(Value target, ArrayRef<int64_t> sizes) {
  auto tile = transform::TileUsingForallOp::create(
      builder, payload.getLoc(), target, sizes, transform::TileSizesSpec());
  return {tile.getTiledOp(), tile->getResults().drop_front()};
}

void TransformScript::vectorize(Value target) {
  transform::VectorizeOp::create(builder, payload.getLoc(), target,
                                 /*vector_sizes=*/ValueRange(),
                                 /*static_vector_sizes=*/ArrayRef<int64_t>(),
                                 /*vectorize_nd_extract=*/UnitAttr(),
                                 /*assume_dynamic_dims_match_vec_sizes=*/UnitAttr(),
                                 /*create_named_contraction=*/UnitAttr());
}

void TransformScript::hoistLoopInvariantSubsets(Value loop) {
  transform::HoistLoopInvariantSubsetsOp::create(builder, payload.getLoc(), loop);
}

void TransformScript::applyPatternsToFuncs(
    function_ref<void(OpBuilder &, Location)> patterns) {
  Location loc = payload.getLoc();
  Value funcs = transform::MatchOp::create(builder, loc, root,
                                           ArrayRef<StringRef>{"func.func"});
  transform::ApplyPatternsOp::create(builder, loc, funcs, patterns);
}

LogicalResult TransformScript::apply(StringRef pass) {
  // A script that does not verify is a bug of the pass that built it.
  if (failed(verify(*script)))
    return payload.emitError(pass)
           << ": internal error in the generated transform script";
  LogicalResult result = transform::applyTransformNamedSequence(
      payload, entry, *script, transform::TransformOptions());
  payload.walk([&](Operation *op) {
    for (StringAttr tag : tags)
      op->removeAttr(tag);
  });
  return result;
}
