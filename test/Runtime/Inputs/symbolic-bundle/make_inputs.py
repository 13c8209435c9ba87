"""Writes DIR/xN.json, the input x f32[N,3,8,8] of the test CNN, for each
batch N given; sample i of every file is the same, so a batch's results
are per sample those of any other batch."""
import json
import sys

out = sys.argv[1]
for n in map(int, sys.argv[2:]):
    data = [((i * 37 + 11) % 101) / 50.0 - 1.0 for i in range(n * 192)]
    with open(f"{out}/x{n}.json", "w") as f:
        json.dump({"shape": [n, 3, 8, 8], "dtype": "f32", "data": data}, f)
