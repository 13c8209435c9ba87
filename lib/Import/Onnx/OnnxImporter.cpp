//===- OnnxImporter.cpp - ONNX model to the hodu dialect ------------------===//
//
// Reads a ModelProto, turns initializers into constants, the graph inputs into
// the arguments of `func.func @main` and every node, in order, into hodu ops
// (NodeLoop, OnnxNodeLoop.cpp; the conversions in Onnx*Ops.cpp; If, Loop and
// Scan in OnnxIf.cpp, OnnxLoop.cpp and OnnxScan.cpp). Every op a conversion
// creates whose operands are all constants is evaluated right away
// (hodu::evaluate, the evaluator that hodu-fold-constants and the folders
// use, within importEvaluationLimits), so shape computations of any form
// become constants that later conversions read as attributes (Reshape's
// shape, Slice's starts, ...). Constants stay unmaterialized until an op
// reads them (GraphImporter, OnnxNodeContext.cpp), so exporter-made
// Shape/Gather/Concat chains vanish.
//
// This file holds the model as a whole: parsing, the opset and the ops it
// supports, the shapes the model declares (and those ONNX shape inference
// finds, to cross-check), initializers and frozen inputs (decoded by
// OnnxTensorDecode.cpp), the graph inputs with their pinned shapes, the
// graph outputs, and the importer's registration.
//
// Bad input never crashes: every size, index and attribute is checked, and
// problems are MLIR errors located at the ONNX node (NameLoc of its name).
//
//===----------------------------------------------------------------------===//

#include "OnnxImporterImpl.h"
#include "OnnxNodeLoop.h"
#include "OnnxOpsCommon.h"
#include "hodu/Support/Names.h"
#include "hodu/abi.h"
#include "llvm/ADT/StringExtras.h"

#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Import/Onnx.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

#include <google/protobuf/io/coded_stream.h>

#include <functional>
#include <map>
#include <set>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

//===----------------------------------------------------------------------===//
// Model import
//===----------------------------------------------------------------------===//

/// The shape ONNX shape inference found for a value, if fully static.
static std::optional<SmallVector<int64_t>>
staticShapeOf(const onnx::ValueInfoProto &vi) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
    return std::nullopt;
  SmallVector<int64_t> dims;
  for (const auto &d : vi.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value())
      return std::nullopt;
    dims.push_back(d.dim_value());
  }
  return dims;
}

static bool parseTensorFile(StringRef file, onnx::TensorProto &t) {
  auto buf = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  return buf && (*buf)->getBufferSize() < (size_t)INT32_MAX &&
         t.ParseFromArray((*buf)->getBufferStart(),
                          (int)(*buf)->getBufferSize());
}

/// Reads the TensorProto for a frozen input (a file, or the `input_*.pb` of
/// that name in a directory).
static FailureOr<std::unique_ptr<onnx::TensorProto>>
loadFrozenTensor(const OnnxFrozenInput &f, Location loc) {
  auto t = std::make_unique<onnx::TensorProto>();
  if (!llvm::sys::fs::is_directory(f.tensorFile)) {
    if (!parseTensorFile(f.tensorFile, *t))
      return emitError(loc) << "cannot read a TensorProto for frozen input '"
                            << f.name << "' from '" << f.tensorFile << "'";
    return t;
  }
  for (int i = 0;; ++i) {
    SmallString<256> file(f.tensorFile);
    llvm::sys::path::append(file, "input_" + std::to_string(i) + ".pb");
    if (!llvm::sys::fs::exists(file))
      break;
    if (parseTensorFile(file, *t) && t->name() == f.name)
      return t;
  }
  return emitError(loc) << "no input_*.pb in '" << f.tensorFile
                        << "' holds frozen input '" << f.name << "'";
}

/// The name of element `i` of the sequence input or output `name` (an
/// input or output of its own): "name[i]".
static std::string elementName(StringRef name, size_t i) {
  return (name + "[" + Twine(i) + "]").str();
}

/// The first name that `names` holds twice, if any.
static std::optional<std::string> nameTwice(ArrayRef<std::string> names) {
  llvm::StringSet<> seen;
  for (const std::string &name : names)
    if (!seen.insert(name).second)
      return name;
  return std::nullopt;
}

/// The ops a symbolic import kept from import-time evaluation
/// (GraphImporter::deferredOps) that nothing reads, because a conversion
/// took their value at import time (a Resize's scales), are erased with the
/// constants only they read: the driver compares the imports op by op.
static void eraseUnusedDeferredOps(GraphImporter &g, func::FuncOp func) {
  if (g.deferredOps.empty())
    return;
  SmallVector<Operation *> work;
  func.walk([&](Operation *op) {
    if (g.deferredOps.contains(op))
      work.push_back(op);
  });
  while (!work.empty()) {
    // (An op may be queued twice; one erased is out of the set.)
    Operation *op = work.pop_back_val();
    if (!g.deferredOps.contains(op) || op->getNumResults() == 0 ||
        !isOpTriviallyDead(op))
      continue;
    SmallVector<Operation *> operands;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp())
        operands.push_back(def);
    g.deferredOps.erase(op);
    op->erase();
    for (Operation *def : operands)
      if (isa<ConstantOp>(def) && def->use_empty())
        def->erase();
      else if (g.deferredOps.contains(def))
        work.push_back(def);
  }
}

/// The static shape of graph input `name` (or of an element of a sequence
/// input, `seq[i]`) of tensor type `tt`: its pin from `--input-shape` (taken
/// out of `pins`), else its declared shape. A dynamic dim (a pin's `?`, a
/// declared dim_param or unknown dim) is a symbol, its dim_param or
/// "NAME_dimI": imported at its size from `options.symbolSizes`, else at
/// `options.unboundSymbolSize` and named in `symbols` (one entry per dim,
/// "" for the others), else an error. `free` is set when a symbol is not
/// pinned (imported at a probe or a padded bound: ImportOptions::freeSymbols).
static FailureOr<SmallVector<int64_t>>
inputShape(StringRef name, const onnx::TypeProto::Tensor &tt,
           llvm::StringMap<std::vector<int64_t>> &pins,
           const ImportOptions &options, SmallVectorImpl<std::string> &symbols,
           bool &free, Location loc) {
  std::optional<std::vector<int64_t>> pinned;
  auto pin = pins.find(name);
  if (pin != pins.end()) {
    if (tt.has_shape() &&
        (size_t)tt.shape().dim_size() != pin->second.size()) {
      emitError(loc) << "--input-shape for '" << name << "' has rank "
                     << pin->second.size() << ", but the input has rank "
                     << tt.shape().dim_size();
      return failure();
    }
    for (auto [i, d] : llvm::enumerate(pin->second)) {
      int64_t declared = tt.has_shape() && tt.shape().dim((int)i).has_dim_value()
                             ? tt.shape().dim((int)i).dim_value()
                             : -1;
      if ((d < 0 && declared >= 0) || (d >= 0 && declared >= 0 && declared != d)) {
        emitError(loc) << "--input-shape for '" << name << "' sets dim " << i
                       << " to " << (d < 0 ? std::string("?") : std::to_string(d))
                       << ", but the model fixes it to " << declared;
        return failure();
      }
    }
    pinned = pin->second;
    pins.erase(pin);
  } else if (!tt.has_shape()) {
    emitError(loc) << "graph input '" << name
                   << "' has no shape; give one with --input-shape=" << name
                   << ":DIMS";
    return failure();
  }
  int64_t rank = pinned ? (int64_t)pinned->size() : tt.shape().dim_size();
  SmallVector<int64_t> dims;
  symbols.assign(rank, "");
  for (int64_t i = 0; i < rank; ++i) {
    if (pinned && (*pinned)[i] >= 0) {
      dims.push_back((*pinned)[i]);
      continue;
    }
    const onnx::TensorShapeProto::Dimension *d =
        tt.has_shape() ? &tt.shape().dim((int)i) : nullptr;
    if (d && d->has_dim_value() && d->dim_value() >= 0) {
      dims.push_back(d->dim_value());
      continue;
    }
    std::string symbol = d && d->has_dim_param() && !d->dim_param().empty()
                             ? d->dim_param()
                             : (name + "_dim" + Twine(i)).str();
    if (auto it = options.symbolAliases.find(symbol);
        it != options.symbolAliases.end())
      symbol = it->second;
    if (auto it = options.symbolSizes.find(symbol);
        it != options.symbolSizes.end()) {
      dims.push_back(it->second);
      free |= llvm::is_contained(options.freeSymbols, symbol);
      continue;
    }
    if (auto it = options.probeSymbolSizes.find(symbol);
        it != options.probeSymbolSizes.end()) {
      dims.push_back(it->second);
      symbols[i] = symbol;
      free = true;
      continue;
    }
    if (options.unboundSymbolSize > 0) {
      free = true;
      dims.push_back(options.unboundSymbolSize);
      symbols[i] = symbol;
      if (options.unboundSymbols &&
          !llvm::is_contained(*options.unboundSymbols, symbol))
        options.unboundSymbols->push_back(symbol);
      continue;
    }
    SmallVector<int64_t> suggestion;
    for (int64_t j = 0; j < rank; ++j) {
      const onnx::TensorShapeProto::Dimension *e =
          tt.has_shape() ? &tt.shape().dim((int)j) : nullptr;
      suggestion.push_back(j < (int64_t)dims.size() ? dims[j]
                           : pinned && (*pinned)[j] >= 0 ? (*pinned)[j]
                           : e && e->has_dim_value() && e->dim_value() >= 0
                               ? e->dim_value()
                               : 1);
    }
    emitError(loc) << "graph input '" << name << "' has a dynamic dim " << i
                   << " ('" << symbol << "'); pin it with --dim=" << symbol
                   << "=<size> or --input-shape=" << name << ":"
                   << dimsString(suggestion);
    return failure();
  }
  return dims;
}

OwningOpRef<ModuleOp> hodu::importOnnxModel(const std::string &path,
                                            MLIRContext &context,
                                            const ImportOptions &options,
                                            const std::vector<OnnxFrozenInput> &frozen) {
  context.loadDialect<HoduDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(&context, path, 0, 0);

  auto bufOr = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bufOr) {
    emitError(fileLoc) << "cannot read ONNX model '" << path
                       << "': " << bufOr.getError().message();
    return nullptr;
  }
  StringRef data = (*bufOr)->getBuffer();
  return importOnnxModelFromMemory(data.data(), data.size(), path, context,
                                   options, frozen);
}

OwningOpRef<ModuleOp> hodu::importOnnxModelFromMemory(
    const void *bytes, size_t size, const std::string &path,
    MLIRContext &context, const ImportOptions &options,
    const std::vector<OnnxFrozenInput> &frozen) {
  context.loadDialect<HoduDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(&context, path, 0, 0);
  StringRef data(static_cast<const char *>(bytes), size);
  onnx::ModelProto model;
  {
    google::protobuf::io::CodedInputStream stream(
        reinterpret_cast<const uint8_t *>(data.data()), (int)data.size());
    stream.SetTotalBytesLimit(INT32_MAX);
    if (data.size() >= (size_t)INT32_MAX ||
        !model.ParseFromCodedStream(&stream) ||
        !stream.ConsumedEntireMessage()) {
      emitError(fileLoc) << "'" << path
                         << "' is not a valid ONNX model: protobuf parsing "
                            "failed (truncated or corrupt file?)";
      return nullptr;
    }
  }
  if (!model.has_graph() || model.ir_version() <= 0) {
    emitError(fileLoc) << "'" << path
                       << "' is not an ONNX model (no ir_version or graph)";
    return nullptr;
  }

  int64_t opset = -1;
  bool declaresOpset = false;
  for (const auto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      opset = o.version();
      declaresOpset = true;
    }
  if (opset < 0 && model.ir_version() < 3)
    opset = 1; // before opset_import, the default domain was implied
  // Opsets 1-23 of the default domain are imported: up to 17 each node is
  // checked against libonnx's schema for the model's opset
  // (checkModelStructure), and the conversions apply the opset-specific rules
  // they know (18-23, which libonnx 1.12 does not know, by the ONNX
  // definitions: Reduce*'s axes input, Split's num_outputs, Resize's axes,
  // antialias and keep_aspect_ratio_policy, Pad's axes and wrap, AveragePool's
  // dilations, Gelu, QuantizeLinear's output_dtype and block_size; 22 only
  // widens types; 23 adds Attention, refuses QuantizeLinear's precision, and
  // its float4 type is one Hodu does not have). The
  // optimizers of ai.onnx.preview.training (version 1) import whatever the
  // default domain's opset; a default-domain node needs one.
  if ((declaresOpset && opset < 1) || opset > 23) {
    emitError(fileLoc) << "'" << path << "' uses opset " << opset
                       << " of the default ONNX domain; Hodu imports opsets "
                          "1 to 23";
    return nullptr;
  }

  // Reject unsupported ops, in the graph and in its subgraphs (If
  // branches), before ONNX shape inference sees them: its inference
  // functions for control flow (Scan, Loop) crash on malformed subgraphs,
  // and those ops cannot be imported anyway.
  std::function<bool(const onnx::GraphProto &, unsigned)> supported =
      [&](const onnx::GraphProto &graph, unsigned depth) {
        for (auto [index, node] : llvm::enumerate(graph.node())) {
          std::string name =
              node.name().empty() ? node.op_type() + "_" + std::to_string(index)
                                  : node.name();
          Location loc = nodeLocation(context, name, node.op_type(), fileLoc);
          bool defaultDomain =
              node.domain().empty() || node.domain() == "ai.onnx";
          if (!defaultDomain && !isSupportedOp(node.domain(), node.op_type())) {
            emitError(loc) << "op '" << node.op_type() << "' of domain '"
                           << node.domain() << "' is not supported";
            return false;
          }
          if (!defaultDomain) {
            // The one other domain with ops (ai.onnx.preview.training) has
            // had one version. A model that uses it without importing it
            // (ONNX's own test_gradient_of_add) means that one.
            int64_t version = 1;
            for (const auto &o : model.opset_import())
              if (o.domain() == node.domain())
                version = o.version();
            if (version != 1) {
              emitError(loc)
                  << "op '" << node.op_type() << "' of domain '"
                  << node.domain() << "': the model imports "
                  << (version < 0 ? std::string("no version")
                                  : "version " + std::to_string(version))
                  << " of the domain; Hodu imports version 1";
              return false;
            }
          }
          if (defaultDomain && !isSupportedOp("", node.op_type())) {
            emitError(loc) << "unsupported op '" << node.op_type()
                           << "' (opset " << opset << ")";
            return false;
          }
          for (const auto &attr : node.attribute()) {
            if (!attr.has_g())
              continue;
            if (depth + 1 >= kMaxSubgraphDepth) {
              emitError(loc) << "subgraphs nest more than "
                             << kMaxSubgraphDepth << " levels deep";
              return false;
            }
            if (!supported(attr.g(), depth + 1))
              return false;
          }
        }
        return true;
      };
  if (!supported(model.graph(), 0))
    return nullptr;

  if (failed(checkModelStructure(model.graph(), opset, model.ir_version(),
                                 fileLoc)))
    return nullptr;

  // Shape inference annotates intermediate values; the importer computes its
  // own types and uses these only to cross-check them. ONNX reports problems
  // by throwing; a model it cannot infer is still imported.
  std::map<std::string, SmallVector<int64_t>> inferred;
  std::map<std::string, int> inferredTypes;
  // What the model itself declares (value_info and graph outputs), before
  // shape inference merges it: a node whose output contradicts its declared
  // element type is an error in the model, as in ONNX Runtime.
  DeclaredTypes declared;
  for (const auto *list : {&model.graph().value_info(), &model.graph().output()})
    for (const auto &vi : *list) {
      if (!vi.type().has_tensor_type())
        continue;
      if (int et = vi.type().tensor_type().elem_type())
        declared.types[vi.name()] = et;
      if (auto shape = staticShapeOf(vi))
        declared.shapes[vi.name()] = *shape;
    }
  // libonnx's shape inference runs only when asked for (hoduc
  // --onnx-shape-check): its inference functions trust what a malformed
  // model says (negative dims, ranks, shape operands of 2^31 elements) and
  // crash or run for minutes, and the importer computes its own types. Before
  // opset 7 its functions check even less (Gemm-6 on 1-D inputs crashed).
  try {
    if (options.onnxShapeCheck && opset >= 7)
      onnx::shape_inference::InferShapes(model);
    for (const auto &vi : model.graph().value_info())
      if (auto s = staticShapeOf(vi))
        inferred[vi.name()] = *s;
    // Declared output shapes are checked the same way (when static).
    for (const auto &vi : model.graph().output())
      if (auto s = staticShapeOf(vi))
        inferred[vi.name()] = *s;
    for (const auto *list : {&model.graph().value_info(), &model.graph().output()})
      for (const auto &vi : *list)
        if (vi.type().has_tensor_type() && vi.type().tensor_type().elem_type())
          inferredTypes[vi.name()] = vi.type().tensor_type().elem_type();
  } catch (const std::exception &) {
  }
  // Declared types are checked against the model by checkDeclaredTypes;
  // only what inference alone found is an importer cross-check.
  for (const auto &[name, type] : declared.types)
    inferredTypes.erase(name);
  for (const auto &[name, shape] : declared.shapes)
    inferred.erase(name);

  onnx::GraphProto &graph = *model.mutable_graph();
  GraphImporter g(context, path);
  g.maxTensorElements = options.maxTensorElements;
  g.sequenceCapacity = options.sequenceCapacity;
  // A value without a declared shape whose only way to a declared one is
  // through elementwise ops takes that shape too: the expanded window
  // functions' Range, whose values go through Mul, Cos and Sub to the
  // output. Such a shape is only ever an assumption checked at run time
  // (declaredShapeFor), never a shape the importer trusts.
  // Subgraphs' (a loop body's) declarations count too: their names are
  // distinct from every other scope's (SSA), and their nesting is bounded
  // (kMaxSubgraphDepth, checked above).
  std::map<std::string, SmallVector<int64_t>> hinted = declared.shapes;
  std::map<std::string, std::string> hintedVia;
  {
    SmallVector<const onnx::GraphProto *> graphs{&model.graph()};
    for (size_t i = 0; i < graphs.size(); ++i)
      for (const auto &node : graphs[i]->node())
        for (const auto &attr : node.attribute()) {
          if (attr.has_g())
            graphs.push_back(&attr.g());
          for (const auto &sub : attr.graphs())
            graphs.push_back(&sub);
        }
    std::set<std::string> own; // declared by the model itself
    for (const onnx::GraphProto *g : graphs)
      for (const auto *list : {&g->value_info(), &g->output()})
        for (const auto &vi : *list)
          if (auto shape = staticShapeOf(vi)) {
            hinted.emplace(vi.name(), *shape);
            own.insert(vi.name());
          }
    std::set<std::string> known; // constants: their own shapes
    for (const onnx::GraphProto *g : graphs) {
      for (const auto &init : g->initializer())
        known.insert(init.name());
      for (const auto &node : g->node())
        if (node.op_type() == "Constant")
          for (const auto &out : node.output())
            known.insert(out);
    }
    std::set<std::string> ambiguous;
    for (const onnx::GraphProto *g : graphs) {
      const auto &nodes = g->node();
      for (int k = nodes.size() - 1; k >= 0; --k) {
        const onnx::NodeProto &node = nodes[k];
        if (!node.domain().empty() && node.domain() != "ai.onnx")
          continue;
        if (!isElementwiseOp(node.op_type()) || node.output_size() != 1)
          continue;
        auto out = hinted.find(node.output(0));
        if (out == hinted.end())
          continue;
        std::string origin = hintedVia.count(node.output(0))
                                 ? hintedVia[node.output(0)]
                                 : node.output(0);
        for (const auto &in : node.input()) {
          if (in.empty() || known.count(in) || own.count(in))
            continue;
          auto it = hinted.find(in);
          if (it == hinted.end() && !ambiguous.count(in)) {
            hinted[in] = out->second;
            hintedVia[in] = origin;
          } else if (it != hinted.end() && it->second != out->second) {
            hinted.erase(it); // two consumers, two shapes: no hint
            hintedVia.erase(in);
            ambiguous.insert(in);
          }
        }
      }
    }
  }
  g.declaredShapes = &hinted;
  g.declaredVia = &hintedVia;
  OpBuilder &b = g.builder;

  auto module = ModuleOp::create(fileLoc);
  OwningOpRef<ModuleOp> owned(module);
  module->setAttr("hodu.model_name",
                  StringAttr::get(&context, defaultModelName(path)));

  // Initializers are constants (a graph input of the same name only gives
  // a default, which compilers take as the value).
  llvm::StringSet<> initNames;
  for (auto &init : *graph.mutable_initializer()) {
    Location loc = NameLoc::get(StringAttr::get(&context, init.name()), fileLoc);
    auto value = g.decodeTensor(init, loc);
    if (failed(value))
      return nullptr;
    g.values[init.name()].constant = *value;
    initNames.insert(init.name());
  }

  // Frozen inputs become constants like initializers.
  for (const OnnxFrozenInput &f : frozen) {
    Location loc = NameLoc::get(StringAttr::get(&context, f.name), fileLoc);
    auto tensor = loadFrozenTensor(f, loc);
    if (failed(tensor))
      return nullptr;
    bool isInput = llvm::any_of(graph.input(), [&](const auto &in) {
      return in.name() == f.name;
    });
    if (!isInput) {
      emitError(loc) << "frozen input '" << f.name << "' is not a graph input";
      return nullptr;
    }
    auto value = g.decodeTensor(**tensor, loc);
    if (failed(value))
      return nullptr;
    g.values[f.name].constant = *value;
    initNames.insert(f.name);
  }

  // Graph inputs: static shapes, pinned by options.inputShapes if dynamic.
  // A sequence input (of a length given by options.sequenceLengths) is one
  // input per element, "NAME[i]"; its elements' shapes are pinned one by
  // one ("NAME[i]") or all alike ("NAME").
  llvm::StringMap<std::vector<int64_t>> pins;
  for (const auto &[name, dims] : options.inputShapes)
    pins[name] = dims;
  llvm::StringMap<int64_t> lengths;
  for (const auto &[name, length] : options.sequenceLengths)
    lengths[name] = length;
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  SmallVector<SmallVector<std::string>> argSymbols; // per non-flag argument
  // Per graph input: where its arguments start, and whether it is a sequence.
  struct GraphInput {
    std::string name;
    size_t firstArg;
    std::optional<int64_t> length;
    bool optional;
  };
  SmallVector<GraphInput> graphInputs;
  auto boolScalar = RankedTensorType::get({}, b.getI1Type());
  for (const auto &in : graph.input()) {
    if (initNames.contains(in.name()))
      continue;
    Location loc = NameLoc::get(StringAttr::get(&context, in.name()), fileLoc);
    const onnx::TypeProto::Tensor *tt = nullptr;
    std::optional<int64_t> length;
    // An optional input is its element's input(s) and "NAME#present".
    const onnx::TypeProto *type = &in.type();
    bool optional = type->has_optional_type();
    if (optional)
      type = &type->optional_type().elem_type();
    if (type->has_sequence_type()) {
      const auto &st = type->sequence_type();
      if (!st.has_elem_type() || !st.elem_type().has_tensor_type()) {
        emitError(loc) << "graph input '" << in.name()
                       << "' is a sequence of sequences, maps or optionals; "
                          "Hodu takes sequences of tensors";
        return nullptr;
      }
      auto it = lengths.find(in.name());
      if (it == lengths.end()) {
        emitError(loc) << "graph input '" << in.name()
                       << "' is a sequence, whose length Hodu needs at "
                          "compile time: give it with --sequence-length="
                       << in.name() << ":N (its elements become the inputs '"
                       << in.name() << "[0]' to '" << in.name() << "[N-1]')";
        return nullptr;
      }
      length = it->second;
      lengths.erase(it);
      if (*length < 0 || *length > kMaxSequenceLength) {
        emitError(loc) << "--sequence-length for '" << in.name() << "' is "
                       << *length << "; it must be 0 to " << kMaxSequenceLength;
        return nullptr;
      }
      tt = &st.elem_type().tensor_type();
    } else if (type->has_tensor_type()) {
      tt = &type->tensor_type();
    } else {
      emitError(loc) << "graph input '" << in.name()
                     << "' is not a tensor, a sequence of tensors or an "
                        "optional of one (maps, sparse tensors and optionals "
                        "of other types are not supported)";
      return nullptr;
    }
    Type elt = onnxElementType(context, tt->elem_type());
    if (!elt) {
      emitError(loc) << "graph input '" << in.name() << "' has "
                     << (length ? "elements of " : "") << "data type "
                     << tt->elem_type() << ", which has no hodu dtype";
      return nullptr;
    }
    graphInputs.push_back({in.name(), argNames.size(), length, optional});
    auto addPresent = [&] {
      if (!optional)
        return;
      argTypes.push_back(boolScalar);
      argNames.push_back(in.name() + HODU_OPTIONAL_PRESENT_SUFFIX);
    };
    if (!length) {
      if (auto it = lengths.find(in.name()); it != lengths.end()) {
        emitError(loc) << "--sequence-length names '" << in.name()
                       << "', which is a tensor, not a sequence";
        return nullptr;
      }
      auto dims = inputShape(in.name(), *tt, pins, options,
                             argSymbols.emplace_back(), g.keepSymbolData, loc);
      if (failed(dims))
        return nullptr;
      argTypes.push_back(RankedTensorType::get(*dims, elt));
      argNames.push_back(in.name());
      addPresent();
      continue;
    }
    // A pin of the sequence's own name applies to each element without one.
    std::optional<std::vector<int64_t>> shared;
    if (auto it = pins.find(in.name()); it != pins.end()) {
      shared = it->second;
      pins.erase(it);
    }
    for (int64_t i = 0; i < *length; ++i) {
      std::string element = elementName(in.name(), i);
      if (shared && !pins.count(element))
        pins[element] = *shared;
      auto dims = inputShape(element, *tt, pins, options,
                             argSymbols.emplace_back(), g.keepSymbolData, loc);
      if (failed(dims))
        return nullptr;
      argTypes.push_back(RankedTensorType::get(*dims, elt));
      argNames.push_back(element);
    }
    addPresent();
  }
  // Parameters of a train step (hoduc --train): the chosen floating-point
  // initializers become arguments after the inputs, their value kept as
  // `hodu.param` for the step's initial state.
  // A model that keeps its weights in Constant nodes (some exporters do)
  // names them: the floating-point Constants of the top-level graph may be
  // listed in --train-params too.
  SmallVector<std::pair<std::string, ElementsAttr>> params;
  if (options.trainAll || !options.trainParams.empty()) {
    auto isFloat = [](ElementsAttr value) {
      return value &&
             isa<FloatType>(cast<ShapedType>(value.getType()).getElementType());
    };
    std::vector<std::string> floating, constants;
    llvm::StringMap<ElementsAttr> constantValues;
    for (const auto &init : graph.initializer())
      if (isFloat(g.values[init.name()].constant))
        floating.push_back(init.name());
    for (const auto &node : graph.node()) {
      if (node.op_type() != "Constant" || node.output_size() != 1 ||
          !llvm::is_contained(options.trainParams, node.output(0)))
        continue;
      for (const auto &attr : node.attribute())
        if (attr.name() == "value" && attr.has_t()) {
          Location loc =
              NameLoc::get(StringAttr::get(&context, node.output(0)), fileLoc);
          auto value = g.decodeTensor(attr.t(), loc);
          if (failed(value))
            return nullptr;
          if (isFloat(*value)) {
            constants.push_back(node.output(0));
            constantValues[node.output(0)] = *value;
          }
        }
    }
    // --train-params may name what is no initializer (a Constant's output);
    // --freeze names only parameters, which the driver checks.
    for (const std::string &name : options.trainParams)
      if (!llvm::is_contained(floating, name) &&
          !llvm::is_contained(constants, name)) {
        std::vector<std::string> candidates;
        for (const auto &node : graph.node())
          if (node.op_type() == "Constant" && node.output_size() == 1)
            candidates.push_back(node.output(0));
        emitError(fileLoc)
            << "--train-params names '" << name
            << "', which is not a floating-point initializer of the model "
               "(those: "
            << (floating.empty() ? std::string("none")
                                 : llvm::join(floating, ", "))
            << "; nor a Constant node's floating-point output (the "
               "Constants' outputs: "
            << (candidates.empty() ? std::string("none")
                                   : llvm::join(candidates, ", "))
            << "))";
        return nullptr;
      }
    // Every floating-point initializer: the driver's hodu-train-step
    // trains those --train-params and --freeze choose and makes the others
    // constants again.
    for (const std::string &name : floating)
      params.push_back({name, g.values[name].constant});
    for (const std::string &name : constants) {
      params.push_back({name, constantValues[name]});
      g.liftedConstants.insert(name);
    }
    for (const auto &[name, value] : params) {
      argTypes.push_back(value.getType());
      argNames.push_back(name);
    }
  }
  if (!pins.empty()) {
    emitError(fileLoc) << "--input-shape names '" << pins.begin()->first()
                       << "', which is not a graph input";
    return nullptr;
  }
  if (std::optional<std::string> twice = nameTwice(argNames)) {
    emitError(fileLoc) << "the model has two inputs named '" << *twice
                       << "' (a sequence's elements are named NAME[i])";
    return nullptr;
  }
  if (!lengths.empty()) {
    emitError(fileLoc) << "--sequence-length names '"
                       << lengths.begin()->first()
                       << "', which is not a graph input";
    return nullptr;
  }

  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, fileLoc, "main",
                                   b.getFunctionType(argTypes, {}));
  // Arguments are located at their graph input's name.
  Block *body = new Block();
  func.getBody().push_back(body);
  for (auto [type, name] : llvm::zip(argTypes, argNames))
    body->addArgument(type,
                      NameLoc::get(StringAttr::get(&context, name), fileLoc));
  for (auto [i, name] : llvm::enumerate(argNames))
    func.setArgAttr(i, "hodu.name", b.getStringAttr(name));
  // The symbolic dims, for hodu-chunk-symbols (arguments of an optional's
  // `#present` flag have none).
  for (size_t i = 0, s = 0; i < argNames.size(); ++i) {
    if (StringRef(argNames[i]).ends_with(HODU_OPTIONAL_PRESENT_SUFFIX) ||
        s >= argSymbols.size())
      continue;
    const SmallVector<std::string> &dims = argSymbols[s++];
    if (llvm::all_of(dims, [](const std::string &d) { return d.empty(); }))
      continue;
    SmallVector<Attribute> names;
    for (const std::string &d : dims)
      names.push_back(b.getStringAttr(d));
    func.setArgAttr(i, "hodu.dims", b.getArrayAttr(names));
  }
  for (const GraphInput &in : graphInputs) {
    ValueEntry e;
    size_t next = in.firstArg;
    if (!in.length) {
      e.value = body->getArgument(next++);
    } else {
      std::vector<ValueEntry> elements(*in.length);
      for (int64_t i = 0; i < *in.length; ++i)
        elements[i].value = body->getArgument(next++);
      e.sequence =
          std::make_shared<const std::vector<ValueEntry>>(std::move(elements));
    }
    if (in.optional) {
      auto flag = std::make_shared<ValueEntry>();
      flag->value = body->getArgument(next);
      e.hasElement = flag;
    }
    g.values[in.name] = e;
  }
  // The parameters are the last arguments.
  for (auto [k, param] : llvm::enumerate(params)) {
    unsigned arg = argNames.size() - params.size() + k;
    func.setArgAttr(arg, "hodu.param", param.second);
    ValueEntry e;
    e.value = body->getArgument(arg);
    g.values[param.first] = e;
  }
  b.setInsertionPointToEnd(body);

  NodeLoop loop{g, opset, declared, inferred, inferredTypes};
  if (failed(loop.importNodes(graph, body, /*depth=*/0)))
    return nullptr;

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  SmallVector<std::string> resultNames;
  // An optional output is its element's output(s), then "NAME#present";
  // an empty one of a type without a static shape cannot be returned.
  for (const auto &out : graph.output()) {
    Location loc = NameLoc::get(StringAttr::get(&context, out.name()), fileLoc);
    auto it = g.values.find(out.name());
    Value present;
    // An output the graph declares a tensor or a sequence is returned as
    // that, even where it is an optional inside (a Loop's carried optional
    // that the body gives as its element).
    bool declaredPlain =
        out.type().has_tensor_type() || out.type().has_sequence_type();
    if (it != g.values.end() && !declaredPlain &&
        (it->second.hasElement || out.type().has_optional_type())) {
      const ValueEntry &e = it->second;
      if (!e.holdsValue()) {
        emitError(loc) << "graph output '" << out.name()
                       << "' is an empty optional whose type has no static "
                          "shape, which Hodu cannot return";
        return nullptr;
      }
      ValueEntry flag;
      if (e.hasElement)
        flag = *e.hasElement;
      else
        flag.constant = DenseElementsAttr::get(boolScalar, APInt(1, 1));
      present = g.valueOf(flag, loc);
    }
    auto addPresent = [&] {
      if (!present)
        return;
      results.push_back(present);
      resultTypes.push_back(present.getType());
      resultNames.push_back(out.name() + HODU_OPTIONAL_PRESENT_SUFFIX);
    };
    // A sequence of run-time length is its three tensors (abi.h).
    if (it != g.values.end() && it->second.runtimeSequence) {
      const RuntimeSequence &rs = *it->second.runtimeSequence;
      for (auto [v, suffix] :
           {std::pair<Value, const char *>{rs.data, HODU_SEQUENCE_DATA_SUFFIX},
            {rs.shapes, HODU_SEQUENCE_SHAPES_SUFFIX},
            {rs.length, HODU_SEQUENCE_LENGTH_SUFFIX}}) {
        results.push_back(v);
        resultTypes.push_back(v.getType());
        resultNames.push_back(out.name() + suffix);
      }
      addPresent();
      continue;
    }
    // A sequence output is one output per element, "NAME[i]".
    if (it != g.values.end() && it->second.sequence) {
      for (auto [i, element] : llvm::enumerate(*it->second.sequence)) {
        std::string name = elementName(out.name(), i);
        if (element.sequence) {
          emitError(loc) << "graph output '" << out.name()
                         << "' is a sequence of sequences; Hodu returns "
                            "sequences of tensors";
          return nullptr;
        }
        if (element.dataDim) {
          emitError(loc) << "graph output '" << out.name() << "': element " << i
                         << " has a size that depends on the data (the "
                         << "count computed by " << element.dataDim->origin
                         << "), which a sequence's element cannot return";
          return nullptr;
        }
        Value v = g.valueOf(element, loc);
        results.push_back(v);
        resultTypes.push_back(v.getType());
        resultNames.push_back(name);
      }
      addPresent();
      continue;
    }
    Value v = g.materialize(out.name(), loc);
    if (!v) {
      emitError(loc) << "graph output '" << out.name() << "' is not produced "
                     << "by any node, initializer or input";
      return nullptr;
    }
    results.push_back(v);
    resultTypes.push_back(v.getType());
    resultNames.push_back(out.name());
    addPresent();
  }
  // Two outputs of one name (a tensor output "s[0]" next to a sequence "s")
  // would be ambiguous to the runtime.
  if (std::optional<std::string> twice = nameTwice(resultNames)) {
    emitError(fileLoc) << "the model has two outputs named '" << *twice
                       << "' (a sequence's elements are named NAME[i])";
    return nullptr;
  }
  // An output whose size depends on the data is computed at its bound; the
  // model returns its run-time dims too, as "<name>#dims" (abi.h).
  for (const auto &out : graph.output()) {
    auto it = g.values.find(out.name());
    if (it == g.values.end() || !it->second.dataDim)
      continue;
    Location loc = NameLoc::get(StringAttr::get(&context, out.name()), fileLoc);
    std::string name = out.name() + HODU_OUTPUT_DIMS_SUFFIX;
    if (g.values.count(name) || llvm::is_contained(resultNames, name)) {
      emitError(loc) << "graph output '" << out.name()
                     << "' has a size that depends on the data, and its dims "
                        "would be returned as '"
                     << name << "', a name the model uses already";
      return nullptr;
    }
    Value dims = runtimeDims(b, loc, g.materialize(out.name(), loc),
                             *it->second.dataDim);
    results.push_back(dims);
    resultTypes.push_back(dims.getType());
    resultNames.push_back(name);
  }
  func::ReturnOp::create(b, fileLoc, results);
  eraseUnusedDeferredOps(g, func);
  func.setType(b.getFunctionType(argTypes, resultTypes));
  for (auto [i, name] : llvm::enumerate(resultNames))
    func.setResultAttr(i, "hodu.name", b.getStringAttr(name));
  return owned;
}

void hodu::registerOnnxImporter() {
  static bool done = [] {
    ComponentRegistry::get().addImporter(
        {"onnx",
         "ONNX models (opsets 1-23, default domain)",
         {".onnx"},
         [](const std::string &path, MLIRContext &ctx,
            const ImportOptions &options) {
           std::vector<OnnxFrozenInput> frozen;
           for (const auto &[name, file] : options.frozenInputs)
             frozen.push_back({name, file});
           return importOnnxModel(path, ctx, options, frozen);
         }});
    return true;
  }();
  (void)done;
}
