//===- OnnxRecurrentOps.cpp - RNN, GRU, LSTM ------------------------------===//
//
// Recurrent layers, unrolled over the static sequence length.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {
/// Most time steps an RNN, GRU or LSTM is unrolled into.
constexpr int64_t kMaxUnrolledSteps = 16384;


/// One of a recurrent layer's activation functions, with its alpha and
/// beta where it takes them.
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

/// Which of alpha and beta an activation takes, and their defaults (those
/// of the ONNX op of the same name); false for an unknown name.
bool activationParams(StringRef name, bool &usesAlpha, bool &usesBeta,
                      double &alpha, double &beta) {
  std::string l = name.lower();
  usesAlpha = usesBeta = false;
  alpha = beta = 0;
  if (l == "relu" || l == "tanh" || l == "sigmoid" || l == "softsign" ||
      l == "softplus")
    return true;
  if (l == "leakyrelu") {
    usesAlpha = true;
    alpha = 0.01;
  } else if (l == "thresholdedrelu" || l == "elu") {
    usesAlpha = true;
    alpha = 1.0;
  } else if (l == "affine" || l == "scaledtanh") {
    usesAlpha = usesBeta = true;
    alpha = 1.0;
    beta = l == "affine" ? 0.0 : 1.0;
  } else if (l == "hardsigmoid") {
    usesAlpha = usesBeta = true;
    alpha = 0.2;
    beta = 0.5;
  } else {
    return false;
  }
  return true;
}

FailureOr<Value> activation(NodeContext &n, const Activation &a, Value v) {
  std::string l = StringRef(a.name).lower();
  Type elt = tensorType(v).getElementType();
  auto attr = [&](double x) { return n.scalarAttr(elt, x); };
  if (l == "sigmoid")
    return make<SigmoidOp>(n, v);
  if (l == "tanh")
    return make<TanhOp>(n, v);
  if (l == "relu")
    return make<ReluOp>(n, v);
  if (l == "softsign")
    return make<SoftsignOp>(n, v);
  if (l == "softplus")
    return make<SoftplusOp>(n, v);
  if (l == "leakyrelu")
    return make<LeakyReluOp>(n, v, attr(a.alpha));
  if (l == "elu")
    return make<EluOp>(n, v, attr(a.alpha));
  if (l == "thresholdedrelu") {
    TRY(c, make<GtScalarOp>(n, v, attr(a.alpha)));
    return make<SelectOp>(n, c, v, n.constant(elt, 0));
  }
  if (l == "affine" || l == "hardsigmoid") {
    TRY(m, make<MulScalarOp>(n, v, attr(a.alpha)));
    TRY(s, make<AddScalarOp>(n, m, attr(a.beta)));
    if (l == "affine")
      return s;
    TRY(lo, make<MaximumScalarOp>(n, s, attr(0)));
    return make<MinimumScalarOp>(n, lo, attr(1));
  }
  if (l == "scaledtanh") {
    TRY(m, make<MulScalarOp>(n, v, attr(a.beta)));
    TRY(t, make<TanhOp>(n, m));
    return make<MulScalarOp>(n, t, attr(a.alpha));
  }
  return n.error("activation '" + a.name + "' is not supported");
}

/// The state and weights of one direction of a recurrent layer, and one time
/// step of each cell kind. A step reads the input projection `xg` of its time
/// step ([batch, G*H], input bias added) and updates `h` (and `c`).
struct Cell {
  NodeContext &n;
  ArrayRef<Activation> act; // this direction's activations
  std::optional<float> clip;
  Type elt;
  int64_t H;
  bool linearBeforeReset;
  Value rT, rb;     // transposed recurrence weights [H, G*H], their bias
  Value h, c;       // hidden and (LSTM) cell state, [batch, H]
  Value pi, po, pf; // LSTM peepholes, if any

  FailureOr<Value> clipped(Value v) {
    if (!clip)
      return v;
    TRY(a, make<MaximumScalarOp>(n, v, n.scalarAttr(elt, -*clip)));
    return make<MinimumScalarOp>(n, a, n.scalarAttr(elt, *clip));
  }

  FailureOr<Value> peep(Value g, Value p, Value cell) {
    if (!p)
      return g;
    TRY(m, make<MulOp>(n, p, cell));
    return make<AddOp>(n, g, m);
  }

  /// h R^T (+ Rb).
  FailureOr<Value> recurrence() {
    TRY(hr, make<MatmulOp>(n, h, rT));
    if (!rb)
      return hr;
    return make<AddOp>(n, hr, rb);
  }

  LogicalResult rnnStep(Value xg) {
    TRY(hrb, recurrence());
    TRY(sum, make<AddOp>(n, xg, hrb));
    TRY(cs, clipped(sum));
    TRY(hn, activation(n, act[0], cs));
    h = hn;
    return success();
  }

  LogicalResult lstmStep(Value xg) {
    TRY(hrb, recurrence());
    TRY(sum, make<AddOp>(n, xg, hrb));
    TRY(cs, clipped(sum));
    TRY(g, makeOp<SplitOp>(n, cs, 1, SmallVector<int64_t>(4, H)));
    TRY(ip, peep(g->getResult(0), pi, c));
    TRY(fp, peep(g->getResult(2), pf, c));
    TRY(i, activation(n, act[0], ip));
    TRY(f, activation(n, act[0], fp));
    TRY(cc, activation(n, act[1], g->getResult(3)));
    TRY(fc, make<MulOp>(n, f, c));
    TRY(ic, make<MulOp>(n, i, cc));
    TRY(cn, make<AddOp>(n, fc, ic));
    c = cn;
    TRY(op2, peep(g->getResult(1), po, c));
    TRY(o, activation(n, act[0], op2));
    TRY(hc, activation(n, act[2], c));
    TRY(hn, make<MulOp>(n, o, hc));
    h = hn;
    return success();
  }

  LogicalResult gruStep(Value xg) {
    TRY(hrb, recurrence());
    SmallVector<int64_t> chunk(3, H);
    TRY(gx, makeOp<SplitOp>(n, xg, 1, chunk));
    TRY(gh, makeOp<SplitOp>(n, hrb, 1, chunk));
    TRY(zs, make<AddOp>(n, gx->getResult(0), gh->getResult(0)));
    TRY(zc, clipped(zs));
    TRY(z, activation(n, act[0], zc));
    TRY(rs, make<AddOp>(n, gx->getResult(1), gh->getResult(1)));
    TRY(rc, clipped(rs));
    TRY(rg, activation(n, act[0], rc));
    Value hpre;
    if (linearBeforeReset) {
      TRY(m, make<MulOp>(n, rg, gh->getResult(2)));
      hpre = m;
    } else {
      // (r * H) R_h^T + Rb_h: project the reset state separately.
      TRY(rh, make<MulOp>(n, rg, h));
      TRY(rhT, make<SliceOp>(n, rT, ArrayRef<int64_t>{0, 2 * H},
                             ArrayRef<int64_t>{H, 3 * H},
                             ArrayRef<int64_t>{1, 1}));
      TRY(m, make<MatmulOp>(n, rh, rhT));
      hpre = m;
      if (rb) {
        TRY(rbh, make<SliceOp>(n, rb, ArrayRef<int64_t>{2 * H},
                               ArrayRef<int64_t>{3 * H}, ArrayRef<int64_t>{1}));
        TRY(a, make<AddOp>(n, hpre, rbh));
        hpre = a;
      }
    }
    TRY(hs, make<AddOp>(n, gx->getResult(2), hpre));
    TRY(hcl, clipped(hs));
    TRY(hh, activation(n, act[1], hcl));
    // H = (1 - z) * hh + z * H = hh + z * (H - hh).
    TRY(diff, make<SubOp>(n, h, hh));
    TRY(zd, make<MulOp>(n, z, diff));
    TRY(hn, make<AddOp>(n, hh, zd));
    h = hn;
    return success();
  }
};

LogicalResult convertRecurrent(NodeContext &n) {
  StringRef op = n.node.op_type();
  int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
  SmallVector<std::string> defaults =
      op == "LSTM"  ? SmallVector<std::string>{"Sigmoid", "Tanh", "Tanh"}
      : op == "GRU" ? SmallVector<std::string>{"Sigmoid", "Tanh"}
                    : SmallVector<std::string>{"Tanh"};
  TRY(x, n.in(0));
  TRY(w, n.in(1));
  TRY(r, n.in(2));
  TRY(hidden, n.attrInt("hidden_size", 0));
  TRY(layout, n.attrInt("layout", 0));
  TRY(dirStr, n.attrString("direction", "forward"));
  TRY(lbr, n.attrInt("linear_before_reset", 0));
  TRY(inputForget, n.attrInt("input_forget", 0));
  if (inputForget)
    return n.error("input_forget is not supported");
  int64_t dirs = dirStr == "bidirectional" ? 2 : 1;
  if (dirStr != "forward" && dirStr != "reverse" && dirStr != "bidirectional")
    return n.error("unknown direction '" + dirStr + "'");
  SmallVector<Activation> acts;
  if (const auto *a = n.attr("activations")) {
    for (const auto &str : a->strings())
      acts.push_back({str});
  } else {
    for (int64_t d = 0; d < dirs; ++d)
      for (const std::string &name : defaults)
        acts.push_back({name});
  }
  if (acts.size() != defaults.size() * dirs)
    return n.error("expects " + Twine(defaults.size() * dirs) + " activations");
  // activation_alpha and activation_beta are consumed in order by the
  // activations that take them (as ONNX Runtime reads them); the others
  // take the defaults of the ONNX op of the same name.
  TRY(alphas, n.attrFloats("activation_alpha"));
  TRY(betas, n.attrFloats("activation_beta"));
  size_t nextAlpha = 0, nextBeta = 0;
  for (Activation &a : acts) {
    bool usesAlpha, usesBeta;
    if (!activationParams(a.name, usesAlpha, usesBeta, a.alpha, a.beta))
      return n.error("activation '" + a.name + "' is not supported");
    if (usesAlpha && alphas && nextAlpha < alphas->size())
      a.alpha = (*alphas)[nextAlpha++];
    if (usesBeta && betas && nextBeta < betas->size())
      a.beta = (*betas)[nextBeta++];
  }
  std::optional<float> clip;
  if (n.attr("clip")) {
    TRY(c, n.attrFloat("clip", 0));
    clip = c;
  }
  if (layout == 1) {
    TRY(t, make<TransposeOp>(n, x, ArrayRef<int64_t>{1, 0, 2}));
    x = t;
  }
  auto xt = tensorType(x);
  if (xt.getRank() != 3)
    return n.error("expects a 3-D input");
  int64_t seq = xt.getDimSize(0), batch = xt.getDimSize(1);
  int64_t H = hidden;
  Type elt = xt.getElementType();
  auto wt = tensorType(w), rt = tensorType(r);
  // H is an attribute: bound it before gates * H can overflow.
  if (H <= 0 || H > (int64_t(1) << 31) || wt.getRank() != 3 ||
      rt.getRank() != 3 ||
      wt.getDimSize(0) != dirs || wt.getDimSize(1) != gates * H ||
      rt.getDimSize(0) != dirs || rt.getDimSize(1) != gates * H ||
      rt.getDimSize(2) != H || wt.getDimSize(2) != xt.getDimSize(2))
    return n.error("W, R and hidden_size do not fit together");
  // Sequences shorter than `seq` (sequence_lens, read at run time unless
  // every length is the full one): from step len[b] on, batch entry b keeps
  // its state and outputs zeros; a reverse direction starts at len[b] - 1.
  std::optional<Value> lens;
  if (n.hasInput(4)) {
    auto known = n.constantInput(4);
    auto isFull = [&](int64_t i) {
      return static_cast<int64_t>(known->s(i)) == seq;
    };
    if (!known || !llvm::all_of(llvm::seq<int64_t>(0, known->size()), isFull)) {
      TRY(l, n.in(4));
      if (tensorType(l).getNumElements() != batch)
        return n.error("sequence_lens must hold one length per batch entry");
      lens = n.reshape(n.cast(l, n.b.getI64Type()), {batch, 1});
    }
  }

  // The recurrence is unrolled, one step per element of the sequence: a
  // declared length of 2^31 would allocate and build without end.
  if (seq < 0 || seq > kMaxUnrolledSteps)
    return n.error("a sequence of " + Twine(seq) +
                   " steps: recurrent ops are unrolled per time step at "
                   "import, up to " + Twine(kMaxUnrolledSteps) + " steps");
  SmallVector<SmallVector<Value>> ys(seq, SmallVector<Value>(dirs));
  SmallVector<Value> lastH, lastC;
  for (int64_t d = 0; d < dirs; ++d) {
    TRY(wd, takeAt(n, w, 0, d));
    TRY(rd, takeAt(n, r, 0, d));
    TRY(wT, make<TransposeOp>(n, wd, ArrayRef<int64_t>{1, 0}));
    TRY(rT, make<TransposeOp>(n, rd, ArrayRef<int64_t>{1, 0}));
    // All input projections at once: [seq, batch, G*H].
    TRY(xw, make<MatmulOp>(n, x, wT));
    Value rb;
    if (n.hasInput(3)) {
      TRY(b, n.in(3));
      TRY(bd, takeAt(n, b, 0, d));
      TRY(parts, makeOp<SplitOp>(n, bd, 0,
                                 ArrayRef<int64_t>{gates * H, gates * H}));
      TRY(xwb, make<AddOp>(n, xw, parts->getResult(0)));
      xw = xwb;
      rb = parts->getResult(1);
    }
    Cell cell{n, {}, clip, elt, H, lbr != 0, rT, rb};
    // The initial state of direction d: input `i`, or zeros.
    auto initialState = [&](size_t i) -> FailureOr<Value> {
      if (!n.hasInput(i))
        return n.constant(elt, 0, {batch, H});
      TRY(s0, n.in(i));
      return takeAt(n, s0, 0, d);
    };
    TRY(h0, initialState(5));
    cell.h = h0;
    if (op == "LSTM") {
      TRY(c0, initialState(6));
      cell.c = c0;
    }
    if (op == "LSTM" && n.hasInput(7)) {
      TRY(p, n.in(7));
      TRY(pd, takeAt(n, p, 0, d));
      TRY(parts, makeOp<SplitOp>(n, pd, 0, ArrayRef<int64_t>{H, H, H}));
      cell.pi = parts->getResult(0);
      cell.po = parts->getResult(1);
      cell.pf = parts->getResult(2);
    }
    cell.act = ArrayRef<Activation>(acts.data() + d * defaults.size(),
                                    defaults.size());
    bool reverse = dirStr == "reverse" || d == 1;
    for (int64_t step = 0; step < seq; ++step) {
      int64_t t = reverse ? seq - 1 - step : step;
      TRY(xg, takeAt(n, xw, 0, t));
      Value prevH = cell.h, prevC = cell.c;
      LogicalResult stepped = op == "RNN"    ? cell.rnnStep(xg)
                              : op == "LSTM" ? cell.lstmStep(xg)
                                             : cell.gruStep(xg);
      if (failed(stepped))
        return failure();
      Value y = cell.h;
      if (lens) {
        TRY(active, make<GtScalarOp>(n, *lens,
                                     n.scalarAttr(n.b.getI64Type(), (double)t)));
        TRY(hk, make<SelectOp>(n, active, cell.h, prevH));
        if (cell.c) {
          TRY(ck, make<SelectOp>(n, active, cell.c, prevC));
          cell.c = ck;
        }
        TRY(yz, make<SelectOp>(n, active, cell.h, n.constant(elt, 0)));
        cell.h = hk;
        y = yz;
      }
      if (n.hasOutput(0))
        ys[t][d] = n.reshape(y, {1, 1, batch, H});
    }
    lastH.push_back(n.reshape(cell.h, {1, batch, H}));
    if (cell.c)
      lastC.push_back(n.reshape(cell.c, {1, batch, H}));
  }
  auto concat = [&](ArrayRef<Value> vs, int64_t dim) -> FailureOr<Value> {
    if (vs.size() == 1)
      return vs[0];
    return make<ConcatOp>(n, ValueRange(vs), dim);
  };
  if (n.hasOutput(0)) {
    SmallVector<Value> steps;
    for (auto &perDir : ys) {
      TRY(v, concat(perDir, 1));
      steps.push_back(v);
    }
    TRY(y, concat(steps, 0));
    if (layout == 1) {
      TRY(t, make<TransposeOp>(n, y, ArrayRef<int64_t>{2, 0, 1, 3}));
      y = t;
    }
    n.setOutput(0, y);
  }
  for (auto [out, finals] : {std::pair(1, &lastH), std::pair(2, &lastC)}) {
    if (!n.hasOutput(out) || finals->empty())
      continue;
    TRY(v, concat(*finals, 0));
    if (layout == 1) {
      TRY(t, make<TransposeOp>(n, v, ArrayRef<int64_t>{1, 0, 2}));
      v = t;
    }
    n.setOutput(out, v);
  }
  return success();
}

} // namespace

void hodu::onnx_import::registerRecurrentOps(ConverterTable &table) {
  table.insert({
      {"RNN", convertRecurrent},
      {"GRU", convertRecurrent},
      {"LSTM", convertRecurrent},
  });
}
