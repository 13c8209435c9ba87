//===- Int8DotConv.cpp - 8-bit integer convolutions in int32 -------------===//
//
// convToInt8Dot (Int8Dot.h): a quantized convolution as int32 sums of int8
// dot products (VNNI, or int16 pairs), or on AMX tiles where the OS grants
// them; the layout of the packed filter and of the panels packed at run
// time is described in Int8Dot.cpp, which defines the pieces the kernels
// are built of (Int8DotCommon.h).
//
//===----------------------------------------------------------------------===//

#include "ConvPanels.h"
#include "Int8DotCommon.h"
#include "TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir;
using namespace hodu::cpu::int8dot;

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
  std::optional<hodu::cpu::SpatialZeroPad> pad =
      hodu::cpu::spatialZeroPad(conv.getInputs()[0]);
  if (!pad)
    return std::nullopt;
  std::optional<Uint8Input> src = matchUint8Input(pad->source);
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
  int64_t sh = strides[0], sw = strides[1];
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
  bool flat = false;
  if (ow * 2 < owp) {
    if (sh != 1 || sw != 1 ||
        oh * ow * 2 < hodu::cpu::ConvPanels::flatColumns(oh, wpad, pw))
      return std::nullopt;
    flat = true;
  }
  hodu::cpu::ConvPanels geo(pw, flat, oh, ow, kh, kw, strides, dilations,
                            inType.getDimSize(2), wpad);

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
  // (The flattened plane as one row: [1, C, 1, Hpad * Wpad].)
  Value xp =
      geo.padInput(b, loc, slicedSource(b, loc, *src), *pad, c4 * per, zx8);

  // acc[Fa, OH, OWp]: one parallel iteration per panel (output row oh,
  // pw columns from q * pw); flattened, acc[Fa, 1, panels * pw]. The
  // vector kernels write rows [0, mp), the tiles [0, fa).
  auto accType = RankedTensorType::get({fa, geo.outRows, geo.outCols}, i32);
  Value accInit = tensor::EmptyOp::create(b, loc, accType.getShape(), i32);
  Value ok;
  if (tiles)
    ok = amxReady(b, loc, conv);
  auto b64 = d.values();
  auto acc16 = d.sums();
  Value acc = hodu::cpu::tileLoop(
      b, loc, geo.outRows * geo.q, 1, accInit, parallel,
      [&](OpBuilder &nb, Value t, Value carried,
          SmallVector<OpFoldResult> &offsets,
          SmallVector<OpFoldResult> &sizes) -> Value {
        Value row, col0;
        std::tie(row, col0) = geo.origin(nb, loc, t);
        offsets = {nb.getIndexAttr(0), row, col0};
        sizes = {nb.getIndexAttr(fa), nb.getIndexAttr(1), nb.getIndexAttr(pw)};
        Value c0 = idx(nb, loc, 0), c1 = idx(nb, loc, 1);
        Value pad8 =
            arith::ConstantOp::create(nb, loc, nb.getIntegerAttr(i8, 0));
        Value padE =
            arith::ConstantOp::create(nb, loc, nb.getIntegerAttr(vt, 0));
        // The panel Bp[kt, per * pw] (rows past k4 meet zero weights): per
        // tap and word of `per` channels, their rows interleaved.
        Value panel = geo.buildPanel(
            nb, loc, xp, row, col0, per, c4,
            RankedTensorType::get({kt, per * pw}, vt),
            [&](OpBuilder &cb, ArrayRef<Value> rows) -> Value {
              if (per == 2) {
                // Two channels zero-extended, interleaved.
                auto half = VectorType::get({pw}, vt);
                return vector::InterleaveOp::create(
                    cb, loc, arith::ExtUIOp::create(cb, loc, half, rows[0]),
                    arith::ExtUIOp::create(cb, loc, half, rows[1]));
              }
              Value ab =
                  vector::InterleaveOp::create(cb, loc, rows[0], rows[1]);
              Value cd =
                  vector::InterleaveOp::create(cb, loc, rows[2], rows[3]);
              auto half = VectorType::get({lanes}, cb.getI16Type());
              Value words = vector::InterleaveOp::create(
                  cb, loc, vector::BitCastOp::create(cb, loc, half, ab),
                  vector::BitCastOp::create(cb, loc, half, cd));
              return vector::BitCastOp::create(cb, loc, b64, words);
            });

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
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  Value result = correctedSums(
      b, loc, outType, geo.plane(b, loc, acc, 0, f),
      AffineMap::get(4, 0, {d1, d2, d3}, ctx), *iw,
      AffineMap::get(4, 0, {d1}, ctx),
      iw->needSums ? geo.plane(b, loc, acc, f, 1) : Value(),
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
