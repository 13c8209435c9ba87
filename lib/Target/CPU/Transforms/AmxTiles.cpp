//===- AmxTiles.cpp - int8 matmul and convolution panels on AMX tiles ---===//
//
// See hodu-cpu-amx-tiles in include/hodu/Target/CPU/Passes.td.
//
// The tile instructions are LLVM's register-numbered AMX intrinsics
// (llvm.x86.tileloadd64 and friends with immediate tile numbers, what
// clang's _tile_* macros call), not the MLIR amx dialect: that lowers to
// LLVM's register-allocated `.internal` intrinsics, after which LLVM ends
// every function that uses tiles with `tilerelease`, and on this CPU the
// first tile instruction after a release runs the whole kernel about 3x
// slower (measured: 26 us per 64x1024x1024 panel set with the tiles kept,
// 93 us with a release after each call). With numbered tiles the kernel
// loads its configuration itself and leaves the tiles in use.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "Int8Dot.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUAMXTILES
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {

constexpr int64_t kTileRows = 16;  // rows of every tile
constexpr int64_t kTileBytes = 64; // bytes of a tile row
// Tile registers: accumulators 0-3, x tiles 4-5, B tiles 6-7.
constexpr int64_t kFirstA = 4, kFirstB = 6;
constexpr llvm::StringLiteral kConfig = "__hodu_amx_config";
constexpr llvm::StringLiteral kState = "__hodu_amx_state";

/// The tile configuration (ldtilecfg's 64 bytes): palette 1, tiles 0-7 of
/// 16 rows of 64 bytes.
memref::GlobalOp configGlobal(ModuleOp module) {
  if (auto g = module.lookupSymbol<memref::GlobalOp>(kConfig))
    return g;
  SmallVector<int8_t> bytes(64, 0);
  bytes[0] = 1; // palette
  for (int t = 0; t < 8; ++t) {
    bytes[16 + 2 * t] = kTileBytes; // colsb[t], little-endian 16 bits
    bytes[48 + t] = kTileRows;      // rows[t]
  }
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto type = MemRefType::get({64}, b.getI8Type());
  return memref::GlobalOp::create(
      b, module.getLoc(), kConfig, b.getStringAttr("private"), type,
      DenseElementsAttr::get(RankedTensorType::get({64}, b.getI8Type()),
                             ArrayRef<int8_t>(bytes)),
      /*constant=*/true, b.getI64IntegerAttr(64));
}

struct Emitter {
  OpBuilder &b;
  Location loc;

  Value i64(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  Value toI64(Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  /// An scf.for over [0, n) with step 1.
  scf::ForOp loop(int64_t n) {
    return scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                              arith::ConstantIndexOp::create(b, loc, n),
                              arith::ConstantIndexOp::create(b, loc, 1));
  }
  Value ptr(Value address) {
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
  }
  /// A register-numbered AMX intrinsic: the tile numbers are immediates.
  void call(StringRef name, ArrayRef<int64_t> tiles, ValueRange rest = {}) {
    SmallVector<Value> args;
    for (int64_t t : tiles)
      args.push_back(LLVM::ConstantOp::create(b, loc, b.getI8Type(),
                                              b.getI8IntegerAttr(t)));
    args.append(rest.begin(), rest.end());
    LLVM::CallIntrinsicOp::create(b, loc, b.getStringAttr(name), args);
  }

  /// Where a memref's data starts, as an i64 address, and its strides in
  /// bytes.
  std::pair<Value, SmallVector<Value>> addressOf(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    int64_t eltBytes = type.getElementTypeBitWidth() / 8;
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    Value base = toI64(memref::ExtractAlignedPointerAsIndexOp::create(
        b, loc, meta.getBaseBuffer()));
    Value start = add(base, mul(toI64(meta.getOffset()), i64(eltBytes)));
    SmallVector<Value> strides;
    for (Value s : meta.getStrides())
      strides.push_back(mul(toI64(s), i64(eltBytes)));
    return {start, strides};
  }
};

/// One marked group of panels (Int8Dot.cpp), on buffers:
///   C[i, p nr + l] = sum_(g, j) ext(A[i, 4 g + j]) * ext(W[p, g, l, j])
/// A [rows, 4 k4], W [P, k4, nr, 4] (or [k4, nr, 4]: P = 1), bytes, one
/// unsigned and the other signed (matmuls: x unsigned by B; convolutions:
/// the signed filter by the unsigned input panel), C [rows, P nr] int32;
/// rows, k4 and nr multiples of 16 (nr at most 32), the innermost bytes of
/// A and W and the columns of C contiguous.
LogicalResult lowerPanels(linalg::GenericOp op, memref::GlobalOp config) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return op.emitError("hodu-cpu-amx-tiles: the marked panels are not a "
                        "generic of two buffers into one");
  Value a = op.getDpsInputs()[0], w = op.getDpsInputs()[1],
        c = op.getDpsInits()[0];
  auto aType = cast<MemRefType>(a.getType());
  auto wType = cast<MemRefType>(w.getType());
  auto cType = cast<MemRefType>(c.getType());
  auto contiguousInner = [](MemRefType t, ArrayRef<int64_t> want) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(t.getStridesAndOffset(strides, offset)))
      return false;
    for (auto [i, s] : llvm::enumerate(want))
      if (strides[strides.size() - want.size() + i] != s)
        return false;
    return true;
  };
  // Which operand is unsigned: the body's extensions, c + ext(a) * ext(w).
  bool unsignedA = false, unsignedW = false, found = false;
  Value sum = op.getBody()->getTerminator()->getOperand(0);
  if (auto add = sum.getDefiningOp<arith::AddIOp>())
    for (Value term : add->getOperands())
      if (auto mul = term.getDefiningOp<arith::MulIOp>()) {
        auto extOf = [&](unsigned input, bool &isUnsigned) {
          for (Value v : mul->getOperands()) {
            Operation *e = v.getDefiningOp();
            if (e && isa<arith::ExtUIOp, arith::ExtSIOp>(e) &&
                e->getOperand(0) == op.getBody()->getArgument(input)) {
              isUnsigned = isa<arith::ExtUIOp>(e);
              return true;
            }
          }
          return false;
        };
        found = extOf(0, unsignedA) && extOf(1, unsignedW);
      }
  if (!found || unsignedA == unsignedW)
    return op.emitError("hodu-cpu-amx-tiles: the panels' product is not of "
                        "one unsigned and one signed byte");
  StringRef product = unsignedA ? "llvm.x86.tdpbusd" : "llvm.x86.tdpbsud";
  auto wGiven = wType;
  if (wType.getRank() == 3)
    wType = MemRefType::get({1, wType.getDimSize(0), wType.getDimSize(1),
                             wType.getDimSize(2)},
                            wType.getElementType());
  if (aType.getRank() != 2 || wType.getRank() != 4 || cType.getRank() != 2 ||
      !aType.hasStaticShape() || !wType.hasStaticShape() ||
      !cType.hasStaticShape() || !aType.getElementType().isInteger(8) ||
      !wType.getElementType().isInteger(8) ||
      !cType.getElementType().isInteger(32))
    return op.emitError("hodu-cpu-amx-tiles: unexpected panel operand types");
  int64_t rows = aType.getDimSize(0), panels = wType.getDimSize(0),
          k4 = wType.getDimSize(1), nr = wType.getDimSize(2);
  if (rows % kTileRows || k4 % kTileRows || nr % kTileRows ||
      nr > 2 * kTileRows || aType.getDimSize(1) != 4 * k4 ||
      wType.getDimSize(3) != 4 || cType.getDimSize(0) != rows ||
      cType.getDimSize(1) != panels * nr || !contiguousInner(aType, {1}) ||
      !contiguousInner(wGiven, {4, 1}) || !contiguousInner(cType, {1}))
    return op.emitError("hodu-cpu-amx-tiles: the panels are not in whole "
                        "tiles with contiguous rows");

  OpBuilder b(op);
  Location loc = op.getLoc();
  Emitter e{b, loc};
  std::pair<Value, SmallVector<Value>> aAt = e.addressOf(a),
                                       wAt0 = e.addressOf(w),
                                       cAt = e.addressOf(c);
  Value aStart = aAt.first, wStart = wAt0.first, cStart = cAt.first;
  Value cfg = memref::GetGlobalOp::create(b, loc, config.getType(),
                                          config.getSymName());
  // The configuration, loaded only where the thread's differs: ldtilecfg
  // costs about 120 ns (a convolution runs one panel of 16 columns per
  // parallel iteration), sttilecfg and a compare about 4 (it stores zeros
  // where the tiles are released or were never configured, and any other
  // configuration of another library differs too).
  {
    auto scope = memref::AllocaScopeOp::create(b, loc, TypeRange{});
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&scope.getBodyRegion());
    b.setInsertionPointToStart(body);
    auto bytes = MemRefType::get({64}, b.getI8Type());
    Value current = memref::AllocaOp::create(b, loc, bytes,
                                             b.getI64IntegerAttr(64));
    e.call("llvm.x86.sttilecfg", {},
           e.ptr(e.toI64(
               memref::ExtractAlignedPointerAsIndexOp::create(b, loc, current))));
    auto vec = VectorType::get({64}, b.getI8Type());
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value differs = vector::ReductionOp::create(
        b, loc, vector::CombiningKind::OR,
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ne,
            vector::LoadOp::create(b, loc, vec, current, ValueRange{c0}),
            vector::LoadOp::create(b, loc, vec, cfg, ValueRange{c0})));
    auto ifOp = scf::IfOp::create(b, loc, differs, /*withElse=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    e.call("llvm.x86.ldtilecfg", {},
           e.ptr(e.toI64(
               memref::ExtractAlignedPointerAsIndexOp::create(b, loc, cfg))));
    b.setInsertionPointToEnd(body);
    memref::AllocaScopeReturnOp::create(b, loc, ValueRange{});
  }

  int64_t colTiles = nr / kTileRows, rowTiles = rows / kTileRows,
          steps = k4 / kTileRows;
  // W's strides: [panel, word, ...], or [word, ...] (one panel).
  bool onePanel = wGiven.getRank() == 3;
  Value aRow = aAt.second[0], cRow = cAt.second[0];
  Value wRow = onePanel ? wAt0.second[0] : wAt0.second[1];
  Value wPanel = onePanel ? e.i64(0) : wAt0.second[0];
  // One panel after the other: its B (k4 x nr words) stays in the L1 cache
  // while all row tiles of x go by.
  auto panelLoop = e.loop(panels);
  OpBuilder::InsertionGuard panelGuard(b);
  b.setInsertionPoint(panelLoop.getBody()->getTerminator());
  Value p = e.toI64(panelLoop.getInductionVar());
  wStart = e.add(wStart, e.mul(p, wPanel));
  cStart = e.add(cStart, e.mul(p, e.i64(nr * 4)));
  // The sums of `count` row tiles from row tile `first` (an i64 value) by
  // the panel's column tiles, over all of K.
  auto block = [&](Value first, int64_t count) {
    for (int64_t t = 0; t < count; ++t)
      for (int64_t h = 0; h < colTiles; ++h)
        e.call("llvm.x86.tilezero", {t * colTiles + h});
    Value firstRow = e.mul(first, e.i64(kTileRows));
    auto kLoop = e.loop(steps);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(kLoop.getBody()->getTerminator());
      Value s = e.toI64(kLoop.getInductionVar());
      Value aCol = e.mul(s, e.i64(kTileBytes)); // 16 words of x's K
      Value wAt = e.add(wStart, e.mul(e.mul(s, e.i64(kTileRows)), wRow));
      for (int64_t t = 0; t < count; ++t) {
        Value row = e.add(firstRow, e.i64(t * kTileRows));
        e.call("llvm.x86.tileloadd64", {kFirstA + t},
               {e.ptr(e.add(e.add(aStart, e.mul(row, aRow)), aCol)), aRow});
      }
      for (int64_t h = 0; h < colTiles; ++h)
        e.call("llvm.x86.tileloadd64", {kFirstB + h},
               {e.ptr(e.add(wAt, e.i64(h * kTileBytes))), wRow});
      for (int64_t t = 0; t < count; ++t)
        for (int64_t h = 0; h < colTiles; ++h)
          e.call(product, {t * colTiles + h, kFirstA + t, kFirstB + h});
    }
    for (int64_t t = 0; t < count; ++t)
      for (int64_t h = 0; h < colTiles; ++h) {
        Value row = e.add(firstRow, e.i64(t * kTileRows));
        Value at =
            e.add(e.add(cStart, e.mul(row, cRow)), e.i64(h * kTileRows * 4));
        e.call("llvm.x86.tilestored64", {t * colTiles + h}, {e.ptr(at), cRow});
      }
  };
  // Pairs of row tiles (2 x colTiles accumulators), then the odd one.
  int64_t pairs = rowTiles / 2;
  if (pairs > 0) {
    auto pairLoop = e.loop(pairs);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(pairLoop.getBody()->getTerminator());
    block(e.mul(e.toI64(pairLoop.getInductionVar()), e.i64(2)), 2);
  }
  if (rowTiles % 2)
    block(e.i64(rowTiles - 1), 1);
  op.erase();
  return success();
}

/// The body of @__hodu_amx_ready: whether Linux lets this process use the
/// tile data registers, asked once (arch_prctl(ARCH_REQ_XCOMP_PERM,
/// XFEATURE_XTILEDATA), which fails on kernels before 5.16 and on CPUs
/// without AMX) and kept in a global: 0 not asked yet, 1 yes, 2 no.
void defineReady(ModuleOp module, func::FuncOp ready, bool askOS) {
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Location loc = ready.getLoc();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  if (!askOS) {
    b.setInsertionPointToStart(ready.addEntryBlock());
    func::ReturnOp::create(
        b, loc,
        ValueRange{arith::ConstantOp::create(b, loc, b.getBoolAttr(false))
                       .getResult()});
    return;
  }
  if (!module.lookupSymbol(kState))
    LLVM::GlobalOp::create(b, loc, i32, /*isConstant=*/false,
                           LLVM::Linkage::Internal, kState,
                           b.getI32IntegerAttr(0));
  Block *entry = ready.addEntryBlock();
  b.setInsertionPointToStart(entry);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  Value state = LLVM::AddressOfOp::create(b, loc, ptrType, kState);
  Value known =
      LLVM::LoadOp::create(b, loc, i32, state, /*alignment=*/4, false, false,
                           false, false, LLVM::AtomicOrdering::monotonic);
  auto c32 = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  Value asked =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, known, c32(0));
  auto ifOp = scf::IfOp::create(
      b, loc, asked,
      [&](OpBuilder &tb, Location l) { scf::YieldOp::create(tb, l, known); },
      [&](OpBuilder &eb, Location l) {
        auto c64 = [&](int64_t v) {
          return LLVM::ConstantOp::create(eb, l, i64, eb.getI64IntegerAttr(v));
        };
        // rax = SYS_arch_prctl (158), rdi = ARCH_REQ_XCOMP_PERM (0x1023),
        // rsi = XFEATURE_XTILEDATA (18); the kernel returns 0 or -errno.
        Value ret = LLVM::InlineAsmOp::create(
                        eb, l, i64, ValueRange{c64(158), c64(0x1023), c64(18)},
                        eb.getStringAttr("syscall"),
                        eb.getStringAttr(
                            "={rax},{rax},{rdi},{rsi},~{rcx},~{r11},~{memory}"),
                        eb.getUnitAttr(), UnitAttr(), LLVM::TailCallKindAttr(),
                        LLVM::AsmDialectAttr(), ArrayAttr())
                        .getResult(0);
        Value ok =
            arith::CmpIOp::create(eb, l, arith::CmpIPredicate::eq, ret, c64(0));
        Value answer = arith::SelectOp::create(
            eb, l, ok,
            arith::ConstantOp::create(eb, l, eb.getI32IntegerAttr(1)),
            arith::ConstantOp::create(eb, l, eb.getI32IntegerAttr(2)));
        LLVM::StoreOp::create(eb, l, answer, state, /*alignment=*/4, false,
                              false, false, LLVM::AtomicOrdering::monotonic);
        scf::YieldOp::create(eb, l, answer);
      });
  Value yes = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                    ifOp.getResult(0), c32(1));
  func::ReturnOp::create(b, loc, yes);
}

struct CpuAmxTiles : hodu::cpu::impl::CpuAmxTilesBase<CpuAmxTiles> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::GenericOp> panels;
    module.walk([&](linalg::GenericOp op) {
      if (op->hasAttr(hodu::cpu::kAmxTiles))
        panels.push_back(op);
    });
    if (!panels.empty()) {
      memref::GlobalOp config = configGlobal(module);
      for (linalg::GenericOp op : panels)
        if (failed(lowerPanels(op, config)))
          return signalPassFailure();
    }
    if (auto ready = module.lookupSymbol<func::FuncOp>(hodu::cpu::kAmxReady))
      if (ready.isExternal())
        defineReady(module, ready, askOS);
  }
};

} // namespace
