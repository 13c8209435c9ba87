//===- onnx_import_fuzz.cpp - libFuzzer target for the ONNX importer ------===//
//
// Model bytes -> hodu module, verified, as hoduc imports by default
// (without libonnx's shape inference, which --onnx-shape-check adds). Every
// input must end in a module that verifies or in a diagnostic: never a
// crash, a hang, an exception
// escaping libonnx or protobuf, a sanitizer report, or a file touched
// outside the model's directory.
//
// Structure-aware: LLVMFuzzerCustomMutator parses the input as a ModelProto
// and changes what the importer and libonnx's shape inference compute with
// (attribute values, dims, op types, input names, opsets, data types) to the
// values that broke them before (0, -1, 2^31, 2^40, INT64_MAX, ...), then
// serialises it again; inputs that do not parse are mutated as bytes. Seeds:
// test/fuzz/corpus/onnx (small node-test models and the bundled samples).
//
//===----------------------------------------------------------------------===//
#include "hodu/Import/Onnx.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <unistd.h>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

/// The path the model is imported as: a directory of its own, so that
/// external-data locations resolve (and are confined) there.
const std::string &modelPath() {
  static const std::string path = [] {
    std::string dir = "/tmp/hodu-fuzz-onnx-" + std::to_string(getpid());
    (void)!system(("mkdir -p '" + dir + "'").c_str());
    return dir + "/model.onnx";
  }();
  return path;
}

constexpr int64_t kInteresting[] = {0,
                                    -1,
                                    1,
                                    2,
                                    3,
                                    -2,
                                    7,
                                    255,
                                    int64_t(1) << 31,
                                    (int64_t(1) << 31) - 1,
                                    int64_t(1) << 40,
                                    INT64_MAX,
                                    INT64_MIN};

constexpr const char *kOpTypes[] = {
    "Conv",      "MaxPool",   "AveragePool", "Gather",     "Reshape",
    "Slice",     "Concat",    "Pad",         "Resize",     "Expand",
    "Tile",      "ReduceSum", "ArgMin",      "TopK",       "Split",
    "MatMul",    "Gemm",      "Softmax",     "LSTM",       "ConstantOfShape",
    "Range",     "Transpose", "Squeeze",     "Unsqueeze",  "OneHot",
    "ScatterND", "GatherND",  "Einsum",      "CumSum",     "Cast"};

int64_t pick(std::mt19937_64 &rng, int64_t current) {
  switch (rng() % 3) {
  case 0:
    return kInteresting[rng() % std::size(kInteresting)];
  case 1: // wraps rather than overflows
    return static_cast<int64_t>(static_cast<uint64_t>(current) + rng() % 5 - 2);
  default:
    return static_cast<int64_t>(0 - static_cast<uint64_t>(current));
  }
}

/// One structural change to `model`; false when there was nothing to change.
bool mutateModel(onnx::ModelProto &model, std::mt19937_64 &rng) {
  onnx::GraphProto &graph = *model.mutable_graph();
  switch (rng() % 8) {
  case 0: { // an attribute value
    if (graph.node_size() == 0)
      return false;
    onnx::NodeProto &node = *graph.mutable_node(rng() % graph.node_size());
    if (node.attribute_size() == 0)
      return false;
    onnx::AttributeProto &a = *node.mutable_attribute(rng() % node.attribute_size());
    if (a.ints_size())
      a.set_ints(rng() % a.ints_size(), pick(rng, a.ints(rng() % a.ints_size())));
    else
      a.set_i(pick(rng, a.i()));
    return true;
  }
  case 1: { // a dim of a graph input or an initializer's shape
    auto *in = graph.input_size() ? graph.mutable_input(rng() % graph.input_size())
                                  : nullptr;
    if (in && in->type().tensor_type().shape().dim_size()) {
      auto *shape = in->mutable_type()->mutable_tensor_type()->mutable_shape();
      auto *dim = shape->mutable_dim(rng() % shape->dim_size());
      dim->set_dim_value(pick(rng, dim->dim_value()));
      return true;
    }
    if (graph.initializer_size() == 0)
      return false;
    onnx::TensorProto &t = *graph.mutable_initializer(rng() % graph.initializer_size());
    if (t.dims_size())
      t.set_dims(rng() % t.dims_size(), pick(rng, t.dims(0)));
    else if (t.int64_data_size())
      t.set_int64_data(rng() % t.int64_data_size(), pick(rng, t.int64_data(0)));
    else
      return false;
    return true;
  }
  case 2: { // an op type
    if (graph.node_size() == 0)
      return false;
    graph.mutable_node(rng() % graph.node_size())
        ->set_op_type(kOpTypes[rng() % std::size(kOpTypes)]);
    return true;
  }
  case 3: { // a node input: dropped, repeated or renamed
    if (graph.node_size() == 0)
      return false;
    onnx::NodeProto &node = *graph.mutable_node(rng() % graph.node_size());
    if (node.input_size() == 0)
      return false;
    int i = rng() % node.input_size();
    switch (rng() % 3) {
    case 0:
      node.mutable_input()->DeleteSubrange(i, 1);
      break;
    case 1:
      node.add_input(node.input(i));
      break;
    default: {
      const onnx::NodeProto &other = graph.node(rng() % graph.node_size());
      node.set_input(i, other.output_size() ? other.output(0) : "");
    }
    }
    return true;
  }
  case 4: { // the opset
    if (model.opset_import_size() == 0)
      return false;
    model.mutable_opset_import(0)->set_version(
        static_cast<int64_t>(rng() % 22) - 1);
    return true;
  }
  case 5: { // a data type
    if (graph.initializer_size() && rng() % 2) {
      graph.mutable_initializer(rng() % graph.initializer_size())
          ->set_data_type(static_cast<int>(rng() % 24));
      return true;
    }
    if (graph.input_size() == 0)
      return false;
    graph.mutable_input(rng() % graph.input_size())
        ->mutable_type()
        ->mutable_tensor_type()
        ->set_elem_type(static_cast<int>(rng() % 24));
    return true;
  }
  case 6: { // a node duplicated (names defined twice) or removed
    if (graph.node_size() == 0)
      return false;
    int i = rng() % graph.node_size();
    if (rng() % 2) {
      onnx::NodeProto copy = graph.node(i); // add_node may reallocate
      *graph.add_node() = std::move(copy);
    } else {
      graph.mutable_node()->DeleteSubrange(i, 1);
    }
    return true;
  }
  default: { // external data pointing somewhere
    if (graph.initializer_size() == 0)
      return false;
    onnx::TensorProto &t = *graph.mutable_initializer(rng() % graph.initializer_size());
    constexpr const char *kLocations[] = {"../../etc/passwd", "/etc/passwd",
                                          "w.bin", "", "/dev/zero", "."};
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    t.clear_external_data();
    auto *e = t.add_external_data();
    e->set_key("location");
    e->set_value(kLocations[rng() % std::size(kLocations)]);
    if (rng() % 2) {
      auto *len = t.add_external_data();
      len->set_key(rng() % 2 ? "length" : "offset");
      len->set_value(std::to_string(pick(rng, 16)));
    }
    return true;
  }
  }
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  std::mt19937_64 rng(seed);
  onnx::ModelProto model;
  if (rng() % 8 != 0 && model.ParseFromArray(data, static_cast<int>(size)) &&
      model.has_graph()) {
    for (int i = 0, n = 1 + rng() % 3; i < n; ++i)
      mutateModel(model, rng);
    std::string bytes;
    if (model.SerializeToString(&bytes) && bytes.size() <= maxSize) {
      std::copy(bytes.begin(), bytes.end(), data);
      return bytes.size();
    }
  }
  return LLVMFuzzerMutate(data, size, maxSize);
}

namespace {

/// The context inputs are imported into. Creating one (and loading its
/// dialects) cost more than importing a small model, so one is kept for
/// kInputsPerContext inputs and then replaced: attributes and types uniqued
/// by one model do not pile up across millions of them. Single-threaded, as
/// libFuzzer runs one input at a time. An input that crashes reproduces
/// alone (libFuzzer reruns it in a fresh process): the importer keeps no
/// state in the context between models.
mlir::MLIRContext &fuzzContext() {
  constexpr unsigned kInputsPerContext = 1000;
  static std::unique_ptr<mlir::MLIRContext> context;
  static unsigned inputs = 0;
  if (!context || ++inputs % kInputsPerContext == 0) {
    context.reset();
    context = std::make_unique<mlir::MLIRContext>(
        mlir::MLIRContext::Threading::DISABLED);
    context->printOpOnDiagnostic(false);
  }
  return *context;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &context = fuzzContext();
  mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  hodu::ImportOptions options;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      hodu::importOnnxModelFromMemory(data, size, modelPath(), context, options);
  if (module && mlir::failed(mlir::verify(*module))) {
    // The importer's output must verify whatever the input was.
    fprintf(stderr, "imported module does not verify\n");
    abort();
  }
  return 0;
}
