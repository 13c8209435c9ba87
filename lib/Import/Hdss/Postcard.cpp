//===- Postcard.cpp - .hdss reader and writer -----------------------------===//
//
// postcard encoding of upstream Hodu's Snapshot (docs/hdss.md):
//   unsigned ints (u16..u64, usize): LEB128 varint; signed: zigzag varint;
//   u8/i8/bool: one raw byte; f32/f64: raw little-endian;
//   String/Vec/SmallVec: varint length then the items; Option: 0/1 byte then
//   the value; enums: varint variant index then the fields; structs: fields
//   in order; unit structs: nothing.
//
//===----------------------------------------------------------------------===//
#include "hodu/Import/Hdss.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "hodu/Support/DType.h"

using namespace hodu::hdss;

//===----------------------------------------------------------------------===//
// Names and schemas
//===----------------------------------------------------------------------===//

// The snapshot format numbers dtypes as the artifact ABI does (upstream
// Hodu's DType): names and sizes come from abi.h's one table.
static_assert(kNumDTypes == HODU_DTYPE_COUNT, "hdss::DType is hodu_dtype");

const char *hodu::hdss::dtypeName(DType dtype) {
  return hodu::dtypeName(static_cast<int32_t>(dtype));
}

unsigned hodu::hdss::dtypeSize(DType dtype) {
  switch (static_cast<int32_t>(dtype)) {
#define HODU_DTYPE_SIZE_(id, value, name, size, storage)                       \
  case value:                                                                  \
    return size;
    HODU_DTYPE_LIST(HODU_DTYPE_SIZE_)
#undef HODU_DTYPE_SIZE_
  default:
    return 1;
  }
}

bool Scalar::isFloat() const {
  switch (dtype) {
  case DType::F8E4M3: case DType::F8E5M2: case DType::BF16: case DType::F16:
  case DType::F32: case DType::F64:
    return true;
  default:
    return false;
  }
}

Layout Layout::contiguous(std::vector<uint64_t> shape) {
  Layout layout;
  layout.strides.assign(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    layout.strides[i - 1] = layout.strides[i] * shape[i];
  layout.shape = std::move(shape);
  return layout;
}

namespace {
const std::vector<std::vector<const char *>> &opNames() {
  static const std::vector<std::vector<const char *>> names = {
      {"add", "sub", "mul", "div", "rem", "pow", "maximum", "minimum"},
      {"logical_and", "logical_or", "logical_xor"},
      {"eq", "ne", "lt", "le", "gt", "ge"},
      {"eq_scalar", "ne_scalar", "lt_scalar", "le_scalar", "gt_scalar",
       "ge_scalar"},
      {"neg",   "abs",   "sign",  "softsign", "square",    "sqrt",  "recip",
       "relu",  "sigmoid", "hardsigmoid", "gelu", "softplus", "silu",
       "hardsilu", "mish", "selu", "celu", "sin", "cos", "tan", "asin", "acos",
       "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
       "exp2", "exp10", "ln", "log2", "log10", "ceil", "floor", "round", "erf"},
      {"logical_not", "isnan", "isinf", "isfinite"},
      {"add_scalar", "sub_scalar", "mul_scalar", "div_scalar", "rem_scalar",
       "pow_scalar", "maximum_scalar", "minimum_scalar", "leaky_relu", "elu",
       "prelu"},
      {"matmul", "dot"},
      {"det", "inv", "trace"},
      {"sum", "mean", "max", "min", "prod", "std", "var", "norm", "logsum",
       "logsumexp", "argmax", "argmin", "any", "all"},
      {"concat"},
      {"split"},
      {"index_select", "index_put", "gather", "scatter", "scatter_add",
       "scatter_max", "scatter_min", "onehot", "nonzero", "unique"},
      {"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
       "conv_transpose3d", "conv1d_grad_weight", "conv2d_grad_weight",
       "conv3d_grad_weight", "conv_transpose1d_grad_weight",
       "conv_transpose2d_grad_weight", "conv_transpose3d_grad_weight"},
      {"reduce_window_max", "reduce_window_mean", "reduce_window_sum",
       "reduce_window_min"},
      {"resize"},
      {"pad_constant", "pad_reflect", "pad_replicate", "pad_circular"},
      {"cumsum"},
      {"topk"},
      {"einsum"},
      {"reshape", "flatten", "squeeze", "unsqueeze", "broadcast", "transpose",
       "permute"},
      {"slice"},
      {"flip"},
      {"to_dtype"},
      {"contiguous"},
      {}, // Dummy: a unit variant
  };
  return names;
}

struct ParamsInfo {
  const char *name;
  const char *schema;
};
const ParamsInfo paramsInfo[kNumParamsKinds] = {
    {"Binary", ""}, {"BinaryLogical", ""}, {"Cmp", ""}, {"CmpScalar", "S"},
    {"Unary", ""}, {"UnaryLogical", ""}, {"UnaryScalar", "S"},
    {"Matmul", ""}, {"Dot", ""}, {"Reduce", "Vb"}, {"Concat", "S"},
    {"Split", "SVu"}, {"IndexSelect", "S"}, {"IndexPut", "S"},
    {"Gather", "S"}, {"Scatter", "S"}, {"ScatterAdd", "S"},
    {"ScatterMax", "S"}, {"ScatterMin", "S"}, {"Onehoto", "SSd"},
    {"Nonzero", "o"}, {"Unique", "uuo"},
    {"Conv1d", "uuuuuuuu"}, {"Conv2d", "uuuuuuuuuu"},
    {"Conv3d", "uuuuuuuuuuuu"}, {"ConvTranspose1d", "uuuuuuuuu"},
    {"ConvTranspose2d", "uuuuuuuuuuu"}, {"ConvTranspose3d", "uuuuuuuuuuuuu"},
    {"Conv1dGradWeight", "uuuuuu"}, {"Conv2dGradWeight", "uuuuuuu"},
    {"Conv3dGradWeight", "uuuuuuuu"}, {"ConvTranspose1dGradWeight", "uuuuuu"},
    {"ConvTranspose2dGradWeight", "uuuuuuu"},
    {"ConvTranspose3dGradWeight", "uuuuuuuu"},
    {"ReduceWindow", "UUPU"}, {"Padding", "PS"}, {"Scan", "u"},
    {"TopK", "uibbu"}, {"Einsum", "sCcc"}, {"Resize", "Ueee"},
    {"Reshape", ""}, {"Flatten", ""}, {"Squeeze", ""}, {"Unsqueeze", ""},
    {"Broadcast", ""}, {"Transpose", ""}, {"Permute", ""}, {"Flip", "U"},
    {"Slice", "SSSS"}, {"ToDType", "d"}, {"ToDevice", ""},
    {"Contiguous", ""}, {"Set", ""},
};
} // namespace

unsigned hodu::hdss::familySize(OpFamily family) {
  unsigned f = unsigned(family);
  return f < kNumOpFamilies ? opNames()[f].size() : 0;
}

std::string hodu::hdss::opName(OpFamily family, uint32_t op) {
  unsigned f = unsigned(family);
  if (family == OpFamily::Dummy)
    return "dummy";
  if (f >= kNumOpFamilies || op >= opNames()[f].size())
    return "?";
  return opNames()[f][op];
}

const char *hodu::hdss::paramsKindName(ParamsKind kind) {
  unsigned k = unsigned(kind);
  return k < kNumParamsKinds ? paramsInfo[k].name : "?";
}

const char *hodu::hdss::paramsSchema(ParamsKind kind) {
  unsigned k = unsigned(kind);
  return k < kNumParamsKinds ? paramsInfo[k].schema : "";
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

namespace {
class Reader {
public:
  Reader(const uint8_t *data, size_t size) : data(data), size(size) {}

  bool failed() const { return !error.empty(); }
  std::string error;
  size_t pos = 0;

  bool fail(const std::string &what) {
    if (error.empty())
      error = "malformed .hdss at byte " + std::to_string(pos) + ": " + what;
    return false;
  }

  bool byte(uint8_t &out, const char *what) {
    if (pos >= size)
      return fail(std::string("truncated file while reading ") + what);
    out = data[pos++];
    return true;
  }

  bool varint(uint64_t &out, const char *what) {
    out = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
      uint8_t b;
      if (!byte(b, what))
        return false;
      if (shift == 63 && (b & 0x7e))
        return fail(std::string("varint overflows 64 bits in ") + what);
      out |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    return fail(std::string("varint longer than 10 bytes in ") + what);
  }

  bool zigzag(int64_t &out, const char *what) {
    uint64_t u;
    if (!varint(u, what))
      return false;
    out = int64_t(u >> 1) ^ -int64_t(u & 1);
    return true;
  }

  /// A length prefix; each item takes at least `minItemBytes` bytes, so a
  /// length the rest of the file cannot hold is rejected before allocating.
  bool length(uint64_t &n, const char *what, size_t minItemBytes = 1) {
    if (!varint(n, what))
      return false;
    if (minItemBytes && n > (size - pos) / minItemBytes)
      return fail(std::string("length ") + std::to_string(n) + " of " + what +
                  " exceeds the " + std::to_string(size - pos) +
                  " bytes left");
    return true;
  }

  /// A byte that must be 0 or 1: a bool, or the tag of an Option (`kind`
  /// names which in the error).
  bool zeroOrOne(bool &out, const char *kind, const char *what) {
    uint8_t b;
    if (!byte(b, what))
      return false;
    if (b > 1)
      return fail(std::string("bad ") + kind + " " + std::to_string(b) +
                  " in " + what);
    out = b;
    return true;
  }
  bool boolean(bool &out, const char *what) {
    return zeroOrOne(out, "bool", what);
  }
  bool option(bool &present, const char *what) {
    return zeroOrOne(present, "Option tag", what);
  }

  /// A length-prefixed sequence, each item read by `item` and taking at least
  /// `minItemBytes` bytes (see length()).
  template <typename T, typename ReadItem>
  bool sequence(std::vector<T> &out, const char *what, size_t minItemBytes,
                ReadItem item) {
    uint64_t n;
    if (!length(n, what, minItemBytes))
      return false;
    out.resize(n);
    for (T &v : out)
      if (!item(v))
        return false;
    return true;
  }

  bool string(std::string &out, const char *what) {
    uint64_t n;
    if (!length(n, what))
      return false;
    out.assign(reinterpret_cast<const char *>(data + pos), n);
    pos += n;
    return true;
  }

  bool raw(void *out, size_t n, const char *what) {
    if (size - pos < n)
      return fail(std::string("truncated file while reading ") + what);
    std::memcpy(out, data + pos, n);
    pos += n;
    return true;
  }

  bool dtype(DType &out, const char *what) {
    uint8_t b;
    if (!byte(b, what))
      return false;
    if (b >= kNumDTypes)
      return fail(std::string("bad DType ") + std::to_string(b) + " in " + what);
    out = DType(b);
    return true;
  }

  bool usizes(std::vector<uint64_t> &out, const char *what) {
    return sequence(out, what, 1, [&](uint64_t &v) { return varint(v, what); });
  }

  bool scalar(Scalar &out, const char *what) {
    uint64_t tag;
    if (!varint(tag, what))
      return false;
    if (tag >= kNumDTypes)
      return fail("bad Scalar variant " + std::to_string(tag) + " in " + what);
    out = Scalar();
    out.dtype = DType(tag);
    switch (out.dtype) {
    case DType::Bool: {
      bool b;
      if (!boolean(b, what))
        return false;
      out.i = b;
      return true;
    }
    case DType::F8E4M3: case DType::F8E5M2: case DType::BF16: case DType::F16:
    case DType::F32: {
      // Upstream writes the narrow floats through f32 (serialize_with).
      float v;
      if (!raw(&v, 4, what))
        return false;
      out.f = v;
      return true;
    }
    case DType::F64:
      return raw(&out.f, 8, what);
    case DType::U8: case DType::I8: {
      uint8_t b;
      if (!byte(b, what))
        return false;
      out.i = out.dtype == DType::I8 ? int64_t(int8_t(b)) : int64_t(b);
      return true;
    }
    case DType::U16: case DType::U32: case DType::U64: {
      uint64_t u;
      if (!varint(u, what))
        return false;
      out.i = int64_t(u);
      return true;
    }
    default:
      return zigzag(out.i, what);
    }
  }

  bool scalars(std::vector<Scalar> &out, const char *what) {
    return sequence(out, what, 2, [&](Scalar &s) { return scalar(s, what); });
  }

  bool character(uint64_t &out, const char *what) {
    // serde writes a char as a UTF-8 string.
    std::string s;
    if (!string(s, what))
      return false;
    if (s.empty() || s.size() > 4)
      return fail(std::string("bad char in ") + what);
    out = 0;
    for (unsigned char ch : s)
      out = (out << 8) | ch; // kept as its UTF-8 bytes; round-trips exactly
    return true;
  }

  bool chars(std::vector<uint64_t> &out, const char *what) {
    return sequence(out, what, 2,
                    [&](uint64_t &c) { return character(c, what); });
  }

  bool field(char kind, Field &f, const char *what) {
    switch (kind) {
    case 'S': return scalar(f.scalar, what);
    case 'V': return scalars(f.scalars, what);
    case 'u': return varint(f.u, what);
    case 'e': return varint(f.u, what);
    case 'i': return zigzag(f.i, what);
    case 'b': {
      bool b;
      if (!boolean(b, what))
        return false;
      f.u = b;
      return true;
    }
    case 'd': {
      DType d;
      if (!dtype(d, what))
        return false;
      f.u = unsigned(d);
      return true;
    }
    case 'o':
      if (!option(f.present, what))
        return false;
      return !f.present || varint(f.u, what);
    case 'U': return usizes(f.list, what);
    case 'P': {
      uint64_t n;
      if (!length(n, what, 2))
        return false;
      f.list.resize(2 * n);
      for (auto &v : f.list)
        if (!varint(v, what))
          return false;
      return true;
    }
    case 's': return string(f.str, what);
    case 'c': return chars(f.list, what);
    case 'C':
      return sequence(f.lists, what, 1, [&](std::vector<uint64_t> &l) {
        return chars(l, what);
      });
    }
    return fail("internal: bad schema letter");
  }

  /// The variant tag of enum `type`, which has `count` variants.
  bool variant(uint64_t &tag, const char *type, uint64_t count) {
    if (!varint(tag, type))
      return false;
    if (tag >= count)
      return fail(std::string("bad ") + type + " variant " +
                  std::to_string(tag) + " (known: 0-" +
                  std::to_string(count - 1) + ")");
    return true;
  }

  bool params(OpParams &out) {
    uint64_t tag;
    if (!variant(tag, "OpParams", kNumParamsKinds))
      return false;
    out.kind = ParamsKind(tag);
    const char *schema = paramsSchema(out.kind);
    out.fields.assign(std::strlen(schema), Field());
    std::string what = std::string(paramsKindName(out.kind)) + " params";
    for (size_t i = 0; schema[i]; ++i)
      if (!field(schema[i], out.fields[i], what.c_str()))
        return false;
    return true;
  }

  bool layout(Layout &out, const char *what) {
    return usizes(out.shape, what) && usizes(out.strides, what) &&
           varint(out.offset, what);
  }

  bool op(Op &out) {
    uint64_t family;
    if (!variant(family, "Op", kNumOpFamilies))
      return false;
    out.family = OpFamily(family);
    out.op = 0;
    if (out.family == OpFamily::Dummy)
      return true;
    uint64_t inner;
    if (!varint(inner, "Op"))
      return false;
    if (inner >= familySize(out.family))
      return fail("bad op " + std::to_string(inner) + " in Op family " +
                  std::to_string(family) + " (it has " +
                  std::to_string(familySize(out.family)) + ")");
    out.op = uint32_t(inner);
    return true;
  }

  bool input(Input &in) {
    return string(in.name, "input name") && varint(in.id, "input id") &&
           usizes(in.shape, "input shape") && dtype(in.dtype, "input dtype");
  }

  bool constant(Constant &c) {
    if (!varint(c.id, "constant id") || !option(c.hasName, "constant name") ||
        (c.hasName && !string(c.name, "constant name")) ||
        !usizes(c.shape, "constant shape") ||
        !dtype(c.dtype, "constant dtype"))
      return false;
    uint64_t bytes;
    if (!length(bytes, "constant data"))
      return false;
    c.data.assign(data + pos, data + pos + bytes);
    pos += bytes;
    return true;
  }

  bool target(Target &t) {
    return string(t.name, "target name") && varint(t.id, "target id");
  }

  bool node(Node &node) {
    if (!op(node.op) || !option(node.hasParams, "node params") ||
        (node.hasParams && !params(node.params)) ||
        !usizes(node.inputIds, "node input_ids") ||
        !varint(node.outputId, "node output_id"))
      return false;
    if (!sequence(node.inputLayouts, "node input_layouts", 3, [&](Layout &l) {
          return layout(l, "node input layout");
        }))
      return false;
    if (!layout(node.outputLayout, "node output layout") ||
        !dtype(node.outputDType, "node output_dtype"))
      return false;
    bool symbolic;
    if (!option(symbolic, "node symbolic_output_layout"))
      return false;
    if (symbolic)
      return fail("symbolic output layouts (data-dependent shapes) are not "
                  "supported");
    return true;
  }

  bool snapshot(Snapshot &s) {
    if (!option(s.hasName, "Snapshot.name") ||
        (s.hasName && !string(s.name, "Snapshot.name")))
      return false;
    // The minimum item sizes: an input is a name, id, shape and dtype; a
    // constant adds the name's Option tag and its data; a node is at least
    // op, params tag, inputs, output, layouts, dtype and symbolic.
    if (!sequence(s.inputs, "Snapshot.inputs", 4,
                  [&](Input &in) { return input(in); }) ||
        !sequence(s.constants, "Snapshot.constants", 5,
                  [&](Constant &c) { return constant(c); }) ||
        !sequence(s.targets, "Snapshot.targets", 2,
                  [&](Target &t) { return target(t); }) ||
        !sequence(s.nodes, "Snapshot.nodes", 9,
                  [&](Node &n) { return node(n); }))
      return false;
    if (pos != size)
      return fail(std::to_string(size - pos) + " trailing bytes after the "
                  "snapshot");
    return true;
  }

private:
  const uint8_t *data;
  size_t size;
};

class Writer {
public:
  std::vector<uint8_t> out;

  void byte(uint8_t b) { out.push_back(b); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out.push_back(uint8_t(v) | 0x80);
      v >>= 7;
    }
    out.push_back(uint8_t(v));
  }
  void zigzag(int64_t v) { varint((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
  void string(const std::string &s) {
    varint(s.size());
    out.insert(out.end(), s.begin(), s.end());
  }
  void raw(const void *p, size_t n) {
    auto *b = static_cast<const uint8_t *>(p);
    out.insert(out.end(), b, b + n);
  }
  void usizes(const std::vector<uint64_t> &v) {
    varint(v.size());
    for (uint64_t x : v)
      varint(x);
  }
  void scalar(const Scalar &s) {
    varint(unsigned(s.dtype));
    switch (s.dtype) {
    case DType::Bool: byte(s.i != 0); break;
    case DType::F8E4M3: case DType::F8E5M2: case DType::BF16: case DType::F16:
    case DType::F32: {
      float f = float(s.f);
      raw(&f, 4);
      break;
    }
    case DType::F64: raw(&s.f, 8); break;
    case DType::U8: case DType::I8: byte(uint8_t(s.i)); break;
    case DType::U16: case DType::U32: case DType::U64: varint(uint64_t(s.i)); break;
    default: zigzag(s.i); break;
    }
  }
  void chars(const std::vector<uint64_t> &v) {
    varint(v.size());
    for (uint64_t cp : v) {
      std::string s;
      for (int shift = 24; shift >= 0; shift -= 8)
        if (uint8_t b = uint8_t(cp >> shift); b || (!s.empty()) || shift == 0)
          s.push_back(char(b));
      string(s);
    }
  }
  void field(char kind, const Field &f) {
    switch (kind) {
    case 'S': scalar(f.scalar); break;
    case 'V':
      varint(f.scalars.size());
      for (auto &s : f.scalars)
        scalar(s);
      break;
    case 'u': case 'e': varint(f.u); break;
    case 'i': zigzag(f.i); break;
    case 'b': case 'd': byte(uint8_t(f.u)); break;
    case 'o':
      byte(f.present);
      if (f.present)
        varint(f.u);
      break;
    case 'U': usizes(f.list); break;
    case 'P':
      varint(f.list.size() / 2);
      for (uint64_t v : f.list)
        varint(v);
      break;
    case 's': string(f.str); break;
    case 'c': chars(f.list); break;
    case 'C':
      varint(f.lists.size());
      for (auto &l : f.lists)
        chars(l);
      break;
    }
  }
  void layout(const Layout &l) {
    usizes(l.shape);
    usizes(l.strides);
    varint(l.offset);
  }
};
} // namespace

bool hodu::hdss::readSnapshot(const uint8_t *data, size_t size, Snapshot &out,
                              std::string &error) {
  Reader reader(data, size);
  out = Snapshot();
  if (reader.snapshot(out))
    return true;
  error = reader.error;
  return false;
}

bool hodu::hdss::readSnapshotFile(const std::string &path, Snapshot &out,
                                  std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  return readSnapshot(bytes.data(), bytes.size(), out, error);
}

std::vector<uint8_t> hodu::hdss::writeSnapshot(const Snapshot &s) {
  Writer w;
  w.byte(s.hasName);
  if (s.hasName)
    w.string(s.name);
  w.varint(s.inputs.size());
  for (auto &in : s.inputs) {
    w.string(in.name);
    w.varint(in.id);
    w.usizes(in.shape);
    w.byte(uint8_t(in.dtype));
  }
  w.varint(s.constants.size());
  for (auto &c : s.constants) {
    w.varint(c.id);
    w.byte(c.hasName);
    if (c.hasName)
      w.string(c.name);
    w.usizes(c.shape);
    w.byte(uint8_t(c.dtype));
    w.varint(c.data.size());
    w.raw(c.data.data(), c.data.size());
  }
  w.varint(s.targets.size());
  for (auto &t : s.targets) {
    w.string(t.name);
    w.varint(t.id);
  }
  w.varint(s.nodes.size());
  for (auto &n : s.nodes) {
    w.varint(unsigned(n.op.family));
    if (n.op.family != OpFamily::Dummy)
      w.varint(n.op.op);
    w.byte(n.hasParams);
    if (n.hasParams) {
      w.varint(unsigned(n.params.kind));
      const char *schema = paramsSchema(n.params.kind);
      for (size_t i = 0; schema[i]; ++i)
        w.field(schema[i], i < n.params.fields.size() ? n.params.fields[i]
                                                      : Field());
    }
    w.usizes(n.inputIds);
    w.varint(n.outputId);
    w.varint(n.inputLayouts.size());
    for (auto &l : n.inputLayouts)
      w.layout(l);
    w.layout(n.outputLayout);
    w.byte(uint8_t(n.outputDType));
    w.byte(0); // symbolic_output_layout: None
  }
  return std::move(w.out);
}

bool hodu::hdss::writeSnapshotFile(const std::string &path, const Snapshot &s,
                                   std::string &error) {
  std::vector<uint8_t> bytes = writeSnapshot(s);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  out.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  if (!out) {
    error = "error writing '" + path + "'";
    return false;
  }
  return true;
}
