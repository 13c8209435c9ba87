//===- FoldConstants.cpp - evaluate hodu ops on constants -----------------===//
//
// Evaluates hodu ops whose operands are all `hodu.constant` at compile time
// (with the dialect's evaluator, hodu/Dialect/Hodu/Evaluator.h), and folds a
// per-channel affine tail (what the ONNX importer emits for an inference
// BatchNormalization, a bias, a Gemm alpha) into the weights of the
// preceding conv or matmul.
//
// Constants are read in place and each result is written once, into a heap
// resource blob when it is large (so a transposed 16 MiB weight costs one
// new 16 MiB buffer, not a vector of APFloats).
//
//===----------------------------------------------------------------------===//

#include "hodu/Transforms/Passes.h"

#include "hodu/Dialect/Hodu/Evaluator.h"
#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

#include <cstring>
#include <optional>

namespace hodu {
#define GEN_PASS_DEF_FOLDCONSTANTS
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;
using namespace hodu;

namespace {

//===----------------------------------------------------------------------===//
// Affine tails of conv and matmul
//===----------------------------------------------------------------------===//

/// The value per channel of a float constant that varies at most along
/// `axis` of a result of rank `rank` (numpy broadcasting), else nullopt.
std::optional<SmallVector<double>> perChannel(const ConstantView &k,
                                              int64_t rank, int64_t axis,
                                              int64_t channels) {
  if (k.getKind() != ElementKind::Float || k.getType().getRank() > rank)
    return std::nullopt;
  int64_t lead = rank - k.getType().getRank();
  bool varies = false;
  for (int64_t d = 0; d < k.getType().getRank(); ++d) {
    int64_t size = k.shape()[d];
    if (d + lead == axis && size == channels)
      varies = true;
    else if (size != 1)
      return std::nullopt;
  }
  SmallVector<double> v(channels);
  for (int64_t c = 0; c < channels; ++c)
    v[c] = k.f(varies ? c : 0);
  return v;
}

/// A run of per-channel affine ops: its result is `x * s + t` per channel.
struct AffineChain {
  SmallVector<double> s, t;
  SmallVector<Operation *> ops;
  bool scaled = false;
};

bool isAffineOpName(StringRef name) {
  return llvm::is_contained(ArrayRef<StringRef>{"add", "sub", "mul", "div"},
                            name);
}

/// Collects the chain that starts at `first` (a user of `cur`): hodu `add`,
/// `sub`, `mul`, `div` with a constant that varies only along `axis`, or
/// their `_scalar` forms, each keeping the type `rt`. It goes past an op
/// only while that op's result has exactly one user.
AffineChain collectChain(Value cur, Operation *first, RankedTensorType rt,
                         int64_t axis) {
  int64_t channels = rt.getDimSize(axis), rank = rt.getRank();
  AffineChain ch;
  ch.s.assign(channels, 1.0);
  ch.t.assign(channels, 0.0);
  for (Operation *user = first; user;) {
    if (!isa<hodu::HoduDialect>(user->getDialect()) ||
        user->getNumResults() != 1 || user->getResult(0).getType() != rt)
      break;
    StringRef name = user->getName().stripDialect();
    SmallVector<double> k;
    bool curIsLhs = user->getOperand(0) == cur;
    if (auto scalar = user->getAttrOfType<FloatAttr>("scalar")) {
      if (!name.ends_with("_scalar") || user->getNumOperands() != 1)
        break;
      name = name.drop_back(strlen("_scalar"));
      k.assign(channels, scalar.getValueAsDouble());
    } else if (user->getNumOperands() == 2) {
      auto e = ConstantView::get(getConstantValue(user->getOperand(curIsLhs ? 1 : 0)));
      if (!e)
        break;
      auto v = perChannel(*e, rank, axis, channels);
      if (!v)
        break;
      k = std::move(*v);
    } else {
      break;
    }
    if (!isAffineOpName(name) ||
        (name == "div" &&
         (!curIsLhs || llvm::is_contained(k, 0.0))))
      break;
    for (int64_t c = 0; c < channels; ++c) {
      double &s = ch.s[c], &t = ch.t[c];
      if (name == "add") {
        t += k[c];
      } else if (name == "sub") {
        if (!curIsLhs)
          s = -s, t = -t;
        t += curIsLhs ? -k[c] : k[c];
      } else if (name == "mul") {
        s *= k[c], t *= k[c];
      } else {
        s /= k[c], t /= k[c];
      }
    }
    ch.scaled |= name == "mul" || name == "div" || (name == "sub" && !curIsLhs);
    ch.ops.push_back(user);
    cur = user->getResult(0);
    user = cur.hasOneUse() ? *cur.getUsers().begin() : nullptr;
  }
  return ch;
}

/// A constant of per-channel values shaped to broadcast along `axis` of a
/// tensor of rank `rank`: [C, 1, ...] (rank - axis dims) as importers do.
Value channelConstant(OpBuilder &b, Location loc, ArrayRef<double> values,
                      int64_t rank, int64_t axis, Type elt,
                      const EvaluationLimits &limits) {
  SmallVector<int64_t> shape(rank - axis, 1);
  shape[0] = values.size();
  ConstantWriter out(RankedTensorType::get(shape, elt), limits.resourceBytes);
  for (size_t c = 0; c < values.size(); ++c)
    out.setF(c, values[c]);
  return hodu::ConstantOp::create(b, loc, out.finish());
}

/// Replaces the chain's last result by `v` and erases the chain.
void replaceChain(AffineChain &ch, Value v) {
  ch.ops.back()->getResult(0).replaceAllUsesWith(v);
  for (Operation *op : llvm::reverse(ch.ops))
    op->erase();
}

bool anyNot(ArrayRef<double> v, double x) {
  return llvm::any_of(v, [&](double e) { return e != x; });
}

/// Folds `root(x, W)` followed by a per-channel affine chain (a bias, an
/// inference BatchNormalization as the ONNX importer emits it, a Gemm alpha)
/// into `root(x, W * s) + t`. Returns true if it rewrote.
bool foldAffineTail(Operation *root, const EvaluationLimits &limits) {
  auto rt = dyn_cast<RankedTensorType>(root->getResult(0).getType());
  auto w = ConstantView::get(getConstantValue(root->getOperand(1)));
  if (!rt || !rt.hasStaticShape() || !w || w->getKind() != ElementKind::Float ||
      w->size() > limits.maxElements || !root->getResult(0).hasOneUse())
    return false;
  bool isConv = isa<hodu::ConvOp>(root);
  int64_t rank = rt.getRank();
  if (rank < 2 || (!isConv && w->getType().getRank() != 2))
    return false;
  int64_t axis = isConv ? 1 : rank - 1;
  Value start = root->getResult(0);
  AffineChain ch =
      collectChain(start, *start.getUsers().begin(), rt, axis);
  if (ch.ops.empty() || (!ch.scaled && ch.ops.size() < 2))
    return false;

  // The scaled weights: conv scales output channel o = dim 0 of W, matmul
  // column n = dim 1 of W[K, N].
  ConstantWriter newW(w->getType(), limits.resourceBytes);
  ArrayRef<int64_t> wShape = w->shape();
  int64_t inner = isConv ? w->size() / wShape[0] : 1;
  for (int64_t i = 0, n = w->size(); i < n; ++i) {
    int64_t c = isConv ? i / inner : i % wShape[1];
    newW.setF(i, w->f(i) * ch.s[c]);
  }
  OpBuilder b(ch.ops.back());
  Location loc = ch.ops.back()->getLoc();
  Value wConst = hodu::ConstantOp::create(b, root->getLoc(), newW.finish());
  Operation *newRoot = b.clone(*root);
  newRoot->setOperand(1, wConst);
  Value result = newRoot->getResult(0);
  if (anyNot(ch.t, 0.0))
    result = hodu::AddOp::create(
        b, loc, result,
        channelConstant(b, loc, ch.t, rank, axis, rt.getElementType(), limits));
  replaceChain(ch, result);
  root->erase();
  return true;
}

/// The non-constant operand of an affine op, if it has exactly one.
Value affineInput(Operation *op) {
  if (!isa<hodu::HoduDialect>(op->getDialect()) || op->getNumResults() != 1)
    return {};
  StringRef name = op->getName().stripDialect();
  if (op->hasAttr("scalar") && name.ends_with("_scalar"))
    name = name.drop_back(strlen("_scalar"));
  if (!isAffineOpName(name))
    return {};
  Value data;
  for (Value v : op->getOperands()) {
    if (getConstantValue(v))
      continue;
    if (data)
      return {};
    data = v;
  }
  return data;
}

/// Whether each of `v` rounds to a finite, nonzero, normal value of `elt`.
bool normalIn(ArrayRef<double> v, Type elt) {
  const llvm::fltSemantics &sem = cast<FloatType>(elt).getFloatSemantics();
  for (double x : v) {
    APFloat a(x);
    bool lost = false;
    a.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    if (!a.isFiniteNonZero() || a.isDenormal())
      return false;
  }
  return true;
}

/// Collapses a per-channel affine chain on any value (BatchNormalization
/// after something other than a conv) into at most one mul and one add. A
/// lone division by a constant becomes a multiply by its reciprocal (when
/// that is a normal number of the element type): a division is several
/// times the cost of a multiply (GELU's x / sqrt(2) was one of two
/// `vdivps` per vector); the result can differ from the quotient by one
/// rounding, as the chains' folding already can.
bool collapseChain(Operation *head, const EvaluationLimits &limits) {
  Value x = affineInput(head);
  if (!x)
    return false;
  auto rt = dyn_cast<RankedTensorType>(x.getType());
  if (!rt || !rt.hasStaticShape() || rt.getRank() < 1 ||
      !isa<FloatType>(rt.getElementType()) ||
      !getElementKind(rt.getElementType()))
    return false;
  int64_t rank = rt.getRank();
  for (int64_t axis : {std::min<int64_t>(1, rank - 1), rank - 1}) {
    AffineChain ch = collectChain(x, head, rt, axis);
    bool needMul = anyNot(ch.s, 1.0), needAdd = anyNot(ch.t, 0.0);
    bool loneDivision =
        ch.ops.size() == 1 && needMul && !needAdd &&
        ch.ops[0]->getName().stripDialect().starts_with("div") &&
        normalIn(ch.s, rt.getElementType());
    if (!loneDivision &&
        ch.ops.size() <= static_cast<size_t>(needMul + needAdd))
      continue;
    OpBuilder b(ch.ops.back());
    Location loc = ch.ops.back()->getLoc();
    Value v = x;
    Type elt = rt.getElementType();
    if (needMul)
      v = hodu::MulOp::create(
          b, loc, v, channelConstant(b, loc, ch.s, rank, axis, elt, limits));
    if (needAdd)
      v = hodu::AddOp::create(
          b, loc, v, channelConstant(b, loc, ch.t, rank, axis, elt, limits));
    replaceChain(ch, v);
    return true;
  }
  return false;
}

struct FoldConstantsPass
    : hodu::impl::FoldConstantsBase<FoldConstantsPass> {
  using FoldConstantsBase::FoldConstantsBase;

  void runOnOperation() override {
    EvaluationLimits limits(sizeLimit, workLimit, resourceBytes);
    ModuleOp module = getOperation();

    // Evaluate ops on constants, producers first (functions are one block
    // in program order, so a walk sees a folded producer before its users).
    module.walk([&](Operation *op) { foldToConstants(op, limits); });

    SmallVector<Operation *> roots;
    module.walk([&](Operation *op) {
      if (isa<hodu::ConvOp, hodu::MatmulOp>(op))
        roots.push_back(op);
    });
    for (Operation *root : roots)
      foldAffineTail(root, limits);

    // Remaining chains start at an affine op whose input is not itself the
    // single-use result of an affine op (chains never overlap).
    SmallVector<Operation *> heads;
    module.walk([&](Operation *op) {
      Value x = affineInput(op);
      if (!x)
        return;
      Operation *producer = x.getDefiningOp();
      if (producer && x.hasOneUse() && affineInput(producer))
        return;
      heads.push_back(op);
    });
    for (Operation *head : heads)
      collapseChain(head, limits);

    // Constants nothing reads any more (folded operands).
    SmallVector<Operation *> dead;
    module.walk([&](hodu::ConstantOp c) {
      if (c->use_empty())
        dead.push_back(c);
    });
    for (Operation *op : dead)
      op->erase();
  }
};

} // namespace
