//===- OnnxRandomOps.cpp - random sampling as a counter-based hash --------===//
//
// RandomNormal, RandomUniform, their *Like forms, Bernoulli, Multinomial,
// and Dropout in training mode.
// Each element's random number is a hash of its flat index and the node's
// seed, built from hodu ops (wrapping u64 multiplies and additions, shifts
// as divisions by powers of two; mix() below): there is no generator state,
// so an artifact draws the same numbers in every run, and a node with a
// `seed` the same numbers in every artifact. Without a seed the node's name
// seeds it, so that two nodes draw different numbers. ONNX leaves the
// generator to the runtime; ONNX Runtime's differs, so outputs are samples
// of the same distributions, not ONNX Runtime's values.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"
#include "llvm/Support/xxhash.h"

#include "llvm/Support/MathExtras.h"
#include <cstring>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

Type u64Type(NodeContext &n) {
  return IntegerType::get(&n.graph.ctx, 64, IntegerType::Unsigned);
}

Value u64Constant(NodeContext &n, uint64_t v) {
  return n.constant(DenseElementsAttr::get(
      RankedTensorType::get({}, u64Type(n)), APInt(64, v)));
}

/// The node's seed: its 'seed' attribute's bits (as a double), else a hash
/// of its name.
FailureOr<uint64_t> seedOf(NodeContext &n) {
  if (const onnx::AttributeProto *a = n.attr("seed")) {
    // A float (the Random* ops) or an int (Dropout).
    if (a->type() != onnx::AttributeProto::FLOAT &&
        a->type() != onnx::AttributeProto::INT)
      return n.error("'seed' must be a number");
    double seed = a->type() == onnx::AttributeProto::INT ? double(a->i())
                                                         : double(a->f());
    uint64_t bits;
    std::memcpy(&bits, &seed, sizeof bits);
    return bits;
  }
  return llvm::xxh3_64bits(n.name + "/" + n.node.op_type());
}

/// A 64-bit mix without xor (the dialect has no bitwise ops): three rounds
/// of `z += lo32(z) * hi32(z)` (a product of its halves: the nonlinear
/// step that xor gives splitmix64), then `z += z >> 29` and a multiply by
/// an odd constant. A shift is a division by a power of two; everything
/// wraps in u64. Measured like splitmix64 (Inputs/check_random.py checks
/// the outputs): avalanche 0.50, neighbouring indices and seeds
/// uncorrelated, pairs of neighbours uniform over a 16x16 grid.
FailureOr<Value> mix(NodeContext &n, Value z) {
  Value half = u64Constant(n, uint64_t(1) << 32);
  for (uint64_t multiplier :
       {0xBF58476D1CE4E5B9ull, 0x94D049BB133111EBull, 0xD6E8FEB86659FD93ull}) {
    TRY(lo, make<RemOp>(n, z, half));
    TRY(hi, make<DivOp>(n, z, half));
    TRY(product, make<MulOp>(n, lo, hi));
    TRY(mixed, make<AddOp>(n, z, product));
    TRY(high, make<DivOp>(n, mixed, u64Constant(n, uint64_t(1) << 29)));
    TRY(sum, make<AddOp>(n, mixed, high));
    TRY(next, make<MulOp>(n, sum, u64Constant(n, multiplier)));
    z = next;
  }
  return z;
}

/// `stride * i` for i in [0, size) along dim `d` of a rank-`rank` u64
/// tensor whose other dims are 1: a constant for short dims, a running sum
/// of a splat of ones for long ones (a constant of 2^30 indices would be
/// 8 GiB at import).
FailureOr<Value> indexAlong(NodeContext &n, int64_t size, int64_t rank,
                            int64_t d, int64_t stride) {
  Type u64 = u64Type(n);
  if (size <= 4096)
    return iota(n, u64, size, rank, d, double(stride));
  SmallVector<int64_t> shape(rank, 1);
  shape[d] = size;
  auto type = RankedTensorType::get(shape, u64);
  Value ones = n.constant(DenseElementsAttr::get(type, APInt(64, 1)));
  TRY(positions, make<CumSumOp>(n, ones, d, /*exclusive=*/true,
                                /*reverse=*/false));
  return make<MulOp>(n, positions, u64Constant(n, uint64_t(stride)));
}

/// Uniform numbers in [0, 1) (or (0, 1] with `openAtZero`), one per element
/// of `shape`, of float type `elt` (f64: 53 random bits; others: 24, which
/// f32 holds exactly), from stream `stream` of seed `seed`.
FailureOr<Value> uniform(NodeContext &n, ArrayRef<int64_t> shape, Type elt,
                         uint64_t seed, uint64_t stream,
                         bool openAtZero = false) {
  Type u64 = u64Type(n);
  // Checked before the index vectors and u64 numbers are built.
  if (failed(n.checkElementCount(shape, "the sample")))
    return failure();
  int64_t rank = shape.size();
  // The flat index, as a sum of per-dim index vectors that broadcast.
  Value index = u64Constant(n, 0);
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (shape[d] != 1) {
      TRY(along, indexAlong(n, shape[d], rank, d, stride));
      TRY(sum, make<AddOp>(n, index, along));
      index = sum;
    }
    stride *= shape[d];
  }
  if (rank > 0 && tensorType(index).getShape() != shape)
    index =
        broadcastTo(n, n.reshape(index, SmallVector<int64_t>(rank, 1)), shape);
  uint64_t key = seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull;
  TRY(keyed, make<AddOp>(n, index, u64Constant(n, key)));
  TRY(mixed, mix(n, keyed));
  unsigned bits = elt.isF64() ? 53 : 24;
  TRY(top, make<DivOp>(n, mixed, u64Constant(n, uint64_t(1) << (64 - bits))));
  Value z = top;
  if (openAtZero) {
    TRY(plus, make<AddOp>(n, z, u64Constant(n, 1)));
    z = plus;
  }
  Type compute = floatComputeType(n, elt);
  TRY(scaled,
      make<MulScalarOp>(n, n.cast(z, compute),
                        n.scalarAttr(compute, std::ldexp(1.0, -int(bits)))));
  return n.cast(scaled, elt);
}

/// Standard normal numbers (Box-Muller on two uniform streams).
FailureOr<Value> normal(NodeContext &n, ArrayRef<int64_t> shape, Type elt,
                        uint64_t seed) {
  Type compute = floatComputeType(n, elt);
  TRY(u1, uniform(n, shape, compute, seed, 0, /*openAtZero=*/true));
  TRY(u2, uniform(n, shape, compute, seed, 1));
  TRY(lnU1, make<LnOp>(n, u1));
  TRY(r2, make<MulScalarOp>(n, lnU1, n.scalarAttr(compute, -2.0)));
  TRY(r, make<SqrtOp>(n, r2));
  TRY(angle,
      make<MulScalarOp>(n, u2, n.scalarAttr(compute, 2 * llvm::numbers::pi)));
  TRY(c, make<CosOp>(n, angle));
  TRY(z, make<MulOp>(n, r, c));
  return n.cast(z, elt);
}

/// The output's element type: the 'dtype' attribute, else `dflt`.
FailureOr<Type> dtypeOf(NodeContext &n, Type dflt) {
  if (!n.attr("dtype"))
    return dflt;
  TRY(code, n.attrInt("dtype", 0));
  Type elt = onnxElementType(n.graph.ctx, int(code));
  if (!elt || !isa<FloatType>(elt))
    return n.error("'dtype' " + Twine(code) + " is not a float type");
  return elt;
}

/// RandomNormal and RandomUniform take their shape from the 'shape'
/// attribute, the *Like forms from their input.
FailureOr<std::pair<SmallVector<int64_t>, Type>> outputShape(NodeContext &n,
                                                             bool like) {
  if (like) {
    RankedTensorType t = n.type(0);
    if (!t)
      return n.error("input #0 is required");
    TRY(elt, dtypeOf(n, isa<FloatType>(t.getElementType())
                            ? t.getElementType()
                            : Type(n.b.getF32Type())));
    return std::make_pair(SmallVector<int64_t>(t.getShape()), elt);
  }
  TRY(shape, n.attrInts("shape"));
  if (!shape)
    return n.error("needs the 'shape' attribute");
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return n.error("'shape' has a negative dim");
  TRY(elt, dtypeOf(n, n.b.getF32Type()));
  return std::make_pair(SmallVector<int64_t>(*shape), elt);
}

template <bool Like> LogicalResult convertRandomNormal(NodeContext &n) {
  TRY(out, outputShape(n, Like));
  TRY(mean, n.attrFloat("mean", 0));
  TRY(scale, n.attrFloat("scale", 1));
  TRY(seed, seedOf(n));
  TRY(z, normal(n, out.first, out.second, seed));
  TRY(scaled, make<MulScalarOp>(n, z, n.scalarAttr(out.second, scale)));
  TRY(r, make<AddScalarOp>(n, scaled, n.scalarAttr(out.second, mean)));
  n.setOutput(0, r);
  return success();
}

template <bool Like> LogicalResult convertRandomUniform(NodeContext &n) {
  TRY(out, outputShape(n, Like));
  TRY(low, n.attrFloat("low", 0));
  TRY(high, n.attrFloat("high", 1));
  TRY(seed, seedOf(n));
  TRY(u, uniform(n, out.first, out.second, seed, 0));
  TRY(scaled, make<MulScalarOp>(n, u, n.scalarAttr(out.second, high - low)));
  TRY(r, make<AddScalarOp>(n, scaled, n.scalarAttr(out.second, low)));
  n.setOutput(0, r);
  return success();
}

/// 1 where a uniform number is below the input's probability, else 0.
LogicalResult convertBernoulli(NodeContext &n) {
  TRY(p, n.in(0));
  auto pt = tensorType(p);
  if (!isa<FloatType>(pt.getElementType()))
    return n.error("the probabilities must be floats");
  Type elt = pt.getElementType();
  if (n.attr("dtype")) {
    TRY(code, n.attrInt("dtype", 0));
    elt = onnxElementType(n.graph.ctx, int(code));
    if (!elt)
      return n.error("'dtype' " + Twine(code) + " has no hodu dtype");
  }
  TRY(seed, seedOf(n));
  // Compared in f32 (f64 for f64 probabilities): a uniform number rounded
  // to f16 could reach 1.0, which a probability of 1 must exceed.
  Type compute = floatComputeType(n, pt.getElementType());
  TRY(u, uniform(n, pt.getShape(), compute, seed, 0));
  TRY(below, make<LtOp>(n, u, n.cast(p, compute)));
  n.setOutput(0, n.cast(below, elt));
  return success();
}

/// `sample_size` class indices per row of unnormalized log-probabilities:
/// the number of classes whose cumulative probability is at most a uniform
/// number times the row's total.
LogicalResult convertMultinomial(NodeContext &n) {
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  if (xt.getRank() != 2 || !isa<FloatType>(xt.getElementType()))
    return n.error("expects float log-probabilities of shape [batch, "
                   "classes]");
  int64_t batch = xt.getDimSize(0), classes = xt.getDimSize(1);
  if (classes < 1)
    return n.error("needs at least one class");
  TRY(samples, n.attrInt("sample_size", 1));
  if (samples < 1)
    return n.error("'sample_size' must be positive");
  if (failed(n.checkElementCount({batch, samples, classes},
                                 "the comparison of samples with classes")))
    return failure();
  TRY(code, n.attrInt("dtype", 6));
  Type elt = onnxElementType(n.graph.ctx, int(code));
  if (!elt || !(elt.isInteger(32) || elt.isInteger(64)))
    return n.error("'dtype' must be int32 or int64");
  TRY(seed, seedOf(n));
  Type ft = floatComputeType(n, xt.getElementType());
  Value xf = n.cast(x, ft);
  TRY(mx, make<ReduceMaxOp>(n, xf, ArrayRef<int64_t>{1}, true));
  TRY(shifted, make<SubOp>(n, xf, mx));
  TRY(weights, make<ExpOp>(n, shifted));
  TRY(cdf, make<CumSumOp>(n, weights, int64_t(1), false, false));
  TRY(total, sliceDim(n, cdf, 1, classes - 1, classes)); // [batch, 1]
  TRY(u, uniform(n, {batch, samples}, ft, seed, 0));
  TRY(target, make<MulOp>(n, u, total)); // [batch, samples]
  TRY(t3, make<UnsqueezeOp>(n, target, ArrayRef<int64_t>{2}));
  TRY(c3, make<UnsqueezeOp>(n, cdf, ArrayRef<int64_t>{1}));
  TRY(passed, make<LeOp>(n, c3, t3)); // [batch, samples, classes]
  Type i64 = n.b.getI64Type();
  TRY(count,
      make<ReduceSumOp>(n, n.cast(passed, i64), ArrayRef<int64_t>{2}, false));
  TRY(index, make<MinimumScalarOp>(n, count, n.scalarAttr(i64, classes - 1)));
  n.setOutput(0, n.cast(index, elt));
  return success();
}

/// Dropout: the input as it is at inference; with `training_mode` true,
/// each element kept when a uniform number is at least `ratio` and scaled
/// by 1 / (1 - ratio) (all dropped for a ratio of 1), the mask the kept
/// ones. A training mode known only at run time selects between the two.
LogicalResult convertDropout(NodeContext &n) {
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  auto passThrough = [&] {
    n.setOutput(0, x);
    if (n.hasOutput(1))
      n.setOutput(1, n.constant(n.b.getI1Type(), 1, xt.getShape()));
    return success();
  };
  std::optional<ConstantView> mode = n.constantInput(2);
  if (!n.hasInput(2) || (mode && !mode->truth(0)))
    return passThrough();
  if (!isa<FloatType>(xt.getElementType()))
    return n.error("training-mode dropout takes floats");
  Type compute = floatComputeType(n, xt.getElementType());
  Value ratio;
  if (n.hasInput(1)) {
    TRY(r, scalarInput(n, 1, compute, "ratio"));
    ratio = r;
  } else {
    ratio = n.constant(compute, 0.5);
  }
  TRY(seed, seedOf(n));
  TRY(u, uniform(n, xt.getShape(), compute, seed, 0));
  TRY(keep, make<GeOp>(n, u, ratio));
  TRY(kept, make<SubOp>(n, n.constant(compute, 1), ratio));
  TRY(all, make<EqScalarOp>(n, ratio, n.scalarAttr(compute, 1)));
  // 1 / (1 - ratio); 0 for a ratio of 1, where nothing is kept.
  TRY(safe, make<SelectOp>(n, all, n.constant(compute, 1), kept));
  TRY(inverse, make<DivOp>(n, n.constant(compute, 1), safe));
  TRY(scale, make<SelectOp>(n, all, n.constant(compute, 0), inverse));
  TRY(masked, make<MulOp>(n, n.cast(x, compute), n.cast(keep, compute)));
  TRY(scaled, make<MulOp>(n, masked, scale));
  Value y = n.cast(scaled, xt.getElementType());
  Value mask = keep;
  if (!mode) {
    TRY(flag, scalarInput(n, 2, n.b.getI1Type(), "training_mode"));
    TRY(chosen, make<SelectOp>(n, flag, y, x));
    TRY(chosenMask,
        make<SelectOp>(n, flag, keep,
                       n.constant(n.b.getI1Type(), 1, xt.getShape())));
    y = chosen;
    mask = chosenMask;
  }
  n.setOutput(0, y);
  if (n.hasOutput(1))
    n.setOutput(1, mask);
  return success();
}

} // namespace

void hodu::onnx_import::registerRandomOps(ConverterTable &table) {
  table.insert({
      {"RandomNormal", convertRandomNormal<false>},
      {"RandomNormalLike", convertRandomNormal<true>},
      {"RandomUniform", convertRandomUniform<false>},
      {"RandomUniformLike", convertRandomUniform<true>},
      {"Bernoulli", convertBernoulli},
      {"Multinomial", convertMultinomial},
      {"Dropout", convertDropout},
  });
}
