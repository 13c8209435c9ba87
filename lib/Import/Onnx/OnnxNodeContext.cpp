//===- OnnxNodeContext.cpp - the value table and the node view ------------===//
//
// GraphImporter's value table (what each ONNX name stands for: a value, an
// unmaterialized constant, a sequence; materialized on first use and
// released again once import-time evaluation consumed it) and NodeContext,
// the view of one node the op conversions work with: its inputs (as values,
// constants or sequences), attributes, declared output shapes, run-time
// checks, outputs, and builders for common pieces.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporterImpl.h"
#include "OnnxOpsCommon.h"
#include "hodu/Support/DType.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

GraphImporter::GraphImporter(MLIRContext &ctx, std::string modelPath)
    : ctx(ctx), builder(&ctx), modelPath(std::move(modelPath)) {}

Value GraphImporter::materialize(StringRef name, Location loc) {
  auto it = values.find(name);
  if (it == values.end())
    return {};
  ValueEntry &e = it->second;
  if (!e.value && e.constant)
    e.value = ConstantOp::create(builder, loc, e.constant).getResult();
  return e.value;
}

Value GraphImporter::valueOf(const ValueEntry &e, Location loc) {
  return e.value ? e.value
                 : ConstantOp::create(builder, loc, e.constant).getResult();
}

RankedTensorType GraphImporter::typeOf(StringRef name) const {
  auto it = values.find(name);
  if (it == values.end())
    return {};
  const ValueEntry &e = it->second;
  if (e.value)
    return dyn_cast<RankedTensorType>(e.value.getType());
  if (e.constant)
    return dyn_cast<RankedTensorType>(e.constant.getType());
  return {};
}

/// The value of `v` when a constant defines it or a chain of ops kept from
/// import-time evaluation (GraphImporter::deferredOps) computes it from
/// constants, else null. `seen` holds what this evaluation computed.
static ElementsAttr deferredValue(Value v,
                                  const llvm::DenseSet<Operation *> &deferred,
                                  llvm::DenseMap<Value, ElementsAttr> &seen,
                                  unsigned depth) {
  if (ElementsAttr c = getConstantValue(v))
    return c;
  Operation *op = v.getDefiningOp();
  if (!op || depth > 64 || !deferred.contains(op))
    return {};
  if (auto it = seen.find(v); it != seen.end())
    return it->second;
  SmallVector<ConstantView> operands;
  for (Value operand : op->getOperands()) {
    ElementsAttr c = deferredValue(operand, deferred, seen, depth + 1);
    std::optional<ConstantView> view = c ? ConstantView::get(c) : std::nullopt;
    if (!view)
      return seen[v] = {};
    operands.push_back(*view);
  }
  SmallVector<ElementsAttr> results =
      evaluateResults(op, operands, importEvaluationLimits());
  for (OpResult r : op->getResults())
    seen[r] = results.empty() ? ElementsAttr() : results[r.getResultNumber()];
  return seen[v];
}

ElementsAttr GraphImporter::constantOf(StringRef name) const {
  auto it = values.find(name);
  if (it == values.end())
    return {};
  const ValueEntry &e = it->second;
  if (e.constant)
    return e.constant;
  if (ElementsAttr c = getConstantValue(e.value))
    return c;
  if (e.value && !deferredOps.empty()) {
    llvm::DenseMap<Value, ElementsAttr> seen;
    if (ElementsAttr c = deferredValue(e.value, deferredOps, seen, 0))
      return c;
  }
  // A tensor without elements is known whatever computes it (a graph
  // input of shape [0] given as ReduceSum's axes, say): its type is all
  // there is to it.
  auto type = dyn_cast_if_present<RankedTensorType>(e.value ? e.value.getType()
                                                            : Type());
  if (type && type.hasStaticShape() && type.getNumElements() == 0)
    return DenseElementsAttr::get(type, ArrayRef<Attribute>{});
  return {};
}

void GraphImporter::release(StringRef name) {
  auto it = values.find(name);
  if (it == values.end() || !it->second.value)
    return;
  ValueEntry &e = it->second;
  auto c = e.value.getDefiningOp<ConstantOp>();
  if (!c || !c->use_empty())
    return;
  e.constant = c.getValue();
  e.value = {};
  c->erase();
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(GraphImporter &graph, const onnx::NodeProto &node,
                         StringRef name, int64_t opset, Location loc)
    : node(node), name(name.str()), opset(opset), loc(loc), b(graph.builder),
      graph(graph) {}

InFlightDiagnostic NodeContext::error(const Twine &msg) const {
  return emitError(loc) << msg;
}

Location hodu::onnx_import::nodeLocation(MLIRContext &ctx, StringRef name,
                                         StringRef opType, Location fileLoc) {
  return FusedLoc::get(&ctx, {NameLoc::get(StringAttr::get(&ctx, name), fileLoc)},
                       StringAttr::get(&ctx, opType));
}

size_t NodeContext::numInputs() const { return node.input_size(); }

bool NodeContext::hasInput(size_t i) const {
  return i < (size_t)node.input_size() && !node.input((int)i).empty();
}

FailureOr<Value> NodeContext::in(size_t i) {
  if (!hasInput(i))
    return error("input #" + Twine(i) + " is required");
  if (auto it = graph.values.find(node.input((int)i));
      it != graph.values.end() && it->second.isSequence())
    return error("input '" + node.input((int)i) +
                 "' is a sequence; this input takes a tensor");
  Value v = graph.materialize(node.input((int)i), loc);
  if (!v && graph.values.lookup(node.input((int)i)).hasElement)
    return error("input '" + node.input((int)i) +
                 "' is an empty optional whose type has no static shape");
  if (!v)
    return error("input '" + node.input((int)i) + "' is not defined");
  return v;
}

FailureOr<std::vector<ValueEntry>> NodeContext::sequenceIn(size_t i) {
  if (!hasInput(i))
    return error("input #" + Twine(i) + " is required");
  auto it = graph.values.find(node.input((int)i));
  if (it != graph.values.end() && it->second.runtimeSequence)
    return error("input '" + node.input((int)i) +
                 "' is a sequence whose length is known only at run time (it "
                 "comes from a run-time Loop or If), and '" +
                 node.op_type() +
                 "' needs the length at import time; such a sequence "
                 "supports SequenceInsert, SequenceErase, SequenceLength, "
                 "Identity and the optional ops, and can be a model output");
  if (it == graph.values.end() || !it->second.sequence)
    return error("input '" + node.input((int)i) + "' is not a sequence");
  return *it->second.sequence;
}

std::optional<ConstantView> NodeContext::constantInput(size_t i) const {
  if (!hasInput(i))
    return std::nullopt;
  return ConstantView::get(graph.constantOf(node.input((int)i)));
}

RankedTensorType NodeContext::type(size_t i) const {
  if (!hasInput(i))
    return {};
  return graph.typeOf(node.input((int)i));
}

InFlightDiagnostic NodeContext::notKnownError(size_t i, StringRef what) const {
  return error("input #" + Twine(i) + " ('" +
               (hasInput(i) ? node.input((int)i) : std::string()) + "', " +
               what +
               ") must be a constant at import time, but it is computed at "
               "run time; Hodu compiles ahead of time and needs it fixed (the "
               "ONNX test driver hodu-import can freeze a graph input with "
               "--freeze-input)");
}

std::optional<SmallVector<int64_t>> NodeContext::declaredShape(size_t i) const {
  if (!hasOutput(i) || !graph.declaredShapes)
    return std::nullopt;
  auto it = graph.declaredShapes->find(node.output((int)i));
  if (it == graph.declaredShapes->end())
    return std::nullopt;
  return it->second;
}

FailureOr<SmallVector<int64_t>>
NodeContext::declaredShapeFor(size_t i, size_t in, StringRef what) const {
  if (std::optional<SmallVector<int64_t>> shape = declaredShape(i)) {
    if (failed(checkElementCount(*shape, "output '" + node.output((int)i) +
                                             "' (its declared shape)")))
      return failure();
    return *shape;
  }
  return error("input #" + Twine(in) + " ('" +
               (hasInput(in) ? node.input((int)in) : std::string()) + "', " +
               what +
               ") is computed at run time, and the model declares no static "
               "shape for output '" +
               (hasOutput(i) ? node.output((int)i) : std::string()) +
               "'; Hodu compiles ahead of time and needs one of them fixed "
               "(declare the output's shape in value_info, or freeze the "
               "input: the ONNX test driver hodu-import has --freeze-input)");
}

std::string NodeContext::declaredFor(size_t i) const {
  std::string out = hasOutput(i) ? node.output((int)i) : std::string();
  if (graph.declaredVia)
    if (auto it = graph.declaredVia->find(out); it != graph.declaredVia->end())
      return "that output '" + out + "' takes from '" + it->second +
             "' (declared), through elementwise ops";
  return "declared for output '" + out + "'";
}

LogicalResult NodeContext::checkAtRunTime(Value ok, const Twine &what,
                                          bool indexCheck) {
  auto t = llvm::cast<RankedTensorType>(ok.getType());
  if (t.getRank() > 0) {
    auto all = llvm::to_vector(llvm::seq<int64_t>(0, t.getRank()));
    FailureOr<Value> all0d =
        make<ReduceAllOp>(*this, ok, ArrayRef<int64_t>(all), false);
    if (failed(all0d))
      return failure();
    ok = *all0d;
  }
  std::string type = node.op_type();
  auto check = AssertOp::create(
      b, loc, ok,
      b.getStringAttr("node '" + name + "' (" + type + "): " + what));
  // hodu-check-indices keeps an index check or, with --index-checks=clamp,
  // removes it.
  if (indexCheck)
    check->setAttr("hodu.index_check", b.getUnitAttr());
  return success();
}

/// The elements of input `i` of `n` as `T`s (`get` reads element j), or
/// the error for an input not known at import time.
template <typename T, typename Get>
static FailureOr<SmallVector<T>> constValues(const NodeContext &n, size_t i,
                                             StringRef what, Get get) {
  std::optional<ConstantView> k = n.constantInput(i);
  if (!k)
    return n.notKnownError(i, what);
  // These are shape-like operands (axes, starts, pads, sizes, ...): a splat
  // constant may claim billions of elements, and reading each would hang.
  constexpr int64_t kMaxValues = int64_t(1) << 16;
  if (k->size() < 0 || k->size() > kMaxValues)
    return n.error("input #" + Twine(i) + " ('" + n.node.input((int)i) +
                   "', " + what + ") has " + Twine(k->size()) +
                   " elements; at most " + Twine(kMaxValues) +
                   " are read at import");
  SmallVector<T> out;
  for (int64_t j = 0; j < k->size(); ++j)
    out.push_back(get(*k, j));
  return out;
}

FailureOr<SmallVector<int64_t>> NodeContext::constInts(size_t i,
                                                       StringRef what) {
  // A float constant read as integers: each value must be a finite number
  // within int64's range (converting one outside it is undefined).
  std::optional<double> bad;
  FailureOr<SmallVector<int64_t>> values = constValues<int64_t>(
      *this, i, what, [&](const ConstantView &k, int64_t j) -> int64_t {
        if (k.getKind() != ElementKind::Float)
          return static_cast<int64_t>(k.s(j));
        double v = k.f(j);
        if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) {
          if (!bad)
            bad = v;
          return 0;
        }
        return static_cast<int64_t>(v);
      });
  if (succeeded(values) && bad) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", *bad);
    return error("input #" + Twine(i) + " ('" + node.input((int)i) + "', " +
                 what + ") holds " + text +
                 ", which is not a number in the int64 range");
  }
  return values;
}

FailureOr<SmallVector<double>> NodeContext::constFloats(size_t i,
                                                        StringRef what) {
  return constValues<double>(
      *this, i, what,
      [](const ConstantView &k, int64_t j) { return k.f(j); });
}

const onnx::AttributeProto *NodeContext::attr(StringRef attrName) const {
  for (const auto &a : node.attribute())
    if (a.name() == attrName)
      return &a;
  return nullptr;
}

FailureOr<int64_t> NodeContext::attrInt(StringRef attrName,
                                        int64_t dflt) const {
  const auto *a = attr(attrName);
  if (!a)
    return dflt;
  if (a->type() != onnx::AttributeProto::INT && !a->has_i())
    return error("attribute '" + attrName + "' must be an int");
  return (int64_t)a->i();
}

FailureOr<float> NodeContext::attrFloat(StringRef attrName, float dflt) const {
  const auto *a = attr(attrName);
  if (!a)
    return dflt;
  if (a->type() == onnx::AttributeProto::INT)
    return (float)a->i();
  if (a->type() != onnx::AttributeProto::FLOAT && !a->has_f())
    return error("attribute '" + attrName + "' must be a float");
  return a->f();
}

FailureOr<std::string> NodeContext::attrString(StringRef attrName,
                                               StringRef dflt) const {
  const auto *a = attr(attrName);
  if (!a)
    return dflt.str();
  if (a->type() != onnx::AttributeProto::STRING && !a->has_s())
    return error("attribute '" + attrName + "' must be a string");
  return a->s();
}

/// A list attribute of `n` (absent: nullopt) whose type must be `type`;
/// `values` reads its repeated field, `what` names the element type.
template <typename T, typename Values>
static FailureOr<std::optional<SmallVector<T>>>
listAttr(const NodeContext &n, StringRef attrName,
         onnx::AttributeProto::AttributeType type, StringRef what,
         Values values) {
  const auto *a = n.attr(attrName);
  if (!a)
    return std::optional<SmallVector<T>>();
  if (a->type() != type && a->type() != onnx::AttributeProto::UNDEFINED)
    return n.error("attribute '" + attrName + "' must be a list of " + what);
  const auto &field = values(*a);
  return std::optional<SmallVector<T>>(
      SmallVector<T>(field.begin(), field.end()));
}

FailureOr<std::optional<SmallVector<int64_t>>>
NodeContext::attrInts(StringRef attrName) const {
  return listAttr<int64_t>(
      *this, attrName, onnx::AttributeProto::INTS, "ints",
      [](const onnx::AttributeProto &a) -> const auto & { return a.ints(); });
}

FailureOr<std::optional<SmallVector<float>>>
NodeContext::attrFloats(StringRef attrName) const {
  return listAttr<float>(
      *this, attrName, onnx::AttributeProto::FLOATS, "floats",
      [](const onnx::AttributeProto &a) -> const auto & { return a.floats(); });
}

const onnx::TensorProto *NodeContext::attrTensor(StringRef attrName) const {
  const auto *a = attr(attrName);
  return a && a->has_t() ? &a->t() : nullptr;
}

size_t NodeContext::numOutputs() const { return node.output_size(); }

bool NodeContext::hasOutput(size_t i) const {
  return i < (size_t)node.output_size() && !node.output((int)i).empty();
}

void NodeContext::setOutput(size_t i, Value v) {
  if (!hasOutput(i))
    return;
  // A constant is kept as its value, so that an entry holds a
  // `hodu.constant` only as the materialization of its own name.
  if (ElementsAttr value = getConstantValue(v))
    return setConstant(i, value);
  ValueEntry e;
  e.value = v;
  graph.values[node.output((int)i)] = e;
}

void NodeContext::setSequence(size_t i, std::vector<ValueEntry> elements) {
  if (!hasOutput(i))
    return;
  ValueEntry e;
  e.sequence =
      std::make_shared<const std::vector<ValueEntry>>(std::move(elements));
  graph.values[node.output((int)i)] = e;
}

std::shared_ptr<const DataDependentDim> NodeContext::dataDim(size_t i) const {
  if (!hasInput(i))
    return nullptr;
  auto it = graph.values.find(node.input((int)i));
  return it == graph.values.end() ? nullptr : it->second.dataDim;
}

void NodeContext::setDataDim(size_t i, int64_t axis, Value count,
                             const std::string &origin) {
  if (!hasOutput(i))
    return;
  auto it = graph.values.find(node.output((int)i));
  if (it == graph.values.end())
    return;
  std::string opType = node.op_type();
  it->second.dataDim = std::make_shared<const DataDependentDim>(DataDependentDim{
      axis, count,
      origin.empty() ? "node '" + name + "' (" + opType + ")" : origin});
}

void NodeContext::setOutput(size_t i, const ValueEntry &entry) {
  if (entry.isSequence() || entry.hasElement) {
    if (hasOutput(i))
      graph.values[node.output((int)i)] = entry;
    return;
  }
  if (entry.value)
    setOutput(i, entry.value);
  else
    setConstant(i, entry.constant);
}

void NodeContext::setConstant(size_t i, ElementsAttr value) {
  if (!hasOutput(i))
    return;
  ValueEntry e;
  e.constant = value;
  graph.values[node.output((int)i)] = e;
}

TypedAttr NodeContext::scalarAttr(Type elt, double v) const {
  if (auto ft = dyn_cast<FloatType>(elt)) {
    APFloat f(v);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return FloatAttr::get(elt, f);
  }
  if (elt.isInteger(1))
    return IntegerAttr::get(elt, APInt(1, v != 0));
  return IntegerAttr::get(elt, APInt(elt.getIntOrFloatBitWidth(),
                                     (uint64_t)(int64_t)v, /*isSigned=*/true,
                                     /*implicitTrunc=*/true));
}

Value NodeContext::constant(Type elt, double v, ArrayRef<int64_t> shape) {
  auto t = RankedTensorType::get(shape, elt);
  return ConstantOp::create(b, loc,
                            DenseElementsAttr::get(t, scalarAttr(elt, v)))
      .getResult();
}

Value NodeContext::constant(ElementsAttr value) {
  return ConstantOp::create(b, loc, value).getResult();
}

Value NodeContext::constant(ArrayRef<int64_t> values) {
  auto t = RankedTensorType::get({(int64_t)values.size()}, b.getI64Type());
  return constant(DenseElementsAttr::get(t, values));
}

Value NodeContext::cast(Value v, Type elt) {
  auto t = llvm::dyn_cast_or_null<RankedTensorType>(v.getType());
  if (!t || t.getElementType() == elt)
    return v;
  return CastOp::create(b, loc, t.clone(elt), v).getResult();
}

Value NodeContext::reshape(Value v, ArrayRef<int64_t> shape) {
  auto t = llvm::cast<RankedTensorType>(v.getType());
  if (t.getShape() == shape)
    return v;
  return ReshapeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()),
                           v)
      .getResult();
}

LogicalResult NodeContext::checkElementCount(ArrayRef<int64_t> shape,
                                             const Twine &what) const {
  std::optional<std::string> count =
      elementCountOverLimit(shape, graph.maxTensorElements);
  if (!count)
    return success();
  return error(what + " has shape " + dimsString(shape) + ", " + *count +
               " elements; the limit is " + Twine(graph.maxTensorElements) +
               " (--max-tensor-elements)");
}
