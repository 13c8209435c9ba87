//===- OnnxNodeLoop.cpp - importing a graph node by node ------------------===//
//
// NodeLoop::importNodes: each node of a graph, in order, converted
// (Onnx*Ops.cpp, or the control flow of OnnxIf.cpp, OnnxLoop.cpp and
// OnnxScan.cpp), its new ops verified and size-checked, evaluated at import
// time where their operands are constants (hodu::foldToConstants, within
// importEvaluationLimits), and its outputs checked against what the model
// declares and what ONNX shape inference found. Also the scopes of
// subgraphs: an If branch's or a loop body's initializers and nodes,
// imported in place, and the names they define dropped after them.
//
//===----------------------------------------------------------------------===//

#include "OnnxNodeLoop.h"
#include "OnnxOpsCommon.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

/// Import-time evaluation: every op that the conversion of `n` created (from
/// `first` on) whose operands are all constants becomes a constant
/// (hodu::foldToConstants), in order, so a chain of them folds whole. The
/// node's outputs that became constants are kept as values, and the
/// constants that nothing reads any more are erased. With `keepData` (a
/// symbolic import, a node that reads a value computed from a shape), an op
/// whose result is data (floating-point or boolean), or that reads such a
/// kept op, is kept as it is (GraphImporter::deferredOps).
static void evaluateNewOps(NodeContext &n, Operation *first, bool keepData) {
  GraphImporter &g = n.graph;
  EvaluationLimits limits = importEvaluationLimits();
  SmallVector<Operation *> created, constants;
  // Results of evaluated ops, and the constants that replaced them.
  llvm::DenseMap<Value, Value> replaced;
  for (Operation *op = first; op; op = op->getNextNode())
    created.push_back(op);
  for (Operation *op : created) {
    if (isa<ConstantOp>(op)) {
      constants.push_back(op);
      continue;
    }
    // The outputs that name a result of `op`: they name its constant after.
    SmallVector<std::pair<size_t, unsigned>> outputs;
    for (auto [i, out] : llvm::enumerate(n.node.output())) {
      auto it = g.values.find(out);
      if (it != g.values.end() && it->second.value &&
          it->second.value.getDefiningOp() == op)
        outputs.push_back(
            {i, cast<OpResult>(it->second.value).getResultNumber()});
    }
    if (keepData) {
      // Kept: data computed from constants, and whatever reads kept ops.
      auto kept = [&](Value v) {
        Operation *def = v.getDefiningOp();
        return def && g.deferredOps.contains(def);
      };
      bool data = llvm::any_of(op->getResultTypes(), [](Type t) {
        auto rt = dyn_cast<RankedTensorType>(t);
        Type elt = rt ? rt.getElementType() : Type();
        return elt && (isa<FloatType>(elt) || elt.isInteger(1));
      });
      bool known = llvm::all_of(op->getOperands(), [&](Value v) {
        return getConstantValue(v) || kept(v);
      });
      if (known && (data || llvm::any_of(op->getOperands(), kept))) {
        g.deferredOps.insert(op);
        continue;
      }
    }
    SmallVector<Value> folded = foldToConstants(op, limits);
    if (folded.empty())
      continue;
    for (auto [result, c] : llvm::zip(op->getResults(), folded)) {
      constants.push_back(c.getDefiningOp());
      replaced[result] = c;
    }
    for (auto [i, result] : outputs) {
      // (A value at its bound keeps its run-time count.)
      auto dataDim = g.values.lookup(n.node.output((int)i)).dataDim;
      n.setOutput(i, folded[result]);
      if (dataDim)
        g.values[n.node.output((int)i)].dataDim = dataDim;
    }
  }
  // A run-time sequence output holds its three values, which are not uses
  // either: evaluated ones become their constants, which are kept.
  llvm::SmallPtrSet<Operation *, 8> named;
  for (const std::string &out : n.node.output()) {
    auto it = g.values.find(out);
    if (out.empty() || it == g.values.end() || !it->second.runtimeSequence)
      continue;
    auto rs = std::make_shared<RuntimeSequence>(*it->second.runtimeSequence);
    for (Value *v : {&rs->data, &rs->shapes, &rs->length}) {
      if (Value c = replaced.lookup(*v))
        *v = c;
      if (Operation *def = v->getDefiningOp())
        named.insert(def);
    }
    it->second.runtimeSequence = rs;
  }
  // A sequence output holds its elements' values, which are not uses: an
  // element that is a constant (evaluated here, or an input's own
  // `hodu.constant`, which is released below) is kept as its value.
  for (const std::string &out : n.node.output()) {
    auto it = g.values.find(out);
    if (out.empty() || it == g.values.end() || !it->second.sequence)
      continue;
    std::vector<ValueEntry> elements = *it->second.sequence;
    for (ValueEntry &e : elements) {
      if (!e.value)
        continue;
      if (Value c = replaced.lookup(e.value))
        e.value = c;
      if (auto c = e.value.getDefiningOp<ConstantOp>()) {
        e.constant = c.getValue();
        e.value = {};
      }
    }
    it->second.sequence =
        std::make_shared<const std::vector<ValueEntry>>(std::move(elements));
  }
  // Names materialized for ops that were evaluated are unmaterialized
  // again (only a name's own entry holds its `hodu.constant`); other
  // constants nothing reads go.
  for (const auto *names : {&n.node.input(), &n.node.output()})
    for (const std::string &name : *names) {
      auto it = g.values.find(name);
      if (it != g.values.end() && it->second.value)
        named.insert(it->second.value.getDefiningOp());
      g.release(name);
    }
  for (Operation *c : constants)
    if (!named.contains(c) && c->use_empty())
      c->erase();
}

/// The node's outputs and the values its ops made, each within
/// --max-tensor-elements: refused here by name, before import-time
/// evaluation or a later pass works on them.
static LogicalResult checkTensorSizes(NodeContext &n, Operation *first) {
  for (const std::string &out : n.node.output())
    if (RankedTensorType t = out.empty() ? nullptr : n.graph.typeOf(out))
      if (failed(n.checkElementCount(t.getShape(), "output '" + out + "'")))
        return failure();
  for (Operation *op = first; op; op = op->getNextNode())
    for (Type t : op->getResultTypes())
      if (auto rt = dyn_cast<RankedTensorType>(t))
        if (failed(n.checkElementCount(rt.getShape(), "a value it computes")))
          return failure();
  return success();
}

/// Verifies the ops node `n` was converted to, from `first` on, before
/// anything evaluates or folds them: a conversion checks what it needs, and
/// the ops' verifiers catch the rest (operands whose shapes contradict each
/// other in a model from a stranger). The verifier's message is reported as
/// the node's error.
static LogicalResult verifyNewOps(NodeContext &n, Operation *first) {
  for (Operation *op = first; op; op = op->getNextNode()) {
    std::string message;
    LogicalResult verified = success();
    {
      ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &d) {
        if (message.empty())
          message = d.str();
        return success();
      });
      verified = verify(op, /*verifyRecursively=*/true);
    }
    if (failed(verified)) {
      n.error(message); // "'hodu.einsum' op label 'j' has sizes ..."
      return failure();
    }
  }
  return success();
}

/// Checks node `n`'s outputs against what the model declares for them: a
/// different element type is an error (ONNX Runtime refuses such a model);
/// a different static shape is a warning, and the computed shape is used
/// (ONNX Runtime's lenient merge does the same).
static LogicalResult checkDeclaredTypes(NodeContext &n, const GraphImporter &g,
                                        const DeclaredTypes &declared) {
  for (const auto &out : n.node.output()) {
    RankedTensorType t = out.empty() ? RankedTensorType() : g.typeOf(out);
    if (!t)
      continue;
    if (auto it = declared.types.find(out); it != declared.types.end()) {
      Type want = onnxElementType(g.ctx, it->second);
      if (!want) {
        n.error("the model declares output '" + out + "' with data type " +
                Twine(it->second) + ", which is not an ONNX tensor type");
        return failure();
      }
      if (want != t.getElementType()) {
        std::string got, decl;
        llvm::raw_string_ostream(got) << t.getElementType();
        llvm::raw_string_ostream(decl) << want;
        n.error("output '" + out + "' has element type " + got +
                " but the model declares it as " + decl +
                " (value_info or graph output)");
        return failure();
      }
    }
    // A size that depends on the data is computed at its bound, which the
    // model's declared shape (of one run's data) need not match.
    bool dataDependent = g.values.lookup(out).dataDim != nullptr;
    if (auto it = declared.shapes.find(out);
        it != declared.shapes.end() && !dataDependent && t.hasStaticShape() &&
        t.getShape() != ArrayRef<int64_t>(it->second))
      emitWarning(n.loc) << "output '" << out << "' has shape " << dimsString(t.getShape())
                         << " but the model declares "
                         << dimsString(it->second)
                         << "; the computed shape is used";
  }
  return success();
}

/// Cross-checks the types the importer gave node `n`'s outputs against ONNX
/// shape inference (`inferred` shapes, `inferredTypes` element types): a
/// mismatch is an importer bug.
static LogicalResult
checkOutputTypes(NodeContext &n, const GraphImporter &g,
                 const std::map<std::string, SmallVector<int64_t>> &inferred,
                 const std::map<std::string, int> &inferredTypes) {
  for (const auto &out : n.node.output()) {
    if (out.empty())
      continue;
    // Sequences, and empty optionals without a type of static shape, have
    // no tensor type to check.
    if (auto it = g.values.find(out);
        it != g.values.end() &&
        (it->second.isSequence() || !it->second.holdsValue()))
      continue;
    RankedTensorType t = g.typeOf(out);
    if (!t) {
      n.error("output '" + out + "' was not produced (importer bug)");
      return failure();
    }
    auto et = inferredTypes.find(out);
    if (et != inferredTypes.end()) {
      Type expected = onnxElementType(g.ctx, et->second);
      if (expected && expected != t.getElementType()) {
        std::string got, want;
        llvm::raw_string_ostream(got) << t.getElementType();
        llvm::raw_string_ostream(want) << expected;
        n.error("output '" + out + "' has element type " + got +
                " but ONNX says " + want + " (importer bug)");
        return failure();
      }
    }
    auto it = inferred.find(out);
    if (it != inferred.end() && !g.values.lookup(out).dataDim &&
        t.hasStaticShape() &&
        t.getShape() != ArrayRef<int64_t>(it->second)) {
      n.error("output '" + out + "' has shape " + dimsString(t.getShape()) +
              " but ONNX shape inference says " + dimsString(it->second) +
              " (importer bug)");
      return failure();
    }
  }
  return success();
}

LogicalResult NodeLoop::importNodes(const onnx::GraphProto &graph, Block *body,
                                    unsigned depth) {
  MLIRContext &context = g.ctx;
  Location fileLoc = FileLineColLoc::get(&context, g.modelPath, 0, 0);
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    std::string name = node.name().empty()
                           ? node.op_type() + "_" + std::to_string(index)
                           : node.name();
    // The node's name, and its op type as the location's metadata, which
    // partitioning reads (hoduc --force-cpu-ops=Softmax, --placement).
    Location loc = nodeLocation(context, name, node.op_type(), fileLoc);
    // A Constant a train step lifted into an argument (its value is the
    // argument's initial value).
    if (depth == 0 && node.op_type() == "Constant" && node.output_size() == 1 &&
        g.liftedConstants.contains(node.output(0)))
      continue;
    // (Nodes of another domain: their domain's version was checked with
    // the ops, before the import.)
    if (opset < 1 && (node.domain().empty() || node.domain() == "ai.onnx")) {
      emitError(loc) << "the model imports no opset of the default ONNX "
                        "domain";
      return failure();
    }
    for (const auto &input : node.input()) {
      if (!input.empty() && !g.values.count(input)) {
        emitError(loc) << "input '" << input
                       << "' is not defined by an earlier node, an "
                          "initializer or a graph input";
        return failure();
      }
    }
    NodeContext n(g, node, name, opset, loc);
    n.inSubgraph = subgraphLevel > 0;
    // Unrolled loops (nested ones multiply) are bounded as a whole, so a
    // model from a stranger cannot make the import run for hours.
    if (++imported > kMaxImportedNodes)
      return n.error("the model unrolls to more than " +
                     Twine(kMaxImportedNodes) + " nodes");
    // Inputs whose size depends on the data flow only through some ops.
    if (failed(checkDataDependentInputs(n, n.inSubgraph)))
      return failure();
    SmallVector<std::shared_ptr<const DataDependentDim>> dataDims;
    for (size_t i = 0; i < n.numInputs(); ++i)
      dataDims.push_back(n.dataDim(i));
    Operation *last = body->empty() ? nullptr : &body->back();
    LogicalResult converted = node.op_type() == "If"     ? importIf(n, depth)
                              : node.op_type() == "Scan" ? importScan(n, depth)
                              : node.op_type() == "Loop" ? importLoop(n, depth)
                              : node.op_type() == "SequenceMap"
                                  ? importSequenceMap(n, depth)
                                  : convertNode(n);
    if (failed(converted))
      return failure();
    Operation *first =
        last ? last->getNextNode() : (body->empty() ? nullptr : &body->front());
    if (failed(verifyNewOps(n, first)) || failed(checkTensorSizes(n, first)))
      return failure();
    // In a symbolic import, what a tensor's shape computes is followed.
    bool shapeDerived =
        g.keepSymbolData &&
        (node.op_type() == "Shape" || node.op_type() == "Size" ||
         llvm::any_of(node.input(), [&](const std::string &in) {
           return g.shapeDerived.contains(in);
         }));
    evaluateNewOps(n, first, shapeDerived);
    if (shapeDerived)
      for (const std::string &out : node.output())
        if (!out.empty())
          g.shapeDerived.insert(out);
    if (failed(propagateDataDependentDims(n, dataDims)) ||
        failed(checkDeclaredTypes(n, g, declared)) ||
        failed(checkOutputTypes(n, g, inferred, inferredTypes)))
      return failure();
  }
  return success();
}

llvm::StringSet<> NodeLoop::definedNames() const {
  llvm::StringSet<> names;
  for (const auto &entry : g.values)
    names.insert(entry.getKey());
  return names;
}

void NodeLoop::dropNamesOutside(const llvm::StringSet<> &outer) {
  SmallVector<std::string> local;
  for (const auto &entry : g.values)
    if (!outer.contains(entry.getKey()))
      local.push_back(entry.getKey().str());
  for (const std::string &name : local)
    g.values.erase(name);
}

FailureOr<const onnx::GraphProto *>
NodeLoop::graphAttr(NodeContext &n, StringRef name) const {
  const onnx::AttributeProto *attr = n.attr(name);
  if (!attr || !attr->has_g())
    return n.error("needs the graph attribute '" + name + "'");
  return &attr->g();
}

LogicalResult NodeLoop::importSubgraph(NodeContext &n,
                                       const onnx::GraphProto &graph,
                                       unsigned depth) {
  for (const auto &init : graph.initializer()) {
    Location loc = NameLoc::get(StringAttr::get(&g.ctx, init.name()), n.loc);
    auto value = g.decodeTensor(init, loc);
    if (failed(value))
      return failure();
    ValueEntry e;
    e.constant = *value;
    g.values[init.name()] = e;
  }
  ++subgraphLevel;
  LogicalResult imported =
      importNodes(graph, g.builder.getInsertionBlock(), depth);
  --subgraphLevel;
  if (failed(imported))
    return failure();
  // An outer value whose size depends on the data may not leave a subgraph
  // as one of its outputs (the node's results would lose that size).
  for (const auto &out : graph.output())
    if (auto it = g.values.find(out.name());
        it != g.values.end() && it->second.dataDim)
      return n.error("subgraph output '" + out.name() +
                     "': " + it->second.dataDim->describe() +
                     "; such a size cannot leave an If, Loop or Scan");
  return success();
}

FailureOr<SmallVector<std::string>>
NodeLoop::importBranch(NodeContext &n, StringRef attrName,
                       const onnx::GraphProto &branch, unsigned depth) {
  if (branch.input_size() != 0)
    return n.error("'" + attrName + "' has " + Twine(branch.input_size()) +
                   " inputs; an If branch has none");
  if (branch.output_size() != (int)n.numOutputs())
    return n.error("'" + attrName + "' has " + Twine(branch.output_size()) +
                   " outputs but the node has " + Twine(n.numOutputs()));
  if (failed(importSubgraph(n, branch, depth)))
    return failure();
  SmallVector<std::string> outputs;
  for (const auto &out : branch.output()) {
    if (!g.values.count(out.name()))
      return n.error("output '" + out.name() + "' of '" + attrName +
                     "' is not produced by any node of the branch or "
                     "defined outside it");
    outputs.push_back(out.name());
  }
  return outputs;
}

FailureOr<SmallVector<ValueEntry>>
NodeLoop::importBody(NodeContext &n, const onnx::GraphProto &body,
                     ArrayRef<ValueEntry> inputs, unsigned depth) {
  if (depth >= kMaxSubgraphDepth)
    return n.error("subgraphs nest more than " + Twine(kMaxSubgraphDepth) +
                   " levels deep");
  if (body.input_size() != (int)inputs.size())
    return n.error("'body' has " + Twine(body.input_size()) +
                   " inputs; it needs " + Twine(inputs.size()));
  llvm::StringSet<> outer = definedNames();
  // A body input that shadows an outer name gets the outer entry back.
  std::vector<std::pair<std::string, ValueEntry>> shadowed;
  for (auto [in, entry] : llvm::zip(body.input(), inputs)) {
    if (auto it = g.values.find(in.name()); it != g.values.end())
      shadowed.push_back({in.name(), it->second});
    g.values[in.name()] = entry;
  }
  if (failed(importSubgraph(n, body, depth + 1)))
    return failure();
  SmallVector<ValueEntry> outputs;
  for (const auto &out : body.output()) {
    auto it = g.values.find(out.name());
    if (it == g.values.end())
      return n.error("output '" + out.name() +
                     "' of 'body' is not produced by any node of the body "
                     "or defined outside it");
    outputs.push_back(it->second);
  }
  dropNamesOutside(outer);
  for (auto &[name, entry] : shadowed)
    g.values[name] = entry;
  return outputs;
}

std::string hodu::onnx_import::describeEntry(const ValueEntry &e, bool withType) {
  std::string kind;
  if (e.runtimeSequence) {
    kind = "a sequence of run-time length";
  } else if (e.sequence) {
    kind =
        "a sequence of " + std::to_string(e.sequence->size()) + " element(s)";
  } else if (!withType) {
    kind = "a tensor";
  } else if (e.dataDim) {
    kind = "a tensor with " + e.dataDim->describe();
  } else if (e.holdsValue()) {
    llvm::raw_string_ostream(kind)
        << (e.value ? e.value.getType() : Type(e.constant.getType()));
  }
  return e.hasElement ? "an optional holding " + kind : kind;
}
