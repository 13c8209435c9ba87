//===- Capture.cpp - the C++ capture API ----------------------------------===//
//
// A Board records an upstream Snapshot directly (inputs, constants, nodes with
// layouts), so save() is the .hdss writer and compile() goes through the same
// .hdss importer as any upstream file.
//
//===----------------------------------------------------------------------===//
#include "hodu/Capture/Capture.h"
#include "hodu/Driver/Compiler.h"
#include "hodu/Support/Names.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "hodu/Import/Hdss.h"
#include "hodu/runtime.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <map>

using namespace hodu::capture;
namespace hdss = hodu::hdss;

namespace {
enum class Kind { Input, Constant, Node };
struct Info {
  std::vector<int64_t> shape;
  DType dtype;
  Kind kind;
  size_t index; // into inputs / constants / nodes
};
std::vector<uint64_t> toU(const std::vector<int64_t> &v) {
  return std::vector<uint64_t>(v.begin(), v.end());
}
int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}
std::string shapeStr(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}
} // namespace

struct Board::Impl {
  std::string name;
  std::vector<Info> infos;
  std::vector<hdss::Input> inputs;
  std::vector<hdss::Constant> constants;
  std::vector<hdss::Node> nodes;
  std::vector<hdss::Target> targets;

  uint64_t add(std::vector<int64_t> shape, DType dtype, Kind kind,
               size_t index) {
    infos.push_back({std::move(shape), dtype, kind, index});
    return infos.size() - 1;
  }
};

namespace hodu {
namespace capture {
struct TensorAccess {
  static Board *board(const Tensor &t) { return t.board_; }
  static uint64_t id(const Tensor &t) { return t.id_; }
  static Tensor make(Board *b, uint64_t id) { return Tensor(b, id); }
};
} // namespace capture
} // namespace hodu

namespace {
Board::Impl &impl(const Tensor &t) {
  if (!t.valid())
    throw Error("use of an empty Tensor handle");
  return TensorAccess::board(t)->impl();
}
const Info &info(const Tensor &t) {
  return impl(t).infos[TensorAccess::id(t)];
}

/// Records a node and returns its output tensor.
Tensor record(const std::vector<Tensor> &ins, hdss::OpFamily family,
              uint32_t op, std::optional<hdss::OpParams> params,
              std::vector<int64_t> outShape, DType outDType,
              std::optional<hdss::Layout> outLayout = std::nullopt) {
  Board *board = TensorAccess::board(ins.at(0));
  Board::Impl &b = board->impl();
  hdss::Node node;
  node.op = {family, op};
  if (params) {
    node.hasParams = true;
    node.params = *params;
  }
  for (const Tensor &t : ins) {
    if (TensorAccess::board(t) != board)
      throw Error("tensors from different boards in one op");
    node.inputIds.push_back(TensorAccess::id(t));
    node.inputLayouts.push_back(hdss::Layout::contiguous(toU(info(t).shape)));
  }
  node.outputLayout =
      outLayout ? *outLayout : hdss::Layout::contiguous(toU(outShape));
  node.outputDType = hdss::DType(outDType);
  uint64_t id = b.add(outShape, outDType, Kind::Node, b.nodes.size());
  node.outputId = id;
  b.nodes.push_back(std::move(node));
  return TensorAccess::make(board, id);
}

hdss::OpParams makeParams(hdss::ParamsKind kind) {
  hdss::OpParams p;
  p.kind = kind;
  p.fields.assign(std::strlen(hdss::paramsSchema(kind)), hdss::Field());
  return p;
}

std::vector<int64_t> broadcastShape(const std::vector<int64_t> &a,
                                    const std::vector<int64_t> &b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error("shapes " + shapeStr(a) + " and " + shapeStr(b) +
                  " do not broadcast");
    out[i] = std::max(da, db);
  }
  return out;
}

Tensor binary(Tensor a, Tensor b, uint32_t op) {
  if (info(a).dtype != info(b).dtype)
    throw Error("binary op on different dtypes");
  std::vector<int64_t> shape = broadcastShape(info(a).shape, info(b).shape);
  if (info(a).shape != shape)
    a = broadcastTo(a, shape);
  if (info(b).shape != shape)
    b = broadcastTo(b, shape);
  return record({a, b}, hdss::OpFamily::Binary, op,
                makeParams(hdss::ParamsKind::Binary), shape, info(a).dtype);
}

Tensor unary(Tensor a, const char *name) {
  static std::map<std::string, uint32_t> index = [] {
    std::map<std::string, uint32_t> m;
    for (uint32_t i = 0; i < hdss::familySize(hdss::OpFamily::Unary); ++i)
      m[hdss::opName(hdss::OpFamily::Unary, i)] = i;
    return m;
  }();
  return record({a}, hdss::OpFamily::Unary, index.at(name),
                makeParams(hdss::ParamsKind::Unary), info(a).shape,
                info(a).dtype);
}

Tensor unaryScalar(Tensor a, uint32_t op, float s) {
  if (info(a).dtype != DType::F32)
    throw Error("tensor-scalar ops need an f32 tensor");
  hdss::OpParams p = makeParams(hdss::ParamsKind::UnaryScalar);
  p.fields[0].scalar = hdss::Scalar::ofF32(s);
  return record({a}, hdss::OpFamily::UnaryScalar, op, p, info(a).shape,
                info(a).dtype);
}

int64_t normDim(int64_t dim, int64_t rank) {
  int64_t d = dim < 0 ? dim + rank : dim;
  if (d < 0 || d >= rank)
    throw Error("dim " + std::to_string(dim) + " out of range for rank " +
                std::to_string(rank));
  return d;
}

Tensor reduce(Tensor a, uint32_t op, std::vector<int64_t> dims, bool keepDim) {
  const std::vector<int64_t> &in = info(a).shape;
  std::vector<bool> reduced(in.size(), false);
  hdss::OpParams p = makeParams(hdss::ParamsKind::Reduce);
  for (int64_t d : dims) {
    int64_t n = normDim(d, int64_t(in.size()));
    reduced[n] = true;
    p.fields[0].scalars.push_back(hdss::Scalar::ofI64(n));
  }
  p.fields[1].u = keepDim;
  std::vector<int64_t> out;
  for (size_t i = 0; i < in.size(); ++i)
    if (!reduced[i])
      out.push_back(in[i]);
    else if (keepDim)
      out.push_back(1);
  return record({a}, hdss::OpFamily::Reduce, op, p, out, info(a).dtype);
}
} // namespace

//===----------------------------------------------------------------------===//
// Tensor and Board
//===----------------------------------------------------------------------===//

const std::vector<int64_t> &Tensor::shape() const { return info(*this).shape; }
DType Tensor::dtype() const { return info(*this).dtype; }

Board::Board(std::string name) : impl_(std::make_unique<Impl>()) {
  impl_->name = std::move(name);
}
Board::~Board() = default;

Tensor Board::input(const std::string &name, std::vector<int64_t> shape,
                    DType dtype) {
  for (int64_t d : shape)
    if (d <= 0)
      throw Error("input '" + name + "' needs positive static dims");
  hdss::Input in;
  in.name = name;
  in.shape = toU(shape);
  in.dtype = hdss::DType(dtype);
  in.id = impl_->add(shape, dtype, Kind::Input, impl_->inputs.size());
  impl_->inputs.push_back(in);
  return Tensor(this, in.id);
}

template <typename T>
static Tensor makeConstant(Board *board, Board::Impl &b,
                           std::vector<int64_t> shape,
                           const std::vector<T> &data, DType dtype,
                           const std::string &name) {
  if (int64_t(data.size()) != numElements(shape))
    throw Error("constant of shape " + shapeStr(shape) + " needs " +
                std::to_string(numElements(shape)) + " values, got " +
                std::to_string(data.size()));
  hdss::Constant c;
  c.hasName = !name.empty();
  c.name = name;
  c.shape = toU(shape);
  c.dtype = hdss::DType(dtype);
  c.data.resize(data.size() * sizeof(T));
  std::memcpy(c.data.data(), data.data(), c.data.size());
  c.id = b.add(shape, dtype, Kind::Constant, b.constants.size());
  b.constants.push_back(std::move(c));
  return TensorAccess::make(board, b.infos.size() - 1);
}

Tensor Board::constant(std::vector<int64_t> shape,
                       const std::vector<float> &data,
                       const std::string &name) {
  return makeConstant(this, *impl_, shape, data, DType::F32, name);
}
Tensor Board::constant(std::vector<int64_t> shape,
                       const std::vector<int32_t> &data,
                       const std::string &name) {
  return makeConstant(this, *impl_, shape, data, DType::I32, name);
}

Board &Board::addTarget(const std::string &name, Tensor tensor) {
  if (TensorAccess::board(tensor) != this)
    throw Error("target '" + name + "' is a tensor of another board");
  impl_->targets.push_back({name, TensorAccess::id(tensor)});
  return *this;
}

Script Board::capture() const {
  const Impl &b = *impl_;
  if (b.targets.empty())
    throw Error("board '" + b.name + "' has no targets");
  // Dead-code elimination: walk back from the targets.
  std::vector<bool> live(b.infos.size(), false);
  for (const hdss::Target &t : b.targets)
    live[t.id] = true;
  for (size_t n = b.nodes.size(); n-- > 0;)
    if (live[b.nodes[n].outputId])
      for (uint64_t in : b.nodes[n].inputIds)
        live[in] = true;
  // Renumber: inputs (all of them: they are the model's signature), live
  // constants, live nodes.
  std::vector<uint64_t> newId(b.infos.size(), UINT64_MAX);
  uint64_t next = 0;
  hdss::Snapshot s;
  s.hasName = true;
  s.name = b.name;
  for (const hdss::Input &in : b.inputs) {
    newId[in.id] = next++;
    s.inputs.push_back(in);
    s.inputs.back().id = newId[in.id];
  }
  for (const hdss::Constant &c : b.constants)
    if (live[c.id]) {
      newId[c.id] = next++;
      s.constants.push_back(c);
      s.constants.back().id = newId[c.id];
    }
  for (const hdss::Node &n : b.nodes)
    if (live[n.outputId]) {
      newId[n.outputId] = next++;
      hdss::Node copy = n;
      copy.outputId = newId[n.outputId];
      for (uint64_t &in : copy.inputIds)
        in = newId[in];
      s.nodes.push_back(std::move(copy));
    }
  for (const hdss::Target &t : b.targets)
    s.targets.push_back({t.name, newId[t.id]});
  return Script(s);
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

namespace hodu {
namespace capture {
Tensor add(Tensor a, Tensor b) { return binary(a, b, 0); }
Tensor sub(Tensor a, Tensor b) { return binary(a, b, 1); }
Tensor mul(Tensor a, Tensor b) { return binary(a, b, 2); }
Tensor div(Tensor a, Tensor b) { return binary(a, b, 3); }
Tensor pow(Tensor a, Tensor b) { return binary(a, b, 5); }
Tensor maximum(Tensor a, Tensor b) { return binary(a, b, 6); }
Tensor minimum(Tensor a, Tensor b) { return binary(a, b, 7); }
Tensor operator+(Tensor a, Tensor b) { return add(a, b); }
Tensor operator-(Tensor a, Tensor b) { return sub(a, b); }
Tensor operator*(Tensor a, Tensor b) { return mul(a, b); }
Tensor operator/(Tensor a, Tensor b) { return div(a, b); }
Tensor operator-(Tensor a) { return neg(a); }
Tensor operator+(Tensor a, float s) { return unaryScalar(a, 0, s); }
Tensor operator-(Tensor a, float s) { return unaryScalar(a, 1, s); }
Tensor operator*(Tensor a, float s) { return unaryScalar(a, 2, s); }
Tensor operator/(Tensor a, float s) { return unaryScalar(a, 3, s); }
Tensor powScalar(Tensor a, float s) { return unaryScalar(a, 5, s); }
Tensor leakyRelu(Tensor a, float slope) { return unaryScalar(a, 8, slope); }

Tensor neg(Tensor a) { return unary(a, "neg"); }
Tensor abs(Tensor a) { return unary(a, "abs"); }
Tensor relu(Tensor a) { return unary(a, "relu"); }
Tensor sigmoid(Tensor a) { return unary(a, "sigmoid"); }
Tensor tanh(Tensor a) { return unary(a, "tanh"); }
Tensor gelu(Tensor a) { return unary(a, "gelu"); }
Tensor silu(Tensor a) { return unary(a, "silu"); }
Tensor exp(Tensor a) { return unary(a, "exp"); }
Tensor log(Tensor a) { return unary(a, "ln"); }
Tensor sqrt(Tensor a) { return unary(a, "sqrt"); }
Tensor square(Tensor a) { return unary(a, "square"); }
Tensor recip(Tensor a) { return unary(a, "recip"); }
Tensor sin(Tensor a) { return unary(a, "sin"); }
Tensor cos(Tensor a) { return unary(a, "cos"); }

Tensor matmul(Tensor a, Tensor b) {
  const auto &sa = info(a).shape, &sb = info(b).shape;
  if (sa.size() < 2 || sa.size() != sb.size())
    throw Error("matmul needs two tensors of one rank >= 2, got " +
                shapeStr(sa) + " and " + shapeStr(sb));
  size_t r = sa.size();
  if (sa[r - 1] != sb[r - 2] ||
      !std::equal(sa.begin(), sa.end() - 2, sb.begin()))
    throw Error("matmul shapes " + shapeStr(sa) + " and " + shapeStr(sb) +
                " do not match");
  std::vector<int64_t> out(sa.begin(), sa.end() - 1);
  out.push_back(sb[r - 1]);
  return record({a, b}, hdss::OpFamily::Matrix, 0,
                makeParams(hdss::ParamsKind::Matmul), out, info(a).dtype);
}

Tensor sum(Tensor a, std::vector<int64_t> d, bool k) { return reduce(a, 0, d, k); }
Tensor mean(Tensor a, std::vector<int64_t> d, bool k) { return reduce(a, 1, d, k); }
Tensor max(Tensor a, std::vector<int64_t> d, bool k) { return reduce(a, 2, d, k); }
Tensor min(Tensor a, std::vector<int64_t> d, bool k) { return reduce(a, 3, d, k); }

Tensor reshape(Tensor a, std::vector<int64_t> shape) {
  int64_t known = 1, unknown = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (unknown >= 0)
        throw Error("reshape: more than one -1");
      unknown = int64_t(i);
    } else {
      known *= shape[i];
    }
  }
  int64_t total = numElements(info(a).shape);
  if (unknown >= 0 && known > 0 && total % known == 0)
    shape[unknown] = total / known;
  if (numElements(shape) != total)
    throw Error("reshape from " + shapeStr(info(a).shape) + " to " +
                shapeStr(shape) + " changes the element count");
  return record({a}, hdss::OpFamily::Shape, 0,
                makeParams(hdss::ParamsKind::Reshape), shape, info(a).dtype);
}

Tensor transpose(Tensor a, std::vector<int64_t> perm) {
  const auto &in = info(a).shape;
  if (perm.size() != in.size())
    throw Error("transpose: the permutation needs one entry per dim");
  std::vector<bool> seen(in.size(), false);
  hdss::Layout inLayout = hdss::Layout::contiguous(toU(in)), out;
  std::vector<int64_t> shape;
  for (int64_t &p : perm) {
    p = normDim(p, int64_t(in.size()));
    if (seen[p])
      throw Error("transpose: not a permutation");
    seen[p] = true;
    shape.push_back(in[p]);
    out.shape.push_back(in[p]);
    out.strides.push_back(inLayout.strides[p]);
  }
  // The output layout is the strided view upstream records for Permute.
  return record({a}, hdss::OpFamily::Shape, 6,
                makeParams(hdss::ParamsKind::Permute), shape, info(a).dtype,
                out);
}

Tensor transpose(Tensor a) {
  int64_t r = a.rank();
  if (r < 2)
    throw Error("transpose needs rank >= 2");
  std::vector<int64_t> perm(r);
  for (int64_t i = 0; i < r; ++i)
    perm[i] = i;
  std::swap(perm[r - 1], perm[r - 2]);
  return transpose(a, perm);
}

Tensor broadcastTo(Tensor a, std::vector<int64_t> shape) {
  if (broadcastShape(info(a).shape, shape) != shape)
    throw Error("cannot broadcast " + shapeStr(info(a).shape) + " to " +
                shapeStr(shape));
  return record({a}, hdss::OpFamily::Shape, 4,
                makeParams(hdss::ParamsKind::Broadcast), shape, info(a).dtype);
}

Tensor concat(const std::vector<Tensor> &parts, int64_t dim) {
  if (parts.empty())
    throw Error("concat of nothing");
  std::vector<int64_t> shape = info(parts[0]).shape;
  int64_t d = normDim(dim, int64_t(shape.size()));
  for (size_t i = 1; i < parts.size(); ++i) {
    std::vector<int64_t> s = info(parts[i]).shape;
    if (s.size() != shape.size())
      throw Error("concat of tensors of different ranks");
    for (size_t j = 0; j < s.size(); ++j)
      if (int64_t(j) != d && s[j] != shape[j])
        throw Error("concat shapes differ outside dim " + std::to_string(d));
    shape[d] += s[d];
  }
  hdss::OpParams p = makeParams(hdss::ParamsKind::Concat);
  p.fields[0].scalar = hdss::Scalar::ofI64(d);
  return record(parts, hdss::OpFamily::Concat, 0, p, shape,
                info(parts[0]).dtype);
}

Tensor cast(Tensor a, DType dtype) {
  hdss::OpParams p = makeParams(hdss::ParamsKind::ToDType);
  p.fields[0].u = unsigned(dtype);
  return record({a}, hdss::OpFamily::Cast, 0, p, info(a).shape, dtype);
}

Tensor softmax(Tensor a, int64_t dim) {
  Tensor shifted = a - max(a, {dim}, true);
  Tensor e = exp(shifted);
  return e / sum(e, {dim}, true);
}
} // namespace capture
} // namespace hodu

//===----------------------------------------------------------------------===//
// Script
//===----------------------------------------------------------------------===//

Script::Script() : snapshot_(std::make_unique<hdss::Snapshot>()) {}
Script::Script(const hdss::Snapshot &s)
    : snapshot_(std::make_unique<hdss::Snapshot>(s)) {}
Script::Script(const Script &o)
    : snapshot_(std::make_unique<hdss::Snapshot>(*o.snapshot_)) {}
Script &Script::operator=(const Script &o) {
  *snapshot_ = *o.snapshot_;
  return *this;
}
Script::Script(Script &&) noexcept = default;
Script &Script::operator=(Script &&) noexcept = default;
Script::~Script() = default;

const std::string &Script::name() const { return snapshot_->name; }
const hdss::Snapshot &Script::snapshot() const { return *snapshot_; }

void Script::save(const std::string &path) const {
  if (llvm::sys::path::extension(path) != ".hdss")
    throw Error("Script::save: '" + path + "' needs the .hdss extension");
  std::string error;
  if (!hdss::writeSnapshotFile(path, *snapshot_, error))
    throw Error("Script::save: " + error);
}

Script Script::load(const std::string &path) {
  hdss::Snapshot s;
  std::string error;
  if (!hdss::readSnapshotFile(path, s, error))
    throw Error("Script::load: " + path + ": " + error);
  return Script(s);
}

namespace {
/// A temporary directory removed (with its files) on destruction.

} // namespace

/// Imports the script and compiles it as `options` say, into `bytes` when
/// given (Script::compileToMemory), else to options.outputPath.
static void compileScript(const hdss::Snapshot &snapshot,
                          const std::string &name,
                          const CompileOptions &options,
                          std::vector<uint8_t> *bytes) {
  // The pipelines' passes must be registered, as hoduc's main() does them.
  hodu::registerAllCompilerPasses();
  mlir::DialectRegistry registry;
  hodu::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(diagnostics);
    os << d.getLocation() << ": " << d << "\n";
    return mlir::success();
  });
  // In memory: the snapshot is imported straight into the hodu dialect.
  std::string id = hodu::cIdentifier(name);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      hodu::importHdssSnapshot(snapshot, context, id);
  hodu::CompileOptions opts;
  // Symbolic dims: `hodu.dims` on the inputs, bounds as hoduc --dim's.
  if (module)
    if (auto f = module->lookupSymbol<mlir::func::FuncOp>("main"))
      for (const auto &d : options.symbolicDims) {
        int arg = -1;
        for (unsigned i = 0; i < f.getNumArguments(); ++i)
          if (auto n = f.getArgAttrOfType<mlir::StringAttr>(i, "hodu.name"))
            if (n.getValue() == d.input)
              arg = (int)i;
        auto type = arg < 0 ? mlir::RankedTensorType()
                            : mlir::dyn_cast<mlir::RankedTensorType>(
                                  f.getArgumentTypes()[arg]);
        if (!type || d.dim < 0 || d.dim >= type.getRank() || d.symbol.empty())
          throw Error("Script::compile: symbolic dim " + std::to_string(d.dim) +
                      " of '" + d.input + "': no such input or dim");
        llvm::SmallVector<mlir::Attribute> dims;
        if (auto old = f.getArgAttrOfType<mlir::ArrayAttr>(arg, "hodu.dims"))
          dims.assign(old.begin(), old.end());
        else
          dims.assign(type.getRank(), mlir::StringAttr::get(&context, ""));
        dims[d.dim] = mlir::StringAttr::get(&context, d.symbol);
        f.setArgAttr(arg, "hodu.dims", mlir::ArrayAttr::get(&context, dims));
        if (llvm::none_of(opts.dims, [&](const hodu::DimSpec &s) {
              return s.name == d.symbol;
            })) {
          hodu::DimSpec spec;
          spec.name = d.symbol;
          spec.min = d.min;
          spec.max = d.max;
          opts.dims.push_back(spec);
        }
      }
  opts.inputPath = id + ".hdss"; // names the model in messages only
  opts.outputPath = options.outputPath;
  opts.targetOptions.optLevel = options.optLevel;
  opts.name = options.name.empty() ? id : options.name;
  opts.headerPath = options.headerPath;
  opts.target = options.device;
  opts.metaSlots = options.metaSlots;
  if (bytes) {
    if (!options.outputPath.empty() || !options.headerPath.empty())
      throw Error("Script::compileToMemory: no outputPath or headerPath");
    if (!module || !hodu::compileToMemory(*module, opts, *bytes))
      throw Error("Script::compileToMemory failed:\n" + diagnostics);
    return;
  }
  std::string error;
  if (!hodu::resolveOutput(opts, error))
    throw Error("Script::compile: " + error);
  if (!module || !hodu::compile(*module, opts))
    throw Error("Script::compile failed:\n" + diagnostics);
}

void Script::compile(const CompileOptions &options) const {
  compileScript(*snapshot_, name(), options, nullptr);
}

std::vector<uint8_t>
Script::compileToMemory(const CompileOptions &options) const {
  std::vector<uint8_t> bytes;
  compileScript(*snapshot_, name(), options, &bytes);
  return bytes;
}

std::vector<std::vector<float>>
Script::run(const std::vector<std::vector<float>> &inputs) const {
  const hdss::Snapshot &s = *snapshot_;
  if (inputs.size() != s.inputs.size())
    throw Error("Script::run: the model takes " +
                std::to_string(s.inputs.size()) + " inputs, got " +
                std::to_string(inputs.size()));
  // Compiled and loaded in memory: no file of the caller's is written.
  std::vector<uint8_t> library = compileToMemory(CompileOptions{});
  hodu_model *model = nullptr;
  if (hodu_status st = hodu_model_load_memory(
          library.data(), library.size(), name().c_str(), nullptr, &model)) {
    std::string msg = hodu_status_message(st);
    hodu_status_free(st);
    throw Error("Script::run: " + msg);
  }
  std::unique_ptr<hodu_model, void (*)(hodu_model *)> guard(model,
                                                             hodu_model_free);
  const hodu_model_desc *desc = hodu_model_descriptor(model);
  auto count = [](const hodu_tensor_desc &t) {
    int64_t n = 1;
    for (int32_t i = 0; i < t.rank; ++i)
      n *= t.shape[i];
    return n;
  };
  std::vector<void *> in, out;
  for (int32_t i = 0; i < desc->num_inputs; ++i) {
    if (desc->inputs[i].dtype != HODU_DTYPE_F32)
      throw Error("Script::run handles f32 inputs only");
    if (int64_t(inputs[i].size()) != count(desc->inputs[i]))
      throw Error("Script::run: input '" + std::string(desc->inputs[i].name) +
                  "' needs " + std::to_string(count(desc->inputs[i])) +
                  " values, got " + std::to_string(inputs[i].size()));
    in.push_back(const_cast<float *>(inputs[i].data()));
  }
  std::vector<std::vector<float>> results(desc->num_outputs);
  for (int32_t i = 0; i < desc->num_outputs; ++i) {
    if (desc->outputs[i].dtype != HODU_DTYPE_F32)
      throw Error("Script::run handles f32 outputs only");
    results[i].resize(count(desc->outputs[i]));
    out.push_back(results[i].data());
  }
  if (desc->entry(in.data(), out.data(), nullptr) != 0)
    throw Error("Script::run: the model failed");
  return results;
}
