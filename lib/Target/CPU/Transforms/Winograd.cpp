//===- Winograd.cpp - 3x3 convolutions by Winograd F(2x2,3x3) -------------===//
//
// A 3x3 stride-1 convolution computes each 2x2 block of outputs (a "tile")
// from a 4x4 window d of the input. Winograd's minimal filtering algorithm
// F(2x2,3x3) (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", CVPR 2016) does it with 16 multiplies per (filter, channel)
// pair instead of 36:
//   Y = At [ U . V ] A,   U = G g Gt (the 3x3 filter g, 4x4),
//                         V = Bt d B (the window, 4x4),
// `.` elementwise. Summed over the channels c, the 16 positions (a, b) of
// the 4x4 product are 16 independent matmuls over the tiles t:
//   M[ab][f, t] = sum_c U[ab][f, c] * V[ab][c, t]
// so the work is 16/36 of the direct convolution's multiply-adds in the
// same packed register kernels (Packing.h), plus two transforms that are
// only additions and subtractions: Bt and At hold 0 and +-1.
//
// U is computed at compile time, packed as the kernels' A panels. The
// tiles are processed in blocks of whole tile rows (an scf.forall over
// blocks): per block, V is computed into B panels of nr tiles, the 16
// matmuls write M, and the output transform writes the block's 2x2 tiles
// (interleaved with shuffles into contiguous rows), so V and M of a block
// stay in cache. Tile rows are padded to a whole number of panels and the
// input to whole tiles with zeros; the extra outputs are dropped.
//
//===----------------------------------------------------------------------===//

#include "Winograd.h"

#include "TileLoop.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir;

namespace {

/// G of F(2x2,3x3): U = G g Gt.
constexpr double kG[4][3] = {
    {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};

/// Tiles a block should have at least: the 16 A panels (all of U) are read
/// once per block, so a block of T tiles reads U once per T tiles' work.
constexpr int64_t kBlockTiles = 64;

/// Weight of a transform's vector operation against a multiply-add of the
/// matmuls in the cost model: the transforms are loads, shuffles, adds and
/// stores that move data through the caches.
constexpr int64_t kTransformWeight = 2;

/// Most chunks of blocks that run over threads, each with scratch of its own.
constexpr int64_t kChunks = 8;

/// The narrowest panel, from `widest` down to `narrowest` halving, that
/// wastes at most an eighth of `width` rounded up to it.
int64_t panelWidth(int64_t width, int64_t widest, int64_t narrowest) {
  int64_t nr = widest;
  while (nr > narrowest &&
         (llvm::alignTo(width, nr) - width) * 8 > llvm::alignTo(width, nr))
    nr /= 2;
  return nr;
}

struct Emitter {
  Location loc;
  Type elt;

  Value index(OpBuilder &b, int64_t i) const {
    return arith::ConstantIndexOp::create(b, loc, i);
  }
  Value affine(OpBuilder &b, Value base, int64_t scale, int64_t offset) const {
    Value s = scale == 1 ? base
                         : arith::MulIOp::create(b, loc, base, index(b, scale));
    return offset == 0 ? s : arith::AddIOp::create(b, loc, s, index(b, offset));
  }
  Value add(OpBuilder &b, Value x, Value y) const {
    return arith::AddFOp::create(b, loc, x, y);
  }
  Value sub(OpBuilder &b, Value x, Value y) const {
    return arith::SubFOp::create(b, loc, x, y);
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
                          bool parallel) {
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
  // The filter's values (a splat, or raw f32 data).
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

  // Tiles, panels and register tile.
  int64_t th = llvm::divideCeil(oh, 2), tw = llvm::divideCeil(ow, 2);
  int64_t narrowest = std::max<int64_t>(tile.lanes, 4);
  int64_t nr = panelWidth(tw, tile.cols, narrowest);
  int64_t twp = llvm::alignTo(tw, nr), q = twp / nr;
  int64_t mr = registerSize(f, tile.rows, 4);
  if (mr < 4)
    return std::nullopt;

  // Cost model, in lane operations: the 16 matmuls' multiply-adds plus the
  // transforms (per tile: 32 additions, 8 loads, 16 shuffles and 16 stores
  // per channel in; 16 loads, 24 additions and 4 stores/shuffles per filter
  // out), against the packed im2col matmul's 9 multiply-adds per output and
  // channel plus its copy of 9 taps. Winograd is taken when cheaper.
  int64_t tiles = th * twp;
  int64_t winograd =
      16 * f * c * tiles + kTransformWeight * (72 * c + 44 * f) * tiles;
  int64_t owp = llvm::alignTo(ow, panelWidth(ow, tile.cols, narrowest));
  int64_t packed = 9 * f * c * oh * owp + kTransformWeight * 18 * c * oh * owp;
  if (winograd >= packed)
    return std::nullopt;

  // Blocks of whole tile rows: the fewest rows that make kBlockTiles tiles,
  // dividing the tile rows.
  int64_t rowsPerBlock = th;
  for (int64_t r = 1; r <= th; ++r)
    if (th % r == 0 && r * twp >= kBlockTiles) {
      rowsPerBlock = r;
      break;
    }
  int64_t blocks = th / rowsPerBlock;
  int64_t panels = rowsPerBlock * q; // B panels of a block
  bool threads = parallel && blocks > 1;

  // U, packed as 16 sets of A panels: Ucst[ab, f / mr, c, f % mr].
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
      static_cast<size_t>(16 * f * c) * sizeof(float), alignof(uint64_t));
  auto *u = reinterpret_cast<float *>(blob.getMutableData().data());
  for (int64_t fi = 0; fi < f; ++fi)
    for (int64_t ci = 0; ci < c; ++ci) {
      const float *gk = &g[(fi * c + ci) * 9];
      double gg[4][3]; // G g
      for (int a = 0; a < 4; ++a)
        for (int j = 0; j < 3; ++j)
          gg[a][j] =
              kG[a][0] * gk[j] + kG[a][1] * gk[3 + j] + kG[a][2] * gk[6 + j];
      for (int a = 0; a < 4; ++a)
        for (int bb = 0; bb < 4; ++bb) {
          double v = gg[a][0] * kG[bb][0] + gg[a][1] * kG[bb][1] +
                     gg[a][2] * kG[bb][2];
          u[(((a * 4 + bb) * (f / mr) + fi / mr) * c + ci) * mr + fi % mr] =
              static_cast<float>(v);
        }
    }

  OpBuilder b(conv);
  Location loc = conv.getLoc();
  Emitter k{loc, elt};
  Value ucst = arith::ConstantOp::create(
      b, loc,
      DenseResourceElementsAttr::get(
          RankedTensorType::get({16, f / mr, c, mr}, elt), "hodu_winograd",
          std::move(blob)));
  // The input as [C, 2*TH + 2, 2*TWp + 2], padded with zeros to whole tiles.
  int64_t hn = 2 * th + 2, wn = 2 * twp + 2;
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
  auto wide = VectorType::get({2 * nr}, elt);
  SmallVector<int64_t> evens, odds, interleave;
  for (int64_t l = 0; l < nr; ++l) {
    evens.push_back(2 * l);
    odds.push_back(2 * l + 1);
    interleave.push_back(l);
    interleave.push_back(nr + l);
  }
  int64_t n = panels * nr; // columns of one block's matmuls
  // V of a block's tiles: [16, panels, C, nr], B panels per (a, b).
  auto inputTransform = [&](OpBuilder &bb, Value ty0, Value v) -> Value {
    return k.loop(bb, panels, v, [&](OpBuilder &pb, Value p, Value v) {
      Value row = arith::DivUIOp::create(pb, loc, p, k.index(pb, q));
      Value x0 = k.affine(
          pb, arith::RemUIOp::create(pb, loc, p, k.index(pb, q)), 2 * nr, 0);
      Value y0 = k.affine(pb, arith::AddIOp::create(pb, loc, ty0, row), 2, 0);
      return k.loop(pb, c, v, [&](OpBuilder &cb, Value ci, Value v) {
        // d[i][j][l] = x[c, y0 + i, x0 + 2l + j]
        Value d[4][4];
        for (int64_t i = 0; i < 4; ++i) {
          Value yi = k.affine(cb, y0, 1, i);
          for (int64_t half = 0; half < 2; ++half) {
            Value xs = k.affine(cb, x0, 1, 2 * half);
            Value r = vector::TransferReadOp::create(
                cb, loc, wide, x, ValueRange{ci, yi, xs}, zero,
                ArrayRef<bool>{true});
            d[i][2 * half] = vector::ShuffleOp::create(cb, loc, r, r, evens);
            d[i][2 * half + 1] = vector::ShuffleOp::create(cb, loc, r, r, odds);
          }
        }
        // Bt d, then (Bt d) B: the rows of Bt are (1,0,-1,0), (0,1,1,0),
        // (0,-1,1,0) and (0,1,0,-1).
        auto bt = [&](Value e0, Value e1, Value e2, Value e3,
                      int64_t a) -> Value {
          switch (a) {
          case 0:
            return k.sub(cb, e0, e2);
          case 1:
            return k.add(cb, e1, e2);
          case 2:
            return k.sub(cb, e2, e1);
          default:
            return k.sub(cb, e1, e3);
          }
        };
        Value e[4][4];
        for (int64_t a = 0; a < 4; ++a)
          for (int64_t j = 0; j < 4; ++j)
            e[a][j] = bt(d[0][j], d[1][j], d[2][j], d[3][j], a);
        for (int64_t a = 0; a < 4; ++a)
          for (int64_t bi = 0; bi < 4; ++bi)
            v = vector::TransferWriteOp::create(
                    cb, loc, bt(e[a][0], e[a][1], e[a][2], e[a][3], bi), v,
                    ValueRange{k.index(cb, a * 4 + bi), p, ci, k.index(cb, 0)},
                    ArrayRef<bool>{true})
                    .getResult();
        return v;
      });
    });
  };
  // The 16 matmuls of a block: M[ab] = U[ab] x V[ab], [F, n] each.
  auto matmuls = [&](OpBuilder &bb, Value v, Value m) -> Value {
    return k.loop(bb, 16, m, [&](OpBuilder &mb, Value ab, Value m) {
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
      Value mab = panelMatmul(mb, loc, sliceOf(ucst, {f / mr, c, mr}),
                              sliceOf(v, {panels, c, nr}), sliceOf(m, {f, n}),
                              zero, f, n, c, mr, nr, c, /*parallel=*/false);
      return tensor::InsertSliceOp::create(
          mb, loc, mab, m,
          ArrayRef<OpFoldResult>{ab, mb.getIndexAttr(0), mb.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{mb.getIndexAttr(1), mb.getIndexAttr(f),
                                 mb.getIndexAttr(n)},
          SmallVector<OpFoldResult>(3, mb.getIndexAttr(1)));
    });
  };
  // The output transform of a block into its rows of Y, yb:
  // [F, 2 * rowsPerBlock, 2 * TWp].
  auto outputTransform = [&](OpBuilder &bb, Value m, Value yb) -> Value {
    Value fillVec;
    if (addFill)
      fillVec = vector::BroadcastOp::create(bb, loc, vec, fillValue);
    return k.loop(bb, panels, yb, [&](OpBuilder &pb, Value p, Value yb) {
      Value row = arith::DivUIOp::create(pb, loc, p, k.index(pb, q));
      Value col = k.affine(
          pb, arith::RemUIOp::create(pb, loc, p, k.index(pb, q)), 2 * nr, 0);
      Value t0 = k.affine(pb, p, nr, 0);
      return k.loop(pb, f, yb, [&](OpBuilder &fb, Value fi, Value yb) {
        Value mv[4][4];
        for (int64_t a = 0; a < 4; ++a)
          for (int64_t bi = 0; bi < 4; ++bi)
            mv[a][bi] = vector::TransferReadOp::create(
                fb, loc, vec, m, ValueRange{k.index(fb, a * 4 + bi), fi, t0},
                zero, ArrayRef<bool>{true});
        // At = (1,1,1,0), (0,1,-1,-1), on the rows then the columns.
        auto at = [&](Value e0, Value e1, Value e2, Value e3,
                      int64_t r) -> Value {
          return r == 0 ? k.add(fb, k.add(fb, e0, e1), e2)
                        : k.sub(fb, k.sub(fb, e1, e2), e3);
        };
        for (int64_t yi = 0; yi < 2; ++yi) {
          Value s[4];
          for (int64_t bi = 0; bi < 4; ++bi)
            s[bi] = at(mv[0][bi], mv[1][bi], mv[2][bi], mv[3][bi], yi);
          Value o0 = at(s[0], s[1], s[2], s[3], 0);
          Value o1 = at(s[0], s[1], s[2], s[3], 1);
          if (fillVec) {
            o0 = k.add(fb, o0, fillVec);
            o1 = k.add(fb, o1, fillVec);
          }
          Value rowVec = vector::ShuffleOp::create(fb, loc, o0, o1, interleave);
          yb = vector::TransferWriteOp::create(
                   fb, loc, rowVec, yb,
                   ValueRange{fi, k.affine(fb, row, 2, yi), col},
                   ArrayRef<bool>{true})
                   .getResult();
        }
        return yb;
      });
    });
  };
  auto rowsOf = [&](OpBuilder &bb, Value src, Value row0, int64_t rows) {
    return tensor::ExtractSliceOp::create(
        bb, loc, RankedTensorType::get({f, rows, 2 * twp}, elt), src,
        SmallVector<OpFoldResult>{bb.getIndexAttr(0), row0, bb.getIndexAttr(0)},
        SmallVector<OpFoldResult>{bb.getIndexAttr(f), bb.getIndexAttr(rows),
                                  bb.getIndexAttr(2 * twp)},
        SmallVector<OpFoldResult>(3, bb.getIndexAttr(1)));
  };
  auto putRows = [&](OpBuilder &bb, Value rowsVal, Value dest, Value row0) {
    auto t = cast<RankedTensorType>(rowsVal.getType());
    return tensor::InsertSliceOp::create(
        bb, loc, rowsVal, dest,
        SmallVector<OpFoldResult>{bb.getIndexAttr(0), row0, bb.getIndexAttr(0)},
        SmallVector<OpFoldResult>{bb.getIndexAttr(f),
                                  bb.getIndexAttr(t.getDimSize(1)),
                                  bb.getIndexAttr(2 * twp)},
        SmallVector<OpFoldResult>(3, bb.getIndexAttr(1)));
  };
  // The blocks run in chunks (at most kChunks, a divisor of the blocks)
  // over threads, each chunk with scratch V and M of its own, allocated in
  // the chunk's body; hodu-cpu-hoist-parallel-allocs later makes that one
  // allocation per chunk outside the parallel loop, in the workspace.
  int64_t chunks = 1;
  if (threads)
    for (int64_t s = std::min<int64_t>(blocks, kChunks); s >= 1; --s)
      if (blocks % s == 0) {
        chunks = s;
        break;
      }
  int64_t perChunk = blocks / chunks, chunkRows = 2 * rowsPerBlock * perChunk;
  Value y = tensor::EmptyOp::create(b, loc, {f, 2 * th, 2 * twp}, elt);
  Value result = tileLoop(
      b, loc, chunks, chunkRows, y, chunks > 1,
      [&](OpBuilder &cb, Value row0, Value ys,
          SmallVector<OpFoldResult> &offsets,
          SmallVector<OpFoldResult> &sizes) -> Value {
        offsets = {cb.getIndexAttr(0), row0, cb.getIndexAttr(0)};
        sizes = {cb.getIndexAttr(f), cb.getIndexAttr(chunkRows),
                 cb.getIndexAttr(2 * twp)};
        Value v = tensor::EmptyOp::create(cb, loc, {16, panels, c, nr}, elt);
        Value m = tensor::EmptyOp::create(cb, loc, {16, f, n}, elt);
        // The chunk's first tile row: row0 / 2.
        Value first = arith::DivUIOp::create(cb, loc, row0, k.index(cb, 2));
        auto loop = scf::ForOp::create(
            cb, loc, k.index(cb, 0), k.index(cb, perChunk), k.index(cb, 1),
            ValueRange{rowsOf(cb, ys, row0, chunkRows), v, m},
            [&](OpBuilder &lb, Location, Value blk, ValueRange iter) {
              Value ty0 = arith::AddIOp::create(
                  lb, loc, first, k.affine(lb, blk, rowsPerBlock, 0));
              Value v = inputTransform(lb, ty0, iter[1]);
              Value m = matmuls(lb, v, iter[2]);
              Value r0 = k.affine(lb, blk, 2 * rowsPerBlock, 0);
              Value yb = outputTransform(
                  lb, m, rowsOf(lb, iter[0], r0, 2 * rowsPerBlock));
              scf::YieldOp::create(
                  lb, loc, ValueRange{putRows(lb, yb, iter[0], r0), v, m});
            });
        return loop.getResult(0);
      });
  if (2 * th != oh || 2 * twp != ow)
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
             "winograd F(2x2,3x3), {0}x{1} register tile, blocks of "
             "{2} tile row(s) ({3} tiles); {4}",
             mr, nr, rowsPerBlock, rowsPerBlock * twp,
             chunks > 1 ? llvm::formatv("{0} chunks over threads", chunks).str()
                        : std::string("one thread"))
      .str();
}
