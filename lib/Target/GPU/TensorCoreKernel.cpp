//===- TensorCoreKernel.cpp - the tensor-core kernel, on buffers ----------===//
//
// The mma.sync kernel body of one block for a contraction that
// hodu-gpu-tile planned for NVIDIA's tensor cores (TensorCore.cpp): the
// 3-stage cp.async pipeline, the swizzled workgroup buffers, the ldmatrix
// fragments, the MMAs and the store through the fused epilogue; and
// lowerTensorCoreContractions, which hodu-gpu-map-to-launches calls after
// bufferisation to replace each block's marked contraction (and its fused
// epilogue and gather) with that body, or with MatrixCores.cpp's on AMD,
// in the grouped block order.
//
//===----------------------------------------------------------------------===//

#include "MatrixKernel.h"
#include "Strategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace hodu::gpu {

namespace {
constexpr int64_t kStages = 3;
constexpr int64_t kThreads = kNvidiaThreads; // 4 warps, 2 x 2
} // namespace

namespace {
/// Whether every row of `tile` (a block's view of an operand) starts at a
/// multiple of `chunk` elements of its buffer, as 16-byte cp.async needs:
/// read from the layout of the buffer the block views (static strides and
/// offset; the block's own offsets are whole rows and chunks). Planning
/// asked for dense operands, but bufferisation may still place one in a
/// view of a larger buffer.
bool rowsChunkAligned(Value tile, int64_t chunk) {
  if (auto view = tile.getDefiningOp<memref::SubViewOp>())
    tile = view.getSource();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(cast<MemRefType>(tile.getType()).getStridesAndOffset(strides,
                                                                  offset)) ||
      strides.empty() || strides.back() != 1 || ShapedType::isDynamic(offset) ||
      offset % chunk)
    return false;
  return llvm::all_of(llvm::drop_end(strides), [&](int64_t s) {
    return !ShapedType::isDynamic(s) && s % chunk == 0;
  });
}

/// Builds the body of one block: `D (+)= X * Y` on the block's tiles, with
/// `tid` the thread (0..127).
class MmaEmitter : MatrixKernelBase {
public:
  using MatrixKernelBase::MatrixKernelBase;

  LogicalResult emit(Value tid);

private:
  Value smA, smB;
  /// Whether X's and Y's rows start at 16-byte multiples in their buffers
  /// (else their chunks are copied by plain loads and stores).
  bool asyncX = true, asyncY = true;
  int64_t ni = 0;
  Value tidV, warpM, warpN, lane;

  Value xorI(Value a, Value x) { return arith::XOrIOp::create(b, loc, a, x); }
  Value andI(Value a, int64_t v) {
    return arith::AndIOp::create(b, loc, a, c(v));
  }

  /// XOR swizzles of 16-byte chunks in workgroup memory. Rows of 64 bytes
  /// (A, and B stored [N][K]): chunk ^= (row / 2) % 4, so that the 8 rows an
  /// ldmatrix reads fall in distinct banks. B stored [K][N] in f16/bf16:
  /// chunk ^= row % 8 (within the row's chunks). B stored [K][N] in f32,
  /// read element by element: chunk ^= 2 * (row % 4), so that the 4 rows
  /// and 8 columns a warp reads are 32 distinct banks.
  Value swizzleRow64(Value row, Value ch) {
    return mul(xorI(ch, andI(div(row, 2), 3)), chunk);
  }
  Value swizzleKN(Value row, Value ch) {
    if (!isHalf(p.kind))
      return mul(xorI(ch, mul(andI(row, 3), 2)), chunk);
    int64_t rowChunks = p.bn / chunk;
    return mul(xorI(ch, andI(row, std::min<int64_t>(rowChunks, 8) - 1)), chunk);
  }

  /// The element copies issueLoads made in registers, and where each goes.
  struct PendingStore {
    Value value, dst;
    SmallVector<Value> at;
  };
  SmallVector<PendingStore> pending;

  Value issueLoads(Value kt);
  void storePending() {
    for (PendingStore &st : pending)
      memref::StoreOp::create(b, loc, st.value, st.dst, st.at);
    pending.clear();
  }
  SmallVector<Value> loadA(Value stage, int64_t kk);
  SmallVector<Value> loadB(Value stage, int64_t kk);
  Value mma(Value a, Value bv, Value acc);
  /// Accumulator (m, n) holds rows r, r+8 (r = warp row + 16m + lane/4)
  /// and columns c, c+1 (c = warp column + 8n + 2*(lane%4)) of the tile.
  std::pair<Value, Value> fragmentPosition(int64_t m, int64_t n) {
    return {add(add(warpM, c(m * 16)), div(lane, 4)),
            add(add(warpN, c(n * 8)), mul(rem(lane, 4), 2))};
  }
  SmallVector<Value> initialAccumulators(Type accType);
  void store(ArrayRef<Value> acc);
};

/// The cp.async copies of K step `kt` into stage kt % 3: every thread
/// copies BM*BK/chunk/128 chunks of A and as many of B, each zero-filled
/// where it lies past the operand's edge (rows, columns or K).
Value MmaEmitter::issueLoads(Value kt) {
  SmallVector<Value> tokens;
  Value stage = rem(kt, kStages);
  Value k0 = mul(kt, bk);
  Value kLimit = c(K), full = c(chunk), none = c(0);
  auto copy = [&](Value src, ArrayRef<Value> srcIdx, Value dst,
                  ArrayRef<Value> dstIdx, Value valid) {
    if (src == X ? asyncX : asyncY) {
      Value n = select(valid, full, none);
      auto cp = nvgpu::DeviceAsyncCopyOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst,
          dstIdx, src, srcIdx, b.getIndexAttr(chunk), n,
          UnitAttr::get(b.getContext()));
      tokens.push_back(cp.getAsyncToken());
      return;
    }
    // A view whose rows are not 16-byte aligned, or B computed by its
    // gather: the chunk element by element (zeros past the edges) into
    // registers, stored into the stage by storePending -- after the
    // step's products in the K loop, so that the loads' latency overlaps
    // them -- before the barrier that precedes its reads.
    SmallVector<Value> elems = loadElements(src, srcIdx, valid, chunk);
    for (int64_t e = 0; e < chunk; ++e) {
      SmallVector<Value> d(dstIdx);
      d.back() = add(d.back(), c(e));
      pending.push_back({elems[e], dst, d});
    }
  };
  // A tile of `rows` rows of 64 bytes of K (A; B stored [N][K]): rows of
  // loop `rowDim` of `src`, `ext` of them inside the operand.
  int64_t rowChunks = bk / chunk; // 4: 64-byte rows
  auto copyRowsOfK = [&](Value src, AffineMap map, unsigned rowDim, Value ext,
                         Value dst, int64_t rows) {
    for (int64_t q = 0; q < rows * rowChunks / kThreads; ++q) {
      Value id = add(tidV, c(q * kThreads));
      Value row = div(id, rowChunks), ch = rem(id, rowChunks);
      Value kk = add(k0, mul(ch, chunk));
      Value valid = both(ult(row, ext), ult(kk, kLimit));
      Value gr = select(valid, row, c(0)), gk = select(valid, kk, c(0));
      copy(src, at(map, rowDim, gr, p.k, gk), dst,
           {stage, row, swizzleRow64(row, ch)}, valid);
    }
  };
  copyRowsOfK(X, xMap, p.i, mExt, smA, p.bm);
  if (p.kn) {
    // B: [BK][BN] rows of k.
    int64_t bChunks = p.bn / chunk;
    for (int64_t q = 0; q < bk * bChunks / kThreads; ++q) {
      Value id = add(tidV, c(q * kThreads));
      Value row = div(id, bChunks), ch = rem(id, bChunks);
      Value kk = add(k0, row), col = mul(ch, chunk);
      Value valid = both(ult(kk, kLimit), ult(col, nExt));
      Value gk = select(valid, kk, c(0)), gc = select(valid, col, c(0));
      copy(Y, at(yMap, p.k, gk, p.j, gc), smB,
           {stage, row, swizzleKN(row, ch)}, valid);
    }
  } else {
    copyRowsOfK(Y, yMap, p.j, nExt, smB, p.bn);
  }
  if (tokens.empty())
    return Value();
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

/// The A fragments of the warp's MI row tiles at K offset `kk` of the stage.
SmallVector<Value> MmaEmitter::loadA(Value stage, int64_t kk) {
  auto type = isHalf(p.kind) ? VectorType::get({4, 2}, et)
                             : VectorType::get({4, 1}, et);
  SmallVector<Value> frags;
  for (int64_t m = 0; m < mi; ++m) {
    Value row = add(add(warpM, c(m * 16)), rem(lane, 16));
    Value ch = add(c(kk / chunk), div(lane, 16));
    frags.push_back(nvgpu::LdMatrixOp::create(
        b, loc, type, smA, ValueRange{stage, row, swizzleRow64(row, ch)},
        /*transpose=*/false, /*numTiles=*/4));
  }
  return frags;
}

/// The B fragments of the warp's NI column tiles at K offset `kk`.
SmallVector<Value> MmaEmitter::loadB(Value stage, int64_t kk) {
  SmallVector<Value> frags;
  if (!isHalf(p.kind) && p.kn) {
    // f32 [K][N]: b0 = B[kk + lane%4][n + lane/4], b1 four rows below.
    auto type = VectorType::get({2, 1}, et);
    for (int64_t n = 0; n < ni; ++n) {
      Value col = add(add(warpN, c(n * 8)), div(lane, 4));
      SmallVector<Value> elems;
      for (int64_t h = 0; h < 2; ++h) {
        Value row = add(c(kk + 4 * h), rem(lane, 4));
        Value phys = add(swizzleKN(row, div(col, 4)), rem(col, 4));
        elems.push_back(memref::LoadOp::create(b, loc, smB,
                                               ValueRange{stage, row, phys}));
      }
      frags.push_back(vector::FromElementsOp::create(b, loc, type, elems));
    }
    return frags;
  }
  // One ldmatrix.x2 per column tile (an x4 over two tiles would need its
  // result split, which the NVVM lowering cannot carry through).
  auto type = isHalf(p.kind) ? VectorType::get({2, 2}, et)
                             : VectorType::get({2, 1}, et);
  for (int64_t n = 0; n < ni; ++n) {
    Value col = add(warpN, c(n * 8));
    if (p.kn) {
      // f16/bf16 [K][N], transposed by ldmatrix: rows kk..kk+15 of the
      // tile's 8-column chunk.
      Value row = add(c(kk), rem(lane, 16));
      frags.push_back(nvgpu::LdMatrixOp::create(
          b, loc, type, smB, ValueRange{stage, row, swizzleKN(row, div(col, 8))},
          /*transpose=*/true, /*numTiles=*/2));
      continue;
    }
    // [N][K], as A: the tile's 8 rows at two chunks of K.
    Value row = add(col, rem(lane, 8));
    Value ch = add(c(kk / chunk), rem(div(lane, 8), 2));
    frags.push_back(nvgpu::LdMatrixOp::create(
        b, loc, type, smB, ValueRange{stage, row, swizzleRow64(row, ch)},
        /*transpose=*/false, /*numTiles=*/2));
  }
  return frags;
}

/// One m16n8 MMA of the kind (three for 3xTF32) into `acc`.
Value MmaEmitter::mma(Value a, Value bv, Value acc) {
  auto accType = cast<VectorType>(acc.getType());
  if (p.kind == MmaKind::F16)
    return nvgpu::MmaSyncOp::create(b, loc, a, bv, acc,
                                    ArrayRef<int64_t>{16, 8, 16});
  if (p.kind == MmaKind::TF32)
    return nvgpu::MmaSyncOp::create(b, loc, a, bv, acc,
                                    ArrayRef<int64_t>{16, 8, 8},
                                    /*tf32Enabled=*/true);
  if (p.kind == MmaKind::TF32x3) {
    // x = big + small, big the top 19 bits of x (its TF32 value):
    // small*big and big*small first, big*big last (CUTLASS's order).
    auto split = [&](Value v) {
      auto vt = cast<VectorType>(v.getType());
      auto it = VectorType::get(vt.getShape(), b.getI32Type());
      Value bits = arith::BitcastOp::create(b, loc, it, v);
      Value mask = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(it, b.getI32IntegerAttr(-8192).getValue()));
      Value big = arith::BitcastOp::create(
          b, loc, vt, arith::AndIOp::create(b, loc, bits, mask));
      return std::make_pair(big, Value(arith::SubFOp::create(b, loc, v, big)));
    };
    auto [aBig, aSmall] = split(a);
    auto [bBig, bSmall] = split(bv);
    for (auto [x, y] : {std::pair{aSmall, bBig}, std::pair{aBig, bSmall},
                        std::pair{aBig, bBig}}) {
      acc = nvgpu::MmaSyncOp::create(b, loc, x, y, acc,
                                     ArrayRef<int64_t>{16, 8, 8},
                                     /*tf32Enabled=*/true);
    }
    return acc;
  }
  // bf16: nvgpu.mma.sync cannot type bf16 operands in MLIR 22, so the
  // fragments go to nvvm.mma.sync as the i32 registers PTX takes.
  auto i32 = b.getI32Type();
  // Each row of a fragment (two bf16) is one 32-bit register.
  auto regs = [&](Value v, int64_t n) {
    SmallVector<Value> r;
    for (int64_t q = 0; q < n; ++q) {
      Value row = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{q});
      Value asInt = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, i32), row);
      r.push_back(vector::ExtractOp::create(b, loc, asInt, ArrayRef<int64_t>{0}));
    }
    return r;
  };
  SmallVector<Value> as = regs(a, 4), bs = regs(bv, 2), cs;
  for (int64_t q = 0; q < 4; ++q)
    cs.push_back(vector::ExtractOp::create(b, loc, acc,
                                           ArrayRef<int64_t>{q / 2, q % 2}));
  auto f32 = b.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                     {f32, f32, f32, f32});
  auto op = NVVM::MmaOp::create(
      b, loc, resultType, as, bs, cs, ArrayRef<int64_t>{16, 8, 16},
      /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
  SmallVector<Value> ds;
  for (int64_t q = 0; q < 4; ++q)
    ds.push_back(LLVM::ExtractValueOp::create(b, loc, op.getRes(), q));
  return vector::FromElementsOp::create(b, loc, accType, ds);
}

SmallVector<Value> MmaEmitter::initialAccumulators(Type accType) {
  auto vt = cast<VectorType>(accType);
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vt, b.getF32FloatAttr(0).getValue()));
  SmallVector<Value> acc(mi * ni, zero);
  if (p.zeroInit)
    return acc;
  // Accumulate onto what the output holds: each element read where it
  // lies inside the tile.
  for (int64_t m = 0; m < mi; ++m)
    for (int64_t n = 0; n < ni; ++n) {
      Value row, col;
      std::tie(row, col) = fragmentPosition(m, n);
      SmallVector<Value> elems;
      for (int64_t q = 0; q < 4; ++q)
        elems.push_back(initialValue(q / 2 ? add(row, c(8)) : row,
                                     q % 2 ? add(col, c(1)) : col));
      acc[m * ni + n] = vector::FromElementsOp::create(b, loc, vt, elems);
    }
  return acc;
}

/// The accumulators to the output, rounded to its type: two columns at
/// once where the row holds an even number (8-byte aligned pairs), else
/// one by one, each masked to the tile.
void MmaEmitter::store(ArrayRef<Value> acc) {
  Type dt = getElementTypeOrSelf(D.getType());
  auto dShape = cast<MemRefType>(D.getType());
  int64_t jPos = positionOf(dMap, p.j);
  SmallVector<int64_t> strides;
  int64_t offset;
  bool pairs = succeeded(dShape.getStridesAndOffset(strides, offset)) &&
               llvm::all_of(llvm::drop_end(strides), [](int64_t s) {
                 return !ShapedType::isDynamic(s) && s % 2 == 0;
               }) &&
               strides.back() == 1 && jPos + 1 == dShape.getRank();
  for (int64_t m = 0; m < mi; ++m)
    for (int64_t n = 0; n < ni; ++n) {
      Value row, col;
      std::tie(row, col) = fragmentPosition(m, n);
      for (int64_t h = 0; h < 2; ++h) {
        Value r = h ? add(row, c(8)) : row;
        Value v = vector::ExtractOp::create(b, loc, acc[m * ni + n],
                                            ArrayRef<int64_t>{h});
        if (pairs) {
          // The tile's columns come in pairs (an even row length, tiles
          // at even offsets): the first in range means both are.
          Value in = both(ult(r, mExt), ult(col, nExt));
          Value next = add(col, c(1));
          scf::IfOp::create(b, loc, in, [&](OpBuilder &nb, Location l) {
            Value out;
            if (!epilogue && dt == nb.getF32Type()) {
              out = v;
            } else if (!epilogue) {
              out = arith::TruncFOp::create(nb, l, VectorType::get({2}, dt), v);
            } else {
              Value e0 = vector::ExtractOp::create(nb, l, v, ArrayRef<int64_t>{0});
              Value e1 = vector::ExtractOp::create(nb, l, v, ArrayRef<int64_t>{1});
              out = vector::FromElementsOp::create(
                  nb, l, VectorType::get({2}, dt),
                  ValueRange{finalValue(nb, e0, r, col),
                             finalValue(nb, e1, r, next)});
            }
            vector::StoreOp::create(nb, l, out, D, at(dMap, p.i, r, p.j, col));
            scf::YieldOp::create(nb, l);
          });
          continue;
        }
        for (int64_t e = 0; e < 2; ++e)
          storeMasked(
              vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{e}), r,
              e ? add(col, c(1)) : col);
      }
    }
}

LogicalResult MmaEmitter::emit(Value tid) {
  MLIRContext *ctx = b.getContext();
  if (failed(bind()))
    return failure();
  ni = p.bn / 16;
  tidV = tid;
  asyncX = rowsChunkAligned(X, chunk);
  asyncY = !gather && rowsChunkAligned(Y, chunk);

  // Workgroup buffers of the three stages (16-byte aligned: cp.async and
  // ldmatrix move 16-byte rows).
  auto wg = mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup);
  auto aType = MemRefType::get({kStages, p.bm, bk}, et, MemRefLayoutAttrInterface(), wg);
  auto bType = p.kn ? MemRefType::get({kStages, bk, p.bn}, et,
                                      MemRefLayoutAttrInterface(), wg)
                    : MemRefType::get({kStages, p.bn, bk}, et,
                                      MemRefLayoutAttrInterface(), wg);
  smA = memref::AllocOp::create(b, loc, aType, b.getI64IntegerAttr(16));
  smB = memref::AllocOp::create(b, loc, bType, b.getI64IntegerAttr(16));

  Value warp = div(tid, 32);
  lane = rem(tid, 32);
  warpM = mul(div(warp, 2), p.bm / 2);
  warpN = mul(rem(warp, 2), p.bn / 2);

  auto accType = VectorType::get({2, 2}, b.getF32Type());
  SmallVector<Value> acc = initialAccumulators(accType);

  // Prologue: K steps 0 .. stages-2 in flight.
  Value last;
  for (int64_t s = 0; s + 1 < kStages; ++s) {
    last = issueLoads(c(s));
    storePending();
  }
  // The async group token is carried only when some copy is async.
  bool async = asyncX || asyncY;
  SmallVector<Value> inits;
  if (async)
    inits.push_back(last);
  inits.append(acc.begin(), acc.end());
  auto loop = scf::ForOp::create(
      b, loc, c(0), c(kSteps), c(1), inits,
      [&](OpBuilder &nb, Location l, Value kt, ValueRange iter) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(nb.getInsertionBlock());
        // Step kt has landed once at most one later group is pending;
        // the barrier also tells that every warp is done with the stage
        // the next copies overwrite (step kt-1's).
        if (async)
          nvgpu::DeviceAsyncWaitOp::create(b, loc, iter[0],
                                           b.getI32IntegerAttr(kStages - 2));
        mlir::gpu::BarrierOp::create(b, loc);
        Value next = issueLoads(add(kt, c(kStages - 1)));
        Value stage = rem(kt, kStages);
        ValueRange accs = async ? iter.drop_front() : iter;
        SmallVector<Value> cur(accs.begin(), accs.end());
        int64_t kStep = isHalf(p.kind) ? 16 : 8;
        for (int64_t kk = 0; kk < bk; kk += kStep) {
          SmallVector<Value> a = loadA(stage, kk);
          SmallVector<Value> bf = loadB(stage, kk);
          for (int64_t m = 0; m < mi; ++m)
            for (int64_t n = 0; n < ni; ++n)
              cur[m * ni + n] = mma(a[m], bf[n], cur[m * ni + n]);
        }
        // Stage (kt + 2) % 3 was step kt-1's, which every warp finished
        // before the barrier above.
        storePending();
        SmallVector<Value> yields;
        if (async)
          yields.push_back(next);
        yields.append(cur.begin(), cur.end());
        scf::YieldOp::create(b, loc, yields);
      });
  if (async)
    nvgpu::DeviceAsyncWaitOp::create(b, loc, loop.getResult(0),
                                     b.getI32IntegerAttr(0));
  SmallVector<Value> results(
      loop.getResults().drop_front(async ? 1 : 0));
  store(results);
  return success();
}
} // namespace

/// Whether `a` and `b` are the same region of one buffer.
static bool sameView(Value a, Value b) {
  if (a == b)
    return true;
  auto va = a.getDefiningOp<memref::SubViewOp>();
  auto vb = b.getDefiningOp<memref::SubViewOp>();
  return va && vb && va.getSource() == vb.getSource() &&
         va.getMixedOffsets() == vb.getMixedOffsets() &&
         va.getMixedSizes() == vb.getMixedSizes() &&
         va.getMixedStrides() == vb.getMixedStrides();
}

/// The epilogue hodu-gpu-tile fused into the tensor-core contraction `op`'s
/// block: the next linalg op there, elementwise, computing in place on the
/// contraction's output tile. The ops between the two (the views of the
/// epilogue's other inputs) must be free of memory effects, so that the
/// lowering can move them above the contraction.
static linalg::LinalgOp epilogueOf(linalg::LinalgOp op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(next);
    if (!linalgOp) {
      if (next->getNumRegions() != 0 || !isMemoryEffectFree(next))
        return nullptr;
      continue;
    }
    if (linalgOp.getNumDpsInits() == 1 && linalgOp.getNumReductionLoops() == 0 &&
        linalgOp.hasPureBufferSemantics() &&
        sameView(linalgOp.getDpsInits()[0], op.getDpsInits()[0]) &&
        epilogueOnRegisters(linalgOp))
      return linalgOp;
    return nullptr;
  }
  return nullptr;
}

/// The gather hodu-gpu-tile fused into the tensor-core contraction `op`'s
/// block (kMmaGather) to compute its B: the op of the block that writes
/// the buffer B is, or null.
static linalg::LinalgOp gatherOf(linalg::LinalgOp op, const MmaPlan &plan) {
  Value y = op.getDpsInputs()[1 - plan.x];
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(prev);
    if (linalgOp && linalgOp->hasAttr(kMmaGather) &&
        linalgOp.hasPureBufferSemantics() && linalgOp.getNumDpsInits() == 1 &&
        linalgOp.getDpsInits()[0] == y)
      return linalgOp;
  }
  return nullptr;
}

/// Erases `buffer` if it is an allocation that nothing but its
/// deallocation uses.
static void eraseUnusedBuffer(Value buffer) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || !llvm::all_of(alloc->getUsers(), [](Operation *user) {
        return isa<memref::DeallocOp>(user);
      }))
    return;
  for (Operation *user : llvm::to_vector(alloc->getUsers()))
    user->erase();
  alloc->erase();
}

/// Blocks in groups of kGroupRows rows of tiles, column by column within a
/// group (Triton's grouped order): the blocks that run at once read a few
/// rows of A and a few columns of B, which stay in L2, rather than one row
/// of A and every column of B.
constexpr int64_t kGroupRows = 8;

/// Renumbers the tiles of block loop `block` (x over the output's columns
/// of tiles, y over its rows) into the grouped order, where there are more
/// rows of tiles than a group: block (x, y), the pid-th launched
/// (pid = y * nx + x), computes tile (m, n) with
///   group = pid / (G * nx), first = group * G, size = min(ny - first, G),
///   m = first + (pid % (G * nx)) % size, n = (pid % (G * nx)) / size,
/// a bijection of the grid's tiles.
static void groupBlocks(scf::ForallOp block) {
  std::optional<ArrayAttr> mapping = block.getMapping();
  if (!mapping)
    return;
  int64_t xPos = -1, yPos = -1;
  for (auto [i, attr] : llvm::enumerate(*mapping)) {
    auto m = dyn_cast<mlir::gpu::GPUBlockMappingAttr>(attr);
    if (m && m.getBlock() == mlir::gpu::MappingId::DimX)
      xPos = i;
    if (m && m.getBlock() == mlir::gpu::MappingId::DimY)
      yPos = i;
  }
  SmallVector<int64_t> trips(block.getStaticUpperBound());
  if (xPos < 0 || yPos < 0 || ShapedType::isDynamic(trips[xPos]) ||
      ShapedType::isDynamic(trips[yPos]))
    return;
  int64_t nx = trips[xPos], ny = trips[yPos];
  if (ny <= kGroupRows || nx < 2)
    return;
  Value x = block.getInductionVar(xPos), y = block.getInductionVar(yPos);
  OpBuilder b = OpBuilder::atBlockBegin(block.getBody());
  Location loc = block.getLoc();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto row = arith::MulIOp::create(b, loc, y, c(nx));
  auto pid = arith::AddIOp::create(b, loc, row, x);
  Value perGroup = c(kGroupRows * nx);
  Value first = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, pid, perGroup), c(kGroupRows));
  Value size = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, c(ny), first), c(kGroupRows));
  Value r = arith::RemUIOp::create(b, loc, pid, perGroup);
  Value m = arith::AddIOp::create(b, loc, first,
                                  arith::RemUIOp::create(b, loc, r, size));
  Value n = arith::DivUIOp::create(b, loc, r, size);
  x.replaceAllUsesExcept(n, pid);
  y.replaceAllUsesExcept(m, row);
}

LogicalResult lowerTensorCoreContractions(scf::ForallOp block) {
  SmallVector<linalg::LinalgOp> ops;
  block.walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kTensorCore))
      ops.push_back(op);
  });
  if (!ops.empty())
    groupBlocks(block);
  for (linalg::LinalgOp op : ops) {
    std::optional<MmaPlan> plan =
        MmaPlan::fromAttr(op->getAttrOfType<DictionaryAttr>(kTensorCore));
    if (!plan || !op.hasPureBufferSemantics())
      return op->emitError("malformed tensor-core contraction");
    // The block's threads (128, or 256 on AMD) as one thread loop, which
    // upstream's mapping turns into the block's x dimension.
    // The fused kernel replaces the contraction and its epilogue at the
    // contraction's place, so what the epilogue reads (a view made between
    // the two) moves above it.
    linalg::LinalgOp epilogue = epilogueOf(op);
    // A gather's tile is a temporary of the block (a buffer made inside
    // it), which nothing but the gather writes: without the gather, the
    // kernel would read it unwritten. B made outside the block is another
    // kernel's output, read as it is.
    linalg::LinalgOp gather = gatherOf(op, *plan);
    Operation *bDef = op.getDpsInputs()[1 - plan->x].getDefiningOp();
    if (!gather && isa_and_nonnull<memref::AllocOp>(bDef) &&
        block->isProperAncestor(bDef))
      return op->emitError("tensor-core contraction reads a temporary of "
                           "its block that no gather computes");
    if (epilogue)
      for (Operation *between = op->getNextNode(); between != epilogue;) {
        Operation *next = between->getNextNode();
        between->moveBefore(op);
        between = next;
      }
    OpBuilder b(op);
    MLIRContext *ctx = op.getContext();
    auto forall = scf::ForallOp::create(
        b, op.getLoc(),
        ArrayRef<OpFoldResult>{b.getIndexAttr(blockThreadsOf(*plan))},
        ValueRange{},
        b.getArrayAttr(mlir::gpu::GPUThreadMappingAttr::get(
            ctx, mlir::gpu::MappingId::DimX)),
        [](OpBuilder &nested, Location l, ValueRange) {
          scf::InParallelOp::create(nested, l);
        });
    b.setInsertionPoint(forall.getBody()->getTerminator());
    Value tid = forall.getInductionVar(0);
    if (plan->amd) {
      if (failed(
              emitMfmaKernel(b, op.getLoc(), *plan, op, epilogue, gather, tid)))
        return failure();
    } else {
      MmaEmitter emitter(b, op.getLoc(), *plan, op, epilogue, gather);
      if (failed(emitter.emit(tid)))
        return failure();
    }
    op->erase();
    if (epilogue)
      epilogue->erase();
    if (gather) {
      // Its tile, which nothing reads now, and the tile's buffer.
      Value tile = gather.getDpsInits()[0];
      gather->erase();
      eraseUnusedBuffer(tile);
    }
  }
  return success();
}

} // namespace hodu::gpu
