//===- OnnxSignalOps.cpp - DFT, STFT, window functions, mel filters -------===//
//
// The signal-processing ops of opset 17 that audio front ends use:
// - DFT and STFT as products with constant cosine and sine matrices (the
//   target's matmul kernels do the work; sizes are bounded so that the
//   matrices stay small);
// - STFT's frames as one gather of the signal by a constant index table;
// - HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix, whose
//   inputs are sizes and frequencies: computed at import time as constants
//   (their sizes must be known then, as every shape must).
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

#include <cmath>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

/// The largest DFT matrix (length x bins) built: 2^23 elements (32 MiB of
/// f32 for the cosines, as much for the sines): a 2896-point transform, or
/// a one-sided one of 4096 points.
constexpr int64_t kMaxDftMatrix = int64_t(1) << 23;

/// The DFT of `x` ([..., n, ..., 1 | 2]: real, or complex as (re, im) in the
/// last dim) along `axis` (not the last dim), zero-padded or truncated to
/// `length` points: [..., bins, ..., 2] with bins = length / 2 + 1 when
/// `onesided`, else length. The inverse divides by `length`.
FailureOr<Value> dft(NodeContext &n, Value x, int64_t axis, int64_t length,
                     bool inverse, bool onesided) {
  auto xt = tensorType(x);
  int64_t rank = xt.getRank();
  int64_t parts = xt.getDimSize(rank - 1);
  if (parts != 1 && parts != 2)
    return n.error("the last dim of the signal must be 1 (real) or 2 "
                   "(complex), not " + Twine(parts));
  if (axis < 0 || axis >= rank - 1)
    return n.error("axis " + Twine(axis) + " must name a signal dim, not the "
                   "last (complex) one");
  if (!isFloatTensor(x))
    return n.error("the signal must be floating point");
  if (length < 1)
    return n.error("the DFT length must be positive");
  int64_t bins = onesided ? length / 2 + 1 : length;
  if (length > kMaxDftMatrix / bins)
    return n.error("a DFT of " + Twine(length) + " points needs cosine and "
                   "sine matrices of " + Twine(length) + " x " + Twine(bins) +
                   " elements, more than Hodu builds (2^23)");
  Type elt = xt.getElementType();

  // Real and imaginary parts with the transformed axis last.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  auto part = [&](int64_t i) -> FailureOr<Value> {
    TRY(p, takeAt(n, x, rank - 1, i));
    TRY(t, make<TransposeOp>(n, p, perm));
    // Zero-pad or truncate to `length` points.
    auto tt = tensorType(t);
    int64_t r = tt.getRank(), have = tt.getDimSize(r - 1);
    if (have == length)
      return t;
    if (have > length) {
      SmallVector<int64_t> starts(r, 0), ends(tt.getShape()), steps(r, 1);
      ends[r - 1] = length;
      return make<SliceOp>(n, t, starts, ends, steps);
    }
    SmallVector<int64_t> pads(2 * r, 0);
    pads[2 * r - 1] = length - have;
    return make<PadOp>(n, t, PadMode::constant, pads, n.scalarAttr(elt, 0));
  };
  TRY(re, part(0));
  std::optional<Value> im;
  if (parts == 2) {
    TRY(i, part(1));
    im = i;
  }
  // cos and sin of 2 pi j k / length, the angle reduced exactly first.
  auto matType = RankedTensorType::get({length, bins}, elt);
  ConstantWriter cw(matType, kSmallTensorBytes), sw(matType, kSmallTensorBytes);
  for (int64_t j = 0; j < length; ++j)
    for (int64_t k = 0; k < bins; ++k) {
      int64_t m = (int64_t)(((__int128)j * k) % length);
      double angle = 2 * M_PI * (double)m / (double)length;
      cw.setF(j * bins + k, std::cos(angle));
      sw.setF(j * bins + k, std::sin(angle));
    }
  Value cosM = n.constant(cw.finish()), sinM = n.constant(sw.finish());
  // Forward: (re + i im)(cos - i sin); inverse: (re + i im)(cos + i sin).
  TRY(reCos, make<MatmulOp>(n, re, cosM));
  TRY(reSin, make<MatmulOp>(n, re, sinM));
  Value outRe = reCos, outIm;
  if (inverse) {
    outIm = reSin;
  } else {
    TRY(neg, make<NegOp>(n, reSin));
    outIm = neg;
  }
  if (im) {
    TRY(imCos, make<MatmulOp>(n, *im, cosM));
    TRY(imSin, make<MatmulOp>(n, *im, sinM));
    FailureOr<Value> r2 = inverse ? make<SubOp>(n, outRe, imSin)
                                  : make<AddOp>(n, outRe, imSin);
    if (failed(r2))
      return failure();
    TRY(i2, make<AddOp>(n, outIm, imCos));
    outRe = *r2;
    outIm = i2;
  }
  if (inverse) {
    TRY(sr, make<MulScalarOp>(n, outRe, n.scalarAttr(elt, 1.0 / length)));
    TRY(si, make<MulScalarOp>(n, outIm, n.scalarAttr(elt, 1.0 / length)));
    outRe = sr;
    outIm = si;
  }
  int64_t r = rank - 1;
  TRY(ur, make<UnsqueezeOp>(n, outRe, ArrayRef<int64_t>{r}));
  TRY(ui, make<UnsqueezeOp>(n, outIm, ArrayRef<int64_t>{r}));
  TRY(both, make<ConcatOp>(n, ValueRange{ur, ui}, r));
  // Back to the input's order: dim d of the result comes from perm's
  // position of d; the (re, im) dim stays last.
  SmallVector<int64_t> back(rank);
  for (int64_t i = 0; i < r; ++i)
    back[perm[i]] = i;
  back[r] = r;
  return make<TransposeOp>(n, both, back);
}

LogicalResult convertDFT(NodeContext &n) {
  TRY(x, n.in(0));
  int64_t rank = tensorType(x).getRank();
  TRY(axisAttr, n.attrInt("axis", 1));
  int64_t axis = axisAttr;
  if (n.opset >= 20 && n.hasInput(2)) {
    TRY(a, constScalar(n, 2, "axis"));
    axis = a;
  }
  if (axis < 0)
    axis += rank;
  TRY(inverse, n.attrInt("inverse", 0));
  TRY(onesided, n.attrInt("onesided", 0));
  if (inverse && onesided)
    return n.error("onesided is not defined for the inverse DFT");
  if (axis < 0 || axis >= rank - 1)
    return n.error("axis " + Twine(axisAttr) + " is out of range for a signal "
                   "of rank " + Twine(rank));
  int64_t length = tensorType(x).getDimSize(axis);
  if (n.hasInput(1)) {
    TRY(l, constScalar(n, 1, "dft_length"));
    length = l;
  }
  TRY(y, dft(n, x, axis, length, inverse != 0, onesided != 0));
  n.setOutput(0, y);
  return success();
}

/// The conjunction of the bool tensors `conds` (at least one).
static FailureOr<Value> allOf(NodeContext &n, ArrayRef<Value> conds) {
  Value r = conds[0];
  for (Value c : conds.drop_front()) {
    TRY(a, make<LogicalAndOp>(n, r, c));
    r = a;
  }
  return r;
}

/// ONNX's STFT. A frame_step known only at run time takes the frame count
/// from the output shape the model declares ([batch, frames, bins, 2]), a
/// frame_length known only then the window's length or, without a window,
/// the declared bins' (onesided: the even length 2 * (bins - 1)); both are
/// checked when the model runs, and the frames are gathered at run-time
/// offsets clamped into the signal.
LogicalResult convertSTFT(NodeContext &n) {
  TRY(signal, n.in(0));
  auto st = tensorType(signal);
  if (st.getRank() != 3)
    return n.error("expects a signal [batch, length, 1 | 2]");
  Type i64 = n.b.getI64Type(), f64 = n.b.getF64Type();
  TRY(onesided, n.attrInt("onesided", 1));
  std::optional<Value> window;
  int64_t frameLength = -1;
  if (n.hasInput(2)) {
    TRY(w, n.in(2));
    if (tensorType(w).getRank() != 1)
      return n.error("the window must be 1-D");
    window = w;
    frameLength = tensorType(w).getDimSize(0);
  }
  bool stepAtRunTime = !n.constantInput(1);
  bool lengthAtRunTime = n.hasInput(3) && !n.constantInput(3);
  SmallVector<int64_t> declared;
  if (stepAtRunTime || (lengthAtRunTime && !window)) {
    size_t in = stepAtRunTime ? 1 : 3;
    TRY(d, n.declaredShapeFor(0, in,
                              stepAtRunTime ? "frame_step" : "frame_length"));
    if (d.size() != 4 || d[0] != st.getDimSize(0) || d[3] != 2)
      return n.error("the model declares output '" + n.node.output(0) +
                     "' with shape " + dimsString(d) + ", not [" +
                     Twine(st.getDimSize(0)) + ", frames, bins, 2]");
    declared.assign(d.begin(), d.end());
  }
  if (lengthAtRunTime) {
    if (!window)
      frameLength = onesided ? 2 * (declared[2] - 1) : declared[2];
    TRY(v, scalarInput(n, 3, i64, "frame_length"));
    TRY(ok, make<EqScalarOp>(n, v, n.scalarAttr(i64, double(frameLength))));
    if (failed(n.checkAtRunTime(
            ok,
            "input '" + n.node.input(3) + "' (frame_length) must be " +
                Twine(frameLength) +
                (window ? Twine(", the window's length")
                        : Twine(", the frame length of the shape ") +
                              dimsString(declared) + " " + n.declaredFor(0)))))
      return failure();
  } else if (n.hasInput(3)) {
    TRY(fl, constScalar(n, 3, "frame_length"));
    if (window && fl != frameLength)
      return n.error("frame_length " + Twine(fl) + " differs from the "
                     "window's length " + Twine(frameLength));
    frameLength = fl;
  }
  if (frameLength < 0)
    return n.error("needs a window or a frame_length");
  int64_t len = st.getDimSize(1);
  if (frameLength < 1 || frameLength > len)
    return n.error("frame_length " + Twine(frameLength) +
                   " must be in [1, the signal's length " + Twine(len) + "]");
  Value framed; // [batch, frames, frameLength, 1 | 2]
  if (stepAtRunTime) {
    int64_t frames = declared[1];
    if (frames < 1 || frames > kMaxDftMatrix / frameLength)
      return n.error("the declared " + Twine(frames) +
                     " frames must be between 1 and 2^23 / frame_length");
    // Frame f starts at f * step, clamped so that any step reads within
    // the signal; the check: step >= 1 and (frames - 1) * step <= len -
    // frame_length < frames * step, so the count is floor(...) + 1.
    TRY(step, scalarInput(n, 1, i64, "frame_step"));
    TRY(starts, make<MulOp>(n, iota(n, i64, frames, 2, 0), step));
    TRY(at, make<AddOp>(n, starts, iota(n, i64, frameLength, 2, 1)));
    TRY(lo, make<MaximumScalarOp>(n, at, n.scalarAttr(i64, 0)));
    TRY(idx, make<MinimumScalarOp>(n, lo, n.scalarAttr(i64, double(len - 1))));
    TRY(g, make<IndexSelectOp>(n, signal, idx, int64_t(1)));
    framed = g;
    Value s = n.cast(step, f64);
    double room = double(len - frameLength);
    TRY(positive, make<GeScalarOp>(n, s, n.scalarAttr(f64, 1.0)));
    TRY(lastFits,
        make<MulScalarOp>(n, s, n.scalarAttr(f64, double(frames - 1))));
    TRY(fits, make<LeScalarOp>(n, lastFits, n.scalarAttr(f64, room)));
    TRY(past, make<MulScalarOp>(n, s, n.scalarAttr(f64, double(frames))));
    TRY(noMore, make<GtScalarOp>(n, past, n.scalarAttr(f64, room)));
    TRY(ok, allOf(n, {positive, fits, noMore}));
    if (failed(n.checkAtRunTime(
            ok, "input '" + n.node.input(1) + "' (frame_step) must give the " +
                    Twine(frames) + " frames of the shape " +
                    dimsString(declared) + " " + n.declaredFor(0) +
                    " ((length - frame_length) / step + 1)")))
      return failure();
  } else {
    TRY(step, constScalar(n, 1, "frame_step"));
    if (step < 1)
      return n.error("frame_step must be positive");
    int64_t frames = (len - frameLength) / step + 1;
    if (frames > kMaxDftMatrix / frameLength)
      return n.error("the STFT has more frames x frame length than Hodu "
                     "builds (2^23)");
    // Frames: signal[:, f * step + j, :] by one gather with a constant table.
    ConstantWriter idx(RankedTensorType::get({frames, frameLength}, i64),
                       kSmallTensorBytes);
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t j = 0; j < frameLength; ++j)
        idx.setF(f * frameLength + j, (double)(f * step + j));
    TRY(g, make<IndexSelectOp>(n, signal, n.constant(idx.finish()), 1));
    framed = g;
  }
  Value y = framed;
  if (window) {
    Value w = n.reshape(n.cast(*window, st.getElementType()),
                        {1, 1, frameLength, 1});
    TRY(m, make<MulOp>(n, y, w));
    y = m;
  }
  TRY(out, dft(n, y, 2, frameLength, false, onesided != 0));
  n.setOutput(0, out);
  return success();
}

/// The element type named by `output_datatype` (default float).
FailureOr<Type> outputType(NodeContext &n) {
  TRY(dt, n.attrInt("output_datatype", 1));
  Type elt = onnxElementType(n.graph.ctx, (int)dt);
  if (!elt)
    return n.error("unsupported output_datatype " + Twine(dt));
  return elt;
}

LogicalResult convertWindow(NodeContext &n) {
  TRY(size, scalarOrDeclared(n, 0, "size", 0, 0));
  if (size < 0 || size > (int64_t(1) << 24))
    return n.error("size " + Twine(size) + " must be in [0, 2^24]");
  TRY(periodic, n.attrInt("periodic", 1));
  TRY(elt, outputType(n));
  StringRef op = n.node.op_type();
  double denom = (double)(periodic ? size : size - 1);
  ConstantWriter w(RankedTensorType::get({size}, elt), kSmallTensorBytes);
  for (int64_t i = 0; i < size; ++i) {
    double t = denom > 0 ? 2 * M_PI * (double)i / denom : 0.0;
    double v;
    if (op == "HannWindow")
      v = 0.5 - 0.5 * std::cos(t);
    else if (op == "HammingWindow")
      v = 25.0 / 46.0 - (21.0 / 46.0) * std::cos(t);
    else // BlackmanWindow
      v = 0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2 * t);
    w.setF(i, v);
  }
  n.setConstant(0, w.finish());
  return success();
}

/// MelWeightMatrix with inputs known only at run time: the output shape
/// the model declares gives the spectrogram bins and the mel bands; the
/// edges and the triangles are computed when the model runs, in f64 as
/// the constant path computes them, over the [bins, mels] grid (each edge
/// compared with the bin's index, so no value indexes anything). Checked
/// then: num_mel_bins and dft_length give the declared shape, the sample
/// rate is at least 1, 0 <= lower <= upper edge, and the last edge falls
/// within the bins.
static LogicalResult melWeightsAtRunTime(NodeContext &n, Type elt) {
  static const char *const names[] = {"num_mel_bins", "dft_length",
                                      "sample_rate", "lower_edge_hertz",
                                      "upper_edge_hertz"};
  size_t first = 0;
  while (first < 4 && n.constantInput(first))
    ++first;
  TRY(declared, n.declaredShapeFor(0, first, names[first]));
  if (declared.size() != 2 || declared[0] < 1 || declared[0] > (1 << 19) + 1 ||
      declared[1] < 1 || declared[1] > 65536)
    return n.error("the model declares output '" + n.node.output(0) +
                   "' with shape " + dimsString(declared) +
                   ", not [dft_length / 2 + 1, num_mel_bins] within [2^19 + "
                   "1, 65536]");
  int64_t bins = declared[0], mels = declared[1];
  Type f64 = n.b.getF64Type();
  auto sc = [&](double v) { return n.scalarAttr(f64, v); };
  SmallVector<Value> v;
  for (size_t i = 0; i < 5; ++i) {
    TRY(x, scalarInput(n, i, f64, names[i]));
    v.push_back(x);
  }
  Value dft = v[1], rate = v[2], low = v[3], high = v[4];
  TRY(melsOk, make<EqScalarOp>(n, v[0], sc(double(mels))));
  TRY(dftLo, make<GeScalarOp>(n, dft, sc(2.0 * double(bins - 1))));
  TRY(dftHi, make<LeScalarOp>(n, dft, sc(2.0 * double(bins) - 1)));
  TRY(shapeOk, allOf(n, {melsOk, dftLo, dftHi}));
  if (failed(n.checkAtRunTime(
          shapeOk, "num_mel_bins and dft_length must give the shape " +
                       dimsString(declared) + " " + n.declaredFor(0) +
                       " (dft_length / 2 + 1 bins by num_mel_bins)")))
    return failure();
  // mel(f) = 2595 log10(1 + f / 700); the edge k is the bin of
  // 700 (10^((k step + low mel) / 2595) - 1) Hz.
  auto mel = [&](Value hz) -> FailureOr<Value> {
    TRY(a, make<DivScalarOp>(n, hz, sc(700)));
    TRY(b, make<AddScalarOp>(n, a, sc(1)));
    TRY(l, make<LnOp>(n, b));
    return make<MulScalarOp>(n, l, sc(2595 / std::log(10.0)));
  };
  TRY(lowMel, mel(low));
  TRY(highMel, mel(high));
  TRY(span, make<SubOp>(n, highMel, lowMel));
  TRY(step, make<DivScalarOp>(n, span, sc(double(mels + 2))));
  TRY(km, make<MulOp>(n, iota(n, f64, mels + 2, 1, 0), step));
  TRY(m, make<AddOp>(n, km, lowMel));
  TRY(e, make<MulScalarOp>(n, m, sc(std::log(10.0) / 2595)));
  TRY(p, make<ExpOp>(n, e));
  TRY(p1, make<SubScalarOp>(n, p, sc(1)));
  TRY(hz, make<MulScalarOp>(n, p1, sc(700)));
  TRY(dft1, make<AddScalarOp>(n, dft, sc(1)));
  TRY(scaled, make<MulOp>(n, hz, dft1));
  TRY(q, make<DivOp>(n, scaled, rate));
  TRY(edges, make<FloorOp>(n, q)); // [mels + 2]
  TRY(lastEdge, takeAt(n, edges, 0, mels + 1));
  TRY(rateOk, make<GeScalarOp>(n, rate, sc(1)));
  TRY(lowOk, make<GeScalarOp>(n, low, sc(0)));
  TRY(order, make<LeOp>(n, low, high));
  TRY(highOk, make<LeScalarOp>(n, high, sc(1e9)));
  TRY(fits, make<LeScalarOp>(n, lastEdge, sc(double(bins - 1))));
  TRY(valuesOk, allOf(n, {rateOk, lowOk, order, highOk, fits}));
  if (failed(n.checkAtRunTime(
          valuesOk, "sample_rate must be at least 1, 0 <= lower_edge_hertz "
                    "<= upper_edge_hertz <= 1e9, and the upper edge within "
                    "the " +
                        Twine(bins) + " spectrogram bins")))
    return failure();
  // Band i rises from edge i to edge i + 1 and falls to edge i + 2.
  auto edge = [&](int64_t from) -> FailureOr<Value> {
    TRY(s, make<SliceOp>(n, edges, ArrayRef<int64_t>{from},
                         ArrayRef<int64_t>{from + mels}, ArrayRef<int64_t>{1}));
    return n.reshape(s, {1, mels});
  };
  TRY(L, edge(0));
  TRY(C, edge(1));
  TRY(R, edge(2));
  SmallVector<int64_t> grid{bins, mels};
  Value j = broadcastTo(n, iota(n, f64, bins, 2, 0), grid);
  Value l = broadcastTo(n, L, grid), c = broadcastTo(n, C, grid),
        r = broadcastTo(n, R, grid);
  Value zero = n.constant(f64, 0), one = n.constant(f64, 1);
  // (j - base) / (C - base) where lo <= j <= hi (j < hi unless `closed`),
  // else `otherwise`.
  auto ramp = [&](Value base, Value lo, Value hi, bool closed,
                  Value otherwise) -> FailureOr<Value> {
    TRY(num, make<SubOp>(n, j, base));
    TRY(den, make<SubOp>(n, c, base));
    TRY(q, make<DivOp>(n, num, den));
    TRY(ge, make<GeOp>(n, j, lo));
    FailureOr<Value> below =
        closed ? make<LeOp>(n, j, hi) : make<LtOp>(n, j, hi);
    if (failed(below))
      return failure();
    TRY(on, make<LogicalAndOp>(n, ge, *below));
    return make<SelectOp>(n, on, q, otherwise);
  };
  // Rising on [L, C]; where C == L, 1 at j == C.
  TRY(rise, ramp(l, l, c, true, zero));
  TRY(flat, make<EqOp>(n, c, l));
  TRY(atC, make<EqOp>(n, j, c));
  TRY(spike, make<SelectOp>(n, atC, one, zero));
  TRY(rising, make<SelectOp>(n, flat, spike, rise));
  // Falling on [C, R), over the rising where both apply: (j - R) / (C - R).
  TRY(w, ramp(r, c, r, false, rising));
  n.setOutput(0, n.cast(w, elt));
  return success();
}

/// ONNX's MelWeightMatrix: triangular filters between mel-spaced edges,
/// [dft_length / 2 + 1, num_mel_bins], as the ONNX reference computes it.
LogicalResult convertMelWeightMatrix(NodeContext &n) {
  if (llvm::any_of(llvm::seq<size_t>(0, 5),
                   [&](size_t i) { return !n.constantInput(i); })) {
    TRY(elt, outputType(n));
    return melWeightsAtRunTime(n, elt);
  }
  TRY(mels, constScalar(n, 0, "num_mel_bins"));
  TRY(dftLength, constScalar(n, 1, "dft_length"));
  TRY(rate, constScalar(n, 2, "sample_rate"));
  TRY(lowV, n.constFloats(3, "lower_edge_hertz"));
  TRY(highV, n.constFloats(4, "upper_edge_hertz"));
  TRY(elt, outputType(n));
  if (lowV.size() != 1 || highV.size() != 1)
    return n.error("lower_edge_hertz and upper_edge_hertz must hold one "
                   "value each");
  if (mels < 1 || mels > 65536 || dftLength < 1 || dftLength > (1 << 20) ||
      rate < 1)
    return n.error("num_mel_bins must be in [1, 65536], dft_length in [1, "
                   "2^20] and sample_rate positive");
  double low = lowV[0], high = highV[0];
  if (!(low >= 0 && high >= low && high <= 1e9))
    return n.error("the edges must satisfy 0 <= lower <= upper");
  int64_t specBins = dftLength / 2 + 1;
  double lowMel = 2595 * std::log10(1 + low / 700);
  double highMel = 2595 * std::log10(1 + high / 700);
  double melStep = (highMel - lowMel) / (double)(mels + 2);
  SmallVector<int64_t> edges;
  for (int64_t i = 0; i < mels + 2; ++i) {
    double hz = 700 * (std::pow(10.0, (i * melStep + lowMel) / 2595) - 1);
    edges.push_back((int64_t)std::floor((dftLength + 1) * hz / (double)rate));
  }
  if (edges.back() >= specBins)
    return n.error("upper_edge_hertz " + Twine(std::to_string(high)) + " maps past the last "
                   "of the " + Twine(specBins) + " spectrogram bins");
  ConstantWriter w(RankedTensorType::get({specBins, mels}, elt),
                   kSmallTensorBytes);
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = edges[i], center = edges[i + 1], right = edges[i + 2];
    if (center == left)
      w.setF(center * mels + i, 1.0);
    else
      for (int64_t j = left; j <= center; ++j)
        w.setF(j * mels + i, (double)(j - left) / (double)(center - left));
    for (int64_t j = center; j < right; ++j)
      w.setF(j * mels + i, (double)(right - j) / (double)(right - center));
  }
  n.setConstant(0, w.finish());
  return success();
}

} // namespace

void hodu::onnx_import::registerSignalOps(ConverterTable &table) {
  table.insert({
      {"DFT", convertDFT},
      {"STFT", convertSTFT},
      {"HannWindow", convertWindow},
      {"HammingWindow", convertWindow},
      {"BlackmanWindow", convertWindow},
      {"MelWeightMatrix", convertMelWeightMatrix},
  });
}
