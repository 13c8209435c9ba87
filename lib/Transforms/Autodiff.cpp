//===- Autodiff.cpp - reverse-mode gradients over the hodu dialect --------===//
//
// One sweep over a function's ops in reverse order. Each value the loss
// depends on gets a gradient of its own type, the sum of what its users
// contribute; each op's rule turns the gradient of its result into
// gradients of its operands, as hodu ops placed after the forward
// computation. Broadcasting binary ops sum the gradient over the dims they
// broadcast (`unbroadcast`). The function then returns the loss and the
// gradients of the arguments asked for.
//
//===----------------------------------------------------------------------===//

#include "Autodiff.h"

#include "hodu/Transforms/Gradients.h"

#include "hodu/Transforms/Passes.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

namespace hodu {
#define GEN_PASS_DEF_AUTODIFF
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;
using namespace hodu;

namespace hodu::autodiff {

void Backward::accumulate(Value v, Value g) {
  if (!isFloatTensor(v) || !g)
    return;
  assert(g.getType() == v.getType() && "gradient of another type");
  auto [it, inserted] = grads.try_emplace(v, g);
  if (!inserted)
    it->second = AddOp::create(b, loc, v.getType(), it->second, g);
}

Value Backward::splat(RankedTensorType t, double v) {
  auto attr = DenseElementsAttr::get(t, FloatAttr::get(t.getElementType(), v));
  return ConstantOp::create(b, loc, cast<ElementsAttr>(attr));
}

FloatAttr Backward::scalar(Type t, double v) {
  return FloatAttr::get(cast<RankedTensorType>(t).getElementType(), v);
}

RankedTensorType Backward::boolLike(RankedTensorType t) {
  return RankedTensorType::get(t.getShape(), b.getI1Type());
}

RankedTensorType Backward::withShape(RankedTensorType t,
                                     ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, t.getElementType());
}

Value Backward::reshape(Value v, RankedTensorType t) {
  if (v.getType() == t)
    return v;
  return ReshapeOp::create(b, loc, t, v);
}

Value Backward::broadcast(Value v, RankedTensorType t) {
  if (v.getType() == t)
    return v;
  return BroadcastOp::create(b, loc, t, v);
}

Value Backward::select(Value cond, Value x, Value y) {
  return SelectOp::create(b, loc, x.getType(), cond, x, y);
}

Value Backward::unbroadcast(Value g, RankedTensorType t) {
  auto gt = tensorOf(g);
  if (gt == t)
    return g;
  int64_t lead = gt.getRank() - t.getRank();
  SmallVector<int64_t> dims, kept;
  for (int64_t d = 0; d < gt.getRank(); ++d) {
    if (d < lead || (t.getDimSize(d - lead) == 1 && gt.getDimSize(d) != 1))
      dims.push_back(d);
    else
      kept.push_back(gt.getDimSize(d));
  }
  Value r = g;
  if (!dims.empty())
    r = ReduceSumOp::create(b, loc,
                            RankedTensorType::get(kept, t.getElementType()), g,
                            b.getDenseI64ArrayAttr(dims), b.getBoolAttr(false));
  return reshape(r, t);
}

Value Backward::transposeLast2(Value v) {
  auto t = tensorOf(v);
  int64_t r = t.getRank();
  SmallVector<int64_t> perm, shape(t.getShape());
  for (int64_t d = 0; d < r; ++d)
    perm.push_back(d);
  std::swap(perm[r - 1], perm[r - 2]);
  std::swap(shape[r - 1], shape[r - 2]);
  return TransposeOp::create(b, loc,
                             RankedTensorType::get(shape, t.getElementType()),
                             v, b.getDenseI64ArrayAttr(perm));
}

LogicalResult Backward::apply(Operation *op, Value g) {
  loc = op->getLoc();
  Value r = op->getResult(0);
  auto rt = tensorOf(r);
  auto operand = [&](unsigned i) { return op->getOperand(i); };
  // Binary ops broadcast: each operand's gradient is computed at the
  // result's shape and summed back to the operand's.
  auto toOperand = [&](unsigned i, Value full) {
    accumulate(operand(i), unbroadcast(full, tensorOf(operand(i))));
  };
  auto mul = [&](Value x, Value y) {
    return MulOp::create(b, loc, rt, x, y).getResult();
  };
  auto div = [&](Value x, Value y) {
    return DivOp::create(b, loc, rt, x, y).getResult();
  };
  auto sub = [&](Value x, Value y) {
    return SubOp::create(b, loc, rt, x, y).getResult();
  };
  auto neg = [&](Value x) { return NegOp::create(b, loc, rt, x).getResult(); };
  auto select = [&](Value cond, Value x, Value y) {
    return SelectOp::create(b, loc, rt, cond, x, y).getResult();
  };

  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case<ConstantOp>([&](auto) { return success(); })
      .Case<AddOp>([&](auto) {
        toOperand(0, g);
        toOperand(1, g);
        return success();
      })
      .Case<SubOp>([&](auto) {
        toOperand(0, g);
        toOperand(1, neg(g));
        return success();
      })
      .Case<MulOp>([&](auto) {
        toOperand(0, mul(g, operand(1)));
        toOperand(1, mul(g, operand(0)));
        return success();
      })
      .Case<DivOp>([&](auto) {
        // d(x/y)/dy = -x/y^2 = -(x/y)/y.
        toOperand(0, div(g, operand(1)));
        toOperand(1, neg(div(mul(g, r), operand(1))));
        return success();
      })
      .Case<MaximumOp, MinimumOp>([&](auto) {
        // Ties go to the first operand, as PyTorch's max does not define.
        Value first =
            isa<MaximumOp>(op)
                ? GeOp::create(b, loc, boolLike(rt), operand(0), operand(1))
                      .getResult()
                : LeOp::create(b, loc, boolLike(rt), operand(0), operand(1))
                      .getResult();
        Value zero = splat(rt, 0.0);
        toOperand(0, select(first, g, zero));
        toOperand(1, select(first, zero, g));
        return success();
      })
      .Case<SelectOp>([&](SelectOp s) {
        Value zero = splat(rt, 0.0);
        toOperand(1, select(s.getCond(), g, zero));
        toOperand(2, select(s.getCond(), zero, g));
        return success();
      })
      .Case<NegOp>([&](auto) {
        accumulate(operand(0), neg(g));
        return success();
      })
      .Case<AbsOp>([&](auto) {
        Value x = operand(0);
        Value pos =
            GeScalarOp::create(b, loc, boolLike(rt), x, scalar(rt, 0.0));
        accumulate(x, select(pos, g, neg(g)));
        return success();
      })
      .Case<SquareOp>([&](auto) {
        Value twice = MulScalarOp::create(b, loc, rt, g, scalar(rt, 2.0));
        accumulate(operand(0), mul(twice, operand(0)));
        return success();
      })
      .Case<SqrtOp>([&](auto) {
        Value half = MulScalarOp::create(b, loc, rt, g, scalar(rt, 0.5));
        accumulate(operand(0), div(half, r));
        return success();
      })
      .Case<RecipOp>([&](auto) {
        accumulate(operand(0), neg(mul(mul(g, r), r)));
        return success();
      })
      .Case<ExpOp>([&](auto) {
        accumulate(operand(0), mul(g, r));
        return success();
      })
      .Case<LnOp>([&](auto) {
        accumulate(operand(0), div(g, operand(0)));
        return success();
      })
      .Case<TanhOp>([&](auto) {
        // g * (1 - r^2) = g - g*r*r.
        accumulate(operand(0), sub(g, mul(mul(g, r), r)));
        return success();
      })
      .Case<SigmoidOp>([&](auto) {
        // g * r * (1 - r) = g*r - g*r*r.
        Value gr = mul(g, r);
        accumulate(operand(0), sub(gr, mul(gr, r)));
        return success();
      })
      .Case<ReluOp>([&](auto) {
        Value pos = GtScalarOp::create(b, loc, boolLike(rt), operand(0),
                                       scalar(rt, 0.0));
        accumulate(operand(0), select(pos, g, splat(rt, 0.0)));
        return success();
      })
      .Case<LeakyReluOp>([&](LeakyReluOp l) {
        Value pos = GtScalarOp::create(b, loc, boolLike(rt), operand(0),
                                       scalar(rt, 0.0));
        Value slope = MulScalarOp::create(b, loc, rt, g, l.getScalar());
        accumulate(operand(0), select(pos, g, slope));
        return success();
      })
      .Case<AddScalarOp, SubScalarOp>([&](auto) {
        accumulate(operand(0), g);
        return success();
      })
      .Case<MulScalarOp>([&](MulScalarOp m) {
        accumulate(operand(0),
                   MulScalarOp::create(b, loc, rt, g, m.getScalar()));
        return success();
      })
      .Case<DivScalarOp>([&](DivScalarOp d) {
        accumulate(operand(0),
                   DivScalarOp::create(b, loc, rt, g, d.getScalar()));
        return success();
      })
      .Case<CastOp>([&](auto) -> LogicalResult {
        if (!isFloatTensor(operand(0)))
          return success(); // from an integer or boolean: no gradient
        accumulate(operand(0), CastOp::create(b, loc, tensorOf(operand(0)), g));
        return success();
      })
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>([&](auto) {
        accumulate(operand(0), reshape(g, tensorOf(operand(0))));
        return success();
      })
      .Case<BroadcastOp>([&](auto) {
        accumulate(operand(0), unbroadcast(g, tensorOf(operand(0))));
        return success();
      })
      .Case<TransposeOp>([&](TransposeOp t) {
        ArrayRef<int64_t> perm = t.getPerm();
        SmallVector<int64_t> inverse(perm.size());
        for (auto [i, p] : llvm::enumerate(perm))
          inverse[p] = i;
        accumulate(operand(0),
                   TransposeOp::create(b, loc, tensorOf(operand(0)), g,
                                       b.getDenseI64ArrayAttr(inverse)));
        return success();
      })
      .Case<ReduceSumOp, ReduceMeanOp>([&](auto red) {
        auto in = tensorOf(operand(0));
        SmallVector<int64_t> kept(in.getShape());
        int64_t count = 1;
        for (int64_t d : red.getDims()) {
          kept[d] = 1;
          count *= in.getDimSize(d);
        }
        Value v = reshape(g, RankedTensorType::get(kept, in.getElementType()));
        v = BroadcastOp::create(b, loc, in, v);
        if (isa<ReduceMeanOp>(op))
          v = MulScalarOp::create(b, loc, in, v,
                                  scalar(in, 1.0 / double(count)));
        accumulate(operand(0), v);
        return success();
      })
      .Default([&](Operation *) { return applyStructured(op, g); });
}

FailureOr<SmallVector<Value>> gradients(OpBuilder &b, Location loc, Block &body,
                                        Value loss, ArrayRef<Value> wrt) {
  Backward backward(b);
  backward.loc = loc;
  auto lossType = tensorOf(loss);
  auto one = DenseElementsAttr::get(
      lossType, FloatAttr::get(lossType.getElementType(), 1.0));
  backward.accumulate(loss,
                      ConstantOp::create(b, loc, cast<ElementsAttr>(one)));
  // The forward ops before the insertion point, in reverse.
  SmallVector<Operation *> forward;
  for (Operation &op : body) {
    if (&op == &*b.getInsertionPoint())
      break;
    forward.push_back(&op);
  }
  for (Operation *op : llvm::reverse(forward)) {
    bool needed = llvm::any_of(op->getResults(), [&](Value r) {
      return static_cast<bool>(backward.gradOf(r));
    });
    if (!needed)
      continue;
    if (op->getNumResults() != 1)
      return op->emitError("no gradient rule for '")
             << op->getName() << "' (an op of several results)";
    if (op->getNumRegions() != 0)
      return op->emitError("no gradient rule for '")
             << op->getName() << "' (control flow)";
    if (failed(backward.apply(op, backward.gradOf(op->getResult(0)))))
      return failure();
  }
  SmallVector<Value> grads;
  for (Value v : wrt) {
    Value g = backward.gradOf(v);
    if (!g) {
      auto t = tensorOf(v);
      g = ConstantOp::create(b, loc,
                             cast<ElementsAttr>(DenseElementsAttr::get(
                                 t, FloatAttr::get(t.getElementType(), 0.0))));
    }
    grads.push_back(g);
  }
  return grads;
}

} // namespace hodu::autodiff

namespace {

using namespace hodu::autodiff;

struct Autodiff : hodu::impl::AutodiffBase<Autodiff> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto f = module.lookupSymbol<func::FuncOp>(function);
    if (!f || f.isExternal() || !f.getBody().hasOneBlock()) {
      module.emitError("hodu-autodiff: no function '")
          << function << "' with a body of one block";
      return signalPassFailure();
    }
    Block &body = f.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    if (loss >= ret.getNumOperands()) {
      f.emitError("hodu-autodiff: the loss is result #")
          << static_cast<unsigned>(loss) << ", but the function has "
          << ret.getNumOperands();
      return signalPassFailure();
    }
    Value lossValue = ret.getOperand(loss);
    auto lossType = dyn_cast<RankedTensorType>(lossValue.getType());
    if (!isFloatTensor(lossValue) || lossType.getNumElements() != 1) {
      f.emitError("hodu-autodiff: the loss (result #")
          << static_cast<unsigned>(loss)
          << ") must be a floating-point tensor of one element, not "
          << lossValue.getType();
      return signalPassFailure();
    }
    SmallVector<unsigned> args(wrt.begin(), wrt.end());
    if (args.empty())
      for (BlockArgument a : body.getArguments())
        if (isFloatTensor(a))
          args.push_back(a.getArgNumber());
    for (unsigned a : args)
      if (a >= body.getNumArguments() || !isFloatTensor(body.getArgument(a))) {
        f.emitError("hodu-autodiff: argument #")
            << a << " is not a floating-point tensor argument of '" << function
            << "'";
        return signalPassFailure();
      }

    OpBuilder b(ret);
    SmallVector<Value> wrtValues;
    for (unsigned a : args)
      wrtValues.push_back(body.getArgument(a));
    FailureOr<SmallVector<Value>> grads =
        gradients(b, ret.getLoc(), body, lossValue, wrtValues);
    if (failed(grads))
      return signalPassFailure();
    SmallVector<Value> results{lossValue};
    llvm::append_range(results, *grads);
    func::ReturnOp::create(b, ret.getLoc(), results);
    ret.erase();
    f.setType(FunctionType::get(f.getContext(), f.getArgumentTypes(),
                                ValueRange(results).getTypes()));
    // The results are new: attributes of the old ones (names) do not apply.
    f.removeResAttrsAttr();
  }
};

} // namespace

FailureOr<SmallVector<Value>> hodu::buildGradients(OpBuilder &b, Location loc,
                                                   Block &body, Value y,
                                                   ArrayRef<Value> wrt) {
  // The seed is ones of y's type: the gradient of the sum of its elements.
  return autodiff::gradients(b, loc, body, y, wrt);
}
