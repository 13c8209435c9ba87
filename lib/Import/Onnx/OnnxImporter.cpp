//===- OnnxImporter.cpp - ONNX model to the hodu dialect ------------------===//
//
// Reads a ModelProto, turns initializers into constants, the graph inputs into
// the arguments of `func.func @main` and every node, in order, into hodu ops
// (Onnx*Ops.cpp). Every op a conversion creates whose operands are all
// constants is evaluated right away (hodu::evaluate, the evaluator that
// hodu-fold-constants and the folders use, within importEvaluationLimits),
// so shape computations of any form become constants that later
// conversions read as attributes (Reshape's shape, Slice's starts, ...).
// Constants stay unmaterialized until an op reads them, so exporter-made
// Shape/Gather/Concat chains vanish.
//
// Bad input never crashes: every size, index and attribute is checked, and
// problems are MLIR errors located at the ONNX node (NameLoc of its name).
//
//===----------------------------------------------------------------------===//

#include "OnnxImporterImpl.h"
#include "OnnxOpsCommon.h"
#include "hodu/Support/DType.h"
#include "hodu/Support/Names.h"
#include "hodu/abi.h"

#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Import/Onnx.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

#include <cstdio>
#include <google/protobuf/io/coded_stream.h>

#include <cstring>
#include <functional>
#include <map>
#include <set>

using namespace mlir;
using namespace hodu;
using namespace hodu::onnx_import;

Type hodu::onnx_import::onnxElementType(MLIRContext &ctx, int dataType) {
  using TP = onnx::TensorProto;
  auto u = [&](unsigned w) {
    return IntegerType::get(&ctx, w, IntegerType::Unsigned);
  };
  switch (dataType) {
  case TP::FLOAT:
    return Float32Type::get(&ctx);
  case TP::DOUBLE:
    return Float64Type::get(&ctx);
  case TP::FLOAT16:
    return Float16Type::get(&ctx);
  case TP::BFLOAT16:
    return BFloat16Type::get(&ctx);
  case TP::BOOL:
    return IntegerType::get(&ctx, 1);
  case TP::INT8:
    return IntegerType::get(&ctx, 8);
  case TP::INT16:
    return IntegerType::get(&ctx, 16);
  case TP::INT32:
    return IntegerType::get(&ctx, 32);
  case TP::INT64:
    return IntegerType::get(&ctx, 64);
  case TP::UINT8:
    return u(8);
  case TP::UINT16:
    return u(16);
  case TP::UINT32:
    return u(32);
  case TP::UINT64:
    return u(64);
  default:
    return {};
  }
}

static int64_t elementBytes(Type elt) {
  return elt.isInteger(1) ? 1 : (int64_t)(elt.getIntOrFloatBitWidth() / 8);
}

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

ElementsAttr GraphImporter::constantOf(StringRef name) const {
  auto it = values.find(name);
  if (it == values.end())
    return {};
  const ValueEntry &e = it->second;
  if (e.constant)
    return e.constant;
  if (ElementsAttr c = getConstantValue(e.value))
    return c;
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

/// A resource key MLIR prints without quoting: [A-Za-z0-9_.].
static std::string resourceKey(StringRef name) {
  std::string key = "onnx_";
  for (char c : name)
    key += (llvm::isAlnum(c) || c == '_' || c == '.') ? c : '_';
  return key;
}

namespace {
/// The bytes of one tensor, owned or borrowed.
struct TensorBytes {
  std::string owned;
  std::unique_ptr<std::string> released; // raw_data taken from the proto
  std::unique_ptr<llvm::MemoryBuffer> mapped; // external data
  const char *data = nullptr;
  int64_t size = 0;
};
} // namespace

/// Collects the typed repeated field of `t` as little-endian bytes of `elt`.
template <typename Field, typename Conv>
static void packField(const Field &field, int64_t eltBytes, std::string &out,
                      Conv conv) {
  out.resize(field.size() * eltBytes);
  for (int i = 0; i < field.size(); ++i) {
    uint64_t bits = conv(field.Get(i));
    std::memcpy(&out[i * eltBytes], &bits, eltBytes);
  }
}

FailureOr<ElementsAttr> GraphImporter::decodeTensor(const onnx::TensorProto &t,
                                                    Location loc) {
  using TP = onnx::TensorProto;
  auto fail = [&]() {
    return emitError(loc) << "tensor '" << t.name() << "': ";
  };
  Type elt = onnxElementType(ctx, t.data_type());
  if (!elt)
    return fail() << "data type " << t.data_type()
                  << " (" << TP::DataType_Name((TP::DataType)t.data_type())
                  << ") has no hodu dtype";
  SmallVector<int64_t> shape;
  int64_t numel = 1;
  for (int64_t d : t.dims()) {
    if (d < 0)
      return fail() << "negative dimension " << d;
    if (d != 0 && numel > (int64_t(1) << 40) / d)
      return fail() << "too many elements";
    numel *= d;
    shape.push_back(d);
  }
  int64_t eltBytes = elementBytes(elt);
  int64_t nbytes = numel * eltBytes;
  auto type = RankedTensorType::get(shape, elt);
  bool small = nbytes <= kSmallTensorBytes || elt.isInteger(1);

  TensorBytes bytes;
  if (t.data_location() == TP::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto &kv : t.external_data()) {
      if (kv.key() == "location")
        location = kv.value();
      else if (kv.key() == "offset" || kv.key() == "length") {
        int64_t v;
        if (StringRef(kv.value()).getAsInteger(10, v) || v < 0)
          return fail() << "bad external data " << kv.key() << " '"
                        << kv.value() << "'";
        (kv.key() == "offset" ? offset : length) = v;
      }
    }
    if (location.empty())
      return fail() << "external data without a location";
    SmallString<256> file(llvm::sys::path::parent_path(modelPath));
    llvm::sys::path::append(file, location);
    // As ONNX Runtime does: external data stays inside the model's
    // directory. Absolute locations and '..' are refused as written, and an
    // existing file must resolve (symlinks followed) to a regular file under
    // the model's directory.
    bool escapes = llvm::sys::path::is_absolute(location) ||
                   llvm::sys::path::has_root_name(location);
    for (auto it = llvm::sys::path::begin(location),
              end = llvm::sys::path::end(location);
         it != end; ++it)
      escapes |= *it == "..";
    SmallString<256> realDir, realFile;
    StringRef dir = llvm::sys::path::parent_path(modelPath);
    if (!escapes && !llvm::sys::fs::real_path(file, realFile)) {
      if (llvm::sys::fs::real_path(dir.empty() ? "." : dir, realDir))
        return fail() << "cannot resolve the model's directory";
      llvm::sys::path::append(realDir, "");
      escapes = !StringRef(realFile).starts_with(realDir);
      if (!escapes && !llvm::sys::fs::is_regular_file(realFile))
        return fail() << "external data '" << location
                      << "' is not a regular file";
    }
    if (escapes)
      return fail() << "external data '" << location
                    << "' is outside the model's directory; refused";
    if (length < 0)
      length = nbytes;
    if (length != nbytes)
      return fail() << "external data length " << length << " does not match "
                    << nbytes << " bytes of " << numel << " elements";
    uint64_t fileSize = 0;
    if (!llvm::sys::fs::file_size(file, fileSize) &&
        (uint64_t)offset + (uint64_t)length > fileSize)
      return fail() << "external data file '" << file << "' has " << fileSize
                    << " bytes, too few for offset " << offset << " + length "
                    << length;
    auto fileOr = llvm::MemoryBuffer::getFileSlice(file, length, offset,
                                                   /*IsVolatile=*/false);
    if (!fileOr)
      return fail() << "cannot read external data '" << file << "' (offset "
                    << offset << ", length " << length
                    << "): " << fileOr.getError().message();
    if ((int64_t)(*fileOr)->getBufferSize() != length)
      return fail() << "external data file '" << file << "' is too short";
    // Keep the (usually mapped) file slice; a large tensor's blob takes it
    // over below without copying.
    bytes.mapped = std::move(*fileOr);
    bytes.data = bytes.mapped->getBufferStart();
    bytes.size = length;
  } else if (t.has_raw_data()) {
    if ((int64_t)t.raw_data().size() != nbytes)
      return fail() << "raw_data has " << t.raw_data().size()
                    << " bytes, expected " << nbytes << " for " << numel
                    << " elements";
    if (!small) {
      // Take the bytes over without a copy; the proto is ours.
      bytes.released.reset(const_cast<TP &>(t).release_raw_data());
      bytes.data = bytes.released->data();
    } else {
      bytes.data = t.raw_data().data();
    }
    bytes.size = nbytes;
  } else {
    int64_t count = -1;
    switch (t.data_type()) {
    case TP::FLOAT:
      count = t.float_data_size();
      packField(t.float_data(), 4, bytes.owned, [](float f) {
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return (uint64_t)b;
      });
      break;
    case TP::DOUBLE:
      count = t.double_data_size();
      packField(t.double_data(), 8, bytes.owned, [](double f) {
        uint64_t b;
        std::memcpy(&b, &f, 8);
        return b;
      });
      break;
    case TP::INT64:
      count = t.int64_data_size();
      packField(t.int64_data(), 8, bytes.owned,
                [](int64_t v) { return (uint64_t)v; });
      break;
    case TP::UINT32:
    case TP::UINT64:
      count = t.uint64_data_size();
      packField(t.uint64_data(), eltBytes, bytes.owned,
                [](uint64_t v) { return v; });
      break;
    default: // int32_data holds every narrower type, f16/bf16 as bits.
      count = t.int32_data_size();
      packField(t.int32_data(), eltBytes, bytes.owned,
                [](int32_t v) { return (uint64_t)(int64_t)v; });
      break;
    }
    if (count != numel)
      return fail() << "has " << count << " values, expected " << numel;
    bytes.data = bytes.owned.data();
    bytes.size = bytes.owned.size();
  }

  if (small) {
    // Dense i1 storage is bit-packed: bools go through a vector.
    if (elt.isInteger(1)) {
      SmallVector<bool> bools;
      for (int64_t i = 0; i < numel; ++i)
        bools.push_back(bytes.data[i] != 0);
      return ElementsAttr(DenseElementsAttr::get(type, bools));
    }
    return ElementsAttr(DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(bytes.data, bytes.size)));
  }

  // A resource blob. Bytes released from the proto are handed over as they
  // are when aligned; others are copied once into an aligned heap blob.
  constexpr size_t align = alignof(uint64_t);
  AsmResourceBlob blob;
  if (bytes.released &&
      reinterpret_cast<uintptr_t>(bytes.data) % align == 0) {
    std::string *s = bytes.released.release();
    blob = AsmResourceBlob(ArrayRef<char>(s->data(), s->size()), align,
                           [s](void *, size_t, size_t) { delete s; },
                           /*dataIsMutable=*/true);
  } else if (bytes.mapped &&
             reinterpret_cast<uintptr_t>(bytes.data) % align == 0) {
    llvm::MemoryBuffer *buf = bytes.mapped.release();
    blob = AsmResourceBlob(ArrayRef<char>(bytes.data, bytes.size), align,
                           [buf](void *, size_t, size_t) { delete buf; },
                           /*dataIsMutable=*/false);
  } else {
    blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(bytes.data, bytes.size), align);
  }
  return ElementsAttr(DenseResourceElementsAttr::get(
      type, resourceKey(t.name()), std::move(blob)));
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

LogicalResult NodeContext::checkAtRunTime(Value ok, const Twine &what) {
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
  AssertOp::create(
      b, loc, ok,
      b.getStringAttr("node '" + name + "' (" + type + "): " + what));
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

/// The static shape of graph input `name` (or of an element of a sequence
/// input, `seq[i]`) of tensor type `tt`: its pin from `--input-shape` (taken
/// out of `pins`), else its declared shape, which must be static.
static FailureOr<SmallVector<int64_t>>
inputShape(StringRef name, const onnx::TypeProto::Tensor &tt,
           llvm::StringMap<std::vector<int64_t>> &pins, Location loc) {
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
      if (d < 0 || (declared >= 0 && declared != d)) {
        emitError(loc) << "--input-shape for '" << name << "' sets dim " << i
                       << " to " << d << ", but the model fixes it to "
                       << declared;
        return failure();
      }
    }
    SmallVector<int64_t> dims(pin->second.begin(), pin->second.end());
    pins.erase(pin);
    return dims;
  }
  if (!tt.has_shape()) {
    emitError(loc) << "graph input '" << name
                   << "' has no shape; give one with --input-shape=" << name
                   << ":DIMS";
    return failure();
  }
  SmallVector<int64_t> suggestion;
  std::string firstDynamic;
  for (auto [i, d] : llvm::enumerate(tt.shape().dim())) {
    if (d.has_dim_value() && d.dim_value() >= 0) {
      suggestion.push_back(d.dim_value());
      continue;
    }
    suggestion.push_back(1);
    if (firstDynamic.empty())
      firstDynamic = "dim " + std::to_string(i) +
                     (d.has_dim_param() ? " ('" + d.dim_param() + "')"
                                        : std::string(" (unknown)"));
  }
  if (!firstDynamic.empty()) {
    emitError(loc) << "graph input '" << name << "' has a dynamic "
                   << firstDynamic
                   << "; pin its shape, e.g. --input-shape=" << name << ":"
                   << dimsString(suggestion);
    return failure();
  }
  return suggestion;
}

/// Import-time evaluation: every op that the conversion of `n` created (from
/// `first` on) whose operands are all constants becomes a constant
/// (hodu::foldToConstants), in order, so a chain of them folds whole. The
/// node's outputs that became constants are kept as values, and the
/// constants that nothing reads any more are erased.
static void evaluateNewOps(NodeContext &n, Operation *first) {
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

namespace {
/// The element types and static shapes a model declares for its values.
struct DeclaredTypes {
  std::map<std::string, int> types;
  std::map<std::string, SmallVector<int64_t>> shapes;
};
} // namespace

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

namespace {
/// Imports a graph's nodes, in order, into a block: the model's graph into
/// @main, an If branch into the block it is inlined in or into a region of
/// `hodu.if`. Holds what every node's checks read.
struct NodeLoop {
  GraphImporter &g;
  int64_t opset;
  const DeclaredTypes &declared;
  const std::map<std::string, SmallVector<int64_t>> &inferred;
  const std::map<std::string, int> &inferredTypes;
  /// Nodes imported so far, unrolled iterations included.
  int64_t imported = 0;
  /// How many subgraphs (If branches, Loop and Scan bodies) the nodes being
  /// imported are inside.
  unsigned subgraphLevel = 0;

  LogicalResult importNodes(const onnx::GraphProto &graph, Block *body,
                            unsigned depth);

private:
  /// The names defined now; after a subgraph, dropNamesOutside(them) ends
  /// the names the subgraph defined (its scope).
  llvm::StringSet<> definedNames() const;
  void dropNamesOutside(const llvm::StringSet<> &outer);
  /// The graph attribute `name` of node `n` (Loop's and Scan's body).
  FailureOr<const onnx::GraphProto *> graphAttr(NodeContext &n,
                                                StringRef name) const;
  /// A subgraph's initializers and nodes, at the builder's insertion point.
  LogicalResult importSubgraph(NodeContext &n, const onnx::GraphProto &graph,
                               unsigned depth);
  LogicalResult importIf(NodeContext &n, unsigned depth);
  /// A run-time If's output `i` as the branches give it (`a`, `b`): an
  /// error unless they are of one kind (tensor, sequence of one length,
  /// optional); an optional one branch leaves empty becomes zeros shaped
  /// like the other's.
  LogicalResult matchBranchOutputs(NodeContext &n, size_t i, ValueEntry &a,
                                   ValueEntry &b);
  /// For a run-time If's output that is a sequence in both branches: the
  /// layout of the run-time sequence both become, unless they are lists
  /// that match element by element (yielded as they are).
  FailureOr<std::optional<SequenceLayout>>
  branchJoin(NodeContext &n, const ValueEntry &a, const ValueEntry &b);
  /// The values an If yields for an output: an optional's flag first, then
  /// the tensor, the list's elements or the run-time sequence's tensors.
  void appendYielded(const ValueEntry &e, mlir::Location loc,
                     SmallVectorImpl<Value> &yielded);
  /// The entry an If's `results` from `next` on give for an output yielded
  /// like `like`.
  ValueEntry takeYielded(const ValueEntry &like, ValueRange results,
                         size_t &next);
  LogicalResult importScan(NodeContext &n, unsigned depth);
  LogicalResult importLoop(NodeContext &n, unsigned depth);
  /// SequenceMap: the body imported once per element, unrolled like a Loop
  /// (the sequences' length is known at import time).
  LogicalResult importSequenceMap(NodeContext &n, unsigned depth);
  /// A Loop whose iterations are known only at run time: `hodu.loop`, the
  /// body imported once into its region (loop-carried values only).
  LogicalResult importRuntimeLoop(NodeContext &n, const onnx::GraphProto &body,
                                  int64_t numCarried, int64_t numScanOut,
                                  unsigned depth);
  /// Imports one iteration of a Loop or Scan body at the builder's
  /// insertion point, its inputs bound to `inputs`; the entries of its
  /// outputs. The body's own names end with the iteration.
  FailureOr<SmallVector<ValueEntry>> importBody(NodeContext &n,
                                                const onnx::GraphProto &body,
                                                ArrayRef<ValueEntry> inputs,
                                                unsigned depth);
  /// `values` (one per iteration) stacked along a new `axis`, in reverse
  /// order if asked; node output `i` set to that.
  FailureOr<Value> stackValues(NodeContext &n, ArrayRef<ValueEntry> values,
                               int64_t axis, bool reverse);
  LogicalResult stackOutput(NodeContext &n, size_t i,
                            ArrayRef<ValueEntry> values, int64_t axis,
                            bool reverse);
  /// Runs `trips` iterations of a Scan body: `state` carried (the final
  /// state left in it), `scanned[j]` sliced along `axes[j]` (backwards
  /// where `dirs[j]`); each scan output's values, one per iteration.
  FailureOr<std::vector<SmallVector<ValueEntry>>>
  runScan(NodeContext &n, const onnx::GraphProto &body,
          SmallVector<ValueEntry> &state, ArrayRef<Value> scanned,
          ArrayRef<int64_t> axes, ArrayRef<int64_t> dirs, int64_t trips,
          int64_t numScanOut, unsigned depth);
  LogicalResult importScan8(NodeContext &n, const onnx::GraphProto &body,
                            int64_t m, unsigned depth);
  /// Imports `branch` (attribute `attrName` of If node `n`) at the builder's
  /// insertion point; its output names, checked to be defined.
  FailureOr<SmallVector<std::string>>
  importBranch(NodeContext &n, StringRef attrName,
               const onnx::GraphProto &branch, unsigned depth);
};
} // namespace

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
    evaluateNewOps(n, first);
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

/// ONNX Loop whose iterations are known at import time: the trip count (if
/// given) and the condition after every iteration must be import-time
/// constants. The body runs with the iteration number and the carried
/// values; the scan outputs are stacked along a new first axis.
LogicalResult NodeLoop::importLoop(NodeContext &n, unsigned depth) {
  TRY(bodyGraph, graphAttr(n, "body"));
  const onnx::GraphProto &body = *bodyGraph;
  int64_t numCarried = (int64_t)n.numInputs() - 2;
  if (numCarried < 0)
    return n.error("needs the inputs M and cond (either may be empty)");
  int64_t numScanOut = body.output_size() - 1 - numCarried;
  if (numScanOut < 0)
    return n.error("'body' has " + Twine(body.output_size()) +
                   " outputs; it needs the condition and " +
                   Twine(numCarried) + " carried values");
  // A trip count or an initial condition known only at run time: a
  // run-time loop.
  if ((n.hasInput(0) && !n.constantInput(0)) ||
      (n.hasInput(1) && !n.constantInput(1)))
    return importRuntimeLoop(n, body, numCarried, numScanOut, depth);
  int64_t trips = INT64_MAX;
  if (n.hasInput(0)) {
    TRY(m, n.constInts(0, "trip count"));
    if (m.size() != 1)
      return n.error("the trip count must have one element");
    trips = std::max<int64_t>(m[0], 0);
  }
  bool cond = true;
  if (n.hasInput(1)) {
    std::optional<ConstantView> c = n.constantInput(1);
    if (c->size() != 1)
      return n.error("the loop condition must have one element");
    cond = c->truth(0);
  }
  // More iterations than are unrolled: a run-time loop where its outputs
  // allow (no scan outputs).
  if (cond && trips > kMaxUnrolledIterations &&
      (numScanOut == 0 || trips <= kMaxScanBound))
    return importRuntimeLoop(n, body, numCarried, numScanOut, depth);
  // The loop is unrolled; if its condition turns out to be computed at run
  // time, what was unrolled is taken back (ops and the constants they
  // materialized) and the loop is built as a run-time loop.
  Block *block = g.builder.getInsertionBlock();
  bool atEnd = g.builder.getInsertionPoint() == block->end();
  Operation *before = block->empty() ? nullptr : &block->back();
  auto runtimeCondition = [&]() -> LogicalResult {
    if (!atEnd)
      return n.error("the loop condition is computed at run time inside a "
                     "construct Hodu cannot rebuild as a run-time loop here");
    SmallVector<Operation *> created;
    for (Operation *op = before ? before->getNextNode()
                                : (block->empty() ? nullptr : &block->front());
         op; op = op->getNextNode())
      created.push_back(op);
    llvm::SmallPtrSet<Operation *, 16> erased(created.begin(), created.end());
    for (auto &entry : g.values) {
      Value v = entry.getValue().value;
      if (v && v.getDefiningOp() && erased.contains(v.getDefiningOp()))
        entry.getValue().value = {};
    }
    for (Operation *op : llvm::reverse(created)) {
      op->dropAllUses();
      op->erase();
    }
    return importRuntimeLoop(n, body, numCarried, numScanOut, depth);
  };
  SmallVector<ValueEntry> carried;
  for (int64_t i = 0; i < numCarried; ++i) {
    if (!n.hasInput(2 + i))
      return n.error("carried input " + Twine(i) + " is missing");
    carried.push_back(g.values[n.node.input((int)(2 + i))]);
  }
  MLIRContext *ctx = &g.ctx;
  auto i64Scalar = RankedTensorType::get({}, IntegerType::get(ctx, 64));
  auto boolScalar = RankedTensorType::get({}, IntegerType::get(ctx, 1));
  std::vector<SmallVector<ValueEntry>> perIteration(numScanOut);
  for (int64_t i = 0; i < trips && cond; ++i) {
    if (i >= kMaxUnrolledIterations)
      return n.error("runs more than " + Twine(kMaxUnrolledIterations) +
                     " iterations; Hodu unrolls at most that many");
    SmallVector<ValueEntry> inputs(2);
    inputs[0].constant = DenseElementsAttr::get(i64Scalar, APInt(64, i));
    inputs[1].constant = DenseElementsAttr::get(boolScalar, true);
    inputs.append(carried.begin(), carried.end());
    TRY(outs, importBody(n, body, inputs, depth));
    ElementsAttr next = outs[0].constant ? outs[0].constant
                                         : getConstantValue(outs[0].value);
    std::optional<ConstantView> view = ConstantView::get(next);
    if (!view || view->size() != 1)
      return runtimeCondition();
    cond = view->truth(0);
    carried.assign(outs.begin() + 1, outs.begin() + 1 + numCarried);
    for (int64_t k = 0; k < numScanOut; ++k)
      perIteration[k].push_back(outs[1 + numCarried + k]);
  }
  for (int64_t i = 0; i < numCarried; ++i) {
    n.setOutput(i, carried[i]);
  }
  for (int64_t k = 0; k < numScanOut; ++k)
    if (n.hasOutput(numCarried + k) &&
        failed(stackOutput(n, numCarried + k, perIteration[k], 0, false)))
      return failure();
  return success();
}

/// What entry `e` holds, for messages: "a sequence of 2 element(s)", "an
/// optional holding tensor<2xf32>"; a tensor by its type (`withType`) or
/// as "a tensor".
static std::string describeEntry(const ValueEntry &e, bool withType) {
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

LogicalResult NodeLoop::importRuntimeLoop(NodeContext &n,
                                          const onnx::GraphProto &body,
                                          int64_t numCarried,
                                          int64_t numScanOut, unsigned depth) {
  // Scan outputs need the trip count at import time: each is computed at
  // that bound, [M, ...], with the number of iterations run as a count
  // along dim 0 (DataDependentDim).
  int64_t bound = 0;
  // Without a trip count known at import time, the scan outputs' declared
  // shapes give the bound, and a run-time check that the loop ran exactly
  // that many iterations (the run stops there at the latest).
  bool declaredBound = false;
  if (numScanOut > 0 && (!n.hasInput(0) || !n.constantInput(0))) {
    for (int64_t k = 0; k < numScanOut; ++k) {
      std::optional<SmallVector<int64_t>> shape =
          n.declaredShape(numCarried + k);
      if (!shape || shape->empty())
        continue;
      if (declaredBound && (*shape)[0] != bound)
        return n.error("the model declares scan outputs of " + Twine(bound) +
                       " and " + Twine((*shape)[0]) +
                       " rows; a loop's scan outputs have one row per "
                       "iteration");
      bound = (*shape)[0];
      declaredBound = true;
    }
  }
  if (declaredBound) {
    if (bound < 1 || bound > kMaxScanBound)
      return n.error("the loop's scan outputs are declared with " +
                     Twine(bound) + " rows, which must be 1 to " +
                     Twine(kMaxScanBound));
  } else if (numScanOut > 0) {
    if (!n.hasInput(0) || !n.constantInput(0))
      return n.error("the loop's iterations are known only at run time and "
                     "its trip count is not known at import time, so its " +
                     Twine(numScanOut) +
                     " scan output(s) have no bound to be "
                     "computed at (the model declares no static shape for "
                     "them); Hodu builds such loops with loop-carried "
                     "values only");
    TRY(m, n.constInts(0, "trip count"));
    if (m.size() != 1)
      return n.error("the trip count must have one element");
    bound = m[0];
    if (bound < 1 || bound > kMaxScanBound)
      return n.error("the loop's iterations are known only at run time, and "
                     "its scan outputs are computed at the bound of its trip "
                     "count, " +
                     Twine(m[0]) + ", which must be 1 to " +
                     Twine(kMaxScanBound));
  }
  if (depth >= kMaxSubgraphDepth)
    return n.error("subgraphs nest more than " + Twine(kMaxSubgraphDepth) +
                   " levels deep");
  MLIRContext *ctx = &g.ctx;
  OpBuilder &b = g.builder;
  Type i64 = IntegerType::get(ctx, 64), i1 = IntegerType::get(ctx, 1);
  auto i64Scalar = RankedTensorType::get({}, i64);
  auto boolScalar = RankedTensorType::get({}, i1);
  // M and cond as 0-d tensors; absent, INT64_MAX and true.
  auto scalar = [&](size_t i, RankedTensorType type, APInt absent,
                    StringRef what) -> FailureOr<Value> {
    if (!n.hasInput(i))
      return n.constant(DenseElementsAttr::get(type, absent));
    TRY(v, n.in(i));
    auto t = tensorType(v);
    if (t.getNumElements() != 1 || t.getElementType() != type.getElementType())
      return n.error(what);
    return n.reshape(v, {});
  };
  TRY(maxTrip, scalar(0, i64Scalar, APInt(64, INT64_MAX),
                      "the trip count must be one int64"));
  TRY(cond, scalar(1, boolScalar, APInt(1, 1), "the loop condition must be one bool"));
  Value requestedTrip = maxTrip;
  if (declaredBound) {
    TRY(capped,
        make<MinimumScalarOp>(n, maxTrip, n.scalarAttr(i64, (double)bound)));
    maxTrip = capped;
  }
  // Carried values as their entries: a tensor, an optional (its flag,
  // then its element), a sequence (a list's elements, or a run-time
  // sequence's three tensors). A body that changes a sequence's length or
  // its elements' shapes carries it as a run-time sequence: the loop is
  // built again with the initial sequence converted, until the layout
  // holds what the body gives.
  SmallVector<ValueEntry> carried;
  for (int64_t i = 0; i < numCarried; ++i) {
    if (!n.hasInput(2 + i))
      return n.error("carried input " + Twine(i) + " is missing");
    const ValueEntry &e = g.values.lookup(n.node.input((int)(2 + i)));
    if (!e.holdsValue())
      return n.error("carried value " + Twine(i) + " ('" +
                     n.node.input((int)(2 + i)) + "') " +
                     (e.hasElement ? "is an empty optional whose type has "
                                     "no static shape"
                                   : "is not defined"));
    if (e.dataDim)
      return n.error("carried value " + Twine(i) + " ('" +
                     n.node.input((int)(2 + i)) +
                     "'): " + e.dataDim->describe() +
                     "; a run-time loop carries values of static shape");
    carried.push_back(e);
  }
  auto knownTrue = std::make_shared<ValueEntry>();
  knownTrue->constant = DenseElementsAttr::get(boolScalar, APInt(1, 1));
  LoopOp loop;
  Block *block = nullptr;
  SmallVector<Value> inits;
  SmallVector<Type> types;
  SmallVector<RankedTensorType> scanTypes;
  // Outer constants materialized inside the body are unmaterialized again,
  // so that code after the loop (or the loop built again) creates its own.
  auto forgetBody = [&]() {
    for (auto &entry : g.values) {
      Value v = entry.getValue().value;
      if (v && entry.getValue().constant &&
          loop.getBody().isAncestor(v.getParentRegion()))
        entry.getValue().value = {};
    }
  };
  auto fail = [&]() {
    forgetBody();
    loop->erase();
    return failure();
  };
  auto describe = [](const ValueEntry &e) { return describeEntry(e, true); };
  for (int attempt = 0;; ++attempt) {
    inits.clear();
    types.clear();
    scanTypes.clear();
    for (const ValueEntry &e : carried)
      appendYielded(e, n.loc, inits);
    for (Value v : inits)
      types.push_back(v.getType());
    loop = LoopOp::create(b, n.loc, types, maxTrip, cond, inits);
    block = new Block();
    loop.getBody().push_back(block);
    SmallVector<ValueEntry> inputs(2);
    inputs[0].value = block->addArgument(i64Scalar, n.loc);
    inputs[1].value = block->addArgument(boolScalar, n.loc);
    SmallVector<Value> args;
    for (Type t : types)
      args.push_back(block->addArgument(t, n.loc));
    size_t next = 0;
    for (const ValueEntry &e : carried)
      inputs.push_back(takeYielded(e, args, next));
    // The sequences whose layout the body changes, with the layout that
    // holds both.
    SmallVector<std::pair<int64_t, SequenceLayout>> grow;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(block);
      auto outs = importBody(n, body, inputs, depth);
      if (failed(outs))
        return fail();
      if ((int64_t)outs->size() != 1 + numCarried + numScanOut) {
        (void)n.error("'body' gives " + Twine(outs->size()) +
                      " outputs; it "
                      "needs the condition, " +
                      Twine(numCarried) + " carried values and " +
                      Twine(numScanOut) + " scan outputs");
        return fail();
      }
      for (int64_t i = 0; i < numCarried; ++i) {
        ValueEntry &out = (*outs)[1 + i];
        // An optional carried on as its element (which ONNX allows) holds
        // one.
        if (carried[i].hasElement && !out.hasElement && out.holdsValue())
          out.hasElement = knownTrue;
        if (sameCarriedKind(carried[i], out))
          continue;
        if (carried[i].isSequence() && out.isSequence() &&
            !carried[i].hasElement == !out.hasElement && attempt < 4) {
          auto before = sequenceLayout(n, carried[i]);
          auto after = succeeded(before) ? sequenceLayout(n, out) : before;
          auto both =
              succeeded(after) ? joinLayouts(n, *before, *after) : after;
          if (failed(both))
            return fail();
          both->capacity = std::max(both->capacity, g.sequenceCapacity);
          grow.push_back({i, *both});
          continue;
        }
        (void)n.error("carried value " + Twine(i) + " is " +
                      describe(carried[i]) + " before the loop but " +
                      describe(out) +
                      " after an iteration; a run-time loop needs carried "
                      "values of one type (a sequence may change its length "
                      "and its elements' shapes)");
        return fail();
      }
      for (int64_t j = 0; j < numScanOut; ++j) {
        const ValueEntry &e = (*outs)[1 + numCarried + j];
        if (e.isSequence() || e.hasElement || e.dataDim) {
          (void)n.error("scan output " + Twine(j) + " is " + describe(e) +
                        "; scan outputs stack tensors of static shape");
          return fail();
        }
      }
      if (grow.empty()) {
        SmallVector<Value> yielded;
        for (const ValueEntry &e : *outs)
          appendYielded(e, n.loc, yielded);
        auto ct = dyn_cast<RankedTensorType>(yielded.front().getType());
        if (!ct || ct.getNumElements() != 1 ||
            !ct.getElementType().isInteger(1)) {
          (void)n.error("the body's condition output must be one bool");
          return fail();
        }
        size_t numCarriedValues = types.size();
        if (numScanOut == 0) {
          YieldOp::create(b, n.loc, yielded);
        } else {
          // Scan outputs: carried buffers [M, ...] that iteration i writes row
          // i of, and the count of iterations run (i + 1 after iteration i).
          Value iter = block->getArgument(0);
          SmallVector<Value> next(yielded.begin(),
                                  yielded.begin() + 1 + numCarriedValues);
          TRY(count, make<AddOp>(n, iter, n.constant(i64, 1.0)));
          next.push_back(count);
          block->addArgument(i64Scalar, n.loc);
          for (int64_t j = 0; j < numScanOut; ++j) {
            Value row = yielded[1 + numCarriedValues + j];
            auto rt = cast<RankedTensorType>(row.getType());
            SmallVector<int64_t> shape = {bound};
            llvm::append_range(shape, rt.getShape());
            auto bufType = RankedTensorType::get(shape, rt.getElementType());
            uint64_t bytes =
                (uint64_t)bufType.getNumElements() *
                std::max<uint64_t>(1, rt.getElementTypeBitWidth() / 8);
            if (bytes > kMaxScanBytes) {
              (void)n.error("scan output " + Twine(j) +
                            " would be computed at "
                            "its bound, " +
                            dimsString(shape) + ", " + Twine(bytes) +
                            " bytes; at most " + Twine(kMaxScanBytes));
              return fail();
            }
            Value buf = block->addArgument(bufType, n.loc);
            SmallVector<int64_t> one(shape.size(), 1), rowShape(shape);
            rowShape[0] = 1;
            Value at = BroadcastOp::create(b, n.loc,
                                           RankedTensorType::get(rowShape, i64),
                                           n.reshape(iter, one))
                           .getResult();
            TRY(written, make<ScatterOp>(n, buf, at, n.reshape(row, rowShape),
                                         int64_t(0)));
            next.push_back(written);
            scanTypes.push_back(bufType);
          }
          if (declaredBound) {
            // The condition the last iteration gave, for the check.
            block->addArgument(boolScalar, n.loc);
            next.push_back(n.reshape(yielded.front(), {}));
          }
          YieldOp::create(b, n.loc, next);
        }
        break;
      }
    }
    // Built again, the carried sequences converted before the loop.
    forgetBody();
    loop->erase();
    for (auto &[i, layout] : grow) {
      TRY(converted, toRuntimeSequence(n, carried[i], layout));
      carried[i] = converted;
    }
  }
  if (numScanOut > 0) {
    // The loop again, now that the buffers' types are known: the body
    // moves into it.
    SmallVector<Value> allInits(inits);
    SmallVector<Type> allTypes(types);
    allInits.push_back(n.constant(i64, 0.0));
    allTypes.push_back(i64Scalar);
    for (RankedTensorType t : scanTypes) {
      allInits.push_back(n.constant(DenseElementsAttr::get(
          t, cast<TypedAttr>(n.b.getZeroAttr(t.getElementType())))));
      allTypes.push_back(t);
    }
    if (declaredBound) {
      allInits.push_back(n.constant(DenseElementsAttr::get(boolScalar, true)));
      allTypes.push_back(boolScalar);
    }
    auto full = LoopOp::create(b, n.loc, allTypes, loop.getMaxTripCount(),
                               loop.getCondition(), allInits);
    full.getBody().takeBody(loop.getBody());
    loop->erase();
    loop = full;
  }
  forgetBody();
  size_t numCarriedValues = types.size(), next = 0;
  for (int64_t i = 0; i < numCarried; ++i)
    n.setOutput(i, takeYielded(carried[i], loop->getResults(), next));
  for (int64_t j = 0; j < numScanOut; ++j) {
    n.setOutput(numCarried + j, loop.getResult(numCarriedValues + 1 + j));
    if (!declaredBound)
      n.setDataDim(numCarried + j, 0, loop.getResult(numCarriedValues));
  }
  if (declaredBound) {
    // Exactly `bound` iterations: the count reached it, and the loop would
    // not have gone on (the trip count ends there, or the condition did).
    Value count = loop.getResult(numCarriedValues);
    Value lastCond = loop.getResult(numCarriedValues + 1 + numScanOut);
    TRY(reached, make<EqScalarOp>(n, count, n.scalarAttr(i64, (double)bound)));
    TRY(tripEnds,
        make<LeScalarOp>(n, requestedTrip, n.scalarAttr(i64, (double)bound)));
    TRY(condEnds, make<LogicalNotOp>(n, lastCond));
    TRY(ends, make<LogicalOrOp>(n, tripEnds, condEnds));
    TRY(ok, make<LogicalAndOp>(n, reached, ends));
    if (failed(n.checkAtRunTime(
            ok, "the loop must run the " + Twine(bound) +
                    " iterations its scan outputs are declared with")))
      return failure();
  }
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

/// ONNX If. A condition known at import time (constants, or shapes once
/// the inputs are pinned) inlines the branch taken, whose nodes are then
/// imported like any others (an If inside it is decided the same way). A
/// condition known only at run time becomes `hodu.if`, each branch imported
/// into its region; the branches must give the same types (a sequence
/// output, the same length: its elements are yielded one by one).
LogicalResult NodeLoop::importIf(NodeContext &n, unsigned depth) {
  if (depth >= kMaxSubgraphDepth)
    return n.error("subgraphs nest more than " + Twine(kMaxSubgraphDepth) +
                   " levels deep");
  const onnx::AttributeProto *thenAttr = n.attr("then_branch");
  const onnx::AttributeProto *elseAttr = n.attr("else_branch");
  if (!thenAttr || !thenAttr->has_g() || !elseAttr || !elseAttr->has_g())
    return n.error("needs the graph attributes 'then_branch' and "
                   "'else_branch'");
  RankedTensorType condType = n.type(0);
  if (!condType || !condType.getElementType().isInteger(1) ||
      !condType.hasStaticShape() || condType.getNumElements() != 1)
    return n.error("the condition must be a bool tensor of one element");

  if (std::optional<ConstantView> cond = n.constantInput(0)) {
    bool taken = cond->truth(0);
    StringRef attrName = taken ? "then_branch" : "else_branch";
    TRY(outputs, importBranch(n, attrName, (taken ? thenAttr : elseAttr)->g(),
                              depth + 1));
    for (auto [i, name] : llvm::enumerate(outputs)) {
      n.setOutput(i, g.values[name]);
    }
    return success();
  }

  TRY(cond, n.in(0));
  OpBuilder &b = g.builder;
  // The result types are known once both branches are imported: the
  // regions are built under a placeholder, then moved. Each branch's
  // outputs are kept as entries and yielded once both are known, so that
  // an optional one branch leaves empty takes the shape of the other's.
  auto placeholder = IfOp::create(b, n.loc, TypeRange{}, cond);
  std::vector<ValueEntry> outs[2];
  Block *blocks[2];
  for (int k = 0; k < 2; ++k) {
    StringRef attrName = k == 0 ? "then_branch" : "else_branch";
    Region &region = k == 0 ? placeholder.getThenRegion()
                            : placeholder.getElseRegion();
    blocks[k] = new Block();
    region.push_back(blocks[k]);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(blocks[k]);
    llvm::StringSet<> outer = definedNames();
    auto outputs = importBranch(n, attrName, (k == 0 ? thenAttr : elseAttr)->g(),
                                depth + 1);
    if (failed(outputs)) {
      placeholder->erase();
      return n.error("the condition is known only at run time, so both "
                     "branches are compiled, and '" + attrName +
                     "' cannot be for these input shapes; freeze the inputs "
                     "the condition depends on (hoduc --freeze-input=NAME=FILE) "
                     "to compile only the branch taken");
    }
    for (const std::string &name : *outputs)
      outs[k].push_back(g.values[name]);
    // The branch's own names end with it; outer names materialized inside
    // the region are unmaterialized again, so that code after the If
    // creates its own constant.
    dropNamesOutside(outer);
    for (auto &entry : g.values) {
      Value v = entry.getValue().value;
      if (v && entry.getValue().constant && region.isAncestor(v.getParentRegion()))
        entry.getValue().value = {};
    }
  }
  // Each output is yielded as its values: a tensor's, a sequence's
  // elements' (both branches must give it the same length), an optional's
  // flag and then its element's.
  SmallVector<Type> types[2];
  SmallVector<std::optional<SequenceLayout>> joins;
  for (size_t i = 0; i < outs[0].size(); ++i) {
    auto join = succeeded(matchBranchOutputs(n, i, outs[0][i], outs[1][i]))
                    ? branchJoin(n, outs[0][i], outs[1][i])
                    : FailureOr<std::optional<SequenceLayout>>(failure());
    if (failed(join)) {
      placeholder->erase();
      return failure();
    }
    joins.push_back(*join);
  }
  SmallVector<size_t> outputOf; // per yielded value, its output
  for (int k = 0; k < 2; ++k) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(blocks[k]);
    SmallVector<Value> yielded;
    // Sequences of different lengths or shapes become run-time sequences
    // of one layout.
    for (auto [i, join] : llvm::enumerate(joins)) {
      if (!join)
        continue;
      auto converted = toRuntimeSequence(n, outs[k][i], *join);
      if (failed(converted)) {
        placeholder->erase();
        return failure();
      }
      outs[k][i] = *converted;
    }
    for (auto [i, entry] : llvm::enumerate(outs[k])) {
      appendYielded(entry, n.loc, yielded);
      if (k == 0)
        outputOf.resize(yielded.size(), i);
    }
    YieldOp::create(b, n.loc, yielded);
    for (Value v : yielded)
      types[k].push_back(v.getType());
  }
  for (auto [i, pair] : llvm::enumerate(llvm::zip(types[0], types[1]))) {
    auto [thenType, elseType] = pair;
    if (thenType == elseType)
      continue;
    std::string t, e;
    llvm::raw_string_ostream(t) << thenType;
    llvm::raw_string_ostream(e) << elseType;
    placeholder->erase();
    return n.error(
        "output " + Twine(outputOf[i]) +
        (outs[0][outputOf[i]].isSequence() || outs[0][outputOf[i]].hasElement
             ? " has " + t + " in 'then_branch' but "
             : " is " + t + " in 'then_branch' but ") +
        e +
        " in 'else_branch'; a condition known only at run "
        "time needs branches of the same type");
  }
  auto ifOp = IfOp::create(b, n.loc, types[0], cond);
  ifOp.getThenRegion().takeBody(placeholder.getThenRegion());
  ifOp.getElseRegion().takeBody(placeholder.getElseRegion());
  placeholder->erase();
  size_t next = 0;
  for (auto [i, entry] : llvm::enumerate(outs[0]))
    n.setOutput(i, takeYielded(entry, ifOp->getResults(), next));
  return success();
}

/// Zeros shaped like `e`: an empty optional's element, where the other
/// branch of a run-time If decides its shape.
static ValueEntry zerosLike(const ValueEntry &e) {
  ValueEntry z;
  // (A run-time If joins the empty list with the other branch's sequence.)
  if (e.runtimeSequence) {
    z.sequence = std::make_shared<const std::vector<ValueEntry>>();
    return z;
  }
  if (e.sequence) {
    std::vector<ValueEntry> elements;
    for (const ValueEntry &element : *e.sequence)
      elements.push_back(zerosLike(element));
    z.sequence =
        std::make_shared<const std::vector<ValueEntry>>(std::move(elements));
    return z;
  }
  auto type = cast<RankedTensorType>(e.value ? e.value.getType()
                                             : Type(e.constant.getType()));
  z.constant = cast<ElementsAttr>(Builder(type.getContext()).getZeroAttr(type));
  return z;
}

/// Whether `e` is an optional known at import time to be empty.
static bool knownEmpty(const ValueEntry &e) {
  if (!e.hasElement || !e.hasElement->constant)
    return false;
  std::optional<ConstantView> flag = ConstantView::get(e.hasElement->constant);
  return flag && !flag->truth(0);
}

LogicalResult NodeLoop::matchBranchOutputs(NodeContext &n, size_t i,
                                           ValueEntry &a, ValueEntry &b) {
  auto describe = [](const ValueEntry &e) { return describeEntry(e, false); };
  auto mismatch = [&]() {
    return n.error("output " + Twine(i) + " is " + describe(a) +
                   " in 'then_branch' but " + describe(b) +
                   " in 'else_branch'; a condition known only at run time "
                   "needs branches of the same kind and length");
  };
  if (!a.hasElement != !b.hasElement)
    return mismatch();
  // (Sequences of either kind are of one kind: a run-time If joins them.)
  auto sameKind = [](const ValueEntry &x, const ValueEntry &y) {
    return x.isSequence() == y.isSequence() &&
           (!x.sequence || !y.sequence ||
            x.sequence->size() == y.sequence->size());
  };
  // An empty optional holds what the other branch's holds, as zeros.
  auto adopt = [&](ValueEntry &x, const ValueEntry &y) {
    if (!x.hasElement || !y.holdsValue() || !knownEmpty(x) ||
        (x.holdsValue() && sameKind(x, y)))
      return false;
    auto flag = x.hasElement;
    x = zerosLike(y);
    x.hasElement = flag;
    return true;
  };
  if (!adopt(a, b))
    adopt(b, a);
  if (!a.holdsValue() || !b.holdsValue())
    return n.error("output " + Twine(i) +
                   " is an empty optional in both branches, of a type "
                   "without a static shape");
  if (!a.isSequence() && !sameKind(a, b))
    return mismatch();
  return success();
}

FailureOr<std::optional<SequenceLayout>>
NodeLoop::branchJoin(NodeContext &n, const ValueEntry &a, const ValueEntry &b) {
  if (!a.isSequence() || !b.isSequence())
    return std::optional<SequenceLayout>();
  // Lists whose elements match one by one are yielded element by element.
  auto plain = [](const ValueEntry &e) {
    ValueEntry p = e;
    p.hasElement = nullptr;
    return p;
  };
  if (sameCarriedKind(plain(a), plain(b)) && !a.runtimeSequence)
    return std::optional<SequenceLayout>();
  TRY(la, sequenceLayout(n, a));
  TRY(lb, sequenceLayout(n, b));
  TRY(joined, joinLayouts(n, la, lb));
  return std::optional<SequenceLayout>(joined);
}

void NodeLoop::appendYielded(const ValueEntry &e, Location loc,
                             SmallVectorImpl<Value> &yielded) {
  if (e.hasElement)
    yielded.push_back(g.valueOf(*e.hasElement, loc));
  if (const auto &rs = e.runtimeSequence) {
    yielded.append({rs->data, rs->shapes, rs->length});
    return;
  }
  if (!e.sequence) {
    yielded.push_back(g.valueOf(e, loc));
    return;
  }
  for (const ValueEntry &element : *e.sequence)
    yielded.push_back(g.valueOf(element, loc));
}

ValueEntry NodeLoop::takeYielded(const ValueEntry &like, ValueRange results,
                                 size_t &next) {
  ValueEntry e;
  if (like.hasElement) {
    auto flag = std::make_shared<ValueEntry>();
    flag->value = results[next++];
    e.hasElement = flag;
  }
  if (like.runtimeSequence) {
    auto rs = std::make_shared<RuntimeSequence>();
    rs->data = results[next++];
    rs->shapes = results[next++];
    rs->length = results[next++];
    e.runtimeSequence = rs;
    return e;
  }
  if (!like.sequence) {
    e.value = results[next++];
    return e;
  }
  std::vector<ValueEntry> elements(like.sequence->size());
  for (ValueEntry &element : elements)
    element.value = results[next++];
  e.sequence =
      std::make_shared<const std::vector<ValueEntry>>(std::move(elements));
  return e;
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
  // Opsets 1-21 of the default domain are imported: up to 17 each node is
  // checked against libonnx's schema for the model's opset
  // (checkModelStructure), and the conversions apply the opset-specific rules
  // they know (18-21, which libonnx 1.12 does not know, by the ONNX
  // definitions: Reduce*'s axes input, Split's num_outputs, Resize's axes,
  // antialias and keep_aspect_ratio_policy, Pad's axes and wrap, AveragePool's
  // dilations, Gelu, QuantizeLinear's output_dtype and block_size). The
  // optimizers of ai.onnx.preview.training (version 1) import whatever the
  // default domain's opset; a default-domain node needs one.
  if ((declaresOpset && opset < 1) || opset > 21) {
    emitError(fileLoc) << "'" << path << "' uses opset " << opset
                       << " of the default ONNX domain; Hodu imports opsets "
                          "1 to 21";
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
            // had one version.
            int64_t version = -1;
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
      auto dims = inputShape(in.name(), *tt, pins, loc);
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
      auto dims = inputShape(element, *tt, pins, loc);
      if (failed(dims))
        return nullptr;
      argTypes.push_back(RankedTensorType::get(*dims, elt));
      argNames.push_back(element);
    }
    addPresent();
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
  func.setType(b.getFunctionType(argTypes, resultTypes));
  for (auto [i, name] : llvm::enumerate(resultNames))
    func.setResultAttr(i, "hodu.name", b.getStringAttr(name));
  return owned;
}

void hodu::registerOnnxImporter() {
  static bool done = [] {
    ComponentRegistry::get().addImporter(
        {"onnx", "ONNX models (opsets 1-21, default domain)", {".onnx"},
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
