#!/usr/bin/env python3
"""Emit an sm_80 tensor-core GEMM kernel in upstream MLIR (gpu + nvgpu + arith).

C[M,N] = relu(A[M,K] * B + bias[N]), f32 accumulate.
  f16 : A f16 row-major, B f16 row-major [K][N]  -> ldmatrix(.trans for B), mma m16n8k16
  bf16: as f16 (mma via nvvm.mma.sync: nvgpu.mma.sync cannot type bf16 in MLIR 22)
  tf32x3: as tf32 with 3 mma per product (big*big + big*small + small*big), f32-accurate
  tf32: A f32 row-major, B f32 pre-transposed [N][K] (constant weights packed at
        compile time) -> ldmatrix for both, mma m16n8k8 with tf32Enabled
Block tile 128x128xBK (BK = 64 bytes of K per smem row), 4 warps (2x2), warp
tile 64x64, 3-stage cp.async pipeline (zero-fill predication on the tail),
XOR-swizzled shared memory (16-byte chunks) for conflict-free cp.async stores
and ldmatrix reads, bias+ReLU epilogue fused on the accumulator registers.
"""
import sys

import os
M = N = K = int(os.environ.get("GEMM_SIZE", "1024"))
BM = BN = 128
STAGES = 3
dt = sys.argv[1] if len(sys.argv) > 1 else "f16"
F16 = dt in ("f16", "bf16")
X3 = dt == "tf32x3"          # 3xTF32: f32-accurate products on tensor cores
ET = dt if F16 else "f32"
HT = dt if F16 else "f16"
EPC = 8 if F16 else 4          # elements per 16-byte chunk
BK = 32 if F16 else 16         # 64 bytes of K per smem row
KSTEP = 16 if F16 else 8       # mma K
KT = K // BK
MI, NI = 4, 8                  # m16 x n8 mma tiles per warp (64x64)
AV = f"vector<4x2x{ET}>" if F16 else "vector<4x1xf32>"
BV = f"vector<2x2x{ET}>" if F16 else "vector<2x1xf32>"
CV = "vector<2x2xf32>"
WG = "#gpu.address_space<workgroup>"
SA = f"memref<{STAGES}x{BM}x{BK}x{ET}, {WG}>"
SB = (f"memref<{STAGES}x{BK}x{BN}x{ET}, {WG}>" if F16
      else f"memref<{STAGES}x{BN}x{BK}xf32, {WG}>")
GA = f"memref<{M}x{K}x{ET}>"
GB = f"memref<{K}x{N}x{ET}>" if F16 else f"memref<{N}x{K}xf32>"
GC = f"memref<{M}x{N}xf32>"

out, cnt, consts = [], [0], {}

def e(s):
    out.append("      " + s)

def v(prefix="v"):
    cnt[0] += 1
    return f"%{prefix}{cnt[0]}"

def c(n):
    if n not in consts:
        consts[n] = f"%c{n}"
        out.insert(consts_at[0], f"      %c{n} = arith.constant {n} : index")
    return consts[n]

def op(kind, a, b):
    r = v()
    e(f"{r} = arith.{kind} {a}, {b} : index")
    return r

consts_at = [0]

def swz_a(row, chunk):
    # 64-byte rows: 4 chunks; chunk ^= (row >> 1) & 3  (8 consecutive rows -> 8 banks groups)
    t = op("andi", op("shrui", row, c(1)), c(3))
    return op("muli", op("xori", chunk, t), c(EPC))

def swz_b(row, chunk):
    # 256-byte rows (f16 B tile 32x128): 16 chunks; chunk ^= row & 7
    t = op("andi", row, c(7))
    return op("muli", op("xori", chunk, t), c(EPC))

def issue_loads(kt_idx, nelems):
    """cp.async of k-tile kt_idx into stage kt_idx % STAGES; returns the tokens."""
    toks = []
    st = op("remui", kt_idx, c(STAGES))
    kbase = op("muli", kt_idx, c(BK))
    for i in range(4):   # 512 chunks of A per tile / 128 threads
        cid = op("addi", tid, c(i * 128))
        row = op("divui", cid, c(4))
        ch = op("remui", cid, c(4))
        grow = op("addi", mbase, row)
        gcol = op("addi", kbase, op("muli", ch, c(EPC)))
        t = v("t")
        e(f"{t} = nvgpu.device_async_copy %A[{grow}, {gcol}], %smA[{st}, {row}, {swz_a(row, ch)}], {EPC}, {nelems} {{bypassL1}} : {GA} to {SA}")
        toks.append(t)
    for i in range(4):
        cid = op("addi", tid, c(i * 128))
        if F16:          # B tile 32 x 128 f16, 16 chunks per row
            row = op("divui", cid, c(16))
            ch = op("remui", cid, c(16))
            grow = op("addi", kbase, row)
            gcol = op("addi", nbase, op("muli", ch, c(EPC)))
            dcol = swz_b(row, ch)
        else:            # Bt tile 128 x 16 f32, 4 chunks per row
            row = op("divui", cid, c(4))
            ch = op("remui", cid, c(4))
            grow = op("addi", nbase, row)
            gcol = op("addi", kbase, op("muli", ch, c(EPC)))
            dcol = swz_a(row, ch)
        t = v("t")
        e(f"{t} = nvgpu.device_async_copy %B[{grow}, {gcol}], %smB[{st}, {row}, {dcol}], {EPC}, {nelems} {{bypassL1}} : {GB} to {SB}")
        toks.append(t)
    g = v("g")
    e(f"{g} = nvgpu.device_async_create_group {', '.join(toks)}")
    return g

kname = f"gemm_{dt}_sm80"
hdr = [
    "module attributes {gpu.container_module} {",
    "  gpu.module @kernels {",
    f"    gpu.func @{kname}(%A: {GA}, %B: {GB}, %bias: memref<{N}xf32>, %C: {GC})",
    f"        workgroup(%smA: {SA} {{llvm.align = 16 : i64}}, %smB: {SB} {{llvm.align = 16 : i64}})",
    "        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {",
]
consts_at[0] = 0
tid = "%tid"
e("%tid = gpu.thread_id x")
e("%bx = gpu.block_id x")
e("%by = gpu.block_id y")
consts_at[0] = 0     # constants go above everything (inserted at index 0)
mbase = op("muli", "%by", c(BM))
nbase = op("muli", "%bx", c(BN))
warp = op("divui", tid, c(32))
lane = op("remui", tid, c(32))
wm = op("muli", op("divui", warp, c(2)), c(64))
wn = op("muli", op("remui", warp, c(2)), c(64))
l16 = op("remui", lane, c(16))
l_16 = op("divui", lane, c(16))
l8 = op("remui", lane, c(8))
l_8m2 = op("remui", op("divui", lane, c(8)), c(2))
full = c(EPC)
e(f"%zero = arith.constant dense<0.0> : {CV}")
# prologue: STAGES-1 tiles in flight
g0 = issue_loads(c(0), full)
g1 = issue_loads(c(1), full)
accs = [f"%acc{i}" for i in range(MI * NI)]
ktv = "%kt"
out.append(f"      %res:{1 + MI*NI} = scf.for %kt = {c(0)} to {c(KT)} step {c(1)} iter_args(%tok = {g1}, "
           + ", ".join(f"{a} = %zero" for a in accs) + ") -> (!nvgpu.device.async.token, "
           + ", ".join([CV] * (MI * NI)) + ") {")
e("nvgpu.device_async_wait %tok {numGroups = 1 : i32}")
e("gpu.barrier")
nxt = op("addi", ktv, c(STAGES - 1))
inb = v("p")
e(f"{inb} = arith.cmpi ult, {nxt}, {c(KT)} : index")
nel = v()
e(f"{nel} = arith.select {inb}, {c(EPC)}, {c(0)} : index")   # zero-fill past the end
ktl = op("minui", nxt, c(KT - 1))
# stage index must follow nxt (not the clamped tile) so that we never overwrite a live stage
stn = op("remui", nxt, c(STAGES))
def issue_next():
    toks = []
    st = stn
    kbase = op("muli", ktl, c(BK))
    for i in range(4):
        cid = op("addi", tid, c(i * 128))
        row = op("divui", cid, c(4)); ch = op("remui", cid, c(4))
        grow = op("addi", mbase, row); gcol = op("addi", kbase, op("muli", ch, c(EPC)))
        t = v("t")
        e(f"{t} = nvgpu.device_async_copy %A[{grow}, {gcol}], %smA[{st}, {row}, {swz_a(row, ch)}], {EPC}, {nel} {{bypassL1}} : {GA} to {SA}")
        toks.append(t)
    for i in range(4):
        cid = op("addi", tid, c(i * 128))
        if F16:
            row = op("divui", cid, c(16)); ch = op("remui", cid, c(16))
            grow = op("addi", kbase, row); gcol = op("addi", nbase, op("muli", ch, c(EPC)))
            dcol = swz_b(row, ch)
        else:
            row = op("divui", cid, c(4)); ch = op("remui", cid, c(4))
            grow = op("addi", nbase, row); gcol = op("addi", kbase, op("muli", ch, c(EPC)))
            dcol = swz_a(row, ch)
        t = v("t")
        e(f"{t} = nvgpu.device_async_copy %B[{grow}, {gcol}], %smB[{st}, {row}, {dcol}], {EPC}, {nel} {{bypassL1}} : {GB} to {SB}")
        toks.append(t)
    g = v("g")
    e(f"{g} = nvgpu.device_async_create_group {', '.join(toks)}")
    return g
gn = issue_next()
cur = op("remui", ktv, c(STAGES))
acc = list(accs)
for kk in range(0, BK, KSTEP):
    afr = []
    for mi in range(MI):
        row = op("addi", op("addi", wm, c(mi * 16)), l16)
        ch = op("addi", c(kk // EPC), l_16)
        col = swz_a(row, ch)
        a = v("a")
        e(f"{a} = nvgpu.ldmatrix %smA[{cur}, {row}, {col}] {{numTiles = 4 : i32, transpose = false}} : {SA} -> {AV}")
        afr.append(a)
    bfr = []
    for nj in range(NI // 2):
        if F16:
            krow = op("addi", c(kk), l16)
            ch = op("addi", c((nj * 16) // 8), l_16)
            ch = op("addi", ch, op("divui", wn, c(8)))
            col = swz_b(krow, ch)
            b4 = v("b")
            e(f"{b4} = nvgpu.ldmatrix %smB[{cur}, {krow}, {col}] {{numTiles = 4 : i32, transpose = true}} : {SB} -> vector<4x2x{ET}>")
            shp = "[2, 2]"; full_t = f"vector<4x2x{ET}>"
        else:
            nrow = op("addi", op("addi", wn, c(nj * 16)), op("addi", op("muli", l_16, c(8)), l8))
            ch = op("addi", c(kk // EPC), l_8m2)
            col = swz_a(nrow, ch)
            b4 = v("b")
            e(f"{b4} = nvgpu.ldmatrix %smB[{cur}, {nrow}, {col}] {{numTiles = 4 : i32, transpose = false}} : {SB} -> vector<4x1xf32>")
            shp = "[2, 1]"; full_t = "vector<4x1xf32>"
        for h in range(2):
            bb = v("b")
            e(f"{bb} = vector.extract_strided_slice {b4} {{offsets = [{2*h}, 0], sizes = {shp}, strides = [1, 1]}} : {full_t} to {BV}")
            bfr.append(bb)
    def split(x, vt):
        it = vt.replace("f32", "i32")
        bi = v("s"); e(f"{bi} = arith.bitcast {x} : {vt} to {it}")
        m = v("s"); e(f"{m} = arith.constant dense<-8192> : {it}")
        hb = v("s"); e(f"{hb} = arith.andi {bi}, {m} : {it}")
        hi = v("s"); e(f"{hi} = arith.bitcast {hb} : {it} to {vt}")
        lo = v("s"); e(f"{lo} = arith.subf {x}, {hi} : {vt}")
        return hi, lo
    if X3:
        asp = [split(a, AV) for a in afr]
        bsp = [split(b, BV) for b in bfr]
    for mi in range(MI):
        for ni in range(NI):
            if X3:   # small terms first, big*big last (CUTLASS 3xTF32 ordering)
                for (aa, bb) in ((asp[mi][1], bsp[ni][0]), (asp[mi][0], bsp[ni][1]), (asp[mi][0], bsp[ni][0])):
                    r = v("d")
                    e(f"{r} = nvgpu.mma.sync ({aa}, {bb}, {acc[mi*NI+ni]}) {{mmaShape = [16, 8, 8], tf32Enabled}} : ({AV}, {BV}, {CV}) -> {CV}")
                    acc[mi * NI + ni] = r
                continue
            if dt == "bf16":   # nvgpu.mma.sync cannot type bf16 in MLIR 22: use nvvm.mma.sync
                ai = v("i"); e(f"{ai} = vector.bitcast {afr[mi]} : {AV} to vector<4x1xi32>")
                bi = v("i"); e(f"{bi} = vector.bitcast {bfr[ni]} : {BV} to vector<2x1xi32>")
                As = []
                for q in range(4):
                    t = v("i"); e(f"{t} = vector.extract {ai}[{q}, 0] : i32 from vector<4x1xi32>"); As.append(t)
                Bs = []
                for q in range(2):
                    t = v("i"); e(f"{t} = vector.extract {bi}[{q}, 0] : i32 from vector<2x1xi32>"); Bs.append(t)
                Cs = []
                for q in range(4):
                    t = v("f"); e(f"{t} = vector.extract {acc[mi*NI+ni]}[{q//2}, {q%2}] : f32 from {CV}"); Cs.append(t)
                st = v("m")
                e(f"{st} = nvvm.mma.sync A[{', '.join(As)}] B[{', '.join(Bs)}] C[{', '.join(Cs)}] {{layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>")
                Ds = []
                for q in range(4):
                    t = v("f"); e(f"{t} = llvm.extractvalue {st}[{q}] : !llvm.struct<(f32, f32, f32, f32)>"); Ds.append(t)
                r = v("d"); e(f"{r} = vector.from_elements {', '.join(Ds)} : {CV}")
                acc[mi * NI + ni] = r
                continue
            r = v("d")
            attrs = "{mmaShape = [16, 8, 16]}" if F16 else "{mmaShape = [16, 8, 8], tf32Enabled}"
            e(f"{r} = nvgpu.mma.sync ({afr[mi]}, {bfr[ni]}, {acc[mi*NI+ni]}) {attrs} : ({AV}, {BV}, {CV}) -> {CV}")
            acc[mi * NI + ni] = r
e(f"scf.yield {gn}, " + ", ".join(acc) + " : !nvgpu.device.async.token, " + ", ".join([CV] * (MI * NI)))
out.append("      }")
e("nvgpu.device_async_wait %res#0 {numGroups = 0 : i32}")
# epilogue: bias + ReLU on the registers, 8-byte stores
e("%fz = arith.constant dense<0.0> : vector<2xf32>")
g4 = op("divui", lane, c(4))
t2 = op("muli", op("remui", lane, c(4)), c(2))
for mi in range(MI):
    for ni in range(NI):
        r0 = op("addi", op("addi", mbase, wm), op("addi", c(mi * 16), g4))
        r1 = op("addi", r0, c(8))
        col = op("addi", op("addi", nbase, wn), op("addi", c(ni * 8), t2))
        bv = v("bias")
        e(f"{bv} = vector.load %bias[{col}] : memref<{N}xf32>, vector<2xf32>")
        for h, rr in ((0, r0), (1, r1)):
            x = v("x")
            e(f"{x} = vector.extract %res#{1 + mi*NI + ni}[{h}] : vector<2xf32> from {CV}")
            y = v("y")
            e(f"{y} = arith.addf {x}, {bv} : vector<2xf32>")
            z = v("z")
            e(f"{z} = arith.maximumf {y}, %fz : vector<2xf32>")
            e(f"vector.store {z}, %C[{rr}, {col}] : {GC}, vector<2xf32>")
e("gpu.return")
print("\n".join(hdr + out + ["    }", "  }", "}"]))
