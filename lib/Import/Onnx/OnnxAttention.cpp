//===- OnnxAttention.cpp - Attention and RotaryEmbedding (opset 23) -------===//
//
// ONNX's Attention as the ops exporters write for it: Q K^T, the scale, the
// soft cap, the mask and causal bias, the softmax and the product with V,
// with the key/value cache concatenated in front and grouped-query heads
// repeated. The CPU target then fuses the chain into one tiled loop
// (hodu-cpu-fuse-attention); the GPU targets run it as separate kernels.
// RotaryEmbedding as the rotation of pairs of each head's first dims by
// the cos/sin caches (looked up by position_ids where given).
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

#include <cmath>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

/// `x` as [batch, heads, sequence, head size]: a 4-D input as it is, a 3-D
/// [batch, sequence, heads x head size] one split into `heads` and
/// transposed.
FailureOr<Value> toHeads(NodeContext &n, Value x, int64_t heads, StringRef what,
                         StringRef attr) {
  auto t = tensorType(x);
  if (t.getRank() == 4)
    return x;
  if (heads <= 0)
    return n.error("3-D inputs need the attribute " + attr);
  int64_t hidden = t.getDimSize(2);
  if (hidden % heads != 0)
    return n.error(what + "'s hidden size " + Twine(hidden) +
                   " is not a multiple of " + attr + " (" + Twine(heads) + ")");
  Value r =
      n.reshape(x, {t.getDimSize(0), t.getDimSize(1), heads, hidden / heads});
  return make<TransposeOp>(n, r, ArrayRef<int64_t>{0, 2, 1, 3});
}

LogicalResult convertAttention(NodeContext &n) {
  TRY(q, n.in(0));
  TRY(k, n.in(1));
  TRY(v, n.in(2));
  int64_t rank = tensorType(q).getRank();
  if ((rank != 3 && rank != 4) || tensorType(k).getRank() != rank ||
      tensorType(v).getRank() != rank)
    return n.error("expects Q, K and V all of rank 3 or all of rank 4");
  Type elt = tensorType(q).getElementType();
  if (!isa<FloatType>(elt) || tensorType(k).getElementType() != elt ||
      tensorType(v).getElementType() != elt)
    return n.error("expects Q, K and V of one float type");
  if (n.hasInput(6))
    return n.error("input #6 (nonpad_kv_seqlen, opset 24) is not supported");
  if (n.hasOutput(3))
    return n.error("output #3 (qk_matmul_output) is not supported");
  TRY(qHeads, n.attrInt("q_num_heads", 0));
  TRY(kvHeads, n.attrInt("kv_num_heads", 0));
  TRY(causal, n.attrInt("is_causal", 0));
  TRY(softcap, n.attrFloat("softcap", 0));
  TRY(precision, n.attrInt("softmax_precision", 0));

  TRY(q4, toHeads(n, q, qHeads, "Q", "q_num_heads"));
  TRY(k4, toHeads(n, k, kvHeads, "K", "kv_num_heads"));
  TRY(v4, toHeads(n, v, kvHeads, "V", "kv_num_heads"));
  ArrayRef<int64_t> qs = tensorType(q4).getShape(),
                    ks = tensorType(k4).getShape(),
                    vs = tensorType(v4).getShape();
  int64_t batch = qs[0], heads = qs[1], queries = qs[2], size = qs[3];
  int64_t groups = ks[1], vSize = vs[3];
  if (ks[0] != batch || vs[0] != batch)
    return n.error("Q, K and V have different batch sizes");
  if (ks[3] != size)
    return n.error("K's head size " + Twine(ks[3]) + " is not Q's (" +
                   Twine(size) + ")");
  if (vs[1] != groups || vs[2] != ks[2])
    return n.error("V's heads and sequence length are not K's");
  if (groups <= 0 || heads % groups != 0)
    return n.error(Twine(heads) + " query heads are not a multiple of " +
                   Twine(groups) + " key/value heads");

  // The cache: past keys and values in front of this step's.
  int64_t past = 0;
  if (n.hasInput(4) != n.hasInput(5))
    return n.error("expects past_key and past_value together");
  if (n.hasInput(4)) {
    TRY(pk, n.in(4));
    TRY(pv, n.in(5));
    ArrayRef<int64_t> pks = tensorType(pk).getShape(),
                      pvs = tensorType(pv).getShape();
    if (pks.size() != 4 || pvs.size() != 4 || pks[0] != batch ||
        pks[1] != groups || pks[3] != size || pvs[0] != batch ||
        pvs[1] != groups || pvs[2] != pks[2] || pvs[3] != vSize)
      return n.error("past_key and past_value must be [batch, kv heads, "
                     "past, head size] as K and V are");
    past = pks[2];
    TRY(kc, make<ConcatOp>(n, ValueRange{pk, k4}, 2));
    TRY(vc, make<ConcatOp>(n, ValueRange{pv, v4}, 2));
    k4 = kc;
    v4 = vc;
  }
  if (n.hasOutput(1))
    n.setOutput(1, k4);
  if (n.hasOutput(2))
    n.setOutput(2, v4);
  int64_t keys = tensorType(k4).getDimSize(2);

  // Grouped-query attention: each key/value head serves heads / groups
  // query heads in a row ([h0, h0, h1, h1, ...]).
  if (groups != heads) {
    int64_t rep = heads / groups;
    auto repeat = [&](Value x, int64_t d) -> FailureOr<Value> {
      TRY(u, make<UnsqueezeOp>(n, x, ArrayRef<int64_t>{2}));
      Value b = broadcastTo(n, u, {batch, groups, rep, keys, d});
      return n.reshape(b, {batch, heads, keys, d});
    };
    TRY(kr, repeat(k4, size));
    TRY(vr, repeat(v4, vSize));
    k4 = kr;
    v4 = vr;
  }

  // The scores, scaled and capped.
  TRY(kt, make<TransposeOp>(n, k4, ArrayRef<int64_t>{0, 1, 3, 2}));
  TRY(s, make<MatmulOp>(n, q4, kt));
  double scale = 1 / std::sqrt(double(size));
  if (n.attr("scale")) {
    TRY(a, n.attrFloat("scale", 1));
    scale = a;
  }
  TRY(scaled, make<MulScalarOp>(n, s, n.scalarAttr(elt, scale)));
  s = scaled;
  if (softcap > 0) {
    TRY(d, make<MulScalarOp>(n, s, n.scalarAttr(elt, 1 / double(softcap))));
    TRY(t, make<TanhOp>(n, d));
    TRY(c, make<MulScalarOp>(n, t, n.scalarAttr(elt, softcap)));
    s = c;
  }

  // The additive bias: the mask (a bool one as 0 / -inf, a shorter one
  // padded with masked keys) and the causal frontier, key j for query i
  // where j <= i + past.
  Value zero = n.constant(elt, 0), minusInf = n.constant(elt, -INFINITY);
  Value bias;
  if (n.hasInput(3)) {
    TRY(m, n.in(3));
    auto mt = tensorType(m);
    bool isBool = mt.getElementType().isInteger(1);
    if (!isBool && mt.getElementType() != elt)
      return n.error("attn_mask must be bool or Q's type");
    if (mt.getRank() < 1 || mt.getDimSize(mt.getRank() - 1) > keys)
      return n.error("attn_mask's last dim " +
                     Twine(mt.getRank() ? mt.getDimSize(mt.getRank() - 1) : 0) +
                     " is more than the " + Twine(keys) + " keys");
    if (int64_t short_ = keys - mt.getDimSize(mt.getRank() - 1)) {
      SmallVector<int64_t> pads(2 * mt.getRank(), 0);
      pads.back() = short_;
      TRY(p, make<PadOp>(n, m, PadMode::constant, pads,
                         isBool ? n.scalarAttr(mt.getElementType(), 0)
                                : n.scalarAttr(elt, -INFINITY)));
      m = p;
    }
    if (isBool) {
      TRY(b, make<SelectOp>(n, m, zero, minusInf));
      m = b;
    }
    bias = m;
  }
  if (causal) {
    Type i64 = n.b.getI64Type();
    TRY(diff,
        make<SubOp>(n, iota(n, i64, keys, 2, 1), iota(n, i64, queries, 2, 0)));
    TRY(allowed, make<LeScalarOp>(n, diff, n.scalarAttr(i64, double(past))));
    TRY(c, make<SelectOp>(n, allowed, zero, minusInf));
    if (bias) {
      TRY(both, make<AddOp>(n, bias, c));
      bias = both;
    } else {
      bias = c;
    }
  }
  if (bias) {
    TRY(b, make<AddOp>(n, s, bias));
    s = b;
  }

  // The softmax, in softmax_precision's type where it names a wider one.
  Type softmaxType = elt;
  if (precision != 0) {
    if (precision != ::onnx::TensorProto::FLOAT &&
        precision != ::onnx::TensorProto::DOUBLE &&
        precision != ::onnx::TensorProto::FLOAT16 &&
        precision != ::onnx::TensorProto::BFLOAT16)
      return n.error("softmax_precision " + Twine(precision) +
                     " is not a float type");
    Type wanted = precision == ::onnx::TensorProto::DOUBLE  ? n.b.getF64Type()
                  : precision == ::onnx::TensorProto::FLOAT ? n.b.getF32Type()
                                                            : elt;
    if (wanted.getIntOrFloatBitWidth() > elt.getIntOrFloatBitWidth())
      softmaxType = wanted;
  }
  if (softmaxType != elt)
    s = n.cast(s, softmaxType);
  TRY(mx, make<ReduceMaxOp>(n, s, ArrayRef<int64_t>{3}, true));
  TRY(sh, make<SubOp>(n, s, mx));
  TRY(e, make<ExpOp>(n, sh));
  TRY(sum, make<ReduceSumOp>(n, e, ArrayRef<int64_t>{3}, true));
  TRY(p, make<DivOp>(n, e, sum));
  Value probs = p;
  if (softmaxType != elt)
    probs = n.cast(probs, elt);
  // A query whose keys a mask takes all away attends to nothing: its row
  // is 0, not the NaN of exp(-inf - -inf).
  if (n.hasInput(3)) {
    int64_t br = tensorType(bias).getRank();
    TRY(rowMax, make<ReduceMaxOp>(n, bias, ArrayRef<int64_t>{br - 1}, true));
    TRY(isInf, make<IsInfOp>(n, rowMax));
    TRY(isNeg, make<LtScalarOp>(n, rowMax, n.scalarAttr(elt, 0)));
    TRY(none, make<LogicalAndOp>(n, isInf, isNeg));
    TRY(guarded, make<SelectOp>(n, none, zero, probs));
    probs = guarded;
  }
  TRY(y, make<MatmulOp>(n, probs, v4));
  if (rank == 3) {
    TRY(t, make<TransposeOp>(n, y, ArrayRef<int64_t>{0, 2, 1, 3}));
    y = n.reshape(t, {batch, queries, heads * vSize});
  }
  n.setOutput(0, y);
  return success();
}

LogicalResult convertRotaryEmbedding(NodeContext &n) {
  TRY(x, n.in(0));
  TRY(cosCache, n.in(1));
  TRY(sinCache, n.in(2));
  TRY(interleaved, n.attrInt("interleaved", 0));
  TRY(numHeads, n.attrInt("num_heads", 0));
  TRY(rotaryDim, n.attrInt("rotary_embedding_dim", 0));
  auto t = tensorType(x);
  int64_t rank = t.getRank();
  Type elt = t.getElementType();
  if (!isa<FloatType>(elt))
    return n.error("expects a float input");
  if (tensorType(cosCache).getElementType() != elt ||
      tensorType(sinCache).getElementType() != elt)
    return n.error("cos_cache and sin_cache must have the input's type");
  // As [batch, sequence, heads, head size].
  Value xs;
  if (rank == 4) {
    TRY(tr, make<TransposeOp>(n, x, ArrayRef<int64_t>{0, 2, 1, 3}));
    xs = tr;
  } else if (rank == 3) {
    if (numHeads <= 0)
      return n.error("a 3-D input needs the attribute num_heads");
    if (t.getDimSize(2) % numHeads != 0)
      return n.error("the hidden size " + Twine(t.getDimSize(2)) +
                     " is not a multiple of num_heads (" + Twine(numHeads) +
                     ")");
    xs = n.reshape(x, {t.getDimSize(0), t.getDimSize(1), numHeads,
                       t.getDimSize(2) / numHeads});
  } else {
    return n.error("expects an input of rank 3 or 4");
  }
  ArrayRef<int64_t> shape = tensorType(xs).getShape();
  int64_t batch = shape[0], seq = shape[1], heads = shape[2], size = shape[3];
  int64_t rot = rotaryDim > 0 ? rotaryDim : size;
  if (rot > size || rot % 2 != 0)
    return n.error("rotary_embedding_dim " + Twine(rot) +
                   " must be even and at most the head size " + Twine(size));
  int64_t half = rot / 2;
  // cos and sin as [batch, sequence, 1, rot / 2].
  auto lookup = [&](Value cache, StringRef what) -> FailureOr<Value> {
    auto ct = tensorType(cache);
    if (n.hasInput(3)) {
      if (ct.getRank() != 2 || ct.getDimSize(1) != half)
        return n.error(what + " must be [max positions, " + Twine(half) +
                       "] with position_ids");
      TRY(pos, n.in(3));
      auto pt = tensorType(pos);
      if (pt.getShape() != ArrayRef<int64_t>{batch, seq} ||
          !pt.getElementType().isInteger(64))
        return n.error("position_ids must be int64 [" + Twine(batch) + ", " +
                       Twine(seq) + "]");
      TRY(g, make<IndexSelectOp>(n, cache, pos, 0));
      if (Operation *op = g.getDefiningOp())
        op->setAttr("hodu.indices_name", n.b.getStringAttr(n.node.input(3)));
      cache = g;
    } else if (ct.getShape() != ArrayRef<int64_t>{batch, seq, half}) {
      return n.error(what + " must be [" + Twine(batch) + ", " + Twine(seq) +
                     ", " + Twine(half) + "] without position_ids");
    }
    return make<UnsqueezeOp>(n, cache, ArrayRef<int64_t>{2});
  };
  TRY(cos, lookup(cosCache, "cos_cache"));
  TRY(sin, lookup(sinCache, "sin_cache"));
  TRY(xr, sliceDim(n, xs, 3, 0, rot));
  // The pairs: the two halves, or even and odd dims.
  Value x1, x2;
  if (interleaved) {
    Value pairs = n.reshape(xr, {batch, seq, heads, half, 2});
    TRY(a, takeAt(n, pairs, 4, 0));
    TRY(b, takeAt(n, pairs, 4, 1));
    x1 = a;
    x2 = b;
  } else {
    TRY(a, sliceDim(n, xr, 3, 0, half));
    TRY(b, sliceDim(n, xr, 3, half, rot));
    x1 = a;
    x2 = b;
  }
  TRY(c1, make<MulOp>(n, cos, x1));
  TRY(s2, make<MulOp>(n, sin, x2));
  TRY(real, make<SubOp>(n, c1, s2));
  TRY(s1, make<MulOp>(n, sin, x1));
  TRY(c2, make<MulOp>(n, cos, x2));
  TRY(imag, make<AddOp>(n, s1, c2));
  Value rotated;
  if (interleaved) {
    TRY(re, make<UnsqueezeOp>(n, real, ArrayRef<int64_t>{4}));
    TRY(im, make<UnsqueezeOp>(n, imag, ArrayRef<int64_t>{4}));
    TRY(both, make<ConcatOp>(n, ValueRange{re, im}, 4));
    rotated = n.reshape(both, {batch, seq, heads, rot});
  } else {
    TRY(both, make<ConcatOp>(n, ValueRange{real, imag}, 3));
    rotated = both;
  }
  if (rot < size) {
    TRY(rest, sliceDim(n, xs, 3, rot, size));
    TRY(all, make<ConcatOp>(n, ValueRange{rotated, rest}, 3));
    rotated = all;
  }
  Value y;
  if (rank == 4) {
    TRY(tr, make<TransposeOp>(n, rotated, ArrayRef<int64_t>{0, 2, 1, 3}));
    y = tr;
  } else {
    y = n.reshape(rotated, t.getShape());
  }
  n.setOutput(0, y);
  return success();
}

} // namespace

void hodu::onnx_import::registerAttentionOps(ConverterTable &table) {
  table.insert({{"Attention", convertAttention},
                {"RotaryEmbedding", convertRotaryEmbedding}});
}
