"""Finite-difference check of hodu-autodiff's gradient rules (f64).

  autodiff_fd.py BIN_DIR OUT_DIR MODEL.mlir...

For each model (a function of f64 arguments returning a scalar loss first):
hodu-opt --hodu-autodiff makes the gradient model, hoduc compiles both for
the CPU, hodu-run runs the gradient model once and the forward model at
x + h and x - h for every element of every argument (central differences,
h = 1e-6). Prints one line per model: the largest relative difference, and
"gradients match" when every element is within 1e-6 (relative to the
largest of |numeric|, |analytic| and 1e-3). Inputs are a fixed
pseudo-random sequence, at least 0.2 away from zero. No third-party modules.
"""
import json
import os
import re
import subprocess
import sys

from npyio import write_npy


def shapes_of(mlir):
    sig = re.search(r"func\.func @main\((.*?)\)\s*->", mlir, re.S).group(1)
    out = []
    for m in re.finditer(r"%(\w+): tensor<([0-9x]*)f64>", sig):
        dims = [int(d) for d in m.group(2).split("x") if d]
        out.append((m.group(1), dims))
    return out


def values(n, seed):
    out, s = [], seed
    for _ in range(n):
        s = (s * 1103515245 + 12345) % (1 << 31)
        v = ((s >> 8) % 2001 - 1000) / 1000.0  # [-1, 1]
        out.append(v + (0.2 if v >= 0 else -0.2))
    return out


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def run(bin_dir, so, inputs, out):
    args = [os.path.join(bin_dir, "hodu-run"), so, "-q", "-f", "json", "-o", out]
    for p in inputs:
        args += ["-i", p]
    subprocess.run(args, check=True)
    results = []
    k = 0
    while os.path.exists(os.path.join(out, "output_%d.json" % k)):
        with open(os.path.join(out, "output_%d.json" % k)) as f:
            results.append(json.load(f)["data"])
        k += 1
    return results


def check(bin_dir, work, model):
    name = os.path.splitext(os.path.basename(model))[0]
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    with open(model) as f:
        text = f.read()
    args = shapes_of(text)
    grad_mlir = os.path.join(d, "grad.mlir")
    subprocess.run([os.path.join(bin_dir, "hodu-opt"), model, "--hodu-autodiff",
                    "-o", grad_mlir], check=True)
    for src, so in ((model, "fwd.so"), (grad_mlir, "grad.so")):
        subprocess.run([os.path.join(bin_dir, "hoduc"), src, "-o",
                        os.path.join(d, so)], check=True)
    data = [values(count(s), 17 + 7 * i) for i, (_, s) in enumerate(args)]

    def inputs(tag, vals):
        paths = []
        for i, ((_, s), v) in enumerate(zip(args, vals)):
            p = os.path.join(d, "%s_%d.npy" % (tag, i))
            write_npy(p, v, s, "<f8")
            paths.append(p)
        return paths

    got = run(bin_dir, os.path.join(d, "grad.so"), inputs("x", data),
              os.path.join(d, "grad_out"))
    worst, h = 0.0, 1e-6
    for i, (_, s) in enumerate(args):
        for j in range(count(s)):
            losses = []
            for sign in (1, -1):
                moved = [list(v) for v in data]
                moved[i][j] += sign * h
                losses.append(run(bin_dir, os.path.join(d, "fwd.so"),
                                  inputs("p", moved), os.path.join(d, "fwd_out"))[0][0])
            numeric = (losses[0] - losses[1]) / (2 * h)
            analytic = got[1 + i][j]
            diff = abs(numeric - analytic) / max(abs(numeric), abs(analytic), 1e-3)
            worst = max(worst, diff)
    ok = worst <= 1e-6
    print("%s: %d arguments, largest relative difference %.1e: %s"
          % (name, len(args), worst, "gradients match" if ok else "GRADIENTS DIFFER"))
    return ok


if __name__ == "__main__":
    bin_dir, work = sys.argv[1], sys.argv[2]
    results = [check(bin_dir, work, m) for m in sys.argv[3:]]
    sys.exit(0 if all(results) else 1)
