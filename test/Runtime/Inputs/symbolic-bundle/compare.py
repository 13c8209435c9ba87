"""Compares two hodu-run JSON outputs: the same shape, and values within
1e-5 (the CPU and a GPU round differently). Prints "same SHAPE"."""
import json
import sys

a, b = (json.load(open(path)) for path in sys.argv[1:3])
if a["shape"] != b["shape"]:
    sys.exit(f"shapes differ: {a['shape']} and {b['shape']}")
for i, (x, y) in enumerate(zip(a["data"], b["data"])):
    if abs(x - y) > 1e-5 + 1e-4 * abs(x):
        sys.exit(f"element {i}: {x} and {y}")
print("same", a["shape"])
