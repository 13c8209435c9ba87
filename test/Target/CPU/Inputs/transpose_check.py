"""transpose-tiles.test's helper.

  transpose_check.py gen FILE    writes x: f32[1, 128, 256], x[i] = i
  transpose_check.py check FILE  reads y (hodu-run's JSON output) and checks
                                 y[0, h, d, s] == x[0, s, h * 64 + d], the
                                 reshape to [1, 128, 4, 64] and the
                                 transpose (0, 2, 3, 1) of K in attention
"""
import json
import sys

mode, path = sys.argv[1], sys.argv[2]
if mode == "gen":
    with open(path, "w") as f:
        json.dump({"shape": [1, 128, 256], "dtype": "f32",
                   "data": list(range(128 * 256))}, f)
    sys.exit(0)


with open(path) as f:
    out = json.load(f)
y = out["data"]  # hodu-run writes the elements flat
assert out["shape"] == [1, 4, 64, 128], out["shape"]
bad = 0
for h in range(4):
    for d in range(64):
        for s in range(128):
            if y[(h * 64 + d) * 128 + s] != s * 256 + h * 64 + d:
                bad += 1
print(f"y: {len(y)} values, {bad} wrong")
