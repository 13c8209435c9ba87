//===- Int8Dot.cpp - 8-bit integer convolutions and matmuls in int32 -----===//
//
// A quantized convolution (ONNX ConvInteger, QLinearConv, or any f32 conv
// whose operands are 8-bit integers) arrives here as an f32 convolution of
//   x_f = uitofp(x) - zx        (x a uint8 tensor, zx a uint8 scalar)
// zero-padded, with a constant filter W' of whole numbers (the weights less
// their zero point, folded at import). When every W' value fits in an int8
// the sums are computed in int32 with AVX-512 VNNI (vpdpbusd: 16 lanes, each
// the sum of 4 uint8 x int8 products, 64 multiply-adds per instruction):
//   acc[f, p] = sum_k W'[f, k] * xpad[k, p]     (xpad padded with zx)
//   y[f, p]   = float(acc[f, p] - zx * sum_k W'[f, k])
// which is the same integer the f32 convolution computes (exactly, where
// f32 holds it; past 2^24 the int32 sum is the exact one).
//
// Without VNNI (AVX2, or AVX-512BW alone) the same kernels take int16
// pairs instead of 4 bytes per 32-bit word: vpmaddwd multiplies 2 int16
// pairs per int32 lane and adds them (16 multiply-adds per 256-bit
// instruction, then a vpaddd into the accumulator), exactly: the inputs
// are uint8 zero-extended at packing, the weights int16, so that no pair
// sum leaves the int32 range (AVX2's vpmaddubsw, 32 byte products summed
// in saturating int16 pairs, is what ONNX Runtime uses there, and its sums
// are wrong where a pair passes 32767). The weights need no offsets: W'
// of uint8 weights less a zero point fits an int16. Everything below that
// says "word of 4 bytes" is a word of 2 int16 values there, and with
// 256-bit vectors (8 lanes, 16 registers) a panel of 16 output columns is
// two vectors, each broadcast weight word feeding both.
//
// Layout. K is ordered (tap, channel), the channels padded to a multiple of
// 4; a group of 4 consecutive k (4 channels of one tap) is one 32-bit word.
// The filter is packed at compile time as words Wp[f / mr, k / 4, f % mr]
// (mr filters per register block); a panel of 16 output columns of one
// output row is packed at run time, on the thread that reads it, as
// Bp[k / 4, col, k % 4] (64 bytes per word group: one vector), from four
// 16-byte rows of the padded input interleaved. The kernel keeps mr
// accumulators of 16 int32 lanes, and per word group loads one B vector and
// broadcasts one weight word per accumulator.
//
// A matmul (MatMulInteger, QLinearMatMul) of uitofp(x) - zx by a constant
// [K, N] is the same with the roles turned: the columns are the vector
// lanes, packed at compile time as Bp[panel, k / 4, column * 4 + k % 4]
// (panels of 32 columns, two vectors, or 16), and 4 bytes of a row of x
// are broadcast per instruction (x padded to whole words and row blocks);
// an offset column's correction uses x's row sums. The importer's int32
// form (sums past 2^24) is taken the same way.
//
// Where the target has AMX (amx-int8, Linux), a matmul of at least
// kAmxMinRows rows computes its panels with tile instructions instead
// (tdpbusd: a 16 x 64 uint8 tile by a 16 x 64 int8 tile of words, 16384
// multiply-adds): the same packed B, each panel of 32 columns two tiles of
// 16 (row stride 128 bytes), read as 16 words at a time; x padded to whole
// tiles (16 rows, 64 bytes of K). A convolution (any rows) takes the tiles
// with the roles turned: its filter rows, packed as rows of bytes, are the
// signed tiles, the run-time panel of 16 columns the unsigned one
// (tdpbsud). At tensor level a group of matmul panels, or one conv panel,
// is a linalg.generic marked kAmxTiles, which hodu-cpu-amx-tiles turns
// into tile loads, products and stores after bufferization. Whether the OS lets
// the process use the tile registers (Linux asks each process to request them)
// is asked at run time, once, by @__hodu_amx_ready; where it says no, the
// VNNI kernels above run instead (both are in the artifact).
//
//===----------------------------------------------------------------------===//

#include "Int8Dot.h"
#include "TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace {

// AMX: a tile is 16 rows of 64 bytes (K: 16 words of 4 bytes; an int32
// accumulator: 16 columns). Below kAmxMinRows rows of x, the padding to 16
// costs more than the tiles gain over VNNI (a quarter of the rows used is
// about VNNI's peak).
constexpr int64_t kTileRows = 16;
constexpr int64_t kAmxMinRows = 4;
constexpr int64_t kAmxGroups = 8; // most panel groups of one matmul

/// The single op of `g`'s body before its yield, if it has exactly one and
/// the yield returns it.
Operation *singleBodyOp(linalg::GenericOp g) {
  Block &body = g.getRegion().front();
  if (body.getOperations().size() != 2)
    return nullptr;
  Operation *op = &body.front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1 || yield.getOperand(0) != op->getResult(0))
    return nullptr;
  return op;
}

bool allParallelIdentity(linalg::GenericOp g) {
  return g.getNumLoops() == g.getNumParallelLoops() &&
         llvm::all_of(g.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); });
}

/// `v` = uitofp(u) (or extui(u), the importer's int32 form) elementwise, u
/// a tensor of i8 (uint8 values): u.
Value uint8Source(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      !allParallelIdentity(g))
    return nullptr;
  Operation *op = singleBodyOp(g);
  if (!isa_and_present<arith::UIToFPOp, arith::ExtUIOp>(op) ||
      op->getOperand(0) != g.getRegion().front().getArgument(0) ||
      !op->getOperand(0).getType().isInteger(8))
    return nullptr;
  return g.getDpsInputs()[0];
}

/// Where a convolution's input comes from: the uint8 tensor, its zero point
/// (a 0-d uint8 tensor, or a constant), the static slice taken of it.
struct Uint8Input {
  Value x;               // tensor of i8, uint8 values
  Value zeroTensor;      // tensor<i8> (uint8) or null
  int64_t zeroConst = 0; // when zeroTensor is null
  // A slice of x (the importer's channel parts), else empty.
  SmallVector<OpFoldResult> offsets, sizes;
};

/// The zero point behind `z`, the subtrahend of x_f = uitofp(x) - z: a
/// 0-d uitofp of a uint8 tensor, or a whole constant in [0, 255].
bool zeroPointOf(Value z, Uint8Input &in) {
  if (Value u = uint8Source(z)) {
    if (cast<RankedTensorType>(u.getType()).getRank() != 0)
      return false;
    in.zeroTensor = u;
    return true;
  }
  auto cst = z.getDefiningOp<arith::ConstantOp>();
  auto dense = cst ? dyn_cast<DenseElementsAttr>(cst.getValue()) : nullptr;
  if (!dense || !dense.isSplat())
    return false;
  double v;
  if (auto fp = dyn_cast<DenseFPElementsAttr>(dense))
    v = fp.getSplatValue<APFloat>().convertToDouble();
  else
    v = static_cast<double>(dense.getSplatValue<APInt>().getSExtValue());
  if (v != std::floor(v) || v < 0 || v > 255)
    return false;
  in.zeroConst = static_cast<int64_t>(v);
  return true;
}

/// Matches the conv input (after its zero padding) as uitofp(x) - zx, or
/// uitofp(x), or a static unit-stride slice of either.
std::optional<Uint8Input> matchUint8Input(Value v) {
  Uint8Input in;
  if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!slice.hasUnitStride() ||
        slice.getSourceType().getRank() != slice.getResultType().getRank() ||
        !slice.getSourceType().hasStaticShape())
      return std::nullopt;
    for (OpFoldResult o : slice.getMixedOffsets())
      if (!getConstantIntValue(o))
        return std::nullopt;
    in.offsets = slice.getMixedOffsets();
    in.sizes = slice.getMixedSizes();
    v = slice.getSource();
  }
  if (Value u = uint8Source(v)) {
    in.x = u;
    return in;
  }
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 2 || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != g.getNumParallelLoops())
    return std::nullopt;
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (!maps[0].isIdentity() || !maps[2].isIdentity() ||
      maps[1].getNumResults() != 0)
    return std::nullopt;
  Operation *sub = singleBodyOp(g);
  Block &body = g.getRegion().front();
  if (!isa_and_present<arith::SubFOp, arith::SubIOp>(sub) ||
      sub->getOperand(0) != body.getArgument(0) ||
      sub->getOperand(1) != body.getArgument(1))
    return std::nullopt;
  in.x = uint8Source(g.getDpsInputs()[0]);
  if (!in.x || !zeroPointOf(g.getDpsInputs()[1], in))
    return std::nullopt;
  return in;
}

/// The values of a constant f32/f64/i32/i64 tensor, if it is one.
std::optional<std::vector<double>> constantValues(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return std::nullopt;
  auto type = cast<RankedTensorType>(cst.getType());
  int64_t n = type.getNumElements();
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  bool isFloat = isa<FloatType>(type.getElementType());
  if (!isFloat && bits != 32 && bits != 64)
    return std::nullopt;
  std::vector<double> out(n);
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      dense && dense.isSplat()) {
    double v =
        isFloat
            ? dense.getSplatValue<APFloat>().convertToDouble()
            : static_cast<double>(dense.getSplatValue<APInt>().getSExtValue());
    std::fill(out.begin(), out.end(), v);
    return out;
  }
  ArrayRef<char> data;
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
    data = dense.getRawData();
  else if (auto res = dyn_cast<DenseResourceElementsAttr>(cst.getValue()))
    if (AsmResourceBlob *blob = res.getRawHandle().getBlob())
      data = blob->getData();
  if (data.size() != static_cast<size_t>(n) * bits / 8)
    return std::nullopt;
  for (int64_t i = 0; i < n; ++i) {
    const char *at = data.data() + bits / 8 * i;
    if (bits == 32 && isFloat) {
      float f;
      std::memcpy(&f, at, 4);
      out[i] = f;
    } else if (bits == 32) {
      int32_t v;
      std::memcpy(&v, at, 4);
      out[i] = v;
    } else if (isFloat) {
      std::memcpy(&out[i], at, 8);
    } else {
      int64_t v;
      std::memcpy(&v, at, 8);
      out[i] = static_cast<double>(v);
    }
  }
  return out;
}

/// The kernels' vectors for an Int8Isa: 32-bit words of `per` values of
/// type `elt` (4 bytes, or 2 int16), `lanes` words to a vector.
struct Dot {
  bool vnni;
  int64_t lanes, per;
  Type elt;
  int64_t registers;
  Dot(MLIRContext *ctx, const hodu::cpu::Int8Isa &kernels)
      : vnni(kernels.vnni), lanes(kernels.vnni ? 16 : kernels.vectorBits / 32),
        per(kernels.vnni ? 4 : 2),
        elt(IntegerType::get(ctx, kernels.vnni ? 8 : 16)),
        registers(kernels.registers) {}
  /// One vector of words, as values.
  VectorType values() const { return VectorType::get({per * lanes}, elt); }
  /// One vector of int32 sums.
  VectorType sums() const {
    return VectorType::get({lanes}, IntegerType::get(elt.getContext(), 32));
  }
  /// The range of a weight.
  int64_t lowest() const { return vnni ? -128 : -32768; }
  int64_t highest() const { return vnni ? 127 : 32767; }
  /// Rows of a register block of `vecs` accumulators per row: they, the
  /// `vecs` B vectors, a broadcast word (and vpmaddwd's product) in the
  /// registers.
  int64_t maxRows(int64_t vecs) const {
    int64_t rows = (registers - vecs - (vnni ? 1 : 2)) / vecs;
    return std::clamp<int64_t>(rows, 1, vecs == 1 ? 16 : 12);
  }
  /// Its name in strategies.
  StringRef name() const {
    return vnni          ? "int8 dot products (AVX-512 VNNI)"
           : lanes == 16 ? "int16 pair products (AVX-512BW vpmaddwd)"
                         : "int16 pair products (AVX2 vpmaddwd)";
  }
};

/// acc + the sums of `per` products zext(u) * sext(s) per int32 lane, as
/// vector ops marked kInt8Dot: one vpdpbusd (or vpmaddwd and an add) once
/// hodu-cpu-vector-to-llvm sees it (after bufferization, which takes no
/// LLVM intrinsic calls). With int16 pairs, u's values are uint8 (so that
/// its zero extension is its sign extension, as vpmaddwd's is).
Value int8Dot(OpBuilder &b, Location loc, const Dot &d, Value acc, Value u,
              Value s) {
  auto wide = VectorType::get({d.per * d.lanes}, b.getI32Type());
  Value prod =
      arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, wide, u),
                            arith::ExtSIOp::create(b, loc, wide, s));
  Value groups = vector::ShapeCastOp::create(
      b, loc, VectorType::get({d.lanes, d.per}, b.getI32Type()), prod);
  auto red = vector::MultiDimReductionOp::create(b, loc, groups, acc,
                                                 ArrayRef<bool>{false, true},
                                                 vector::CombiningKind::ADD);
  red->setAttr(hodu::cpu::kInt8Dot, b.getUnitAttr());
  return red;
}

/// Constant weights as int8 (int16 for pairs): per output, the offset `off`
/// that brings its whole-number weights W' into [lowest, highest] (0 where
/// they already are; none if some output's span more or a value is not
/// whole), and the sums of W'. With an offset,
/// sum W' x = sum (W' - off) x + off * sum x.
struct Int8Weights {
  SmallVector<int32_t> offsets, sums;
  bool needSums = false; // some offset is not 0
};

std::optional<Int8Weights>
int8Weights(const Dot &d, int64_t outputs, int64_t terms,
            llvm::function_ref<double(int64_t, int64_t)> value) {
  Int8Weights r;
  r.offsets.assign(outputs, 0);
  r.sums.assign(outputs, 0);
  for (int64_t o = 0; o < outputs; ++o) {
    double lo = 0, hi = 0;
    // The sum wraps as the int32 sums at run time do (the result is the
    // exact integer whenever it fits an int32, as ONNX's int32 is).
    uint32_t sum = 0;
    for (int64_t k = 0; k < terms; ++k) {
      double v = value(o, k);
      if (v != std::floor(v) || std::abs(v) > 65536)
        return std::nullopt;
      lo = k ? std::min(lo, v) : v;
      hi = k ? std::max(hi, v) : v;
      sum += static_cast<uint32_t>(static_cast<int32_t>(v));
    }
    r.sums[o] = static_cast<int32_t>(sum);
    if (hi - lo > d.highest() - d.lowest())
      return std::nullopt;
    if (lo < d.lowest() || hi > d.highest()) {
      r.offsets[o] = static_cast<int32_t>(hi - d.highest());
      r.needSums = true;
    }
  }
  return r;
}

/// The result of an int8 product: y = acc + off * inputSums - zx * sum W'
/// per element, as `type` (float: converted; int32: as it is). `acc` is
/// read through `accMap`, the per-output constants (`w.sums`, `w.offsets`)
/// through `outputMap`, `inputSums` (with offsets only) through `inputMap`.
Value correctedSums(OpBuilder &b, Location loc, RankedTensorType type,
                    Value acc, AffineMap accMap, const Int8Weights &w,
                    AffineMap outputMap, Value inputSums, AffineMap inputMap,
                    Value zx32) {
  auto constants = [&](ArrayRef<int32_t> values) -> Value {
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({int64_t(values.size())}, b.getI32Type()),
            values));
  };
  SmallVector<Value> ins{acc, constants(w.sums)};
  SmallVector<AffineMap> maps{accMap, outputMap};
  if (w.needSums) {
    ins.append({constants(w.offsets), inputSums});
    maps.append({outputMap, inputMap});
  }
  int64_t rank = type.getRank();
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  Type elt = type.getElementType();
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), elt);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ins, ValueRange{empty}, maps,
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &gb, Location l, ValueRange args) {
               Value sum = args[0];
               if (w.needSums)
                 sum = arith::AddIOp::create(
                     gb, l, sum,
                     arith::MulIOp::create(gb, l, args[2], args[3]));
               Value corr = arith::MulIOp::create(gb, l, zx32, args[1]);
               Value s = arith::SubIOp::create(gb, l, sum, corr);
               if (isa<FloatType>(elt))
                 s = arith::SIToFPOp::create(gb, l, elt, s);
               linalg::YieldOp::create(gb, l, s);
             })
      .getResult(0);
}

/// Whether `init` (a conv's or matmul's output operand) is a fill of 0.
bool startsAtZero(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  auto zero =
      fill ? fill.getInputs()[0].getDefiningOp<arith::ConstantOp>() : nullptr;
  if (!zero)
    return false;
  if (auto attr = dyn_cast<FloatAttr>(zero.getValue()))
    return attr.getValue().isZero();
  auto attr = dyn_cast<IntegerAttr>(zero.getValue());
  return attr && attr.getValue().isZero();
}

/// The zero point of `in` as an i8 value (uint8).
Value zeroPoint(OpBuilder &b, Location loc, const Uint8Input &in) {
  if (in.zeroTensor)
    return tensor::ExtractOp::create(b, loc, in.zeroTensor, ValueRange{});
  return arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(b.getI8Type(), static_cast<int8_t>(in.zeroConst)));
}

/// The uint8 tensor of `in`, sliced as the float one was.
Value slicedSource(OpBuilder &b, Location loc, const Uint8Input &in) {
  if (in.offsets.empty())
    return in.x;
  SmallVector<int64_t> shape;
  for (OpFoldResult s : in.sizes)
    shape.push_back(*getConstantIntValue(s));
  SmallVector<OpFoldResult> ones(shape.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(shape, b.getI8Type()), in.x, in.offsets,
      in.sizes, ones);
}

/// Static offsets, sizes or strides.
SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> r;
  for (int64_t v : values)
    r.push_back(b.getIndexAttr(v));
  return r;
}

Value idx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The marked generic of AMX panels, which hodu-cpu-amx-tiles lowers:
///   out += ext(a) * ext(w)
/// over `maps`' last two dims (the reductions; the others parallel), `a`
/// zero-extended and `w` sign-extended where `unsignedA`, else the reverse.
Value amxPanels(OpBuilder &b, Location loc, Value a, Value w, Value out,
                ArrayRef<AffineMap> maps, bool unsignedA) {
  SmallVector<utils::IteratorType> iterators(maps[0].getNumDims() - 2,
                                             utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  Type i32 = b.getI32Type();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{out.getType()}, ValueRange{a, w}, ValueRange{out},
      maps, iterators, [&](OpBuilder &gb, Location l, ValueRange args) {
        auto ext = [&](Value v, bool zero) -> Value {
          if (zero)
            return arith::ExtUIOp::create(gb, l, i32, v);
          return arith::ExtSIOp::create(gb, l, i32, v);
        };
        Value prod = arith::MulIOp::create(gb, l, ext(args[0], unsignedA),
                                           ext(args[1], !unsignedA));
        linalg::YieldOp::create(
            gb, l, arith::AddIOp::create(gb, l, args[2], prod).getResult());
      });
  generic->setAttr(hodu::cpu::kAmxTiles, b.getUnitAttr());
  return generic.getResult(0);
}

/// Whether the OS lets the run use the AMX tiles: a call, before `at`, of
/// @__hodu_amx_ready (declared here, defined by hodu-cpu-amx-tiles).
Value amxReady(OpBuilder &b, Location loc, Operation *at) {
  auto module = at->getParentOfType<ModuleOp>();
  auto f = module.lookupSymbol<func::FuncOp>(hodu::cpu::kAmxReady);
  if (!f) {
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    f = func::FuncOp::create(mb, module.getLoc(), hodu::cpu::kAmxReady,
                             mb.getFunctionType({}, {mb.getI1Type()}));
    f.setPrivate();
  }
  return func::CallOp::create(b, loc, f, ValueRange{}).getResult(0);
}

/// The tile kernel where `ready`, else the VNNI one: both build the same
/// sums (into the same tensor, so that neither branch needs a buffer).
Value tilesOrVnni(OpBuilder &b, Location loc, Value ready,
                  function_ref<Value(OpBuilder &)> tiles,
                  function_ref<Value(OpBuilder &)> vnni) {
  return scf::IfOp::create(
             b, loc, ready,
             [&](OpBuilder &tb, Location) {
               scf::YieldOp::create(tb, loc, tiles(tb));
             },
             [&](OpBuilder &eb, Location) {
               scf::YieldOp::create(eb, loc, vnni(eb));
             })
      .getResult(0);
}

} // namespace

std::optional<std::string>
hodu::cpu::convToInt8Dot(linalg::Conv2DNchwFchwOp conv, bool parallel,
                         const Int8Isa &kernels) {
  Dot d(conv.getContext(), kernels);
  const int64_t lanes = d.lanes, per = d.per;
  // Panels of 16 output columns: one vector (VNNI, or pairs at 512 bits),
  // or two of 8 lanes (pairs at 256 bits, whose 16 registers hold fewer
  // rows: two vectors per broadcast weight word are fewer broadcasts).
  const int64_t vecs = lanes < 16 ? 2 : 1, pw = vecs * lanes;
  auto inType = dyn_cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto wType = dyn_cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto outType = dyn_cast<RankedTensorType>(conv->getResult(0).getType());
  if (!inType || !wType || !outType || !inType.hasStaticShape() ||
      !wType.hasStaticShape() || !outType.hasStaticShape() ||
      inType.getDimSize(0) != 1)
    return std::nullopt;
  Type elt = outType.getElementType();
  if (!isa<Float32Type, Float64Type>(elt) || inType.getElementType() != elt ||
      wType.getElementType() != elt)
    return std::nullopt;
  if (!startsAtZero(conv.getOutputs()[0]))
    return std::nullopt;

  // The input: zero padding (spatial only) of uitofp(x) - zx.
  Value input = conv.getInputs()[0];
  SmallVector<int64_t> low(4, 0), high(4, 0);
  if (auto pad = input.getDefiningOp<tensor::PadOp>()) {
    Value pv = pad.getConstantPaddingValue();
    auto pc = pv ? pv.getDefiningOp<arith::ConstantOp>() : nullptr;
    auto pa = pc ? dyn_cast<FloatAttr>(pc.getValue()) : nullptr;
    if (!pa || !pa.getValue().isZero())
      return std::nullopt;
    for (auto [i, l, h] :
         llvm::enumerate(pad.getStaticLow(), pad.getStaticHigh())) {
      if (ShapedType::isDynamic(l) || ShapedType::isDynamic(h) || l < 0 ||
          h < 0)
        return std::nullopt;
      low[i] = l;
      high[i] = h;
    }
    if (low[0] || high[0] || low[1] || high[1])
      return std::nullopt;
    input = pad.getSource();
  }
  std::optional<Uint8Input> src = matchUint8Input(input);
  if (!src)
    return std::nullopt;

  std::optional<std::vector<double>> w = constantValues(conv.getInputs()[1]);
  if (!w)
    return std::nullopt;
  int64_t f = wType.getDimSize(0), c = wType.getDimSize(1),
          kh = wType.getDimSize(2), kw = wType.getDimSize(3);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  if (inType.getDimSize(1) != c)
    return std::nullopt;
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  int64_t sh = strides[0], sw = strides[1], dh = dilations[0],
          dw = dilations[1];
  // Panels of pw output columns of one row; strides past 4 read too wide a
  // row per vector.
  int64_t owp = llvm::alignTo(ow, pw);
  if (sw > 4)
    return std::nullopt;
  // Narrow rows at stride 1: panels run across the flattened padded plane
  // instead (as the f32 kernels' do), output p = oh * Wpad + ow reading
  // input p + kh * dh * Wpad + kw * dw, the Wpad - OW last of each row
  // computed and dropped; still at least half the lanes useful.
  int64_t wpad = inType.getDimSize(3); // the conv's input is padded
  int64_t planePanels = llvm::alignTo(oh * wpad, pw);
  bool flat = false;
  if (ow * 2 < owp) {
    if (sh != 1 || sw != 1 || oh * ow * 2 < planePanels)
      return std::nullopt;
    flat = true;
  }

  // Each filter's values: whole numbers within 255 of each other, so that
  // W' - off fits an int8 for some offset `off` per filter (uint8 weights
  // less their zero point span -255..255, any 256 of them; an int16 holds
  // them as they are). With offsets, sum W' x = sum (W' - off) x + off *
  // sum x, and sum x over the window is one more row of the product: ones.
  int64_t taps = kh * kw, terms = c * taps;
  std::optional<Int8Weights> iw = int8Weights(
      d, f, terms, [&](int64_t o, int64_t k) { return (*w)[o * terms + k]; });
  if (!iw)
    return std::nullopt;
  ArrayRef<int32_t> offsets = iw->offsets;
  bool needSums = iw->needSums;

  // Register blocks of at most 16 rows (the filters, then the row of ones
  // if needed; fewer in 16 registers), as even as they can be. Words of
  // `per` channels of one tap: c4 per tap, k4 in all.
  int64_t rows = f + (needSums ? 1 : 0);
  int64_t blocks = llvm::divideCeil(rows, d.maxRows(vecs));
  int64_t mr = llvm::divideCeil(rows, blocks), mp = blocks * mr;
  int64_t c4 = llvm::divideCeil(c, per), k4 = taps * c4;
  // AMX (see the matmuls): the filter rows are the x tiles (signed), the
  // panel the B tile (unsigned: tdpbsud), K in whole tiles of 16 words,
  // the filter rows (and the row of ones) in whole tiles of 16.
  bool tiles = kernels.amx && d.vnni;
  int64_t kt = tiles ? llvm::alignTo(k4, kTileRows) : k4;
  int64_t fa = tiles ? llvm::alignTo(rows, kTileRows) : mp;

  // The packed filter words.
  auto weight = [&](int64_t fi, int64_t ci, int64_t t) -> int64_t {
    if (ci >= c || fi > f || (fi == f && !needSums))
      return 0;
    if (fi == f)
      return 1;
    return static_cast<int64_t>((*w)[fi * terms + ci * taps + t]) - offsets[fi];
  };
  // Words Wp[block, k4, r] (one broadcast per accumulator). AMX:
  // rows of bytes Wa[fa, 4 kt] (a tile is 16 rows of 64 bytes), which the
  // VNNI branch then reads a word at a time.
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  MLIRContext *ctx = b.getContext();
  Type i8 = b.getI8Type(), i32 = b.getI32Type(), vt = d.elt;
  Value wp;
  if (tiles) {
    AsmResourceBlob packed = HeapAsmResourceBlob::allocate(
        static_cast<size_t>(fa * kt * 4), alignof(uint64_t));
    char *out = packed.getMutableData().data();
    std::memset(out, 0, packed.getData().size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t cg = 0; cg < c4; ++cg)
          for (int64_t j = 0; j < 4; ++j)
            out[(r * kt + t * c4 + cg) * 4 + j] = static_cast<char>(
                static_cast<int8_t>(weight(r, cg * 4 + j, t)));
    wp = arith::ConstantOp::create(
        b, loc,
        DenseResourceElementsAttr::get(
            RankedTensorType::get({fa, 4 * kt}, i8), "hodu_packed_int8",
            std::move(packed)));
  } else {
    AsmResourceBlob packed = HeapAsmResourceBlob::allocate(
        static_cast<size_t>(blocks * k4 * mr) * 4, alignof(uint64_t));
    char *out = packed.getMutableData().data();
    for (int64_t mb = 0; mb < blocks; ++mb)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t cg = 0; cg < c4; ++cg)
          for (int64_t r = 0; r < mr; ++r) {
            uint32_t word = 0;
            int64_t bits = 32 / per;
            for (int64_t j = 0; j < per; ++j)
              word |=
                  (static_cast<uint32_t>(weight(mb * mr + r, cg * per + j, t)) &
                   ((1u << bits) - 1))
                  << (bits * j);
            std::memcpy(out + ((mb * k4 + t * c4 + cg) * mr + r) * 4, &word, 4);
          }
    wp = arith::ConstantOp::create(
        b, loc,
        DenseResourceElementsAttr::get(
            RankedTensorType::get({blocks, k4, mr}, i32), "hodu_packed_int8",
            std::move(packed)));
  }

  // The zero point, as i8 (the padding) and i32 (the correction).
  Value zx8 = zeroPoint(b, loc, *src);
  Value zx32 = arith::ExtUIOp::create(b, loc, i32, zx8);

  // The uint8 input: sliced like the f32 one, padded with the zero point
  // (spatially as the conv pads, channels to whole words, and on the right
  // so that the last panel's reads stay inside).
  Value x = slicedSource(b, loc, *src);
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t h = xType.getDimSize(2);
  int64_t hpad = h + low[2] + high[2];
  int64_t extraW = 0, extraH = 0;
  if (flat)
    extraH = std::max<int64_t>(
        0, llvm::divideCeil(planePanels + (kh - 1) * dh * wpad + (kw - 1) * dw,
                            wpad) -
               hpad);
  else
    extraW = std::max<int64_t>(0, owp * sw + (kw - 1) * dw - wpad);
  SmallVector<int64_t> padLow{0, 0, low[2], low[3]},
      padHigh{0, c4 * per - c, high[2] + extraH, high[3] + extraW};
  SmallVector<int64_t> paddedShape{1, c4 * per, hpad + extraH, wpad + extraW};
  Value xp =
      tensor::PadOp::create(b, loc, RankedTensorType::get(paddedShape, i8), x,
                            indexAttrs(b, padLow), indexAttrs(b, padHigh), zx8);
  // The flattened plane as one row: [1, C, 1, Hpad * Wpad].
  if (flat) {
    SmallVector<ReassociationIndices> r{{0}, {1}, {2, 3}};
    int64_t len = (hpad + extraH) * wpad;
    xp = tensor::CollapseShapeOp::create(b, loc, xp, r);
    xp = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1, c4 * per, 1, len}, i8), xp, r);
  }
  // Where a tap reads: its row offset (i * rowStep) and column offset
  // (i * rowToCol + j * dw); in the flattened plane, rows are columns.
  int64_t rowStep = flat ? 0 : dh, rowToCol = flat ? dh * wpad : 0;
  int64_t outRows = flat ? 1 : oh, outCols = flat ? planePanels : owp;

  // acc[Fa, OH, OWp]: one parallel iteration per panel (output row oh,
  // pw columns from q * pw); flattened, acc[Fa, 1, panels * pw]. The
  // vector kernels write rows [0, mp), the tiles [0, fa).
  int64_t q = outCols / pw;
  auto accType = RankedTensorType::get({fa, outRows, outCols}, i32);
  Value accInit = tensor::EmptyOp::create(b, loc, accType.getShape(), i32);
  Value ok;
  if (tiles)
    ok = amxReady(b, loc, conv);
  auto b64 = d.values();
  auto acc16 = d.sums();
  Value acc = hodu::cpu::tileLoop(
      b, loc, outRows * q, 1, accInit, parallel,
      [&](OpBuilder &nb, Value t, Value carried,
          SmallVector<OpFoldResult> &offsets,
          SmallVector<OpFoldResult> &sizes) -> Value {
        Value row = arith::DivUIOp::create(nb, loc, t, idx(nb, loc, q));
        Value col0 = arith::MulIOp::create(
            nb, loc, arith::RemUIOp::create(nb, loc, t, idx(nb, loc, q)),
            idx(nb, loc, pw));
        offsets = {nb.getIndexAttr(0), row, col0};
        sizes = {nb.getIndexAttr(fa), nb.getIndexAttr(1), nb.getIndexAttr(pw)};
        Value c0 = idx(nb, loc, 0), c1 = idx(nb, loc, 1);
        // The panel Bp[kt, per * pw] (rows past k4 meet zero weights).
        Value panel0 = tensor::EmptyOp::create(
            nb, loc, ArrayRef<int64_t>{kt, per * pw}, vt);
        Value pad8 =
            arith::ConstantOp::create(nb, loc, nb.getIntegerAttr(i8, 0));
        Value padE =
            arith::ConstantOp::create(nb, loc, nb.getIntegerAttr(vt, 0));
        auto tapLoop = scf::ForOp::create(
            nb, loc, c0, idx(nb, loc, taps), c1, ValueRange{panel0},
            [&](OpBuilder &tb, Location, Value tap, ValueRange tapIter) {
              Value i = arith::DivUIOp::create(tb, loc, tap, idx(tb, loc, kw));
              Value j = arith::RemUIOp::create(tb, loc, tap, idx(tb, loc, kw));
              Value y = arith::AddIOp::create(
                  tb, loc, hodu::cpu::scaledIndex(tb, loc, row, sh, 0),
                  hodu::cpu::scaledIndex(tb, loc, i, rowStep, 0));
              Value xs = arith::AddIOp::create(
                  tb, loc,
                  arith::AddIOp::create(
                      tb, loc, hodu::cpu::scaledIndex(tb, loc, col0, sw, 0),
                      hodu::cpu::scaledIndex(tb, loc, i, rowToCol, 0)),
                  hodu::cpu::scaledIndex(tb, loc, j, dw, 0));
              Value kgBase = hodu::cpu::scaledIndex(tb, loc, tap, c4, 0);
              auto cgLoop = scf::ForOp::create(
                  tb, loc, idx(tb, loc, 0), idx(tb, loc, c4), idx(tb, loc, 1),
                  ValueRange{tapIter[0]},
                  [&](OpBuilder &cb, Location, Value cg, ValueRange cgIter) {
                    Value rows[4];
                    auto wide = VectorType::get({pw * sw}, i8);
                    for (int64_t r = 0; r < per; ++r) {
                      Value ch = hodu::cpu::scaledIndex(cb, loc, cg, per, r);
                      Value v = vector::TransferReadOp::create(
                          cb, loc, wide, xp,
                          ValueRange{idx(cb, loc, 0), ch, y, xs}, pad8,
                          ArrayRef<bool>{true});
                      if (sw > 1) {
                        SmallVector<int64_t> mask;
                        for (int64_t l = 0; l < pw; ++l)
                          mask.push_back(l * sw);
                        v = vector::ShuffleOp::create(cb, loc, v, v, mask);
                      }
                      rows[r] = v;
                    }
                    Value bytes;
                    if (per == 2) {
                      // Two channels zero-extended, interleaved.
                      auto half = VectorType::get({pw}, vt);
                      bytes = vector::InterleaveOp::create(
                          cb, loc,
                          arith::ExtUIOp::create(cb, loc, half, rows[0]),
                          arith::ExtUIOp::create(cb, loc, half, rows[1]));
                    } else {
                      Value ab = vector::InterleaveOp::create(cb, loc, rows[0],
                                                              rows[1]);
                      Value cd = vector::InterleaveOp::create(cb, loc, rows[2],
                                                              rows[3]);
                      auto half = VectorType::get({lanes}, cb.getI16Type());
                      Value words = vector::InterleaveOp::create(
                          cb, loc, vector::BitCastOp::create(cb, loc, half, ab),
                          vector::BitCastOp::create(cb, loc, half, cd));
                      bytes = vector::BitCastOp::create(cb, loc, b64, words);
                    }
                    Value kg = arith::AddIOp::create(cb, loc, kgBase, cg);
                    Value next = vector::TransferWriteOp::create(
                                     cb, loc, bytes, cgIter[0],
                                     ValueRange{kg, idx(cb, loc, 0)},
                                     ArrayRef<bool>{true})
                                     .getResult();
                    scf::YieldOp::create(cb, loc, next);
                  });
              scf::YieldOp::create(tb, loc, cgLoop.getResult(0));
            });
        Value panel = tapLoop.getResult(0);

        // The register blocks: mr accumulators over the k4 word groups.
        // With tiles, both branches of the choice write the panel's slice
        // of the sums in place (an empty tensor here would be a buffer of
        // its own per panel, allocated and copied).
        Value tile0 =
            tiles ? tensor::ExtractSliceOp::create(
                        nb, loc, RankedTensorType::get({fa, 1, pw}, i32),
                        carried, offsets, sizes, indexAttrs(nb, {1, 1, 1}))
                        .getResult()
                  : tensor::EmptyOp::create(nb, loc,
                                            ArrayRef<int64_t>{fa, 1, pw}, i32)
                        .getResult();
        auto vectorBlocks = [&](OpBuilder &nb) -> Value {
        Value zeroAcc = arith::ConstantOp::create(
            nb, loc, DenseElementsAttr::get(acc16, nb.getI32IntegerAttr(0)));
        auto blockLoop = scf::ForOp::create(
            nb, loc, c0, idx(nb, loc, blocks), c1, ValueRange{tile0},
            [&](OpBuilder &mb, Location, Value blk, ValueRange blkIter) {
              SmallVector<Value> inits(mr * vecs, zeroAcc);
              auto kLoop = scf::ForOp::create(
                  mb, loc, idx(mb, loc, 0), idx(mb, loc, k4), idx(mb, loc, 1),
                  inits,
                  [&](OpBuilder &kb, Location, Value kg, ValueRange accs) {
                    SmallVector<Value> bv;
                    for (int64_t v = 0; v < vecs; ++v)
                      bv.push_back(vector::TransferReadOp::create(
                          kb, loc, b64, panel,
                          ValueRange{kg, idx(kb, loc, v * per * lanes)}, padE,
                          ArrayRef<bool>{true}));
                    SmallVector<Value> next;
                    for (int64_t r = 0; r < mr; ++r) {
                      Value word;
                      if (tiles)
                        word = vector::BitCastOp::create(
                            kb, loc, VectorType::get({1}, i32),
                            vector::TransferReadOp::create(
                                kb, loc, VectorType::get({4}, i8), wp,
                                ValueRange{
                                    hodu::cpu::scaledIndex(kb, loc, blk, mr,
                                                           r),
                                    hodu::cpu::scaledIndex(kb, loc, kg, 4, 0)},
                                pad8, ArrayRef<bool>{true}));
                      else
                        word = tensor::ExtractOp::create(
                            kb, loc, wp, ValueRange{blk, kg, idx(kb, loc, r)});
                      Value wv = vector::BitCastOp::create(
                          kb, loc, b64,
                          vector::BroadcastOp::create(kb, loc, acc16, word));
                      for (int64_t v = 0; v < vecs; ++v)
                        next.push_back(
                            int8Dot(kb, loc, d, accs[r * vecs + v], bv[v], wv));
                    }
                    scf::YieldOp::create(kb, loc, next);
                  });
              Value tile = blkIter[0];
              Value base = hodu::cpu::scaledIndex(mb, loc, blk, mr, 0);
              for (int64_t r = 0; r < mr; ++r) {
                Value fr =
                    arith::AddIOp::create(mb, loc, base, idx(mb, loc, r));
                for (int64_t v = 0; v < vecs; ++v)
                  tile = vector::TransferWriteOp::create(
                             mb, loc,
                             vector::ShapeCastOp::create(
                                 mb, loc, VectorType::get({1, 1, lanes}, i32),
                                 kLoop.getResult(r * vecs + v)),
                             tile,
                             ValueRange{fr, idx(mb, loc, 0),
                                        idx(mb, loc, v * lanes)},
                             ArrayRef<bool>{true, true, true})
                             .getResult();
              }
              scf::YieldOp::create(mb, loc, tile);
            });
        return blockLoop.getResult(0);
        };
        if (!tiles)
          return vectorBlocks(nb);
        // The tiles: Wa [fa, 4 kt] by the panel's words [kt, 16, 4] into
        // [fa, 16], marked for hodu-cpu-amx-tiles (signed by unsigned).
        auto amxBlocks = [&](OpBuilder &ab) -> Value {
          Value words = tensor::ExpandShapeOp::create(
              ab, loc, RankedTensorType::get({kt, lanes, 4}, i8), panel,
              ArrayRef<ReassociationIndices>{{0}, {1, 2}});
          SmallVector<ReassociationIndices> rowsOf{{0, 1}, {2}};
          Value out = tensor::CollapseShapeOp::create(ab, loc, tile0, rowsOf);
          AffineExpr i, l, g, j;
          bindDims(ctx, i, l, g, j);
          Value sums = amxPanels(
              ab, loc, wp, words, out,
              {AffineMap::get(4, 0, {i, g * 4 + j}, ctx),
               AffineMap::get(4, 0, {g, l, j}, ctx),
               AffineMap::get(4, 0, {i, l}, ctx)},
              /*unsignedA=*/false);
          return tensor::ExpandShapeOp::create(
              ab, loc, RankedTensorType::get({fa, 1, lanes}, i32), sums,
              rowsOf);
        };
        return tilesOrVnni(nb, loc, ok, amxBlocks, vectorBlocks);
      });

  // y[0, f, oh, ow] = float(acc[f, oh, ow] + off[f] * acc[F, oh, ow]
  //                          - zx * sum_k W'[f, k]), acc[F] the row of ones.
  // Rows [first, first + count) of acc as [count, OH, OW].
  auto plane = [&](int64_t first, int64_t count) -> Value {
    if (!flat)
      return tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({count, oh, ow}, i32), acc,
          indexAttrs(b, {first, 0, 0}), indexAttrs(b, {count, oh, ow}),
          indexAttrs(b, {1, 1, 1}));
    Value rows = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({count, oh * wpad}, i32), acc,
        indexAttrs(b, {first, 0, 0}), indexAttrs(b, {count, 1, oh * wpad}),
        indexAttrs(b, {1, 1, 1}));
    Value grid = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({count, oh, wpad}, i32), rows,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
    return tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({count, oh, ow}, i32), grid,
        indexAttrs(b, {0, 0, 0}), indexAttrs(b, {count, oh, ow}),
        indexAttrs(b, {1, 1, 1}));
  };
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  Value result = correctedSums(
      b, loc, outType, plane(0, f), AffineMap::get(4, 0, {d1, d2, d3}, ctx),
      *iw, AffineMap::get(4, 0, {d1}, ctx),
      iw->needSums ? plane(f, 1) : Value(),
      AffineMap::get(4, 0, {getAffineConstantExpr(0, ctx), d2, d3}, ctx), zx32);
  conv->getResult(0).replaceAllUsesWith(result);
  conv->erase();
  std::string what = llvm::formatv(
      "{4}, {0}x{5} register tile, {1} words of {6} channels per column{3}{2}",
      mr, k4,
      needSums ? llvm::formatv(", filters offset into {0} (+ a row of input "
                               "sums)",
                               d.vnni ? "int8" : "int16")
                     .str()
               : "",
      flat ? ", panels across rows of the flattened plane" : "", d.name(), pw,
      per);
  if (tiles)
    what = llvm::formatv("int8 AMX tiles, {0} filter rows in tiles of 16 by "
                         "panels of 16 columns, {1} words (the VNNI kernels "
                         "where the OS refuses the tiles: {2})",
                         fa, kt, what);
  return what;
}

namespace {

/// The int8 kernels of y = A W, A [m, k] = uitofp(x) - zx (possibly
/// collapsed from a batch of rows), W [k, n] the values `w` (row-major),
/// as `cType` (float, or int32: the sums as they are), built before `at`.
/// Returns the strategy's description and sets `result`, or none (nothing
/// built) when the kernels do not apply.
std::optional<std::string> int8Matmul(Operation *at, Value aIn,
                                      ArrayRef<double> w, int64_t n,
                                      RankedTensorType cType, bool parallel,
                                      const hodu::cpu::Int8Isa &kernels,
                                      Value &result) {
  Dot d(at->getContext(), kernels);
  const int64_t lanes = d.lanes, per = d.per;
  auto aType = cast<RankedTensorType>(aIn.getType());
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1);
  // Too little to pay for the packing of A.
  if (k < 16 || n < lanes)
    return std::nullopt;

  // A: uitofp(x) - za, possibly collapsed from a batch of rows.
  Value a = aIn;
  SmallVector<ReassociationIndices> collapse;
  if (auto c = a.getDefiningOp<tensor::CollapseShapeOp>()) {
    collapse = c.getReassociationIndices();
    a = c.getSrc();
  }
  std::optional<Uint8Input> src = matchUint8Input(a);
  if (!src)
    return std::nullopt;
  std::optional<Int8Weights> iw =
      int8Weights(d, n, k, [&](int64_t o, int64_t t) { return w[t * n + o]; });
  if (!iw)
    return std::nullopt;

  // Panels of two vectors' columns where N has them, else one; row blocks
  // of up to 12 rows (2 x 12 accumulators, two B vectors and a broadcast in
  // 32 registers; 6 in 16), or 16 (13) with one vector, as even as they
  // divide. K in words of `per` values: k4 of them.
  int64_t vecs = n >= 2 * lanes ? 2 : 1, nr = vecs * lanes;
  int64_t np = llvm::alignTo(n, nr), panels = np / nr;
  int64_t blocks = llvm::divideCeil(m, d.maxRows(vecs));
  int64_t mr = llvm::divideCeil(m, blocks), mp = blocks * mr;
  int64_t k4 = llvm::divideCeil(k, per);
  // AMX: K in whole tiles (16 words), rows in whole tiles (the VNNI
  // kernels read the same padded x and packed B: zeros past K and M).
  // (x and the sums have `rows` rows: the VNNI kernels' mp, the tiles'
  // mt, whichever is more.)
  bool tiles = kernels.amx && d.vnni && m >= kAmxMinRows;
  int64_t mt = llvm::alignTo(m, kTileRows), rows = mp;
  if (tiles) {
    k4 = llvm::alignTo(k4, kTileRows);
    rows = std::max(mp, mt);
  }

  // Bp[panel, word, column * per + j] = W'[per word + j, column] - off.
  int64_t bytes = d.elt.getIntOrFloatBitWidth() / 8;
  AsmResourceBlob packed = HeapAsmResourceBlob::allocate(
      static_cast<size_t>(panels * k4 * nr * 4), alignof(uint64_t));
  {
    char *out = packed.getMutableData().data();
    std::memset(out, 0, packed.getData().size());
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t g = 0; g < k4; ++g)
        for (int64_t l = 0; l < nr; ++l)
          for (int64_t j = 0; j < per; ++j) {
            int64_t col = p * nr + l, t = per * g + j;
            if (col >= n || t >= k)
              continue;
            int64_t v =
                static_cast<int64_t>(w[t * n + col]) - iw->offsets[col];
            char *dst = out + (((p * k4 + g) * nr + l) * per + j) * bytes;
            if (bytes == 1) {
              *dst = static_cast<char>(static_cast<int8_t>(v));
            } else {
              int16_t h = static_cast<int16_t>(v);
              std::memcpy(dst, &h, 2);
            }
          }
  }

  OpBuilder b(at);
  Location loc = at->getLoc();
  MLIRContext *ctx = b.getContext();
  Type i8 = b.getI8Type(), i32 = b.getI32Type(), elt = d.elt;
  Value bp = arith::ConstantOp::create(
      b, loc,
      DenseResourceElementsAttr::get(
          RankedTensorType::get({panels, k4, nr * per}, elt),
          "hodu_packed_int8", std::move(packed)));
  Value zx32 = arith::ExtUIOp::create(b, loc, i32, zeroPoint(b, loc, *src));

  // A as uint8 [M, K], rows padded to whole blocks and K to whole words
  // with zeros (their weights are zero); for int16 pairs then
  // zero-extended, once (ae).
  Value x = slicedSource(b, loc, *src);
  if (!collapse.empty())
    x = tensor::CollapseShapeOp::create(b, loc, x, collapse);
  Value zero8 = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i8, 0));
  Value ap = tensor::PadOp::create(
      b, loc, RankedTensorType::get({rows, per * k4}, i8), x,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(rows - m),
                             b.getIndexAttr(per * k4 - k)},
      zero8);
  Value ae = ap;
  if (elt != i8) {
    auto wideType = RankedTensorType::get({rows, per * k4}, elt);
    AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
    ae = linalg::GenericOp::create(
             b, loc, TypeRange{wideType}, ValueRange{ap},
             ValueRange{
                 tensor::EmptyOp::create(b, loc, wideType.getShape(), elt)},
             ArrayRef<AffineMap>{id, id},
             ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                           utils::IteratorType::parallel},
             [&](OpBuilder &gb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   gb, l,
                   arith::ExtUIOp::create(gb, l, elt, args[0]).getResult());
             })
             .getResult(0);
  }

  auto b64 = d.values();
  auto acc16 = d.sums();
  auto word4 = VectorType::get({per}, elt);
  auto word1 = VectorType::get({1}, i32);
  // The sums, [rows, np]: both kernels write into the same tensor, so that
  // neither branch of the choice below needs a buffer of its own (which
  // would be allocated on every run). An alloc_tensor, not a tensor.empty:
  // CSE would merge the empty tensors of two such matmuls (K parts), and
  // the second, writing what the first's result still holds, would then
  // bufferize out of place, in its branches.
  Value accInit =
      tiles ? bufferization::AllocTensorOp::create(
                  b, loc, RankedTensorType::get({rows, np}, i32), ValueRange{})
                  .getResult()
            : tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{rows, np}, i32)
                  .getResult();
  // The vector kernels (VNNI or int16 pairs): rows [0, mp).
  auto vectorKernels = [&](OpBuilder &b) -> Value {
  return hodu::cpu::tileLoop(
      b, loc, panels, 1, accInit, parallel,
      [&](OpBuilder &nb, Value p, Value, SmallVector<OpFoldResult> &offsets,
          SmallVector<OpFoldResult> &sizes) -> Value {
        offsets = {
            nb.getIndexAttr(0),
            arith::MulIOp::create(nb, loc, p, idx(nb, loc, nr)).getResult()};
        sizes = {nb.getIndexAttr(mp), nb.getIndexAttr(nr)};
        Value pad8 =
            arith::ConstantOp::create(nb, loc, nb.getIntegerAttr(elt, 0));
        Value zeroAcc = arith::ConstantOp::create(
            nb, loc, DenseElementsAttr::get(acc16, nb.getI32IntegerAttr(0)));
        Value tile0 =
            tensor::EmptyOp::create(nb, loc, ArrayRef<int64_t>{mp, nr}, i32);
        auto blockLoop = scf::ForOp::create(
            nb, loc, idx(nb, loc, 0), idx(nb, loc, blocks), idx(nb, loc, 1),
            ValueRange{tile0},
            [&](OpBuilder &rb, Location, Value blk, ValueRange blkIter) {
              Value row0 = hodu::cpu::scaledIndex(rb, loc, blk, mr, 0);
              SmallVector<Value> inits(mr * vecs, zeroAcc);
              auto kLoop = scf::ForOp::create(
                  rb, loc, idx(rb, loc, 0), idx(rb, loc, k4), idx(rb, loc, 1),
                  inits,
                  [&](OpBuilder &kb, Location, Value g, ValueRange accs) {
                    SmallVector<Value> bv;
                    for (int64_t v = 0; v < vecs; ++v)
                      bv.push_back(vector::TransferReadOp::create(
                          kb, loc, b64, bp,
                          ValueRange{p, g, idx(kb, loc, v * per * lanes)}, pad8,
                          ArrayRef<bool>{true}));
                    Value col = hodu::cpu::scaledIndex(kb, loc, g, per, 0);
                    SmallVector<Value> next;
                    for (int64_t r = 0; r < mr; ++r) {
                      Value row =
                          arith::AddIOp::create(kb, loc, row0, idx(kb, loc, r));
                      Value bytes = vector::TransferReadOp::create(
                          kb, loc, word4, ae, ValueRange{row, col}, pad8,
                          ArrayRef<bool>{true});
                      Value av = vector::BitCastOp::create(
                          kb, loc, b64,
                          vector::BroadcastOp::create(
                              kb, loc, acc16,
                              vector::BitCastOp::create(kb, loc, word1,
                                                        bytes)));
                      for (int64_t v = 0; v < vecs; ++v)
                        next.push_back(
                            int8Dot(kb, loc, d, accs[r * vecs + v], av, bv[v]));
                    }
                    scf::YieldOp::create(kb, loc, next);
                  });
              Value tile = blkIter[0];
              for (int64_t r = 0; r < mr; ++r)
                for (int64_t v = 0; v < vecs; ++v)
                  tile = vector::TransferWriteOp::create(
                             rb, loc, kLoop.getResult(r * vecs + v), tile,
                             ValueRange{arith::AddIOp::create(rb, loc, row0,
                                                              idx(rb, loc, r)),
                                        idx(rb, loc, v * lanes)},
                             ArrayRef<bool>{true})
                             .getResult();
              scf::YieldOp::create(rb, loc, tile);
            });
        return blockLoop.getResult(0);
      });
  };

  // The AMX kernels: per group of pc panels one marked generic,
  //   acc[i, p nr + l] = sum_(g, j) zext(ap[i, 4 g + j]) * sext(bp[p, g, l, j])
  // over all rows, which hodu-cpu-amx-tiles computes tile by tile (its
  // output is written, not read: the sums start at zero). The groups (at
  // most kAmxGroups, over threads) amortise the tile configuration, which
  // each group loads once (ldtilecfg costs about as much as a panel).
  auto amxTiles = [&](OpBuilder &b) -> Value {
    // x's first mt rows (whole tiles).
    Value xt = ap;
    if (mt != rows)
      xt = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({mt, 4 * k4}, i8), ap,
          indexAttrs(b, {0, 0}), indexAttrs(b, {mt, 4 * k4}),
          indexAttrs(b, {1, 1}));
    int64_t groups = 1;
    for (int64_t g = std::min(panels, kAmxGroups); g >= 1; --g)
      if (panels % g == 0) {
        groups = g;
        break;
      }
    int64_t pc = panels / groups;
    Value words = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({panels, k4, nr, 4}, i8), bp,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    return hodu::cpu::tileLoop(
        b, loc, groups, 1, accInit, parallel,
        [&](OpBuilder &nb, Value q, Value, SmallVector<OpFoldResult> &offsets,
            SmallVector<OpFoldResult> &sizes) -> Value {
          offsets = {nb.getIndexAttr(0),
                     arith::MulIOp::create(nb, loc, q, idx(nb, loc, pc * nr))
                         .getResult()};
          sizes = {nb.getIndexAttr(mt), nb.getIndexAttr(pc * nr)};
          Value group = tensor::ExtractSliceOp::create(
              nb, loc, RankedTensorType::get({pc, k4, nr, 4}, i8), words,
              ArrayRef<OpFoldResult>{
                  arith::MulIOp::create(nb, loc, q, idx(nb, loc, pc))
                      .getResult(),
                  nb.getIndexAttr(0), nb.getIndexAttr(0), nb.getIndexAttr(0)},
              indexAttrs(nb, {pc, k4, nr, 4}), indexAttrs(nb, {1, 1, 1, 1}));
          Value out = tensor::EmptyOp::create(
              nb, loc, ArrayRef<int64_t>{mt, pc * nr}, i32);
          AffineExpr i, p, l, g, j;
          bindDims(ctx, i, p, l, g, j);
          return amxPanels(nb, loc, xt, group, out,
                           {AffineMap::get(5, 0, {i, g * 4 + j}, ctx),
                            AffineMap::get(5, 0, {p, g, l, j}, ctx),
                            AffineMap::get(5, 0, {i, p * nr + l}, ctx)},
                           /*unsignedA=*/true);
        });
  };

  Value acc;
  if (tiles) {
    acc = tilesOrVnni(b, loc, amxReady(b, loc, at), amxTiles, vectorKernels);
  } else {
    acc = vectorKernels(b);
  }

  // y[i, j] = float(acc[i, j] + off[j] * sum_k x[i, k] - za * sum_k W'[k, j]).
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  Value rowSums;
  if (iw->needSums) {
    // The row sums of A (uint8), in int32.
    Value rows = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({m, k}, i8), ap, indexAttrs(b, {0, 0}),
        indexAttrs(b, {m, k}), indexAttrs(b, {1, 1}));
    Value init = linalg::FillOp::create(b, loc,
                                        ValueRange{arith::ConstantOp::create(
                                            b, loc, b.getI32IntegerAttr(0))},
                                        ValueRange{tensor::EmptyOp::create(
                                            b, loc, ArrayRef<int64_t>{m}, i32)})
                     .getResult(0);
    rowSums =
        linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()}, ValueRange{rows},
            ValueRange{init},
            ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(2, ctx),
                                AffineMap::get(2, 0, {d0}, ctx)},
            ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                          utils::IteratorType::reduction},
            [&](OpBuilder &gb, Location l, ValueRange args) {
              Value wide = arith::ExtUIOp::create(gb, l, i32, args[0]);
              linalg::YieldOp::create(
                  gb, l,
                  arith::AddIOp::create(gb, l, args[1], wide).getResult());
            })
            .getResult(0);
  }
  result = correctedSums(
      b, loc, cType,
      tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({m, n}, i32), acc,
          indexAttrs(b, {0, 0}), indexAttrs(b, {m, n}), indexAttrs(b, {1, 1})),
      AffineMap::getMultiDimIdentityMap(2, ctx), *iw,
      AffineMap::get(2, 0, {d1}, ctx), rowSums, AffineMap::get(2, 0, {d0}, ctx),
      zx32);
  std::string what = llvm::formatv(
      "{4}, {0}x{1} register tile, {2} words of {5} of K{3}", mr, nr, k4,
      iw->needSums ? llvm::formatv(", columns offset into {0} (+ row sums)",
                                   d.vnni ? "int8" : "int16")
                         .str()
                   : "",
      d.name(), d.vnni ? "4 bytes" : "2 values");
  if (tiles)
    what = llvm::formatv("int8 AMX tiles, {0} panel(s) of {1} columns, {2} "
                         "rows in tiles of 16 (the VNNI kernels where the OS "
                         "refuses the tiles: {3})",
                         panels, nr, mt, what);
  return what;
}

} // namespace

std::optional<std::string> hodu::cpu::matmulToInt8Dot(linalg::MatmulOp mm,
                                                      bool parallel,
                                                      const Int8Isa &kernels) {
  if (!mm.hasPureTensorSemantics() || mm.hasUserDefinedMaps())
    return std::nullopt;
  auto aType = dyn_cast<RankedTensorType>(mm.getInputs()[0].getType());
  auto bType = dyn_cast<RankedTensorType>(mm.getInputs()[1].getType());
  auto cType = dyn_cast<RankedTensorType>(mm->getResult(0).getType());
  if (!aType || !bType || !cType || !aType.hasStaticShape() ||
      !bType.hasStaticShape() || !cType.hasStaticShape())
    return std::nullopt;
  // Float (sums exact in f32) or int32: the importer's two forms.
  Type elt = cType.getElementType();
  if (!(isa<Float32Type, Float64Type>(elt) || elt.isInteger(32)) ||
      aType.getElementType() != elt || bType.getElementType() != elt ||
      !startsAtZero(mm.getOutputs()[0]))
    return std::nullopt;
  std::optional<std::vector<double>> w = constantValues(mm.getInputs()[1]);
  if (!w)
    return std::nullopt;
  Value result;
  std::optional<std::string> what =
      int8Matmul(mm, mm.getInputs()[0], *w, bType.getDimSize(1), cType,
                 parallel, kernels, result);
  if (!what)
    return std::nullopt;
  mm->getResult(0).replaceAllUsesWith(result);
  mm->erase();
  return what;
}

namespace {

/// The generic defining `v` if it is elementwise (all parallel, identity
/// maps) over `inputs` inputs with one body op of type OpT on the block
/// arguments.
template <typename OpT>
linalg::GenericOp elementwiseOf(Value v, unsigned inputs) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != inputs || g->getNumResults() != 1 ||
      !allParallelIdentity(g))
    return {};
  auto op = dyn_cast_or_null<OpT>(singleBodyOp(g));
  if (!op)
    return {};
  for (Value operand : op->getOperands()) {
    auto arg = dyn_cast<BlockArgument>(operand);
    if (!arg || arg.getOwner() != g.getBody() ||
        arg.getArgNumber() >= inputs)
      return {};
  }
  return g;
}

/// One part of the importer's K split: fptosi(A[..., offset : offset +
/// size] x W) from zero, W constant; A of rank above 2 is collapsed to
/// rows for the matmul and its result expanded back.
struct KPart {
  linalg::MatmulOp mm;
  int64_t offset, size;
};

/// What the parts share: the sliced source and, for a source of rank above
/// 2, the reassociations of the collapse into rows and the expansion back.
struct KSplit {
  Value source;
  SmallVector<ReassociationIndices> collapse, expand;
};

/// Collects the parts under `v`, a tree of int32 adds (each used once but
/// the root) whose leaves are parts slicing one source, and the ops to
/// erase once the tree is replaced (users first).
bool collectParts(Value v, bool root, KSplit &split, SmallVector<KPart> &parts,
                  SmallVector<Operation *> &ops) {
  if (!root && !v.hasOneUse())
    return false;
  if (linalg::GenericOp add = elementwiseOf<arith::AddIOp>(v, 2)) {
    ops.push_back(add);
    return collectParts(add.getDpsInputs()[0], false, split, parts, ops) &&
           collectParts(add.getDpsInputs()[1], false, split, parts, ops);
  }
  linalg::GenericOp cvt = elementwiseOf<arith::FPToSIOp>(v, 1);
  if (!cvt || root)
    return false;
  ops.push_back(cvt);
  Value product = cvt.getDpsInputs()[0];
  SmallVector<ReassociationIndices> expand;
  if (auto e = product.getDefiningOp<tensor::ExpandShapeOp>()) {
    if (!e->hasOneUse())
      return false;
    expand = e.getReassociationIndices();
    product = e.getSrc();
    ops.push_back(e);
  }
  auto mm = product.getDefiningOp<linalg::MatmulOp>();
  if (!mm || !mm->hasOneUse() || !mm.hasPureTensorSemantics() ||
      mm.hasUserDefinedMaps() || !startsAtZero(mm.getOutputs()[0]))
    return false;
  ops.push_back(mm);
  Value a = mm.getInputs()[0];
  SmallVector<ReassociationIndices> collapse;
  if (auto c = a.getDefiningOp<tensor::CollapseShapeOp>()) {
    collapse = c.getReassociationIndices();
    a = c.getSrc();
  }
  // Rows collapsed for the matmul and expanded back the same way, or not.
  if (collapse != expand)
    return false;
  auto slice = a.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || !slice.getSourceType().hasStaticShape() ||
      !slice.hasUnitStride() || !slice.getType().hasStaticShape() ||
      slice.getType().getRank() != slice.getSourceType().getRank())
    return false;
  // A slice of the last dim only.
  ArrayRef<int64_t> offsets = slice.getStaticOffsets();
  int64_t rank = slice.getType().getRank();
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (offsets[d] != 0 || slice.getType().getDimSize(d) !=
                               slice.getSourceType().getDimSize(d))
      return false;
  if (ShapedType::isDynamic(offsets[rank - 1]))
    return false;
  if (split.source &&
      (split.source != slice.getSource() || split.collapse != collapse))
    return false;
  split.source = slice.getSource();
  split.collapse = collapse;
  split.expand = expand;
  parts.push_back({mm, offsets[rank - 1], slice.getType().getDimSize(rank - 1)});
  return true;
}

} // namespace

std::optional<std::string>
hodu::cpu::mergedPartsToInt8Dot(linalg::GenericOp add, bool parallel,
                                const Int8Isa &kernels) {
  if (!add.hasPureTensorSemantics() ||
      !elementwiseOf<arith::AddIOp>(add->getResult(0), 2))
    return std::nullopt;
  // The root: not itself an addend of a larger sum.
  for (Operation *user : add->getResult(0).getUsers())
    if (auto g = dyn_cast<linalg::GenericOp>(user))
      if (elementwiseOf<arith::AddIOp>(g->getResult(0), 2))
        return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(add->getResult(0).getType());
  if (!type || type.getRank() < 2 || !type.hasStaticShape() ||
      !type.getElementType().isInteger(32))
    return std::nullopt;
  KSplit split;
  SmallVector<KPart> parts;
  SmallVector<Operation *> ops;
  if (!collectParts(add->getResult(0), /*root=*/true, split, parts, ops) ||
      parts.size() < 2)
    return std::nullopt;
  // The parts cover K in order, each by a constant [size, N].
  llvm::sort(parts, [](const KPart &a, const KPart &b) {
    return a.offset < b.offset;
  });
  auto sourceType = cast<RankedTensorType>(split.source.getType());
  int64_t k = sourceType.getShape().back(), n = type.getShape().back(),
          next = 0;
  std::vector<double> w;
  w.reserve(static_cast<size_t>(k * n));
  for (KPart &part : parts) {
    auto bType = dyn_cast<RankedTensorType>(part.mm.getInputs()[1].getType());
    std::optional<std::vector<double>> values =
        constantValues(part.mm.getInputs()[1]);
    if (part.offset != next || !bType || bType.getDimSize(0) != part.size ||
        bType.getDimSize(1) != n || !values)
      return std::nullopt;
    w.insert(w.end(), values->begin(), values->end());
    next += part.size;
  }
  auto rowsType = cast<RankedTensorType>(parts.front().mm->getResultTypes()[0]);
  if (next != k || sourceType.getRank() != type.getRank() ||
      (split.collapse.empty() && sourceType.getRank() != 2))
    return std::nullopt;

  OpBuilder b(add);
  Location loc = add.getLoc();
  // A tensor.collapse_shape that nothing built yet uses: int8Matmul erases
  // nothing when it does not apply, and then neither is this kept.
  Value a = split.source;
  tensor::CollapseShapeOp collapsed;
  if (!split.collapse.empty()) {
    collapsed = tensor::CollapseShapeOp::create(b, loc, a, split.collapse);
    a = collapsed;
  }
  Value result;
  std::optional<std::string> what = int8Matmul(
      add, a, w, n, RankedTensorType::get(rowsType.getShape(), b.getI32Type()),
      parallel, kernels, result);
  if (!what) {
    if (collapsed)
      collapsed->erase();
    return std::nullopt;
  }
  if (!split.expand.empty())
    result = tensor::ExpandShapeOp::create(b, loc, type, result, split.expand);
  add->getResult(0).replaceAllUsesWith(result);
  for (Operation *op : ops)
    op->erase();
  return llvm::formatv("{0} K parts in one int32 sum: {1}", parts.size(),
                       *what)
      .str();
}
