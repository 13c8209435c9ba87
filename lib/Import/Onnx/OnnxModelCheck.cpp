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

} // namespace

LogicalResult hodu::onnx_import::checkModelStructure(
    const onnx::GraphProto &graph, int64_t opset, Location fileLoc) {
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
    return emitError(fileLoc) << "the graph has no outputs";
  for (const auto &out : graph.output())
    if (!outputs.insert(out.name()).second)
      return emitError(fileLoc) << "graph output '" << out.name()
                                << "' is listed twice";

  for (auto [index, node] : llvm::enumerate(graph.node())) {
    std::string name = node.name().empty()
                           ? node.op_type() + "_" + std::to_string(index)
                           : node.name();
    Location loc = NameLoc::get(StringAttr::get(ctx, name), fileLoc);
    auto fail = [&]() {
      return emitError(loc) << "ONNX op '" << node.op_type() << "' (opset "
                            << opset << ") node '" << name << "': ";
    };
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
