#!/usr/bin/env python3
"""On a machine with the device: runs the models test/device/stage.py
staged. For each real model: hodu-run --test-data against the committed
reference (the manifest's tolerances), --benchmark and --replay. For each
synthetic bench model: random inputs, the outputs compared with ONNX
Runtime's (when the onnxruntime and numpy packages are there), and the same
timings; for matmul, torch.matmul's time on the same device when PyTorch is
there.

    run_models.py MODELS_DIR BIN_DIR TARGET [--benchmark N] [--replay N]

Prints one block per model; exit status 1 when a model crashed or hung.
Test infrastructure only.
"""

import json
import os
import re
import subprocess
import sys
import time


def run(cmd, env, timeout=180):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=env, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "timed out after %ds" % timeout


def main():
    models, bin_dir, target = sys.argv[1:4]
    nbench = int(sys.argv[sys.argv.index("--benchmark") + 1]) if "--benchmark" in sys.argv else 200
    nreplay = int(sys.argv[sys.argv.index("--replay") + 1]) if "--replay" in sys.argv else 1000
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = bin_dir + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    hodu_run = os.path.join(bin_dir, "hodu-run")
    device = "--device=" + target
    hard = False
    try:
        import numpy as np
    except ImportError:
        np = None
    for name in sorted(os.listdir(models)):
        try:
            hard |= run_model(os.path.join(models, name), name, hodu_run, device, env,
                              np, nbench, nreplay)
        except Exception:  # noqa: BLE001 (a report: the next model still runs)
            import traceback
            traceback.print_exc()
    return 1 if hard else 0


def run_model(d, name, hodu_run, device, env, np, nbench, nreplay):
    """Runs one staged model; True when a tool crashed or hung."""
    hard = False
    art = os.path.join(d, "model.hodu")
    print("== %s" % name, flush=True)
    if name.startswith("bench-"):
        if np is None:
            print("numpy missing: skipped")
            return hard
        spec = json.load(open(os.path.join(d, "bench.json")))
        rng = np.random.default_rng(1)
        feeds, inputs = {}, []
        for inp in spec["inputs"]:
            a = rng.uniform(-1, 1, inp["shape"]).astype(np.float32)
            f = os.path.join(d, inp["name"] + ".npy")
            np.save(f, a)
            feeds[inp["name"]] = a
            inputs += ["-i", "%s=%s" % (inp["name"], f)]
        out_dir = os.path.join(d, "out")
        rc, out = run([hodu_run, art, device, "-q", "-o", out_dir] + inputs, env)
        if rc is None or rc < 0:
            hard = True
        if rc != 0:
            print("RUN FAILED (%s): %s" % (rc, out.strip()[-400:]))
            return hard
        try:
            import onnxruntime as ort
            sess = ort.InferenceSession(os.path.join(d, "model.onnx"),
                                        providers=["CPUExecutionProvider"])
            ref = sess.run(None, feeds)
            worst = 0.0
            ok = True
            for o, r in zip(spec["outputs"], ref):
                got = np.load(os.path.join(out_dir, o["name"] + ".npy"))
                err = np.abs(got.astype(np.float64) - r)
                worst = max(worst, float(err.max()))
                ok &= bool(np.all(err <= 1e-4 + 1e-3 * np.abs(r)))
            print("%s vs ONNX Runtime %s (CPU): max abs error %.3g"
                  % ("MATCH" if ok else "MISMATCH", ort.__version__, worst))
            t = []
            for _ in range(3):
                sess.run(None, feeds)
            for _ in range(20):
                s = time.perf_counter()
                sess.run(None, feeds)
                t.append(time.perf_counter() - s)
            print("onnxruntime CPU (%d threads): median %.1f us"
                  % (os.cpu_count(), sorted(t)[len(t) // 2] * 1e6))
        except ImportError:
            print("onnxruntime missing: outputs not compared")
        if spec["name"] == "matmul":
            try:
                import torch
                torch.backends.cuda.matmul.allow_tf32 = False
                a = torch.from_numpy(feeds["A"]).cuda()
                b = torch.from_numpy(feeds["B"]).cuda()
                for _ in range(10):
                    torch.matmul(a, b)
                torch.cuda.synchronize()
                e0, e1 = torch.cuda.Event(True), torch.cuda.Event(True)
                e0.record()
                for _ in range(100):
                    torch.matmul(a, b)
                e1.record()
                torch.cuda.synchronize()
                us = e0.elapsed_time(e1) * 10.0
                print("torch.matmul fp32 (no TF32) on the device: %.1f us/run, %.1f TFLOP/s"
                      % (us, spec["flops"] / us / 1e6))
            except Exception as e:  # noqa: BLE001 (a report, not a test)
                print("torch: %s" % e)
    else:
        rtol, atol, kind = open(os.path.join(d, "tolerance")).read().split()
        print("bundle: %s" % kind)
        data = os.path.join(d, "test_data_set_0")
        if kind == "cpu-only":
            rc, out = 1, "(no bundle staged)"
        else:
            rc, out = run([hodu_run, art, device, "--test-data", data, "--rtol", rtol,
                           "--atol", atol], env)
        if rc is None or rc < 0:
            hard = True
        print(out.strip()[-600:])
        inputs = input_args(data)
        if os.path.exists(os.path.join(d, "cpu.so")):
            hard |= run_cpu(d, data, inputs, rtol, atol, hodu_run, env, np)
        if os.path.exists(os.path.join(d, "model-sym.hodu")):
            hard |= run_symbolic(d, data, rtol, atol, hodu_run, device, env)
        if os.path.exists(os.path.join(d, "model-len.hodu")):
            hard |= run_symbolic(d, data, rtol, atol, hodu_run, device, env,
                                 "model-len.hodu", "symbolic_length", "lengths.txt",
                                 "length")
        if os.path.exists(os.path.join(d, "model-shape.hodu")):
            hard |= run_symbolic(d, data, rtol, atol, hodu_run, device, env,
                                 "model-shape.hodu", "symbolic_shape", "shapes.txt",
                                 "shape")
        if os.path.exists(os.path.join(d, "model-f16.hodu")):
            hard |= run_f16(d, data, inputs, hodu_run, device, env, nbench)
        if rc != 0:
            return hard
    rc, out = run([hodu_run, art, device, "-q", "--benchmark", str(nbench)] + inputs, env)
    if rc is None or rc < 0:
        hard = True
    print(out.strip()[-400:])
    rc, out = run([hodu_run, art, device, "-q", "--replay", str(nreplay)] + inputs, env)
    if rc is None or rc < 0:
        hard = True
    print(out.strip()[-800:], flush=True)
    return hard


def run_f16(d, data, inputs, hodu_run, device, env, nbench):
    """The bundle compiled with --precision=f16: against the f32 references
    within the manifest's f16 tolerance, then timed like the f32 one. True
    when a tool crashed or hung."""
    art = os.path.join(d, "model-f16.hodu")
    rtol, atol = open(os.path.join(d, "tolerance-f16")).read().split()
    rc, out = run([hodu_run, art, device, "--test-data", data, "--rtol", rtol,
                   "--atol", atol], env)
    hard = rc is None or rc < 0
    print("f16: " + out.strip()[-400:])
    if rc != 0:
        return hard
    rc, out = run([hodu_run, art, device, "-q", "--benchmark", str(nbench)] + inputs, env)
    print("f16: " + out.strip()[-300:], flush=True)
    return hard or rc is None or rc < 0


def input_args(data):
    """hodu-run's -i options for the input_<i>.pb files of a data set."""
    n = len([f for f in os.listdir(data) if f.startswith("input_")])
    return sum((["-i", os.path.join(data, "input_%d.pb" % i)] for i in range(n)), [])


def run_symbolic(d, data, rtol, atol, hodu_run, device, env, art="model-sym.hodu",
                 sub="symbolic", sizes="batches.txt", what="batch"):
    """The bundle compiled once with a symbolic batch (stage.py's
    stage_symbolic), run at batch 1 and at each staged batch against the
    references, then timed at the largest; or (`what` length) with a
    symbolic length padded to its bound (stage_symbolic_length), at the
    model's length and each staged one. True when a tool crashed or hung."""
    sym = os.path.join(d, art)
    batches = open(os.path.join(d, sub, sizes)).read().split()
    sets = [(data, "1" if what == "batch" else "the model's")] + [
        (os.path.join(d, sub, "test_data_set_%d" % k), b) for k, b in enumerate(batches)]
    hard = False
    for s, batch in sets:
        rc, out = run([hodu_run, sym, device, "--test-data", s, "--rtol", rtol,
                       "--atol", atol], env)
        hard |= rc is None or rc < 0
        print("symbolic %s, one bundle, run at %s %s: %s" % (
            what, what, batch,
            "PASS" if rc == 0 else "FAILED (%s): %s" % (rc, out.strip()[-400:])))
    s, batch = sets[-1]
    rc, out = run([hodu_run, sym, device, "-q", "--benchmark", "100"] + input_args(s),
                  env)
    hard |= rc is None or rc < 0
    print("symbolic %s %s: %s" % (what, batch, out.strip()[-300:]))
    return hard


def run_cpu(d, data, inputs, rtol, atol, hodu_run, env, np):
    """The model's CPU library on this machine's CPU: against the reference,
    then hodu-run and ONNX Runtime (its Python package) at 1, 2, 4, 8 and
    every thread, interleaved. True when a tool crashed or hung."""
    lib = os.path.join(d, "cpu.so")
    rc, out = run([hodu_run, lib, "--test-data", data, "--rtol", rtol, "--atol", atol], env)
    print("cpu: " + out.strip()[-300:])
    if rc != 0:
        return rc is None or rc < 0
    try:
        import onnx.numpy_helper as nh
        import onnx
        import onnxruntime as ort
    except ImportError:
        print("cpu: onnxruntime or onnx missing: no comparison")
        return False
    feeds = {name: nh.to_array(onnx.load_tensor(os.path.join(d, f)))
             for name, f in json.load(open(os.path.join(d, "inputs.json")))}
    for threads in sorted({1, 2, 4, 8, os.cpu_count()}):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        sess = ort.InferenceSession(os.path.join(d, "model.onnx"), opts,
                                    providers=["CPUExecutionProvider"])
        hodu, team, onnxrt = [], [], []
        # The team always (HODU_THREAD_ADAPT=0) beside libhodurt's choice.
        team_env = dict(env, HODU_THREAD_ADAPT="0")
        for _ in range(3):
            # Warm-up past libhodurt's first 7 runs, which try the team and
            # the calling thread alone (docs/runtime.md, Threads).
            for times, e in ((hodu, env), (team, team_env)):
                rc, out = run([hodu_run, lib, "-q", "--warmup", "10", "--benchmark", "30",
                               "--threads", str(threads)] + inputs, e)
                m = re.search(r"median ([\d.]+) us", out)
                if m:
                    times.append(float(m.group(1)))
            for _ in range(3):
                sess.run(None, feeds)
            t = []
            for _ in range(30):
                s = time.perf_counter()
                sess.run(None, feeds)
                t.append(time.perf_counter() - s)
            onnxrt.append(sorted(t)[len(t) // 2] * 1e6)
        if hodu and team:
            med = lambda v: sorted(v)[len(v) // 2]  # noqa: E731
            h, w, o = med(hodu), med(team), med(onnxrt)
            print("cpu %2d thread(s): hodu %.1f us (team always %.1f us), onnxruntime "
                  "%.1f us, ratio %.2fx" % (threads, h, w, o, h / o))
    return False


if __name__ == "__main__":
    sys.exit(main())
