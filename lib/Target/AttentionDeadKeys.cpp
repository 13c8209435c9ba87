//===- AttentionDeadKeys.cpp - key ranges a constant mask takes away ------===//
//
// See hodu::skipDeadKeys in include/hodu/Target/AttentionTiles.h. A fused
// attention loop (one iteration per batch and block of query rows) computes
// each block's scores against every key. Where a constant mask (a causal
// one, a sliding window's far edge, constant padding) sets a block's
// trailing keys to minus infinity, those keys add nothing to the softmax or
// to P V: their exponentials are exactly 0. This file finds the last key
// each block of rows can see, splits the loop's blocks into a few runs that
// see about as many keys, and narrows each run's copy of the body to its
// keys, so that a causal chain computes about half its products.
//
// What "dead" means is proved on the body's scalar code, not assumed from
// a pattern: the mask's op must take a dead position to a value of at most
// -1e30 (adding such a constant, or selecting one by a constant condition);
// every op after it must keep that value hugely negative, turn it into an
// exact 0 (exp), or add nothing with it (a max or sum over the keys, the
// product with V). The only assumption is that the scores themselves are
// finite and well below 1e29 in magnitude.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/AttentionTiles.h"

#include "AttentionKeys.h"

#include "hodu/Support/DType.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/DenseMap.h"

#include <cstring>

using namespace mlir;

namespace {

using hodu::attention::findKeyDims;
using hodu::attention::KeyDims;
using hodu::attention::secondProduct;

/// What a value holds at the positions of dead keys.
enum class Dead {
  Any,      // whatever (the scores before the mask): finite
  Finite,   // a value that does not depend on the key (a row's max, sum)
  Positive, // a constant > 0 (a scale)
  Huge,     // a constant <= -1e30 (the mask's fill)
  MaskArg,  // the mask's element, inside the mask's op
  Negative, // at most -1e30: the masked scores
  Zero,     // exactly 0: their exponentials, probabilities
  Acc,      // a reduction's accumulator, unchanged
  Unknown,  // anything else: the proof fails
};

/// How the mask's element makes a position dead.
enum class MaskRule { None, AtMostHuge, False, True };

constexpr double kHuge = -1e30;

/// A float constant's class (a scalar, or a tensor of one value: a
/// broadcast operand): Huge, Positive or Finite.
Dead classOfConstant(Value v) {
  Attribute a;
  if (!matchPattern(v, m_Constant(&a)))
    return Dead::Unknown;
  auto f = dyn_cast<FloatAttr>(a);
  if (auto dense = dyn_cast<DenseFPElementsAttr>(a); dense && dense.isSplat())
    f = dense.getSplatValue<FloatAttr>();
  if (!f)
    return Dead::Unknown;
  double x = f.getValueAsDouble();
  if (x <= kHuge)
    return Dead::Huge;
  if (x > 0 && std::isfinite(x))
    return Dead::Positive;
  return std::isfinite(x) ? Dead::Finite : Dead::Unknown;
}

/// The class at dead positions of the value a scalar op computes from
/// classes of its operands; `rule` is set where the op is the mask.
Dead evaluate(Operation *op, ArrayRef<Dead> in, MaskRule &rule) {
  auto any = [](Dead d) {
    return d == Dead::Any || d == Dead::Finite || d == Dead::Positive;
  };
  if (isa<arith::AddFOp>(op)) {
    for (int i = 0; i < 2; ++i) {
      Dead a = in[i], b = in[1 - i];
      if (a == Dead::MaskArg && any(b))
        return rule = MaskRule::AtMostHuge, Dead::Negative;
      if (a == Dead::Negative && (any(b) || b == Dead::Huge))
        return Dead::Negative;
      if (a == Dead::Acc && b == Dead::Zero)
        return Dead::Acc;
    }
    if (in[0] == Dead::Zero && in[1] == Dead::Zero)
      return Dead::Zero;
  } else if (isa<arith::SubFOp>(op)) {
    if (in[0] == Dead::Negative && any(in[1]))
      return Dead::Negative;
  } else if (isa<arith::MulFOp>(op)) {
    for (int i = 0; i < 2; ++i) {
      if (in[i] == Dead::Negative && in[1 - i] == Dead::Positive)
        return Dead::Negative;
      if (in[i] == Dead::Zero && any(in[1 - i]))
        return Dead::Zero;
    }
  } else if (isa<arith::DivFOp>(op)) {
    if (in[0] == Dead::Negative && in[1] == Dead::Positive)
      return Dead::Negative;
    if (in[0] == Dead::Zero && any(in[1]))
      return Dead::Zero;
  } else if (isa<math::ExpOp>(op)) {
    if (in[0] == Dead::Negative)
      return Dead::Zero;
  } else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op)) {
    for (int i = 0; i < 2; ++i)
      if (in[i] == Dead::Acc && in[1 - i] == Dead::Negative)
        return Dead::Acc;
  } else if (isa<arith::SelectOp>(op)) {
    if (in[0] == Dead::MaskArg && any(in[1]) && in[2] == Dead::Huge)
      return rule = MaskRule::False, Dead::Negative;
    if (in[0] == Dead::MaskArg && in[1] == Dead::Huge && any(in[2]))
      return rule = MaskRule::True, Dead::Negative;
    if (in[1] == in[2] && in[0] != Dead::MaskArg)
      return in[1];
  } else if (isa<arith::TruncFOp, arith::ExtFOp>(op)) {
    if (in[0] != Dead::MaskArg)
      return in[0];
  }
  if (llvm::all_of(in, any))
    return Dead::Any;
  return Dead::Unknown;
}

/// The mask: a constant sliced inside the loop, and how its elements make
/// a score dead.
struct Mask {
  tensor::ExtractSliceOp slice;
  MaskRule rule = MaskRule::None;
};

/// Proves that the keys the mask kills add nothing to the second product
/// (see the file's comment); returns the mask, or none.
std::optional<Mask> proveDead(const KeyDims &labels, linalg::LinalgOp pv) {
  llvm::DenseMap<Value, Dead> dead;
  auto classOf = [&](Value v) {
    if (auto it = dead.find(v); it != dead.end())
      return it->second;
    if (labels.dims.count(v))
      return Dead::Any;
    Dead c = classOfConstant(v);
    return c == Dead::Unknown ? Dead::Finite : c;
  };
  std::optional<Mask> mask;
  for (Operation &op : *labels.body) {
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(&op)) {
      dead[op.getResult(0)] = classOf(op.getOperand(0));
      continue;
    }
    auto l = dyn_cast<linalg::LinalgOp>(&op);
    if (!l || &op == pv.getOperation())
      continue;
    if (!isa<linalg::GenericOp>(&op)) {
      // A product or fill before the mask: whatever it computes is finite.
      for (Value in : l.getDpsInputs())
        if (Dead d = classOf(in);
            d == Dead::Negative || d == Dead::Zero || d == Dead::Unknown)
          return std::nullopt;
      continue;
    }
    auto g = cast<linalg::GenericOp>(&op);
    bool keyed = llvm::any_of(op.getOperands(),
                              [&](Value v) { return labels.dims.count(v); });
    if (!keyed)
      continue;
    if (g.getNumDpsInits() != 1)
      return std::nullopt;
    llvm::DenseMap<Value, Dead> scalar;
    tensor::ExtractSliceOp maskSlice;
    for (OpOperand *in : g.getDpsInputOperands()) {
      Value v = in->get();
      Dead d = classOf(v);
      auto slice = v.getDefiningOp<tensor::ExtractSliceOp>();
      if (!mask && slice && labels.dims.count(v) &&
          matchPattern(slice.getSource(), m_Constant())) {
        d = Dead::MaskArg;
        maskSlice = slice;
      }
      scalar[g.getMatchingBlockArgument(in)] = d;
    }
    bool reduces = g.getNumReductionLoops() > 0;
    scalar[g.getMatchingBlockArgument(g.getDpsInitOperand(0))] =
        reduces ? Dead::Acc : Dead::Finite;
    MaskRule rule = MaskRule::None;
    Dead result = Dead::Unknown;
    for (Operation &s : g.getRegion().front()) {
      if (auto yield = dyn_cast<linalg::YieldOp>(&s)) {
        Value y = yield.getOperand(0);
        result = scalar.count(y) ? scalar[y] : classOfConstant(y);
        break;
      }
      SmallVector<Dead> in;
      for (Value v : s.getOperands())
        in.push_back(scalar.count(v) ? scalar[v] : classOfConstant(v));
      MaskRule r = MaskRule::None;
      Dead d = isa<arith::ConstantOp>(&s) ? classOfConstant(s.getResult(0))
                                          : evaluate(&s, in, r);
      if (r != MaskRule::None) {
        if (rule != MaskRule::None)
          return std::nullopt;
        rule = r;
      }
      if (s.getNumResults() == 1)
        scalar[s.getResult(0)] = d;
    }
    if (rule != MaskRule::None) {
      if (!maskSlice || reduces)
        return std::nullopt;
      mask = Mask{maskSlice, rule};
    }
    // A reduction over the keys must leave its accumulator as it was.
    SmallVector<unsigned> reductions;
    g.getReductionDims(reductions);
    bool overKeys = false;
    for (OpOperand *in : g.getDpsInputOperands())
      if (auto it = labels.dims.find(in->get()); it != labels.dims.end())
        for (int64_t d : it->second)
          if (auto e = dyn_cast<AffineDimExpr>(
                  g.getMatchingIndexingMap(in).getResult(d)))
            overKeys |= llvm::is_contained(reductions, e.getPosition());
    if (overKeys && result != Dead::Acc)
      return std::nullopt;
    if (!overKeys && reduces)
      return std::nullopt;
    if (result == Dead::Unknown)
      return std::nullopt;
    if (!overKeys)
      dead[g->getResult(0)] = result;
  }
  if (!mask || classOf(pv.getDpsInputs()[0]) != Dead::Zero)
    return std::nullopt;
  return mask;
}

/// The number of keys each row of the loop's blocks sees: one past the
/// last key the mask leaves alive in that row, over every other index of
/// the mask; every key for a row the mask kills whole (whose result the
/// narrowed loop must not change). Empty if the mask cannot be read.
SmallVector<int64_t> liveKeys(const Mask &mask, const KeyDims &labels,
                              Value rowIndex, int64_t rows) {
  tensor::ExtractSliceOp slice = mask.slice;
  auto type = cast<RankedTensorType>(slice.getSource().getType());
  Attribute value;
  if (!matchPattern(slice.getSource(), m_Constant(&value)))
    return {};
  std::string bytes;
  if (!hodu::constantBytes(value, bytes))
    return {};
  // An added mask is f32 (the scores' type), a selecting one i1 (one byte
  // per element in constantBytes' form).
  bool isF32 = mask.rule == MaskRule::AtMostHuge;
  Type elt = type.getElementType();
  if (isF32 ? !elt.isF32() : !elt.isInteger(1))
    return {};
  int64_t n = type.getNumElements();
  if (int64_t(bytes.size()) != n * (isF32 ? 4 : 1))
    return {};
  auto deadAt = [&](int64_t i) {
    if (isF32) {
      float f;
      std::memcpy(&f, bytes.data() + 4 * i, 4);
      return f <= kHuge;
    }
    bool set = bytes[i] != 0;
    return mask.rule == MaskRule::False ? !set : set;
  };
  // The slice's key dim and row dim (the one at the loop's row index).
  int64_t keyDim = labels.dims.lookup(slice.getResult()).front(), rowDim = -1;
  for (auto [d, offset] : llvm::enumerate(slice.getMixedOffsets()))
    if (auto v = dyn_cast<Value>(offset); v && v == rowIndex)
      rowDim = d;
  if (rowDim >= 0 && type.getDimSize(rowDim) != rows)
    return {};
  int64_t keys = type.getDimSize(keyDim);
  SmallVector<int64_t> last(rows, -1);
  SmallVector<int64_t> strides(type.getRank(), 1);
  for (int64_t d = type.getRank() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * type.getDimSize(d + 1);
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = i / strides[keyDim] % keys;
    int64_t r = rowDim < 0 ? -1 : i / strides[rowDim] % rows;
    if (deadAt(i))
      continue;
    if (r < 0) {
      for (int64_t &l : last)
        l = std::max(l, k);
    } else {
      last[r] = std::max(last[r], k);
    }
  }
  SmallVector<int64_t> live;
  for (int64_t l : last)
    live.push_back(l < 0 ? keys : l + 1);
  return live;
}

/// Narrows every key dim to its first `keys` keys in a copy of the loop
/// whose body `copy` maps the labelled one's values to.
void narrow(const KeyDims &labels, const IRMapping &copy, int64_t keys) {
  for (const auto &entry : labels.dims)
    hodu::attention::retype(copy.lookup(entry.first),
                            labels.narrowedType(entry.first, keys));
}
} // namespace

SmallVector<scf::ForallOp> hodu::skipDeadKeys(scf::ForallOp loop,
                                              const DeadKeyOptions &options) {
  int64_t quantum = options.quantum;
  SmallVector<scf::ForallOp> whole{loop};
  linalg::LinalgOp pv = secondProduct(loop);
  if (!pv || loop.getRank() < 1 || loop.getOutputs().size() != 1 ||
      quantum < 1 || llvm::any_of(loop.getStaticLowerBound(), [](int64_t b) {
        return b != 0;
      }))
    return whole;
  KeyDims labels = findKeyDims(loop, pv);
  if (labels.failed || labels.dims.empty())
    return whole;
  std::optional<Mask> mask = proveDead(labels, pv);
  if (!mask)
    return whole;
  // The loop's last dim steps over blocks of query rows.
  unsigned rowIv = loop.getRank() - 1;
  int64_t rows = loop.getStaticUpperBound()[rowIv],
          block = loop.getStaticStep()[rowIv];
  if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(block) ||
      rows % block != 0)
    return whole;
  SmallVector<int64_t> live =
      liveKeys(*mask, labels, loop.getInductionVars()[rowIv], rows);
  if (live.empty())
    return whole;
  // Runs of consecutive blocks that see as many keys (rounded up to the
  // quantum); a coarser quantum while there are too many runs.
  struct Run {
    int64_t first, end, keys;
  };
  SmallVector<Run> runs;
  for (;; quantum *= 2) {
    runs.clear();
    for (int64_t b = 0; b < rows / block; ++b) {
      int64_t need = 0;
      for (int64_t r = b * block; r < (b + 1) * block; ++r)
        need = std::max(need, live[r]);
      need = std::min<int64_t>(labels.keys, llvm::alignTo(need, quantum));
      if (!runs.empty() && runs.back().keys == need)
        runs.back().end = b + 1;
      else
        runs.push_back({b, b + 1, need});
    }
    if (int64_t(runs.size()) <= options.maxRuns || quantum >= labels.keys)
      break;
  }
  // Runs too short to fill the threads or the GPU join their neighbours
  // (the larger key count), the last one its predecessor.
  int64_t outer = 1;
  for (unsigned d = 0; d < rowIv; ++d)
    outer *= llvm::divideCeil(loop.getStaticUpperBound()[d],
                              loop.getStaticStep()[d]);
  auto iterations = [&](const Run &r) { return outer * (r.end - r.first); };
  SmallVector<Run> joined;
  for (const Run &run : runs) {
    if (!joined.empty() && iterations(joined.back()) < options.minIterations) {
      joined.back().end = run.end;
      joined.back().keys = std::max(joined.back().keys, run.keys);
    } else {
      joined.push_back(run);
    }
  }
  if (joined.size() > 1 && iterations(joined.back()) < options.minIterations) {
    Run last = joined.pop_back_val();
    joined.back().end = last.end;
    joined.back().keys = std::max(joined.back().keys, last.keys);
  }
  runs = std::move(joined);
  if (runs.size() == 1 && runs.front().keys == labels.keys)
    return whole;

  IRRewriter rewriter(loop);
  Value out = loop.getOutputs()[0];
  SmallVector<scf::ForallOp> pieces;
  for (const Run &run : runs) {
    IRMapping copy;
    auto piece = cast<scf::ForallOp>(rewriter.clone(*loop, copy));
    piece.getOutputsMutable().assign(out);
    SmallVector<int64_t> ub(loop.getStaticUpperBound());
    ub[rowIv] = (run.end - run.first) * block;
    piece.setStaticUpperBound(ub);
    if (run.first > 0) {
      Value iv = piece.getInductionVars()[rowIv];
      rewriter.setInsertionPointToStart(piece.getBody());
      Value base = arith::ConstantIndexOp::create(rewriter, loop.getLoc(),
                                                  run.first * block);
      auto shifted = arith::AddIOp::create(rewriter, loop.getLoc(), iv, base);
      rewriter.replaceAllUsesExcept(iv, shifted, shifted);
    }
    if (run.keys < labels.keys)
      narrow(labels, copy, run.keys);
    out = piece.getResult(0);
    pieces.push_back(piece);
    rewriter.setInsertionPoint(loop);
  }
  rewriter.replaceAllUsesWith(loop.getResult(0), out);
  rewriter.eraseOp(loop);
  return pieces;
}
