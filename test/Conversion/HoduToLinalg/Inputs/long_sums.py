"""Long floating-point sums for long-sums.test: sums and means of more than
16384 elements go in blocked stages, so their error grows with log n.

  long_sums.py model OUT_DIR   writes OUT_DIR/model.mlir, OUT_DIR/ones.mlir
                               and the inputs OUT_DIR/{x,p,one}.npy
  long_sums.py check OUT_DIR/OUT [ONES_OUT]
                               compares hodu-run's json outputs with the
                               sums of the same f32 values in float64

The values repeat a pattern of 16 f32 numbers between 0.1 and 0.25, none
exact in binary, so a sum of 10^7 of them drifts by about 1e-3 (relative)
when every vector lane adds its 156,250 terms one after the other, and
stays within 1e-5 summed in blocks. No third-party modules.
"""
import array
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "Transforms", "Inputs"))
from npyio import write_npy  # noqa: E402

N = 10_000_000           # x: 10^7 values, 40 MB
PRIME = 1_000_003        # p: a length with no divisor near a block
ONES = 100_000_000       # 10^8 ones, by broadcasting one input value
PATTERN = array.array("f", [0.1 + 0.01 * k for k in range(16)])


def f32(v):
    return array.array("f", [v])[0]


def data(n):
    return PATTERN * (n // 16) + PATTERN[: n % 16]


# (name, op, input, input shape, reshaped to, dims, result shape)
CASES = [
    ("sum 1e7", "reduce_sum", "x", [N], [N], [0], []),
    ("mean 1e7", "reduce_mean", "x", [N], [N], [0], []),
    ("sum 1e7 as [2500, 4000] over dim 0", "reduce_sum", "x", [N], [2500, 4000], [0], [4000]),
    ("mean 1e7 as [1000, 10000] over dim 1", "reduce_mean", "x", [N], [1000, 10000], [1], [1000]),
    ("sum 1e7 as [10, 1000, 1000] over dims 1, 2", "reduce_sum", "x", [N], [10, 1000, 1000], [1, 2], [10]),
    ("sum 1e7 as [1000, 10, 1000] over dims 0, 2", "reduce_sum", "x", [N], [1000, 10, 1000], [0, 2], [10]),
    ("L2 norm 1e7", "reduce_norm", "x", [N], [N], [0], []),
    ("variance 1e7", "reduce_var", "x", [N], [N], [0], []),
    ("log-sum-exp 1e7", "reduce_logsumexp", "x", [N], [N], [0], []),
    ("sum of a prime length", "reduce_sum", "p", [PRIME], [PRIME], [0], []),
]


def ttype(shape):
    return "tensor<%sxf32>" % "x".join(map(str, shape)) if shape else "tensor<f32>"


def model(out):
    os.makedirs(out, exist_ok=True)
    write_npy(os.path.join(out, "x.npy"), data(N), [N])
    write_npy(os.path.join(out, "p.npy"), data(PRIME), [PRIME])
    write_npy(os.path.join(out, "one.npy"), array.array("f", [1.0]), [1])
    body, results = [], []
    for i, (_, op, src, shape, view, dims, rshape) in enumerate(CASES):
        value = "%" + src
        if view != shape:
            body.append("  %%v%d = hodu.reshape %s : (%s) -> %s"
                        % (i, value, ttype(shape), ttype(view)))
            value = "%%v%d" % i
        body.append("  %%y%d = hodu.%s %s {dims = array<i64: %s>} : (%s) -> %s"
                    % (i, op, value, ", ".join(map(str, dims)), ttype(view), ttype(rshape)))
        results.append(ttype(rshape))
    with open(os.path.join(out, "model.mlir"), "w") as f:
        f.write("func.func @main(%%x: %s, %%p: %s)\n    -> (%s) {\n"
                % (ttype([N]), ttype([PRIME]), ", ".join(results)))
        f.write("\n".join(body) + "\n")
        f.write("  return %s : %s\n}\n" % (", ".join("%%y%d" % i for i in range(len(CASES))),
                                           ", ".join(results)))
    # Long reduce_all/reduce_any (staged too: a parallel loop): x holds
    # 0.1 .. 0.25, so x > 0.05 everywhere, x > 0.15 somewhere, x > 0.3
    # nowhere.
    with open(os.path.join(out, "logic.mlir"), "w") as f:
        f.write("func.func @main(%%x: %s) -> (%s) {\n" % (ttype([N]), ", ".join(["tensor<i1>"] * 6)))
        results = []
        for k, (thr, red) in enumerate([(0.05, "all"), (0.15, "all"), (0.3, "all"),
                                        (0.05, "any"), (0.15, "any"), (0.3, "any")]):
            f.write("  %%c%d = hodu.gt_scalar %%x, %g : f32 : (%s) -> tensor<%dxi1>\n"
                    % (k, thr, ttype([N]), N))
            f.write("  %%r%d = hodu.reduce_%s %%c%d {dims = array<i64: 0>} : (tensor<%dxi1>) -> tensor<i1>\n"
                    % (k, red, k, N))
            results.append("%%r%d" % k)
        f.write("  return %s : %s\n}\n" % (", ".join(results), ", ".join(["tensor<i1>"] * 6)))
    with open(os.path.join(out, "ones.mlir"), "w") as f:
        f.write("func.func @main(%%one: tensor<1xf32>) -> tensor<f32> {\n"
                "  %%b = hodu.broadcast %%one : (tensor<1xf32>) -> %s\n"
                "  %%s = hodu.reduce_sum %%b {dims = array<i64: 0>} : (%s) -> tensor<f32>\n"
                "  return %%s : tensor<f32>\n}\n" % (ttype([ONES]), ttype([ONES])))


def expected(case):
    """The exact results in float64 (math.fsum), from the f32 values."""
    _, op, src, shape, view, dims, rshape = case
    n = N if src == "x" else PRIME
    vals = [float(v) for v in PATTERN]
    if op == "reduce_logsumexp" or op == "reduce_var" or op == "reduce_norm":
        # Whole-tensor reductions of x: n // 16 copies of the pattern.
        reps = n // 16
        if op == "reduce_norm":
            return [math.sqrt(math.fsum(v * v for v in vals) * reps)]
        if op == "reduce_var":
            mean = math.fsum(vals) / 16
            return [math.fsum((v - mean) ** 2 for v in vals) / 16]
        m = max(vals)
        return [m + math.log(math.fsum(math.exp(v - m) for v in vals) * reps)]
    # Sums and means: by output position, over the flat index set.
    strides, s = [], 1
    for d in reversed(view):
        strides.insert(0, s)
        s *= d
    kept = [d for d in range(len(view)) if d not in dims]
    count = 1
    for d in dims:
        count *= view[d]
    outs = 1
    for d in kept:
        outs *= view[d]
    results = []
    for o in range(outs):
        # The first flat index of this output, then the reduced offsets.
        base, rest = 0, o
        for d in reversed(kept):
            base += (rest % view[d]) * strides[d]
            rest //= view[d]
        # Count how often each pattern entry occurs among the reduced
        # elements: offsets are sums of multiples of reduced strides.
        hist = [0] * 16
        offs = {base % 16: 1}
        for d in dims:
            nxt = {}
            for r, c in offs.items():
                for k in range(min(view[d], 16)):
                    # view[d] values of k*stride (mod 16): occurrences of k
                    # are view[d] // 16 (+1 for the first view[d] % 16).
                    times = view[d] // 16 + (1 if k < view[d] % 16 else 0)
                    key = (r + k * strides[d]) % 16
                    nxt[key] = nxt.get(key, 0) + c * times
            offs = nxt
        for r, c in offs.items():
            hist[r] += c
        total = math.fsum(vals[r] * c for r, c in enumerate(hist))
        results.append(total / count if op == "reduce_mean" else total)
    return results


def check(out, ones_out=None):
    bad = 0
    for i, case in enumerate(CASES):
        with open(os.path.join(out, "output_%d.json" % i)) as f:
            got = json.load(f)["data"]
        want = expected(case)
        err = max(abs(g - w) / abs(w) for g, w in zip(got, want))
        if len(got) != len(want) or err > 1e-5:
            bad += 1
            print("%s: relative error %.3g, more than 1e-5 (got %r, want %r)"
                  % (case[0], err, got[:3], want[:3]))
        else:
            print("%s: within 1e-5 (%.2g)" % (case[0], err))
    if ones_out:
        with open(os.path.join(ones_out, "output_0.json")) as f:
            got = json.load(f)["data"][0]
        if got != ONES:
            bad += 1
            print("10^8 ones: %r, not exactly 1e8" % got)
        else:
            print("10^8 ones: exact")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "model":
        sys.exit(model(sys.argv[2]))
    sys.exit(check(*sys.argv[2:]))
