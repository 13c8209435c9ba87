"""whole-reductions.test's helper.

  whole_reductions.py gen DIR [nan]  writes DIR/x.json, y.json, k.json:
                                     pseudo-random values with the extremes
                                     at known places (with nan: x holds a
                                     NaN and y too)
  whole_reductions.py check DIR OUT [nan]
                                     compares what hodu-run wrote to OUT
                                     with the reductions computed here
"""
import json
import math
import sys

SHAPES = {"x": [1, 64, 32, 64], "y": [3, 96, 512], "k": [2, 64, 1024]}


def values(name, nan):
    n = math.prod(SHAPES[name])
    v = 12345 + len(name)
    out = []
    for _ in range(n):
        v = (v * 1103515245 + 12345) % 2**31
        out.append(v / 2**31 * 2 - 1)
    if name == "k":
        out = [int(a * 1000) for a in out]
        out[n - 3] = 7777  # the max near the end
        return out
    # Extremes far from the first and last elements and exact in f32.
    out[n // 3 + 17] = 3.5
    out[2 * n // 3 + 5] = -7.25
    if nan:
        out[n // 2 + 1] = float("nan")
    return out


def main():
    mode, d = sys.argv[1], sys.argv[2]
    nan = sys.argv[-1] == "nan"
    if mode == "gen":
        for name, shape in SHAPES.items():
            dtype = "i32" if name == "k" else "f32"
            with open(f"{d}/{name}.json", "w") as f:
                json.dump({"shape": shape, "dtype": dtype, "data": values(name, nan)}, f)
        return
    out = sys.argv[3]
    x, y, k = values("x", nan), values("y", nan), values("k", nan)
    want = {
        "max_x": max(x), "min_x": min(x), "sum_x": math.fsum(x),
        "mean_y": math.fsum(y) / len(y), "max_y": max(y), "max_k": max(k),
    }
    if nan:
        for name in ("max_x", "min_x", "sum_x", "mean_y", "max_y"):
            want[name] = float("nan")
    scale = {"sum_x": sum(abs(a) for a in x), "mean_y": sum(abs(a) for a in y) / len(y)}
    for name, w in want.items():
        with open(f"{out}/{name}.json") as f:
            got = json.load(f)["data"]
        got = got[0] if isinstance(got, list) else got
        got = float("nan") if got in ("nan", "NaN", None) else float(got)
        if math.isnan(w):
            ok = math.isnan(got)
        else:
            ok = abs(got - w) <= 1e-6 * scale.get(name, abs(w))
        print(f"{name}: {'ok' if ok else 'WRONG'} ({got!r}, want {w!r})")


main()
