//===- DecomposeConvTranspose.cpp - strided conv_transpose as phases ------===//
//
// A transposed convolution with stride s is, lowered directly, a
// convolution of the input with s-1 zeros inserted between its elements:
// (s^d - 1)/s^d of its multiply-adds (3/4 in 2-D at stride 2) multiply a
// zero. Split by output phase instead: output position y (+ the low pad)
// = q*s + a, for a in [0, s), only filter taps i = a + s*t contribute,
// from input q - t, so each phase is an ordinary stride-1 convolution of
// the input with the sub-filter w[.., a + s*(T_a - 1 - u)] (the phase's
// taps, flipped; T_a = ceil((k - a) / s) of them) and pads that line its
// output up with q. The s^d phase outputs are interleaved (a reshape of
// their concatenation) and the pads cropped. The phase filters are slices,
// flips and transposes of the weights, which hodu-fold-constants folds
// when the weights are constants.
//
//===----------------------------------------------------------------------===//

#include "hodu/Transforms/Passes.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <map>

namespace hodu {
#define GEN_PASS_DEF_DECOMPOSECONVTRANSPOSE
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;
using namespace hodu;

namespace {

/// One spatial dim of the rewrite.
struct Dim {
  int64_t in, kernel, stride, padLo, out;
  int64_t q0, q; // phase outputs cover q in [q0, q0 + q)
  /// Taps of phase `a`.
  int64_t taps(int64_t a) const {
    return a < kernel ? llvm::divideCeil(kernel - a, stride) : 0;
  }
  /// Input pads (negative: crop) that line a phase's conv up with q.
  int64_t padBefore(int64_t a) const { return taps(a) - 1 - q0; }
  int64_t padAfter() const { return q0 + q - in; }
};

bool decompose(ConvTransposeOp op) {
  auto xt = dyn_cast<RankedTensorType>(op.getLhs().getType());
  auto wt = dyn_cast<RankedTensorType>(op.getRhs().getType());
  auto rt = dyn_cast<RankedTensorType>(op.getResult().getType());
  if (!xt || !wt || !rt || !xt.hasStaticShape() || !wt.hasStaticShape() ||
      !rt.hasStaticShape() || !isa<FloatType>(rt.getElementType()) ||
      xt.getRank() < 3)
    return false;
  int64_t rank = xt.getRank(), s = rank - 2;
  ArrayRef<int64_t> strides = op.getStrides(), dil = op.getDilations(),
                    pads = op.getPads();
  if (llvm::any_of(dil, [](int64_t d) { return d != 1; }) ||
      llvm::all_of(strides, [](int64_t v) { return v == 1; }) ||
      llvm::any_of(strides, [](int64_t v) { return v < 1; }))
    return false;
  int64_t n = xt.getDimSize(0), c = xt.getDimSize(1), o = rt.getDimSize(1);
  int64_t groups = op.getGroups();
  if (groups < 1 || c % groups != 0 || o % groups != 0 ||
      wt.getDimSize(0) != c || wt.getDimSize(1) * groups != o)
    return false;
  SmallVector<Dim> dims;
  for (int64_t i = 0; i < s; ++i) {
    Dim d{xt.getDimSize(2 + i), wt.getDimSize(2 + i), strides[i], pads[i],
          rt.getDimSize(2 + i), 0, 0};
    if (d.padLo < 0 || d.out < 1 || d.kernel < 1)
      return false;
    d.q0 = d.padLo / d.stride;
    d.q = llvm::divideCeil(d.padLo + d.out, d.stride) - d.q0;
    // Every phase with taps must read some input once cropped.
    for (int64_t a = 0; a < d.stride; ++a)
      if (d.taps(a) > 0 &&
          d.in - std::max<int64_t>(-d.padBefore(a), 0) -
                  std::max<int64_t>(-d.padAfter(), 0) <= 0)
        return false;
    dims.push_back(d);
  }

  OpBuilder b(op);
  Location loc = op.getLoc();
  Type elt = rt.getElementType();
  Value x = op.getLhs(), w = op.getRhs();
  int64_t cg = c / groups, og = o / groups;
  SmallVector<int64_t> ones(s, 1);

  SmallVector<int64_t> outShape{n, o};
  for (const Dim &d : dims)
    outShape.push_back(d.q);
  auto outType = RankedTensorType::get(outShape, elt);
  auto tapsOf = [&](ArrayRef<int64_t> a) {
    SmallVector<int64_t> taps;
    for (int64_t i = 0; i < s; ++i)
      taps.push_back(dims[i].taps(a[i]));
    return taps;
  };
  // Phase a's filter taps w[c, og, a + s*(T-1) down to a] as a conv filter
  // [O, C/G, T...].
  auto phaseFilter = [&](ArrayRef<int64_t> a) -> Value {
    SmallVector<int64_t> taps = tapsOf(a);
    SmallVector<int64_t> starts{0, 0}, ends{c, og}, steps{1, 1};
    for (int64_t i = 0; i < s; ++i) {
      starts.push_back(a[i] + dims[i].stride * (taps[i] - 1));
      ends.push_back(a[i] - 1);
      steps.push_back(-dims[i].stride);
    }
    Value wp = SliceOp::create(b, loc, w, b.getDenseI64ArrayAttr(starts),
                               b.getDenseI64ArrayAttr(ends),
                               b.getDenseI64ArrayAttr(steps));
    SmallVector<int64_t> split{groups, cg, og}, perm{0, 2, 1}, conv{o, cg};
    for (int64_t i = 0; i < s; ++i) {
      split.push_back(taps[i]);
      perm.push_back(3 + i);
      conv.push_back(taps[i]);
    }
    wp = ReshapeOp::create(b, loc, RankedTensorType::get(split, elt), wp);
    wp = TransposeOp::create(b, loc, wp, b.getDenseI64ArrayAttr(perm));
    return ReshapeOp::create(b, loc, RankedTensorType::get(conv, elt), wp);
  };
  // Phases with the same taps and pads read the same input windows: without
  // groups they share one convolution, their filters concatenated (a 2x2
  // stride-2 upsampling is one 1x1 conv with 4*O filters).
  std::map<SmallVector<int64_t>, SmallVector<SmallVector<int64_t>>> shared;
  auto keyOf = [&](ArrayRef<int64_t> a) {
    SmallVector<int64_t> key = tapsOf(a);
    for (int64_t i = 0; i < s; ++i)
      key.push_back(dims[i].padBefore(a[i]));
    if (groups != 1) // filters of one group must stay together
      llvm::append_range(key, a);
    return key;
  };
  {
    SmallVector<int64_t> a(s, 0);
    while (true) {
      if (!llvm::is_contained(tapsOf(a), 0))
        shared[keyOf(a)].push_back(a);
      int64_t i = s - 1;
      while (i >= 0 && ++a[i] == dims[i].stride)
        a[i--] = 0;
      if (i < 0)
        break;
    }
  }
  std::map<SmallVector<int64_t>, Value> convs;
  // The phase a's output, [N, O, q_0, ..., q_s-1].
  auto phase = [&](ArrayRef<int64_t> a) -> Value {
    if (llvm::is_contained(tapsOf(a), 0))
      return ConstantOp::create(
          b, loc, DenseElementsAttr::get(outType, b.getZeroAttr(elt)));
    SmallVector<int64_t> key = keyOf(a);
    const SmallVector<SmallVector<int64_t>> &members = shared[key];
    int64_t count = members.size();
    Value &conv = convs[key];
    if (!conv) {
      SmallVector<Value> filters;
      for (const SmallVector<int64_t> &m : members)
        filters.push_back(phaseFilter(m));
      Value filter = count == 1 ? filters.front()
                                : ConcatOp::create(b, loc, filters, uint64_t(0))
                                      .getResult();
      // The input, cropped where the phase starts or ends inside it, and
      // the pads that remain.
      SmallVector<int64_t> cropStart{0, 0}, cropEnd{n, c}, lo, hi;
      bool crop = false;
      for (int64_t i = 0; i < s; ++i) {
        int64_t before = dims[i].padBefore(a[i]), after = dims[i].padAfter();
        cropStart.push_back(std::max<int64_t>(-before, 0));
        cropEnd.push_back(dims[i].in - std::max<int64_t>(-after, 0));
        crop |= before < 0 || after < 0;
        lo.push_back(std::max<int64_t>(before, 0));
        hi.push_back(std::max<int64_t>(after, 0));
      }
      Value xin = x;
      if (crop)
        xin = SliceOp::create(b, loc, x, b.getDenseI64ArrayAttr(cropStart),
                              b.getDenseI64ArrayAttr(cropEnd),
                              b.getDenseI64ArrayAttr(SmallVector<int64_t>(
                                  rank, 1)));
      SmallVector<int64_t> convPads(lo);
      llvm::append_range(convPads, hi);
      SmallVector<int64_t> convShape(outShape);
      convShape[1] = count * o;
      conv = ConvOp::create(b, loc, RankedTensorType::get(convShape, elt), xin,
                            filter, ones, convPads, ones, groups);
    }
    if (count == 1)
      return conv;
    int64_t at = llvm::find(members, SmallVector<int64_t>(a)) - members.begin();
    SmallVector<int64_t> starts(rank, 0), ends(outShape), steps(rank, 1);
    starts[1] = at * o;
    ends[1] = (at + 1) * o;
    return SliceOp::create(b, loc, conv, b.getDenseI64ArrayAttr(starts),
                           b.getDenseI64ArrayAttr(ends),
                           b.getDenseI64ArrayAttr(steps));
  };

  // Interleave: Z[n, o, q_0, a_0, q_1, a_1, ...] = phase(a)[n, o, q_0, ...],
  // built by concatenating along a_i for i from the last dim down.
  std::function<Value(SmallVector<int64_t> &)> interleave =
      [&](SmallVector<int64_t> &prefix) -> Value {
    int64_t i = prefix.size();
    if (i == s) {
      Value p = phase(prefix);
      SmallVector<int64_t> shape{n, o};
      for (int64_t j = 0; j < s; ++j) {
        shape.push_back(dims[j].q);
        shape.push_back(1);
      }
      return ReshapeOp::create(b, loc, RankedTensorType::get(shape, elt), p);
    }
    SmallVector<Value> parts;
    for (int64_t a = 0; a < dims[i].stride; ++a) {
      prefix.push_back(a);
      parts.push_back(interleave(prefix));
      prefix.pop_back();
    }
    if (parts.size() == 1)
      return parts.front();
    return ConcatOp::create(b, loc, parts, uint64_t(2 + 2 * i + 1));
  };
  SmallVector<int64_t> prefix;
  Value z = interleave(prefix);
  SmallVector<int64_t> full{n, o}, starts{0, 0}, ends{n, o};
  for (const Dim &d : dims) {
    full.push_back(d.q * d.stride);
    int64_t start = d.padLo - d.q0 * d.stride;
    starts.push_back(start);
    ends.push_back(start + d.out);
  }
  z = ReshapeOp::create(b, loc, RankedTensorType::get(full, elt), z);
  z = SliceOp::create(b, loc, z, b.getDenseI64ArrayAttr(starts),
                      b.getDenseI64ArrayAttr(ends),
                      b.getDenseI64ArrayAttr(SmallVector<int64_t>(rank, 1)));
  if (z.getType() != rt) {
    // Cannot happen by construction; keep the op rather than miscompile.
    return false;
  }
  op.getResult().replaceAllUsesWith(z);
  op.erase();
  return true;
}

struct DecomposeConvTranspose
    : hodu::impl::DecomposeConvTransposeBase<DecomposeConvTranspose> {
  void runOnOperation() override {
    SmallVector<ConvTransposeOp> ops;
    getOperation().walk([&](ConvTransposeOp op) { ops.push_back(op); });
    for (ConvTransposeOp op : ops)
      (void)decompose(op);
  }
};
} // namespace
