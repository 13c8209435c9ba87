"""Long running sums for cumsum-blocked.test: hodu.cumsum over more than
64 positions goes by blocks of 16 (each block's own running sum plus the
running sum of the blocks before it, recursively).

  cumsum_cases.py model OUT_DIR   writes OUT_DIR/model.mlir and the inputs
                                  OUT_DIR/in_N.json
  cumsum_cases.py check OUT_DIR   compares hodu-run's OUT_DIR/out/*.json
                                  with the sums computed here (exactly:
                                  integers, and floats holding whole numbers)

Values come from a fixed linear congruential sequence (no third-party
modules).
"""
import json
import os
import sys

# (shape, dtype, dim, exclusive, reverse)
CASES = [
    ([3, 1000], "i32", 1, False, False),
    ([3, 1000], "i32", 1, True, False),
    ([3, 1000], "i32", 1, False, True),
    ([3, 1000], "i32", 1, True, True),
    ([700, 2], "f32", 0, False, False),   # not the last dim
    ([700, 2], "f32", 0, True, True),
    ([5000], "i64", 0, False, False),     # 313 blocks: the blocks' sums by blocks too
    ([5000], "i64", 0, True, True),
    ([16, 3], "f32", 0, False, True),     # short: the direct sum
]


def values(count, seed):
    out, s = [], seed
    for _ in range(count):
        s = (s * 1103515245 + 12345) % (1 << 31)
        out.append((s >> 8) % 101 - 50)
    return out


def product(shape):
    p = 1
    for d in shape:
        p *= d
    return p


def expected(shape, vals, dim, exclusive, reverse):
    outer = product(shape[:dim])
    n = shape[dim]
    inner = product(shape[dim + 1:])
    out = [0] * len(vals)
    for o in range(outer):
        for i in range(inner):
            run = 0
            order = range(n - 1, -1, -1) if reverse else range(n)
            for k in order:
                idx = (o * n + k) * inner + i
                if exclusive:
                    out[idx] = run
                    run += vals[idx]
                else:
                    run += vals[idx]
                    out[idx] = run
    return out


def ttype(shape, dtype):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), dtype)


def model(out):
    os.makedirs(out, exist_ok=True)
    args, results, body = [], [], []
    for i, (shape, dtype, dim, exclusive, reverse) in enumerate(CASES):
        t = ttype(shape, dtype)
        args.append("%%x%d: %s" % (i, t))
        results.append(t)
        flags = "".join([", exclusive" if exclusive else "", ", reverse" if reverse else ""])
        body.append("  %%y%d = hodu.cumsum %%x%d {dim = %d : i64%s} : (%s) -> %s"
                    % (i, i, dim, flags, t, t))
        with open(os.path.join(out, "in_%d.json" % i), "w") as f:
            json.dump({"shape": shape, "dtype": dtype,
                       "data": values(product(shape), 7 + i)}, f)
    with open(os.path.join(out, "model.mlir"), "w") as f:
        f.write("func.func @main(%s)\n    -> (%s) {\n" % (", ".join(args), ", ".join(results)))
        f.write("\n".join(body) + "\n")
        f.write("  return %s : %s\n}\n" % (", ".join("%%y%d" % i for i in range(len(CASES))),
                                           ", ".join(results)))


def check(out):
    bad = 0
    for i, (shape, dtype, dim, exclusive, reverse) in enumerate(CASES):
        with open(os.path.join(out, "out", "output_%d.json" % i)) as f:
            got = json.load(f)
        want = expected(shape, values(product(shape), 7 + i), dim, exclusive, reverse)
        wrong = sum(1 for g, w in zip(got["data"], want) if g != w)
        if got["shape"] != shape or wrong:
            bad += 1
            print("output_%d: %d of %d values differ" % (i, wrong, len(want)))
        else:
            print("output_%d: %s %s dim %d%s%s: %d values match"
                  % (i, dtype, shape, dim, " exclusive" if exclusive else "",
                     " reverse" if reverse else "", len(want)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(model(sys.argv[2]) if sys.argv[1] == "model" else check(sys.argv[2]))
