//===- OnnxModelCheck.cpp - checks before ONNX shape inference ------------===//
//
// What must hold before libonnx's shape inference sees a model: its
// inference functions divide by strides, index outputs by name and size
// windows from attributes without checking them, so a malformed model
// downloaded from a stranger crashes the compiler there (SIGFPE on a zero
// stride). These checks run first and turn each case into an error naming
// the node.
//
//===----------------------------------------------------------------------===//
#include "OnnxImporterImpl.h"
#include "OnnxOpsCommon.h"

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace {

/// Window attributes larger than this are refused: no tensor dimension the
/// compiler accepts is larger, and window arithmetic on larger values
/// overflows or runs for hours (docs/hoduc.md, *Errors*).
constexpr int64_t kMaxWindowValue = int64_t(1) << 31;

/// The ops whose window attributes (kernel_shape, strides, dilations, pads)
/// shape inference and the conversions compute with.
bool hasWindowAttributes(llvm::StringRef op) {
  return llvm::is_contained(
      {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "DeformConv",
       "MaxPool", "AveragePool", "LpPool", "MaxUnpool", "Col2Im", "Im2Col"},
      op);
}

/// The largest declared dim (the default --max-tensor-elements): past it,
/// size arithmetic on dims overflows int64.
using hodu::onnx_import::kMaxDim;
using hodu::onnx_import::product;

/// The most dims a shape operand may give a result.
constexpr int64_t kMaxRank = 64;

/// The input of `op` that holds the result's shape (libonnx's inference
/// makes a result with one dim per element), or -1.
int shapeOperand(llvm::StringRef op) {
  if (op == "ConstantOfShape")
    return 0;
  if (op == "Reshape" || op == "Expand" || op == "Tile")
    return 1;
  return -1;
}

/// The newest opset of the default domain whose schemas libonnx has.
int64_t newestKnownOpset() {
  const auto &map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = map.find("");
  return it == map.end() ? 0 : it->second.second;
}

/// Checks `node` against its ONNX schema as ONNX Runtime does when it
/// resolves a graph (input and output counts, required, unknown and
/// mistyped attributes); the message on failure, empty when it holds.
std::string checkAgainstSchema(const onnx::NodeProto &node, int64_t opset,
                               int64_t irVersion,
                               const onnx::checker::LexicalScopeContext &scope) {
  onnx::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(irVersion));
  // The training ops' schemas are version 1 of their domain, the one the
  // importer reads (OnnxImporter.cpp).
  ctx.set_opset_imports({{"", static_cast<int>(opset)},
                         {"ai.onnx", static_cast<int>(opset)},
                         {"ai.onnx.preview.training", 1}});
  try {
    onnx::checker::check_node(node, ctx, scope);
  } catch (const std::exception &e) {
    // ValidationError appends "==> Context: ..." (the node again).
    std::string msg = e.what();
    if (size_t cut = msg.find("\n\n==> Context"); cut != std::string::npos)
      msg.resize(cut);
    return msg.empty() ? "the node does not match its ONNX schema" : msg;
  }
  return {};
}

} // namespace

/// The checks of one graph; `scope` holds the names the graph may read
/// from enclosing graphs (a subgraph's), and gains the graph's own. Schemas
/// are checked at the top level only: libonnx's check of an If node checks
/// its branches' nodes itself.
static LogicalResult checkGraph(const onnx::GraphProto &graph, int64_t opset,
                                int64_t irVersion, Location fileLoc,
                                onnx::checker::LexicalScopeContext &scope,
                                bool checkSchemas, unsigned depth) {
  MLIRContext *ctx = fileLoc.getContext();
  // Graph-level names: each defined once.
  llvm::StringSet<> inputs, initializers, outputs, defined;
  for (const auto &in : graph.input())
    if (!inputs.insert(in.name()).second)
      return emitError(fileLoc) << "graph input '" << in.name()
                                << "' is listed twice";
  for (const auto &init : graph.initializer())
    if (!initializers.insert(init.name()).second)
      return emitError(fileLoc) << "initializer '" << init.name()
                                << "' is defined twice";
  if (graph.output_size() == 0)
    return emitError(fileLoc) << (depth ? "a subgraph" : "the graph")
                              << " has no outputs";
  for (const auto *names : {&inputs, &initializers})
    for (const auto &name : *names)
      scope.add(name.getKey().str());
  for (const auto &out : graph.output())
    if (!outputs.insert(out.name()).second)
      return emitError(fileLoc) << "graph output '" << out.name()
                                << "' is listed twice";

  // Declared dims: libonnx's inference functions index and size with them
  // (a negative dim crashed GatherND's). A dim_value is never negative.
  auto checkDims = [&](const onnx::ValueInfoProto &vi,
                       const char *what) -> LogicalResult {
    if (!vi.type().has_tensor_type() ||
        !vi.type().tensor_type().has_shape())
      return success();
    SmallVector<int64_t> known;
    for (auto [i, dim] :
         llvm::enumerate(vi.type().tensor_type().shape().dim())) {
      if (!dim.has_dim_value())
        continue;
      if (dim.dim_value() < 0 || dim.dim_value() > kMaxDim)
        return emitError(fileLoc)
               << what << " '" << vi.name() << "' has dim " << dim.dim_value()
               << " at position " << i
               << "; dims are between 0 and 2^40";
      known.push_back(dim.dim_value());
    }
    // The known dims' product too (product saturates): a dozen dims of 2^31
    // each pass the dim bound and overflow every element count computed
    // from them.
    if (product(known) > kMaxDim)
      return emitError(fileLoc) << what << " '" << vi.name()
                                << "' declares more than 2^40 elements";
    return success();
  };
  for (const auto &vi : graph.input())
    if (failed(checkDims(vi, "graph input")))
      return failure();
  for (const auto &vi : graph.output())
    if (failed(checkDims(vi, "graph output")))
      return failure();
  for (const auto &vi : graph.value_info())
    if (failed(checkDims(vi, "value_info")))
      return failure();
  for (const auto &init : graph.initializer()) {
    for (int64_t d : init.dims())
      if (d < 0 || d > kMaxDim)
        return emitError(fileLoc) << "initializer '" << init.name()
                                  << "' has dim " << d
                                  << "; dims are between 0 and 2^40";
    if (product(ArrayRef<int64_t>(init.dims().data(), init.dims_size())) >
        kMaxDim)
      return emitError(fileLoc) << "initializer '" << init.name()
                                << "' declares more than 2^40 elements";
  }

  // Lengths of declared 1-D values, for the shape operands below.
  llvm::StringMap<int64_t> declaredLength;
  for (const auto *list : {&graph.input(), &graph.value_info()})
    for (const auto &vi : *list)
      if (vi.type().tensor_type().shape().dim_size() == 1 &&
          vi.type().tensor_type().shape().dim(0).has_dim_value())
        declaredLength[vi.name()] =
            vi.type().tensor_type().shape().dim(0).dim_value();

  for (int index = 0, e = graph.node_size(); index < e; ++index) {
    const onnx::NodeProto &node = graph.node(index);
    std::string name = node.name().empty()
                           ? node.op_type() + "_" + std::to_string(index)
                           : node.name();
    Location loc =
        hodu::onnx_import::nodeLocation(*ctx, name, node.op_type(), fileLoc);
    auto fail = [&]() { return emitError(loc); };
    for (const std::string &out : node.output()) {
      if (out.empty())
        continue;
      if (!defined.insert(out).second)
        return fail() << "output '" << out
                      << "' is already defined by an earlier node";
      if (initializers.contains(out) || inputs.contains(out))
        return fail() << "output '" << out
                      << "' is already a graph input or initializer";
    }
    // A shape operand known only at run time: libonnx's inference builds a
    // result of that many dims (2^31 took minutes and gigabytes).
    if (int input = shapeOperand(node.op_type());
        input >= 0 && input < node.input_size()) {
      auto it = declaredLength.find(node.input(input));
      if (it != declaredLength.end() && it->second > kMaxRank)
        return fail() << "input '" << node.input(input)
                      << "' is a shape of " << it->second
                      << " dims; tensors have at most " << kMaxRank;
    }
    if (checkSchemas) {
      std::string problem = checkAgainstSchema(node, opset, irVersion, scope);
      if (!problem.empty())
        return fail() << problem;
    }
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (!attr.has_g())
        continue;
      if (depth + 1 >= hodu::onnx_import::kMaxSubgraphDepth)
        return fail() << "subgraphs nest more than " << hodu::onnx_import::kMaxSubgraphDepth
                      << " levels deep";
      onnx::checker::LexicalScopeContext inner(scope);
      if (failed(checkGraph(attr.g(), opset, irVersion, loc, inner,
                            /*checkSchemas=*/false, depth + 1)))
        return failure();
    }
    for (const std::string &out : node.output())
      if (!out.empty())
        scope.add(out);
    // DepthToSpace/SpaceToDepth: libonnx's inference and the importer
    // square the blocksize; it can never exceed 2^20 in a valid model (its
    // square divides the channels, or multiplies them, within 2^40).
    if (node.op_type() == "DepthToSpace" || node.op_type() == "SpaceToDepth")
      for (const onnx::AttributeProto &attr : node.attribute())
        if (attr.name() == "blocksize" &&
            (attr.i() < 1 || attr.i() > (int64_t(1) << 20)))
          return fail() << "attribute 'blocksize' must be between 1 and 2^20, "
                           "got "
                        << attr.i();
    if (!hasWindowAttributes(node.op_type()))
      continue;
    for (const onnx::AttributeProto &attr : node.attribute()) {
      const std::string &a = attr.name();
      bool positive = a == "kernel_shape" || a == "strides" ||
                      a == "dilations" || a == "block_shape";
      bool nonNegative = a == "pads" || a == "output_padding" ||
                         a == "output_shape";
      if (a == "group" && (attr.i() < 1 || attr.i() > kMaxWindowValue))
        return fail() << "attribute 'group' must be between 1 and 2^31, got "
                      << attr.i();
      if (!positive && !nonNegative)
        continue;
      for (int64_t v : attr.ints()) {
        if (positive && v < 1)
          return fail() << "attribute '" << a
                        << "' must hold values of at least 1, got " << v;
        if (nonNegative && v < 0)
          return fail() << "attribute '" << a
                        << "' must hold non-negative values, got " << v;
        if (v > kMaxWindowValue)
          return fail() << "attribute '" << a << "' holds " << v
                        << ", more than the limit of 2^31";
      }
    }
  }
  return success();
}

LogicalResult hodu::onnx_import::checkModelStructure(
    const onnx::GraphProto &graph, int64_t opset, int64_t irVersion,
    Location fileLoc) {
  onnx::checker::LexicalScopeContext scope;
  bool schemaKnown = opset >= 1 && opset <= newestKnownOpset();
  return checkGraph(graph, opset, irVersion, fileLoc, scope, schemaKnown,
                    /*depth=*/0);
}
