//===- MatrixKernel.cpp - what the matrix-unit kernels share --------------===//
//
// The `hodu.gpu.mma` plan as an attribute, and the vendor-independent part
// of a matrix-unit kernel body (MatrixKernel.h).
//
//===----------------------------------------------------------------------===//

#include "MatrixKernel.h"
#include "Strategies.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace hodu::gpu {

StringRef nameOf(MmaKind k) {
  switch (k) {
  case MmaKind::F16:
    return "f16";
  case MmaKind::BF16:
    return "bf16";
  case MmaKind::TF32:
    return "tf32";
  case MmaKind::TF32x3:
    return "3xtf32";
  case MmaKind::F32:
    return "f32";
  case MmaKind::XF32:
    return "xf32";
  }
  llvm_unreachable("mma kind");
}

std::optional<MmaKind> kindNamed(StringRef s) {
  for (MmaKind k : {MmaKind::F16, MmaKind::BF16, MmaKind::TF32, MmaKind::TF32x3,
                    MmaKind::F32, MmaKind::XF32})
    if (nameOf(k) == s)
      return k;
  return std::nullopt;
}

int64_t positionOf(AffineMap map, unsigned d) {
  std::optional<unsigned> p =
      map.getResultPosition(getAffineDimExpr(d, map.getContext()));
  return p ? static_cast<int64_t>(*p) : -1;
}

DictionaryAttr MmaPlan::toAttr(MLIRContext *ctx) const {
  Builder b(ctx);
  return b.getDictionaryAttr({
      b.getNamedAttr("kind", b.getStringAttr(nameOf(kind))),
      b.getNamedAttr("bm", b.getI64IntegerAttr(bm)),
      b.getNamedAttr("bn", b.getI64IntegerAttr(bn)),
      b.getNamedAttr("i", b.getI64IntegerAttr(i)),
      b.getNamedAttr("j", b.getI64IntegerAttr(j)),
      b.getNamedAttr("k", b.getI64IntegerAttr(k)),
      b.getNamedAttr("x", b.getI64IntegerAttr(x)),
      b.getNamedAttr("kn", b.getBoolAttr(kn)),
      b.getNamedAttr("zero", b.getBoolAttr(zeroInit)),
      b.getNamedAttr("amd", b.getBoolAttr(amd)),
      b.getNamedAttr("emulate", b.getBoolAttr(emulate)),
      b.getNamedAttr("wgmma", b.getBoolAttr(wgmma)),
  });
}

std::optional<MmaPlan> MmaPlan::fromAttr(DictionaryAttr d) {
  if (!d)
    return std::nullopt;
  auto str = d.getAs<StringAttr>("kind");
  std::optional<MmaKind> kind = str ? kindNamed(str.getValue()) : std::nullopt;
  if (!kind)
    return std::nullopt;
  auto get = [&](StringRef n) {
    auto a = d.getAs<IntegerAttr>(n);
    return a ? a.getInt() : int64_t(-1);
  };
  auto flag = [&](StringRef n) {
    auto a = d.getAs<BoolAttr>(n);
    return a && a.getValue();
  };
  MmaPlan p{*kind,
            get("bm"),
            get("bn"),
            static_cast<unsigned>(get("i")),
            static_cast<unsigned>(get("j")),
            static_cast<unsigned>(get("k")),
            static_cast<unsigned>(get("x")),
            flag("kn"),
            flag("zero"),
            flag("amd"),
            flag("emulate"),
            flag("wgmma")};
  if (p.bm <= 0 || p.bn <= 0 || p.x > 1)
    return std::nullopt;
  // Each vendor multiplies its own kinds.
  bool nvidiaOnly = *kind == MmaKind::TF32 || *kind == MmaKind::TF32x3;
  bool amdOnly = *kind == MmaKind::F32 || *kind == MmaKind::XF32;
  if ((p.amd && (nvidiaOnly || p.wgmma)) ||
      (!p.amd && (amdOnly || (p.emulate && !p.wgmma))))
    return std::nullopt;
  // A warpgroup's MMAs are 64 rows each, and 3xTF32 stays on mma.sync.
  if (p.wgmma && (p.bm % 64 || *kind == MmaKind::TF32x3))
    return std::nullopt;
  return p;
}

MatrixKernelBase::MatrixKernelBase(OpBuilder &b, Location loc, const MmaPlan &p,
                                   linalg::LinalgOp op,
                                   linalg::LinalgOp epilogue,
                                   linalg::LinalgOp gather)
    : b(b), loc(loc), p(p), op(op), epilogue(epilogue), gather(gather) {}

SmallVector<Value> MatrixKernelBase::at(AffineMap map, unsigned rowDim,
                                        Value row, unsigned colDim, Value col) {
  SmallVector<Value> idx;
  for (AffineExpr e : map.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    idx.push_back(d == rowDim ? row : d == colDim ? col : c(0));
  }
  return idx;
}

LogicalResult MatrixKernelBase::bind() {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  X = op.getDpsInputs()[p.x];
  Y = op.getDpsInputs()[1 - p.x];
  D = op.getDpsInits()[0];
  xMap = maps[p.x];
  yMap = maps[1 - p.x];
  dMap = maps[2];
  et = getElementTypeOrSelf(X.getType());
  K = op.getStaticLoopRanges()[p.k];
  if (ShapedType::isDynamic(K))
    return op->emitError("matrix-unit contraction with a dynamic K");
  chunk = chunkElements(p.kind);
  bk = stageK(p.kind);
  kSteps = (K + bk - 1) / bk;
  mi = p.bm / 32;
  mExt = memref::DimOp::create(b, loc, D, positionOf(dMap, p.i));
  nExt = memref::DimOp::create(b, loc, D, positionOf(dMap, p.j));
  return success();
}

Value MatrixKernelBase::gathered(OpBuilder &nb, ValueRange idx) {
  IRMapping map;
  return cloneBodyAt(nb, gather, map, idx);
}

SmallVector<Value> MatrixKernelBase::loadElements(Value src, ValueRange idx,
                                                  Value valid, int64_t n) {
  bool computed = gather && src == Y;
  auto ifOp = scf::IfOp::create(
      b, loc, valid,
      [&](OpBuilder &nb, Location l) {
        SmallVector<Value> elems;
        for (int64_t e = 0; e < n; ++e) {
          SmallVector<Value> at(idx);
          at.back() = arith::AddIOp::create(
              nb, l, at.back(), arith::ConstantIndexOp::create(nb, l, e));
          elems.push_back(computed
                              ? gathered(nb, at)
                              : Value(memref::LoadOp::create(nb, l, src, at)));
        }
        scf::YieldOp::create(nb, l, elems);
      },
      [&](OpBuilder &nb, Location l) {
        Value zero = arith::ConstantOp::create(nb, l, nb.getZeroAttr(et));
        scf::YieldOp::create(nb, l, SmallVector<Value>(n, zero));
      });
  return SmallVector<Value>(ifOp.getResults());
}

Value MatrixKernelBase::initialValue(Value row, Value col) {
  Type dt = getElementTypeOrSelf(D.getType());
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  Value in = both(ult(row, mExt), ult(col, nExt));
  auto ifOp = scf::IfOp::create(
      b, loc, in,
      [&](OpBuilder &nb, Location l) {
        Value v =
            memref::LoadOp::create(nb, l, D, at(dMap, p.i, row, p.j, col));
        if (dt != nb.getF32Type())
          v = arith::ExtFOp::create(nb, l, nb.getF32Type(), v);
        scf::YieldOp::create(nb, l, v);
      },
      [&](OpBuilder &nb, Location l) { scf::YieldOp::create(nb, l, zero); });
  return ifOp.getResult(0);
}

Value MatrixKernelBase::finalValue(OpBuilder &nb, Value sum, Value row,
                                   Value col) {
  Type dt = getElementTypeOrSelf(D.getType());
  Value value = sum;
  if (dt != nb.getF32Type())
    value = arith::TruncFOp::create(nb, loc, dt, sum);
  if (!epilogue)
    return value;
  // The epilogue's loops at this element: its output map is a permutation
  // of the output's dims, which `row` and `col` (and zeros) index.
  SmallVector<Value> outIdx = at(dMap, p.i, row, p.j, col);
  AffineMap outMap =
      epilogue.getMatchingIndexingMap(epilogue.getDpsInitOperand(0));
  SmallVector<Value> loops(epilogue.getNumLoops());
  for (unsigned r = 0; r < outMap.getNumResults(); ++r)
    loops[outMap.getDimPosition(r)] = outIdx[r];
  Block &body = epilogue->getRegion(0).front();
  IRMapping map;
  for (OpOperand *in : epilogue.getDpsInputOperands()) {
    SmallVector<Value> idx;
    for (AffineExpr e : epilogue.getMatchingIndexingMap(in).getResults())
      idx.push_back(isa<AffineDimExpr>(e)
                        ? loops[cast<AffineDimExpr>(e).getPosition()]
                        : c(cast<AffineConstantExpr>(e).getValue()));
    Value arg = body.getArgument(in->getOperandNumber());
    Value v = isa<MemRefType>(in->get().getType())
                  ? Value(memref::LoadOp::create(nb, loc, in->get(), idx))
                  : in->get(); // a scalar input
    map.map(arg, v);
  }
  map.map(body.getArguments().back(), value);
  // No linalg.index in an epilogue on the registers (epilogueOnRegisters).
  return cloneBodyAt(nb, epilogue, map, {});
}

void MatrixKernelBase::storeMasked(Value sum, Value row, Value col) {
  Value in = both(ult(row, mExt), ult(col, nExt));
  scf::IfOp::create(b, loc, in, [&](OpBuilder &nb, Location l) {
    Value v = finalValue(nb, sum, row, col);
    memref::StoreOp::create(nb, l, v, D, at(dMap, p.i, row, p.j, col));
    scf::YieldOp::create(nb, l);
  });
}

} // namespace hodu::gpu
