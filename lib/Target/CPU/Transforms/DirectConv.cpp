//===- DirectConv.cpp - direct kernels for grouped convolutions -----------===//
//
// Depthwise and grouped 2-D convolutions (MobileNet-style 3x3 and 5x5, any
// stride, dilation and padding) as direct vector kernels. HoduToLinalg
// lowers them to a grouped sum of products over channel-split views, which
// the packed matmul path does not take and the generic vectoriser turns into
// slow code for small planes and strides (2 GMAC/s where this kernel runs
// 10-25; docs/performance.md). The kernel, for a block of V output columns
// (one vector) and R output rows:
//
//   for each output plane (n, g, m)         scf.forall when parallel
//     for each block of R output rows        scf.for, then a tail block
//       for each block of V output columns   scf.for over the blocks whose
//                                            reads and writes are in bounds,
//                                            then peeled blocks with masks
//         acc[r] = fill value                R vectors of V lanes
//         for c in the group's channels      scf.for when there are several
//           for each input row y the R output rows read, each filter column j:
//             v = x[n, g, c, y, ow0*sw + j*dw : V lanes, stride sw]
//             acc[r] += w[g, m, c, i, j] * v   for each (r, i) that reads y
//         out[n, g, m, oh0 + r, ow0 : V] = acc[r]
//
// Each input vector is loaded once per block and used by every output row
// of the block that reads it: R*sh + (KH-1)*dh rows of loads feed
// R*KH*KW fused multiply-adds. A strided read is one contiguous load of
// sw*V lanes and a shuffle. V is the vector width (from the target's
// width down to 4 lanes) that covers a row in the fewest vectors, so small
// planes (4 or 8 columns) do not waste lanes.
//
//===----------------------------------------------------------------------===//

#include "DirectConv.h"
#include "Int8DotCommon.h"
#include "Packing.h"
#include "TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;

namespace {
/// Channels per group up to which the direct kernel is used: past it a
/// packed matmul per group would reuse each input vector across filters,
/// which this kernel does not (the generic lowering keeps those).
constexpr int64_t kMaxGroupChannels = 8;
/// Most filters of an ungrouped convolution the direct kernel takes: from
/// four on, the packed matmul's register tiles reuse each input vector
/// across filters (convToPackedMatmul).
constexpr int64_t kMaxDirectFilters = 3;
/// Most filter taps per channel: the kernel's block is unrolled over them
/// (R * taps multiply-adds), as the packed path's tap copies are.
constexpr int64_t kMaxTaps = 64;
/// Output rows per register block: R accumulators plus the input vector
/// and broadcast weights stay well within 16 vector registers.
constexpr int64_t kMaxRows = 4;
/// Multiply-adds from which the planes are spread over threads: below it
/// a fork and join (a few microseconds) costs more than it saves.
constexpr int64_t kParallelMacs = int64_t(1) << 18;
/// Tiles (planes, or parts of planes) a convolution is spread over at
/// least, when its rows allow: a thread per tile on up to 8 cores.
constexpr int64_t kMinParallelTiles = 8;

/// The coefficient of dim `d` in `e`, a sum of constant multiples of dims.
int64_t coefficient(AffineExpr e, unsigned d, unsigned dims) {
  MLIRContext *ctx = e.getContext();
  SmallVector<AffineExpr> repl;
  for (unsigned i = 0; i < dims; ++i)
    repl.push_back(getAffineConstantExpr(i == d ? 1 : 0, ctx));
  auto c = dyn_cast<AffineConstantExpr>(e.replaceDims(repl));
  return c ? c.getValue() : 0;
}

/// A grouped convolution as HoduToLinalg builds it:
///   out[n, g, m, y, x] = fill + sum_{c, i, j}
///       in[n, g, c, y*sh + i*dh, x*sw + j*dw] * w[g, m, c, i, j]
struct GroupedConv {
  Value input, filter, dest, fill;
  int64_t n, g, m, c, oh, ow, kh, kw, sh, sw, dh, dw, wp;
  Type elt;
};

/// Whether the input, filter and output types are static, of f32 or f64,
/// all the same (null types are not).
bool sameStaticFloat(RankedTensorType xt, RankedTensorType wt,
                     RankedTensorType ot) {
  return xt && wt && ot && xt.hasStaticShape() && wt.hasStaticShape() &&
         ot.hasStaticShape() &&
         isa<Float32Type, Float64Type>(ot.getElementType()) &&
         xt.getElementType() == ot.getElementType() &&
         wt.getElementType() == ot.getElementType();
}

/// The element type and sizes of a convolution from its types, in either
/// layout: grouped (input [N, G, C, H, W], filter [G, M, C, KH, KW], output
/// [N, G, M, OH, OW]) or ungrouped, one group (the same without G).
void setShapes(GroupedConv &cv, RankedTensorType xt, RankedTensorType wt,
               RankedTensorType ot) {
  int64_t r = ot.getRank(), rw = wt.getRank();
  cv.elt = ot.getElementType();
  cv.n = ot.getDimSize(0);
  cv.g = r == 5 ? ot.getDimSize(1) : 1;
  cv.m = ot.getDimSize(r - 3);
  cv.oh = ot.getDimSize(r - 2);
  cv.ow = ot.getDimSize(r - 1);
  cv.c = wt.getDimSize(rw - 3);
  cv.kh = wt.getDimSize(rw - 2);
  cv.kw = wt.getDimSize(rw - 1);
  cv.wp = xt.getDimSize(xt.getRank() - 1);
}

std::optional<GroupedConv> matchGroupedConv(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || op.getNumLoops() != 8)
    return std::nullopt;
  auto iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i < 8; ++i)
    if ((iters[i] == utils::IteratorType::reduction) != (i >= 5))
      return std::nullopt;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[2] != AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(4)}, ctx) ||
      maps[1] != AffineMap::get(8, 0, {d(1), d(2), d(5), d(6), d(7)}, ctx))
    return std::nullopt;
  AffineMap xm = maps[0];
  if (xm.getNumResults() != 5 || xm.getResult(0) != d(0) ||
      xm.getResult(1) != d(1) || xm.getResult(2) != d(5))
    return std::nullopt;
  GroupedConv cv;
  // Spatial dim k (0: rows, 1: columns): d(3+k)*stride + d(6+k)*dilation.
  auto window = [&](unsigned k, int64_t &stride, int64_t &dilation) {
    AffineExpr e = xm.getResult(3 + k);
    stride = coefficient(e, 3 + k, 8);
    dilation = coefficient(e, 6 + k, 8);
    return stride >= 1 && dilation >= 1 &&
           e == d(3 + k) * stride + d(6 + k) * dilation;
  };
  if (!window(0, cv.sh, cv.dh) || !window(1, cv.sw, cv.dw))
    return std::nullopt;
  // The body: acc + x * w, in one float type throughout.
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return std::nullopt;
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value acc = body.getArgument(2);
  Value prod = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto mul = prod.getDefiningOp<arith::MulFOp>();
  if (!mul || (add.getLhs() != acc && add.getRhs() != acc) ||
      !((mul.getLhs() == body.getArgument(0) &&
         mul.getRhs() == body.getArgument(1)) ||
        (mul.getLhs() == body.getArgument(1) &&
         mul.getRhs() == body.getArgument(0))))
    return std::nullopt;
  auto xt = dyn_cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  auto wt = dyn_cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  auto ot = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!sameStaticFloat(xt, wt, ot))
    return std::nullopt;
  // The accumulator starts as a fill: the kernel starts from its value.
  auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill)
    return std::nullopt;
  cv.input = op.getDpsInputs()[0];
  cv.filter = op.getDpsInputs()[1];
  cv.dest = fill.getOutputs()[0];
  cv.fill = fill.getInputs()[0];
  setShapes(cv, xt, wt, ot);
  if (cv.oh == 0 || cv.ow == 0 || cv.c == 0 || cv.kh == 0 || cv.kw == 0)
    return std::nullopt;
  return cv;
}

/// The kernel's builder: one GroupedConv, V lanes, R rows.
struct Kernel {
  const GroupedConv &cv;
  Location loc;
  int64_t v, r;
  /// Lanes a read loads: V, or sw*V for a strided read (then shuffled).
  int64_t readLanes() const { return cv.sw == 1 ? v : cv.sw * v; }

  Value index(OpBuilder &b, int64_t i) const {
    return arith::ConstantIndexOp::create(b, loc, i);
  }
  Value affine(OpBuilder &b, Value base, int64_t scale, int64_t offset) const {
    return hodu::cpu::scaledIndex(b, loc, base, scale, offset);
  }

  /// One block: `rows` output rows from `oh0`, V columns from `ow0`, of the
  /// plane (n, g, m), written to `tile` (rows of the plane from some first
  /// row) from its row `tr0`. `col` is the block's first column when it is
  /// a peeled block (reads and writes are checked against the bounds), none
  /// inside the loop over in-bounds blocks.
  Value block(OpBuilder &b, Value tile, Value ng[3], Value oh0, Value tr0,
              Value ow0, int64_t rows, std::optional<int64_t> col) const {
    auto vec = VectorType::get({v}, cv.elt);
    auto readVec = VectorType::get({readLanes()}, cv.elt);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(cv.elt));
    SmallVector<Value> accs(rows,
                            vector::BroadcastOp::create(b, loc, vec, cv.fill));
    // The (row, filter row) pairs that read each input row, by its offset
    // from oh0*sh.
    std::map<int64_t, SmallVector<std::pair<int64_t, int64_t>>> readers;
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t i = 0; i < cv.kh; ++i)
        readers[row * cv.sh + i * cv.dh].push_back({row, i});
    SmallVector<int64_t> picks;
    for (int64_t l = 0; l < v; ++l)
      picks.push_back(l * cv.sw);
    auto channel = [&](OpBuilder &cb, Value c, SmallVector<Value> accs) {
      for (auto &[dy, uses] : readers) {
        Value y = affine(cb, oh0, cv.sh, dy);
        for (int64_t j = 0; j < cv.kw; ++j) {
          Value x = affine(cb, ow0, cv.sw, j * cv.dw);
          bool inBounds =
              !col || *col * cv.sw + j * cv.dw + readLanes() <= cv.wp;
          Value in = vector::TransferReadOp::create(
              cb, loc, readVec, cv.input, ValueRange{ng[0], ng[1], c, y, x},
              zero, ArrayRef<bool>{inBounds});
          if (cv.sw != 1)
            in = vector::ShuffleOp::create(cb, loc, in, in, picks);
          for (auto [row, i] : uses) {
            Value wv = tensor::ExtractOp::create(
                cb, loc, cv.filter,
                ValueRange{ng[1], ng[2], c, index(cb, i), index(cb, j)});
            Value wb = vector::BroadcastOp::create(cb, loc, vec, wv);
            accs[row] = vector::FMAOp::create(cb, loc, in, wb, accs[row]);
          }
        }
      }
      return accs;
    };
    if (cv.c == 1) {
      accs = channel(b, index(b, 0), accs);
    } else {
      auto loop = scf::ForOp::create(
          b, loc, index(b, 0), index(b, cv.c), index(b, 1), accs,
          [&](OpBuilder &lb, Location, Value c, ValueRange iter) {
            scf::YieldOp::create(lb, loc,
                                 channel(lb, c, SmallVector<Value>(iter)));
          });
      accs.assign(loop.getResults().begin(), loop.getResults().end());
    }
    bool writeInBounds = !col || *col + v <= cv.ow;
    for (int64_t row = 0; row < rows; ++row)
      tile = vector::TransferWriteOp::create(
                 b, loc, accs[row], tile,
                 ValueRange{affine(b, tr0, 1, row), ow0},
                 ArrayRef<bool>{writeInBounds})
                 .getResult();
    return tile;
  }

  /// `rows` output rows from `oh0` (row `tr0` of `tile`): the in-bounds
  /// column blocks in a loop, the rest peeled.
  Value rowBlock(OpBuilder &b, Value tile, Value ng[3], Value oh0, Value tr0,
                 int64_t rows) const {
    int64_t blocks = llvm::divideCeil(cv.ow, v), safe = 0;
    while (safe < blocks && (safe + 1) * v <= cv.ow &&
           safe * v * cv.sw + (cv.kw - 1) * cv.dw + readLanes() <= cv.wp)
      ++safe;
    if (safe > 0) {
      auto loop = scf::ForOp::create(
          b, loc, index(b, 0), index(b, safe * v), index(b, v),
          ValueRange{tile},
          [&](OpBuilder &lb, Location, Value ow0, ValueRange iter) {
            scf::YieldOp::create(lb, loc,
                                 block(lb, iter[0], ng, oh0, tr0, ow0, rows,
                                       std::nullopt));
          });
      tile = loop.getResult(0);
    }
    for (int64_t k = safe; k < blocks; ++k)
      tile = block(b, tile, ng, oh0, tr0, index(b, k * v), rows, k * v);
    return tile;
  }

  /// Rows [row0, row0 + rows) of the plane (n, g, m): `tile`, [rows, OW].
  Value plane(OpBuilder &b, Value tile, Value ng[3], Value row0,
              int64_t rows) const {
    int64_t full = rows / r, tail = rows % r;
    if (full > 0) {
      auto loop = scf::ForOp::create(
          b, loc, index(b, 0), index(b, full * r), index(b, r),
          ValueRange{tile},
          [&](OpBuilder &lb, Location, Value tr0, ValueRange iter) {
            Value oh0 = arith::AddIOp::create(lb, loc, row0, tr0);
            scf::YieldOp::create(lb, loc,
                                 rowBlock(lb, iter[0], ng, oh0, tr0, r));
          });
      tile = loop.getResult(0);
    }
    if (tail > 0)
      tile = rowBlock(b, tile, ng,
                      arith::AddIOp::create(b, loc, row0, index(b, full * r)),
                      index(b, full * r), tail);
    return tile;
  }
};

/// The vector width, from `lanes` down to 4 (or `lanes` if fewer), that
/// covers `width` columns in the fewest vectors; the narrower on a tie.
int64_t chooseLanes(int64_t width, int64_t lanes) {
  int64_t best = lanes, bestBlocks = llvm::divideCeil(width, lanes);
  for (int64_t v = lanes / 2; v >= 4; v /= 2)
    if (llvm::divideCeil(width, v) <= bestBlocks) {
      best = v;
      bestBlocks = llvm::divideCeil(width, v);
    }
  return best;
}

/// Parts the rows of a plane are split into when there are fewer planes
/// than kMinParallelTiles (an ungrouped convolution with one filter has
/// one): the number between 2 and 16 closest to kMinParallelTiles / planes
/// that divides `rows` into parts of at least kMaxRows rows, else 1.
int64_t rowParts(int64_t rows, int64_t planes) {
  if (planes >= kMinParallelTiles)
    return 1;
  int64_t want = llvm::divideCeil(kMinParallelTiles, planes), best = 1;
  for (int64_t k = 2; k <= 16; ++k)
    if (rows % k == 0 && rows / k >= kMaxRows &&
        (best == 1 || std::abs(k - want) < std::abs(best - want)))
      best = k;
  return best;
}

/// Rows per block: up to kMaxRows, as few blocks as that allows, a divisor
/// of `rows` if one gives as few (no tail block).
int64_t chooseRows(int64_t rows) {
  int64_t most = std::min(rows, kMaxRows);
  int64_t blocks = llvm::divideCeil(rows, most);
  for (int64_t r = most; r >= 1; --r)
    if (rows % r == 0 && llvm::divideCeil(rows, r) == blocks)
      return r;
  return most;
}

/// The kernel for `cv` at `b`'s insertion point: the result ([N, G, M, OH,
/// OW]) and the strategy's description. The planes (n, g, m), each split
/// into parts of rows when there are few (rowParts), are the tiles of the
/// loop, over threads when `parallel` and the work is large enough.
std::pair<Value, std::string> emitKernel(OpBuilder &b, Location loc,
                                         const GroupedConv &cv,
                                         int64_t vectorBits, bool parallel) {
  int64_t lanes = std::max<int64_t>(
      vectorBits / cv.elt.getIntOrFloatBitWidth(), 1);
  int64_t planes = cv.n * cv.g * cv.m;
  int64_t macs = planes * cv.oh * cv.ow * cv.c * cv.kh * cv.kw;
  bool spread = parallel && macs >= kParallelMacs;
  int64_t parts = spread ? rowParts(cv.oh, planes) : 1, rows = cv.oh / parts;
  Kernel k{cv, loc, chooseLanes(cv.ow, lanes), chooseRows(rows)};
  int64_t tiles = planes * parts;
  bool threads = spread && tiles > 1;
  auto tileType = RankedTensorType::get({rows, cv.ow}, cv.elt);
  Value result = hodu::cpu::tileLoop(
      b, loc, tiles, 1, cv.dest, threads,
      [&](OpBuilder &pb, Value iv, Value out, SmallVector<OpFoldResult> &offsets,
          SmallVector<OpFoldResult> &sizes) {
        // iv = ((n * G + g) * M + m) * parts + part
        Value plane = arith::DivUIOp::create(pb, loc, iv, k.index(pb, parts));
        Value part = arith::RemUIOp::create(pb, loc, iv, k.index(pb, parts));
        Value gm = k.index(pb, cv.g * cv.m), mm = k.index(pb, cv.m);
        Value ng[3] = {
            arith::DivUIOp::create(pb, loc, plane, gm),
            arith::RemUIOp::create(
                pb, loc, arith::DivUIOp::create(pb, loc, plane, mm),
                k.index(pb, cv.g)),
            arith::RemUIOp::create(pb, loc, plane, mm)};
        Value row0 = k.affine(pb, part, rows, 0);
        offsets = {ng[0], ng[1], ng[2], row0, pb.getIndexAttr(0)};
        sizes = {pb.getIndexAttr(1), pb.getIndexAttr(1), pb.getIndexAttr(1),
                 pb.getIndexAttr(rows), pb.getIndexAttr(cv.ow)};
        SmallVector<OpFoldResult> unit(5, pb.getIndexAttr(1));
        Value tile = tensor::ExtractSliceOp::create(pb, loc, tileType, out,
                                                    offsets, sizes, unit);
        return k.plane(pb, tile, ng, row0, rows);
      });
  std::string over =
      !threads ? "one thread"
      : parts > 1
          ? llvm::formatv("planes in {0} parts of {1} rows over threads",
                          parts, rows)
                .str()
          : "planes over threads";
  return {result,
          llvm::formatv("direct, {0} {1} channel(s) x {2} filter(s), "
                        "{3}x{4} window, stride {5}x{6}; blocks of {7} row(s) "
                        "x {8} lanes; {9}",
                        cv.g == 1 ? std::string("ungrouped,")
                                  : llvm::formatv("{0} groups of", cv.g).str(),
                        cv.c, cv.m, cv.kh, cv.kw, cv.sh, cv.sw, k.r, k.v,
                        over)
              .str()};
}

} // namespace

std::optional<std::string>
hodu::cpu::convToDirect(linalg::Conv2DNchwFchwOp conv, int64_t vectorBits,
                        bool parallel) {
  if (!conv.hasPureTensorSemantics())
    return std::nullopt;
  auto xt = dyn_cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto wt = dyn_cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto ot = dyn_cast<RankedTensorType>(conv.getResult(0).getType());
  if (!sameStaticFloat(xt, wt, ot))
    return std::nullopt;
  // Rows narrower than 4 columns (a 1x1 plane) would fill a vector with
  // padding: the matmul path keeps them.
  if (wt.getDimSize(0) > kMaxDirectFilters ||
      wt.getDimSize(2) * wt.getDimSize(3) > kMaxTaps || ot.getDimSize(3) < 4)
    return std::nullopt;
  auto fill = conv.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  if (!fill)
    return std::nullopt;
  GroupedConv cv;
  setShapes(cv, xt, wt, ot);
  auto strides = conv.getStrides().getValues<int64_t>();
  auto dilations = conv.getDilations().getValues<int64_t>();
  cv.sh = strides[0];
  cv.sw = strides[1];
  cv.dh = dilations[0];
  cv.dw = dilations[1];
  if (cv.n == 0 || cv.m == 0 || cv.oh == 0 || cv.ow == 0 || cv.c == 0 ||
      cv.kh == 0 || cv.kw == 0 || cv.sh < 1 || cv.sw < 1 || cv.dh < 1 ||
      cv.dw < 1)
    return std::nullopt;
  // The ungrouped convolution as one group: a unit group dim after the
  // batch (input, output) or before the filters.
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  SmallVector<ReassociationIndices> first = {{0, 1}, {2}, {3}, {4}};
  auto grouped = [&](RankedTensorType t, bool unitFirst) {
    SmallVector<int64_t> shape(t.getShape());
    shape.insert(shape.begin() + (unitFirst ? 0 : 1), 1);
    return RankedTensorType::get(shape, t.getElementType());
  };
  cv.input = tensor::ExpandShapeOp::create(b, loc, grouped(xt, false),
                                           conv.getInputs()[0], first);
  cv.filter = tensor::ExpandShapeOp::create(b, loc, grouped(wt, true),
                                            conv.getInputs()[1], first);
  cv.dest = tensor::ExpandShapeOp::create(b, loc, grouped(ot, false),
                                          fill.getOutputs()[0], first);
  cv.fill = fill.getInputs()[0];
  auto [result, what] = emitKernel(b, loc, cv, vectorBits, parallel);
  Value flat = tensor::CollapseShapeOp::create(b, loc, ot, result, first);
  conv.getResult(0).replaceAllUsesWith(flat);
  conv.erase();
  return what;
}

using hodu::cpu::int8dot::indexAttrs;

namespace {
/// Most groups a grouped convolution with many channels per group is split
/// into (one ungrouped convolution each).
constexpr int64_t kMaxSplitGroups = 64;

/// `cv` (the generic `op`), a grouped convolution of more than
/// kMaxGroupChannels channels per group, as one linalg.conv_2d_nchw_fchw
/// per group on its channels, filters and output channels (slices; a
/// constant filter sliced at compile time), each from the fill: the
/// ungrouped strategies then take each (packed matmul, Winograd, bf16 dot
/// products), where the generic lowering ran scalar loops (a 2-group
/// 128-channel 3x3 conv at 28x28: 86 ms against 0.8 ms for the two
/// ungrouped halves).
std::string splitGroups(linalg::GenericOp op, const GroupedConv &cv) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto xt = cast<RankedTensorType>(cv.input.getType());
  int64_t hp = xt.getDimSize(3), wp = xt.getDimSize(4);
  auto wType = RankedTensorType::get({cv.m, cv.c, cv.kh, cv.kw}, cv.elt);
  auto xType = RankedTensorType::get({cv.n, cv.c, hp, wp}, cv.elt);
  auto yType = RankedTensorType::get({cv.n, cv.m, cv.oh, cv.ow}, cv.elt);
  int64_t filterElems = cv.m * cv.c * cv.kh * cv.kw;
  unsigned bytes = cv.elt.getIntOrFloatBitWidth() / 8;
  arith::ConstantOp cst = hodu::cpu::constantThroughReshapes(cv.filter);
  std::optional<ArrayRef<char>> raw;
  if (cst)
    raw = hodu::cpu::rawData(cst);
  auto splat = cst ? dyn_cast<SplatElementsAttr>(cst.getValue()) : nullptr;
  // Every element of the output is one group's: no fill of it first.
  Value result = cv.dest;
  for (int64_t g = 0; g < cv.g; ++g) {
    Value x = tensor::ExtractSliceOp::create(
        b, loc, xType, cv.input, indexAttrs(b, {0, g, 0, 0, 0}),
        indexAttrs(b, {cv.n, 1, cv.c, hp, wp}), indexAttrs(b, {1, 1, 1, 1, 1}));
    Value w;
    if (splat)
      w = arith::ConstantOp::create(
          b, loc, SplatElementsAttr::get(wType, splat.getSplatValue<Attribute>()));
    else if (raw)
      w = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::getFromRawBuffer(
              wType, raw->slice(g * filterElems * bytes, filterElems * bytes)));
    else
      w = tensor::ExtractSliceOp::create(
          b, loc, wType, cv.filter, indexAttrs(b, {g, 0, 0, 0, 0}),
          indexAttrs(b, {1, cv.m, cv.c, cv.kh, cv.kw}),
          indexAttrs(b, {1, 1, 1, 1, 1}));
    Value init = linalg::FillOp::create(
                     b, loc, cv.fill,
                     tensor::EmptyOp::create(b, loc, yType.getShape(), cv.elt)
                         .getResult())
                     .getResult(0);
    Value y = linalg::Conv2DNchwFchwOp::create(
                  b, loc, TypeRange{yType}, ValueRange{x, w}, ValueRange{init},
                  DenseIntElementsAttr::get(
                      VectorType::get({2}, b.getI64Type()),
                      ArrayRef<int64_t>{cv.sh, cv.sw}),
                  DenseIntElementsAttr::get(
                      VectorType::get({2}, b.getI64Type()),
                      ArrayRef<int64_t>{cv.dh, cv.dw}))
                  .getResult(0);
    result = tensor::InsertSliceOp::create(
        b, loc, y, result, indexAttrs(b, {0, g, 0, 0, 0}),
        indexAttrs(b, {cv.n, 1, cv.m, cv.oh, cv.ow}),
        indexAttrs(b, {1, 1, 1, 1, 1}));
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return llvm::formatv("split into {0} ungrouped convolutions of {1} channels "
                       "and {2} filters",
                       cv.g, cv.c, cv.m)
      .str();
}
} // namespace

std::optional<std::string>
hodu::cpu::groupedConvToDirect(Operation *operation, int64_t vectorBits,
                               bool parallel) {
  auto op = dyn_cast<linalg::GenericOp>(operation);
  if (!op)
    return std::nullopt;
  std::optional<GroupedConv> match = matchGroupedConv(op);
  if (!match)
    return std::nullopt;
  const GroupedConv &cv = *match;
  if (cv.c > kMaxGroupChannels && cv.g <= kMaxSplitGroups)
    return splitGroups(op, cv);
  if (cv.c > kMaxGroupChannels)
    return llvm::formatv("generic lowering, {0} groups of {1} channels "
                         "(direct kernels take up to {2} per group, and "
                         "convolutions of up to {3} groups are split)",
                         cv.g, cv.c, kMaxGroupChannels, kMaxSplitGroups)
        .str();
  if (cv.kh * cv.kw > kMaxTaps)
    return llvm::formatv("generic lowering, a {0}x{1} window (direct kernels "
                         "unroll up to {2} taps)",
                         cv.kh, cv.kw, kMaxTaps)
        .str();
  OpBuilder b(op);
  auto [result, what] = emitKernel(b, op.getLoc(), cv, vectorBits, parallel);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return what;
}
