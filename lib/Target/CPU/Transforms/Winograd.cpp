//===- Winograd.cpp - 3x3 convolutions by Winograd F(mxm,3x3) -------------===//
//
// A 3x3 stride-1 convolution computes each m x m block of outputs (a
// "tile") from an alpha x alpha window d of the input, alpha = m + 2.
// Winograd's minimal filtering algorithm F(mxm,3x3) (Lavin and Gray, "Fast
// Algorithms for Convolutional Neural Networks", CVPR 2016) does it with
// alpha^2 multiplies per (filter, channel) pair instead of 9 m^2:
//   Y = At [ U . V ] A,   U = G g Gt (the 3x3 filter g, alpha x alpha),
//                         V = Bt d B (the window),
// `.` elementwise. Summed over the channels c, the alpha^2 positions (a, b)
// of the product are independent matmuls over the tiles t:
//   M[ab][f, t] = sum_c U[ab][f, c] * V[ab][c, t]
// F(2x2,3x3) does 16/36 of the direct convolution's multiply-adds and
// F(4x4,3x3) 36/144, in the same packed register kernels (Packing.h), plus
// two transforms: Bt and At hold 0 and +-1 for m = 2 (additions only), and
// small integers for m = 4 (fused multiply-adds).
//
// U is computed at compile time, packed as the kernels' A panels. The
// tiles are processed in blocks of whole tile rows (chunks of blocks run
// over threads): per block, V is computed into B panels of nr tiles, the
// alpha^2 matmuls write M, and the output transform writes the block's
// tiles (their m columns interleaved with shuffles into contiguous rows),
// so V and M of a block stay in cache. Tile rows are padded to a whole
// number of panels and the input to whole tiles with zeros; the extra
// outputs are dropped. Which of F(2x2,3x3), F(4x4,3x3) and the packed
// im2col matmul a convolution takes is a cost model (convToWinograd).
//
//===----------------------------------------------------------------------===//

#include "Winograd.h"
#include "hodu/Target/CPU/WorkSplit.h"

#include "TileLoop.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <tuple>

using namespace mlir;

namespace {

/// One algorithm F(m x m, 3 x 3): tiles of m x m outputs from windows of
/// alpha = m + 2, with its matrices Bt [alpha x alpha], G [alpha x 3] and
/// At [m x alpha] (Lavin and Gray's, row-major).
struct Variant {
  int64_t m, alpha;
  ArrayRef<double> bt, g, at;
  double bT(int64_t r, int64_t c) const { return bt[r * alpha + c]; }
  double gT(int64_t r, int64_t c) const { return g[r * 3 + c]; }
  double aT(int64_t r, int64_t c) const { return at[r * alpha + c]; }
  /// Non-zero entries of a matrix, minus one per row: the additions of
  /// applying it to a vector.
  static int64_t additions(ArrayRef<double> mat, int64_t rows) {
    return llvm::count_if(mat, [](double v) { return v != 0; }) - rows;
  }
};

constexpr double kBt2[] = {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1};
constexpr double kG2[] = {1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1};
constexpr double kAt2[] = {1, 1, 1, 0, 0, 1, -1, -1};
constexpr double kBt4[] = {4, 0, -5, 0,  1, 0, 0, -4, -4, 1,  1, 0,
                           0, 4, -4, -1, 1, 0, 0, -2, -1, 2,  1, 0,
                           0, 2, -1, -2, 1, 0, 0, 4,  0,  -5, 0, 1};
constexpr double kG4[] = {1.0 / 4,  0,        0,        -1.0 / 6,  -1.0 / 6,
                          -1.0 / 6, -1.0 / 6, 1.0 / 6,  -1.0 / 6,  1.0 / 24,
                          1.0 / 12, 1.0 / 6,  1.0 / 24, -1.0 / 12, 1.0 / 6,
                          0,        0,        1};
constexpr double kAt4[] = {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0,
                           0, 1, 1, 4, 4, 0, 0, 1, -1, 8, -8, 1};
const Variant kF2{2, 4, kBt2, kG2, kAt2};
const Variant kF4{4, 6, kBt4, kG4, kAt4};

/// Tiles a block should have at least: the alpha^2 A panels (all of U) are read
/// once per block, so a block of T tiles reads U once per T tiles' work.
constexpr int64_t kBlockTiles = 64;

/// Weight of a transform's vector operation against a multiply-add of the
/// matmuls in the cost model: the transforms are loads, shuffles, adds and
/// stores that move data through the caches.
constexpr int64_t kTransformWeight = 2;

/// Most chunks of blocks that run over threads, each with scratch of its own.
constexpr int64_t kChunks = 8;

/// Fewest tiles a block may have when a smaller block splits the layer more
/// evenly over threads.
constexpr int64_t kMinBlockTiles = 32;

/// Tile rows per block, of `th` tile rows of `twp` tiles each: the blocks
/// are whole tile rows dividing `th`. Serially, the fewest rows that make
/// kBlockTiles tiles. Over threads, among the blocks of kMinBlockTiles tiles
/// or more, the one whose chunks (a divisor of the blocks, at most kChunks)
/// share out most evenly at 2 threads, then at 4 (WorkSplit.h), then whose
/// tiles are nearest kBlockTiles (in ratio). The bench CNN's 112x112 layer: 28
/// tile rows of 32 tiles in 14 blocks of 64 made 7 chunks, 4 and 3 on two
/// threads; 28 blocks of one row make 4 chunks of 7, 2 and 2 (its time on
/// 2 threads 1.19 -> 0.91 ms, and 1.32 -> 1.19 ms on one: each chunk's
/// scratch is half as large). Deeper layers, whose filter transform U is
/// read once per block and is larger, keep blocks of 64 tiles or more where
/// those split as evenly.
int64_t chooseRowsPerBlock(int64_t th, int64_t twp, bool parallel) {
  int64_t serial = th;
  for (int64_t r = 1; r <= th; ++r)
    if (th % r == 0 && r * twp >= kBlockTiles) {
      serial = r;
      break;
    }
  // A single block runs its alpha^2 matmuls over threads instead.
  if (!parallel || serial == th)
    return serial;
  int64_t best = serial;
  auto key = [&](int64_t r) {
    // Every candidate, `serial` included, makes more than one block.
    int64_t chunks = hodu::cpu::choosePieces(th / r, kChunks, true);
    double distance =
        std::abs(std::log2(double(r * twp) / double(kBlockTiles)));
    return std::make_tuple(hodu::cpu::splitBalance(chunks, 2),
                           hodu::cpu::splitBalance(chunks, 4), -distance);
  };
  for (int64_t r = 1; r <= th; ++r)
    if (th % r == 0 && r * twp >= kMinBlockTiles && th / r > 1 &&
        key(r) > key(best))
      best = r;
  return best;
}

struct Emitter {
  Location loc;
  Type elt;

  Value index(OpBuilder &b, int64_t i) const {
    return arith::ConstantIndexOp::create(b, loc, i);
  }
  Value affine(OpBuilder &b, Value base, int64_t scale, int64_t offset) const {
    return hodu::cpu::scaledIndex(b, loc, base, scale, offset);
  }
  Value add(OpBuilder &b, Value x, Value y) const {
    return arith::AddFOp::create(b, loc, x, y);
  }
  Value sub(OpBuilder &b, Value x, Value y) const {
    return arith::SubFOp::create(b, loc, x, y);
  }
  /// sum_i coeffs[i] * values[i] over vectors, skipping zero coefficients
  /// (additions and subtractions for +-1, fused multiply-adds otherwise).
  Value combine(OpBuilder &b, ArrayRef<double> coeffs,
                ArrayRef<Value> values) const {
    // +1 terms first, so that a -1 term is a subtraction, not a negation.
    SmallVector<std::pair<double, Value>> terms;
    for (bool ones : {true, false})
      for (auto [coef, v] : llvm::zip(coeffs, values))
        if (coef != 0 && (coef == 1) == ones)
          terms.push_back({coef, v});
    Value acc;
    for (const std::pair<double, Value> &term : terms) {
      double coef = term.first;
      Value v = term.second;
      auto splat = [&]() -> Value {
        return arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(cast<ShapedType>(v.getType()),
                                   b.getFloatAttr(elt, coef)));
      };
      if (!acc)
        acc = coef == 1 ? v
              : coef == -1
                  ? arith::NegFOp::create(b, loc, v).getResult()
                  : arith::MulFOp::create(b, loc, splat(), v).getResult();
      else if (coef == 1)
        acc = add(b, acc, v);
      else if (coef == -1)
        acc = sub(b, acc, v);
      else
        acc = vector::FMAOp::create(b, loc, splat(), v, acc);
    }
    return acc;
  }
  /// A counted scf.for carrying one value.
  Value loop(OpBuilder &b, int64_t count, Value init,
             llvm::function_ref<Value(OpBuilder &, Value, Value)> body) const {
    if (count == 1)
      return body(b, index(b, 0), init);
    auto f = scf::ForOp::create(
        b, loc, index(b, 0), index(b, count), index(b, 1), ValueRange{init},
        [&](OpBuilder &lb, Location, Value iv, ValueRange iter) {
          scf::YieldOp::create(lb, loc, body(lb, iv, iter[0]));
        });
    return f.getResult(0);
  }
};

} // namespace

std::optional<std::string>
hodu::cpu::convToWinograd(linalg::Conv2DNchwFchwOp conv, RegisterTile tile,
                          bool parallel, bool allowF4, int64_t directPairs) {
  if (!conv.hasPureTensorSemantics())
    return std::nullopt;
  auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto flt = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  Type elt = out.getElementType();
  if (!in.hasStaticShape() || !flt.hasStaticShape() || !out.hasStaticShape() ||
      in.getDimSize(0) != 1 || !elt.isF32() || in.getElementType() != elt ||
      flt.getElementType() != elt || flt.getDimSize(2) != 3 ||
      flt.getDimSize(3) != 3)
    return std::nullopt;
  if (llvm::any_of(conv.getStrides().getValues<int64_t>(),
                   [](int64_t s) { return s != 1; }) ||
      llvm::any_of(conv.getDilations().getValues<int64_t>(),
                   [](int64_t d) { return d != 1; }))
    return std::nullopt;
  auto fill = conv.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.hasPureTensorSemantics())
    return std::nullopt;
  arith::ConstantOp cst = constantThroughReshapes(conv.getInputs()[1]);
  if (!cst)
    return std::nullopt;
  int64_t c = in.getDimSize(1), h = in.getDimSize(2), w = in.getDimSize(3),
          f = flt.getDimSize(0), oh = out.getDimSize(2), ow = out.getDimSize(3);
  if (oh != h - 2 || ow != w - 2 || oh < 1 || ow < 1 || c < 1)
    return std::nullopt;
  int64_t narrowest = std::max<int64_t>(tile.lanes, 4);
  if (registerSize(f, tile.maxRows, 4) < 4)
    return std::nullopt;

  // Cost model, in lane operations per conv: the alpha^2 matmuls'
  // multiply-adds plus the transforms (per tile and channel in: loads,
  // alpha^2 shuffles, Bt applied to rows then columns, alpha^2 stores; per
  // tile and filter out: alpha^2 loads, At applied twice, the interleaving
  // shuffles and m stores; weighted kTransformWeight), each with its tile
  // rows padded to whole panels; against the packed im2col matmul's 9
  // multiply-adds per output and channel plus its copy of 9 taps. The
  // cheapest is taken: F(4x4,3x3) needs 36 multiplies per 16 outputs
  // (2.25 each) against F(2x2,3x3)'s 16 per 4 (4 each), but its tiles pad
  // narrow rows more and its transforms cost more.
  struct Plan {
    const Variant *v;
    int64_t th, tw, nr, twp, cost;
  };
  auto planFor = [&](const Variant &v) {
    Plan p{&v,
           int64_t(llvm::divideCeil(oh, v.m)),
           int64_t(llvm::divideCeil(ow, v.m)),
           0,
           0,
           0};
    p.nr = panelWidth(p.tw, tile.cols, narrowest);
    p.twp = llvm::alignTo(p.tw, p.nr);
    int64_t a = v.alpha, loads = a * llvm::divideCeil(a, v.m) * v.m;
    int64_t in = loads + 2 * a * a + 2 * a * Variant::additions(v.bt, a);
    int64_t outOps = a * a + a * Variant::additions(v.at, v.m) +
                     v.m * Variant::additions(v.at, v.m) + 2 * v.m;
    int64_t tiles = p.th * p.twp;
    p.cost = a * a * f * c * tiles +
             kTransformWeight * (in * c + outOps * f) * tiles;
    return p;
  };
  Plan plan = planFor(kF2);
  if (allowF4)
    if (Plan p4 = planFor(kF4); p4.cost < plan.cost)
      plan = p4;
  // The packed path's columns: rows padded to whole panels, or the
  // flattened plane when that is fewer (convToPackedMatmul's choice).
  int64_t columns =
      oh * llvm::alignTo(ow, panelWidth(ow, tile.cols, narrowest));
  if (oh > 1)
    columns = std::min<int64_t>(
        columns,
        llvm::alignTo(oh * w, panelWidth(oh * w, tile.cols, narrowest)));
  int64_t packed =
      9 * f * c * columns / directPairs + kTransformWeight * 18 * c * columns;
  if (plan.cost >= packed)
    return std::nullopt;
  const Variant &vr = *plan.v;
  int64_t mt = vr.m, alpha = vr.alpha, positions = alpha * alpha;
  int64_t th = plan.th, nr = plan.nr, twp = plan.twp, q = twp / nr;
  // Filter rows of the register tile: a power of two dividing F, as many as
  // the registers hold beside panels of nr tiles.
  int64_t mr = registerSize(f, tile.maxRowsFor(nr), 4);

  int64_t rowsPerBlock = chooseRowsPerBlock(th, twp, parallel);
  int64_t blocks = th / rowsPerBlock;
  int64_t panels = rowsPerBlock * q; // B panels of a block
  bool threads = parallel && blocks > 1;

  // The filter's values (a splat, or raw f32 data), read once Winograd is
  // chosen.
  std::vector<float> g(static_cast<size_t>(f * c * 9));
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      dense && dense.isSplat()) {
    std::fill(g.begin(), g.end(), dense.getSplatValue<float>());
  } else {
    std::optional<ArrayRef<char>> data = rawData(cst);
    if (!data || data->size() < g.size() * sizeof(float))
      return std::nullopt;
    std::memcpy(g.data(), data->data(), g.size() * sizeof(float));
  }
  // A filter of whole numbers is an integer convolution computed in f32
  // (ConvInteger, QLinearConv; the importer checked that the direct sums
  // are exact): Winograd's transforms would round them, so it stays direct.
  if (llvm::all_of(g, [](float v) { return v == std::trunc(v); }))
    return std::nullopt;

  // U = G g Gt, packed as alpha^2 sets of A panels:
  // Ucst[ab, f / mr, c, f % mr].
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
      static_cast<size_t>(positions * f * c) * sizeof(float),
      alignof(uint64_t));
  auto *u = reinterpret_cast<float *>(blob.getMutableData().data());
  SmallVector<double> gg(alpha * 3); // G g
  for (int64_t fi = 0; fi < f; ++fi)
    for (int64_t ci = 0; ci < c; ++ci) {
      const float *gk = &g[(fi * c + ci) * 9];
      for (int64_t a = 0; a < alpha; ++a)
        for (int64_t j = 0; j < 3; ++j)
          gg[a * 3 + j] = vr.gT(a, 0) * gk[j] + vr.gT(a, 1) * gk[3 + j] +
                          vr.gT(a, 2) * gk[6 + j];
      for (int64_t a = 0; a < alpha; ++a)
        for (int64_t bi = 0; bi < alpha; ++bi) {
          double v = gg[a * 3] * vr.gT(bi, 0) + gg[a * 3 + 1] * vr.gT(bi, 1) +
                     gg[a * 3 + 2] * vr.gT(bi, 2);
          u[(((a * alpha + bi) * (f / mr) + fi / mr) * c + ci) * mr + fi % mr] =
              static_cast<float>(v);
        }
    }

  OpBuilder b(conv);
  Location loc = conv.getLoc();
  Emitter k{loc, elt};
  Value ucst = arith::ConstantOp::create(
      b, loc,
      DenseResourceElementsAttr::get(
          RankedTensorType::get({positions, f / mr, c, mr}, elt),
          "hodu_winograd", std::move(blob)));
  // Each input row of a panel is read as `reads` vectors of m*nr columns,
  // m apart; the input is padded with zeros to whole tiles and to what the
  // last read reaches: [C, m*TH + 2, m*TWp + m*(reads - 1)].
  int64_t reads = llvm::divideCeil(alpha, mt);
  int64_t hn = mt * th + 2, wn = mt * twp + mt * (reads - 1);
  Value x = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({c, h, w}, elt), conv.getInputs()[0],
      ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
  if (hn != h || wn != w)
    x = tensor::PadOp::create(
        b, loc, RankedTensorType::get({c, hn, wn}, elt), x,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0),
                               b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(hn - h),
                               b.getIndexAttr(wn - w)},
        zero);
  Value fillValue = fill.getInputs()[0];
  bool addFill = true;
  if (auto fc = fillValue.getDefiningOp<arith::ConstantOp>())
    if (auto fa = dyn_cast<FloatAttr>(fc.getValue());
        fa && fa.getValue().isPosZero())
      addFill = false;

  auto vec = VectorType::get({nr}, elt);
  auto wide = VectorType::get({mt * nr}, elt);
  // Lane picks: columns j of m, and the interleaving of m output columns.
  SmallVector<SmallVector<int64_t>> picks(mt);
  for (int64_t j = 0; j < mt; ++j)
    for (int64_t l = 0; l < nr; ++l)
      picks[j].push_back(l * mt + j);
  int64_t n = panels * nr; // columns of one block's matmuls
  // V of a block's tiles: [alpha^2, panels, C, nr], B panels per (a, b).
  auto inputTransform = [&](OpBuilder &bb, Value ty0, Value v) -> Value {
    return k.loop(bb, panels, v, [&](OpBuilder &pb, Value p, Value v) {
      Value row = arith::DivUIOp::create(pb, loc, p, k.index(pb, q));
      Value x0 = k.affine(
          pb, arith::RemUIOp::create(pb, loc, p, k.index(pb, q)), mt * nr, 0);
      Value y0 = k.affine(pb, arith::AddIOp::create(pb, loc, ty0, row), mt, 0);
      return k.loop(pb, c, v, [&](OpBuilder &cb, Value ci, Value v) {
        // d[i][j][l] = x[c, y0 + i, x0 + m*l + j]
        SmallVector<SmallVector<Value>> d(alpha, SmallVector<Value>(alpha));
        for (int64_t i = 0; i < alpha; ++i) {
          Value yi = k.affine(cb, y0, 1, i);
          for (int64_t r = 0; r < reads; ++r) {
            Value xs = k.affine(cb, x0, 1, mt * r);
            Value rd = vector::TransferReadOp::create(
                cb, loc, wide, x, ValueRange{ci, yi, xs}, zero,
                ArrayRef<bool>{true});
            for (int64_t j = r * mt; j < std::min(alpha, (r + 1) * mt); ++j)
              d[i][j] =
                  vector::ShuffleOp::create(cb, loc, rd, rd, picks[j - r * mt]);
          }
        }
        // Bt d (rows), then (Bt d) B (columns).
        SmallVector<SmallVector<Value>> e(alpha, SmallVector<Value>(alpha));
        SmallVector<Value> col(alpha);
        for (int64_t a = 0; a < alpha; ++a)
          for (int64_t j = 0; j < alpha; ++j) {
            for (int64_t i = 0; i < alpha; ++i)
              col[i] = d[i][j];
            e[a][j] = k.combine(cb, vr.bt.slice(a * alpha, alpha), col);
          }
        for (int64_t a = 0; a < alpha; ++a)
          for (int64_t bi = 0; bi < alpha; ++bi)
            v = vector::TransferWriteOp::create(
                    cb, loc,
                    k.combine(cb, vr.bt.slice(bi * alpha, alpha), e[a]), v,
                    ValueRange{k.index(cb, a * alpha + bi), p, ci,
                               k.index(cb, 0)},
                    ArrayRef<bool>{true})
                    .getResult();
        return v;
      });
    });
  };
  // The blocks run in chunks (at most kChunks, a divisor of the blocks)
  // over threads, each chunk with scratch V and M of its own, allocated in
  // the chunk's body; hodu-cpu-hoist-parallel-allocs later makes that one
  // allocation per chunk outside the parallel loop, in the workspace.
  // How many: the divisor of the blocks that divides most evenly at 2 to
  // 16 threads (WorkSplit.h), at most kChunks. More chunks would divide
  // some layers more evenly (14 blocks of a 112x112 layer: 7 and 7 on two
  // threads instead of 4 and 3 chunks of 2) but each has scratch of its
  // own: measured on the bench CNN, 14 chunks took 6 MiB more workspace
  // and ran no faster on 2 threads and slower on 1 (a thread cycles
  // through every chunk's scratch, which then no longer stays in its L2).
  // chooseRowsPerBlock sized the blocks with this count in view.
  int64_t chunks =
      threads ? hodu::cpu::choosePieces(blocks, kChunks, /*divisorsOnly=*/true)
              : 1;
  // M[ab] = U[ab] x V[ab], [F, n], of one position ab.
  auto positionMatmul = [&](OpBuilder &mb, Value ab, Value v,
                            Value m) -> Value {
    auto sliceOf = [&](Value src, ArrayRef<int64_t> shape) {
      SmallVector<OpFoldResult> offs{ab}, szs{mb.getIndexAttr(1)},
          ones(shape.size() + 1, mb.getIndexAttr(1));
      for (int64_t s : shape) {
        offs.push_back(mb.getIndexAttr(0));
        szs.push_back(mb.getIndexAttr(s));
      }
      return tensor::ExtractSliceOp::create(
          mb, loc, RankedTensorType::get(shape, elt), src, offs, szs, ones);
    };
    return panelMatmul(mb, loc, sliceOf(ucst, {f / mr, c, mr}),
                       sliceOf(v, {panels, c, nr}), sliceOf(m, {f, n}), zero, f,
                       n, c, mr, nr, c, /*parallel=*/false);
  };
  // The alpha^2 matmuls of a block, into M [alpha^2, F, n]: in order, or,
  // with a single chunk (the deep layers of a small image: one block), over
  // threads, a share of the positions each.
  bool parallelPositions = parallel && chunks == 1;
  auto matmuls = [&](OpBuilder &bb, Value v, Value m) -> Value {
    return tileLoop(
        bb, loc, positions, 1, m, parallelPositions,
        [&](OpBuilder &mb, Value ab, Value m,
            SmallVector<OpFoldResult> &offsets,
            SmallVector<OpFoldResult> &sizes) -> Value {
          offsets = {ab, mb.getIndexAttr(0), mb.getIndexAttr(0)};
          sizes = {mb.getIndexAttr(1), mb.getIndexAttr(f), mb.getIndexAttr(n)};
          return positionMatmul(mb, ab, v, m);
        });
  };
  // The m output columns of a tile row, interleaved into one row of m*nr:
  // pairs of them concatenated, then the pairs' lanes picked.
  auto interleaveRow = [&](OpBuilder &fb, ArrayRef<Value> cols) -> Value {
    if (mt == 2) {
      SmallVector<int64_t> mask;
      for (int64_t l = 0; l < nr; ++l)
        llvm::append_range(mask, ArrayRef<int64_t>{l, nr + l});
      return vector::ShuffleOp::create(fb, loc, cols[0], cols[1], mask);
    }
    SmallVector<int64_t> concat, mask;
    for (int64_t l = 0; l < 2 * nr; ++l)
      concat.push_back(l);
    Value lo = vector::ShuffleOp::create(fb, loc, cols[0], cols[1], concat);
    Value hi = vector::ShuffleOp::create(fb, loc, cols[2], cols[3], concat);
    for (int64_t l = 0; l < nr; ++l)
      for (int64_t j = 0; j < 4; ++j)
        mask.push_back((j / 2) * 2 * nr + (j % 2) * nr + l);
    return vector::ShuffleOp::create(fb, loc, lo, hi, mask);
  };
  // The output transform of a block into its rows of Y, yb:
  // [F, m * rowsPerBlock, m * TWp].
  auto outputTransform = [&](OpBuilder &bb, Value m, Value yb) -> Value {
    Value fillVec;
    if (addFill)
      fillVec = vector::BroadcastOp::create(bb, loc, vec, fillValue);
    return k.loop(bb, panels, yb, [&](OpBuilder &pb, Value p, Value yb) {
      Value row = arith::DivUIOp::create(pb, loc, p, k.index(pb, q));
      Value col = k.affine(
          pb, arith::RemUIOp::create(pb, loc, p, k.index(pb, q)), mt * nr, 0);
      Value t0 = k.affine(pb, p, nr, 0);
      return k.loop(pb, f, yb, [&](OpBuilder &fb, Value fi, Value yb) {
        SmallVector<SmallVector<Value>> mv(alpha, SmallVector<Value>(alpha));
        for (int64_t a = 0; a < alpha; ++a)
          for (int64_t bi = 0; bi < alpha; ++bi)
            mv[a][bi] = vector::TransferReadOp::create(
                fb, loc, vec, m,
                ValueRange{k.index(fb, a * alpha + bi), fi, t0}, zero,
                ArrayRef<bool>{true});
        // At M (rows), then (At M) A (columns).
        SmallVector<Value> colv(alpha), s(alpha), outs(mt);
        for (int64_t yi = 0; yi < mt; ++yi) {
          for (int64_t bi = 0; bi < alpha; ++bi) {
            for (int64_t a = 0; a < alpha; ++a)
              colv[a] = mv[a][bi];
            s[bi] = k.combine(fb, vr.at.slice(yi * alpha, alpha), colv);
          }
          for (int64_t xi = 0; xi < mt; ++xi) {
            outs[xi] = k.combine(fb, vr.at.slice(xi * alpha, alpha), s);
            if (fillVec)
              outs[xi] = k.add(fb, outs[xi], fillVec);
          }
          yb = vector::TransferWriteOp::create(
                   fb, loc, interleaveRow(fb, outs), yb,
                   ValueRange{fi, k.affine(fb, row, mt, yi), col},
                   ArrayRef<bool>{true})
                   .getResult();
        }
        return yb;
      });
    });
  };
  auto rowsOf = [&](OpBuilder &bb, Value src, Value row0, int64_t rows) {
    return tensor::ExtractSliceOp::create(
        bb, loc, RankedTensorType::get({f, rows, mt * twp}, elt), src,
        SmallVector<OpFoldResult>{bb.getIndexAttr(0), row0, bb.getIndexAttr(0)},
        SmallVector<OpFoldResult>{bb.getIndexAttr(f), bb.getIndexAttr(rows),
                                  bb.getIndexAttr(mt * twp)},
        SmallVector<OpFoldResult>(3, bb.getIndexAttr(1)));
  };
  auto putRows = [&](OpBuilder &bb, Value rowsVal, Value dest, Value row0) {
    auto t = cast<RankedTensorType>(rowsVal.getType());
    return tensor::InsertSliceOp::create(
        bb, loc, rowsVal, dest,
        SmallVector<OpFoldResult>{bb.getIndexAttr(0), row0, bb.getIndexAttr(0)},
        SmallVector<OpFoldResult>{bb.getIndexAttr(f),
                                  bb.getIndexAttr(t.getDimSize(1)),
                                  bb.getIndexAttr(mt * twp)},
        SmallVector<OpFoldResult>(3, bb.getIndexAttr(1)));
  };
  int64_t perChunk = blocks / chunks, chunkRows = mt * rowsPerBlock * perChunk;
  Value y = tensor::EmptyOp::create(b, loc, {f, mt * th, mt * twp}, elt);
  Value result = tileLoop(
      b, loc, chunks, chunkRows, y, chunks > 1,
      [&](OpBuilder &cb, Value row0, Value ys,
          SmallVector<OpFoldResult> &offsets,
          SmallVector<OpFoldResult> &sizes) -> Value {
        offsets = {cb.getIndexAttr(0), row0, cb.getIndexAttr(0)};
        sizes = {cb.getIndexAttr(f), cb.getIndexAttr(chunkRows),
                 cb.getIndexAttr(mt * twp)};
        Value v =
            tensor::EmptyOp::create(cb, loc, {positions, panels, c, nr}, elt);
        Value m = tensor::EmptyOp::create(cb, loc, {positions, f, n}, elt);
        // The chunk's first tile row: row0 / m.
        Value first = arith::DivUIOp::create(cb, loc, row0, k.index(cb, mt));
        auto loop = scf::ForOp::create(
            cb, loc, k.index(cb, 0), k.index(cb, perChunk), k.index(cb, 1),
            ValueRange{rowsOf(cb, ys, row0, chunkRows), v, m},
            [&](OpBuilder &lb, Location, Value blk, ValueRange iter) {
              Value ty0 = arith::AddIOp::create(
                  lb, loc, first, k.affine(lb, blk, rowsPerBlock, 0));
              Value v = inputTransform(lb, ty0, iter[1]);
              Value m = matmuls(lb, v, iter[2]);
              Value r0 = k.affine(lb, blk, mt * rowsPerBlock, 0);
              Value yb = outputTransform(
                  lb, m, rowsOf(lb, iter[0], r0, mt * rowsPerBlock));
              scf::YieldOp::create(
                  lb, loc, ValueRange{putRows(lb, yb, iter[0], r0), v, m});
            });
        return loop.getResult(0);
      });
  if (mt * th != oh || mt * twp != ow)
    result = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({f, oh, ow}, elt), result,
        SmallVector<OpFoldResult>(3, b.getIndexAttr(0)),
        SmallVector<OpFoldResult>{b.getIndexAttr(f), b.getIndexAttr(oh),
                                  b.getIndexAttr(ow)},
        SmallVector<OpFoldResult>(3, b.getIndexAttr(1)));
  result = tensor::ExpandShapeOp::create(
      b, loc, out, result, ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}});
  conv->getResult(0).replaceAllUsesWith(result);
  conv->erase();
  return llvm::formatv(
             "winograd F({0}x{0},3x3), {1}x{2} register tile, blocks "
             "of {3} tile row(s) ({4} tiles); {5}",
             mt, mr, nr, rowsPerBlock, rowsPerBlock * twp,
             chunks > 1 ? llvm::formatv("{0} chunks over threads", chunks).str()
             : parallelPositions
                 ? llvm::formatv("one chunk, its {0} matmuls over threads",
                                 positions)
                       .str()
                 : std::string("one thread"))
      .str();
}
