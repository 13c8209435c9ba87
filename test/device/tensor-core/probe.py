#!/usr/bin/env python3
"""Runs the reference tensor-core GEMM kernels (cubins built by build.sh) on
the GPU: C = relu(A.B + bias), checked against float64 and timed against
torch.matmul (cuBLAS) in the same precision. Prints one table."""
import ctypes, glob, os, statistics, sys, json
import torch

d = sys.argv[1] if len(sys.argv) > 1 else "out"
cu = ctypes.CDLL("libcuda.so.1")
torch.cuda.init(); torch.zeros(1, device="cuda"); torch.cuda.synchronize()
dev = torch.cuda.get_device_properties(0)
print(f"device: {dev.name}, {dev.multi_processor_count} SMs, torch {torch.__version__}, cuda {torch.version.cuda}")

def chk(r, what):
    if r != 0:
        s = ctypes.c_char_p(); cu.cuGetErrorString(r, ctypes.byref(s))
        raise RuntimeError(f"{what}: CUresult {r} {s.value}")

def load(path, name):
    mod = ctypes.c_void_p(); data = open(path, "rb").read()
    chk(cu.cuModuleLoadData(ctypes.byref(mod), data), f"load {path}")
    f = ctypes.c_void_p(); chk(cu.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()), name)
    return f

keep = []
def tmap(t, dtype_code, rows, cols, box_rows, box_cols):
    raw = ctypes.create_string_buffer(256); keep.append(raw)
    addr = (ctypes.addressof(raw) + 63) // 64 * 64
    m = ctypes.c_void_p(addr)
    u64 = ctypes.c_uint64; u32 = ctypes.c_uint32
    gdim = (u64 * 2)(cols, rows); gstr = (u64 * 1)(cols * t.element_size())
    box = (u32 * 2)(box_cols, box_rows); es = (u32 * 2)(1, 1)
    chk(cu.cuTensorMapEncodeTiled(m, dtype_code, u32(2), ctypes.c_void_p(t.data_ptr()),
                                  gdim, gstr, box, es, 0, 3, 0, 0), "cuTensorMapEncodeTiled")
    m.byval = True
    return m

def launch(f, grid, block, smem, args):
    # a tensor map (c_void_p at a 64-byte aligned address, tagged) is passed by
    # value: its address is the parameter's; a pointer is passed by address.
    params = (ctypes.c_void_p * len(args))(*[a.value if getattr(a, "byval", False) else ctypes.addressof(a) for a in args])
    s = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    chk(cu.cuLaunchKernel(f, grid[0], grid[1], 1, block, 1, 1, smem, s, params, None), "launch")

def timeit(fn, reps=30):
    for _ in range(5): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b) * 1e3)
    return statistics.median(ts)

rows = []
torch.manual_seed(0)
for size in (1024, 4096):
    M = N = K = size
    for kind in ("f16", "bf16", "tf32", "tf32x3", "sm90a_f16", "sm90a_bf16"):
        sm90 = kind.startswith("sm90a")
        et = kind.split("_")[-1] if sm90 else kind
        tdt = {"f16": torch.float16, "bf16": torch.bfloat16}.get(et, torch.float32)
        A = torch.randn(M, K, device="cuda").to(tdt)
        Bkn = torch.randn(K, N, device="cuda").to(tdt)
        bias = torch.randn(N, device="cuda")
        C = torch.full((M, N), float("nan"), device="cuda")
        ref = torch.relu(A.double() @ Bkn.double() + bias.double())
        try:
            if sm90:
                f = load(f"{d}/sm90a_{et}_{size}.cubin", f"gemm_{et}_sm90a")
                code = 6 if et == "f16" else 9
                ta = tmap(A, code, M, K, 128, 64); tb = tmap(Bkn, code, K, N, 64, 64)
                smem = 3 * 32768 + 1024
                chk(cu.cuFuncSetAttribute(f, 8, smem), "max dynamic smem")
                pc = ctypes.c_void_p(C.data_ptr())
                run = lambda: launch(f, (N // 128, M // 128), 128, smem, [ta, tb, pc])
                # wgmma.mma_async.store writes C without bias/relu
                ref = A.double() @ Bkn.double()
            else:
                f = load(f"{d}/sm80_{kind}_{size}.cubin", f"gemm_{kind}_sm80")
                Bt = Bkn if tdt != torch.float32 else Bkn.t().contiguous()
                ptrs = [ctypes.c_void_p(x.data_ptr()) for x in (A, Bt, bias, C)]
                run = lambda: launch(f, (N // 128, M // 128), 128, 0, ptrs)
            run(); torch.cuda.synchronize()
            unwritten = int(torch.isnan(C).sum())
            err = float((C.double() - ref).norm() / ref.norm())
            t = timeit(run)
        except Exception as ex:
            rows.append(dict(size=size, kind=kind, error=str(ex))); print("ERROR", size, kind, ex); continue
        # cuBLAS in the same precision
        torch.backends.cuda.matmul.allow_tf32 = et in ("tf32",)
        if et == "tf32x3":
            torch.backends.cuda.matmul.allow_tf32 = False
        Bc = Bkn
        tc = timeit(lambda: torch.matmul(A, Bc))
        tf = 2 * M * N * K / t / 1e6
        rows.append(dict(size=size, kind=kind, us=t, tflops=tf, cublas_us=tc, ratio=tc / t, relerr=err, unwritten=unwritten))
        print(f"{size:5d} {kind:11s} {t:9.1f} us {tf:7.1f} TFLOP/s  cuBLAS {tc:9.1f} us  ours/cuBLAS speed {tc/t:5.2f}  relerr {err:.2e}  unwritten {unwritten}", flush=True)
torch.backends.cuda.matmul.allow_tf32 = False
out = os.environ.get("OUT")
if out:
    json.dump(rows, open(f"{out}/tc_probe.json", "w"), indent=1)
