//===- MatrixCores.cpp - contractions on AMD matrix cores (MFMA) ----------===//
//
// The MFMA kernel of a contraction that hodu-gpu-tile planned for AMD's
// matrix cores (ROCm, CDNA: gfx908 and later; TensorCore.cpp plans it, as
// it does for NVIDIA's tensor cores). A block of 256 threads -- 4
// wavefronts of 64 in 2 x 2 -- computes a BM x BN output tile; each
// wavefront a (BM/2) x (BN/2) tile of 16 x 16 MFMA accumulators:
//
//   - f16: v_mfma_f32_16x16x16_f16, bf16: v_mfma_f32_16x16x16_bf16 (gfx90a
//     on), f32: v_mfma_f32_16x16x4_f32 (full f32 operands) or, with
//     --gpu-math=tf32 on gfx940-942, v_mfma_f32_16x16x8_xf32; f32 sums;
//   - the operands' K steps (64 bytes of each row) go through LDS in two
//     stages: each thread loads its 16-byte chunks of step k+1 from global
//     memory into registers before the wavefronts multiply step k, and
//     stores them into the other stage after, so one barrier per step
//     separates the stages' writes from their reads. Chunks past the
//     operands' edges (M, N or K) are zeros. LDS rows are padded by one
//     chunk, so the fragment reads of a wavefront spread over the banks;
//   - fragments, with lane l of a wavefront: A[i = l % 16][k = (l / 16) * e
//     + 0..e-1], B[k = (l / 16) * e + 0..e-1][j = l % 16] (e = K of the
//     instruction / 4), accumulators D[i = (l / 16) * 4 + 0..3][j = l % 16]
//     (the layouts of AMD's matrix instruction calculator);
//   - the accumulators are stored to the output from the registers, rounded
//     to its type, masked at the tile's edges, through the fused
//     elementwise epilogue (MatrixKernel.h).
//
// The ops are ROCDL's MFMA intrinsics, which convert-gpu-to-rocdl keeps and
// the AMDGPU back end selects; hodu-gpu-lower-vectors leaves the kernel's
// vectors as they are.
//
//===----------------------------------------------------------------------===//

#include "MatrixKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace hodu::gpu {

namespace {
constexpr int64_t kThreads = kAmdThreads; // 4 wavefronts of 64, 2 x 2
constexpr int64_t kWave = 64;
constexpr int64_t kStages = 2;

/// Whether loads of consecutive elements of the innermost dim of `v` may be
/// one vector load: its innermost stride is 1.
bool unitInnermostStride(Value v) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(cast<MemRefType>(v.getType())
                       .getStridesAndOffset(strides, offset)) &&
         !strides.empty() && strides.back() == 1;
}

class MfmaEmitter : MatrixKernelBase {
public:
  using MatrixKernelBase::MatrixKernelBase;

  LogicalResult emit(Value tid);

private:
  Value smA, smB;
  /// With `emulate`: each wavefront's fragments, [wave][lane][element].
  Value fragA, fragB;
  int64_t ni = 0;
  /// K of one instruction, and the operand elements a lane holds for it.
  int64_t kInstr = 0, perLane = 0;
  Value tidV, warpM, warpN, lane;

  /// One thread's chunk of a K step in registers, and where it goes in
  /// LDS (within the stage).
  struct Chunk {
    /// One vector, or with `emulate` its elements (SPIR-V's vectors have
    /// at most 4).
    SmallVector<Value> data;
    Value lds;
    SmallVector<Value> at; // without the stage
    Value inRange;         // null: every thread has this chunk
  };

  Value zeros(Type t) {
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
  }
  /// `chunk` consecutive elements of `src` from `idx` (innermost), or
  /// zeros where `valid` is false: a vector, or with `emulate` scalars.
  SmallVector<Value> loadChunk(Value src, ArrayRef<Value> idx, Value valid);
  SmallVector<Chunk> loadStep(Value kt);
  void storeStep(ArrayRef<Chunk> chunks, Value stage);
  Value fragment(Value sm, Value stage, Value row, int64_t kk, bool kMajor);
  Value mfma(Value a, Value bv, Value acc);
  Value emulatedMfma(Value a, Value bv, Value acc);
  SmallVector<Value> elementsOf(Value v);
};

SmallVector<Value> MfmaEmitter::loadChunk(Value src, ArrayRef<Value> idx,
                                          Value valid) {
  auto vt = VectorType::get({chunk}, et);
  bool computed = gather && src == Y;
  if (!p.emulate && !computed && unitInnermostStride(src)) {
    auto ifOp = scf::IfOp::create(
        b, loc, valid,
        [&](OpBuilder &nb, Location l) {
          scf::YieldOp::create(
              nb, l, Value(vector::LoadOp::create(nb, l, vt, src, idx)));
        },
        [&](OpBuilder &nb, Location l) {
          scf::YieldOp::create(
              nb, l,
              Value(arith::ConstantOp::create(nb, l, nb.getZeroAttr(vt))));
        });
    return {ifOp.getResult(0)};
  }
  // Element by element: a strided innermost dim, SPIR-V, or B computed by
  // its gather (an implicit GEMM: each element from the input).
  SmallVector<Value> elems = loadElements(src, idx, valid, chunk);
  if (p.emulate)
    return elems;
  return {vector::FromElementsOp::create(b, loc, vt, elems)};
}

/// The chunks of K step `kt` this thread loads: BM x BK of A, BK x BN (or
/// BN x BK) of B, 16 bytes each, spread over the block's threads.
SmallVector<MfmaEmitter::Chunk> MfmaEmitter::loadStep(Value kt) {
  SmallVector<Chunk> chunks;
  Value k0 = mul(kt, bk);
  // A `rows` x `cols` tile of `src` into `lds`: rows of loop `rowDim` from
  // `row0`, columns (the operand's innermost dim) of loop `colDim` from
  // `col0`, valid below `rowEnd` and `colEnd`. Its chunks are spread over
  // the threads; where they do not divide evenly, the last round's threads
  // past the end load nothing.
  auto tile = [&](Value src, AffineMap map, unsigned rowDim, Value row0,
                  Value rowEnd, unsigned colDim, Value col0, Value colEnd,
                  Value lds, int64_t rows, int64_t cols) {
    int64_t perRow = cols / chunk, total = rows * perRow;
    for (int64_t q = 0; q * kThreads < total; ++q) {
      Value id = add(tidV, c(q * kThreads));
      Value inRange = (q + 1) * kThreads <= total ? Value() : ult(id, c(total));
      Value row = div(id, perRow), col = mul(rem(id, perRow), chunk);
      Value gr = row0 ? add(row0, row) : row, gc = col0 ? add(col0, col) : col;
      Value valid = both(ult(gr, rowEnd), ult(gc, colEnd));
      if (inRange)
        valid = both(valid, inRange);
      gr = select(valid, gr, c(0));
      gc = select(valid, gc, c(0));
      chunks.push_back({loadChunk(src, at(map, rowDim, gr, colDim, gc), valid),
                        lds,
                        {row, col},
                        inRange});
    }
  };
  Value kEnd = c(K);
  // A, and B stored [N][K]: rows of 64 bytes of K.
  tile(X, xMap, p.i, Value(), mExt, p.k, k0, kEnd, smA, p.bm, bk);
  if (p.kn)
    tile(Y, yMap, p.k, k0, kEnd, p.j, Value(), nExt, smB, bk, p.bn);
  else
    tile(Y, yMap, p.j, Value(), nExt, p.k, k0, kEnd, smB, p.bn, bk);
  return chunks;
}

void MfmaEmitter::storeStep(ArrayRef<Chunk> chunks, Value stage) {
  for (const Chunk &ch : chunks) {
    auto store = [&](OpBuilder &nb, Location l) {
      if (!p.emulate) {
        vector::StoreOp::create(nb, l, ch.data.front(), ch.lds,
                                ValueRange{stage, ch.at[0], ch.at[1]});
        return;
      }
      for (auto [e, v] : llvm::enumerate(ch.data)) {
        Value col = arith::AddIOp::create(
            nb, l, ch.at[1], arith::ConstantIndexOp::create(nb, l, int64_t(e)));
        memref::StoreOp::create(nb, l, v, ch.lds,
                                ValueRange{stage, ch.at[0], col});
      }
    };
    if (!ch.inRange) {
      store(b, loc);
      continue;
    }
    scf::IfOp::create(b, loc, ch.inRange, [&](OpBuilder &nb, Location l) {
      store(nb, l);
      scf::YieldOp::create(nb, l);
    });
  }
}

/// The lane's operand elements for one instruction at K offset `kk` of the
/// stage: from row `row` (its M or N index) of a K-contiguous LDS tile, or
/// down column `row` of a tile stored [K][N] (`kMajor`).
Value MfmaEmitter::fragment(Value sm, Value stage, Value row, int64_t kk,
                            bool kMajor) {
  Value k = add(c(kk), mul(div(lane, 16), perLane));
  if (perLane == 1)
    return kMajor
               ? memref::LoadOp::create(b, loc, sm, ValueRange{stage, k, row})
               : memref::LoadOp::create(b, loc, sm, ValueRange{stage, row, k});
  auto vt = VectorType::get({perLane}, et);
  if (!kMajor && !p.emulate)
    return vector::LoadOp::create(b, loc, vt, sm, ValueRange{stage, row, k});
  SmallVector<Value> elems;
  for (int64_t e = 0; e < perLane; ++e) {
    Value ke = add(k, c(e));
    elems.push_back(memref::LoadOp::create(
        b, loc, sm,
        kMajor ? ValueRange{stage, ke, row} : ValueRange{stage, row, ke}));
  }
  return vector::FromElementsOp::create(b, loc, vt, elems);
}

SmallVector<Value> MfmaEmitter::elementsOf(Value v) {
  auto vt = dyn_cast<VectorType>(v.getType());
  if (!vt)
    return {v};
  SmallVector<Value> elems;
  for (int64_t e = 0; e < vt.getNumElements(); ++e)
    elems.push_back(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{e}));
  return elems;
}

/// What one MFMA computes, by the wavefront's threads: each lane puts its
/// fragments in workgroup memory, then computes its four accumulator
/// elements from every lane's fragments by the layouts above, in f32.
Value MfmaEmitter::emulatedMfma(Value a, Value bv, Value acc) {
  Value wave = div(tidV, kWave);
  for (auto [frag, buf] : {std::pair{a, fragA}, std::pair{bv, fragB}})
    for (auto [e, v] : llvm::enumerate(elementsOf(frag)))
      memref::StoreOp::create(b, loc, v, buf,
                              ValueRange{wave, lane, c(int64_t(e))});
  mlir::gpu::BarrierOp::create(b, loc);
  auto f32 = b.getF32Type();
  auto widen = [&](Value v) {
    return v.getType() == f32 ? v
                              : Value(arith::ExtFOp::create(b, loc, f32, v));
  };
  SmallVector<Value> sums = elementsOf(acc);
  Value j = rem(lane, 16);
  for (int64_t e = 0; e < 4; ++e) {
    Value i = add(mul(div(lane, 16), 4), c(e));
    for (int64_t k = 0; k < kInstr; ++k) {
      int64_t group = k / perLane, item = k % perLane;
      Value x = memref::LoadOp::create(
          b, loc, fragA, ValueRange{wave, add(i, c(16 * group)), c(item)});
      Value y = memref::LoadOp::create(
          b, loc, fragB, ValueRange{wave, add(j, c(16 * group)), c(item)});
      sums[e] = arith::AddFOp::create(
          b, loc, sums[e], arith::MulFOp::create(b, loc, widen(x), widen(y)));
    }
  }
  // Every lane has read the fragments before the next MFMA writes them.
  mlir::gpu::BarrierOp::create(b, loc);
  return vector::FromElementsOp::create(b, loc, acc.getType(), sums);
}

/// One 16 x 16 MFMA of the kind into `acc` (vector<4xf32>).
Value MfmaEmitter::mfma(Value a, Value bv, Value acc) {
  if (p.emulate)
    return emulatedMfma(a, bv, acc);
  Type accType = acc.getType();
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  // cbsz, abid, blgp: no broadcast between blocks or lanes.
  auto args = [&](Value x, Value y) {
    return SmallVector<Value>{x, y, acc, zero, zero, zero};
  };
  switch (p.kind) {
  case MmaKind::F16:
    return ROCDL::mfma_f32_16x16x16f16::create(b, loc, accType, args(a, bv));
  case MmaKind::BF16: {
    // The intrinsic takes bf16 as i16 bits.
    auto it = VectorType::get({4}, b.getI16Type());
    Value ai = arith::BitcastOp::create(b, loc, it, a);
    Value bi = arith::BitcastOp::create(b, loc, it, bv);
    return ROCDL::mfma_f32_16x16x16bf16_1k::create(b, loc, accType,
                                                   args(ai, bi));
  }
  case MmaKind::F32:
    return ROCDL::mfma_f32_16x16x4f32::create(b, loc, accType, args(a, bv));
  case MmaKind::XF32:
    return ROCDL::mfma_f32_16x16x8_xf32::create(b, loc, accType, args(a, bv));
  case MmaKind::TF32:
  case MmaKind::TF32x3:
    break;
  }
  llvm_unreachable("an NVIDIA kind in an MFMA kernel");
}

LogicalResult MfmaEmitter::emit(Value tid) {
  MLIRContext *ctx = b.getContext();
  if (failed(bind()))
    return failure();
  ni = p.bn / 32;
  kInstr = isHalf(p.kind) ? 16 : p.kind == MmaKind::XF32 ? 8 : 4;
  perLane = kInstr / 4;
  tidV = tid;

  // Two stages of LDS, rows padded by a chunk (16-byte aligned: the chunks
  // are stored as 16-byte vectors).
  auto wg =
      mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup);
  auto buffer = [&](int64_t rows, int64_t cols) {
    auto type = MemRefType::get({kStages, rows, cols + chunk}, et,
                                MemRefLayoutAttrInterface(), wg);
    return memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(16));
  };
  smA = buffer(p.bm, bk);
  smB = p.kn ? buffer(bk, p.bn) : buffer(p.bn, bk);
  if (p.emulate) {
    auto type = MemRefType::get({kThreads / kWave, kWave, perLane}, et,
                                MemRefLayoutAttrInterface(), wg);
    fragA = memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(16));
    fragB = memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(16));
  }

  Value wave = div(tid, kWave);
  lane = rem(tid, kWave);
  warpM = mul(div(wave, 2), p.bm / 2);
  warpN = mul(rem(wave, 2), p.bn / 2);

  // Accumulator (m, n) holds rows warpM + 16m + (lane/16)*4 + 0..3 of
  // column warpN + 16n + lane%16.
  auto position = [&](int64_t m, int64_t n, int64_t e) {
    return std::make_pair(add(add(warpM, c(m * 16 + e)), mul(div(lane, 16), 4)),
                          add(add(warpN, c(n * 16)), rem(lane, 16)));
  };
  auto accType = VectorType::get({4}, b.getF32Type());
  SmallVector<Value> acc(mi * ni, zeros(accType));
  if (!p.zeroInit)
    for (int64_t m = 0; m < mi; ++m)
      for (int64_t n = 0; n < ni; ++n) {
        SmallVector<Value> elems;
        for (int64_t e = 0; e < 4; ++e) {
          auto [row, col] = position(m, n, e);
          elems.push_back(initialValue(row, col));
        }
        acc[m * ni + n] =
            vector::FromElementsOp::create(b, loc, accType, elems);
      }

  // Step 0 into stage 0.
  storeStep(loadStep(c(0)), c(0));
  mlir::gpu::BarrierOp::create(b, loc);
  auto loop = scf::ForOp::create(
      b, loc, c(0), c(kSteps), c(1), acc,
      [&](OpBuilder &nb, Location l, Value kt, ValueRange iter) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(nb.getInsertionBlock());
        // Step kt + 1 into registers first (past the last step every chunk
        // is out of K: zeros, stored into the stage nobody reads again).
        SmallVector<Chunk> next = loadStep(add(kt, c(1)));
        Value stage = rem(kt, kStages);
        SmallVector<Value> cur(iter.begin(), iter.end());
        for (int64_t kk = 0; kk < bk; kk += kInstr) {
          SmallVector<Value> a, bf;
          for (int64_t m = 0; m < mi; ++m)
            a.push_back(fragment(smA, stage,
                                 add(add(warpM, c(m * 16)), rem(lane, 16)), kk,
                                 /*kMajor=*/false));
          for (int64_t n = 0; n < ni; ++n)
            bf.push_back(fragment(smB, stage,
                                  add(add(warpN, c(n * 16)), rem(lane, 16)), kk,
                                  /*kMajor=*/p.kn));
          for (int64_t m = 0; m < mi; ++m)
            for (int64_t n = 0; n < ni; ++n)
              cur[m * ni + n] = mfma(a[m], bf[n], cur[m * ni + n]);
        }
        // The other stage was last read in step kt - 1, which every
        // wavefront finished before the barrier that ended it.
        storeStep(next, rem(add(kt, c(1)), kStages));
        mlir::gpu::BarrierOp::create(b, loc);
        scf::YieldOp::create(b, loc, cur);
      });

  for (int64_t m = 0; m < mi; ++m)
    for (int64_t n = 0; n < ni; ++n)
      for (int64_t e = 0; e < 4; ++e) {
        auto [row, col] = position(m, n, e);
        Value v = vector::ExtractOp::create(b, loc, loop.getResult(m * ni + n),
                                            ArrayRef<int64_t>{e});
        storeMasked(v, row, col);
      }
  return success();
}
} // namespace

LogicalResult emitMfmaKernel(OpBuilder &b, Location loc, const MmaPlan &p,
                             linalg::LinalgOp op, linalg::LinalgOp epilogue,
                             linalg::LinalgOp gather, Value tid) {
  MfmaEmitter emitter(b, loc, p, op, epilogue, gather);
  return emitter.emit(tid);
}

} // namespace hodu::gpu
