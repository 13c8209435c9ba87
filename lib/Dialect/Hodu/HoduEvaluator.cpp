//===- HoduEvaluator.cpp - hodu op semantics on constants -----------------===//
//
// The evaluator of include/hodu/Dialect/Hodu/Evaluator.h: the elementwise
// families (Unary, UnaryScalar, Binary with numpy broadcasting, Cmp,
// CmpScalar, BinaryLogical, UnaryLogical), `select`, `cast`, the shape ops
// that only move elements (`reshape`, `flatten`, `squeeze`, `unsqueeze`,
// `contiguous`, `broadcast`, `transpose`, `slice`, `flip`, `concat`), the
// indexing ops (`index_select`, `gather`, `index_put`) and
// `reduce_sum`/`mean`/`max`/`min`/`prod`; and `evaluateRange` (ONNX Range,
// which has no hodu op). Ops are told apart by class (TypeSwitch), never by
// name.
//
//===----------------------------------------------------------------------===//

#include "hodu/Dialect/Hodu/Evaluator.h"

#include "hodu/Dialect/Hodu/HoduOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace hodu;

//===----------------------------------------------------------------------===//
// Element types, views and writers
//===----------------------------------------------------------------------===//

std::optional<ElementKind> hodu::getElementKind(Type t) {
  if (t.isInteger(1))
    return ElementKind::Bool;
  if (auto i = dyn_cast<IntegerType>(t)) {
    // Only whole-byte widths have a plain byte layout in dense storage.
    if (i.getWidth() % 8 != 0 || i.getWidth() > 64)
      return std::nullopt;
    return i.isUnsigned() ? ElementKind::Unsigned : ElementKind::Signed;
  }
  if (auto f = dyn_cast<FloatType>(t))
    if (f.getWidth() % 8 == 0 && f.getWidth() <= 64)
      return ElementKind::Float;
  return std::nullopt;
}

static unsigned bytesOf(Type t) {
  return t.isInteger(1) ? 1 : (t.getIntOrFloatBitWidth() + 7) / 8;
}

static FloatRepr reprOf(Type t) {
  return t.isF32()   ? FloatRepr::F32
         : t.isF64() ? FloatRepr::F64
                     : FloatRepr::Other;
}

std::optional<ConstantView> ConstantView::get(Attribute attr) {
  auto elements = dyn_cast_if_present<ElementsAttr>(attr);
  if (!elements)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(elements.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  auto kind = getElementKind(type.getElementType());
  if (!kind)
    return std::nullopt;
  ConstantView e;
  e.attr = elements;
  e.type = type;
  e.kind = *kind;
  e.repr = reprOf(type.getElementType());
  e.bytes = bytesOf(type.getElementType());
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    e.splat = dense.isSplat();
    if (*kind == ElementKind::Bool) {
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

ConstantView ConstantView::asScalar() const {
  ConstantView e = *this;
  e.type = RankedTensorType::get({}, type.getElementType());
  e.splat = true;
  return e;
}

uint64_t ConstantView::raw(int64_t i) const {
  const char *p = ptr(i);
  switch (bytes) { // fixed-size copies, no call per element
  case 1:
    return static_cast<uint8_t>(*p);
  case 2: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  default: {
    uint64_t v = 0;
    std::memcpy(&v, p, bytes);
    return v;
  }
  }
}

double ConstantView::slowF(int64_t i) const {
  if (repr == FloatRepr::F64) {
    double v;
    std::memcpy(&v, ptr(i), 8);
    return v;
  }
  switch (kind) {
  case ElementKind::Bool:
    return raw(i) ? 1.0 : 0.0;
  case ElementKind::Signed:
    return static_cast<double>(static_cast<int64_t>(s(i)));
  case ElementKind::Unsigned:
    return static_cast<double>(raw(i));
  case ElementKind::Float:
    break;
  }
  auto ft = cast<FloatType>(type.getElementType());
  llvm::APFloat a(ft.getFloatSemantics(), llvm::APInt(ft.getWidth(), raw(i)));
  bool lost;
  a.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return a.convertToDouble();
}

uint64_t ConstantView::s(int64_t i) const {
  uint64_t v = raw(i);
  if (kind == ElementKind::Signed)
    return static_cast<uint64_t>(llvm::SignExtend64(v, bytes * 8));
  return v;
}

ConstantWriter::ConstantWriter(RankedTensorType type, int64_t resourceBytes)
    : type(type), kind(*getElementKind(type.getElementType())),
      repr(reprOf(type.getElementType())),
      bytes(bytesOf(type.getElementType())) {
  size_t total = static_cast<size_t>(type.getNumElements()) * bytes;
  if (kind != ElementKind::Bool &&
      static_cast<int64_t>(total) > resourceBytes) {
    blob = std::make_unique<AsmResourceBlob>(
        HeapAsmResourceBlob::allocate(total, alignof(uint64_t)));
    data = blob->getMutableData().data();
    std::memset(data, 0, total); // elements not written read as zero
  } else {
    vec.assign(total, 0);
    data = vec.data();
  }
}

ConstantWriter::~ConstantWriter() = default;

void ConstantWriter::setRaw(int64_t i, uint64_t v) {
  if (kind == ElementKind::Bool)
    v = v != 0;
  std::memcpy(data + i * bytes, &v, bytes);
}

void ConstantWriter::slowSetF(int64_t i, double v) {
  if (repr == FloatRepr::F64) {
    std::memcpy(data + i * 8, &v, 8);
    return;
  }
  if (kind != ElementKind::Float)
    return setRaw(i, kind == ElementKind::Signed
                         ? static_cast<uint64_t>(static_cast<int64_t>(v))
                         : static_cast<uint64_t>(v));
  llvm::APFloat a(v);
  bool lost;
  a.convert(cast<FloatType>(type.getElementType()).getFloatSemantics(),
            llvm::APFloat::rmNearestTiesToEven, &lost);
  setRaw(i, a.bitcastToAPInt().getZExtValue());
}

void ConstantWriter::copy(int64_t i, const ConstantView &in, int64_t j) {
  std::memcpy(data + i * bytes, in.ptr(j), bytes);
}

ElementsAttr ConstantWriter::finish() {
  if (kind == ElementKind::Bool)
    return DenseElementsAttr::get(
        type,
        ArrayRef<bool>(reinterpret_cast<const bool *>(vec.data()), vec.size()));
  if (blob)
    return DenseResourceElementsAttr::get(type, "hodu_folded",
                                          std::move(*blob));
  return DenseElementsAttr::getFromRawBuffer(type, vec);
}

//===----------------------------------------------------------------------===//
// Index walks
//===----------------------------------------------------------------------===//

namespace {

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

//===----------------------------------------------------------------------===//
// What each op computes, by class
//===----------------------------------------------------------------------===//

using UnaryFloatFn = double (*)(double);
/// An integer unary function on a value extended to 64 bits; the flag says
/// the dtype is unsigned.
using UnaryIntFn = uint64_t (*)(uint64_t, bool);

enum class BinaryKind {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  Pow,
  Maximum,
  Minimum,
  LeakyRelu,
  Elu
};
enum class CmpKind { Eq, Ne, Lt, Le, Gt, Ge };
enum class LogicalKind { And, Or, Xor };
enum class PredicateKind { Not, IsNan, IsInf, IsFinite };
enum class ReduceKind { Sum, Mean, Max, Min, Prod };

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double softplus(double x) { return std::log1p(std::exp(x)); }
double hardsigmoid(double x) { return std::clamp(x / 6.0 + 0.5, 0.0, 1.0); }

/// The float function of a Unary-family op, or null.
UnaryFloatFn unaryFloatFn(Operation *op) {
  return llvm::TypeSwitch<Operation *, UnaryFloatFn>(op)
      .Case<NegOp>([](auto) { return +[](double x) { return -x; }; })
      .Case<AbsOp>([](auto) { return +[](double x) { return std::fabs(x); }; })
      .Case<SignOp>([](auto) {
        return +[](double x) -> double {
          return std::isnan(x) ? x : (x > 0) - (x < 0);
        };
      })
      .Case<SquareOp>([](auto) { return +[](double x) { return x * x; }; })
      .Case<ReluOp>([](auto) {
        return +[](double x) { return std::isnan(x) ? x : x > 0 ? x : 0.0; };
      })
      .Case<SoftsignOp>(
          [](auto) { return +[](double x) { return x / (1 + std::fabs(x)); }; })
      .Case<SqrtOp>([](auto) { return +[](double x) { return std::sqrt(x); }; })
      .Case<RecipOp>([](auto) { return +[](double x) { return 1.0 / x; }; })
      .Case<SigmoidOp>([](auto) { return &sigmoid; })
      .Case<HardSigmoidOp>([](auto) { return &hardsigmoid; })
      .Case<GeluOp>([](auto) {
        return +[](double x) {
          return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
        };
      })
      .Case<SoftplusOp>([](auto) { return &softplus; })
      .Case<SiluOp>(
          [](auto) { return +[](double x) { return x * sigmoid(x); }; })
      .Case<HardSiluOp>(
          [](auto) { return +[](double x) { return x * hardsigmoid(x); }; })
      .Case<MishOp>([](auto) {
        return +[](double x) { return x * std::tanh(softplus(x)); };
      })
      .Case<SeluOp>([](auto) {
        return +[](double x) {
          const double a = 1.6732632423543772848170429916717;
          const double g = 1.0507009873554804934193349852946;
          return g * (x > 0 ? x : a * (std::exp(x) - 1));
        };
      })
      .Case<CeluOp>([](auto) {
        return +[](double x) {
          return std::max(0.0, x) + std::min(0.0, std::exp(x) - 1);
        };
      })
      .Case<SinOp>([](auto) { return +[](double x) { return std::sin(x); }; })
      .Case<CosOp>([](auto) { return +[](double x) { return std::cos(x); }; })
      .Case<TanOp>([](auto) { return +[](double x) { return std::tan(x); }; })
      .Case<AsinOp>([](auto) { return +[](double x) { return std::asin(x); }; })
      .Case<AcosOp>([](auto) { return +[](double x) { return std::acos(x); }; })
      .Case<AtanOp>([](auto) { return +[](double x) { return std::atan(x); }; })
      .Case<SinhOp>([](auto) { return +[](double x) { return std::sinh(x); }; })
      .Case<CoshOp>([](auto) { return +[](double x) { return std::cosh(x); }; })
      .Case<TanhOp>([](auto) { return +[](double x) { return std::tanh(x); }; })
      .Case<AsinhOp>(
          [](auto) { return +[](double x) { return std::asinh(x); }; })
      .Case<AcoshOp>(
          [](auto) { return +[](double x) { return std::acosh(x); }; })
      .Case<AtanhOp>(
          [](auto) { return +[](double x) { return std::atanh(x); }; })
      .Case<ExpOp>([](auto) { return +[](double x) { return std::exp(x); }; })
      .Case<Exp2Op>([](auto) { return +[](double x) { return std::exp2(x); }; })
      .Case<Exp10Op>(
          [](auto) { return +[](double x) { return std::pow(10.0, x); }; })
      .Case<LnOp>([](auto) { return +[](double x) { return std::log(x); }; })
      .Case<Log2Op>([](auto) { return +[](double x) { return std::log2(x); }; })
      .Case<Log10Op>(
          [](auto) { return +[](double x) { return std::log10(x); }; })
      .Case<CeilOp>([](auto) { return +[](double x) { return std::ceil(x); }; })
      .Case<FloorOp>(
          [](auto) { return +[](double x) { return std::floor(x); }; })
      // Round half to even (the default rounding mode).
      .Case<RoundOp>(
          [](auto) { return +[](double x) { return std::nearbyint(x); }; })
      .Case<ErfOp>([](auto) { return +[](double x) { return std::erf(x); }; })
      .Default([](Operation *) -> UnaryFloatFn { return nullptr; });
}

/// The integer function of a Unary-family op (neg, abs, sign, square, relu),
/// or null.
UnaryIntFn unaryIntFn(Operation *op) {
  return llvm::TypeSwitch<Operation *, UnaryIntFn>(op)
      .Case<NegOp>([](auto) { return +[](uint64_t x, bool) { return 0 - x; }; })
      .Case<AbsOp>([](auto) {
        return +[](uint64_t x, bool u) {
          return u || static_cast<int64_t>(x) >= 0 ? x : 0 - x;
        };
      })
      .Case<SignOp>([](auto) {
        return +[](uint64_t x, bool u) -> uint64_t {
          if (x == 0)
            return 0;
          return u || static_cast<int64_t>(x) > 0 ? 1 : ~uint64_t(0);
        };
      })
      .Case<SquareOp>(
          [](auto) { return +[](uint64_t x, bool) { return x * x; }; })
      .Case<ReluOp>([](auto) {
        return +[](uint64_t x, bool u) {
          return u || static_cast<int64_t>(x) > 0 ? x : 0;
        };
      })
      .Default([](Operation *) -> UnaryIntFn { return nullptr; });
}

/// The arithmetic of a Binary or UnaryScalar op.
std::optional<BinaryKind> binaryKind(Operation *op) {
  using R = std::optional<BinaryKind>;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case<AddOp, AddScalarOp>([](auto) { return BinaryKind::Add; })
      .Case<SubOp, SubScalarOp>([](auto) { return BinaryKind::Sub; })
      .Case<MulOp, MulScalarOp>([](auto) { return BinaryKind::Mul; })
      .Case<DivOp, DivScalarOp>([](auto) { return BinaryKind::Div; })
      .Case<RemOp, RemScalarOp>([](auto) { return BinaryKind::Rem; })
      .Case<PowOp, PowScalarOp>([](auto) { return BinaryKind::Pow; })
      .Case<MaximumOp, MaximumScalarOp>(
          [](auto) { return BinaryKind::Maximum; })
      .Case<MinimumOp, MinimumScalarOp>(
          [](auto) { return BinaryKind::Minimum; })
      .Case<LeakyReluOp, PreluOp>([](auto) { return BinaryKind::LeakyRelu; })
      .Case<EluOp>([](auto) { return BinaryKind::Elu; })
      .Default([](Operation *) -> R { return std::nullopt; });
}

/// The comparison of a Cmp or CmpScalar op.
std::optional<CmpKind> cmpKind(Operation *op) {
  using R = std::optional<CmpKind>;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case<EqOp, EqScalarOp>([](auto) { return CmpKind::Eq; })
      .Case<NeOp, NeScalarOp>([](auto) { return CmpKind::Ne; })
      .Case<LtOp, LtScalarOp>([](auto) { return CmpKind::Lt; })
      .Case<LeOp, LeScalarOp>([](auto) { return CmpKind::Le; })
      .Case<GtOp, GtScalarOp>([](auto) { return CmpKind::Gt; })
      .Case<GeOp, GeScalarOp>([](auto) { return CmpKind::Ge; })
      .Default([](Operation *) -> R { return std::nullopt; });
}

std::optional<LogicalKind> logicalKind(Operation *op) {
  using R = std::optional<LogicalKind>;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case<LogicalAndOp>([](auto) { return LogicalKind::And; })
      .Case<LogicalOrOp>([](auto) { return LogicalKind::Or; })
      .Case<LogicalXorOp>([](auto) { return LogicalKind::Xor; })
      .Default([](Operation *) -> R { return std::nullopt; });
}

/// Result of a binary float op (also the UnaryScalar ops with scalar `b`).
double binaryFloat(BinaryKind kind, double a, double b) {
  switch (kind) {
  case BinaryKind::Add:
    return a + b;
  case BinaryKind::Sub:
    return a - b;
  case BinaryKind::Mul:
    return a * b;
  case BinaryKind::Div:
    return a / b;
  case BinaryKind::Rem:
    return std::fmod(a, b);
  case BinaryKind::Pow:
    return std::pow(a, b);
  // IEEE 754-2019 maximum and minimum: NaN propagates, -0 < +0.
  case BinaryKind::Maximum:
    if (std::isnan(a) || std::isnan(b))
      return std::isnan(a) ? a : b;
    if (a == b)
      return std::signbit(a) ? b : a;
    return std::max(a, b);
  case BinaryKind::Minimum:
    if (std::isnan(a) || std::isnan(b))
      return std::isnan(a) ? a : b;
    if (a == b)
      return std::signbit(a) ? a : b;
    return std::min(a, b);
  case BinaryKind::LeakyRelu:
    return a < 0 ? b * a : a;
  case BinaryKind::Elu:
    return a < 0 ? b * (std::exp(a) - 1) : a;
  }
  llvm_unreachable("unknown binary kind");
}

/// Result of a binary integer op on values extended to 64 bits; nullopt
/// leaves the op alone (division by zero, overflowing division, negative
/// powers, float-only ops): the program's behaviour there is the runtime's
/// business.
std::optional<uint64_t> binaryInt(BinaryKind kind, uint64_t a, uint64_t b,
                                  bool isUnsigned, unsigned width) {
  int64_t sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
  int64_t minVal = width >= 64 ? INT64_MIN : -(int64_t(1) << (width - 1));
  switch (kind) {
  case BinaryKind::Add:
    return a + b;
  case BinaryKind::Sub:
    return a - b;
  case BinaryKind::Mul:
    return a * b;
  case BinaryKind::Div:
  case BinaryKind::Rem: {
    bool isDiv = kind == BinaryKind::Div;
    if (b == 0)
      return std::nullopt;
    if (isUnsigned)
      return isDiv ? a / b : a % b;
    if (sa == minVal && sb == -1)
      return std::nullopt;
    return static_cast<uint64_t>(isDiv ? sa / sb : sa % sb);
  }
  case BinaryKind::Maximum:
    return isUnsigned ? std::max(a, b)
                      : static_cast<uint64_t>(std::max(sa, sb));
  case BinaryKind::Minimum:
    return isUnsigned ? std::min(a, b)
                      : static_cast<uint64_t>(std::min(sa, sb));
  case BinaryKind::Pow: {
    if (!isUnsigned && sb < 0)
      return std::nullopt;
    uint64_t r = 1, base = a;
    for (uint64_t e = b; e; e >>= 1, base *= base)
      if (e & 1)
        r *= base;
    return r;
  }
  case BinaryKind::LeakyRelu:
  case BinaryKind::Elu:
    return std::nullopt;
  }
  llvm_unreachable("unknown binary kind");
}

/// Comparison of two elements of the same kind.
bool compare(CmpKind kind, const ConstantView &x, int64_t i,
             const ConstantView &y, int64_t j) {
  int c; // -1, 0, 1; NaN compares unordered (only `ne` is true).
  if (x.getKind() == ElementKind::Float) {
    double a = x.f(i), b = y.f(j);
    if (std::isnan(a) || std::isnan(b))
      return kind == CmpKind::Ne;
    c = a < b ? -1 : a > b ? 1 : 0;
  } else if (x.getKind() == ElementKind::Signed) {
    int64_t a = x.s(i), b = y.s(j);
    c = a < b ? -1 : a > b ? 1 : 0;
  } else {
    uint64_t a = x.raw(i), b = y.raw(j);
    c = a < b ? -1 : a > b ? 1 : 0;
  }
  switch (kind) {
  case CmpKind::Eq:
    return c == 0;
  case CmpKind::Ne:
    return c != 0;
  case CmpKind::Lt:
    return c < 0;
  case CmpKind::Le:
    return c <= 0;
  case CmpKind::Gt:
    return c > 0;
  case CmpKind::Ge:
    return c >= 0;
  }
  llvm_unreachable("unknown comparison");
}

/// A one-element constant holding the `scalar` attribute of a scalar op.
std::optional<ConstantView> scalarView(TypedAttr scalar) {
  auto type = RankedTensorType::get({}, scalar.getType());
  return ConstantView::get(
      DenseElementsAttr::get(type, ArrayRef<Attribute>(scalar)));
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

/// Evaluates one op into a result of type `rt` (static, with an
/// ElementKind) once the limits have been checked.
class Evaluator {
public:
  explicit Evaluator(int64_t resourceBytes) : resourceBytes(resourceBytes) {}

  ElementsAttr run(Operation *op, ArrayRef<ConstantView> in,
                   RankedTensorType rt);
  /// The piece of `x` of type `rt` that starts at `offset` along `dim`.
  ElementsAttr piece(const ConstantView &x, int64_t dim, int64_t offset,
                     RankedTensorType rt);

private:
  ElementsAttr convert(const ConstantView &x, RankedTensorType rt);
  ElementsAttr predicate(PredicateKind kind, const ConstantView &x,
                         RankedTensorType rt);
  ElementsAttr unary(Operation *op, const ConstantView &x, RankedTensorType rt);
  ElementsAttr broadcasting(Operation *op, ArrayRef<ConstantView> in,
                            RankedTensorType rt);
  ElementsAttr movement(Operation *op, ArrayRef<ConstantView> in,
                        RankedTensorType rt);
  ElementsAttr reduce(ReduceKind kind, ArrayRef<int64_t> dims,
                      const ConstantView &in, RankedTensorType rt);
  ElementsAttr indexSelect(const ConstantView &x, const ConstantView &indices,
                           int64_t dim, RankedTensorType rt);
  ElementsAttr gather(const ConstantView &x, const ConstantView &indices,
                      int64_t dim, RankedTensorType rt);
  ElementsAttr indexPut(const ConstantView &x, const ConstantView &indices,
                        const ConstantView &values, int64_t dim,
                        RankedTensorType rt);

  int64_t resourceBytes;
};

ElementsAttr Evaluator::run(Operation *op, ArrayRef<ConstantView> in,
                            RankedTensorType rt) {
  auto reduceCase = [&](ReduceKind kind) {
    return [&, kind](auto r) { return reduce(kind, r.getDims(), in[0], rt); };
  };
  auto predicateCase = [&](PredicateKind kind) {
    return [&, kind](auto) { return predicate(kind, in[0], rt); };
  };
  return llvm::TypeSwitch<Operation *, ElementsAttr>(op)
      .Case<CastOp>([&](auto) { return convert(in[0], rt); })
      .Case<LogicalNotOp>(predicateCase(PredicateKind::Not))
      .Case<IsNanOp>(predicateCase(PredicateKind::IsNan))
      .Case<IsInfOp>(predicateCase(PredicateKind::IsInf))
      .Case<IsFiniteOp>(predicateCase(PredicateKind::IsFinite))
      .Case<ReduceSumOp>(reduceCase(ReduceKind::Sum))
      .Case<ReduceMeanOp>(reduceCase(ReduceKind::Mean))
      .Case<ReduceMaxOp>(reduceCase(ReduceKind::Max))
      .Case<ReduceMinOp>(reduceCase(ReduceKind::Min))
      .Case<ReduceProdOp>(reduceCase(ReduceKind::Prod))
      // Shape-only ops reuse the data (a dense reshape or the same blob).
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, ContiguousOp>(
          [&](auto) -> ElementsAttr {
            ElementsAttr attr = in[0].getAttr();
            if (auto dense = dyn_cast<DenseElementsAttr>(attr))
              return dense.reshape(rt);
            if (auto res = dyn_cast<DenseResourceElementsAttr>(attr))
              return DenseResourceElementsAttr::get(rt, res.getRawHandle());
            return {};
          })
      .Case<TransposeOp, BroadcastOp, SliceOp, ConcatOp, FlipOp>(
          [&](auto) { return movement(op, in, rt); })
      .Case<IndexSelectOp>([&](IndexSelectOp s) {
        return indexSelect(in[0], in[1], s.getDim(), rt);
      })
      .Case<GatherOp>(
          [&](GatherOp g) { return gather(in[0], in[1], g.getDim(), rt); })
      .Case<IndexPutOp>([&](IndexPutOp p) {
        return indexPut(in[0], in[1], in[2], p.getDim(), rt);
      })
      .Default([&](Operation *) -> ElementsAttr {
        if (in.size() == 1 && !op->hasAttr("scalar"))
          return unary(op, in[0], rt);
        return broadcasting(op, in, rt);
      });
}

/// `cast`: every dtype to every dtype.
ElementsAttr Evaluator::convert(const ConstantView &x, RankedTensorType rt) {
  ConstantWriter out(rt, resourceBytes);
  ElementKind from = x.getKind(), to = out.getKind();
  unsigned outWidth = rt.getElementType().getIntOrFloatBitWidth();
  for (int64_t i = 0, n = rt.getNumElements(); i < n; ++i) {
    if (to == ElementKind::Bool) {
      out.setRaw(i, x.truth(i));
    } else if (to == ElementKind::Float || from == ElementKind::Float) {
      double v = x.f(i);
      // Out-of-range float to int conversion has no defined value.
      if (to != ElementKind::Float &&
          (std::isnan(v) ||
           std::fabs(v) >=
               std::ldexp(1.0, outWidth - (to == ElementKind::Signed)) ||
           (to == ElementKind::Unsigned && v <= -1.0)))
        return {};
      out.setF(i, v);
    } else {
      out.setRaw(i, x.s(i));
    }
  }
  return out.finish();
}

ElementsAttr Evaluator::predicate(PredicateKind kind, const ConstantView &x,
                                  RankedTensorType rt) {
  ConstantWriter out(rt, resourceBytes);
  for (int64_t i = 0, n = rt.getNumElements(); i < n; ++i) {
    bool r = false;
    switch (kind) {
    case PredicateKind::Not:
      r = !x.truth(i);
      break;
    case PredicateKind::IsNan:
      r = std::isnan(x.f(i));
      break;
    case PredicateKind::IsInf:
      r = std::isinf(x.f(i));
      break;
    case PredicateKind::IsFinite:
      r = std::isfinite(x.f(i));
      break;
    }
    out.setRaw(i, r);
  }
  return out.finish();
}

ElementsAttr Evaluator::unary(Operation *op, const ConstantView &x,
                              RankedTensorType rt) {
  if (x.shape() != rt.getShape())
    return {};
  ConstantWriter out(rt, resourceBytes);
  int64_t n = rt.getNumElements();
  if (x.getKind() == ElementKind::Float) {
    UnaryFloatFn fn = unaryFloatFn(op);
    if (!fn || out.getKind() != ElementKind::Float)
      return {};
    for (int64_t i = 0; i < n; ++i)
      out.setF(i, fn(x.f(i)));
    return out.finish();
  }
  UnaryIntFn fn = unaryIntFn(op);
  if (!fn || x.getKind() == ElementKind::Bool || out.getKind() != x.getKind())
    return {};
  for (int64_t i = 0; i < n; ++i)
    out.setRaw(i, fn(x.s(i), x.getKind() == ElementKind::Unsigned));
  return out.finish();
}

ElementsAttr Evaluator::broadcasting(Operation *op, ArrayRef<ConstantView> in,
                                     RankedTensorType rt) {
  // A scalar attribute is a one-element operand.
  SmallVector<ConstantView, 3> ops(in.begin(), in.end());
  if (auto scalar = op->getAttrOfType<TypedAttr>("scalar")) {
    auto s = scalarView(scalar);
    if (!s)
      return {};
    ops.push_back(*s);
  }
  bool isSelect = isa<SelectOp>(op);
  std::optional<BinaryKind> bin = binaryKind(op);
  std::optional<CmpKind> cmp = cmpKind(op);
  std::optional<LogicalKind> logical = logicalKind(op);
  if (isSelect ? ops.size() != 3
               : (!bin && !cmp && !logical) || ops.size() != 2)
    return {};
  // Every operand must broadcast to the result shape.
  ArrayRef<int64_t> shape = rt.getShape();
  SmallVector<Walk, 4> walks;
  for (const ConstantView &e : ops) {
    int64_t lead = rt.getRank() - e.getType().getRank();
    if (lead < 0)
      return {};
    for (int64_t d = 0; d < e.getType().getRank(); ++d)
      if (e.shape()[d] != 1 && e.shape()[d] != shape[lead + d])
        return {};
    walks.push_back({0, broadcastStrides(e.shape(), shape)});
  }
  walks.push_back({0, contiguousStrides(shape)});
  ConstantWriter out(rt, resourceBytes);

  if (isSelect) {
    if (ops[0].getKind() != ElementKind::Bool ||
        ops[1].getType().getElementType() != rt.getElementType() ||
        ops[2].getType().getElementType() != rt.getElementType())
      return {};
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      bool c = ops[0].truth(o[0]);
      out.copy(o[3], c ? ops[1] : ops[2], c ? o[1] : o[2]);
    });
    return out.finish();
  }
  const ConstantView &a = ops[0], &b = ops[1];
  if (a.getKind() != b.getKind())
    return {};
  if (logical) {
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      bool x = a.truth(o[0]), y = b.truth(o[1]);
      out.setRaw(o[2], *logical == LogicalKind::And  ? x && y
                       : *logical == LogicalKind::Or ? x || y
                                                     : x != y);
    });
    return out.finish();
  }
  if (cmp) {
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      out.setRaw(o[2], compare(*cmp, a, o[0], b, o[1]));
    });
    return out.finish();
  }
  if (a.getKind() == ElementKind::Float) {
    forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
      out.setF(o[2], binaryFloat(*bin, a.f(o[0]), b.f(o[1])));
    });
    return out.finish();
  }
  if (a.getKind() == ElementKind::Bool || out.getKind() != a.getKind())
    return {};
  bool ok = true, isUnsigned = a.getKind() == ElementKind::Unsigned;
  unsigned width = rt.getElementType().getIntOrFloatBitWidth();
  forEachIndex(shape, walks, [&](ArrayRef<int64_t> o) {
    if (!ok)
      return;
    auto r = binaryInt(*bin, a.s(o[0]), b.s(o[1]), isUnsigned, width);
    ok = r.has_value();
    if (ok)
      out.setRaw(o[2], *r);
  });
  return ok ? out.finish() : ElementsAttr();
}

ElementsAttr Evaluator::movement(Operation *op, ArrayRef<ConstantView> in,
                                 RankedTensorType rt) {
  ConstantWriter out(rt, resourceBytes);
  ArrayRef<int64_t> shape = rt.getShape();
  SmallVector<int64_t> outStrides = contiguousStrides(shape);
  const ConstantView &x = in[0];
  SmallVector<int64_t> inStrides = contiguousStrides(x.shape());
  auto copyAll = [&](ArrayRef<int64_t> iterShape, Walk src, Walk dst,
                     const ConstantView &from) {
    forEachIndex(iterShape, {src, dst},
                 [&](ArrayRef<int64_t> o) { out.copy(o[1], from, o[0]); });
  };
  Walk dense{0, outStrides};
  llvm::TypeSwitch<Operation *>(op)
      .Case<TransposeOp>([&](TransposeOp t) {
        Walk src;
        for (int64_t p : t.getPerm())
          src.strides.push_back(inStrides[p]);
        copyAll(shape, src, dense, x);
      })
      .Case<BroadcastOp>([&](auto) {
        copyAll(shape, {0, broadcastStrides(x.shape(), shape)}, dense, x);
      })
      .Case<SliceOp>([&](SliceOp s) {
        Walk src;
        for (size_t d = 0; d < shape.size(); ++d) {
          // A dim of one entry or none never steps (a step of INT64_MAX
          // times the stride would overflow); one of none starts nowhere.
          if (shape[d] > 0)
            src.base += s.getStarts()[d] * inStrides[d];
          src.strides.push_back(shape[d] > 1 ? s.getSteps()[d] * inStrides[d]
                                             : 0);
        }
        copyAll(shape, src, dense, x);
      })
      .Case<FlipOp>([&](FlipOp f) {
        Walk src{0, inStrides};
        for (int64_t d : f.getDims()) {
          src.base += (shape[d] - 1) * inStrides[d];
          src.strides[d] = -inStrides[d];
        }
        copyAll(shape, src, dense, x);
      })
      .Case<ConcatOp>([&](ConcatOp c) {
        int64_t dim = c.getDim(), at = 0;
        for (const ConstantView &e : in) {
          copyAll(e.shape(), {0, contiguousStrides(e.shape())},
                  {at * outStrides[dim], outStrides}, e);
          at += e.shape()[dim];
        }
      });
  return out.finish();
}

ElementsAttr Evaluator::reduce(ReduceKind kind, ArrayRef<int64_t> dims,
                               const ConstantView &in, RankedTensorType rt) {
  bool isFloat = in.getKind() == ElementKind::Float;
  if (in.getKind() == ElementKind::Bool ||
      (!isFloat && kind == ReduceKind::Mean))
    return {};
  bool isMax = kind == ReduceKind::Max, isMin = kind == ReduceKind::Min;
  bool isProd = kind == ReduceKind::Prod;
  ArrayRef<int64_t> shape = in.shape();
  // Output strides over the input's index space, 0 along reduced dims.
  SmallVector<int64_t> keptShape;
  SmallVector<bool> reduced(shape.size(), false);
  for (int64_t d : dims)
    reduced[d] = true;
  for (size_t d = 0; d < shape.size(); ++d)
    keptShape.push_back(reduced[d] ? 1 : shape[d]);
  SmallVector<int64_t> outStrides = contiguousStrides(keptShape);
  for (size_t d = 0; d < shape.size(); ++d)
    if (reduced[d])
      outStrides[d] = 0;
  int64_t n = rt.getNumElements(), count = in.size() / std::max<int64_t>(n, 1);
  bool isUnsigned = in.getKind() == ElementKind::Unsigned;
  double init = isMax ? -INFINITY : isMin ? INFINITY : isProd ? 1.0 : 0.0;
  std::vector<double> accF(isFloat ? n : 0, init);
  std::vector<uint64_t> accI(isFloat ? 0 : n, isProd ? 1 : 0);
  std::vector<bool> seen(isFloat ? 0 : n, false);
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
                   else if (isProd)
                     acc *= v;
                   else
                     acc += v;
                   return;
                 }
                 uint64_t v = in.s(o[0]);
                 uint64_t &acc = accI[j];
                 if (isMax || isMin) {
                   bool better = isUnsigned
                                     ? (isMax ? v > acc : v < acc)
                                     : (isMax ? int64_t(v) > int64_t(acc)
                                              : int64_t(v) < int64_t(acc));
                   if (!seen[j] || better)
                     acc = v;
                   seen[j] = true;
                 } else if (isProd) {
                   acc *= v;
                 } else {
                   acc += v;
                 }
               });
  ConstantWriter out(rt, resourceBytes);
  for (int64_t j = 0; j < n; ++j) {
    if (isFloat)
      out.setF(j, kind == ReduceKind::Mean ? accF[j] / count : accF[j]);
    else
      out.setRaw(j, accI[j]);
  }
  return out.finish();
}

/// The index `indices[j]` into a dimension of `size`, negative values
/// counting from the end; nullopt when it is outside (left to run time,
/// where the lowering clamps it).
std::optional<int64_t> indexAt(const ConstantView &indices, int64_t j,
                               int64_t size) {
  auto k = static_cast<int64_t>(indices.s(j));
  if (k < 0)
    k += size;
  if (k < 0 || k >= size)
    return std::nullopt;
  return k;
}

/// The slice copies of `index_select` and `index_put` along `dim` of a
/// tensor of `shape`: for every j, each element of slice `indices[j]` of
/// that tensor and the same element of slice j of a tensor with `count`
/// slices (flat offsets, passed to `copy(indexed, counted)`). False when an
/// index is outside the dim.
template <typename Fn>
bool forEachSlicePair(ArrayRef<int64_t> shape, int64_t dim,
                      const ConstantView &indices, int64_t count, Fn copy) {
  int64_t size = shape[dim], outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  for (size_t d = dim + 1; d < shape.size(); ++d)
    inner *= shape[d];
  for (int64_t j = 0; j < count; ++j) {
    std::optional<int64_t> k = indexAt(indices, j, size);
    if (!k)
      return false;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        copy((o * size + *k) * inner + i, (o * count + j) * inner + i);
  }
  return true;
}

/// `index_select`: result[o, j..., i] = x[o, indices[j...], i] along `dim`.
ElementsAttr Evaluator::indexSelect(const ConstantView &x,
                                    const ConstantView &indices, int64_t dim,
                                    RankedTensorType rt) {
  ConstantWriter out(rt, resourceBytes);
  bool ok = forEachSlicePair(
      x.shape(), dim, indices, indices.size(),
      [&](int64_t indexed, int64_t counted) { out.copy(counted, x, indexed); });
  return ok ? out.finish() : ElementsAttr();
}

/// `gather` (ONNX GatherElements): result[p] = x[p with p[dim] replaced by
/// indices[p]].
ElementsAttr Evaluator::gather(const ConstantView &x,
                               const ConstantView &indices, int64_t dim,
                               RankedTensorType rt) {
  SmallVector<int64_t> inStrides = contiguousStrides(x.shape());
  int64_t size = x.shape()[dim], dimStride = inStrides[dim];
  // Every index but `dim` reads the input where it writes the result.
  Walk src{0, inStrides};
  src.strides[dim] = 0;
  ConstantWriter out(rt, resourceBytes);
  bool ok = true;
  forEachIndex(rt.getShape(), {src, Walk{0, contiguousStrides(rt.getShape())}},
               [&](ArrayRef<int64_t> o) {
                 std::optional<int64_t> k =
                     ok ? indexAt(indices, o[1], size) : std::nullopt;
                 ok = k.has_value();
                 if (ok)
                   out.copy(o[1], x, o[0] + *k * dimStride);
               });
  return ok ? out.finish() : ElementsAttr();
}

/// `index_put`: a copy of `x` where slice `indices[j]` along `dim` is slice
/// `j` of `values`, in order (a repeated index keeps the last).
ElementsAttr Evaluator::indexPut(const ConstantView &x,
                                 const ConstantView &indices,
                                 const ConstantView &values, int64_t dim,
                                 RankedTensorType rt) {
  int64_t count = indices.size();
  if (values.getType().getElementType() != rt.getElementType() ||
      values.getType().getRank() != rt.getRank() ||
      values.shape()[dim] != count)
    return {};
  ConstantWriter out(rt, resourceBytes);
  for (int64_t i = 0, n = x.size(); i < n; ++i)
    out.copy(i, x, i);
  bool ok = forEachSlicePair(x.shape(), dim, indices, count,
                             [&](int64_t indexed, int64_t counted) {
                               out.copy(indexed, values, counted);
                             });
  return ok ? out.finish() : ElementsAttr();
}

ElementsAttr Evaluator::piece(const ConstantView &x, int64_t dim,
                              int64_t offset, RankedTensorType rt) {
  SmallVector<int64_t> inStrides = contiguousStrides(x.shape());
  ConstantWriter out(rt, resourceBytes);
  forEachIndex(rt.getShape(),
               {Walk{offset * inStrides[dim], inStrides},
                Walk{0, contiguousStrides(rt.getShape())}},
               [&](ArrayRef<int64_t> o) { out.copy(o[1], x, o[0]); });
  return out.finish();
}

bool isReduction(Operation *op) {
  return isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(
      op);
}

} // namespace

/// `split`: one piece per result, each after the ones before it.
/// Whether a static shape's element count fits int64 (a model may declare
/// dims whose product does not; such a tensor is left for run time, where
/// the tensor-size check refuses it).
static bool countable(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return false;
  return true;
}

static SmallVector<ElementsAttr> evaluateSplit(SplitOp op,
                                               const ConstantView &x,
                                               const EvaluationLimits &limits) {
  // The pieces together visit (and hold) every input element once.
  if (!countable(x.getType().getShape()))
    return {};
  if (!x.isSplat() &&
      (x.size() > limits.maxElements || x.size() > limits.maxWork))
    return {};
  SmallVector<ElementsAttr> results;
  int64_t offset = 0, dim = op.getDim();
  for (Value r : op.getResults()) {
    auto rt = dyn_cast<RankedTensorType>(r.getType());
    if (!rt || !rt.hasStaticShape() ||
        rt.getElementType() != x.getType().getElementType())
      return {};
    if (x.isSplat()) {
      ConstantWriter one(RankedTensorType::get({}, rt.getElementType()),
                         INT64_MAX);
      one.copy(0, x, 0);
      results.push_back(cast<DenseElementsAttr>(one.finish()).resizeSplat(rt));
    } else {
      results.push_back(
          Evaluator(limits.resourceBytes).piece(x, dim, offset, rt));
    }
    offset += rt.getDimSize(dim);
  }
  return results;
}

SmallVector<ElementsAttr>
hodu::evaluateResults(Operation *op, ArrayRef<ConstantView> operands,
                      const EvaluationLimits &limits) {
  if (auto split = dyn_cast<SplitOp>(op))
    return operands.size() == 1 ? evaluateSplit(split, operands[0], limits)
                                : SmallVector<ElementsAttr>();
  if (ElementsAttr value = evaluate(op, operands, limits))
    return {value};
  return {};
}

ElementsAttr hodu::evaluate(Operation *op, ArrayRef<ConstantView> operands,
                            const EvaluationLimits &limits) {
  if (op->getNumResults() != 1 || operands.empty() ||
      operands.size() != op->getNumOperands())
    return {};
  auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!rt || !rt.hasStaticShape() || !getElementKind(rt.getElementType()) ||
      !countable(rt.getShape()) ||
      llvm::any_of(operands, [](const ConstantView &e) {
        return !countable(e.getType().getShape());
      }))
    return {};

  // All-splat inputs give a splat result (except concat, reductions and the
  // indexing ops, whose indices must be checked), which costs one element
  // whatever its size: evaluate one element.
  if (llvm::all_of(operands,
                   [](const ConstantView &e) { return e.isSplat(); }) &&
      !isa<ConcatOp, IndexSelectOp, GatherOp, IndexPutOp>(op) &&
      !isReduction(op)) {
    SmallVector<ConstantView, 3> scalars;
    for (const ConstantView &e : operands)
      scalars.push_back(e.asScalar());
    auto scalarType = RankedTensorType::get({}, rt.getElementType());
    ElementsAttr value;
    if (isa<TransposeOp, BroadcastOp, SliceOp, FlipOp, ReshapeOp, FlattenOp,
            SqueezeOp, UnsqueezeOp, ContiguousOp>(op)) {
      ConstantWriter out(scalarType, INT64_MAX);
      out.copy(0, scalars[0], 0);
      value = out.finish();
    } else {
      value = Evaluator(INT64_MAX).run(op, scalars, scalarType);
    }
    if (auto dense = dyn_cast_if_present<DenseElementsAttr>(value))
      return dense.resizeSplat(rt);
    return {};
  }
  // A reduction visits every element of its input, `index_put` its input
  // and its values; everything else visits each result element once.
  int64_t work = isReduction(op) ? operands[0].size()
                 : isa<IndexPutOp>(op)
                     ? rt.getNumElements() + operands[2].size()
                     : rt.getNumElements();
  if (rt.getNumElements() > limits.maxElements || work > limits.maxWork)
    return {};
  return Evaluator(limits.resourceBytes).run(op, operands, rt);
}

ElementsAttr hodu::evaluateRange(const ConstantView &start,
                                 const ConstantView &limit,
                                 const ConstantView &delta,
                                 const EvaluationLimits &limits) {
  Type elt = start.getType().getElementType();
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1 ||
      limit.getType().getElementType() != elt ||
      delta.getType().getElementType() != elt ||
      start.getKind() == ElementKind::Bool)
    return {};
  bool isFloat = start.getKind() == ElementKind::Float;
  int64_t count;
  if (isFloat) {
    double s = start.f(0), l = limit.f(0), d = delta.f(0);
    double n = std::ceil((l - s) / d);
    // Also refuses NaN and infinite counts (delta 0, non-finite bounds).
    if (!(n < static_cast<double>(limits.maxElements) + 1))
      return {};
    // n may be far below int64's range (converting it is undefined).
    count = n > 0 ? static_cast<int64_t>(n) : 0;
  } else {
    // Exact in 64-bit unsigned arithmetic: limit - start may overflow the
    // signed type, never the span between them as an unsigned number.
    bool isUnsigned = start.getKind() == ElementKind::Unsigned;
    uint64_t s = start.s(0), l = limit.s(0), d = delta.s(0);
    auto less = [&](uint64_t a, uint64_t b) {
      return isUnsigned ? a < b
                        : static_cast<int64_t>(a) < static_cast<int64_t>(b);
    };
    if (d == 0)
      return {};
    bool up = isUnsigned || static_cast<int64_t>(d) > 0;
    uint64_t span = up ? (less(s, l) ? l - s : 0) : (less(l, s) ? s - l : 0);
    uint64_t step = up ? d : 0 - d;
    uint64_t n = span / step + (span % step != 0);
    if (n > static_cast<uint64_t>(limits.maxElements))
      return {};
    count = static_cast<int64_t>(n);
  }
  if (count > limits.maxElements || count > limits.maxWork)
    return {};
  ConstantWriter out(RankedTensorType::get({count}, elt), limits.resourceBytes);
  for (int64_t i = 0; i < count; ++i) {
    if (isFloat)
      out.setF(i, start.f(0) + static_cast<double>(i) * delta.f(0));
    else
      out.setRaw(i, start.s(0) + static_cast<uint64_t>(i) * delta.s(0));
  }
  return out.finish();
}

ElementsAttr hodu::getConstantValue(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  return c ? c.getValue() : ElementsAttr();
}

SmallVector<Value> hodu::foldToConstants(Operation *op,
                                         const EvaluationLimits &limits) {
  if (!isa<HoduDialect>(op->getDialect()) || isa<ConstantOp>(op) ||
      op->getNumOperands() == 0)
    return {};
  SmallVector<ConstantView, 3> operands;
  for (Value v : op->getOperands()) {
    auto view = ConstantView::get(getConstantValue(v));
    if (!view)
      return {};
    operands.push_back(std::move(*view));
  }
  SmallVector<ElementsAttr> values = evaluateResults(op, operands, limits);
  if (values.empty())
    return {};
  OpBuilder b(op);
  SmallVector<Value> constants;
  for (auto [result, value] : llvm::zip_equal(op->getResults(), values)) {
    constants.push_back(ConstantOp::create(b, op->getLoc(), value));
    result.replaceAllUsesWith(constants.back());
  }
  op->erase();
  return constants;
}
