//===- TensorCoreKernel.cpp - the tensor-core kernel, on buffers ----------===//
//
// The kernel body of one block for a contraction that hodu-gpu-tile
// planned for NVIDIA's tensor cores (TensorCore.cpp), 128 threads:
//
//   - a 3-stage cp.async pipeline fills XOR-swizzled workgroup buffers,
//     64 bytes of K per row and stage;
//   - sm_80 on: 4 warps (2 x 2) load fragments with ldmatrix and multiply
//     with mma.sync;
//   - sm_90a: one warpgroup multiplies with wgmma.mma_async, which reads
//     both operands K-major from the buffers through 64-bit descriptors.
//     The buffers' swizzle is the hardware's 64-byte mode (each row's
//     16-byte chunks XORed with bits 7-8 of their address), so the same
//     copies feed both kernels;
//   - the f32 sums are stored from the registers through the fused
//     epilogue (mma.sync's m16n8 fragment layout is also each warp's part
//     of a wgmma accumulator).
//
// lowerTensorCoreContractions (LowerMatrixUnits.cpp) calls it after
// bufferisation.
//
//===----------------------------------------------------------------------===//

#include "MatrixKernel.h"
#include "Strategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
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
  /// One warpgroup of wgmma (B K-major in workgroup memory), else 4 warps
  /// of mma.sync.
  bool wg = false;
  /// Accumulator tiles: `mi` of `rowStep` rows (32-row warp tiles of
  /// mma.sync: 16; wgmma: 64), `ni` of 8 columns each (mma.sync: a warp's
  /// BN/2; wgmma: all of BN).
  int64_t ni = 0, rowStep = 16;
  Value tidV, warpM, warpN, lane;
  /// An accumulator fragment: vector<2x2xf32> (rows r, r+8 by columns c,
  /// c+1), emulated vector<4xf32> in that order (SPIR-V's vectors are 1-D).
  VectorType accType;
  Value accAt(Value acc, int64_t q) {
    if (accType.getRank() == 1)
      return vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{q});
    return vector::ExtractOp::create(b, loc, acc,
                                     ArrayRef<int64_t>{q / 2, q % 2});
  }
  /// Row h (r or r+8) of a fragment, as vector<2xf32>.
  Value accRow(Value acc, int64_t h) {
    if (accType.getRank() == 1)
      return vector::FromElementsOp::create(
          b, loc, VectorType::get({2}, b.getF32Type()),
          ValueRange{accAt(acc, 2 * h), accAt(acc, 2 * h + 1)});
    return vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{h});
  }

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
  /// Accumulator (m, n) holds rows r, r+8 (r = warp row + m * rowStep +
  /// lane/4) and columns c, c+1 (c = warp column + 8n + 2*(lane%4)) of the
  /// tile: mma.sync's m16n8 layout, which is also each warp's 16 rows of a
  /// wgmma m64 accumulator (its 8-column tiles in order).
  std::pair<Value, Value> fragmentPosition(int64_t m, int64_t n) {
    return {add(add(warpM, c(m * rowStep)), div(lane, 4)),
            add(add(warpN, c(n * 8)), mul(rem(lane, 4), 2))};
  }
  SmallVector<Value> initialAccumulators(Type accType);
  void store(ArrayRef<Value> acc);

  /// K of one MMA instruction (mma.sync's and wgmma's alike: 32 bytes of
  /// f16/bf16, 8 TF32 elements), and the bytes of an operand element.
  int64_t instrK() const { return isHalf(p.kind) ? 16 : 8; }
  int64_t elementBytes() const { return et.getIntOrFloatBitWidth() / 8; }

  // wgmma (sm_90a).
  Value i64(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  /// The 64-bit descriptor of the K-major matrix at byte `offset` of
  /// workgroup buffer `sm`.
  Value descriptor(Value sm, Value offset);
  /// K offset `kk` of the stage: one wgmma per m64 tile onto its
  /// accumulators (`acc`: a register struct per m tile; emulated: the
  /// mi x ni fragments).
  void warpgroupMmas(Value stage, int64_t kk, MutableArrayRef<Value> acc);
  /// One m64nBNk wgmma computed by the threads: each thread's fragments
  /// (`acc`, ni of them) from the elements the descriptors place.
  void emulatedWgmma(Value descA, Value descB, MutableArrayRef<Value> acc);
  /// Accumulators as wgmma's registers (an LLVM struct of BN/2 f32 per m
  /// tile) and back.
  Value toRegisters(ArrayRef<Value> acc, int64_t m);
  void fromRegisters(Value regs, SmallVectorImpl<Value> &acc);
};

/// A K-major matrix descriptor's fields other than its start address:
/// 64-byte swizzle (2 at bit 62), stride byte offset 512 (8 rows of 64
/// bytes, >> 4, at bit 32), leading byte offset 1 (unused by swizzled
/// K-major layouts, at bit 16), base offset 0.
constexpr uint64_t kDescriptorFields =
    (uint64_t{2} << 62) | (uint64_t{512 >> 4} << 32) | (uint64_t{1} << 16);
/// Bytes of a K step's row in workgroup memory: the swizzle's width.
constexpr int64_t kRowBytes = 64;

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
      if (wg) {
        // wgmma reads B K-major: the chunk's elements (columns
        // col..col+chunk-1 at k) go to rows of its [BN][BK] stage.
        SmallVector<Value> elems =
            loadElements(Y, at(yMap, p.k, gk, p.j, gc), valid, chunk);
        Value kc = div(row, chunk), ke = rem(row, chunk);
        for (int64_t e = 0; e < chunk; ++e) {
          Value n = add(col, c(e));
          pending.push_back(
              {elems[e], smB, {stage, n, add(swizzleRow64(n, kc), ke)}});
        }
        continue;
      }
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

Value MmaEmitter::descriptor(Value sm, Value offset) {
  Type i64Type = b.getI64Type();
  // The buffer's address in the shared window (emulated: offsets in it).
  Value base = i64(0);
  if (!p.emulate)
    base = arith::IndexCastOp::create(
        b, loc, i64Type,
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, sm));
  Value addr = arith::AddIOp::create(
      b, loc, base, arith::IndexCastOp::create(b, loc, i64Type, offset));
  Value start = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, addr, i64(0x3FFFF)), i64(4));
  return arith::OrIOp::create(b, loc, start,
                              i64(static_cast<int64_t>(kDescriptorFields)));
}

void MmaEmitter::warpgroupMmas(Value stage, int64_t kk,
                               MutableArrayRef<Value> acc) {
  int64_t bytes = elementBytes(), kInstr = instrK();
  Value descB =
      descriptor(smB, add(mul(stage, p.bn * kRowBytes), c(kk * bytes)));
  for (int64_t m = 0; m < mi; ++m) {
    Value descA = descriptor(smA, add(mul(stage, p.bm * kRowBytes),
                                      c(m * 64 * kRowBytes + kk * bytes)));
    if (p.emulate) {
      emulatedWgmma(descA, descB, acc.slice(m * ni, ni));
      continue;
    }
    NVVM::WGMMATypes type = p.kind == MmaKind::F16    ? NVVM::WGMMATypes::f16
                            : p.kind == MmaKind::BF16 ? NVVM::WGMMATypes::bf16
                                                      : NVVM::WGMMATypes::tf32;
    // D += A B: A [64][K] and B [BN][K] both K-major (no transpose).
    acc[m] = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, acc[m].getType(), acc[m], descA, descB,
        NVVM::MMAShapeAttr::get(b.getContext(), 64, p.bn, kInstr), type, type,
        NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
        NVVM::MMALayout::col,
        /*satfinite=*/nullptr);
  }
}

void MmaEmitter::emulatedWgmma(Value descA, Value descB,
                               MutableArrayRef<Value> acc) {
  Type f32 = b.getF32Type();
  int64_t bytes = elementBytes(), kInstr = instrK();
  // A descriptor's fields, as the hardware reads them: the start address,
  // the stride byte offset (between 8-row groups) and the swizzle mode
  // (1, 2, 3: rows of 128, 64, 32 bytes, whose 16-byte chunks are XORed
  // with the row's position in the 8-row group).
  struct Fields {
    Value start, stride, rowBytes, mask;
  };
  auto field = [&](Value desc, int64_t shift, int64_t mask) {
    Value v = arith::ShRUIOp::create(b, loc, desc, i64(shift));
    if (mask)
      v = arith::AndIOp::create(b, loc, v, i64(mask));
    return Value(arith::IndexCastOp::create(b, loc, b.getIndexType(), v));
  };
  auto decode = [&](Value desc) {
    Value mode = field(desc, 62, 0);
    Value rowBytes = arith::ShRUIOp::create(b, loc, c(256), mode);
    return Fields{mul(field(desc, 0, 0x3FFF), 16),
                  mul(field(desc, 32, 0x3FFF), 16), rowBytes,
                  arith::SubIOp::create(b, loc, div(rowBytes, 16), c(1))};
  };
  Fields fa = decode(descA), fb = decode(descB);
  // The element of `sm` ([stages][rows][bk]) at row r, K position k of the
  // matrix the fields describe.
  auto elementAt = [&](Value sm, const Fields &f, Value r, Value k) {
    Value addr =
        add(add(f.start, arith::MulIOp::create(b, loc, div(r, 8), f.stride)),
            add(arith::MulIOp::create(b, loc, rem(r, 8), f.rowBytes),
                mul(k, bytes)));
    Value chunkBits = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, addr, c(7)), f.mask);
    Value phys = arith::XOrIOp::create(b, loc, addr, mul(chunkBits, 16));
    Value idx = div(phys, bytes);
    auto shape = cast<MemRefType>(sm.getType()).getShape();
    Value v = memref::LoadOp::create(
        b, loc, sm,
        ValueRange{div(idx, shape[1] * shape[2]),
                   rem(div(idx, shape[2]), shape[1]), rem(idx, shape[2])});
    return v.getType() == f32 ? v
                              : Value(arith::ExtFOp::create(b, loc, f32, v));
  };
  // Thread (warp w, lane l) holds rows 16w + l/4 (+8) and columns
  // 8n + 2(l%4) (+1) of the m64 tile.
  Value row = add(mul(div(tidV, 32), 16), div(lane, 4));
  SmallVector<Value> sums;
  for (Value v : acc)
    for (int64_t q = 0; q < 4; ++q)
      sums.push_back(accAt(v, q));
  auto loop = scf::ForOp::create(
      b, loc, c(0), c(kInstr), c(1), sums,
      [&](OpBuilder &nb, Location l, Value k, ValueRange iter) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(nb.getInsertionBlock());
        Value a[2] = {elementAt(smA, fa, row, k),
                      elementAt(smA, fa, add(row, c(8)), k)};
        SmallVector<Value> next(iter);
        for (int64_t n = 0; n < static_cast<int64_t>(acc.size()); ++n)
          for (int64_t e = 0; e < 2; ++e) {
            Value col = add(c(n * 8 + e), mul(rem(lane, 4), 2));
            Value bv = elementAt(smB, fb, col, k);
            for (int64_t h = 0; h < 2; ++h) {
              Value &s = next[n * 4 + h * 2 + e];
              s = math::FmaOp::create(b, loc, a[h], bv, s);
            }
          }
        scf::YieldOp::create(b, loc, next);
      });
  for (int64_t n = 0; n < static_cast<int64_t>(acc.size()); ++n)
    acc[n] = vector::FromElementsOp::create(b, loc, accType,
                                            loop.getResults().slice(n * 4, 4));
}

Value MmaEmitter::toRegisters(ArrayRef<Value> acc, int64_t m) {
  Type f32 = b.getF32Type();
  auto type = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(p.bn / 2, f32));
  Value regs = LLVM::PoisonOp::create(b, loc, type);
  // Register 4n + 2h + e: row + 8h, column 8n + e of the thread's.
  for (int64_t n = 0; n < ni; ++n)
    for (int64_t q = 0; q < 4; ++q)
      regs =
          LLVM::InsertValueOp::create(b, loc, regs, accAt(acc[m * ni + n], q),
                                      ArrayRef<int64_t>{n * 4 + q});
  return regs;
}

void MmaEmitter::fromRegisters(Value regs, SmallVectorImpl<Value> &acc) {
  for (int64_t n = 0; n < ni; ++n) {
    SmallVector<Value> elems;
    for (int64_t q = 0; q < 4; ++q)
      elems.push_back(LLVM::ExtractValueOp::create(b, loc, regs, n * 4 + q));
    acc.push_back(vector::FromElementsOp::create(b, loc, accType, elems));
  }
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
        Value v = accRow(acc[m * ni + n], h);
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
  // wgmma reads B K-major: stored [N][K] (a constant [K][N] was packed
  // so), else each chunk of [K][N] -- loaded, or computed by its gather --
  // through registers into the rows of a [BN][BK] stage.
  wg = p.wgmma;
  if (wg) {
    mi = p.bm / 64;
    ni = p.bn / 8;
    rowStep = 64;
  } else {
    ni = p.bn / 16;
  }
  tidV = tid;
  asyncX = !p.emulate && rowsChunkAligned(X, chunk);
  asyncY = !p.emulate && !gather && !(wg && p.kn) && rowsChunkAligned(Y, chunk);

  // Workgroup buffers of the three stages: 16-byte aligned for cp.async
  // and ldmatrix; for wgmma 1024-byte aligned, so that the swizzle (the
  // address bits 7-8 XORed into bits 4-5) is each 8-row group's own.
  auto space =
      mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup);
  auto buffer = [&](int64_t rows, int64_t cols) {
    auto type = MemRefType::get({kStages, rows, cols}, et,
                                MemRefLayoutAttrInterface(), space);
    return memref::AllocOp::create(b, loc, type,
                                   b.getI64IntegerAttr(wg ? 1024 : 16));
  };
  smA = buffer(p.bm, bk);
  smB = p.kn && !wg ? buffer(bk, p.bn) : buffer(p.bn, bk);

  Value warp = div(tid, 32);
  lane = rem(tid, 32);
  if (wg) {
    // Warp w holds rows 16w..16w+15 of each m64 tile, every column.
    warpM = mul(warp, 16);
    warpN = c(0);
  } else {
    warpM = mul(div(warp, 2), p.bm / 2);
    warpN = mul(rem(warp, 2), p.bn / 2);
  }

  accType = p.emulate ? VectorType::get({4}, b.getF32Type())
                      : VectorType::get({2, 2}, b.getF32Type());
  SmallVector<Value> acc = initialAccumulators(accType);
  // wgmma's accumulators are the registers of its inline PTX.
  bool registers = wg && !p.emulate;
  if (registers) {
    SmallVector<Value> regs;
    for (int64_t m = 0; m < mi; ++m)
      regs.push_back(toRegisters(acc, m));
    acc = regs;
  }

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
        // wgmma reads workgroup memory through the async proxy: each
        // thread's writes of the stage (cp.async, stores) are fenced for
        // it before the barrier.
        if (registers)
          NVVM::FenceProxyOp::create(
              b, loc, NVVM::ProxyKind::async_shared,
              NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
        mlir::gpu::BarrierOp::create(b, loc);
        Value next = issueLoads(add(kt, c(kStages - 1)));
        Value stage = rem(kt, kStages);
        ValueRange accs = async ? iter.drop_front() : iter;
        SmallVector<Value> cur(accs.begin(), accs.end());
        int64_t kStep = instrK();
        if (registers)
          NVVM::WgmmaFenceAlignedOp::create(b, loc);
        for (int64_t kk = 0; kk < bk; kk += kStep) {
          if (wg) {
            warpgroupMmas(stage, kk, cur);
            continue;
          }
          SmallVector<Value> a = loadA(stage, kk);
          SmallVector<Value> bf = loadB(stage, kk);
          for (int64_t m = 0; m < mi; ++m)
            for (int64_t n = 0; n < ni; ++n)
              cur[m * ni + n] = mma(a[m], bf[n], cur[m * ni + n]);
        }
        // The step's wgmmas done before the stage they read is refilled
        // (the copies of the next iteration's step follow its barrier).
        if (registers) {
          NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
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
  if (registers) {
    SmallVector<Value> regs = results;
    results.clear();
    for (Value r : regs)
      fromRegisters(r, results);
  }
  store(results);
  return success();
}
} // namespace

LogicalResult emitTensorCoreKernel(OpBuilder &b, Location loc, const MmaPlan &p,
                                   linalg::LinalgOp op,
                                   linalg::LinalgOp epilogue,
                                   linalg::LinalgOp gather, Value tid) {
  MmaEmitter emitter(b, loc, p, op, epilogue, gather);
  return emitter.emit(tid);
}

} // namespace hodu::gpu
