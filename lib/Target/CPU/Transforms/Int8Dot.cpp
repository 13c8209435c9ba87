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
// This file holds what the convolution and matmul kernels share
// (Int8DotCommon.h): the matching of the uint8 operands and constant
// weights, the dot products, the corrected sums and the AMX panels.
// Int8DotConv.cpp builds the convolutions' kernels, Int8DotMatmul.cpp the
// matmuls' (and merges the importer's K parts into one).
//
//===----------------------------------------------------------------------===//

#include "Int8DotCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace hodu::cpu::int8dot {

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
static Value uint8Source(Value v) {
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

/// The zero point behind `z`, the subtrahend of x_f = uitofp(x) - z: a
/// 0-d uitofp of a uint8 tensor, or a whole constant in [0, 255].
static bool zeroPointOf(Value z, Uint8Input &in) {
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

Value zeroPoint(OpBuilder &b, Location loc, const Uint8Input &in) {
  if (in.zeroTensor)
    return tensor::ExtractOp::create(b, loc, in.zeroTensor, ValueRange{});
  return arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(b.getI8Type(), static_cast<int8_t>(in.zeroConst)));
}

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

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> r;
  for (int64_t v : values)
    r.push_back(b.getIndexAttr(v));
  return r;
}

Value idx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

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

} // namespace hodu::cpu::int8dot
