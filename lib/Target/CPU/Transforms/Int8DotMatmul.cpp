//===- Int8DotMatmul.cpp - 8-bit integer matmuls in int32 ----------------===//
//
// matmulToInt8Dot and mergedPartsToInt8Dot (Int8Dot.h): a quantized matmul
// by a constant as int32 sums of int8 dot products (VNNI, or int16 pairs),
// or on AMX tiles where the OS grants them, the constant packed in panels of
// columns at compile time (see Int8Dot.cpp, which defines the pieces the
// kernels are built of: Int8DotCommon.h); and the importer's integer matmul
// in K parts taken back as one such matmul.
//
//===----------------------------------------------------------------------===//

#include "Int8DotCommon.h"
#include "TileLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir;
using namespace hodu::cpu::int8dot;

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
  // divide. With AVX-512 VNNI, panels of three vectors and blocks of up to
  // 8 rows where they pad no more (threeVectorPanels); not beside AMX
  // tiles, whose panels are 32 columns. K in words of `per` values: k4 of
  // them.
  bool tiles = kernels.amx && d.vnni && m >= kAmxMinRows;
  int64_t vecs = n >= 2 * lanes ? 2 : 1;
  if (vecs == 2 && d.vnni && lanes == 16 && !tiles &&
      hodu::cpu::threeVectorPanels(m, n, lanes, d.maxRows(2), d.maxRows(3)))
    vecs = 3;
  int64_t nr = vecs * lanes;
  int64_t np = llvm::alignTo(n, nr), panels = np / nr;
  int64_t blocks = llvm::divideCeil(m, d.maxRows(vecs));
  int64_t mr = llvm::divideCeil(m, blocks), mp = blocks * mr;
  int64_t k4 = llvm::divideCeil(k, per);
  // AMX: K in whole tiles (16 words), rows in whole tiles (the VNNI
  // kernels read the same padded x and packed B: zeros past K and M).
  // (x and the sums have `rows` rows: the VNNI kernels' mp, the tiles'
  // mt, whichever is more.)
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
        return hodu::cpu::registerBlocks(
            nb, loc, tile0, blocks, mr, vecs, lanes, k4, zeroAcc,
            [&](OpBuilder &kb, Value g) {
              SmallVector<Value> bv;
              for (int64_t v = 0; v < vecs; ++v)
                bv.push_back(vector::TransferReadOp::create(
                    kb, loc, b64, bp,
                    ValueRange{p, g, idx(kb, loc, v * per * lanes)}, pad8,
                    ArrayRef<bool>{true}));
              return bv;
            },
            [&](OpBuilder &kb, Value row, Value g) -> Value {
              Value bytes = vector::TransferReadOp::create(
                  kb, loc, word4, ae,
                  ValueRange{row, hodu::cpu::scaledIndex(kb, loc, g, per, 0)},
                  pad8, ArrayRef<bool>{true});
              return vector::BitCastOp::create(
                  kb, loc, b64,
                  vector::BroadcastOp::create(
                      kb, loc, acc16,
                      vector::BitCastOp::create(kb, loc, word1, bytes)));
            },
            [&](OpBuilder &kb, Value acc, Value a, Value bv) {
              return int8Dot(kb, loc, d, acc, a, bv);
            });
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
