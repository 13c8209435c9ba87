//===- OnnxLoop.cpp - ONNX Loop -------------------------------------------===//
//
// Loop: unrolled at import when its trip count and conditions are known
// then (and it runs at most kMaxUnrolledIterations), else `hodu.loop` with
// the body imported once into its region, its carried values (tensors,
// optionals, sequences, which become run-time sequences where the body
// changes their length) and its scan outputs computed at their bound.
//
//===----------------------------------------------------------------------===//

#include "OnnxNodeLoop.h"
#include "OnnxOpsCommon.h"

#include "llvm/ADT/SmallPtrSet.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

/// ONNX Loop whose iterations are known at import time: the trip count (if
/// given) and the condition after every iteration must be import-time
/// constants. The body runs with the iteration number and the carried
/// values; the scan outputs are stacked along a new first axis.
LogicalResult NodeLoop::importLoop(NodeContext &n, unsigned depth) {
  TRY(bodyGraph, graphAttr(n, "body"));
  const onnx::GraphProto &body = *bodyGraph;
  int64_t numCarried = (int64_t)n.numInputs() - 2;
  if (numCarried < 0)
    return n.error("needs the inputs M and cond (either may be empty)");
  int64_t numScanOut = body.output_size() - 1 - numCarried;
  if (numScanOut < 0)
    return n.error("'body' has " + Twine(body.output_size()) +
                   " outputs; it needs the condition and " +
                   Twine(numCarried) + " carried values");
  // A trip count or an initial condition known only at run time: a
  // run-time loop.
  if ((n.hasInput(0) && !n.constantInput(0)) ||
      (n.hasInput(1) && !n.constantInput(1)))
    return importRuntimeLoop(n, body, numCarried, numScanOut, depth);
  int64_t trips = INT64_MAX;
  if (n.hasInput(0)) {
    TRY(m, n.constInts(0, "trip count"));
    if (m.size() != 1)
      return n.error("the trip count must have one element");
    trips = std::max<int64_t>(m[0], 0);
  }
  bool cond = true;
  if (n.hasInput(1)) {
    std::optional<ConstantView> c = n.constantInput(1);
    if (c->size() != 1)
      return n.error("the loop condition must have one element");
    cond = c->truth(0);
  }
  // More iterations than are unrolled: a run-time loop where its outputs
  // allow (no scan outputs).
  if (cond && trips > kMaxUnrolledIterations &&
      (numScanOut == 0 || trips <= kMaxScanBound))
    return importRuntimeLoop(n, body, numCarried, numScanOut, depth);
  // The loop is unrolled; if its condition turns out to be computed at run
  // time, what was unrolled is taken back (ops and the constants they
  // materialized) and the loop is built as a run-time loop.
  Block *block = g.builder.getInsertionBlock();
  bool atEnd = g.builder.getInsertionPoint() == block->end();
  Operation *before = block->empty() ? nullptr : &block->back();
  auto runtimeCondition = [&]() -> LogicalResult {
    if (!atEnd)
      return n.error("the loop condition is computed at run time inside a "
                     "construct Hodu cannot rebuild as a run-time loop here");
    SmallVector<Operation *> created;
    for (Operation *op = before ? before->getNextNode()
                                : (block->empty() ? nullptr : &block->front());
         op; op = op->getNextNode())
      created.push_back(op);
    llvm::SmallPtrSet<Operation *, 16> erased(created.begin(), created.end());
    for (auto &entry : g.values) {
      Value v = entry.getValue().value;
      if (v && v.getDefiningOp() && erased.contains(v.getDefiningOp()))
        entry.getValue().value = {};
    }
    for (Operation *op : llvm::reverse(created)) {
      op->dropAllUses();
      op->erase();
    }
    return importRuntimeLoop(n, body, numCarried, numScanOut, depth);
  };
  SmallVector<ValueEntry> carried;
  for (int64_t i = 0; i < numCarried; ++i) {
    if (!n.hasInput(2 + i))
      return n.error("carried input " + Twine(i) + " is missing");
    carried.push_back(g.values[n.node.input((int)(2 + i))]);
  }
  MLIRContext *ctx = &g.ctx;
  auto i64Scalar = RankedTensorType::get({}, IntegerType::get(ctx, 64));
  auto boolScalar = RankedTensorType::get({}, IntegerType::get(ctx, 1));
  std::vector<SmallVector<ValueEntry>> perIteration(numScanOut);
  for (int64_t i = 0; i < trips && cond; ++i) {
    if (i >= kMaxUnrolledIterations)
      return n.error("runs more than " + Twine(kMaxUnrolledIterations) +
                     " iterations; Hodu unrolls at most that many");
    SmallVector<ValueEntry> inputs(2);
    inputs[0].constant = DenseElementsAttr::get(i64Scalar, APInt(64, i));
    inputs[1].constant = DenseElementsAttr::get(boolScalar, true);
    inputs.append(carried.begin(), carried.end());
    TRY(outs, importBody(n, body, inputs, depth));
    ElementsAttr next = outs[0].constant ? outs[0].constant
                                         : getConstantValue(outs[0].value);
    std::optional<ConstantView> view = ConstantView::get(next);
    if (!view || view->size() != 1)
      return runtimeCondition();
    cond = view->truth(0);
    carried.assign(outs.begin() + 1, outs.begin() + 1 + numCarried);
    for (int64_t k = 0; k < numScanOut; ++k)
      perIteration[k].push_back(outs[1 + numCarried + k]);
  }
  for (int64_t i = 0; i < numCarried; ++i) {
    n.setOutput(i, carried[i]);
  }
  for (int64_t k = 0; k < numScanOut; ++k)
    if (n.hasOutput(numCarried + k) &&
        failed(stackOutput(n, numCarried + k, perIteration[k], 0, false)))
      return failure();
  return success();
}

LogicalResult NodeLoop::importRuntimeLoop(NodeContext &n,
                                          const onnx::GraphProto &body,
                                          int64_t numCarried,
                                          int64_t numScanOut, unsigned depth) {
  // Scan outputs need the trip count at import time: each is computed at
  // that bound, [M, ...], with the number of iterations run as a count
  // along dim 0 (DataDependentDim).
  int64_t bound = 0;
  // Without a trip count known at import time, the scan outputs' declared
  // shapes give the bound, and a run-time check that the loop ran exactly
  // that many iterations (the run stops there at the latest).
  bool declaredBound = false;
  if (numScanOut > 0 && (!n.hasInput(0) || !n.constantInput(0))) {
    for (int64_t k = 0; k < numScanOut; ++k) {
      std::optional<SmallVector<int64_t>> shape =
          n.declaredShape(numCarried + k);
      if (!shape || shape->empty())
        continue;
      if (declaredBound && (*shape)[0] != bound)
        return n.error("the model declares scan outputs of " + Twine(bound) +
                       " and " + Twine((*shape)[0]) +
                       " rows; a loop's scan outputs have one row per "
                       "iteration");
      bound = (*shape)[0];
      declaredBound = true;
    }
  }
  if (declaredBound) {
    if (bound < 1 || bound > kMaxScanBound)
      return n.error("the loop's scan outputs are declared with " +
                     Twine(bound) + " rows, which must be 1 to " +
                     Twine(kMaxScanBound));
  } else if (numScanOut > 0) {
    if (!n.hasInput(0) || !n.constantInput(0))
      return n.error("the loop's iterations are known only at run time and "
                     "its trip count is not known at import time, so its " +
                     Twine(numScanOut) +
                     " scan output(s) have no bound to be "
                     "computed at (the model declares no static shape for "
                     "them); Hodu builds such loops with loop-carried "
                     "values only");
    TRY(m, n.constInts(0, "trip count"));
    if (m.size() != 1)
      return n.error("the trip count must have one element");
    bound = m[0];
    if (bound < 1 || bound > kMaxScanBound)
      return n.error("the loop's iterations are known only at run time, and "
                     "its scan outputs are computed at the bound of its trip "
                     "count, " +
                     Twine(m[0]) + ", which must be 1 to " +
                     Twine(kMaxScanBound));
  }
  if (depth >= kMaxSubgraphDepth)
    return n.error("subgraphs nest more than " + Twine(kMaxSubgraphDepth) +
                   " levels deep");
  MLIRContext *ctx = &g.ctx;
  OpBuilder &b = g.builder;
  Type i64 = IntegerType::get(ctx, 64), i1 = IntegerType::get(ctx, 1);
  auto i64Scalar = RankedTensorType::get({}, i64);
  auto boolScalar = RankedTensorType::get({}, i1);
  // M and cond as 0-d tensors; absent, INT64_MAX and true.
  auto scalar = [&](size_t i, RankedTensorType type, APInt absent,
                    StringRef what) -> FailureOr<Value> {
    if (!n.hasInput(i))
      return n.constant(DenseElementsAttr::get(type, absent));
    TRY(v, n.in(i));
    auto t = tensorType(v);
    if (t.getNumElements() != 1 || t.getElementType() != type.getElementType())
      return n.error(what);
    return n.reshape(v, {});
  };
  TRY(maxTrip, scalar(0, i64Scalar, APInt(64, INT64_MAX),
                      "the trip count must be one int64"));
  TRY(cond, scalar(1, boolScalar, APInt(1, 1), "the loop condition must be one bool"));
  Value requestedTrip = maxTrip;
  if (declaredBound) {
    TRY(capped,
        make<MinimumScalarOp>(n, maxTrip, n.scalarAttr(i64, (double)bound)));
    maxTrip = capped;
  }
  // Carried values as their entries: a tensor, an optional (its flag,
  // then its element), a sequence (a list's elements, or a run-time
  // sequence's three tensors). A body that changes a sequence's length or
  // its elements' shapes carries it as a run-time sequence: the loop is
  // built again with the initial sequence converted, until the layout
  // holds what the body gives.
  SmallVector<ValueEntry> carried;
  for (int64_t i = 0; i < numCarried; ++i) {
    if (!n.hasInput(2 + i))
      return n.error("carried input " + Twine(i) + " is missing");
    const ValueEntry &e = g.values.lookup(n.node.input((int)(2 + i)));
    if (!e.holdsValue())
      return n.error("carried value " + Twine(i) + " ('" +
                     n.node.input((int)(2 + i)) + "') " +
                     (e.hasElement ? "is an empty optional whose type has "
                                     "no static shape"
                                   : "is not defined"));
    if (e.dataDim)
      return n.error("carried value " + Twine(i) + " ('" +
                     n.node.input((int)(2 + i)) +
                     "'): " + e.dataDim->describe() +
                     "; a run-time loop carries values of static shape");
    carried.push_back(e);
  }
  auto knownTrue = std::make_shared<ValueEntry>();
  knownTrue->constant = DenseElementsAttr::get(boolScalar, APInt(1, 1));
  LoopOp loop;
  Block *block = nullptr;
  SmallVector<Value> inits;
  SmallVector<Type> types;
  SmallVector<RankedTensorType> scanTypes;
  // Outer constants materialized inside the body are unmaterialized again,
  // so that code after the loop (or the loop built again) creates its own.
  auto forgetBody = [&]() {
    for (auto &entry : g.values) {
      Value v = entry.getValue().value;
      if (v && entry.getValue().constant &&
          loop.getBody().isAncestor(v.getParentRegion()))
        entry.getValue().value = {};
    }
  };
  auto fail = [&]() {
    forgetBody();
    loop->erase();
    return failure();
  };
  auto describe = [](const ValueEntry &e) { return describeEntry(e, true); };
  for (int attempt = 0;; ++attempt) {
    inits.clear();
    types.clear();
    scanTypes.clear();
    for (const ValueEntry &e : carried)
      appendYielded(e, n.loc, inits);
    for (Value v : inits)
      types.push_back(v.getType());
    loop = LoopOp::create(b, n.loc, types, maxTrip, cond, inits);
    block = new Block();
    loop.getBody().push_back(block);
    SmallVector<ValueEntry> inputs(2);
    inputs[0].value = block->addArgument(i64Scalar, n.loc);
    inputs[1].value = block->addArgument(boolScalar, n.loc);
    SmallVector<Value> args;
    for (Type t : types)
      args.push_back(block->addArgument(t, n.loc));
    size_t next = 0;
    for (const ValueEntry &e : carried)
      inputs.push_back(takeYielded(e, args, next));
    // The sequences whose layout the body changes, with the layout that
    // holds both.
    SmallVector<std::pair<int64_t, SequenceLayout>> grow;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(block);
      auto outs = importBody(n, body, inputs, depth);
      if (failed(outs))
        return fail();
      if ((int64_t)outs->size() != 1 + numCarried + numScanOut) {
        (void)n.error("'body' gives " + Twine(outs->size()) +
                      " outputs; it "
                      "needs the condition, " +
                      Twine(numCarried) + " carried values and " +
                      Twine(numScanOut) + " scan outputs");
        return fail();
      }
      for (int64_t i = 0; i < numCarried; ++i) {
        ValueEntry &out = (*outs)[1 + i];
        // An optional carried on as its element (which ONNX allows) holds
        // one.
        if (carried[i].hasElement && !out.hasElement && out.holdsValue())
          out.hasElement = knownTrue;
        if (sameCarriedKind(carried[i], out))
          continue;
        if (carried[i].isSequence() && out.isSequence() &&
            !carried[i].hasElement == !out.hasElement && attempt < 4) {
          auto before = sequenceLayout(n, carried[i]);
          auto after = succeeded(before) ? sequenceLayout(n, out) : before;
          auto both =
              succeeded(after) ? joinLayouts(n, *before, *after) : after;
          if (failed(both))
            return fail();
          both->capacity = std::max(both->capacity, g.sequenceCapacity);
          grow.push_back({i, *both});
          continue;
        }
        (void)n.error("carried value " + Twine(i) + " is " +
                      describe(carried[i]) + " before the loop but " +
                      describe(out) +
                      " after an iteration; a run-time loop needs carried "
                      "values of one type (a sequence may change its length "
                      "and its elements' shapes)");
        return fail();
      }
      for (int64_t j = 0; j < numScanOut; ++j) {
        const ValueEntry &e = (*outs)[1 + numCarried + j];
        if (e.isSequence() || e.hasElement || e.dataDim) {
          (void)n.error("scan output " + Twine(j) + " is " + describe(e) +
                        "; scan outputs stack tensors of static shape");
          return fail();
        }
      }
      if (grow.empty()) {
        SmallVector<Value> yielded;
        for (const ValueEntry &e : *outs)
          appendYielded(e, n.loc, yielded);
        auto ct = dyn_cast<RankedTensorType>(yielded.front().getType());
        if (!ct || ct.getNumElements() != 1 ||
            !ct.getElementType().isInteger(1)) {
          (void)n.error("the body's condition output must be one bool");
          return fail();
        }
        size_t numCarriedValues = types.size();
        if (numScanOut == 0) {
          YieldOp::create(b, n.loc, yielded);
        } else {
          // Scan outputs: carried buffers [M, ...] that iteration i writes row
          // i of, and the count of iterations run (i + 1 after iteration i).
          Value iter = block->getArgument(0);
          SmallVector<Value> next(yielded.begin(),
                                  yielded.begin() + 1 + numCarriedValues);
          TRY(count, make<AddOp>(n, iter, n.constant(i64, 1.0)));
          next.push_back(count);
          block->addArgument(i64Scalar, n.loc);
          for (int64_t j = 0; j < numScanOut; ++j) {
            Value row = yielded[1 + numCarriedValues + j];
            auto rt = cast<RankedTensorType>(row.getType());
            SmallVector<int64_t> shape = {bound};
            llvm::append_range(shape, rt.getShape());
            auto bufType = RankedTensorType::get(shape, rt.getElementType());
            uint64_t bytes =
                (uint64_t)bufType.getNumElements() *
                std::max<uint64_t>(1, rt.getElementTypeBitWidth() / 8);
            if (bytes > kMaxScanBytes) {
              (void)n.error("scan output " + Twine(j) +
                            " would be computed at "
                            "its bound, " +
                            dimsString(shape) + ", " + Twine(bytes) +
                            " bytes; at most " + Twine(kMaxScanBytes));
              return fail();
            }
            Value buf = block->addArgument(bufType, n.loc);
            SmallVector<int64_t> one(shape.size(), 1), rowShape(shape);
            rowShape[0] = 1;
            Value at = BroadcastOp::create(b, n.loc,
                                           RankedTensorType::get(rowShape, i64),
                                           n.reshape(iter, one))
                           .getResult();
            TRY(written, make<ScatterOp>(n, buf, at, n.reshape(row, rowShape),
                                         int64_t(0)));
            next.push_back(written);
            scanTypes.push_back(bufType);
          }
          if (declaredBound) {
            // The condition the last iteration gave, for the check.
            block->addArgument(boolScalar, n.loc);
            next.push_back(n.reshape(yielded.front(), {}));
          }
          YieldOp::create(b, n.loc, next);
        }
        break;
      }
    }
    // Built again, the carried sequences converted before the loop.
    forgetBody();
    loop->erase();
    for (auto &[i, layout] : grow) {
      TRY(converted, toRuntimeSequence(n, carried[i], layout));
      carried[i] = converted;
    }
  }
  if (numScanOut > 0) {
    // The loop again, now that the buffers' types are known: the body
    // moves into it.
    SmallVector<Value> allInits(inits);
    SmallVector<Type> allTypes(types);
    allInits.push_back(n.constant(i64, 0.0));
    allTypes.push_back(i64Scalar);
    for (RankedTensorType t : scanTypes) {
      allInits.push_back(n.constant(DenseElementsAttr::get(
          t, cast<TypedAttr>(n.b.getZeroAttr(t.getElementType())))));
      allTypes.push_back(t);
    }
    if (declaredBound) {
      allInits.push_back(n.constant(DenseElementsAttr::get(boolScalar, true)));
      allTypes.push_back(boolScalar);
    }
    auto full = LoopOp::create(b, n.loc, allTypes, loop.getMaxTripCount(),
                               loop.getCondition(), allInits);
    full.getBody().takeBody(loop.getBody());
    loop->erase();
    loop = full;
  }
  forgetBody();
  size_t numCarriedValues = types.size(), next = 0;
  for (int64_t i = 0; i < numCarried; ++i)
    n.setOutput(i, takeYielded(carried[i], loop->getResults(), next));
  for (int64_t j = 0; j < numScanOut; ++j) {
    n.setOutput(numCarried + j, loop.getResult(numCarriedValues + 1 + j));
    if (!declaredBound)
      n.setDataDim(numCarried + j, 0, loop.getResult(numCarriedValues));
  }
  if (declaredBound) {
    // Exactly `bound` iterations: the count reached it, and the loop would
    // not have gone on (the trip count ends there, or the condition did).
    Value count = loop.getResult(numCarriedValues);
    Value lastCond = loop.getResult(numCarriedValues + 1 + numScanOut);
    TRY(reached, make<EqScalarOp>(n, count, n.scalarAttr(i64, (double)bound)));
    TRY(tripEnds,
        make<LeScalarOp>(n, requestedTrip, n.scalarAttr(i64, (double)bound)));
    TRY(condEnds, make<LogicalNotOp>(n, lastCond));
    TRY(ends, make<LogicalOrOp>(n, tripEnds, condEnds));
    TRY(ok, make<LogicalAndOp>(n, reached, ends));
    if (failed(n.checkAtRunTime(
            ok, "the loop must run the " + Twine(bound) +
                    " iterations its scan outputs are declared with")))
      return failure();
  }
  return success();
}
