//===- TransformScript.cpp - transform scripts built in C++ ---------------===//
//
// Builds the scripts op by op with the transform ops' C++ builders (no text
// to parse back) and runs them with the transform interpreter.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/TransformScript.h"

#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Transform/LoopExtension/LoopExtensionOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using hodu::TransformScript;

static constexpr llvm::StringLiteral kDefaultTag = "hodu.payload";

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

Value TransformScript::match(Operation *op) {
  return matchTagged(op, kDefaultTag, nextId++);
}

Value TransformScript::bind(Operation *op) {
  auto main = cast<transform::NamedSequenceOp>(entry);
  unsigned index = main.getNumArguments();
  // Marked consumed: the steps that take it (tiling) consume the handle.
  auto consumed = builder.getDictionaryAttr(builder.getNamedAttr(
      transform::TransformDialect::kArgConsumedAttrName, builder.getUnitAttr()));
  if (failed(main.insertArgument(index,
                                 transform::AnyOpType::get(builder.getContext()),
                                 consumed, payload.getLoc())))
    llvm::report_fatal_error("cannot add an argument to the transform script");
  bound.push_back(op);
  return main.getArgument(index);
}

TransformScript::Tiled TransformScript::tileUsingFor(Value target,
                                                     ArrayRef<int64_t> sizes) {
  auto tile =
      transform::TileUsingForOp::create(builder, payload.getLoc(), target, sizes);
  return {tile.getTiledLinalgOp(), tile.getLoops()};
}

TransformScript::Tiled
TransformScript::tileUsingForall(Value target, ArrayRef<int64_t> sizes,
                                 ArrayRef<Attribute> mapping) {
  ArrayAttr mappingAttr =
      mapping.empty() ? ArrayAttr() : builder.getArrayAttr(mapping);
  auto tile = transform::TileUsingForallOp::create(
      builder, payload.getLoc(), target, sizes, transform::TileSizesSpec(),
      mappingAttr);
  return {tile.getTiledOp(), tile->getResults().drop_front()};
}

std::pair<Value, Value>
TransformScript::fuseIntoContainingOp(Value producer, Value containing) {
  auto fuse = transform::FuseIntoContainingOp::create(
      builder, payload.getLoc(), producer, containing);
  return {fuse.getFusedOp(), fuse.getNewContainingOp()};
}

void TransformScript::promoteOperand(Value op, int64_t index,
                                     Attribute memorySpace) {
  Location loc = payload.getLoc();
  Value operand = transform::GetOperandOp::create(
      builder, loc, transform::AnyValueType::get(builder.getContext()), op,
      ArrayRef<int64_t>{index});
  transform::PromoteTensorOp::create(builder, loc, operand, memorySpace);
}

void TransformScript::vectorize(Value target, bool namedContraction,
                                bool ndExtract) {
  transform::VectorizeOp::create(builder, payload.getLoc(), target,
                                 /*vector_sizes=*/ValueRange(),
                                 /*static_vector_sizes=*/ArrayRef<int64_t>(),
                                 /*vectorize_nd_extract=*/
                                 ndExtract ? builder.getUnitAttr() : UnitAttr(),
                                 /*assume_dynamic_dims_match_vec_sizes=*/UnitAttr(),
                                 /*create_named_contraction=*/
                                 namedContraction ? builder.getUnitAttr()
                                                  : UnitAttr());
}

void TransformScript::hoistLoopInvariantSubsets(Value loop) {
  transform::HoistLoopInvariantSubsetsOp::create(builder, payload.getLoc(), loop);
}

Value TransformScript::mapForallToBlocks(Value forall) {
  return transform::MapForallToBlocks::create(
      builder, payload.getLoc(), transform::AnyOpType::get(builder.getContext()),
      forall, /*grid_dims=*/ArrayRef<int64_t>{}, /*generate_gpu_launch=*/true);
}

void TransformScript::mapNestedForallToThreads(Value launch,
                                               ArrayRef<int64_t> blockDims,
                                               bool syncAfterDistribute) {
  transform::MapNestedForallToThreads::create(
      builder, payload.getLoc(), transform::AnyOpType::get(builder.getContext()),
      launch, blockDims, syncAfterDistribute);
}

void TransformScript::applyPatternsToFuncs(
    function_ref<void(OpBuilder &, Location)> patterns) {
  Location loc = payload.getLoc();
  Value funcs = transform::MatchOp::create(builder, loc, root,
                                           ArrayRef<StringRef>{"func.func"});
  transform::ApplyPatternsOp::create(builder, loc, funcs, patterns);
}

void TransformScript::cleanupFuncs() {
  Location loc = payload.getLoc();
  Value funcs = transform::MatchOp::create(builder, loc, root,
                                           ArrayRef<StringRef>{"func.func"});
  transform::ApplyPatternsOp::create(
      builder, loc, funcs, [](OpBuilder &b, Location l) {
        transform::ApplyCanonicalizationPatternsOp::create(b, l);
        transform::ApplyTilingCanonicalizationPatternsOp::create(b, l);
      });
  transform::ApplyCommonSubexpressionEliminationOp::create(builder, loc, funcs);
}

LogicalResult TransformScript::apply(StringRef pass) {
  // A script that does not verify is a bug of the pass that built it.
  if (failed(verify(*script)))
    return payload.emitError(pass)
           << ": internal error in the generated transform script";
  transform::TransformOptions options;
#ifdef NDEBUG
  // The scripts are built by Hodu's passes, not written by users: the
  // handle-invalidation checks are for debug builds.
  options.enableExpensiveChecks(false);
#endif
  LogicalResult result = failure();
  if (bound.empty()) {
    result = transform::applyTransformNamedSequence(payload, entry, *script,
                                                    options);
  } else {
    RaggedArray<transform::MappedValue> bindings;
    bindings.push_back(ArrayRef<transform::MappedValue>{payload.getOperation()});
    for (Operation *op : bound)
      bindings.push_back(ArrayRef<transform::MappedValue>{op});
    result = transform::applyTransformNamedSequence(
        std::move(bindings), cast<transform::TransformOpInterface>(entry),
        *script, options);
  }
  payload.walk([&](Operation *op) {
    for (StringAttr tag : tags)
      op->removeAttr(tag);
  });
  return result;
}

LogicalResult TransformScript::applyOrKeep(StringRef pass, bool *applied,
                                           std::optional<Location> where,
                                           bool quiet) {
  OwningOpRef<ModuleOp> backup(cast<ModuleOp>(payload->clone()));
  std::string reason;
  LogicalResult result = failure();
  {
    ScopedDiagnosticHandler capture(payload.getContext(), [&](Diagnostic &d) {
      if (reason.empty() && d.getSeverity() == DiagnosticSeverity::Error)
        reason = d.str();
      return success();
    });
    result = apply(pass);
  }
  if (applied)
    *applied = succeeded(result);
  if (succeeded(result))
    return success();
  payload.getBodyRegion().takeBody(backup->getBodyRegion());
  payload.walk([&](Operation *op) {
    for (StringAttr tag : tags)
      op->removeAttr(tag);
  });
  if (!quiet)
    emitRemark(where.value_or(payload.getLoc()))
        << pass << ": a fast path did not apply (" << reason
        << "); its ops take the generic lowering";
  return success();
}
