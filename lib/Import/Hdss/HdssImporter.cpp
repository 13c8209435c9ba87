//===- HdssImporter.cpp - Snapshot -> hodu dialect ------------------------===//
//
// Builds `func.func @main` from a snapshot: inputs become arguments (in
// snapshot order, named by `hodu.name`), constants `hodu.constant`, nodes hodu
// ops in file order, targets the results. Each node's result type is its
// output layout's shape with its output dtype, so ops are created generically
// by name and checked by the dialect's verifiers.
//
// Upstream shape ops are strided views; here they are value ops computing the
// view's logical contents (reshape-like ops become `hodu.reshape` to the output
// layout's shape, transpose/permute `hodu.transpose` with the permutation read
// off the strides). Consumers' input layouts then describe the same logical
// tensors and are not needed.
//
//===----------------------------------------------------------------------===//
#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Import/Hdss.h"

#include <map>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Path.h"

#include <limits>

using namespace mlir;
using namespace hodu::hdss;

namespace {

Type elementType(MLIRContext *ctx, DType dtype) {
  Builder b(ctx);
  switch (dtype) {
  case DType::Bool: return b.getI1Type();
  case DType::F8E4M3: return b.getType<Float8E4M3FNType>();
  case DType::F8E5M2: return b.getType<Float8E5M2Type>();
  case DType::BF16: return b.getBF16Type();
  case DType::F16: return b.getF16Type();
  case DType::F32: return b.getF32Type();
  case DType::F64: return b.getF64Type();
  case DType::U8: return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case DType::U16: return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case DType::U32: return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case DType::U64: return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case DType::I8: return b.getI8Type();
  case DType::I16: return b.getI16Type();
  case DType::I32: return b.getI32Type();
  case DType::I64: return b.getI64Type();
  }
  return {};
}

/// What a node becomes: a hodu op by name with its attributes and result
/// types, and which of its results is the node's output.
struct OpSpec {
  std::string name;
  SmallVector<NamedAttribute> attrs;
  SmallVector<Type> resultTypes;
  unsigned resultIndex = 0;
  /// Further results that are tensors of the snapshot: (result, tensor id),
  /// as TopK's indices (`indices_id`).
  SmallVector<std::pair<unsigned, uint64_t>> extraOutputs;
};

/// A node under import with its operands resolved, and the checks every op
/// family makes of it; each reports its error at the node.
struct NodeView {
  const Node &node;
  std::string upstream;
  Location loc;
  SmallVector<Value> operands;

  RankedTensorType inputType(size_t i) const {
    return cast<RankedTensorType>(operands[i].getType());
  }
  LogicalResult needInputs(size_t n) const {
    if (operands.size() != n)
      return emitError(loc) << "'" << upstream << "' takes " << n
                            << " inputs, the node has " << operands.size();
    return success();
  }
  const OpParams *params(ParamsKind kind) const {
    if (!node.hasParams || node.params.kind != kind) {
      emitError(loc) << "'" << upstream << "' needs " << paramsKindName(kind)
                     << " params";
      return nullptr;
    }
    return &node.params;
  }
  /// needInputs(n), then params(kind): how most families begin.
  const OpParams *paramsWithInputs(size_t n, ParamsKind kind) const {
    if (failed(needInputs(n)))
      return nullptr;
    return params(kind);
  }
  std::optional<int64_t> normDim(int64_t dim, int64_t rank) const {
    if (dim < 0)
      dim += rank;
    if (dim < 0 || dim >= std::max<int64_t>(rank, 1)) {
      emitError(loc) << "dim " << dim << " out of range for rank " << rank;
      return std::nullopt;
    }
    return dim;
  }
  /// Upstream's (before, after) pairs per dim as hodu's pads: every begin,
  /// then every end; each at most 2^40.
  std::optional<SmallVector<int64_t>>
  pads(const std::vector<uint64_t> &pairs) const {
    size_t rank = pairs.size() / 2;
    SmallVector<int64_t> out(2 * rank);
    for (size_t d = 0; d < rank; ++d) {
      if (pairs[2 * d] > (uint64_t(1) << 40) ||
          pairs[2 * d + 1] > (uint64_t(1) << 40)) {
        emitError(loc) << "padding of dim " << d << " is too large";
        return std::nullopt;
      }
      out[d] = int64_t(pairs[2 * d]);
      out[rank + d] = int64_t(pairs[2 * d + 1]);
    }
    return out;
  }
  /// The dim in the scalar of `p`'s first field, normalised against the rank
  /// of the first input (the dim of concat, split and slice).
  std::optional<int64_t> dimParam(const OpParams &p) const {
    return normDim(p.fields[0].scalar.asInt(), inputType(0).getRank());
  }
};

class SnapshotImporter {
public:
  SnapshotImporter(MLIRContext &ctx, const std::string &path, const Snapshot &s)
      : ctx(ctx), b(&ctx), snapshot(s),
        fileLoc(FileLineColLoc::get(&ctx, path, 0, 0)) {}

  OwningOpRef<ModuleOp> run(const std::string &defaultName);

private:
  RankedTensorType tensorType(const std::vector<uint64_t> &shape, DType dtype) {
    SmallVector<int64_t> dims(shape.begin(), shape.end());
    return RankedTensorType::get(dims, elementType(&ctx, dtype));
  }
  /// The two largest ids are the value map's empty and tombstone keys
  /// (DenseMapInfo<uint64_t>): looking one up read uninitialised memory
  /// (found by hodu-fuzz-hdss), so they name no tensor.
  static bool reservedId(uint64_t id) {
    return id >= std::numeric_limits<uint64_t>::max() - 1;
  }
  /// The value of tensor `id`, or null if nothing defines it.
  Value lookup(uint64_t id) const {
    return reservedId(id) ? Value() : values.lookup(id);
  }
  bool define(uint64_t id, Value value, Location loc) {
    if (reservedId(id)) {
      emitError(loc) << "tensor id " << id << " is out of range";
      return false;
    }
    if (!values.try_emplace(id, value).second) {
      emitError(loc) << "tensor id " << id << " is defined twice";
      return false;
    }
    return true;
  }
  LogicalResult importConstant(const Constant &c);
  LogicalResult importNode(const Node &node, size_t index);
  /// Fills `spec` with the hodu op of `n`'s family; the families with
  /// params have a function each below.
  LogicalResult describeNode(const NodeView &n, OpSpec &spec);
  LogicalResult describeReduce(const NodeView &n, OpSpec &spec);
  LogicalResult describeConcat(const NodeView &n, OpSpec &spec);
  LogicalResult describeSplit(const NodeView &n, OpSpec &spec);
  LogicalResult describeConv(const NodeView &n, OpSpec &spec);
  LogicalResult describeWindow(const NodeView &n, OpSpec &spec);
  LogicalResult describeShape(const NodeView &n, OpSpec &spec);
  LogicalResult describeTranspose(const NodeView &n, OpSpec &spec);
  LogicalResult describeSlice(const NodeView &n, OpSpec &spec);
  LogicalResult describeFlip(const NodeView &n, OpSpec &spec);
  LogicalResult describeIndexing(const NodeView &n, OpSpec &spec);
  LogicalResult describePadding(const NodeView &n, OpSpec &spec);
  LogicalResult describeScan(const NodeView &n, OpSpec &spec);
  LogicalResult describeTopK(const NodeView &n, OpSpec &spec);
  LogicalResult describeEinsum(const NodeView &n, OpSpec &spec);
  LogicalResult describeResize(const NodeView &n, OpSpec &spec);

  /// A Scalar as an attribute of `type` (the tensor's element type).
  TypedAttr scalarAttr(const Scalar &s, Type type);
  /// A named i64 attribute.
  NamedAttribute i64(StringRef name, int64_t value) {
    return b.getNamedAttr(name, b.getI64IntegerAttr(value));
  }
  /// A named dense i64 array attribute.
  NamedAttribute i64Array(StringRef name, ArrayRef<int64_t> values) {
    return b.getNamedAttr(name, b.getDenseI64ArrayAttr(values));
  }
  NamedAttribute i64Array(StringRef name, const std::vector<uint64_t> &values) {
    return i64Array(name, SmallVector<int64_t>(values.begin(), values.end()));
  }

  MLIRContext &ctx;
  OpBuilder b;
  const Snapshot &snapshot;
  Location fileLoc;
  llvm::DenseMap<uint64_t, Value> values;
};

TypedAttr SnapshotImporter::scalarAttr(const Scalar &s, Type type) {
  if (auto ft = dyn_cast<FloatType>(type))
    return b.getFloatAttr(ft, s.asDouble());
  if (auto it = dyn_cast<IntegerType>(type)) {
    if (it.getWidth() == 1)
      return b.getIntegerAttr(it, s.asDouble() != 0);
    return b.getIntegerAttr(it, APInt(it.getWidth(), uint64_t(s.asInt()),
                                      /*isSigned=*/!it.isUnsigned(),
                                      /*implicitTrunc=*/true));
  }
  return {};
}

LogicalResult SnapshotImporter::importConstant(const Constant &c) {
  Location loc = NameLoc::get(
      b.getStringAttr(c.hasName ? c.name : "constant " + std::to_string(c.id)),
      fileLoc);
  RankedTensorType type = tensorType(c.shape, c.dtype);
  uint64_t count = 1;
  for (uint64_t d : c.shape) {
    if (d && count > (uint64_t(1) << 40) / d)
      return emitError(loc) << "constant shape is too large";
    count *= d;
  }
  uint64_t expected = count * dtypeSize(c.dtype);
  if (c.data.size() != expected)
    return emitError(loc) << "constant holds " << c.data.size()
                          << " bytes, but a " << dtypeName(c.dtype) << " tensor"
                          << " of " << count << " elements needs " << expected;
  DenseElementsAttr value;
  if (c.dtype == DType::Bool) {
    SmallVector<bool> bits;
    for (uint8_t v : c.data)
      bits.push_back(v != 0);
    value = DenseElementsAttr::get(type, bits);
  } else {
    ArrayRef<char> raw(reinterpret_cast<const char *>(c.data.data()),
                       c.data.size());
    value = DenseElementsAttr::getFromRawBuffer(type, raw);
  }
  auto op = hodu::ConstantOp::create(b, loc, cast<ElementsAttr>(value));
  return success(define(c.id, op.getResult(), loc));
}

LogicalResult SnapshotImporter::importNode(const Node &node, size_t index) {
  std::string upstream = opName(node.op.family, node.op.op);
  // Located as ONNX nodes are (the node, its op as metadata), so that
  // errors print "model.hdss: node '3' (relu): ..." and partitioning reads
  // the op (--force-cpu-ops=relu). Upstream nodes have no names: their
  // index in the snapshot is theirs.
  Location loc = FusedLoc::get(
      &ctx, {NameLoc::get(b.getStringAttr(std::to_string(index)), fileLoc)},
      b.getStringAttr(upstream));
  NodeView n{node, upstream, loc, {}};
  for (uint64_t id : node.inputIds) {
    Value v = lookup(id);
    if (!v)
      return emitError(n.loc)
             << "input tensor id " << id << " is not defined before its use";
    n.operands.push_back(v);
  }
  RankedTensorType resultType =
      tensorType(node.outputLayout.shape, node.outputDType);
  OpSpec spec;
  spec.resultTypes.push_back(resultType);
  if (failed(describeNode(n, spec)))
    return failure();

  OperationState state(n.loc, "hodu." + spec.name);
  state.addOperands(n.operands);
  state.addTypes(spec.resultTypes);
  state.addAttributes(spec.attrs);
  Operation *op = b.create(state);
  if (failed(verify(op)))
    return failure();
  Value result = op->getResult(spec.resultIndex);
  if (result.getType() != resultType)
    return emitError(n.loc)
           << "'" << upstream << "' gives " << result.getType()
           << " but the node's output layout says " << resultType;
  if (!define(node.outputId, result, n.loc))
    return failure();
  for (auto [index, id] : spec.extraOutputs)
    if (!define(id, op->getResult(index), n.loc))
      return failure();
  return success();
}

LogicalResult SnapshotImporter::describeNode(const NodeView &n, OpSpec &spec) {
  // Most families keep their upstream name; the rest rename below.
  spec.name = n.upstream;
  OpFamily family = n.node.op.family;
  switch (family) {
  case OpFamily::Binary:
  case OpFamily::BinaryLogical:
  case OpFamily::Cmp:
    return n.needInputs(2);
  case OpFamily::Unary:
  case OpFamily::UnaryLogical:
    return n.needInputs(1);
  case OpFamily::CmpScalar:
  case OpFamily::UnaryScalar: {
    const OpParams *p = n.paramsWithInputs(1, family == OpFamily::CmpScalar
                                                  ? ParamsKind::CmpScalar
                                                  : ParamsKind::UnaryScalar);
    if (!p)
      return failure();
    spec.attrs.push_back(
        b.getNamedAttr("scalar", scalarAttr(p->fields[0].scalar,
                                            n.inputType(0).getElementType())));
    return success();
  }
  case OpFamily::Matrix:
    return n.needInputs(2);
  case OpFamily::Linalg:
    return n.needInputs(1);
  case OpFamily::Reduce:
    return describeReduce(n, spec);
  case OpFamily::Concat:
    return describeConcat(n, spec);
  case OpFamily::Split:
    return describeSplit(n, spec);
  case OpFamily::Conv:
    return describeConv(n, spec);
  case OpFamily::Windowing:
    return describeWindow(n, spec);
  case OpFamily::Shape:
    return describeShape(n, spec);
  case OpFamily::ShapeScalars:
    return describeSlice(n, spec);
  case OpFamily::ShapeMemory:
    return describeFlip(n, spec);
  case OpFamily::Cast:
    spec.name = "cast";
    return n.needInputs(1);
  case OpFamily::Memory:
    spec.name = "contiguous";
    return n.needInputs(1);
  case OpFamily::Indexing:
    return describeIndexing(n, spec);
  case OpFamily::Padding:
    return describePadding(n, spec);
  case OpFamily::Scan:
    return describeScan(n, spec);
  case OpFamily::Sort:
    return describeTopK(n, spec);
  case OpFamily::Einsum:
    return describeEinsum(n, spec);
  case OpFamily::Resize:
    return describeResize(n, spec);
  default:
    return emitError(n.loc) << "op '" << n.upstream
                            << "' is not supported by the .hdss importer";
  }
}

LogicalResult SnapshotImporter::describeReduce(const NodeView &n,
                                               OpSpec &spec) {
  const OpParams *p = n.paramsWithInputs(1, ParamsKind::Reduce);
  if (!p)
    return failure();
  static const char *names[] = {
      "reduce_sum",    "reduce_mean",      "reduce_max", "reduce_min",
      "reduce_prod",   "reduce_std",       "reduce_var", "reduce_norm",
      "reduce_logsum", "reduce_logsumexp", "argmax",     "argmin",
      "reduce_any",    "reduce_all"};
  spec.name = names[n.node.op.op];
  int64_t rank = n.inputType(0).getRank();
  SmallVector<int64_t> dims;
  for (const Scalar &s : p->fields[0].scalars) {
    auto d = n.normDim(s.asInt(), rank);
    if (!d)
      return failure();
    dims.push_back(*d);
  }
  llvm::sort(dims);
  spec.attrs.push_back(i64Array("dims", dims));
  spec.attrs.push_back(
      b.getNamedAttr("keep_dim", b.getBoolAttr(p->fields[1].u)));
  return success();
}

LogicalResult SnapshotImporter::describeConcat(const NodeView &n,
                                               OpSpec &spec) {
  const OpParams *p = n.params(ParamsKind::Concat);
  if (!p)
    return failure();
  if (n.operands.empty())
    return emitError(n.loc) << "concat has no inputs";
  auto d = n.dimParam(*p);
  if (!d)
    return failure();
  spec.name = "concat";
  spec.attrs.push_back(i64("dim", *d));
  return success();
}

LogicalResult SnapshotImporter::describeSplit(const NodeView &n, OpSpec &spec) {
  const OpParams *p = n.paramsWithInputs(1, ParamsKind::Split);
  if (!p)
    return failure();
  auto d = n.dimParam(*p);
  if (!d)
    return failure();
  RankedTensorType in = n.inputType(0);
  SmallVector<int64_t> sizes;
  spec.resultTypes.clear();
  for (const Scalar &s : p->fields[1].scalars) {
    sizes.push_back(s.asInt());
    SmallVector<int64_t> shape(in.getShape());
    shape[*d] = s.asInt();
    spec.resultTypes.push_back(
        RankedTensorType::get(shape, in.getElementType()));
  }
  spec.resultIndex = p->fields[2].u;
  if (spec.resultIndex >= sizes.size())
    return emitError(n.loc) << "split output_index " << spec.resultIndex
                            << " out of range (" << sizes.size() << " parts)";
  spec.name = "split";
  spec.attrs.push_back(i64("dim", *d));
  spec.attrs.push_back(i64Array("sizes", sizes));
  return success();
}

LogicalResult SnapshotImporter::describeConv(const NodeView &n, OpSpec &spec) {
  // conv{1,2,3}d, conv_transpose{1,2,3}d, conv{1,2,3}d_grad_weight,
  // conv_transpose{1,2,3}d_grad_weight: params ParamsKind::Conv1d + op.
  unsigned op = n.node.op.op;
  unsigned kind = op / 3;
  int64_t spatial = op % 3 + 1;
  const OpParams *p =
      n.paramsWithInputs(2, ParamsKind(unsigned(ParamsKind::Conv1d) + op));
  if (!p)
    return failure();
  // Padding, stride and dilation are one scalar each, the same for every
  // spatial dim. The forward kinds end with (padding, [output_padding,]
  // stride, dilation), as candle's params do, which upstream's follow; the
  // gradients begin with (stride, padding, dilation).
  size_t count = p->fields.size();
  uint64_t pad, stride, dilation, outputPad = 0;
  if (kind < 2) {
    pad = p->fields[count - (kind == 1 ? 4 : 3)].u;
    if (kind == 1)
      outputPad = p->fields[count - 3].u;
    stride = p->fields[count - 2].u;
    dilation = p->fields[count - 1].u;
  } else {
    stride = p->fields[0].u;
    pad = p->fields[1].u;
    dilation = p->fields[2].u;
  }
  const uint64_t limit = uint64_t(1) << 30;
  if (stride < 1 || dilation < 1 || stride > limit || dilation > limit ||
      pad > limit || outputPad > limit)
    return emitError(n.loc) << "'" << n.upstream << "' has stride " << stride
                            << ", dilation " << dilation << ", padding " << pad
                            << " and output padding " << outputPad
                            << "; strides and dilations must be 1 to 2^30, "
                               "paddings at most 2^30";
  static const char *names[] = {"conv", "conv_transpose", "conv_grad_weight",
                                "conv_transpose_grad_weight"};
  spec.name = names[kind];
  spec.attrs.push_back(
      i64Array("strides", SmallVector<int64_t>(spatial, int64_t(stride))));
  spec.attrs.push_back(
      i64Array("pads", SmallVector<int64_t>(2 * spatial, int64_t(pad))));
  spec.attrs.push_back(
      i64Array("dilations", SmallVector<int64_t>(spatial, int64_t(dilation))));
  if (kind == 1 || kind == 3)
    spec.attrs.push_back(i64Array(
        "output_padding", SmallVector<int64_t>(spatial, int64_t(outputPad))));
  return success();
}

LogicalResult SnapshotImporter::describeWindow(const NodeView &n,
                                               OpSpec &spec) {
  const OpParams *p = n.paramsWithInputs(1, ParamsKind::ReduceWindow);
  if (!p)
    return failure();
  int64_t rank = n.inputType(0).getRank();
  const Field &window = p->fields[0], &strides = p->fields[1],
              &padding = p->fields[2];
  if (int64_t(window.list.size()) != rank ||
      int64_t(strides.list.size()) != rank ||
      int64_t(padding.list.size()) != 2 * rank)
    return emitError(n.loc) << "reduce-window params need one window dim, "
                               "stride and padding pair per input dim";
  std::optional<SmallVector<int64_t>> pads = n.pads(padding.list);
  if (!pads)
    return failure();
  static const hodu::WindowKind kinds[] = {
      hodu::WindowKind::max, hodu::WindowKind::mean, hodu::WindowKind::sum,
      hodu::WindowKind::min};
  spec.name = "reduce_window";
  spec.attrs.push_back(b.getNamedAttr(
      "kind", hodu::WindowKindAttr::get(&ctx, kinds[n.node.op.op])));
  spec.attrs.push_back(i64Array("window_dims", window.list));
  spec.attrs.push_back(i64Array("strides", strides.list));
  spec.attrs.push_back(i64Array("pads", *pads));
  spec.attrs.push_back(i64Array("dilations", SmallVector<int64_t>(rank, 1)));
  return success();
}

LogicalResult SnapshotImporter::describeShape(const NodeView &n, OpSpec &spec) {
  if (failed(n.needInputs(1)))
    return failure();
  switch (n.node.op.op) {
  case 4: // broadcast
    spec.name = "broadcast";
    return success();
  case 5: // transpose
  case 6: // permute
    return describeTranspose(n, spec);
  default: // reshape, flatten, squeeze, unsqueeze: the output shape says all
    spec.name = "reshape";
    return success();
  }
}

LogicalResult SnapshotImporter::describeTranspose(const NodeView &n,
                                                  OpSpec &spec) {
  // The view's strides are the input's, permuted: find each output dim's
  // source dim by (size, stride), preferring unused dims in order.
  const Node &node = n.node;
  if (node.inputLayouts.size() != 1 ||
      node.inputLayouts[0].shape.size() != node.outputLayout.shape.size() ||
      node.outputLayout.strides.size() != node.outputLayout.shape.size() ||
      node.inputLayouts[0].strides.size() != node.inputLayouts[0].shape.size())
    return emitError(n.loc) << "'" << n.upstream
                            << "' needs input and output layouts of one rank";
  const Layout &in = node.inputLayouts[0], &out = node.outputLayout;
  size_t rank = in.shape.size();
  SmallVector<int64_t> perm;
  std::vector<bool> used(rank, false);
  for (size_t i = 0; i < rank; ++i) {
    size_t j = 0;
    for (; j < rank; ++j)
      if (!used[j] && in.shape[j] == out.shape[i] &&
          (in.strides[j] == out.strides[i] || in.shape[j] == 1))
        break;
    if (j == rank)
      return emitError(n.loc) << "output layout of '" << n.upstream
                              << "' is not a permutation of its input";
    used[j] = true;
    perm.push_back(j);
  }
  spec.name = "transpose";
  spec.attrs.push_back(i64Array("perm", perm));
  return success();
}

LogicalResult SnapshotImporter::describeSlice(const NodeView &n, OpSpec &spec) {
  const OpParams *p = n.paramsWithInputs(1, ParamsKind::Slice);
  if (!p)
    return failure();
  auto d = n.dimParam(*p);
  if (!d)
    return failure();
  RankedTensorType in = n.inputType(0);
  int64_t rank = in.getRank();
  SmallVector<int64_t> starts(rank, 0), ends(in.getShape()), steps(rank, 1);
  starts[*d] = p->fields[1].scalar.asInt();
  ends[*d] = p->fields[2].scalar.asInt();
  steps[*d] = p->fields[3].scalar.asInt();
  spec.name = "slice";
  spec.attrs.push_back(i64Array("starts", starts));
  spec.attrs.push_back(i64Array("ends", ends));
  spec.attrs.push_back(i64Array("steps", steps));
  return success();
}

LogicalResult SnapshotImporter::describeFlip(const NodeView &n, OpSpec &spec) {
  const OpParams *p = n.paramsWithInputs(1, ParamsKind::Flip);
  if (!p)
    return failure();
  spec.name = "flip";
  spec.attrs.push_back(i64Array("dims", p->fields[0].list));
  return success();
}

LogicalResult SnapshotImporter::describeIndexing(const NodeView &n,
                                                 OpSpec &spec) {
  // index_select, index_put, gather, scatter, scatter_add, scatter_max,
  // scatter_min, onehot, nonzero, unique: the first seven take a dim over
  // (input, indices[, values or src]).
  static const ParamsKind kinds[] = {
      ParamsKind::IndexSelect, ParamsKind::IndexPut,   ParamsKind::Gather,
      ParamsKind::Scatter,     ParamsKind::ScatterAdd, ParamsKind::ScatterMax,
      ParamsKind::ScatterMin,  ParamsKind::Onehoto};
  static const size_t inputs[] = {2, 3, 2, 3, 3, 3, 3, 1};
  uint32_t op = n.node.op.op;
  if (op >= std::size(kinds))
    return emitError(n.loc) << "'" << n.upstream << "' has a size that "
                            << "depends on the data; the .hdss importer does "
                               "not import it (ONNX models can use NonZero "
                               "and Unique)";
  const OpParams *p = n.paramsWithInputs(inputs[op], kinds[op]);
  if (!p)
    return failure();
  if (kinds[op] == ParamsKind::Onehoto) {
    spec.name = "onehot";
    int64_t classes = p->fields[0].scalar.asInt();
    if (classes < 1 || classes > (int64_t(1) << 24))
      return emitError(n.loc) << "num_classes " << classes << " must be 1 to "
                              << (int64_t(1) << 24);
    spec.attrs.push_back(i64("num_classes", classes));
    spec.attrs.push_back(i64("axis", p->fields[1].scalar.asInt()));
    return success();
  }
  auto dim = n.dimParam(*p);
  if (!dim)
    return failure();
  spec.attrs.push_back(i64("dim", *dim));
  return success();
}

LogicalResult SnapshotImporter::describePadding(const NodeView &n,
                                                OpSpec &spec) {
  const OpParams *p = n.paramsWithInputs(1, ParamsKind::Padding);
  if (!p)
    return failure();
  const std::vector<uint64_t> &pairs = p->fields[0].list;
  int64_t rank = n.inputType(0).getRank();
  if ((int64_t)pairs.size() != 2 * rank)
    return emitError(n.loc) << "'" << n.upstream << "' has " << pairs.size() / 2
                            << " padding pairs for rank " << rank;
  std::optional<SmallVector<int64_t>> pads = n.pads(pairs);
  if (!pads)
    return failure();
  static const hodu::PadMode modes[] = {
      hodu::PadMode::constant, hodu::PadMode::reflect, hodu::PadMode::replicate,
      hodu::PadMode::circular};
  hodu::PadMode mode = modes[n.node.op.op];
  spec.name = "pad";
  spec.attrs.push_back(
      b.getNamedAttr("mode", hodu::PadModeAttr::get(&ctx, mode)));
  spec.attrs.push_back(i64Array("pads", *pads));
  if (mode == hodu::PadMode::constant)
    spec.attrs.push_back(
        b.getNamedAttr("value", scalarAttr(p->fields[1].scalar,
                                           n.inputType(0).getElementType())));
  return success();
}

LogicalResult SnapshotImporter::describeScan(const NodeView &n, OpSpec &spec) {
  const OpParams *p = n.paramsWithInputs(1, ParamsKind::Scan);
  if (!p)
    return failure();
  auto dim = n.normDim((int64_t)std::min<uint64_t>(p->fields[0].u, INT64_MAX),
                       n.inputType(0).getRank());
  if (!dim)
    return failure();
  spec.name = "cumsum";
  spec.attrs.push_back(i64("dim", *dim));
  return success();
}

LogicalResult SnapshotImporter::describeTopK(const NodeView &n, OpSpec &spec) {
  const OpParams *p = n.paramsWithInputs(1, ParamsKind::TopK);
  if (!p)
    return failure();
  RankedTensorType in = n.inputType(0);
  auto dim = n.normDim(p->fields[1].i, in.getRank());
  if (!dim)
    return failure();
  uint64_t k = p->fields[0].u;
  if (in.getRank() == 0 || k < 1 || k > (uint64_t)in.getDimSize(*dim))
    return emitError(n.loc)
           << "k = " << k << " must be 1 to the size of dim " << *dim;
  spec.name = "topk";
  spec.attrs.push_back(i64("k", int64_t(k)));
  spec.attrs.push_back(i64("dim", *dim));
  spec.attrs.push_back(
      b.getNamedAttr("largest", b.getBoolAttr(p->fields[2].u != 0)));
  spec.attrs.push_back(
      b.getNamedAttr("sorted", b.getBoolAttr(p->fields[3].u != 0)));
  auto values = cast<RankedTensorType>(spec.resultTypes[0]);
  spec.resultTypes.push_back(
      RankedTensorType::get(values.getShape(), b.getI64Type()));
  spec.extraOutputs.push_back({1, p->fields[4].u});
  return success();
}

LogicalResult SnapshotImporter::describeEinsum(const NodeView &n,
                                               OpSpec &spec) {
  if (n.operands.empty())
    return emitError(n.loc) << "'einsum' needs at least one input";
  const OpParams *p = n.params(ParamsKind::Einsum);
  if (!p)
    return failure();
  spec.name = "einsum";
  spec.attrs.push_back(
      b.getNamedAttr("equation", b.getStringAttr(p->fields[0].str)));
  return success();
}

LogicalResult SnapshotImporter::describeResize(const NodeView &n,
                                               OpSpec &spec) {
  const OpParams *p = n.paramsWithInputs(1, ParamsKind::Resize);
  if (!p)
    return failure();
  uint64_t mode = p->fields[1].u, coord = p->fields[2].u,
           nearest = p->fields[3].u;
  // Upstream's enums, in the order of the dialect's (docs/hdss.md).
  if (mode > 2 || coord > 3 || nearest > 3)
    return emitError(n.loc)
           << "'resize' has mode " << mode << ", coord_transform " << coord
           << " and nearest_mode " << nearest
           << "; upstream defines 0-2, 0-3 and 0-3";
  spec.name = "resize";
  spec.attrs.push_back(b.getNamedAttr(
      "mode", hodu::ResizeModeAttr::get(&ctx, hodu::ResizeMode(mode))));
  spec.attrs.push_back(b.getNamedAttr(
      "coord_transform",
      hodu::CoordTransformAttr::get(&ctx, hodu::CoordTransform(coord))));
  spec.attrs.push_back(b.getNamedAttr(
      "nearest_mode",
      hodu::NearestModeAttr::get(&ctx, hodu::NearestMode(nearest))));
  // The input only: no scales or roi operands.
  spec.attrs.push_back(
      b.getNamedAttr("operandSegmentSizes", b.getDenseI32ArrayAttr({1, 0, 0})));
  return success();
}

OwningOpRef<ModuleOp> SnapshotImporter::run(const std::string &defaultName) {
  ctx.loadDialect<hodu::HoduDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  std::string modelName = snapshot.hasName ? snapshot.name : defaultName;
  (*module)->setAttr("hodu.model_name", b.getStringAttr(modelName));

  SmallVector<Type> argTypes;
  for (const Input &in : snapshot.inputs)
    argTypes.push_back(tensorType(in.shape, in.dtype));
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, fileLoc, "main",
                                     b.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);
  for (auto [i, in] : llvm::enumerate(snapshot.inputs)) {
    func.setArgAttr(i, "hodu.name", b.getStringAttr(in.name));
    if (!define(in.id, body->getArgument(i), fileLoc))
      return nullptr;
  }
  for (const Constant &c : snapshot.constants)
    if (failed(importConstant(c)))
      return nullptr;
  for (auto [i, node] : llvm::enumerate(snapshot.nodes))
    if (failed(importNode(node, i)))
      return nullptr;
  if (snapshot.targets.empty()) {
    emitError(fileLoc) << "the snapshot has no targets (outputs)";
    return nullptr;
  }
  SmallVector<Value> results;
  for (const Target &t : snapshot.targets) {
    Value v = lookup(t.id);
    if (!v) {
      emitError(fileLoc) << "target '" << t.name << "' names tensor id " << t.id
                         << ", which nothing defines";
      return nullptr;
    }
    results.push_back(v);
  }
  func::ReturnOp::create(b, fileLoc, results);
  func.setFunctionType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, t] : llvm::enumerate(snapshot.targets))
    func.setResultAttr(i, "hodu.name", b.getStringAttr(t.name));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace

OwningOpRef<ModuleOp> hodu::importHdssModel(const std::string &path,
                                            MLIRContext &context,
                                            const ImportOptions &options) {
  Location loc = FileLineColLoc::get(&context, path, 0, 0);
  if (!options.sequenceLengths.empty()) {
    emitError(loc) << ".hdss inputs are tensors; --sequence-length does not "
                      "apply";
    return nullptr;
  }
  Snapshot snapshot;
  std::string error;
  if (!readSnapshotFile(path, snapshot, error)) {
    emitError(loc) << error;
    return nullptr;
  }
  // Snapshots have static shapes; --input-shape may only repeat them, with
  // '?' for the dims that are a symbol (the captured size is the chunk the
  // code is compiled for; docs/architecture.md, "Symbolic dims").
  std::map<std::string, std::vector<std::string>> symbolic;
  for (const auto &[name, dims] : options.inputShapes) {
    auto in = llvm::find_if(snapshot.inputs,
                            [&](const Input &i) { return i.name == name; });
    if (in == snapshot.inputs.end()) {
      emitError(loc) << "--input-shape names '" << name
                     << "', which is not an input of the snapshot";
      return nullptr;
    }
    bool same = dims.size() == in->shape.size();
    std::vector<std::string> names(dims.size());
    for (size_t d = 0; same && d < dims.size(); ++d) {
      if (dims[d] < 0) {
        std::string symbol = name + "_dim" + std::to_string(d);
        auto alias = options.symbolAliases.find(symbol);
        names[d] = alias == options.symbolAliases.end() ? symbol : alias->second;
      } else {
        same = (uint64_t)dims[d] == in->shape[d];
      }
    }
    if (!same) {
      emitError(loc) << ".hdss inputs have static shapes; --input-shape for '"
                     << name << "' may only repeat them, with '?' for a "
                        "symbolic dim";
      return nullptr;
    }
    symbolic[name] = names;
  }
  std::string stem = llvm::sys::path::stem(path).str();
  OwningOpRef<ModuleOp> module =
      SnapshotImporter(context, path, snapshot).run(stem);
  if (!module || symbolic.empty())
    return module;
  auto func = module->lookupSymbol<func::FuncOp>("main");
  Builder b(&context);
  for (unsigned i = 0; func && i < func.getNumArguments(); ++i) {
    auto name = func.getArgAttrOfType<StringAttr>(i, "hodu.name");
    auto it = name ? symbolic.find(name.str()) : symbolic.end();
    if (it == symbolic.end() ||
        llvm::all_of(it->second, [](const std::string &s) { return s.empty(); }))
      continue;
    SmallVector<Attribute> dims;
    for (const std::string &s : it->second)
      dims.push_back(b.getStringAttr(s));
    func.setArgAttr(i, "hodu.dims", b.getArrayAttr(dims));
  }
  return module;
}

OwningOpRef<ModuleOp> hodu::importHdssSnapshot(const Snapshot &snapshot,
                                               MLIRContext &context,
                                               const std::string &defaultName) {
  return SnapshotImporter(context, defaultName + ".hdss", snapshot)
      .run(defaultName);
}

void hodu::registerHdssImporter() {
  static bool done = [] {
    ComponentRegistry::get().addImporter(
        {"hdss", "upstream Hodu snapshots (postcard)", {".hdss"},
         [](const std::string &path, MLIRContext &ctx,
            const ImportOptions &options) {
           return importHdssModel(path, ctx, options);
         }});
    return true;
  }();
  (void)done;
}
