//===- OnnxImporterImpl.h - ONNX importer internals -------------*- C++ -*-===//
//
// Shared between the graph walker (OnnxImporter.cpp, OnnxNodeLoop.cpp and
// the control flow of OnnxIf.cpp, OnnxLoop.cpp and OnnxScan.cpp) and the op
// conversions (Onnx*Ops.cpp). Private to lib/Import/Onnx.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_LIB_IMPORT_ONNX_ONNXIMPORTERIMPL_H
#define HODU_LIB_IMPORT_ONNX_ONNXIMPORTERIMPL_H

#include "hodu/Dialect/Hodu/Evaluator.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Support/Names.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <memory>
#include <vector>
#include <optional>
#include <string>

namespace onnx {
class NodeProto;
class GraphProto;
class AttributeProto;
class TensorProto;
} // namespace onnx

namespace hodu::onnx_import {

/// Tensors up to this many bytes are decoded (and import-time results
/// written) as `dense<...>`; larger ones become `dense_resource` blobs.
constexpr int64_t kSmallTensorBytes = 1024;

/// Subgraphs (If branches) nest at most this deep: protobuf's own parser
/// stops at 100 nested messages, and each level costs the importer stack.
constexpr unsigned kMaxSubgraphDepth = 32;

/// Most elements a sequence may have, whether built by the model's ops or
/// given as a graph input (each element is a value of its own; each element
/// of an input, an input of the artifact).
constexpr int64_t kMaxSequenceLength = 4096;

/// The largest dim a model may declare or compute (2^40): libonnx's
/// inference and the importer's arithmetic stay far from int64 overflow.
constexpr int64_t kMaxDim = int64_t(1) << 40;

/// The bounds of import-time evaluation: a result of more elements, or an
/// evaluation that visits more, is left as an op (hodu-fold-constants has
/// its own, larger limits).
inline hodu::EvaluationLimits importEvaluationLimits() {
  return hodu::EvaluationLimits(/*maxElements=*/1 << 16, /*maxWork=*/1 << 20,
                                kSmallTensorBytes);
}

/// Where a node is, for diagnostics (hodu/Support/Diagnostics.h prints it
/// as "model.onnx: node 'name' (OpType)") and for partitioning, which reads
/// the op type (--force-cpu-ops): the node's name, its op type as metadata.
mlir::Location nodeLocation(mlir::MLIRContext &ctx, llvm::StringRef name,
                            llvm::StringRef opType, mlir::Location fileLoc);

/// The checks that run before libonnx's shape inference (whose inference
/// functions crash on some malformed models): names defined once, a graph
/// with outputs, each node against its ONNX schema (input and output counts,
/// attribute names and types) where libonnx knows the opset, window
/// attributes (strides, dilations, kernel_shape, pads) in range. Errors name
/// the node.
mlir::LogicalResult checkModelStructure(const onnx::GraphProto &graph,
                                        int64_t opset, int64_t irVersion,
                                        mlir::Location fileLoc);

/// A dimension whose size depends on the data (the count of NonZero's
/// nonzero elements, of the elements Compress keeps): the tensor is stored
/// at its bound, the most elements that dimension can hold, and only the
/// first `count` entries along `axis` are the value's; the rest are padding
/// that flows through the ops that keep such a dimension's entries apart
/// (OnnxDataDependent.cpp) and is cut off at the model's output, whose
/// run-time dims the model returns in a companion output.
///
/// A value may instead have every dim known only at run time (a Slice by
/// starts and axes given at run time): `axis` is then kEveryDim and `count`
/// the 1-D i64 of its dims. Such a value can only be a model output.
struct DataDependentDim {
  static constexpr int64_t kEveryDim = -1;
  int64_t axis;
  mlir::Value count;  // 0-d i64 (1-D, one per dim, for kEveryDim)
  std::string origin; // "node 'NonZero_0' (NonZero)": where it comes from

  bool everyDim() const { return axis == kEveryDim; }
  /// "dim 1 depends on the data (its size is the count computed by ...)".
  std::string describe() const;
};

/// An ONNX sequence whose length is known only at run time: one carried
/// through a run-time Loop whose body changes its length, or one a
/// run-time If chooses between sequences of different lengths
/// (OnnxRuntimeSequence.cpp). Its elements are stored flat, each in
/// row-major order and padded, in `data` [capacity, maxElements]; their
/// shapes in `shapes` [capacity, 1 + maxRank] (i64: the rank, then the
/// dims, 0 past the rank); how many there are in `length` (0-d i64).
/// Entries past the length are padding.
struct RuntimeSequence {
  mlir::Value data, shapes, length;

  int64_t capacity() const;
  int64_t maxElements() const;
  int64_t maxRank() const;
  mlir::Type elementType() const;
};

/// The sizes a run-time sequence is stored at (RuntimeSequence); a null
/// element type where nothing fixes it yet (an empty list).
struct SequenceLayout {
  int64_t capacity = 0, maxElements = 1, maxRank = 0;
  mlir::Type elementType;
};

/// What an ONNX value name stands for during import.
struct ValueEntry {
  mlir::Value value;           // null until materialized
  mlir::ElementsAttr constant; // the value, when known and not materialized
  /// An ONNX sequence: its elements, a list whose length is known at
  /// import time (sequences never reach the IR; their elements do).
  std::shared_ptr<const std::vector<ValueEntry>> sequence;
  /// An ONNX sequence whose length is known only at run time.
  std::shared_ptr<const RuntimeSequence> runtimeSequence;
  /// Set when one of the value's dims depends on the data.
  std::shared_ptr<const DataDependentDim> dataDim;
  /// An ONNX optional: whether it holds an element (a 0-d i1, known at
  /// import time or computed), the element being the rest of this entry.
  /// An empty optional holds zeros of its type (or, where the type has no
  /// static shape, nothing), so that a run-time If can yield it.
  std::shared_ptr<const ValueEntry> hasElement;

  /// Whether the entry holds a value: a tensor (computed or constant) or a
  /// sequence; only an empty optional of a type without a static shape
  /// holds none.
  bool holdsValue() const {
    return value || constant || sequence || runtimeSequence;
  }
  /// Whether the entry is a sequence, of either kind.
  bool isSequence() const { return sequence || runtimeSequence; }
};

class GraphImporter;

/// The view of one ONNX node that the op conversions work with.
class NodeContext {
public:
  NodeContext(GraphImporter &graph, const onnx::NodeProto &node,
              llvm::StringRef name, int64_t opset, mlir::Location loc);

  const onnx::NodeProto &node;
  std::string name;
  int64_t opset;
  /// Whether the node is inside a subgraph (If, Loop, Scan), where no value
  /// may have a size that depends on the data.
  bool inSubgraph = false;
  mlir::Location loc;
  mlir::OpBuilder &b;
  GraphImporter &graph;

  /// Reports `msg` as an error located at the node (its name and op type).
  mlir::InFlightDiagnostic error(const llvm::Twine &msg) const;

  // Inputs. Optional inputs may be absent (empty name or beyond the list).
  size_t numInputs() const;
  bool hasInput(size_t i) const;
  /// The input materialized as an SSA value; emits an error if absent.
  mlir::FailureOr<mlir::Value> in(size_t i);
  /// The input as a sequence's elements; emits an error if it is not one.
  mlir::FailureOr<std::vector<ValueEntry>> sequenceIn(size_t i);
  /// The input's value when it is known at import time (a constant, or
  /// computed from constants by import-time evaluation), else nullopt.
  std::optional<ConstantView> constantInput(size_t i) const;
  /// The input's type (works for constants too); null if absent.
  mlir::RankedTensorType type(size_t i) const;
  /// The input's value as integers; errors if it is not known at import
  /// time. `what` says what the input is for ("shape", "axes").
  mlir::FailureOr<llvm::SmallVector<int64_t>> constInts(size_t i,
                                                        llvm::StringRef what);
  mlir::FailureOr<llvm::SmallVector<double>> constFloats(size_t i,
                                                         llvm::StringRef what);
  /// An error unless a tensor of `shape` has at most
  /// --max-tensor-elements elements; `what` names it ("output 'y'").
  mlir::LogicalResult checkElementCount(llvm::ArrayRef<int64_t> shape,
                                        const llvm::Twine &what) const;
  /// The error for an input that must be known at import time but is not.
  mlir::InFlightDiagnostic notKnownError(size_t i, llvm::StringRef what) const;

  // Shapes the model declares for outputs of data known only at run time.
  /// The static shape the model declares for output `i` (value_info or
  /// graph output), if any.
  std::optional<llvm::SmallVector<int64_t>> declaredShape(size_t i) const;
  /// Output `i`'s declared static shape, or, without one, the error for
  /// input `in` (`what`: "shape"), known only at run time, from which the
  /// op would compute it.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  declaredShapeFor(size_t i, size_t in, llvm::StringRef what) const;
  /// "declared for output 'y'" (or, for a shape declared downstream,
  /// "that output 'y' takes from 'z', declared"): for messages.
  std::string declaredFor(size_t i) const;
  /// A run-time check that `ok` (a bool tensor) holds everywhere: the
  /// model's run fails with "node 'NAME' (OpType): <what>" when it does
  /// not (hodu.assert).
  mlir::LogicalResult checkAtRunTime(mlir::Value ok, const llvm::Twine &what,
                                     bool indexCheck = false);

  // Attributes.
  const onnx::AttributeProto *attr(llvm::StringRef attrName) const;
  mlir::FailureOr<int64_t> attrInt(llvm::StringRef attrName, int64_t dflt) const;
  mlir::FailureOr<float> attrFloat(llvm::StringRef attrName, float dflt) const;
  mlir::FailureOr<std::string> attrString(llvm::StringRef attrName,
                                          llvm::StringRef dflt) const;
  /// Absent attribute: std::nullopt inside a success.
  mlir::FailureOr<std::optional<llvm::SmallVector<int64_t>>>
  attrInts(llvm::StringRef attrName) const;
  mlir::FailureOr<std::optional<llvm::SmallVector<float>>>
  attrFloats(llvm::StringRef attrName) const;
  const onnx::TensorProto *attrTensor(llvm::StringRef attrName) const;

  // Outputs.
  size_t numOutputs() const;
  bool hasOutput(size_t i) const;
  void setOutput(size_t i, mlir::Value v);
  /// Output `i` is what `entry` holds: its value, or its constant.
  void setOutput(size_t i, const ValueEntry &entry);
  /// Output `i` is the constant `value` (a `hodu.constant` only once an op
  /// reads it).
  void setConstant(size_t i, mlir::ElementsAttr value);
  /// Output `i` is a sequence of these elements.
  void setSequence(size_t i, std::vector<ValueEntry> elements);
  /// Input `i`'s data-dependent dim, if it has one.
  std::shared_ptr<const DataDependentDim> dataDim(size_t i) const;
  /// Output `i` (set already) holds `count` entries along `axis`, a number
  /// known only at run time (DataDependentDim) that `origin` computed (""
  /// for this node).
  void setDataDim(size_t i, int64_t axis, mlir::Value count,
                  const std::string &origin = "");

  // Builders for common pieces.
  /// A 0-d (or `shape`) constant of element type `elt` holding `v`.
  mlir::Value constant(mlir::Type elt, double v,
                       llvm::ArrayRef<int64_t> shape = {});
  mlir::Value constant(mlir::ElementsAttr value);
  /// A 1-D i64 constant.
  mlir::Value constant(llvm::ArrayRef<int64_t> values);
  /// A scalar attribute of element type `elt`.
  mlir::TypedAttr scalarAttr(mlir::Type elt, double v) const;
  mlir::Value cast(mlir::Value v, mlir::Type elt);
  mlir::Value reshape(mlir::Value v, llvm::ArrayRef<int64_t> shape);
};

/// Data-dependent dims (OnnxDataDependent.cpp). Before node `n` is
/// converted: an error unless every input's data-dependent dim can flow
/// through it (elementwise ops, Gather, Transpose, reshapes that keep the
/// dim, slices, splits and concatenations along other axes, MatMul's rows,
/// reductions, Softmax and TopK over other axes), outside subgraphs.
mlir::LogicalResult checkDataDependentInputs(NodeContext &n, bool inSubgraph);
/// After the conversion: the outputs' data-dependent dims, from the inputs'
/// (`inputs`, one per node input, null where none) and the converted types.
mlir::LogicalResult propagateDataDependentDims(
    NodeContext &n,
    llvm::ArrayRef<std::shared_ptr<const DataDependentDim>> inputs);
/// The run-time dims of `v` (i64, one per dim), the model output that
/// accompanies a graph output with a data-dependent dim.
mlir::Value runtimeDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        const DataDependentDim &dim);
/// The exclusive running sum of `v` (1-D i64).
mlir::FailureOr<mlir::Value> exclusiveScan(NodeContext &n, mlir::Value v);
/// An error unless input #0 is free of sizes known only at run time: an
/// op whose `what` ("k is", "the axes are") is known only then would give
/// its result a second such size.
mlir::LogicalResult checkNoDataDim(NodeContext &n, llvm::StringRef what);
/// The entries of a 1-D axes input known only at run time, each a 0-d
/// i64; an error unless its length is static.
mlir::FailureOr<llvm::SmallVector<mlir::Value>> runtimeAxes(NodeContext &n,
                                                            size_t input);
/// Whether one of `axes` (0-d i64 each) names dim `d` of `rank` (as d or
/// d - rank): a 0-d bool.
mlir::FailureOr<mlir::Value> namesDim(NodeContext &n,
                                      llvm::ArrayRef<mlir::Value> axes,
                                      int64_t d, int64_t rank);
/// The 1-D i64 of `dims` (0-d i64 each).
mlir::Value dimsVector(NodeContext &n, llvm::ArrayRef<mlir::Value> dims);
/// Sets output 0 to `y`, laid out at its bound, whose every dim is known
/// only at run time: `dims` (0-d i64 each), none for a 0-d `y`.
void setEveryDimOutput(NodeContext &n, mlir::Value y,
                       llvm::ArrayRef<mlir::Value> dims);
/// `x` without the `k` dims that `dropped` (a 0-d bool per dim, known at
/// run time) marks, whose entry 0 is taken: a Squeeze by axes given at run
/// time, or a reduction without keepdims. The result is laid out at its
/// bound (output dim o at the most of input dims o .. o + k), with its
/// run-time dims (0-d i64 each; none for a 0-d result).
mlir::FailureOr<std::pair<mlir::Value, llvm::SmallVector<mlir::Value>>>
dropDims(NodeContext &n, mlir::Value x, llvm::ArrayRef<mlir::Value> dropped,
         int64_t k);
/// `x`'s elements, read in row-major order as a tensor of the run-time
/// `dims` (0-d i64 each), laid out at `bound` (each dim's most): the value
/// whose every dim is known only at run time (DataDependentDim::kEveryDim)
/// of a Reshape-like op (Squeeze, Unsqueeze by axes given at run time).
/// Entries outside the dims repeat some element of `x` (padding).
mlir::FailureOr<mlir::Value> layAtBound(NodeContext &n, mlir::Value x,
                                        llvm::ArrayRef<mlir::Value> dims,
                                        llvm::ArrayRef<int64_t> bound);
/// 0, 1, ..., size - 1 (i64). A long one is a [rows, cols] sum of a column
/// and a row of about sqrt(size) constants each, rather than a constant of
/// `size` elements in the artifact.
mlir::FailureOr<mlir::Value> positions(NodeContext &n, int64_t size);
/// Entries `[0, count)` of the positions where `values` (1-D, any element
/// type) is nonzero, in order, padded with zeros to its length, and
/// `count` (0-d i64): the compaction behind NonZero, Compress and
/// NonMaxSuppression on data known at run time.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
compactPositions(NodeContext &n, mlir::Value values);
/// The coordinates in `shape` (row-major) of the flat positions `flat`
/// (i64): one i64 tensor shaped like `flat` per dim.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
unravelPositions(NodeContext &n, mlir::Value flat,
                 llvm::ArrayRef<int64_t> shape);

/// Ops that compute each element from the elements at the same (broadcast)
/// position of their inputs.
bool isElementwiseOp(llvm::StringRef op);
/// Whether an op type of `domain` ("" or "ai.onnx" for the default one)
/// has a conversion.
bool isSupportedOp(llvm::StringRef domain, llvm::StringRef opType);
/// Converts one node; defined in OnnxOps.cpp.
mlir::LogicalResult convertNode(NodeContext &n);

/// The state of one graph import; defined in OnnxNodeContext.cpp (its value
/// table) and OnnxTensorDecode.cpp (decodeTensor).
class GraphImporter {
public:
  GraphImporter(mlir::MLIRContext &ctx, std::string modelPath);

  mlir::MLIRContext &ctx;
  mlir::OpBuilder builder;
  std::string modelPath;
  llvm::StringMap<ValueEntry> values;
  /// Outputs of top-level Constant nodes that a train step made arguments
  /// (hoduc --train-params): those nodes are not imported.
  llvm::StringSet<> liftedConstants;
  /// The static shapes the model declares (value_info, graph outputs):
  /// the shapes of outputs that ops compute from data known only at run
  /// time, checked when the model runs. Null: none.
  const std::map<std::string, llvm::SmallVector<int64_t>> *declaredShapes =
      nullptr;
  /// For a shape in declaredShapes that the model declares for a value
  /// downstream (reached through elementwise ops), that value's name.
  const std::map<std::string, std::string> *declaredVia = nullptr;
  /// The most elements one tensor may have (--max-tensor-elements).
  int64_t maxTensorElements = int64_t(1) << 40;
  /// The elements a sequence whose length is known only at run time is
  /// stored for (--sequence-capacity).
  int64_t sequenceCapacity = 256;
  /// A symbolic import (ImportOptions::freeSymbols): the names computed
  /// from a tensor's shape (Shape, Size, and what is computed from them)
  /// are `shapeDerived`, and an op that takes such a value and gives data
  /// (a floating-point or boolean result: a position's embedding, a scale,
  /// a mask) is not evaluated at import time but kept (`deferredOps`), so
  /// that the driver sees how the data follows the symbol. `constantOf`
  /// still evaluates such an op for a conversion that needs its value, and
  /// the ones left without a user are erased at the end of the import.
  bool keepSymbolData = false;
  llvm::StringSet<> shapeDerived;
  llvm::DenseSet<mlir::Operation *> deferredOps;

  mlir::Value materialize(llvm::StringRef name, mlir::Location loc);
  /// The entry's value, or a new `hodu.constant` of its constant at the
  /// builder's insertion point; unlike materialize, the entry (a sequence's
  /// element, a loop body's output) is left as it is.
  mlir::Value valueOf(const ValueEntry &e, mlir::Location loc);
  mlir::RankedTensorType typeOf(llvm::StringRef name) const;
  /// The value of `name` when it is known at import time, else null.
  mlir::ElementsAttr constantOf(llvm::StringRef name) const;
  /// Turns `name` back into an unmaterialized constant when its
  /// `hodu.constant` has no user left (import-time evaluation consumed it),
  /// so that it is created again only where an op reads it.
  void release(llvm::StringRef name);
  /// Decodes a TensorProto (initializer, Constant value, attribute): small
  /// tensors as `dense`, large ones as a `dense_resource` blob.
  mlir::FailureOr<mlir::ElementsAttr> decodeTensor(const onnx::TensorProto &t,
                                                   mlir::Location loc);
};

/// Run-time sequences (OnnxRuntimeSequence.cpp).
/// The layout of sequence entry `seq` as it is: a list's length, its
/// elements' most elements and rank (their bounds, for elements with sizes
/// known only at run time) and their element type. An error if the
/// elements are sequences or optionals, or mix element types.
mlir::FailureOr<SequenceLayout> sequenceLayout(NodeContext &n,
                                               const ValueEntry &seq);
/// The layout that holds both; an error if their element types differ.
mlir::FailureOr<SequenceLayout>
joinLayouts(NodeContext &n, const SequenceLayout &a, const SequenceLayout &b);
/// `seq` (a list or a run-time sequence) as a run-time sequence stored at
/// `layout`, which must hold it.
mlir::FailureOr<ValueEntry> toRuntimeSequence(NodeContext &n,
                                              const ValueEntry &seq,
                                              const SequenceLayout &layout);
/// Whether two entries are carried or yielded as values of the same types
/// (a tensor's type, a list's length and element types, a run-time
/// sequence's layout, an optional's flag).
bool sameCarriedKind(const ValueEntry &a, const ValueEntry &b);
/// `rs` with `element` inserted at run-time position `pos` (0-d i64,
/// normalized and checked here; null: at the end), checked at run time to
/// fit the capacity. The layout grows at import time to hold the element.
mlir::FailureOr<ValueEntry> runtimeSequenceInsert(NodeContext &n,
                                                  const ValueEntry &rs,
                                                  const ValueEntry &element,
                                                  mlir::Value pos);
/// `rs` without the element at run-time position `pos` (null: the last).
mlir::FailureOr<ValueEntry>
runtimeSequenceErase(NodeContext &n, const ValueEntry &rs, mlir::Value pos);
/// `x` split along `axis` into `parts` by `sizes` (1-D integers), known
/// only at run time: each part computed at its bound, the whole dim, its
/// entries first (gathered from its run-time offset), with its size (0-d
/// i64, cut at the dim's end: sizes that do not add up to the dim, which
/// ONNX calls an error, do not read past it).
mlir::FailureOr<llvm::SmallVector<std::pair<mlir::Value, mlir::Value>>>
splitAtRunTime(NodeContext &n, mlir::Value x, int64_t axis, mlir::Value sizes,
               int64_t parts);
/// Entries `index` of `x` read flat (clamped into it, so that padding
/// reads some element), shaped as `bound`.
mlir::FailureOr<mlir::Value> gatherFlat(NodeContext &n, mlir::Value x,
                                        mlir::Value index,
                                        llvm::ArrayRef<int64_t> bound);

/// Maps an ONNX TensorProto data type to an MLIR element type; null if the
/// type has no hodu dtype (strings, complex).
mlir::Type onnxElementType(mlir::MLIRContext &ctx, int dataType);

} // namespace hodu::onnx_import

#endif // HODU_LIB_IMPORT_ONNX_ONNXIMPORTERIMPL_H
