//===- OnnxScan.cpp - ONNX Scan and SequenceMap ---------------------------===//
//
// Scan (the batched form of opset 8 and the form of opset 9 on) and
// SequenceMap, unrolled at import: the body imported once per iteration
// (NodeLoop::importBody) with the state carried, and the scan outputs
// stacked along their axes (NodeLoop::stackValues, which Loop's unrolled
// scan outputs use too).
//
//===----------------------------------------------------------------------===//

#include "OnnxNodeLoop.h"
#include "OnnxOpsCommon.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

FailureOr<Value> NodeLoop::stackValues(NodeContext &n,
                                       ArrayRef<ValueEntry> values,
                                       int64_t axis, bool reverse) {
  if (values.empty())
    return n.error("an output stacks the values of zero iterations, an empty "
                   "tensor, which is not supported");
  SmallVector<Value> parts;
  for (const ValueEntry &e : values) {
    if (e.isSequence() || e.hasElement)
      return n.error(Twine("a scan output is ") +
                     (e.isSequence() ? "a sequence" : "an optional") +
                     "; scan outputs stack tensors");
    Value v = g.valueOf(e, n.loc);
    int64_t rank = tensorType(v).getRank();
    TRY(a, normAxis(n, axis, rank + 1, "scan output axis"));
    TRY(u, make<UnsqueezeOp>(n, v, ArrayRef<int64_t>{a}));
    parts.push_back(u);
  }
  if (reverse)
    std::reverse(parts.begin(), parts.end());
  int64_t rank = tensorType(parts.front()).getRank();
  TRY(a, normAxis(n, axis, rank, "scan output axis"));
  if (parts.size() == 1)
    return parts.front();
  return make<ConcatOp>(n, ValueRange(parts), a);
}

LogicalResult NodeLoop::stackOutput(NodeContext &n, size_t i,
                                    ArrayRef<ValueEntry> values, int64_t axis,
                                    bool reverse) {
  TRY(v, stackValues(n, values, axis, reverse));
  n.setOutput(i, v);
  return success();
}

FailureOr<std::vector<SmallVector<ValueEntry>>>
NodeLoop::runScan(NodeContext &n, const onnx::GraphProto &body,
                  SmallVector<ValueEntry> &state, ArrayRef<Value> scanned,
                  ArrayRef<int64_t> axes, ArrayRef<int64_t> dirs, int64_t trips,
                  int64_t numScanOut, unsigned depth) {
  size_t numState = state.size();
  std::vector<SmallVector<ValueEntry>> perIteration(numScanOut);
  for (int64_t t = 0; t < trips; ++t) {
    SmallVector<ValueEntry> inputs(state);
    for (auto [j, v] : llvm::enumerate(scanned)) {
      TRY(slice, takeAt(n, v, axes[j], dirs[j] ? trips - 1 - t : t));
      ValueEntry e;
      e.value = slice;
      inputs.push_back(e);
    }
    TRY(outs, importBody(n, body, inputs, depth));
    state.assign(outs.begin(), outs.begin() + numState);
    for (int64_t k = 0; k < numScanOut; ++k)
      perIteration[k].push_back(outs[numState + k]);
  }
  return perIteration;
}

/// Scan-8: a batch axis first on every state and scan input (time the
/// second), a sequence_lens input, `directions`. Each batch element is
/// scanned on its own, and the results stacked along the batch axis.
LogicalResult NodeLoop::importScan8(NodeContext &n,
                                    const onnx::GraphProto &body, int64_t m,
                                    unsigned depth) {
  int64_t numState = (int64_t)n.numInputs() - 1 - m;
  int64_t numScanOut = body.output_size() - numState;
  if (numState < 0 || numScanOut < 0)
    return n.error("num_scan_inputs is " + Twine(m) + " but the node has " +
                   Twine(n.numInputs()) + " inputs and 'body' " +
                   Twine(body.output_size()) + " outputs");
  TRY(dirAttr, n.attrInts("directions"));
  SmallVector<int64_t> dirs = dirAttr ? *dirAttr : SmallVector<int64_t>(m, 0);
  if ((int64_t)dirs.size() != m)
    return n.error("'directions' has " + Twine(dirs.size()) +
                   " entries; it needs " + Twine(m));
  SmallVector<Value> scanned, initial;
  int64_t batch = -1, trips = -1;
  for (int64_t j = 0; j < m; ++j) {
    TRY(v, n.in(1 + numState + j));
    auto t = tensorType(v);
    if (t.getRank() < 2)
      return n.error("a Scan-8 input needs a batch and a sequence axis");
    if ((batch >= 0 && t.getDimSize(0) != batch) ||
        (trips >= 0 && t.getDimSize(1) != trips))
      return n.error("scan inputs differ in batch or sequence length");
    batch = t.getDimSize(0);
    trips = t.getDimSize(1);
    scanned.push_back(v);
  }
  if (n.hasInput(0)) {
    TRY(lens, n.constInts(0, "sequence_lens"));
    for (int64_t len : lens)
      if (len != trips)
        return n.error("sequence_lens other than the full length " +
                       Twine(trips) + " are not supported");
  }
  if (product({batch, trips}) > kMaxUnrolledIterations)
    return n.error("scans " + Twine(product({batch, trips})) + " iterations; Hodu "
                   "unrolls at most " + Twine(kMaxUnrolledIterations));
  for (int64_t i = 0; i < numState; ++i) {
    TRY(v, n.in(1 + i));
    if (tensorType(v).getRank() < 1 || tensorType(v).getDimSize(0) != batch)
      return n.error("state input " + Twine(i) + " needs the batch axis");
    initial.push_back(v);
  }
  std::vector<SmallVector<ValueEntry>> finals(numState), outputs(numScanOut);
  SmallVector<int64_t> axes(m, 0);
  for (int64_t b = 0; b < batch; ++b) {
    SmallVector<ValueEntry> state;
    for (Value v : initial) {
      TRY(sb, takeAt(n, v, 0, b));
      ValueEntry e;
      e.value = sb;
      state.push_back(e);
    }
    SmallVector<Value> slices;
    for (Value v : scanned) {
      TRY(sb, takeAt(n, v, 0, b));
      slices.push_back(sb);
    }
    TRY(perIteration, runScan(n, body, state, slices, axes, dirs, trips,
                              numScanOut, depth));
    for (int64_t i = 0; i < numState; ++i)
      finals[i].push_back(state[i]);
    for (int64_t k = 0; k < numScanOut; ++k) {
      TRY(stacked, stackValues(n, perIteration[k], 0, false));
      ValueEntry e;
      e.value = stacked;
      outputs[k].push_back(e);
    }
  }
  for (int64_t i = 0; i < numState; ++i)
    if (n.hasOutput(i) && failed(stackOutput(n, i, finals[i], 0, false)))
      return failure();
  for (int64_t k = 0; k < numScanOut; ++k)
    if (n.hasOutput(numState + k) &&
        failed(stackOutput(n, numState + k, outputs[k], 0, false)))
      return failure();
  return success();
}

/// ONNX Scan (opset 9 on): the scan inputs are sliced along their axes,
/// the body runs once per slice with the state carried, and the scan
/// outputs are stacked. The number of iterations is the scan inputs' dim,
/// known once the shapes are pinned.
LogicalResult NodeLoop::importScan(NodeContext &n, unsigned depth) {
  TRY(bodyGraph, graphAttr(n, "body"));
  const onnx::GraphProto &body = *bodyGraph;
  TRY(m, n.attrInt("num_scan_inputs", -1));
  if (n.opset < 9) {
    if (m < 1)
      return n.error("num_scan_inputs must be positive");
    return importScan8(n, body, m, depth);
  }
  int64_t numInputs = n.numInputs();
  if (m < 1 || m > numInputs)
    return n.error("num_scan_inputs is " + Twine(m) + " but the node has " +
                   Twine(numInputs) + " inputs");
  int64_t numState = numInputs - m;
  int64_t numScanOut = body.output_size() - numState;
  if (numScanOut < 0 || (int64_t)n.numOutputs() > body.output_size())
    return n.error("'body' has " + Twine(body.output_size()) +
                   " outputs for " + Twine(numState) + " state values and " +
                   Twine(n.numOutputs()) + " node outputs");
  TRY(inAxes, n.attrInts("scan_input_axes"));
  TRY(inDirs, n.attrInts("scan_input_directions"));
  TRY(outAxes, n.attrInts("scan_output_axes"));
  TRY(outDirs, n.attrInts("scan_output_directions"));
  auto listOf = [&](const std::optional<SmallVector<int64_t>> &list,
                    int64_t count, StringRef what) -> FailureOr<SmallVector<int64_t>> {
    if (!list)
      return SmallVector<int64_t>(count, 0);
    if ((int64_t)list->size() != count)
      return n.error("'" + what + "' has " + Twine(list->size()) +
                     " entries; it needs " + Twine(count));
    return *list;
  };
  TRY(axes, listOf(inAxes, m, "scan_input_axes"));
  TRY(dirs, listOf(inDirs, m, "scan_input_directions"));
  TRY(oAxes, listOf(outAxes, numScanOut, "scan_output_axes"));
  TRY(oDirs, listOf(outDirs, numScanOut, "scan_output_directions"));

  SmallVector<Value> scanned;
  int64_t trips = -1;
  for (int64_t j = 0; j < m; ++j) {
    TRY(v, n.in(numState + j));
    int64_t rank = tensorType(v).getRank();
    TRY(a, normAxis(n, axes[j], rank, "scan input axis"));
    axes[j] = a;
    int64_t len = tensorType(v).getDimSize(a);
    if (trips >= 0 && len != trips)
      return n.error("scan inputs have " + Twine(trips) + " and " + Twine(len) +
                     " elements along their axes");
    trips = len;
    scanned.push_back(v);
  }
  if (trips > kMaxUnrolledIterations)
    return n.error("scans " + Twine(trips) + " iterations; Hodu unrolls at "
                   "most " + Twine(kMaxUnrolledIterations));
  SmallVector<ValueEntry> state;
  for (int64_t i = 0; i < numState; ++i) {
    if (!n.hasInput(i))
      return n.error("state input " + Twine(i) + " is missing");
    state.push_back(g.values[n.node.input((int)i)]);
  }
  TRY(perIteration, runScan(n, body, state, scanned, axes, dirs, trips,
                            numScanOut, depth));
  for (int64_t i = 0; i < numState; ++i) {
    n.setOutput(i, state[i]);
  }
  for (int64_t k = 0; k < numScanOut; ++k)
    if (n.hasOutput(numState + k) &&
        failed(stackOutput(n, numState + k, perIteration[k], oAxes[k],
                           oDirs[k] != 0)))
      return failure();
  return success();
}

LogicalResult NodeLoop::importSequenceMap(NodeContext &n, unsigned depth) {
  TRY(body, graphAttr(n, "body"));
  if (body->input_size() != (int)n.numInputs() ||
      body->output_size() != (int)n.numOutputs())
    return n.error("'body' has " + Twine(body->input_size()) + " inputs and " +
                   Twine(body->output_size()) +
                   " outputs; it needs one per "
                   "input (" +
                   Twine(n.numInputs()) + ") and output (" +
                   Twine(n.numOutputs()) + ") of the node");
  // Sequence inputs give the body their element i; tensors, themselves.
  std::vector<std::shared_ptr<const std::vector<ValueEntry>>> sequences;
  std::optional<size_t> length;
  for (size_t j = 0; j < n.numInputs(); ++j) {
    if (!n.hasInput(j))
      return n.error("input #" + Twine(j) + " is missing");
    const ValueEntry &entry = g.values[n.node.input((int)j)];
    if (entry.runtimeSequence)
      return n.error("input #" + Twine(j) +
                     " is a sequence whose length is known only at run "
                     "time; SequenceMap unrolls its body over sequences of "
                     "a length known at import time");
    if (!entry.sequence) {
      if (j == 0)
        return n.error("input #0 must be a sequence");
      sequences.push_back(nullptr);
      continue;
    }
    if (length && *length != entry.sequence->size())
      return n.error("the input sequences have different lengths (" +
                     Twine(*length) + " and " + Twine(entry.sequence->size()) +
                     ")");
    length = entry.sequence->size();
    sequences.push_back(entry.sequence);
  }
  std::vector<std::vector<ValueEntry>> results(n.numOutputs());
  for (size_t i = 0; i < *length; ++i) {
    SmallVector<ValueEntry> inputs;
    for (size_t j = 0; j < n.numInputs(); ++j)
      inputs.push_back(sequences[j] ? (*sequences[j])[i]
                                    : g.values[n.node.input((int)j)]);
    TRY(outputs, importBody(n, *body, inputs, depth));
    for (auto [k, out] : llvm::enumerate(outputs)) {
      if (out.isSequence())
        return n.error("output #" + Twine(k) +
                       " of 'body' is a sequence; "
                       "SequenceMap collects tensors");
      results[k].push_back(out);
    }
  }
  for (auto [k, elements] : llvm::enumerate(results))
    n.setSequence(k, std::move(elements));
  return success();
}
