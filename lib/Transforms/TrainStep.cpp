//===- TrainStep.cpp - loss, gradients and an optimizer update ------------===//
//
// hodu-train-step: the model's prediction, a loss against an appended
// `target`, the gradients of that loss (Autodiff.h) with respect to the
// trainable arguments, and the optimizer's update of each, all as hodu ops
// of one function whose results are the loss and the new state. The
// function stays pure dataflow; keeping the state between steps is the
// caller's (a session's) business.
//
//===----------------------------------------------------------------------===//

#include "Autodiff.h"

#include "hodu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/BitVector.h"

#include <cmath>

namespace hodu {
#define GEN_PASS_DEF_TRAINSTEP
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;
using namespace hodu;
using namespace hodu::autodiff;

namespace {

/// Builds hodu ops at one place.
struct Ops {
  OpBuilder &b;
  Location loc;

  FloatAttr scalar(Value like, double v) {
    return FloatAttr::get(tensorOf(like).getElementType(), v);
  }
  Value binary(StringRef kind, Value x, Value y) {
    // The result has the broadcast shape; all uses here broadcast a 0-d
    // tensor or equal shapes.
    auto tx = tensorOf(x), ty = tensorOf(y);
    Type t = tx.getRank() >= ty.getRank() ? tx : ty;
    if (kind == "add")
      return AddOp::create(b, loc, t, x, y);
    if (kind == "sub")
      return SubOp::create(b, loc, t, x, y);
    if (kind == "mul")
      return MulOp::create(b, loc, t, x, y);
    if (kind == "div")
      return DivOp::create(b, loc, t, x, y);
    return MaximumOp::create(b, loc, t, x, y);
  }
  Value add(Value x, Value y) { return binary("add", x, y); }
  Value sub(Value x, Value y) { return binary("sub", x, y); }
  Value mul(Value x, Value y) { return binary("mul", x, y); }
  Value div(Value x, Value y) { return binary("div", x, y); }
  Value mulScalar(Value x, double s) {
    return MulScalarOp::create(b, loc, x.getType(), x, scalar(x, s));
  }
  Value addScalar(Value x, double s) {
    return AddScalarOp::create(b, loc, x.getType(), x, scalar(x, s));
  }
  template <typename OpTy> Value unary(Value x) {
    return OpTy::create(b, loc, x.getType(), x);
  }
  /// The mean of every element, as a 0-d tensor.
  Value meanAll(Value x) {
    auto t = tensorOf(x);
    auto dims = llvm::to_vector(llvm::seq<int64_t>(0, t.getRank()));
    return ReduceMeanOp::create(
        b, loc, RankedTensorType::get({}, t.getElementType()), x,
        b.getDenseI64ArrayAttr(dims), b.getBoolAttr(false));
  }
  Value reduce(Value x, int64_t dim, bool max) {
    auto t = tensorOf(x);
    SmallVector<int64_t> shape(t.getShape());
    shape[dim] = 1;
    auto rt = RankedTensorType::get(shape, t.getElementType());
    auto dims = b.getDenseI64ArrayAttr({dim});
    if (max)
      return ReduceMaxOp::create(b, loc, rt, x, dims, b.getBoolAttr(true));
    return ReduceSumOp::create(b, loc, rt, x, dims, b.getBoolAttr(true));
  }
};

struct TrainStep : hodu::impl::TrainStepBase<TrainStep> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto f = module.lookupSymbol<func::FuncOp>(function);
    if (!f || f.isExternal() || !f.getBody().hasOneBlock()) {
      module.emitError("hodu-train-step: no function '")
          << function << "' with a body of one block";
      return signalPassFailure();
    }
    Block &body = f.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    unsigned out = output;
    if (out >= ret.getNumOperands() || !isFloatTensor(ret.getOperand(out))) {
      f.emitError("hodu-train-step: result #")
          << out << " is not a floating-point result of '" << function << "'";
      return signalPassFailure();
    }
    // Stateful steps train, by default, the arguments that carry their
    // initial value (`hodu.param`: the importer's lifted initializers).
    SmallVector<unsigned> trained(params.begin(), params.end());
    if (trained.empty() && stateful)
      for (unsigned a = 0; a < body.getNumArguments(); ++a)
        if (f.getArgAttr(a, "hodu.param"))
          trained.push_back(a);
    if (trained.empty()) {
      f.emitError("hodu-train-step: no trainable arguments (params=...")
          << (stateful ? ", or arguments marked hodu.param)" : ")");
      return signalPassFailure();
    }
    Type elt;
    for (unsigned a : trained) {
      if (a >= body.getNumArguments() || !isFloatTensor(body.getArgument(a))) {
        f.emitError("hodu-train-step: argument #")
            << a << " is not a floating-point tensor argument";
        return signalPassFailure();
      }
      Type e = tensorOf(body.getArgument(a)).getElementType();
      if (elt && e != elt) {
        f.emitError("hodu-train-step: the trainable arguments have different "
                    "element types (")
            << elt << " and " << e << ")";
        return signalPassFailure();
      }
      elt = e;
    }
    static const char *losses[] = {"mse", "l1", "bce-with-logits",
                                   "cross-entropy", "output"};
    static const char *optimizers[] = {"sgd", "momentum", "adam", "adamw"};
    if (!llvm::is_contained(losses, StringRef(loss)) ||
        !llvm::is_contained(optimizers, StringRef(optimizer))) {
      f.emitError("hodu-train-step: unknown ")
          << (llvm::is_contained(losses, StringRef(loss)) ? "optimizer '"
                                                          : "loss '")
          << (llvm::is_contained(losses, StringRef(loss)) ? optimizer : loss)
          << "' (losses: mse, l1, bce-with-logits, cross-entropy, output; "
             "optimizers: sgd, momentum, adam, adamw)";
      return signalPassFailure();
    }

    MLIRContext *ctx = &getContext();
    Location loc = ret.getLoc();
    OpBuilder b(ret);
    Ops o{b, loc};
    Value pred = ret.getOperand(out);
    auto predType = tensorOf(pred);
    auto name = [&](unsigned index, StringRef n) {
      f.setArgAttr(index, "hodu.name", StringAttr::get(ctx, n));
    };
    auto appendArg = [&](Type t, StringRef n) {
      unsigned index = body.getNumArguments();
      (void)f.insertArgument(index, t, {}, loc);
      name(index, n);
      return body.getArgument(index);
    };
    auto argName = [&](unsigned a) {
      if (auto s = f.getArgAttrOfType<StringAttr>(a, "hodu.name"))
        return s.str();
      return "input_" + std::to_string(a);
    };

    // The loss.
    Value lossValue;
    if (loss == "output") {
      if (predType.getNumElements() != 1) {
        f.emitError("hodu-train-step: loss=output needs a result of one "
                    "element, not ")
            << predType;
        return signalPassFailure();
      }
      lossValue = pred;
    } else {
      Value t = appendArg(predType, "target");
      if (loss == "mse") {
        Value d = o.sub(pred, t);
        lossValue = o.meanAll(o.mul(d, d));
      } else if (loss == "l1") {
        lossValue = o.meanAll(o.unary<AbsOp>(o.sub(pred, t)));
      } else if (loss == "bce-with-logits") {
        // max(p, 0) - p t + log(1 + exp(-|p|)).
        Value relu = o.unary<ReluOp>(pred);
        Value soft = o.unary<LnOp>(o.addScalar(
            o.unary<ExpOp>(o.unary<NegOp>(o.unary<AbsOp>(pred))), 1.0));
        lossValue = o.meanAll(o.add(o.sub(relu, o.mul(pred, t)), soft));
      } else { // cross-entropy over the last dim of [N, C]
        if (predType.getRank() != 2) {
          f.emitError("hodu-train-step: loss=cross-entropy needs logits "
                      "[N, C], not ")
              << predType;
          return signalPassFailure();
        }
        Value shifted = o.sub(pred, o.reduce(pred, 1, /*max=*/true));
        Value logSum =
            o.unary<LnOp>(o.reduce(o.unary<ExpOp>(shifted), 1, false));
        Value logSoftmax = o.sub(shifted, logSum);
        // -sum(t * log_softmax) per row, averaged over the rows.
        Value perRow = o.reduce(o.mul(t, logSoftmax), 1, false);
        lossValue = o.mulScalar(o.meanAll(perRow), -1.0);
      }
    }
    if (tensorOf(lossValue).getRank() != 0)
      lossValue = ReshapeOp::create(
          b, loc,
          RankedTensorType::get({}, tensorOf(lossValue).getElementType()),
          lossValue);

    SmallVector<Value> wrt;
    for (unsigned a : trained)
      wrt.push_back(body.getArgument(a));
    auto scalarType = RankedTensorType::get({}, elt);
    // Stateful steps take the weight decay and the loss scale as meta
    // slots too, so the host changes them between replays.
    Value weightDecayArg, lossScaleArg;
    Value seed = lossValue;
    if (stateful) {
      lossScaleArg = appendArg(scalarType, "loss_scale");
      if (tensorOf(lossValue).getElementType() != elt) {
        f.emitError("hodu-train-step: the loss is ")
            << tensorOf(lossValue).getElementType()
            << " but the parameters are " << elt
            << "; a stateful step scales the loss by a meta slot of the "
               "parameters' type";
        return signalPassFailure();
      }
      seed = o.mul(lossValue, lossScaleArg);
    }
    FailureOr<SmallVector<Value>> grads = gradients(b, loc, body, seed, wrt);
    if (failed(grads))
      return signalPassFailure();
    if (stateful)
      for (Value &g : *grads)
        g = o.div(g, lossScaleArg);

    // The optimizer's state and the learning rate.
    SmallVector<Value> firstMoments, secondMoments;
    bool adam = optimizer == "adam" || optimizer == "adamw";
    for (unsigned a : trained) {
      if (optimizer == "momentum")
        firstMoments.push_back(
            appendArg(body.getArgument(a).getType(), argName(a) + ".velocity"));
      if (adam)
        firstMoments.push_back(
            appendArg(body.getArgument(a).getType(), argName(a) + ".m"));
    }
    for (unsigned a : trained)
      if (adam)
        secondMoments.push_back(
            appendArg(body.getArgument(a).getType(), argName(a) + ".v"));
    Value step = adam ? appendArg(scalarType, "step") : Value();
    Value lr = appendArg(scalarType, "lr");
    if (stateful)
      weightDecayArg = appendArg(scalarType, "weight_decay");

    SmallVector<Value> results{lossValue}, newParams, newFirst, newSecond;
    Value newStep, bc1, bc2;
    if (adam) {
      // 1 - beta^step, from the step counter on the device.
      newStep = o.addScalar(step, 1.0);
      auto correction = [&](double beta) {
        Value pow = o.unary<ExpOp>(o.mulScalar(newStep, std::log(beta)));
        return o.addScalar(o.mulScalar(pow, -1.0), 1.0);
      };
      bc1 = correction(beta1);
      bc2 = correction(beta2);
    }
    double wd = weightDecay;
    // The decay term: p * wd, from the meta slot (stateful) or the option.
    auto decay = [&](Value p) {
      return weightDecayArg ? o.mul(p, weightDecayArg) : o.mulScalar(p, wd);
    };
    bool decays = stateful || wd != 0.0;
    for (auto [k, a] : llvm::enumerate(trained)) {
      Value p = body.getArgument(a), g = (*grads)[k];
      if (decays && optimizer != "adamw")
        g = o.add(g, decay(p));
      Value update;
      if (optimizer == "sgd") {
        update = g;
      } else if (optimizer == "momentum") {
        Value v = o.add(o.mulScalar(firstMoments[k], momentum), g);
        newFirst.push_back(v);
        update = v;
      } else {
        Value m = o.add(o.mulScalar(firstMoments[k], beta1),
                        o.mulScalar(g, 1.0 - beta1));
        Value v = o.add(o.mulScalar(secondMoments[k], beta2),
                        o.mulScalar(o.mul(g, g), 1.0 - beta2));
        newFirst.push_back(m);
        newSecond.push_back(v);
        Value mhat = o.div(m, bc1), vhat = o.div(v, bc2);
        update = o.div(mhat, o.addScalar(o.unary<SqrtOp>(vhat), epsilon));
        if (optimizer == "adamw" && decays)
          update = o.add(update, decay(p));
      }
      newParams.push_back(o.sub(p, o.mul(update, lr)));
    }
    llvm::append_range(results, newParams);
    llvm::append_range(results, newFirst);
    llvm::append_range(results, newSecond);
    if (adam)
      results.push_back(newStep);
    func::ReturnOp::create(b, loc, results);
    ret.erase();
    f.setType(FunctionType::get(ctx, f.getArgumentTypes(),
                                ValueRange(results).getTypes()));
    f.removeResAttrsAttr();
    // Result names: loss, then the state each result replaces.
    f.setResultAttr(0, "hodu.name", StringAttr::get(ctx, "loss"));
    unsigned r = 1;
    for (unsigned a : trained)
      f.setResultAttr(r++, "hodu.name", StringAttr::get(ctx, argName(a)));
    for (Value moment : llvm::concat<Value>(firstMoments, secondMoments))
      f.setResultAttr(
          r++, "hodu.name",
          StringAttr::get(ctx,
                          argName(cast<BlockArgument>(moment).getArgNumber())));
    if (adam)
      f.setResultAttr(r, "hodu.name", StringAttr::get(ctx, "step"));
    if (stateful) {
      auto argNumber = [](Value v) {
        return cast<BlockArgument>(v).getArgNumber();
      };
      SmallVector<unsigned> state(trained);
      for (Value moment : llvm::concat<Value>(firstMoments, secondMoments))
        state.push_back(argNumber(moment));
      if (adam)
        state.push_back(argNumber(step));
      std::pair<unsigned, double> meta[] = {
          {argNumber(lr), (double)this->lr},
          {argNumber(weightDecayArg), (double)weightDecay},
          {argNumber(lossScaleArg), (double)lossScale}};
      markState(f, state, meta, results.size());
    }
  }

  /// The ABI's view of a stateful step (hodu-record-entry-point): the
  /// `state` arguments (the parameters, with their `hodu.param` as initial
  /// value, the optimizer's state and the step counter) are state tensors,
  /// each result after the loss the new value of the argument of its name;
  /// the `meta` arguments (lr, weight_decay, loss_scale) are meta slots
  /// with their initial values. Arguments with a `hodu.param` that do not
  /// train become constants of it.
  void markState(func::FuncOp f, ArrayRef<unsigned> state,
                 ArrayRef<std::pair<unsigned, double>> meta,
                 unsigned numResults) {
    MLIRContext *ctx = f.getContext();
    Block &body = f.getBody().front();
    auto unit = UnitAttr::get(ctx);
    // Names are how the entry point pairs a state tensor with its new
    // value: every argument gets one (the results already have them).
    for (unsigned a = 0; a < body.getNumArguments(); ++a)
      if (!f.getArgAttr(a, "hodu.name"))
        f.setArgAttr(a, "hodu.name",
                     StringAttr::get(ctx, "input_" + std::to_string(a)));
    for (unsigned r = 1; r < numResults; ++r)
      f.setResultAttr(r, "hodu.state", unit);
    Type elt = tensorOf(body.getArgument(state.front())).getElementType();
    for (auto [a, value] : meta)
      f.setArgAttr(a, "hodu.meta_slot",
                   DenseElementsAttr::get(RankedTensorType::get({}, elt),
                                          FloatAttr::get(elt, value)));
    llvm::BitVector frozen(body.getNumArguments());
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    for (unsigned a = 0; a < body.getNumArguments(); ++a) {
      Attribute param = f.getArgAttr(a, "hodu.param");
      if (llvm::is_contained(state, a)) {
        f.setArgAttr(a, "hodu.state", param ? param : Attribute(unit));
      } else if (auto value = dyn_cast_or_null<ElementsAttr>(param)) {
        // A parameter that does not train: its value as a constant.
        body.getArgument(a).replaceAllUsesWith(
            ConstantOp::create(b, body.getArgument(a).getLoc(), value));
        frozen.set(a);
      }
      f.removeArgAttr(a, "hodu.param");
    }
    (void)f.eraseArguments(frozen);
  }
};

} // namespace
