#!/usr/bin/env python3
"""The tensor-core contractions of the CUDA target, checked and timed on a GPU.

    tensor_core.py stage --bin build/bin --out STAGE/tc [--gpu-arch sm_90]   # here
    tensor_core.py run STAGE/tc BIN_DIR [RESULTS]                           # there
    tensor_core.py mlir M N K f32|f16|bf16        # one matmul's linalg (lit tests)

`stage` writes, for each case, a matmul as linalg (`matmul_mlir`) compiled by
hoduc into a CUDA bundle, with case.json (shapes, element type, layout,
--gpu-math). The cases: small ones of every kind and layout (f32 as 3xTF32
and TF32 with B stored [K][N] and [N][K], f16 and bf16, f16 widened to an
f32 output, a batched matmul, sizes that are not multiples of the tiles),
two that split-K splits (few output tiles over a long K), square 1024^3
and 4096^3 matmuls in each precision, and 3x3 convolutions (padded, NCHW)
as implicit GEMMs and through their im2col tensor, timed against cuDNN.
The cases of every kind but 3xTF32 are staged a second time for sm_90a
("wgmma-" names: one warpgroup of wgmma.mma_async per tile), which the
same run checks and times beside the mma.sync kernels.

`run` (on the GPU machine: torch, onnx and numpy there) feeds each bundle
random inputs through hodu-run, compares the output with a float64 product
computed by torch (relative Frobenius error, against the bound of the
case's precision), times it with `hodu-run --replay` and times torch.matmul
(cuBLAS) on the same shapes in the same precision. It prints one table and
exits 1 if any case is wrong.

Stage side: Python 3 standard library only.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Relative error allowed per precision (products accumulated in f32):
# 3xTF32 is f32-accurate (its f32 accumulation truncates, so the error grows
# with K: 3e-5 at K = 4096 on an H200), TF32 keeps 10 bits of mantissa,
# f16 and bf16 round their inputs and their outputs.
BOUNDS = {"3xtf32": 2e-4, "tf32": 5e-3, "fma": 1e-5, "f16": 5e-3, "bf16": 2e-2,
          "f16-f32": 2e-3}


def const_b(k, n):
    """The B of a "-const" case, [K][N]: (k*N + n) % 13 - 6, over 8 (exact
    in TF32)."""
    return [[((kk * n + nn) % 13 - 6) / 8.0 for nn in range(n)] for kk in range(k)]


def matmul_mlir(name, m, n, k, et, out_et=None, bt=False, batch=None, b_const=False):
    """C = A B (B stored [K][N], or [N][K] with bt) as a linalg.generic whose
    output is first filled with zeros, as the ONNX importer writes it. With
    b_const, B is const_b(k, n), a constant of the model (a weight), which
    hoduc lays out for the tensor cores at compile time."""
    out_et = out_et or et
    bs = "%dx" % batch if batch else ""
    A = "tensor<%s%dx%dx%s>" % (bs, m, k, et)
    B = "tensor<%s%dx%dx%s>" % (bs, n, k, et) if bt else "tensor<%s%dx%dx%s>" % (bs, k, n, et)
    C = "tensor<%s%dx%dx%s>" % (bs, m, n, out_et)
    if batch:
        dims, amap, cmap = "(b, m, n, k)", "(b, m, k)", "(b, m, n)"
        bmap = "(b, n, k)" if bt else "(b, k, n)"
        its = '"parallel", "parallel", "parallel", "reduction"'
    else:
        dims, amap, cmap = "(m, n, k)", "(m, k)", "(m, n)"
        bmap = "(n, k)" if bt else "(k, n)"
        its = '"parallel", "parallel", "reduction"'
    if out_et != et:
        body = ["%%xa = arith.extf %%x : %s to %s" % (et, out_et),
                "%%xb = arith.extf %%y : %s to %s" % (et, out_et),
                "%%p = arith.mulf %%xa, %%xb : %s" % out_et]
    else:
        body = ["%%p = arith.mulf %%x, %%y : %s" % out_et]
    body += ["%%s = arith.addf %%acc, %%p : %s" % out_et, "linalg.yield %%s : %s" % out_et]
    if b_const:
        rows = ", ".join("[" + ", ".join(repr(v) for v in row) + "]" for row in const_b(k, n))
        args = '%%a: %s {hodu.name = "a"}' % A
        const = "%%b = arith.constant dense<[%s]> : %s\n    " % (rows, B)
    else:
        args = '%%a: %s {hodu.name = "a"}, %%b: %s {hodu.name = "b"}' % (A, B)
        const = ""
    return """module attributes {hodu.model_name = "%(name)s"} {
  func.func @main(%(args)s) -> (%(C)s {hodu.name = "c"}) {
    %(const)s%%zero = arith.constant 0.0 : %(out)s
    %%e = tensor.empty() : %(C)s
    %%init = linalg.fill ins(%%zero : %(out)s) outs(%%e : %(C)s) -> %(C)s
    %%mm = linalg.generic {indexing_maps = [affine_map<%(dims)s -> %(amap)s>, affine_map<%(dims)s -> %(bmap)s>, affine_map<%(dims)s -> %(cmap)s>],
                          iterator_types = [%(its)s]}
          ins(%%a, %%b : %(A)s, %(B)s) outs(%%init : %(C)s) {
    ^bb0(%%x: %(et)s, %%y: %(et)s, %%acc: %(out)s):
      %(body)s
    } -> %(C)s
    return %%mm : %(C)s
  }
}
""" % dict(name=name, args=args, const=const, A=A, B=B, C=C, out=out_et, dims=dims, amap=amap, bmap=bmap,
           cmap=cmap, its=its, et=et, body="\n      ".join(body))


def conv_mlir(name, n, c, h, w, f, et):
    """Y = conv2d(X, W), 3x3, stride 1, padding 1 (a zero tensor.pad, as the
    ONNX importer writes a Conv's pads), NCHW / FCHW, output filled with
    zeros first. Inputs "a" (X) and "b" (W), output "c"."""
    X = "tensor<%dx%dx%dx%dx%s>" % (n, c, h, w, et)
    P = "tensor<%dx%dx%dx%dx%s>" % (n, c, h + 2, w + 2, et)
    W = "tensor<%dx%dx3x3x%s>" % (f, c, et)
    Y = "tensor<%dx%dx%dx%dx%s>" % (n, f, h, w, et)
    return """module attributes {hodu.model_name = "%(name)s"} {
  func.func @main(%%a: %(X)s {hodu.name = "a"}, %%b: %(W)s {hodu.name = "b"}) -> (%(Y)s {hodu.name = "c"}) {
    %%zero = arith.constant 0.0 : %(et)s
    %%p = tensor.pad %%a low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%%i: index, %%j: index, %%k: index, %%l: index):
      tensor.yield %%zero : %(et)s
    } : %(X)s to %(P)s
    %%e = tensor.empty() : %(Y)s
    %%init = linalg.fill ins(%%zero : %(et)s) outs(%%e : %(Y)s) -> %(Y)s
    %%y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%%p, %%b : %(P)s, %(W)s) outs(%%init : %(Y)s) -> %(Y)s
    return %%y : %(Y)s
  }
}
""" % dict(name=name, X=X, P=P, W=W, Y=Y, et=et)


def conv_cases():
    """(name, n, c, h, w, f, element type, gpu-math, implicit GEMM): 3x3
    convolutions as implicit GEMMs and, for comparison, through the im2col
    tensor (hoduc --hodu-gpu-no-implicit-gemm); all timed."""
    out = []
    for (n, c, hw, f) in ((1, 64, 56, 128), (8, 128, 28, 128)):
        for et, gm in (("f32", "3xtf32"), ("f32", "tf32"), ("f16", "3xtf32")):
            label = et if et != "f32" else gm
            for implicit in (True, False):
                out.append(("conv-%s-%dx%dx%d-%d-%s" % (label, n, c, hw, f,
                                                        "implicit" if implicit else "im2col"),
                            n, c, hw, hw, f, et, gm, implicit))
    return out


def cases():
    """(name, m, n, k, element type, output type, bt, batch, gpu-math, time it)."""
    out = []
    for gm in ("3xtf32", "tf32"):
        out += [("f32-kn-" + gm, 256, 192, 96, "f32", "f32", False, None, gm, False),
                ("f32-nk-" + gm, 256, 192, 96, "f32", "f32", True, None, gm, False),
                # B a constant [K][N]: stored [N][K] by hoduc.
                ("f32-kn-const-" + gm, 256, 192, 96, "f32", "f32", False, None, gm, False),
                ("f32-tail-" + gm, 100, 70, 36, "f32", "f32", True, None, gm, False),
                ("f32-odd-" + gm, 100, 67, 36, "f32", "f32", True, None, gm, False),
                ("f32-kn-tail-" + gm, 100, 72, 44, "f32", "f32", False, None, gm, False)]
    out += [("f32-bmm", 96, 64, 40, "f32", "f32", False, 3, "3xtf32", False),
            ("f16-kn", 256, 128, 64, "f16", "f16", False, None, "3xtf32", False),
            ("f16-nk-f32", 128, 256, 64, "f16", "f32", True, None, "3xtf32", False),
            ("f16-kn-tail", 200, 136, 72, "f16", "f16", False, None, "3xtf32", False),
            ("bf16-kn", 256, 128, 64, "bf16", "bf16", False, None, "3xtf32", False),
            ("bf16-nk", 256, 128, 64, "bf16", "bf16", True, None, "3xtf32", False),
            # Split-K: few output tiles over a long K (8 and 16 slices).
            ("splitk-64x96x2048", 64, 96, 2048, "f32", "f32", False, None, "3xtf32", True),
            ("splitk-tf32-128x128x8192", 128, 128, 8192, "f32", "f32", False, None, "tf32", True)]
    for s in (1024, 4096):
        for et, gm in (("f16", "3xtf32"), ("bf16", "3xtf32"), ("f32", "3xtf32"),
                       ("f32", "tf32"), ("f32", "fma")):
            label = et if et != "f32" else gm
            out.append(("%s-%d" % (label, s), s, s, s, et, et, False, None, gm, True))
    return out


def stage(args):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpu-arch", default="sm_90")
    a = ap.parse_args(args)
    hoduc = os.path.join(a.bin, "hoduc")
    os.makedirs(a.out, exist_ok=True)

    def compile_case(name, mlir, gm, flags, case, arch=None):
        """OUT/NAME/model.hodu from `mlir` and its case.json; False (and
        why, printed) if it does not compile."""
        d = os.path.join(a.out, name)
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "model.mlir")
        with open(src, "w") as f:
            f.write(mlir)
        p = subprocess.run([hoduc, src, "--device=cuda", "--gpu-arch=" + (arch or a.gpu_arch),
                            "--gpu-math=" + gm, "-o", os.path.join(d, "model.hodu")] + flags,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            print("tensor_core stage: %s does not compile: %s" % (name, p.stdout.decode()[:400]))
            return False
        os.remove(src)
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump(case, f)
        return True

    staged = 0
    # mma.sync on the staged architecture, then wgmma (sm_90a) for every
    # kind it takes (3xTF32 and the FMA kernels stay as they are).
    for arch, prefix in ((None, ""), ("sm_90a", "wgmma-")):
        for (name, m, n, k, et, out_et, bt, batch, gm, timed) in cases():
            if prefix and gm in ("3xtf32", "fma") and et == "f32":
                continue
            if not compile_case(prefix + name,
                                matmul_mlir(name.replace("-", "_"), m, n, k, et, out_et, bt,
                                            batch, "-const" in name), gm, [],
                                dict(m=m, n=n, k=k, et=et, out=out_et, bt=bt, batch=batch,
                                     math=gm, timed=timed, b_const="-const" in name,
                                     arch=arch or a.gpu_arch), arch):
                return 1
            staged += 1
        for (name, n, c, h, w, f, et, gm, implicit) in conv_cases():
            if prefix and (et, gm) == ("f32", "3xtf32"):
                continue
            if not compile_case(prefix + name, conv_mlir(name.replace("-", "_"), n, c, h, w, f, et),
                                gm, [] if implicit else ["--hodu-gpu-no-implicit-gemm"],
                                dict(conv=True, n=n, c=c, h=h, w=w, f=f, et=et, out=et, math=gm,
                                     implicit=implicit, timed=True, arch=arch or a.gpu_arch),
                                arch):
                return 1
            staged += 1
    print("tensor_core stage: %d cases in %s" % (staged, a.out))
    return 0


def run(args):
    import numpy as np
    import onnx
    import torch
    from onnx import TensorProto, numpy_helper

    stage_dir, bin_dir = args[0], args[1]
    results = args[2] if len(args) > 2 else os.environ.get("OUT", "/tmp")
    hodu_run = os.path.join(bin_dir, "hodu-run")
    env = dict(os.environ, LD_LIBRARY_PATH=bin_dir + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    onnx_dt = {"f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16, "bf16": TensorProto.BFLOAT16}

    def write_pb(t, et, path):
        raw = t.detach().cpu().contiguous().view(torch.int16 if et != "f32" else torch.int32)
        tp = onnx.helper.make_tensor("x", onnx_dt[et], list(t.shape),
                                     raw.numpy().tobytes(), raw=True)
        with open(path, "wb") as f:
            f.write(tp.SerializeToString())

    def read_pb(path, et):
        tp = TensorProto()
        with open(path, "rb") as f:
            tp.ParseFromString(f.read())
        if et == "bf16":
            bits = np.frombuffer(tp.raw_data, dtype=np.uint16).astype(np.uint32) << 16
            return torch.from_numpy(bits.view(np.float32).reshape(tuple(tp.dims)).copy())
        return torch.from_numpy(numpy_helper.to_array(tp).astype(np.float32).copy())

    def torch_time(fn, reps=50):
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        ts = []
        for _ in range(reps):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); fn(); e.record(); e.synchronize()
            ts.append(s.elapsed_time(e) * 1e3)
        return sorted(ts)[len(ts) // 2]

    def replay_us(model, feeds, reps):
        """hodu-run --replay's microseconds a run of `model`, or None."""
        p = subprocess.run([hodu_run, model, "-q"] + feeds + ["--replay", str(reps)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=300)
        for line in p.stdout.decode().splitlines():
            if line.strip().startswith("replay(%d)" % reps):
                return float(line.split(":")[1].split("us/run")[0])
        return None

    def run_conv(name, d, c, rows):
        """One convolution case: checked against float64, timed against
        torch's conv2d (cuDNN) in the same precision; 1 if wrong."""
        et = c["et"]
        x = torch.randn(c["n"], c["c"], c["h"], c["w"]).to(tdt[et])
        wt = (torch.randn(c["f"], c["c"], 3, 3) / (3.0 * c["c"] ** 0.5)).to(tdt[et])
        write_pb(x, et, os.path.join(d, "a.pb"))
        write_pb(wt, et, os.path.join(d, "b.pb"))
        feeds = ["-i", "a=" + os.path.join(d, "a.pb"), "-i", "b=" + os.path.join(d, "b.pb")]
        model = os.path.join(d, "model.hodu")
        row = dict(case=name, math=c["math"], shape="%dx%dx%dx%d f%d 3x3" % (
            c["n"], c["c"], c["h"], c["w"], c["f"]), implicit=c["implicit"])
        p = subprocess.run([hodu_run, model, "-q"] + feeds + ["-o", os.path.join(d, "out"), "-f", "pb"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=300)
        if p.returncode != 0:
            row["error"] = p.stdout.decode()[-300:]
            rows.append(row)
            print("%-34s ERROR %s" % (name, row["error"]), flush=True)
            return 1
        got = read_pb(os.path.join(d, "out", "c.pb"), et).cuda().double()
        ref = torch.nn.functional.conv2d(x.cuda().double(), wt.cuda().double(), padding=1)
        err = float((got - ref).norm() / ref.norm())
        key = c["math"] if et == "f32" else et
        ok = err <= BOUNDS[key] and not torch.isnan(got).any()
        us = replay_us(model, feeds, 200)
        gx, gw = x.cuda(), wt.cuda()
        torch.backends.cudnn.allow_tf32 = c["math"] == "tf32"
        tc = torch_time(lambda: torch.nn.functional.conv2d(gx, gw, padding=1))
        torch.backends.cudnn.allow_tf32 = True
        flops = 2.0 * c["n"] * c["f"] * c["h"] * c["w"] * c["c"] * 9
        row.update(relerr=err, bound=BOUNDS[key], ok=ok, hodu_us=us, cudnn_us=tc,
                   tflops=(flops / us / 1e6) if us else None, vs_cudnn=(tc / us) if us else None)
        rows.append(row)
        extra = ("  %9.1f us %6.1f TFLOP/s  cuDNN %9.1f us  speed vs cuDNN %.2f" % (
            us, row["tflops"], tc, row["vs_cudnn"])) if us else ""
        print("%-34s %-7s relerr %.2e (bound %.0e) %s%s" % (
            name, c["math"], err, BOUNDS[key], "ok" if ok else "WRONG", extra), flush=True)
        return 0 if ok else 1

    torch.manual_seed(1)
    rows, failed = [], 0
    for name in sorted(os.listdir(stage_dir)):
        d = os.path.join(stage_dir, name)
        c = json.load(open(os.path.join(d, "case.json")))
        if c.get("conv"):
            failed += run_conv(name, d, c, rows)
            continue
        m, n, k, et, out_et, bt, batch = c["m"], c["n"], c["k"], c["et"], c["out"], c["bt"], c["batch"]
        lead = (batch,) if batch else ()
        a = torch.randn(lead + (m, k)).to(tdt[et])
        if c.get("b_const"):
            b = torch.tensor(const_b(k, n)).to(tdt[et])
            feed_b = []
        else:
            b = torch.randn(lead + ((n, k) if bt else (k, n))).to(tdt[et])
            feed_b = ["-i", "b=" + os.path.join(d, "b.pb")]
        write_pb(a, et, os.path.join(d, "a.pb"))
        write_pb(b, et, os.path.join(d, "b.pb"))
        outdir = os.path.join(d, "out")
        p = subprocess.run([hodu_run, os.path.join(d, "model.hodu"), "-q", "-i", "a=" + os.path.join(d, "a.pb")]
                           + feed_b + ["-o", outdir, "-f", "pb"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=300)
        row = dict(case=name, math=c["math"], shape="%s%dx%dx%d" % ("%dx" % batch if batch else "", m, n, k))
        if p.returncode != 0:
            row["error"] = p.stdout.decode()[-300:]
            failed += 1
            rows.append(row)
            print("%-22s ERROR %s" % (name, row["error"]), flush=True)
            continue
        got = read_pb(os.path.join(outdir, "c.pb"), out_et).cuda().double()
        bb = b.transpose(-1, -2) if bt else b
        ref = (a.cuda().double() @ bb.cuda().double())
        err = float((got - ref).norm() / ref.norm())
        key = c["math"] if et == "f32" else ("f16-f32" if out_et != et else et)
        ok = err <= BOUNDS[key] and not torch.isnan(got).any()
        failed += 0 if ok else 1
        row.update(relerr=err, bound=BOUNDS[key], ok=ok)
        if c["timed"]:
            reps = 200 if m >= 4096 else 1000
            us = replay_us(os.path.join(d, "model.hodu"),
                           ["-i", "a=" + os.path.join(d, "a.pb")] + feed_b, reps)
            ga, gb = a.cuda(), bb.cuda()
            torch.backends.cuda.matmul.allow_tf32 = c["math"] == "tf32"
            tc = torch_time(lambda: torch.matmul(ga, gb))
            torch.backends.cuda.matmul.allow_tf32 = False
            row.update(hodu_us=us, cublas_us=tc, tflops=(2.0 * m * n * k / us / 1e6) if us else None,
                       vs_cublas=(tc / us) if us else None)
        rows.append(row)
        extra = ""
        if c["timed"] and row.get("hodu_us"):
            extra = "  %9.1f us %6.1f TFLOP/s  cuBLAS %9.1f us  speed vs cuBLAS %.2f" % (
                row["hodu_us"], row["tflops"], row["cublas_us"], row["vs_cublas"])
        print("%-22s %-7s %-16s relerr %.2e (bound %.0e) %s%s" % (
            name, c["math"], row["shape"], err, BOUNDS[key], "ok" if ok else "WRONG", extra), flush=True)
    with open(os.path.join(results, "tensor-core.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("tensor-core cases: %d passed, %d failed" % (len(rows) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "mlir":
        # One matmul's linalg (M N K element type), for the lit tests.
        m, n, k = (int(v) for v in sys.argv[2:5])
        print(matmul_mlir("matmul", m, n, k, sys.argv[5]))
        sys.exit(0)
    if len(sys.argv) < 2 or sys.argv[1] not in ("stage", "run"):
        print(__doc__)
        sys.exit(2)
    sys.exit(stage(sys.argv[2:]) if sys.argv[1] == "stage" else run(sys.argv[2:]))
