//===- AutodiffRules.cpp - gradient rules of structured ops ---------------===//
//
// The rules of hodu-autodiff for ops with structure: matmul (1-D operands
// too), the reductions, slice/concat, gathers (scatter-adds of the
// gradient), convolution (conv_transpose for the input, conv_grad_weight
// for the weights, any groups), pooling, and the activations whose
// derivative takes more than one op.
//
// Pooling's input gradient is a transposed convolution, so overlapping
// windows, padding and dilation need no special case: a mean window spreads
// g / count with a ones kernel per channel; a max window first gathers each
// window's taps into channels with a one-hot kernel per tap (a grouped
// convolution), keeps g where a tap equals the window's maximum, and
// scatters the taps back with the same kernel transposed. Every tap equal
// to the maximum gets the gradient (PyTorch gives it to one of them).
//
//===----------------------------------------------------------------------===//

#include "Autodiff.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;

namespace hodu::autodiff {
namespace {

/// `output_padding` making a transposed convolution of `out` give `in`
/// (spatial dims only).
SmallVector<int64_t> outputPadding(ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                                   ArrayRef<int64_t> kernel,
                                   ArrayRef<int64_t> strides,
                                   ArrayRef<int64_t> pads,
                                   ArrayRef<int64_t> dilations) {
  size_t n = in.size();
  SmallVector<int64_t> op;
  for (size_t i = 0; i < n; ++i)
    op.push_back(in[i] -
                 (strides[i] * (out[i] - 1) + dilations[i] * (kernel[i] - 1) +
                  1 - pads[i] - pads[n + i]));
  return op;
}

} // namespace

LogicalResult Backward::applyStructured(Operation *op, Value g) {
  Value r = op->getResult(0);
  auto rt = tensorOf(r);
  auto operand = [&](unsigned i) { return op->getOperand(i); };
  auto in0 = [&] { return tensorOf(operand(0)); };
  auto mul = [&](Value x, Value y) {
    return MulOp::create(b, loc, x.getType(), x, y).getResult();
  };
  auto add = [&](Value x, Value y) {
    return AddOp::create(b, loc, x.getType(), x, y).getResult();
  };
  auto sub = [&](Value x, Value y) {
    return SubOp::create(b, loc, x.getType(), x, y).getResult();
  };
  auto mulScalar = [&](Value x, double s) {
    return MulScalarOp::create(b, loc, x.getType(), x, scalar(x.getType(), s))
        .getResult();
  };
  /// The reduced shape with the reduced dims kept as 1.
  auto keptType = [&](RankedTensorType in, ArrayRef<int64_t> dims) {
    SmallVector<int64_t> kept(in.getShape());
    for (int64_t d : dims)
      kept[d] = 1;
    return withShape(in, kept);
  };
  /// g (of a reduction's result) broadcast back to the input's shape.
  auto spread = [&](Value grad, ArrayRef<int64_t> dims) {
    return broadcast(reshape(grad, keptType(in0(), dims)), in0());
  };
  auto unary = [&](Value dydx) {
    accumulate(operand(0), mul(g, dydx));
    return success();
  };
  auto conv = [&](RankedTensorType t, Value x, Value w,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                  ArrayRef<int64_t> dil, int64_t groups) {
    return ConvOp::create(b, loc, t, x, w, b.getDenseI64ArrayAttr(strides),
                          b.getDenseI64ArrayAttr(pads),
                          b.getDenseI64ArrayAttr(dil),
                          b.getI64IntegerAttr(groups))
        .getResult();
  };
  auto convT = [&](RankedTensorType t, Value x, Value w,
                   ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                   ArrayRef<int64_t> pads, ArrayRef<int64_t> dil,
                   int64_t groups) {
    auto xs = tensorOf(x).getShape().drop_front(2);
    SmallVector<int64_t> op = outputPadding(t.getShape().drop_front(2), xs,
                                            kernel, strides, pads, dil);
    return ConvTransposeOp::create(
               b, loc, t, x, w, b.getDenseI64ArrayAttr(strides),
               b.getDenseI64ArrayAttr(pads), b.getDenseI64ArrayAttr(dil),
               b.getI64IntegerAttr(groups), b.getDenseI64ArrayAttr(op))
        .getResult();
  };

  return TypeSwitch<Operation *, LogicalResult>(op)
      // Activations.
      .Case<ErfOp>([&](auto) {
        Value e = ExpOp::create(
            b, loc, rt, NegOp::create(b, loc, rt, mul(operand(0), operand(0))));
        return unary(mulScalar(e, 2.0 / std::sqrt(M_PI)));
      })
      .Case<GeluOp>([&](auto) {
        // Phi(x) + x phi(x).
        Value x = operand(0);
        Value e = ErfOp::create(b, loc, rt, mulScalar(x, 1.0 / std::sqrt(2.0)));
        Value cdf =
            mulScalar(AddScalarOp::create(b, loc, rt, e, scalar(rt, 1.0)), 0.5);
        Value pdf =
            mulScalar(ExpOp::create(b, loc, rt, mulScalar(mul(x, x), -0.5)),
                      1.0 / std::sqrt(2.0 * M_PI));
        return unary(add(cdf, mul(x, pdf)));
      })
      .Case<SiluOp>([&](auto) {
        // s + x s (1 - s).
        Value x = operand(0), s = SigmoidOp::create(b, loc, rt, x);
        Value xs = mul(x, s);
        return unary(add(s, sub(xs, mul(xs, s))));
      })
      .Case<SoftplusOp>([&](auto) {
        return unary(SigmoidOp::create(b, loc, rt, operand(0)));
      })
      .Case<EluOp>([&](EluOp e) {
        // x > 0: 1; otherwise alpha e^x = r + alpha.
        Value pos = GtScalarOp::create(b, loc, boolLike(rt), operand(0),
                                       scalar(rt, 0.0));
        Value neg = AddScalarOp::create(b, loc, rt, r, e.getScalar());
        return unary(select(pos, splat(rt, 1.0), neg));
      })
      .Case<HardSigmoidOp>([&](auto) {
        Value x = operand(0);
        Value above =
            GtScalarOp::create(b, loc, boolLike(rt), x, scalar(rt, -3.0));
        Value below =
            LtScalarOp::create(b, loc, boolLike(rt), x, scalar(rt, 3.0));
        Value inside = LogicalAndOp::create(b, loc, boolLike(rt), above, below);
        return unary(select(inside, splat(rt, 1.0 / 6.0), splat(rt, 0.0)));
      })
      .Case<SinOp>(
          [&](auto) { return unary(CosOp::create(b, loc, rt, operand(0))); })
      .Case<CosOp>([&](auto) {
        return unary(
            NegOp::create(b, loc, rt, SinOp::create(b, loc, rt, operand(0))));
      })
      .Case<MaximumScalarOp, MinimumScalarOp>([&](auto m) {
        // Clip: the gradient passes where x is inside (ends included).
        Value keep = isa<MaximumScalarOp>(op)
                         ? GeScalarOp::create(b, loc, boolLike(rt), operand(0),
                                              m.getScalar())
                               .getResult()
                         : LeScalarOp::create(b, loc, boolLike(rt), operand(0),
                                              m.getScalar())
                               .getResult();
        return unary(select(keep, splat(rt, 1.0), splat(rt, 0.0)));
      })
      .Case<PowScalarOp>([&](PowScalarOp p) {
        double e = cast<FloatAttr>(p.getScalar()).getValueAsDouble();
        Value lower =
            PowScalarOp::create(b, loc, rt, operand(0), scalar(rt, e - 1.0));
        return unary(mulScalar(lower, e));
      })
      .Case<PowOp>([&](auto) {
        // d/dx = y x^(y-1), d/dy = r ln x (x > 0).
        Value x = operand(0), y = operand(1);
        Value ym1 = SubScalarOp::create(b, loc, tensorOf(y), y,
                                        scalar(tensorOf(y), 1.0));
        Value dx = mul(
            g, MulOp::create(b, loc, rt, y, PowOp::create(b, loc, rt, x, ym1)));
        Value lx = LnOp::create(b, loc, tensorOf(x), x);
        Value dy = mul(g, MulOp::create(b, loc, rt, r, lx));
        accumulate(x, unbroadcast(dx, tensorOf(x)));
        accumulate(y, unbroadcast(dy, tensorOf(y)));
        return success();
      })
      // Reductions.
      .Case<ReduceMaxOp, ReduceMinOp>([&](auto red) {
        // Shared evenly by the elements equal to the extreme.
        ArrayRef<int64_t> dims = red.getDims();
        auto kt = keptType(in0(), dims);
        Value mask = EqOp::create(b, loc, boolLike(in0()), operand(0),
                                  broadcast(reshape(r, kt), in0()));
        Value ones = CastOp::create(b, loc, in0(), mask);
        Value count =
            ReduceSumOp::create(b, loc, kt, ones, b.getDenseI64ArrayAttr(dims),
                                b.getBoolAttr(true));
        Value share = DivOp::create(b, loc, kt, reshape(g, kt), count);
        accumulate(operand(0),
                   select(mask, broadcast(share, in0()), splat(in0(), 0.0)));
        return success();
      })
      .Case<ReduceNormOp>([&](ReduceNormOp red) {
        // x / ||x||.
        ArrayRef<int64_t> dims = red.getDims();
        Value q = DivOp::create(b, loc, rt, g, r);
        accumulate(operand(0), mul(operand(0), spread(q, dims)));
        return success();
      })
      .Case<ReduceLogSumExpOp>([&](ReduceLogSumExpOp red) {
        // softmax: exp(x - r).
        ArrayRef<int64_t> dims = red.getDims();
        Value sm =
            ExpOp::create(b, loc, in0(), sub(operand(0), spread(r, dims)));
        accumulate(operand(0), mul(sm, spread(g, dims)));
        return success();
      })
      .Case<ReduceVarOp, ReduceStdOp>([&](auto red) {
        // var: 2 (x - mean) / n; std: var' / (2 std).
        ArrayRef<int64_t> dims = red.getDims();
        int64_t n = 1;
        for (int64_t d : dims)
          n *= in0().getDimSize(d);
        Value mean = ReduceMeanOp::create(
            b, loc, keptType(in0(), dims), operand(0),
            b.getDenseI64ArrayAttr(dims), b.getBoolAttr(true));
        Value centred = sub(operand(0), broadcast(mean, in0()));
        Value q = g;
        if (isa<ReduceStdOp>(op))
          q = mulScalar(DivOp::create(b, loc, rt, g, r), 0.5);
        accumulate(operand(0),
                   mul(mulScalar(centred, 2.0 / double(n)), spread(q, dims)));
        return success();
      })
      // Matrix products, 1-D operands as rows or columns.
      .Case<MatmulOp>([&](auto) {
        Value x = operand(0), y = operand(1);
        auto xt = tensorOf(x), yt = tensorOf(y);
        auto gt = tensorOf(g);
        SmallVector<int64_t> gs(gt.getShape());
        if (xt.getRank() == 1) {
          x = reshape(x, withShape(xt, {1, xt.getDimSize(0)}));
          gs.insert(gs.end() - (yt.getRank() == 1 ? 0 : 1), 1);
        }
        if (yt.getRank() == 1) {
          y = reshape(y, withShape(yt, {yt.getDimSize(0), 1}));
          gs.push_back(1);
        }
        Value g2 = reshape(g, withShape(gt, gs));
        SmallVector<int64_t> batch(ArrayRef<int64_t>(gs).drop_back(2));
        auto shaped = [&](int64_t rows, int64_t cols) {
          SmallVector<int64_t> s(batch);
          s.append({rows, cols});
          return withShape(gt, s);
        };
        int64_t m = gs[gs.size() - 2], n = gs.back();
        int64_t k = tensorOf(x).getShape().back();
        Value dx =
            MatmulOp::create(b, loc, shaped(m, k), g2, transposeLast2(y));
        Value dy =
            MatmulOp::create(b, loc, shaped(k, n), transposeLast2(x), g2);
        accumulate(operand(0), reshape(unbroadcast(dx, tensorOf(x)), xt));
        accumulate(operand(1), reshape(unbroadcast(dy, tensorOf(y)), yt));
        return success();
      })
      // Data movement.
      .Case<SliceOp>([&](SliceOp s) -> LogicalResult {
        // g spread back over the input: along a dim of step k > 1, each
        // element followed by k - 1 zeros (a new unit dim padded to k and
        // merged), cut after the last element taken; then padded with
        // zeros to the input's extent before and after the slice. A
        // negative step is the positive one over the input reversed along
        // that dim: the same spread, flipped back at the end.
        auto in = in0();
        int64_t rank = in.getRank();
        auto constantPad = PadModeAttr::get(b.getContext(), PadMode::constant);
        Value spread = g;
        SmallVector<int64_t> shape(rt.getShape()), flipped;
        for (int64_t d = 0; d < rank; ++d) {
          int64_t step = s.getSteps()[d], n = shape[d];
          if (step < 0) {
            flipped.push_back(d);
            step = -step;
          }
          if (step == 1 || n == 0)
            continue;
          SmallVector<int64_t> split(shape);
          split.insert(split.begin() + d + 1, 1);
          spread = reshape(spread, withShape(in, split));
          SmallVector<int64_t> pads(2 * (rank + 1), 0);
          pads[rank + 1 + d + 1] = step - 1;
          split[d + 1] = step;
          spread = PadOp::create(b, loc, withShape(in, split), spread,
                                 constantPad, b.getDenseI64ArrayAttr(pads),
                                 scalar(in, 0.0));
          SmallVector<int64_t> merged(shape);
          merged[d] = n * step;
          spread = reshape(spread, withShape(in, merged));
          SmallVector<int64_t> starts(rank, 0), ends(merged), steps(rank, 1);
          ends[d] = (n - 1) * step + 1;
          shape[d] = ends[d];
          spread = SliceOp::create(b, loc, withShape(in, shape), spread,
                                   b.getDenseI64ArrayAttr(starts),
                                   b.getDenseI64ArrayAttr(ends),
                                   b.getDenseI64ArrayAttr(steps));
        }
        SmallVector<int64_t> pads(2 * rank);
        for (int64_t d = 0; d < rank; ++d) {
          int64_t extent = in.getDimSize(d), begin = s.getStarts()[d];
          if (begin < 0)
            begin += extent;
          // Reversed: the first element taken, counted from the end.
          if (llvm::is_contained(flipped, d))
            begin = extent - 1 - std::clamp<int64_t>(begin, 0, extent - 1);
          pads[d] = begin;
          pads[rank + d] = extent - begin - shape[d];
        }
        Value padded = PadOp::create(b, loc, in, spread, constantPad,
                                     b.getDenseI64ArrayAttr(pads),
                                     scalar(in, 0.0));
        if (!flipped.empty())
          padded = FlipOp::create(b, loc, in, padded,
                                  b.getDenseI64ArrayAttr(flipped));
        accumulate(operand(0), padded);
        return success();
      })
      .Case<ConcatOp>([&](ConcatOp c) {
        int64_t dim = c.getDim(), offset = 0;
        for (Value v : c.getInputs()) {
          auto t = tensorOf(v);
          SmallVector<int64_t> starts(t.getRank(), 0), ends(rt.getShape()),
              steps(t.getRank(), 1);
          starts[dim] = offset;
          ends[dim] = offset + t.getDimSize(dim);
          offset = ends[dim];
          accumulate(v, SliceOp::create(b, loc, t, g,
                                        b.getDenseI64ArrayAttr(starts),
                                        b.getDenseI64ArrayAttr(ends),
                                        b.getDenseI64ArrayAttr(steps)));
        }
        return success();
      })
      .Case<GatherOp>([&](GatherOp ga) {
        // GatherElements: add g back at the indices.
        accumulate(operand(0),
                   ScatterAddOp::create(b, loc, in0(), splat(in0(), 0.0),
                                        ga.getIndices(), g, ga.getDimAttr()));
        return success();
      })
      .Case<IndexSelectOp>([&](IndexSelectOp is) {
        // Gather: g as [pre, K, post] added back at the K indices along dim.
        auto in = in0();
        auto it = tensorOf(is.getIndices());
        int64_t dim = is.getDim(), k = it.getNumElements();
        SmallVector<int64_t> shape(in.getShape().take_front(dim));
        shape.push_back(k);
        llvm::append_range(shape, in.getShape().drop_front(dim + 1));
        SmallVector<int64_t> idxShape(shape.size(), 1);
        idxShape[dim] = k;
        Value idx =
            reshape(is.getIndices(),
                    RankedTensorType::get(idxShape, it.getElementType()));
        idx = broadcast(idx, RankedTensorType::get(shape, it.getElementType()));
        Value g2 = reshape(g, withShape(in, shape));
        accumulate(operand(0), ScatterAddOp::create(b, loc, in, splat(in, 0.0),
                                                    idx, g2, is.getDimAttr()));
        return success();
      })
      // Convolution: any groups, strides, pads and dilations.
      .Case<ConvOp>([&](ConvOp c) {
        Value x = operand(0), w = operand(1);
        auto wt = tensorOf(w);
        accumulate(x, convT(tensorOf(x), g, w, wt.getShape().drop_front(2),
                            c.getStrides(), c.getPads(), c.getDilations(),
                            c.getGroups()));
        accumulate(w, ConvGradWeightOp::create(
                          b, loc, wt, x, g, c.getStridesAttr(), c.getPadsAttr(),
                          c.getDilationsAttr(), c.getGroupsAttr()));
        return success();
      })
      // Pooling over the spatial dims of [N, C, spatial...].
      .Case<ReduceWindowOp>([&](ReduceWindowOp p) -> LogicalResult {
        auto in = in0();
        int64_t rank = in.getRank(), sr = rank - 2;
        ArrayRef<int64_t> window = p.getWindowDims(), strides = p.getStrides(),
                          pads = p.getPads(), dil = p.getDilations();
        bool pooling = rank >= 3;
        for (int64_t d = 0; pooling && d < 2; ++d)
          pooling = window[d] == 1 && strides[d] == 1 && dil[d] == 1 &&
                    pads[d] == 0 && pads[rank + d] == 0;
        if (!pooling || p.getKind() == WindowKind::min)
          return op->emitError("no gradient rule for this 'hodu.reduce_window' "
                               "yet (pooling of [N, C, spatial...] by max, "
                               "mean or sum only)");
        SmallVector<int64_t> kernel(window.drop_front(2)),
            s(strides.drop_front(2)), d(dil.drop_front(2)), pd;
        llvm::append_range(pd, pads.slice(2, sr));
        llvm::append_range(pd, pads.drop_front(rank + 2));
        int64_t c = in.getDimSize(1), taps = 1;
        for (int64_t kk : kernel)
          taps *= kk;
        auto kernelType = [&](int64_t outChannels) {
          SmallVector<int64_t> shape{outChannels, 1};
          llvm::append_range(shape, kernel);
          return withShape(in, shape);
        };
        if (p.getKind() != WindowKind::max) {
          Value share = g;
          if (p.getKind() == WindowKind::mean) {
            bool fixed = p.getCountIncludePad() ||
                         llvm::all_of(pads, [](int64_t v) { return v == 0; });
            if (fixed) {
              share = mulScalar(g, 1.0 / double(taps));
            } else {
              // The taps inside the input, per window.
              Value count = ReduceWindowOp::create(b, loc, rt, splat(in, 1.0),
                                                   WindowKind::sum, window,
                                                   strides, pads, dil, false);
              share = DivOp::create(b, loc, rt, g, count);
            }
          }
          accumulate(operand(0), convT(in, share, splat(kernelType(c), 1.0),
                                       kernel, s, pd, d, c));
          return success();
        }
        // Max: one-hot kernels [C * taps, 1, kernel...], tap j of channel c
        // at channel c * taps + j.
        auto kt = kernelType(c * taps);
        SmallVector<Attribute> onehot;
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t j = 0; j < taps; ++j)
            for (int64_t q = 0; q < taps; ++q)
              onehot.push_back(
                  FloatAttr::get(in.getElementType(), q == j ? 1.0 : 0.0));
        Value e = ConstantOp::create(
            b, loc, cast<ElementsAttr>(DenseElementsAttr::get(kt, onehot)));
        SmallVector<int64_t> spatial(rt.getShape().drop_front(2));
        SmallVector<int64_t> tapsShape{rt.getDimSize(0), c * taps};
        llvm::append_range(tapsShape, spatial);
        Value u = conv(withShape(in, tapsShape), operand(0), e, s, pd, d, c);
        SmallVector<int64_t> five{rt.getDimSize(0), c, taps},
            one{rt.getDimSize(0), c, 1};
        llvm::append_range(five, spatial);
        llvm::append_range(one, spatial);
        auto ft = withShape(in, five);
        Value u5 = reshape(u, ft);
        Value mask =
            EqOp::create(b, loc, boolLike(ft), u5,
                         broadcast(reshape(r, withShape(in, one)), ft));
        Value g5 = broadcast(reshape(g, withShape(in, one)), ft);
        Value kept =
            reshape(select(mask, g5, splat(ft, 0.0)), withShape(in, tapsShape));
        accumulate(operand(0), convT(in, kept, e, kernel, s, pd, d, c));
        return success();
      })
      .Default([&](Operation *) {
        return op->emitError("no gradient rule for '")
               << op->getName()
               << "': the loss depends on its result, so it cannot be "
                  "trained through";
      });
}

} // namespace hodu::autodiff
