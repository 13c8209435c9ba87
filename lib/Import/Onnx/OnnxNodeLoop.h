//===- OnnxNodeLoop.h - the ONNX graph walker's internals -------*- C++ -*-===//
//
// NodeLoop, which imports a graph's nodes in order, and what its pieces
// share: the node loop itself and subgraph scopes (OnnxNodeLoop.cpp), the
// control flow it imports in place of op conversions (OnnxIf.cpp,
// OnnxLoop.cpp, OnnxScan.cpp), and the model import that runs it on the
// main graph (OnnxImporter.cpp). Private to lib/Import/Onnx.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_LIB_IMPORT_ONNX_ONNXNODELOOP_H
#define HODU_LIB_IMPORT_ONNX_ONNXNODELOOP_H

#include "OnnxImporterImpl.h"

#include "llvm/ADT/StringSet.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hodu::onnx_import {

/// The element types and static shapes a model declares for its values.
struct DeclaredTypes {
  std::map<std::string, int> types;
  std::map<std::string, llvm::SmallVector<int64_t>> shapes;
};

/// Loop and Scan are unrolled at import, as the recurrent ops are: every
/// iteration's body is imported in turn, so import-time evaluation sees
/// each one's values. At most this many iterations.
constexpr int64_t kMaxUnrolledIterations = 4096;
/// And at most this many nodes are imported in all, unrolled bodies
/// included (the graph's own nodes count too).
constexpr int64_t kMaxImportedNodes = int64_t(1) << 18;
/// A run-time loop's scan outputs are computed at the bound of its trip
/// count: at most this many rows, and this many bytes each.
constexpr int64_t kMaxScanBound = int64_t(1) << 20;
constexpr uint64_t kMaxScanBytes = uint64_t(1) << 30;

/// Imports a graph's nodes, in order, into a block: the model's graph into
/// @main, an If branch into the block it is inlined in or into a region of
/// `hodu.if`. Holds what every node's checks read.
struct NodeLoop {
  GraphImporter &g;
  int64_t opset;
  const DeclaredTypes &declared;
  const std::map<std::string, llvm::SmallVector<int64_t>> &inferred;
  const std::map<std::string, int> &inferredTypes;
  /// Nodes imported so far, unrolled iterations included.
  int64_t imported = 0;
  /// How many subgraphs (If branches, Loop and Scan bodies) the nodes being
  /// imported are inside.
  unsigned subgraphLevel = 0;

  mlir::LogicalResult importNodes(const onnx::GraphProto &graph,
                                  mlir::Block *body, unsigned depth);

private:
  /// The names defined now; after a subgraph, dropNamesOutside(them) ends
  /// the names the subgraph defined (its scope).
  llvm::StringSet<> definedNames() const;
  void dropNamesOutside(const llvm::StringSet<> &outer);
  /// The graph attribute `name` of node `n` (Loop's and Scan's body).
  mlir::FailureOr<const onnx::GraphProto *>
  graphAttr(NodeContext &n, llvm::StringRef name) const;
  /// A subgraph's initializers and nodes, at the builder's insertion point.
  mlir::LogicalResult
  importSubgraph(NodeContext &n, const onnx::GraphProto &graph, unsigned depth);
  mlir::LogicalResult importIf(NodeContext &n, unsigned depth);
  /// A run-time If's output `i` as the branches give it (`a`, `b`): an
  /// error unless they are of one kind (tensor, sequence of one length,
  /// optional); an optional one branch leaves empty becomes zeros shaped
  /// like the other's.
  mlir::LogicalResult matchBranchOutputs(NodeContext &n, size_t i,
                                         ValueEntry &a, ValueEntry &b);
  /// For a run-time If's output that is a sequence in both branches: the
  /// layout of the run-time sequence both become, unless they are lists
  /// that match element by element (yielded as they are).
  mlir::FailureOr<std::optional<SequenceLayout>>
  branchJoin(NodeContext &n, const ValueEntry &a, const ValueEntry &b);
  /// The values an If yields for an output: an optional's flag first, then
  /// the tensor, the list's elements or the run-time sequence's tensors.
  void appendYielded(const ValueEntry &e, mlir::Location loc,
                     llvm::SmallVectorImpl<mlir::Value> &yielded);
  /// The entry an If's `results` from `next` on give for an output yielded
  /// like `like`.
  ValueEntry takeYielded(const ValueEntry &like, mlir::ValueRange results,
                         size_t &next);
  mlir::LogicalResult importScan(NodeContext &n, unsigned depth);
  mlir::LogicalResult importLoop(NodeContext &n, unsigned depth);
  /// SequenceMap: the body imported once per element, unrolled like a Loop
  /// (the sequences' length is known at import time).
  mlir::LogicalResult importSequenceMap(NodeContext &n, unsigned depth);
  /// A Loop whose iterations are known only at run time: `hodu.loop`, the
  /// body imported once into its region (loop-carried values only).
  mlir::LogicalResult importRuntimeLoop(NodeContext &n,
                                        const onnx::GraphProto &body,
                                        int64_t numCarried, int64_t numScanOut,
                                        unsigned depth);
  /// Imports one iteration of a Loop or Scan body at the builder's
  /// insertion point, its inputs bound to `inputs`; the entries of its
  /// outputs. The body's own names end with the iteration.
  mlir::FailureOr<llvm::SmallVector<ValueEntry>>
  importBody(NodeContext &n, const onnx::GraphProto &body,
             llvm::ArrayRef<ValueEntry> inputs, unsigned depth);
  /// `values` (one per iteration) stacked along a new `axis`, in reverse
  /// order if asked; node output `i` set to that.
  mlir::FailureOr<mlir::Value> stackValues(NodeContext &n,
                                           llvm::ArrayRef<ValueEntry> values,
                                           int64_t axis, bool reverse);
  mlir::LogicalResult stackOutput(NodeContext &n, size_t i,
                                  llvm::ArrayRef<ValueEntry> values,
                                  int64_t axis, bool reverse);
  /// Runs `trips` iterations of a Scan body: `state` carried (the final
  /// state left in it), `scanned[j]` sliced along `axes[j]` (backwards
  /// where `dirs[j]`); each scan output's values, one per iteration.
  mlir::FailureOr<std::vector<llvm::SmallVector<ValueEntry>>>
  runScan(NodeContext &n, const onnx::GraphProto &body,
          llvm::SmallVector<ValueEntry> &state,
          llvm::ArrayRef<mlir::Value> scanned, llvm::ArrayRef<int64_t> axes,
          llvm::ArrayRef<int64_t> dirs, int64_t trips, int64_t numScanOut,
          unsigned depth);
  mlir::LogicalResult importScan8(NodeContext &n, const onnx::GraphProto &body,
                                  int64_t m, unsigned depth);
  /// Imports `branch` (attribute `attrName` of If node `n`) at the builder's
  /// insertion point; its output names, checked to be defined.
  mlir::FailureOr<llvm::SmallVector<std::string>>
  importBranch(NodeContext &n, llvm::StringRef attrName,
               const onnx::GraphProto &branch, unsigned depth);
};

/// What entry `e` holds, for messages: "a sequence of 2 element(s)", "an
/// optional holding tensor<2xf32>"; a tensor by its type (`withType`) or
/// as "a tensor".
std::string describeEntry(const ValueEntry &e, bool withType);

} // namespace hodu::onnx_import

#endif // HODU_LIB_IMPORT_ONNX_ONNXNODELOOP_H
