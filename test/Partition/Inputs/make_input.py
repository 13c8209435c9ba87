"""Writes a JSON input for hodu-run: f32 values in [-3, 3], fixed seed.
Usage: make_input.py OUT.json DIM..."""
import json, random, sys

dims = [int(d) for d in sys.argv[2:]]
n = 1
for d in dims:
    n *= d
random.seed(1)
json.dump({"shape": dims, "dtype": "f32",
           "data": [round(random.uniform(-3, 3), 3) for _ in range(n)]},
          open(sys.argv[1], "w"))
