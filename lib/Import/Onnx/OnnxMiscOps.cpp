//===- OnnxMiscOps.cpp - constants and quantization -----------------------===//
//
// Constants, Shape/Size/Range (constants at import time), quantization,
// TfIdfVectorizer.
//
//===----------------------------------------------------------------------===//

#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

namespace {

LogicalResult convertConstant(NodeContext &n) {
  if (const onnx::TensorProto *t = n.attrTensor("value")) {
    auto value = n.graph.decodeTensor(*t, n.loc);
    if (failed(value))
      return n.error("bad value tensor");
    n.setConstant(0, *value);
    return success();
  }
  ElementsAttr value;
  auto vector = [&](Type elt, int64_t size) {
    return RankedTensorType::get({size}, elt);
  };
  if (const auto *a = n.attr("value_float")) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, n.b.getF32Type()),
                                   a->f());
  } else if (const auto *a = n.attr("value_int")) {
    value = DenseElementsAttr::get(RankedTensorType::get({}, n.b.getI64Type()),
                                   (int64_t)a->i());
  } else if (const auto *a = n.attr("value_floats")) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    value = DenseElementsAttr::get(vector(n.b.getF32Type(), v.size()),
                                   ArrayRef<float>(v));
  } else if (const auto *a = n.attr("value_ints")) {
    SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
    value = DenseElementsAttr::get(vector(n.b.getI64Type(), v.size()),
                                   ArrayRef<int64_t>(v));
  } else {
    return n.error("only tensor, float and int values are supported");
  }
  n.setConstant(0, value);
  return success();
}

/// A splat of the `value` attribute (one element, f32 0 by default).
LogicalResult convertConstantOfShape(NodeContext &n) {
  SmallVector<int64_t> shape;
  if (n.hasInput(0) && !n.constantInput(0)) {
    // Known only at run time: the declared shape, checked when the model
    // runs.
    TRY(declared, n.declaredShapeFor(0, 0, "shape"));
    if (failed(checkEntries(n, 0, declared, declared,
                            "input '" + n.node.input(0) +
                                "' must be the shape " + dimsString(declared) +
                                " " + n.declaredFor(0))))
      return failure();
    shape = declared;
  } else {
    TRY(known, n.constInts(0, "shape"));
    shape = known;
  }
  for (int64_t d : shape)
    if (d < 0)
      return n.error("negative dim in shape");
  DenseElementsAttr value =
      DenseElementsAttr::get(RankedTensorType::get({}, n.b.getF32Type()), 0.0f);
  if (const onnx::TensorProto *t = n.attrTensor("value")) {
    auto decoded = n.graph.decodeTensor(*t, n.loc);
    auto dense = succeeded(decoded) ? dyn_cast<DenseElementsAttr>(*decoded)
                                    : DenseElementsAttr();
    if (!dense || dense.getNumElements() != 1)
      return n.error("value must be a one-element tensor");
    value = dense;
  }
  n.setConstant(0, value.resizeSplat(RankedTensorType::get(
                       shape, value.getType().getElementType())));
  return success();
}

/// Shape and Size: what the input's static type says.
LogicalResult convertShapeOrSize(NodeContext &n) {
  RankedTensorType t = n.type(0);
  if (!t)
    return n.error("input #0 is required");
  if (!t.hasStaticShape())
    return n.error("the input's shape is only known at run time");
  Type i64 = n.b.getI64Type();
  if (n.node.op_type() == "Size") {
    n.setConstant(0, DenseElementsAttr::get(RankedTensorType::get({}, i64),
                                            t.getNumElements()));
    return success();
  }
  int64_t r = t.getRank();
  TRY(start, n.attrInt("start", 0));
  TRY(end, n.attrInt("end", r));
  int64_t s = std::clamp<int64_t>(start < 0 ? start + r : start, 0, r);
  int64_t e = std::clamp<int64_t>(end < 0 ? end + r : end, s, r);
  ArrayRef<int64_t> dims = t.getShape().slice(s, e - s);
  n.setConstant(
      0, DenseElementsAttr::get(RankedTensorType::get({e - s}, i64), dims));
  return success();
}

/// Range has no hodu op (its size is its inputs' value): the evaluator
/// computes it from constant inputs.
/// Range by bounds known only at run time: as many entries as the model
/// declares for its output, start + i * delta, with a run-time check that
/// the bounds give that many (max(ceil((limit - start) / delta), 0),
/// computed in f64).
LogicalResult rangeToDeclared(NodeContext &n, size_t unknown) {
  TRY(shape, n.declaredShapeFor(0, unknown, "the bounds"));
  if (shape.size() != 1)
    return n.error("the model declares output '" + n.node.output(0) +
                   "' with shape " + dimsString(shape) +
                   "; Range gives a 1-D tensor");
  RankedTensorType st = n.type(0);
  if (!st)
    return n.error("input #0 (start) is required");
  Type elt = st.getElementType(), f64 = n.b.getF64Type();
  SmallVector<Value, 3> v;
  static const char *const names[] = {"start", "limit", "delta"};
  for (auto [i, what] : llvm::enumerate(names)) {
    RankedTensorType t = n.type(i);
    if (!t || t.getElementType() != elt)
      return n.error(Twine(what) + " must have start's element type");
    TRY(x, scalarInput(n, i, elt, what));
    v.push_back(x);
  }
  TRY(span, make<SubOp>(n, n.cast(v[1], f64), n.cast(v[0], f64)));
  TRY(steps, make<DivOp>(n, span, n.cast(v[2], f64)));
  TRY(up, make<CeilOp>(n, steps));
  TRY(count, make<MaximumScalarOp>(n, up, n.scalarAttr(f64, 0)));
  TRY(ok, make<EqScalarOp>(n, count, n.scalarAttr(f64, (double)shape[0])));
  if (failed(n.checkAtRunTime(ok, "start, limit and delta must give the " +
                                      Twine(shape[0]) + " entries " +
                                      n.declaredFor(0))))
    return failure();
  TRY(i, positions(n, shape[0]));
  TRY(scaled, make<MulOp>(n, n.cast(i, elt), v[2]));
  TRY(r, make<AddOp>(n, scaled, v[0]));
  n.setOutput(0, r);
  return success();
}

LogicalResult convertRange(NodeContext &n) {
  static const char *const names[] = {"start", "limit", "delta"};
  SmallVector<ConstantView, 3> bounds;
  for (size_t i = 0; i < 3; ++i)
    if (n.hasInput(i) && !n.constantInput(i) && n.declaredShape(0))
      return rangeToDeclared(n, i);
  for (auto [i, what] : llvm::enumerate(names)) {
    std::optional<ConstantView> v = n.constantInput(i);
    if (!v)
      return rangeToDeclared(n, i);
    if (v->size() != 1)
      return n.error(Twine(what) + " must hold one value");
    bounds.push_back(*v);
  }
  ElementsAttr r =
      evaluateRange(bounds[0], bounds[1], bounds[2], importEvaluationLimits());
  if (!r)
    return n.error("cannot evaluate: a delta of 0, inputs of different "
                   "types, or more than " +
                   Twine(importEvaluationLimits().maxElements) + " elements");
  n.setConstant(0, r);
  return success();
}

LogicalResult convertQuantize(NodeContext &n) {
  StringRef op = n.node.op_type();
  TRY(x, n.in(0));
  TRY(scale, n.in(1));
  auto xt = tensorType(x);
  TRY(axisAttr, n.attrInt("axis", 1));
  auto perAxis = [&](Value v) -> FailureOr<Value> {
    auto vt = tensorType(v);
    if (vt.getRank() == 0)
      return v;
    if (vt.getRank() != 1)
      return n.error("scale and zero point must be scalars or 1-D");
    TRY(axis, normAxis(n, axisAttr, xt.getRank()));
    SmallVector<int64_t> shape(xt.getRank(), 1);
    shape[axis] = vt.getDimSize(0);
    if (vt.getDimSize(0) == 1)
      return n.reshape(v, {});
    return n.reshape(v, shape);
  };
  // Opset 21: blocked quantization and an explicit output type.
  TRY(blockSize, n.attrInt("block_size", 0));
  if (blockSize != 0)
    return n.error("blocked quantization (block_size " + Twine(blockSize) +
                   ") is not supported");
  // Opset 23's division in another precision than the scale's.
  if (n.attr("precision"))
    return n.error("attribute 'precision' (opset 23) is not supported");
  TRY(s, perAxis(scale));
  Type fe = tensorType(s).getElementType();
  Value zp;
  Type qe = IntegerType::get(n.b.getContext(), 8, IntegerType::Unsigned);
  TRY(outputDtype, n.attrInt("output_dtype", 0));
  if (op == "QuantizeLinear" && outputDtype != 0) {
    qe = onnxElementType(*n.b.getContext(), (int)outputDtype);
    if (!qe)
      return n.error("output_dtype " + Twine(outputDtype) +
                     " is not a tensor type Hodu has");
  }
  if (n.hasInput(2)) {
    TRY(z, n.in(2));
    TRY(zz, perAxis(z));
    zp = zz;
    qe = tensorType(zz).getElementType();
  }
  if (op == "DequantizeLinear") {
    Value xf = n.cast(x, fe);
    if (zp) {
      TRY(d, make<SubOp>(n, xf, n.cast(zp, fe)));
      xf = d;
    }
    TRY(y, make<MulOp>(n, xf, s));
    n.setOutput(0, y);
    return success();
  }
  TRY(d, make<DivOp>(n, x, s));
  TRY(rd, make<RoundOp>(n, d));
  Value y = rd;
  if (zp) {
    TRY(a, make<AddOp>(n, y, n.cast(zp, fe)));
    y = a;
  }
  if (!qe.isInteger())
    return n.error("quantizing to a float type is not supported");
  TRY(q, saturateToInteger(n, y, qe));
  n.setOutput(0, q);
  return success();
}

LogicalResult convertDynamicQuantize(NodeContext &n) {
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  Type f = xt.getElementType();
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < xt.getRank(); ++d)
    all.push_back(d);
  auto attr = [&](double v) { return n.scalarAttr(f, v); };
  TRY(mx, make<ReduceMaxOp>(n, x, all, false));
  TRY(mn, make<ReduceMinOp>(n, x, all, false));
  TRY(hi, make<MaximumScalarOp>(n, mx, attr(0)));
  TRY(lo, make<MinimumScalarOp>(n, mn, attr(0)));
  TRY(range, make<SubOp>(n, hi, lo));
  TRY(step, make<DivScalarOp>(n, range, attr(255)));
  // An all-zero input has range 0: ONNX Runtime then takes scale 1 (zero
  // point 0, every output 0) where the ONNX formula divides by zero.
  TRY(flat, make<EqScalarOp>(n, range, attr(0)));
  TRY(scale, make<SelectOp>(n, flat, n.constant(f, 1), step));
  TRY(q0, make<DivOp>(n, lo, scale));
  TRY(q1, make<NegOp>(n, q0));
  TRY(q2, make<RoundOp>(n, q1));
  TRY(q3, make<MaximumScalarOp>(n, q2, attr(0)));
  TRY(zpF, make<MinimumScalarOp>(n, q3, attr(255)));
  TRY(d, make<DivOp>(n, x, scale));
  TRY(rd, make<RoundOp>(n, d));
  TRY(a, make<AddOp>(n, rd, zpF));
  TRY(c1, make<MaximumScalarOp>(n, a, attr(0)));
  TRY(c2, make<MinimumScalarOp>(n, c1, attr(255)));
  Type u8 = IntegerType::get(n.b.getContext(), 8, IntegerType::Unsigned);
  n.setOutput(0, n.cast(c2, u8));
  n.setOutput(1, scale);
  n.setOutput(2, n.cast(zpF, u8));
  return success();
}

/// TfIdfVectorizer over integer tokens: for each n-gram length and skip,
/// the tokens of every window position are compared with every n-gram of
/// the pool of that length (constant tables), the matches counted per row,
/// and the counts of all pool n-grams mapped to their output columns by one
/// product with a constant 0/1 matrix (ngram_indexes), weighted per mode.
LogicalResult convertTfIdfVectorizer(NodeContext &n) {
  TRY(x, n.in(0));
  auto xt = tensorType(x);
  Type xe = xt.getElementType();
  if (n.attr("pool_strings"))
    return n.error("string pools are not supported (Hodu has no string "
                   "tensors)");
  if (!xe.isInteger(32) && !xe.isInteger(64))
    return n.error("expects int32 or int64 tokens");
  if (xt.getRank() != 1 && xt.getRank() != 2)
    return n.error("expects tokens [C] or [N, C]");
  TRY(minGram, n.attrInt("min_gram_length", 0));
  TRY(maxGram, n.attrInt("max_gram_length", 0));
  TRY(maxSkip, n.attrInt("max_skip_count", 0));
  TRY(mode, n.attrString("mode", ""));
  TRY(countsAttr, n.attrInts("ngram_counts"));
  TRY(indexesAttr, n.attrInts("ngram_indexes"));
  TRY(poolAttr, n.attrInts("pool_int64s"));
  TRY(weightsAttr, n.attrFloats("weights"));
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return n.error("mode must be TF, IDF or TFIDF, not '" + mode + "'");
  if (!countsAttr || !indexesAttr || !poolAttr)
    return n.error("needs ngram_counts, ngram_indexes and pool_int64s");
  const SmallVector<int64_t> &starts = *countsAttr, &indexes = *indexesAttr,
                             &pool = *poolAttr;
  if (minGram < 1 || maxGram < minGram || maxGram > 64 || maxSkip < 0 ||
      maxSkip > 256 || (maxGram - minGram + 1) * (maxSkip + 1) * maxGram > 4096)
    return n.error("needs 1 <= min_gram_length <= max_gram_length <= 64 and "
                   "max_skip_count in [0, 256], with at most 4096 token "
                   "comparisons per position");
  // The pool's n-grams, grouped by length: starts[j] is where the
  // (j+1)-grams begin.
  SmallVector<std::pair<int64_t, int64_t>> groups; // (first, count)
  int64_t total = 0;
  for (size_t j = 0; j < starts.size(); ++j) {
    int64_t len = j + 1, first = starts[j];
    int64_t end = j + 1 < starts.size() ? starts[j + 1] : (int64_t)pool.size();
    if (first < 0 || end < first || end > (int64_t)pool.size() ||
        (end - first) % len != 0)
      return n.error("ngram_counts does not split pool_int64s into n-grams");
    groups.push_back({first, (end - first) / len});
    total += (end - first) / len;
  }
  if ((int64_t)indexes.size() != total)
    return n.error("ngram_indexes has " + Twine(indexes.size()) +
                   " entries for " + Twine(total) + " pool n-grams");
  if (weightsAttr && (int64_t)weightsAttr->size() != total)
    return n.error("weights has " + Twine(weightsAttr->size()) +
                   " entries for " + Twine(total) + " pool n-grams");
  int64_t outSize = 0;
  for (int64_t k : indexes) {
    if (k < 0 || k >= (int64_t(1) << 24))
      return n.error("ngram_indexes must be in [0, 2^24)");
    outSize = std::max(outSize, k + 1);
  }
  if (total == 0)
    return n.error("the pool has no n-grams");

  Type i64 = n.b.getI64Type(), f32 = n.b.getF32Type();
  int64_t rows = xt.getRank() == 2 ? xt.getDimSize(0) : 1;
  int64_t cols = xt.getDimSize(xt.getRank() - 1);
  Value tokens = n.reshape(n.cast(x, i64), {rows, cols, 1});
  SmallVector<Value> perGroup;
  for (auto [j, group] : llvm::enumerate(groups)) {
    int64_t len = j + 1, count = group.second;
    if (count == 0)
      continue;
    Value acc;
    if (len >= minGram && len <= maxGram) {
      // Token k of every n-gram of this length, [1, 1, count]: one table
      // per k, shared by every skip.
      SmallVector<Value> tables;
      for (int64_t k = 0; k < len; ++k) {
        ConstantWriter w(RankedTensorType::get({1, 1, count}, i64),
                         kSmallTensorBytes);
        for (int64_t g = 0; g < count; ++g)
          w.setRaw(g, (uint64_t)pool[group.first + g * len + k]);
        tables.push_back(n.constant(w.finish()));
      }
      for (int64_t skip = 0; skip <= (len == 1 ? 0 : maxSkip); ++skip) {
        int64_t step = skip + 1, span = (len - 1) * step + 1;
        int64_t positions = cols - span + 1;
        if (positions <= 0)
          continue;
        Value match;
        for (int64_t k = 0; k < len; ++k) {
          TRY(items, make<SliceOp>(n, tokens, ArrayRef<int64_t>{0, k * step, 0},
                                   ArrayRef<int64_t>{rows, k * step + positions, 1},
                                   ArrayRef<int64_t>{1, 1, 1}));
          TRY(eq, make<EqOp>(n, items, tables[k]));
          if (match) {
            TRY(both, make<LogicalAndOp>(n, match, eq));
            match = both;
          } else {
            match = eq;
          }
        }
        TRY(hits, make<ReduceSumOp>(n, n.cast(match, f32), ArrayRef<int64_t>{1},
                                    false));
        if (acc) {
          TRY(sum, make<AddOp>(n, acc, hits));
          acc = sum;
        } else {
          acc = hits;
        }
      }
    }
    perGroup.push_back(acc ? acc : n.constant(f32, 0, {rows, count}));
  }
  Value counts = perGroup.front();
  if (perGroup.size() > 1) {
    TRY(c, make<ConcatOp>(n, ValueRange(perGroup), 1));
    counts = c;
  }
  // Per mode: TF the counts, IDF the weight where an n-gram occurs, TFIDF
  // their product (weights default to 1).
  Value scored = counts;
  if (mode != "TF") {
    ConstantWriter w(RankedTensorType::get({1, total}, f32), kSmallTensorBytes);
    for (int64_t k = 0; k < total; ++k)
      w.setF(k, weightsAttr ? (*weightsAttr)[k] : 1.0);
    Value weights = n.constant(w.finish());
    Value base = counts;
    if (mode == "IDF") {
      TRY(seen, make<GtScalarOp>(n, counts, n.scalarAttr(f32, 0)));
      base = n.cast(seen, f32);
    }
    TRY(m, make<MulOp>(n, base, weights));
    scored = m;
  }
  ConstantWriter map(RankedTensorType::get({total, outSize}, f32),
                     kSmallTensorBytes);
  for (int64_t k = 0; k < total; ++k)
    map.setF(k * outSize + indexes[k], 1.0);
  TRY(out, make<MatmulOp>(n, scored, n.constant(map.finish())));
  n.setOutput(0, xt.getRank() == 2 ? out : n.reshape(out, {outSize}));
  return success();
}

} // namespace

void hodu::onnx_import::registerMiscOps(ConverterTable &table) {
  table.insert({
      {"Constant", convertConstant},
      {"ConstantOfShape", convertConstantOfShape},
      {"Range", convertRange},
      {"Shape", convertShapeOrSize},
      {"Size", convertShapeOrSize},
      {"QuantizeLinear", convertQuantize},
      {"DynamicQuantizeLinear", convertDynamicQuantize},
      {"DequantizeLinear", convertQuantize},
      {"TfIdfVectorizer", convertTfIdfVectorizer},
  });
}
