"""erf-accuracy.test's helper.

  erf_check.py gen DIR     writes DIR/x.json (24016 values from -6 by 0.0005)
                           and DIR/s.json (7 values: the vector tail, scalar)
  erf_check.py check DIR   reads DIR/y.json and DIR/t.json, which hodu-run
                           wrote, and prints the largest error against
                           Python's math.erf (double precision) per output
"""
import json
import math
import sys

N = 24016


def xs():
    return [-6.0 + 0.0005 * i for i in range(N)]


SPECIAL = [0.0, -0.0, 1e-30, -0.5, 3.9, 4.5, -100.0]


def main():
    mode, d = sys.argv[1], sys.argv[2]
    if mode == "gen":
        for name, vals in (("x", xs()), ("s", SPECIAL)):
            with open(f"{d}/{name}.json", "w") as f:
                json.dump({"shape": [len(vals)], "dtype": "f32", "data": vals}, f)
        return
    for name, out, vals in (("y", "y", xs()), ("t", "t", SPECIAL)):
        with open(f"{d}/{out}.json") as f:
            got = list(json.load(f)["data"])
        err = 0.0
        worst = 0.0
        for x, g in zip(vals, got):
            if abs(g) > 1.0:
                print(f"{name}: |erf({x})| = {g} > 1")
            e = abs(g - math.erf(x))
            if e > err:
                err, worst = e, x
        print(f"{name}: {len(got)} values, max abs error {'ok' if err < 3e-7 else 'TOO LARGE'}"
              f" ({err:.2e} at {worst:g})")


main()
