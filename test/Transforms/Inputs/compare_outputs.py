"""Compares the .json outputs hodu-run wrote to two directories.

Usage: compare_outputs.py DIR_A DIR_B RTOL ATOL
Prints one line per output and exits 1 if any element differs by more than
atol + rtol * |a|, or if the outputs' names, shapes or dtypes differ.
"""
import json
import os
import sys


def flat(v):
    if isinstance(v, list):
        for x in v:
            yield from flat(x)
    else:
        yield v


def main():
    a_dir, b_dir, rtol, atol = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    names = sorted(os.listdir(a_dir))
    if names != sorted(os.listdir(b_dir)):
        print("different outputs:", names, sorted(os.listdir(b_dir)))
        return 1
    bad = 0
    for name in names:
        with open(os.path.join(a_dir, name)) as f:
            a = json.load(f)
        with open(os.path.join(b_dir, name)) as f:
            b = json.load(f)
        if a["shape"] != b["shape"] or a["dtype"] != b["dtype"]:
            print(f"{name}: shape/dtype differ")
            bad += 1
            continue
        xs, ys = list(flat(a["data"])), list(flat(b["data"]))
        worst = max((abs(x - y) for x, y in zip(xs, ys)), default=0.0)
        ok = len(xs) == len(ys) and all(
            abs(x - y) <= atol + rtol * abs(x) for x, y in zip(xs, ys))
        nonzero = sum(1 for x in xs if x != 0)
        print(f"{name}: {len(xs)} elements, {nonzero} nonzero, max abs diff {worst:.3g}: {'ok' if ok else 'MISMATCH'}")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
