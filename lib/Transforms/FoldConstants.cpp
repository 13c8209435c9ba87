//===- FoldConstants.cpp - evaluate hodu ops on constants -----------------===//
//
// Evaluates hodu ops whose operands are all `hodu.constant` at compile time,
// and folds a per-channel affine tail (what the ONNX importer emits for an
// inference BatchNormalization, a bias, a Gemm alpha) into the weights of the
// preceding conv or matmul.
//
// Constants are read in place: a `dense` attribute's raw storage or a
// `dense_resource` blob's bytes are viewed, never copied, and each result is
// written once, into a heap resource blob when it is large (so a transposed
// 16 MiB weight costs one new 16 MiB buffer, not a vector of APFloats).
// Element values are computed in double (floats) or 64-bit integers and
// rounded or truncated to the result dtype. Data is little-endian.
//
//===----------------------------------------------------------------------===//

#include "hodu/Transforms/Passes.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

namespace hodu {
#define GEN_PASS_DEF_FOLDCONSTANTS
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;

namespace {

/// How the folder computes with an element type.
enum class Kind { Float, Signed, Unsigned, Bool };

std::optional<Kind> kindOf(Type t) {
  if (t.isInteger(1))
    return Kind::Bool;
  if (auto i = dyn_cast<IntegerType>(t)) {
    // Only whole-byte widths have a plain byte layout in dense storage.
    if (i.getWidth() % 8 != 0 || i.getWidth() > 64)
      return std::nullopt;
    return i.isUnsigned() ? Kind::Unsigned : Kind::Signed;
  }
  if (auto f = dyn_cast<FloatType>(t))
    if (f.getWidth() % 8 == 0 && f.getWidth() <= 64)
      return Kind::Float;
  return std::nullopt;
}

unsigned bytesOf(Type t) {
  return t.isInteger(1) ? 1 : (t.getIntOrFloatBitWidth() + 7) / 8;
}

SmallVector<int64_t> contiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/// Strides to read an input of shape `in` at the indices of an output of
/// shape `out` under numpy broadcasting (0 along broadcast dimensions).
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> in,
                                      ArrayRef<int64_t> out) {
  SmallVector<int64_t> s(out.size(), 0);
  SmallVector<int64_t> cs = contiguousStrides(in);
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d)
    s[lead + d] = in[d] == 1 ? 0 : cs[d];
  return s;
}

/// An affine walk over one tensor: offset = base + sum(index[d] * strides[d]).
struct Walk {
  int64_t base = 0;
  SmallVector<int64_t> strides;
};

/// Calls `fn(offsets)` for every index of `shape` in row-major order, with
/// one offset per walk. Incremental (an odometer), so no index tables.
template <typename Fn>
void forEachIndex(ArrayRef<int64_t> shape, ArrayRef<Walk> walks, Fn fn) {
  for (int64_t d : shape)
    if (d == 0)
      return;
  size_t n = walks.size(), rank = shape.size();
  SmallVector<int64_t> offsets, idx(rank, 0);
  for (const Walk &w : walks)
    offsets.push_back(w.base);
  while (true) {
    fn(ArrayRef<int64_t>(offsets));
    int64_t d = static_cast<int64_t>(rank) - 1;
    for (; d >= 0; --d) {
      for (size_t k = 0; k < n; ++k)
        offsets[k] += walks[k].strides[d];
      if (++idx[d] < shape[d])
        break;
      for (size_t k = 0; k < n; ++k)
        offsets[k] -= walks[k].strides[d] * shape[d];
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// A read-only view of a constant's elements (one byte per i1).
class Elements {
public:
  static std::optional<Elements> get(Attribute attr) {
    auto elements = dyn_cast_if_present<ElementsAttr>(attr);
    if (!elements)
      return std::nullopt;
    auto type = dyn_cast<RankedTensorType>(elements.getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
    auto kind = kindOf(type.getElementType());
    if (!kind)
      return std::nullopt;
    Elements e;
    e.type = type;
    e.kind = *kind;
    e.bytes = bytesOf(type.getElementType());
    if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
      e.splat = dense.isSplat();
      if (*kind == Kind::Bool) {
        // Dense i1 storage is bit-packed; unpack (bools are small).
        for (bool b : dense.getValues<bool>()) {
          e.owned.push_back(b);
          if (e.splat)
            break;
        }
        e.useOwned = true;
      } else {
        e.data = dense.getRawData();
      }
    } else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
      AsmResourceBlob *blob = res.getRawHandle().getBlob();
      if (!blob)
        return std::nullopt;
      e.data = blob->getData();
    } else {
      return std::nullopt;
    }
    int64_t need = e.splat ? 1 : type.getNumElements();
    size_t have = e.useOwned ? e.owned.size() : e.data.size();
    if (static_cast<int64_t>(have) < need * e.bytes)
      return std::nullopt;
    return e;
  }

  RankedTensorType getType() const { return type; }
  ArrayRef<int64_t> shape() const { return type.getShape(); }
  Kind getKind() const { return kind; }
  int64_t size() const { return type.getNumElements(); }
  const char *ptr(int64_t i) const {
    return (useOwned ? owned.data() : data.data()) + (splat ? 0 : i * bytes);
  }
  unsigned elementBytes() const { return bytes; }
  bool isSplat() const { return splat || type.getNumElements() == 1; }
  /// The one element of a splat as a rank-0 tensor.
  Elements asScalar() const {
    Elements e = *this;
    e.type = RankedTensorType::get({}, type.getElementType());
    e.splat = true;
    return e;
  }

  uint64_t raw(int64_t i) const {
    uint64_t v = 0;
    std::memcpy(&v, ptr(i), bytes);
    return v;
  }
  /// The value as a double (floats; integers convert by signedness).
  double f(int64_t i) const {
    Type e = type.getElementType();
    switch (kind) {
    case Kind::Bool:
      return raw(i) ? 1.0 : 0.0;
    case Kind::Signed:
      return static_cast<double>(static_cast<int64_t>(s(i)));
    case Kind::Unsigned:
      return static_cast<double>(raw(i));
    case Kind::Float:
      break;
    }
    if (e.isF32()) {
      float v;
      std::memcpy(&v, ptr(i), 4);
      return v;
    }
    if (e.isF64()) {
      double v;
      std::memcpy(&v, ptr(i), 8);
      return v;
    }
    auto ft = cast<FloatType>(e);
    llvm::APFloat a(ft.getFloatSemantics(), llvm::APInt(ft.getWidth(), raw(i)));
    bool lost;
    a.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return a.convertToDouble();
  }
  /// The integer value extended to 64 bits by the dtype's signedness.
  uint64_t s(int64_t i) const {
    uint64_t v = raw(i);
    if (kind == Kind::Signed)
      return static_cast<uint64_t>(llvm::SignExtend64(v, bytes * 8));
    return v;
  }
  bool truth(int64_t i) const {
    return kind == Kind::Float ? f(i) != 0.0 : raw(i) != 0;
  }

private:
  RankedTensorType type;
  Kind kind = Kind::Float;
  unsigned bytes = 0;
  ArrayRef<char> data;
  bool splat = false;
  // Unpacked i1 data; `data` is unused then (copies stay valid).
  bool useOwned = false;
  std::vector<char> owned;
};

/// A result being written: into a heap resource blob when it is larger than
/// `resourceBytes`, else into a vector that becomes a `dense` attribute.
class Output {
public:
  Output(RankedTensorType type, int64_t resourceBytes)
      : type(type), kind(*kindOf(type.getElementType())),
        bytes(bytesOf(type.getElementType())) {
    size_t total = static_cast<size_t>(type.getNumElements()) * bytes;
    if (kind != Kind::Bool && static_cast<int64_t>(total) > resourceBytes) {
      blob = HeapAsmResourceBlob::allocate(total, alignof(uint64_t));
      data = blob->getMutableData().data();
    } else {
      vec.assign(total, 0);
      data = vec.data();
    }
  }

  Kind getKind() const { return kind; }
  int64_t size() const { return type.getNumElements(); }

  void setRaw(int64_t i, uint64_t v) {
    if (kind == Kind::Bool)
      v = v != 0;
    std::memcpy(data + i * bytes, &v, bytes);
  }
  /// Rounds a double to the float dtype, or converts it to an integer one.
  void setF(int64_t i, double v) {
    Type e = type.getElementType();
    if (kind != Kind::Float)
      return setRaw(i, kind == Kind::Signed
                           ? static_cast<uint64_t>(static_cast<int64_t>(v))
                           : static_cast<uint64_t>(v));
    if (e.isF32()) {
      float f = static_cast<float>(v);
      std::memcpy(data + i * 4, &f, 4);
      return;
    }
    if (e.isF64()) {
      std::memcpy(data + i * 8, &v, 8);
      return;
    }
    llvm::APFloat a(v);
    bool lost;
    a.convert(cast<FloatType>(e).getFloatSemantics(),
              llvm::APFloat::rmNearestTiesToEven, &lost);
    setRaw(i, a.bitcastToAPInt().getZExtValue());
  }
  void copy(int64_t i, const Elements &in, int64_t j) {
    std::memcpy(data + i * bytes, in.ptr(j), bytes);
  }

  ElementsAttr finish() {
    if (kind == Kind::Bool)
      return DenseElementsAttr::get(
          type, ArrayRef<bool>(reinterpret_cast<const bool *>(vec.data()),
                               vec.size()));
    if (blob)
      return DenseResourceElementsAttr::get(type, "hodu_folded",
                                            std::move(*blob));
    return DenseElementsAttr::getFromRawBuffer(type, vec);
  }

private:
  RankedTensorType type;
  Kind kind;
  unsigned bytes;
  char *data = nullptr;
  std::vector<char> vec;
  std::optional<AsmResourceBlob> blob;
};

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double softplus(double x) { return std::log1p(std::exp(x)); }
double hardsigmoid(double x) { return std::clamp(x / 6.0 + 0.5, 0.0, 1.0); }

/// The float function of a Unary-family op, if it has one.
std::optional<std::function<double(double)>> unaryFloat(StringRef name) {
  using F = std::function<double(double)>;
  auto fn = llvm::StringSwitch<F>(name)
                .Case("neg", [](double x) { return -x; })
                .Case("abs", [](double x) { return std::fabs(x); })
                .Case("sign",
                      [](double x) -> double {
                        return std::isnan(x) ? x : (x > 0) - (x < 0);
                      })
                .Case("square", [](double x) { return x * x; })
                .Case("relu",
                      [](double x) { return std::isnan(x) ? x : x > 0 ? x : 0.0; })
                .Case("softsign", [](double x) { return x / (1 + std::fabs(x)); })
                .Case("sqrt", [](double x) { return std::sqrt(x); })
                .Case("recip", [](double x) { return 1.0 / x; })
                .Case("sigmoid", sigmoid)
                .Case("hardsigmoid", hardsigmoid)
                .Case("gelu",
                      [](double x) {
                        return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
                      })
                .Case("softplus", softplus)
                .Case("silu", [](double x) { return x * sigmoid(x); })
                .Case("hardsilu", [](double x) { return x * hardsigmoid(x); })
                .Case("mish", [](double x) { return x * std::tanh(softplus(x)); })
                .Case("selu",
                      [](double x) {
                        const double a = 1.6732632423543772848170429916717;
                        const double g = 1.0507009873554804934193349852946;
                        return g * (x > 0 ? x : a * (std::exp(x) - 1));
                      })
                .Case("celu",
                      [](double x) {
                        return std::max(0.0, x) + std::min(0.0, std::exp(x) - 1);
                      })
                .Case("sin", [](double x) { return std::sin(x); })
                .Case("cos", [](double x) { return std::cos(x); })
                .Case("tan", [](double x) { return std::tan(x); })
                .Case("asin", [](double x) { return std::asin(x); })
                .Case("acos", [](double x) { return std::acos(x); })
                .Case("atan", [](double x) { return std::atan(x); })
                .Case("sinh", [](double x) { return std::sinh(x); })
                .Case("cosh", [](double x) { return std::cosh(x); })
                .Case("tanh", [](double x) { return std::tanh(x); })
                .Case("asinh", [](double x) { return std::asinh(x); })
                .Case("acosh", [](double x) { return std::acosh(x); })
                .Case("atanh", [](double x) { return std::atanh(x); })
                .Case("exp", [](double x) { return std::exp(x); })
                .Case("exp2", [](double x) { return std::exp2(x); })
                .Case("exp10", [](double x) { return std::pow(10.0, x); })
                .Case("ln", [](double x) { return std::log(x); })
                .Case("log2", [](double x) { return std::log2(x); })
                .Case("log10", [](double x) { return std::log10(x); })
                .Case("ceil", [](double x) { return std::ceil(x); })
                .Case("floor", [](double x) { return std::floor(x); })
                // Round half to even (the default rounding mode).
                .Case("round", [](double x) { return std::nearbyint(x); })
                .Case("erf", [](double x) { return std::erf(x); })
                .Default(F());
  if (!fn)
    return std::nullopt;
  return fn;
}

/// The integer function of a Unary-family op (neg, abs, sign, square, relu).
std::optional<std::function<uint64_t(uint64_t, bool)>>
unaryInt(StringRef name) {
  using F = std::function<uint64_t(uint64_t, bool)>;
  auto fn =
      llvm::StringSwitch<F>(name)
          .Case("neg", [](uint64_t x, bool) { return 0 - x; })
          .Case("abs",
                [](uint64_t x, bool u) {
                  return u || static_cast<int64_t>(x) >= 0 ? x : 0 - x;
                })
          .Case("sign",
                [](uint64_t x, bool u) -> uint64_t {
                  if (x == 0)
                    return 0;
                  return u || static_cast<int64_t>(x) > 0 ? 1 : ~uint64_t(0);
                })
          .Case("square", [](uint64_t x, bool) { return x * x; })
          .Case("relu",
                [](uint64_t x, bool u) {
                  return u || static_cast<int64_t>(x) > 0 ? x : 0;
                })
          .Default(F());
  if (!fn)
    return std::nullopt;
  return fn;
}

/// Result of a binary float op (also the UnaryScalar ops with scalar `b`).
std::optional<double> binaryFloat(StringRef name, double a, double b) {
  if (name == "add")
    return a + b;
  if (name == "sub")
    return a - b;
  if (name == "mul")
    return a * b;
  if (name == "div")
    return a / b;
  if (name == "rem")
    return std::fmod(a, b);
  if (name == "pow")
    return std::pow(a, b);
  if (name == "maximum")
    return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
  if (name == "minimum")
    return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
  if (name == "leaky_relu" || name == "prelu")
    return a < 0 ? b * a : a;
  if (name == "elu")
    return a < 0 ? b * (std::exp(a) - 1) : a;
  return std::nullopt;
}

/// Result of a binary integer op on values extended to 64 bits; nullopt
/// leaves the op alone (division by zero, overflowing division, negative
/// powers): the program's behaviour there is the runtime's business.
std::optional<uint64_t> binaryInt(StringRef name, uint64_t a, uint64_t b,
                                  bool isUnsigned, unsigned width) {
  int64_t sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
  int64_t minVal = width >= 64 ? INT64_MIN : -(int64_t(1) << (width - 1));
  if (name == "add")
    return a + b;
  if (name == "sub")
    return a - b;
  if (name == "mul")
    return a * b;
  if (name == "div" || name == "rem") {
    if (b == 0)
      return std::nullopt;
    if (isUnsigned)
      return name == "div" ? a / b : a % b;
    if (sa == minVal && sb == -1)
      return std::nullopt;
    return static_cast<uint64_t>(name == "div" ? sa / sb : sa % sb);
  }
  if (name == "maximum")
    return isUnsigned ? std::max(a, b) : static_cast<uint64_t>(std::max(sa, sb));
  if (name == "minimum")
    return isUnsigned ? std::min(a, b) : static_cast<uint64_t>(std::min(sa, sb));
  if (name == "pow") {
    if (!isUnsigned && sb < 0)
      return std::nullopt;
    uint64_t r = 1, base = a;
    for (uint64_t e = b; e; e >>= 1, base *= base)
      if (e & 1)
        r *= base;
    return r;
  }
  return std::nullopt;
}

/// Comparison of two elements of the same kind.
std::optional<bool> compare(StringRef name, const Elements &x, int64_t i,
                            const Elements &y, int64_t j) {
  int c; // -1, 0, 1; NaN compares unordered (only `ne` is true).
  if (x.getKind() != y.getKind())
    return std::nullopt;
  if (x.getKind() == Kind::Float) {
    double a = x.f(i), b = y.f(j);
    if (std::isnan(a) || std::isnan(b))
      return name == "ne";
    c = a < b ? -1 : a > b ? 1 : 0;
  } else if (x.getKind() == Kind::Signed) {
    int64_t a = x.s(i), b = y.s(j);
    c = a < b ? -1 : a > b ? 1 : 0;
  } else {
    uint64_t a = x.raw(i), b = y.raw(j);
    c = a < b ? -1 : a > b ? 1 : 0;
  }
  return llvm::StringSwitch<std::optional<bool>>(name)
      .Case("eq", c == 0)
      .Case("ne", c != 0)
      .Case("lt", c < 0)
      .Case("le", c <= 0)
      .Case("gt", c > 0)
      .Case("ge", c >= 0)
      .Default(std::nullopt);
}

/// A one-element constant holding the `scalar` attribute of a scalar op.
std::optional<Elements> scalarElements(TypedAttr scalar) {
  auto type = RankedTensorType::get({}, scalar.getType());
  return Elements::get(DenseElementsAttr::get(type, ArrayRef<Attribute>(scalar)));
}

struct Folder {
  int64_t sizeLimit;
  int64_t resourceBytes;

  /// Evaluates `op` on `inputs` (the constants of its operands); null when
  /// the op is not one this pass evaluates or refuses to.
  ElementsAttr fold(Operation *op, ArrayRef<Elements> inputs);

private:
  ElementsAttr elementwise(Operation *op, StringRef name,
                           ArrayRef<Elements> in, RankedTensorType rt);
  ElementsAttr movement(Operation *op, ArrayRef<Elements> in,
                        RankedTensorType rt);
  ElementsAttr reduce(Operation *op, StringRef name, const Elements &in,
                      RankedTensorType rt);
};

ElementsAttr Folder::fold(Operation *op, ArrayRef<Elements> inputs) {
  if (op->getNumResults() != 1 || inputs.empty())
    return {};
  auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!rt || !rt.hasStaticShape() || !kindOf(rt.getElementType()))
    return {};
  StringRef name = op->getName().stripDialect();

  // All-splat inputs give a splat result (except concat and reductions),
  // which costs one element whatever its size: evaluate one element.
  if (llvm::all_of(inputs, [](const Elements &e) { return e.isSplat(); }) &&
      !isa<hodu::ConcatOp>(op) && !name.starts_with("reduce_") &&
      kindOf(rt.getElementType()) && rt.hasStaticShape()) {
    SmallVector<Elements, 3> scalars;
    for (const Elements &e : inputs)
      scalars.push_back(e.asScalar());
    auto scalarType = RankedTensorType::get({}, rt.getElementType());
    Folder one{1, INT64_MAX};
    ElementsAttr value;
    if (isa<hodu::TransposeOp, hodu::BroadcastOp, hodu::SliceOp, hodu::FlipOp,
            hodu::ReshapeOp, hodu::FlattenOp, hodu::SqueezeOp,
            hodu::UnsqueezeOp, hodu::ContiguousOp>(op)) {
      Output out(scalarType, INT64_MAX);
      out.copy(0, scalars[0], 0);
      value = out.finish();
    } else {
      value = one.elementwise(op, name, scalars, scalarType);
    }
    if (auto dense = dyn_cast_if_present<DenseElementsAttr>(value))
      return dense.resizeSplat(rt);
    return {};
  }
  if (rt.getNumElements() > sizeLimit)
    return {};

  // Shape-only ops reuse the data (a dense reshape or the same blob).
  if (isa<hodu::ReshapeOp, hodu::FlattenOp, hodu::SqueezeOp,
          hodu::UnsqueezeOp, hodu::ContiguousOp>(op)) {
    Attribute in;
    matchPattern(op->getOperand(0), m_Constant(&in));
    if (auto dense = dyn_cast_if_present<DenseElementsAttr>(in))
      return dense.reshape(rt);
    if (auto res = dyn_cast_if_present<DenseResourceElementsAttr>(in))
      return DenseResourceElementsAttr::get(rt, res.getRawHandle());
    return {};
  }
  if (name.starts_with("reduce_"))
    return reduce(op, name, inputs[0], rt);
  if (isa<hodu::TransposeOp, hodu::BroadcastOp, hodu::SliceOp,
          hodu::ConcatOp, hodu::FlipOp>(op))
    return movement(op, inputs, rt);
  return elementwise(op, name, inputs, rt);
}

ElementsAttr Folder::elementwise(Operation *op, StringRef name,
                                 ArrayRef<Elements> in, RankedTensorType rt) {
  Output out(rt, resourceBytes);
  ArrayRef<int64_t> shape = rt.getShape();
  bool ok = true;
  unsigned outWidth = rt.getElementType().getIntOrFloatBitWidth();

  // Unary ops and cast.
  if (in.size() == 1 && !op->hasAttr("scalar")) {
    const Elements &x = in[0];
    if (x.getType().getShape() != shape)
      return {};
    int64_t n = rt.getNumElements();
    if (name == "cast") {
      Kind from = x.getKind(), to = out.getKind();
      for (int64_t i = 0; i < n && ok; ++i) {
        if (to == Kind::Bool)
          out.setRaw(i, x.truth(i));
        else if (to == Kind::Float || from == Kind::Float) {
          double v = x.f(i);
          // Out-of-range float to int conversion has no defined value.
          if (to != Kind::Float &&
              (std::isnan(v) ||
               std::fabs(v) >= std::ldexp(1.0, outWidth - (to == Kind::Signed)) ||
               (to == Kind::Unsigned && v <= -1.0)))
            ok = false;
          else
            out.setF(i, v);
        } else {
          out.setRaw(i, x.s(i));
        }
      }
    } else if (name == "logical_not" || name == "isnan" || name == "isinf" ||
               name == "isfinite") {
      for (int64_t i = 0; i < n; ++i) {
        bool r;
        if (name == "logical_not")
          r = !x.truth(i);
        else if (name == "isnan")
          r = std::isnan(x.f(i));
        else if (name == "isinf")
          r = std::isinf(x.f(i));
        else
          r = std::isfinite(x.f(i));
        out.setRaw(i, r);
      }
    } else if (x.getKind() == Kind::Float) {
      auto fn = unaryFloat(name);
      if (!fn || out.getKind() != Kind::Float)
        return {};
      for (int64_t i = 0; i < n; ++i)
        out.setF(i, (*fn)(x.f(i)));
    } else {
      auto fn = unaryInt(name);
      if (!fn || x.getKind() == Kind::Bool || out.getKind() != x.getKind())
        return {};
      for (int64_t i = 0; i < n; ++i)
        out.setRaw(i, (*fn)(x.s(i), x.getKind() == Kind::Unsigned));
    }
    return ok ? out.finish() : ElementsAttr();
  }

  // Everything else broadcasts its operands (a scalar attribute is a
  // one-element operand).
  SmallVector<Elements, 3> ops(in.begin(), in.end());
  if (auto scalar = op->getAttrOfType<TypedAttr>("scalar")) {
    auto s = scalarElements(scalar);
    if (!s)
      return {};
    ops.push_back(*s);
    if (name.ends_with("_scalar"))
      name = name.drop_back(strlen("_scalar"));
  }
  bool isCmp = llvm::is_contained(
      ArrayRef<StringRef>{"eq", "ne", "lt", "le", "gt", "ge"}, name);
  bool isLogical = name.starts_with("logical_");
  bool isArith = llvm::is_contained(
      ArrayRef<StringRef>{"add", "sub", "mul", "div", "rem", "pow", "maximum",
                          "minimum", "leaky_relu", "prelu", "elu"},
      name);
  if (!(name == "select" && ops.size() == 3) &&
      !((isCmp || isLogical || isArith) && ops.size() == 2))
    return {};
  // Every operand must broadcast to the result shape.
  SmallVector<Walk, 3> walks;
  for (const Elements &e : ops) {
    int64_t lead = rt.getRank() - e.getType().getRank();
    if (lead < 0)
      return {};
    for (int64_t d = 0; d < e.getType().getRank(); ++d)
      if (e.shape()[d] != 1 && e.shape()[d] != shape[lead + d])
        return {};
    walks.push_back({0, broadcastStrides(e.shape(), shape)});
  }
  Walk outWalk{0, contiguousStrides(shape)};
  walks.push_back(outWalk);

  if (name == "select") {
    if (ops[0].getKind() != Kind::Bool ||
        ops[1].getType().getElementType() != rt.getElementType() ||
        ops[2].getType().getElementType() != rt.getElementType())
      return {};
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      const Elements &src = ops[0].truth(o[0]) ? ops[1] : ops[2];
      out.copy(o[3], src, ops[0].truth(o[0]) ? o[1] : o[2]);
    });
    return out.finish();
  }
  const Elements &a = ops[0], &b = ops[1];
  if (a.getKind() != b.getKind())
    return {};
  if (isLogical) {
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      bool x = a.truth(o[0]), y = b.truth(o[1]);
      out.setRaw(o[2], name == "logical_and"  ? x && y
                       : name == "logical_or" ? x || y
                                              : x != y);
    });
    return out.finish();
  }
  if (isCmp) {
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      if (!ok)
        return;
      auto r = compare(name, a, o[0], b, o[1]);
      ok = r.has_value();
      if (ok)
        out.setRaw(o[2], *r);
    });
    return ok ? out.finish() : ElementsAttr();
  }
  if (a.getKind() == Kind::Float) {
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      if (!ok)
        return;
      auto r = binaryFloat(name, a.f(o[0]), b.f(o[1]));
      ok = r.has_value();
      if (ok)
        out.setF(o[2], *r);
    });
  } else if (a.getKind() != Kind::Bool && out.getKind() == a.getKind()) {
    bool isUnsigned = a.getKind() == Kind::Unsigned;
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      if (!ok)
        return;
      auto r = binaryInt(name, a.s(o[0]), b.s(o[1]), isUnsigned, outWidth);
      ok = r.has_value();
      if (ok)
        out.setRaw(o[2], *r);
    });
  } else {
    return {};
  }
  return ok ? out.finish() : ElementsAttr();
}

ElementsAttr Folder::movement(Operation *op, ArrayRef<Elements> in,
                              RankedTensorType rt) {
  Output out(rt, resourceBytes);
  ArrayRef<int64_t> shape = rt.getShape();
  SmallVector<int64_t> outStrides = contiguousStrides(shape);
  const Elements &x = in[0];
  SmallVector<int64_t> inStrides = contiguousStrides(x.shape());
  auto copyAll = [&](ArrayRef<int64_t> iterShape, Walk src, Walk dst,
                     const Elements &from) {
    forEachIndex(iterShape, {src, dst}, [&](ArrayRef<int64_t> o) {
      out.copy(o[1], from, o[0]);
    });
  };
  if (auto t = dyn_cast<hodu::TransposeOp>(op)) {
    Walk src;
    for (int64_t p : t.getPerm())
      src.strides.push_back(inStrides[p]);
    copyAll(shape, src, {0, outStrides}, x);
  } else if (isa<hodu::BroadcastOp>(op)) {
    copyAll(shape, {0, broadcastStrides(x.shape(), shape)}, {0, outStrides}, x);
  } else if (auto s = dyn_cast<hodu::SliceOp>(op)) {
    Walk src;
    for (size_t d = 0; d < shape.size(); ++d) {
      src.base += s.getStarts()[d] * inStrides[d];
      src.strides.push_back(s.getSteps()[d] * inStrides[d]);
    }
    copyAll(shape, src, {0, outStrides}, x);
  } else if (auto f = dyn_cast<hodu::FlipOp>(op)) {
    Walk src{0, inStrides};
    for (int64_t d : f.getDims()) {
      src.base += (shape[d] - 1) * inStrides[d];
      src.strides[d] = -inStrides[d];
    }
    copyAll(shape, src, {0, outStrides}, x);
  } else if (auto c = dyn_cast<hodu::ConcatOp>(op)) {
    int64_t dim = c.getDim(), at = 0;
    for (const Elements &e : in) {
      copyAll(e.shape(), {0, contiguousStrides(e.shape())},
              {at * outStrides[dim], outStrides}, e);
      at += e.shape()[dim];
    }
  } else {
    return {};
  }
  return out.finish();
}

ElementsAttr Folder::reduce(Operation *op, StringRef name, const Elements &in,
                            RankedTensorType rt) {
  auto dimsAttr = op->getAttrOfType<DenseI64ArrayAttr>("dims");
  if (!dimsAttr || in.getKind() == Kind::Bool)
    return {};
  bool isMax = name == "reduce_max", isMin = name == "reduce_min";
  if (name != "reduce_sum" && name != "reduce_mean" && !isMax && !isMin &&
      name != "reduce_prod")
    return {};
  ArrayRef<int64_t> shape = in.shape();
  // Output strides over the input's index space, 0 along reduced dims.
  SmallVector<int64_t> keptShape;
  SmallVector<bool> reduced(shape.size(), false);
  for (int64_t d : dimsAttr.asArrayRef())
    reduced[d] = true;
  for (size_t d = 0; d < shape.size(); ++d)
    keptShape.push_back(reduced[d] ? 1 : shape[d]);
  SmallVector<int64_t> outStrides = contiguousStrides(keptShape);
  for (size_t d = 0; d < shape.size(); ++d)
    if (reduced[d])
      outStrides[d] = 0;
  int64_t n = rt.getNumElements(), count = in.size() / std::max<int64_t>(n, 1);
  bool isFloat = in.getKind() == Kind::Float;
  bool isUnsigned = in.getKind() == Kind::Unsigned;
  double init = isMax ? -INFINITY : isMin ? INFINITY
                : name == "reduce_prod" ? 1.0 : 0.0;
  std::vector<double> accF(isFloat ? n : 0, init);
  std::vector<uint64_t> accI(isFloat ? 0 : n);
  std::vector<bool> seen(isFloat ? 0 : n, false);
  if (!isFloat && name == "reduce_prod")
    accI.assign(n, 1);
  if (!isFloat && name == "reduce_mean")
    return {};
  forEachIndex(shape, {Walk{0, contiguousStrides(shape)}, Walk{0, outStrides}},
               [&](ArrayRef<int64_t> o) {
                 int64_t j = o[1];
                 if (isFloat) {
                   double v = in.f(o[0]);
                   double &acc = accF[j];
                   if (isMax || isMin)
                     acc = std::isnan(v) || std::isnan(acc)
                               ? NAN
                               : (isMax ? std::max(acc, v) : std::min(acc, v));
                   else if (name == "reduce_prod")
                     acc *= v;
                   else
                     acc += v;
                   return;
                 }
                 uint64_t v = in.s(o[0]);
                 uint64_t &acc = accI[j];
                 if (isMax || isMin) {
                   bool better =
                       isUnsigned ? (isMax ? v > acc : v < acc)
                                  : (isMax ? int64_t(v) > int64_t(acc)
                                           : int64_t(v) < int64_t(acc));
                   if (!seen[j] || better)
                     acc = v;
                   seen[j] = true;
                 } else if (name == "reduce_prod") {
                   acc *= v;
                 } else {
                   acc += v;
                 }
               });
  Output out(rt, resourceBytes);
  for (int64_t j = 0; j < n; ++j) {
    if (isFloat)
      out.setF(j, name == "reduce_mean" ? accF[j] / count : accF[j]);
    else
      out.setRaw(j, accI[j]);
  }
  return out.finish();
}

//===----------------------------------------------------------------------===//
// Affine tails of conv and matmul
//===----------------------------------------------------------------------===//

/// The value per channel of a float constant that varies at most along
/// `axis` of a result of rank `rank` (numpy broadcasting), else nullopt.
std::optional<SmallVector<double>> perChannel(const Elements &k, int64_t rank,
                                              int64_t axis, int64_t channels) {
  if (k.getKind() != Kind::Float || k.getType().getRank() > rank)
    return std::nullopt;
  int64_t lead = rank - k.getType().getRank();
  bool varies = false;
  for (int64_t d = 0; d < k.getType().getRank(); ++d) {
    int64_t size = k.shape()[d];
    if (d + lead == axis && size == channels)
      varies = true;
    else if (size != 1)
      return std::nullopt;
  }
  SmallVector<double> v(channels);
  for (int64_t c = 0; c < channels; ++c)
    v[c] = k.f(varies ? c : 0);
  return v;
}

ElementsAttr constantOf(Value v) {
  Attribute attr;
  if (!v.getDefiningOp<hodu::ConstantOp>() || !matchPattern(v, m_Constant(&attr)))
    return {};
  return dyn_cast<ElementsAttr>(attr);
}

/// A run of per-channel affine ops: its result is `x * s + t` per channel.
struct AffineChain {
  SmallVector<double> s, t;
  SmallVector<Operation *> ops;
  bool scaled = false;
};

bool isAffineOpName(StringRef name) {
  return llvm::is_contained(ArrayRef<StringRef>{"add", "sub", "mul", "div"},
                            name);
}

/// Collects the chain that starts at `first` (a user of `cur`): hodu `add`,
/// `sub`, `mul`, `div` with a constant that varies only along `axis`, or
/// their `_scalar` forms, each keeping the type `rt`. It goes past an op
/// only while that op's result has exactly one user.
AffineChain collectChain(Value cur, Operation *first, RankedTensorType rt,
                         int64_t axis) {
  int64_t channels = rt.getDimSize(axis), rank = rt.getRank();
  AffineChain ch;
  ch.s.assign(channels, 1.0);
  ch.t.assign(channels, 0.0);
  for (Operation *user = first; user;) {
    if (!isa<hodu::HoduDialect>(user->getDialect()) ||
        user->getNumResults() != 1 || user->getResult(0).getType() != rt)
      break;
    StringRef name = user->getName().stripDialect();
    SmallVector<double> k;
    bool curIsLhs = user->getOperand(0) == cur;
    if (auto scalar = user->getAttrOfType<FloatAttr>("scalar")) {
      if (!name.ends_with("_scalar") || user->getNumOperands() != 1)
        break;
      name = name.drop_back(strlen("_scalar"));
      k.assign(channels, scalar.getValueAsDouble());
    } else if (user->getNumOperands() == 2) {
      auto e = Elements::get(constantOf(user->getOperand(curIsLhs ? 1 : 0)));
      if (!e)
        break;
      auto v = perChannel(*e, rank, axis, channels);
      if (!v)
        break;
      k = std::move(*v);
    } else {
      break;
    }
    if (!isAffineOpName(name) ||
        (name == "div" &&
         (!curIsLhs || llvm::is_contained(k, 0.0))))
      break;
    for (int64_t c = 0; c < channels; ++c) {
      double &s = ch.s[c], &t = ch.t[c];
      if (name == "add") {
        t += k[c];
      } else if (name == "sub") {
        if (!curIsLhs)
          s = -s, t = -t;
        t += curIsLhs ? -k[c] : k[c];
      } else if (name == "mul") {
        s *= k[c], t *= k[c];
      } else {
        s /= k[c], t /= k[c];
      }
    }
    ch.scaled |= name == "mul" || name == "div" || (name == "sub" && !curIsLhs);
    ch.ops.push_back(user);
    cur = user->getResult(0);
    user = cur.hasOneUse() ? *cur.getUsers().begin() : nullptr;
  }
  return ch;
}

/// A constant of per-channel values shaped to broadcast along `axis` of a
/// tensor of rank `rank`: [C, 1, ...] (rank - axis dims) as importers do.
Value channelConstant(OpBuilder &b, Location loc, ArrayRef<double> values,
                      int64_t rank, int64_t axis, Type elt,
                      const Folder &folder) {
  SmallVector<int64_t> shape(rank - axis, 1);
  shape[0] = values.size();
  Output out(RankedTensorType::get(shape, elt), folder.resourceBytes);
  for (size_t c = 0; c < values.size(); ++c)
    out.setF(c, values[c]);
  return hodu::ConstantOp::create(b, loc, out.finish());
}

/// Replaces the chain's last result by `v` and erases the chain.
void replaceChain(AffineChain &ch, Value v) {
  ch.ops.back()->getResult(0).replaceAllUsesWith(v);
  for (Operation *op : llvm::reverse(ch.ops))
    op->erase();
}

bool anyNot(ArrayRef<double> v, double x) {
  return llvm::any_of(v, [&](double e) { return e != x; });
}

/// Folds `root(x, W)` followed by a per-channel affine chain (a bias, an
/// inference BatchNormalization as the ONNX importer emits it, a Gemm alpha)
/// into `root(x, W * s) + t`. Returns true if it rewrote.
bool foldAffineTail(Operation *root, const Folder &folder) {
  auto rt = dyn_cast<RankedTensorType>(root->getResult(0).getType());
  auto w = Elements::get(constantOf(root->getOperand(1)));
  if (!rt || !rt.hasStaticShape() || !w || w->getKind() != Kind::Float ||
      w->size() > folder.sizeLimit || !root->getResult(0).hasOneUse())
    return false;
  bool isConv = isa<hodu::ConvOp>(root);
  int64_t rank = rt.getRank();
  if (rank < 2 || (!isConv && w->getType().getRank() != 2))
    return false;
  int64_t axis = isConv ? 1 : rank - 1;
  Value start = root->getResult(0);
  AffineChain ch =
      collectChain(start, *start.getUsers().begin(), rt, axis);
  if (ch.ops.empty() || (!ch.scaled && ch.ops.size() < 2))
    return false;

  // The scaled weights: conv scales output channel o = dim 0 of W, matmul
  // column n = dim 1 of W[K, N].
  Output newW(w->getType(), folder.resourceBytes);
  ArrayRef<int64_t> wShape = w->shape();
  int64_t inner = isConv ? w->size() / wShape[0] : 1;
  for (int64_t i = 0, n = w->size(); i < n; ++i) {
    int64_t c = isConv ? i / inner : i % wShape[1];
    newW.setF(i, w->f(i) * ch.s[c]);
  }
  OpBuilder b(ch.ops.back());
  Location loc = ch.ops.back()->getLoc();
  Value wConst = hodu::ConstantOp::create(b, root->getLoc(), newW.finish());
  Operation *newRoot = b.clone(*root);
  newRoot->setOperand(1, wConst);
  Value result = newRoot->getResult(0);
  if (anyNot(ch.t, 0.0))
    result = hodu::AddOp::create(
        b, loc, result,
        channelConstant(b, loc, ch.t, rank, axis, rt.getElementType(), folder));
  replaceChain(ch, result);
  root->erase();
  return true;
}

/// The non-constant operand of an affine op, if it has exactly one.
Value affineInput(Operation *op) {
  if (!isa<hodu::HoduDialect>(op->getDialect()) || op->getNumResults() != 1)
    return {};
  StringRef name = op->getName().stripDialect();
  if (op->hasAttr("scalar") && name.ends_with("_scalar"))
    name = name.drop_back(strlen("_scalar"));
  if (!isAffineOpName(name))
    return {};
  Value data;
  for (Value v : op->getOperands()) {
    if (constantOf(v))
      continue;
    if (data)
      return {};
    data = v;
  }
  return data;
}

/// Collapses a per-channel affine chain on any value (BatchNormalization
/// after something other than a conv) into at most one mul and one add.
bool collapseChain(Operation *head, const Folder &folder) {
  Value x = affineInput(head);
  if (!x)
    return false;
  auto rt = dyn_cast<RankedTensorType>(x.getType());
  if (!rt || !rt.hasStaticShape() || rt.getRank() < 1 ||
      !isa<FloatType>(rt.getElementType()) || !kindOf(rt.getElementType()))
    return false;
  int64_t rank = rt.getRank();
  for (int64_t axis : {std::min<int64_t>(1, rank - 1), rank - 1}) {
    AffineChain ch = collectChain(x, head, rt, axis);
    bool needMul = anyNot(ch.s, 1.0), needAdd = anyNot(ch.t, 0.0);
    if (ch.ops.size() <= static_cast<size_t>(needMul + needAdd))
      continue;
    OpBuilder b(ch.ops.back());
    Location loc = ch.ops.back()->getLoc();
    Value v = x;
    Type elt = rt.getElementType();
    if (needMul)
      v = hodu::MulOp::create(
          b, loc, v, channelConstant(b, loc, ch.s, rank, axis, elt, folder));
    if (needAdd)
      v = hodu::AddOp::create(
          b, loc, v, channelConstant(b, loc, ch.t, rank, axis, elt, folder));
    replaceChain(ch, v);
    return true;
  }
  return false;
}

struct FoldConstantsPass
    : hodu::impl::FoldConstantsBase<FoldConstantsPass> {
  using FoldConstantsBase::FoldConstantsBase;

  void runOnOperation() override {
    Folder folder{sizeLimit, resourceBytes};
    ModuleOp module = getOperation();

    // Evaluate ops on constants, producers first (functions are one block
    // in program order, so a walk sees a folded producer before its users).
    auto foldAll = [&] {
      module.walk([&](Operation *op) {
        if (!isa<hodu::HoduDialect>(op->getDialect()) ||
            isa<hodu::ConstantOp>(op) || op->getNumOperands() == 0)
          return;
        SmallVector<Elements, 3> inputs;
        for (Value v : op->getOperands()) {
          auto e = Elements::get(constantOf(v));
          if (!e)
            return;
          inputs.push_back(std::move(*e));
        }
        ElementsAttr value = folder.fold(op, inputs);
        if (!value)
          return;
        OpBuilder b(op);
        auto c = hodu::ConstantOp::create(b, op->getLoc(), value);
        op->getResult(0).replaceAllUsesWith(c.getResult());
        op->erase();
      });
    };
    foldAll();

    SmallVector<Operation *> roots;
    module.walk([&](Operation *op) {
      if (isa<hodu::ConvOp, hodu::MatmulOp>(op))
        roots.push_back(op);
    });
    for (Operation *root : roots)
      foldAffineTail(root, folder);

    // Remaining chains start at an affine op whose input is not itself the
    // single-use result of an affine op (chains never overlap).
    SmallVector<Operation *> heads;
    module.walk([&](Operation *op) {
      Value x = affineInput(op);
      if (!x)
        return;
      Operation *producer = x.getDefiningOp();
      if (producer && x.hasOneUse() && affineInput(producer))
        return;
      heads.push_back(op);
    });
    for (Operation *head : heads)
      collapseChain(head, folder);

    // Constants nothing reads any more (folded operands).
    SmallVector<Operation *> dead;
    module.walk([&](hodu::ConstantOp c) {
      if (c->use_empty())
        dead.push_back(c);
    });
    for (Operation *op : dead)
      op->erase();
  }
};

} // namespace
