#!/usr/bin/env python3
"""A sequence compiled once against the model pinned to each length.

Builds the BERT-style encoder of test/Driver/Inputs/encoder/make_encoder.py
at d_model 256, 4 heads, FFN 1024, 128 positions (protoc encodes it), and
compiles it with batch B (--batch, default 1)
  - pinned at each length L (hoduc --dim=seq=L),
  - padded: seq free up to 128, the code compiled at the bound alone,
  - in buckets: seq free up to 128, compiled at 16, 32, 64 and 128,
  - with --batch > 1, also with batch free: in chunks of 1 ("both") and of
    B ("both@B"), seq padded to 128,
then times each at each length with `hodu-run --benchmark` (the median of
RUNS runs; ROUNDS rounds, alternated, the median of their medians) at
--threads 1 and 2, and prints the ratios to the pinned compile as a
Markdown table (docs/performance.md). Also prints compile times and sizes.
With --device (vulkan, cuda, rocm) it compiles bundles for that device:
pinned, padded, buckets (bundle format 1.6: the plans at 16, 32 and 64 in
the bundle beside the bound's) and (with --batch > 1) both@B.

  python3 bench/padded_symbols.py --bin build/bin [--device vulkan]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ENCODER = os.path.join(HERE, "..", "test", "Driver", "Inputs", "encoder")
BOUND = 128


def median_us(hodu_run, lib, inputs, threads, runs):
    out = subprocess.run([hodu_run, lib, "--benchmark", str(runs), "--threads",
                          str(threads), "-q"] + inputs,
                         capture_output=True, text=True, check=True).stdout
    return float(re.search(r"median ([0-9.]+) us", out).group(1))


def compile_timed(hoduc, onnx, flags, lib):
    start = time.monotonic()
    subprocess.run([hoduc, onnx] + flags + ["-o", lib], check=True)
    return time.monotonic() - start, os.path.getsize(lib)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--lengths", default="16,40,64,128")
    p.add_argument("--proto", default="/usr/include/onnx")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--device", default="")
    a = p.parse_args()
    hoduc, hodu_run = os.path.join(a.bin, "hoduc"), os.path.join(a.bin, "hodu-run")
    work = tempfile.mkdtemp(prefix="hodu-padded-bench-")
    text = subprocess.run([sys.executable, os.path.join(ENCODER, "make_encoder.py"),
                           "256", "4", "64", "1024", str(BOUND)],
                          capture_output=True, text=True, check=True).stdout
    onnx = os.path.join(work, "encoder.onnx")
    with open(onnx, "wb") as f:
        f.write(subprocess.run(["protoc", "--proto_path=" + a.proto,
                                "--encode=onnx.ModelProto", "onnx.proto"],
                               input=text.encode(), capture_output=True,
                               check=True).stdout)
    lengths = [int(n) for n in a.lengths.split(",")]
    libs, costs = {}, {}
    B = a.batch
    pin = "--dim=batch=%d" % B
    kinds = [("padded", [pin, "--dim=seq=1..%d" % BOUND]),
             ("buckets", [pin, "--dim=seq=1..%d@16,32,64" % BOUND])]
    device, ext, thread_counts = [], ".so", (1, 2)
    if a.device:
        device, ext, thread_counts = ["--device=" + a.device], ".hodu", (1,)
        kinds = [(k, f + device) for k, f in kinds]
        if B > 1:
            kinds.append(("both@%d" % B, ["--dim=batch=1..@%d" % B,
                                          "--dim=seq=1..%d" % BOUND] + device))
    elif B > 1:
        kinds += [("both", ["--dim=seq=1..%d" % BOUND]),
                  ("both@%d" % B, ["--dim=batch=1..@%d" % B,
                                   "--dim=seq=1..%d" % BOUND])]
    for kind, flags in kinds:
        libs[kind] = os.path.join(work, kind + ext)
        costs[kind] = compile_timed(hoduc, onnx, flags, libs[kind])
    for n in lengths:
        libs["pinned", n] = os.path.join(work, "pinned%d%s" % (n, ext))
        costs["pinned", n] = compile_timed(hoduc, onnx,
                                           [pin, "--dim=seq=%d" % n] + device,
                                           libs["pinned", n])
    inputs = {}
    for n in lengths:
        ids = os.path.join(work, "ids%d.json" % n)
        mask = os.path.join(work, "mask%d.json" % n)
        with open(ids, "w") as f:
            json.dump({"shape": [B, n], "dtype": "i64",
                       "data": [(i * 7) % 11 for i in range(B * n)]}, f)
        with open(mask, "w") as f:
            json.dump({"shape": [B, n], "dtype": "i64", "data": [1] * (B * n)},
                      f)
        inputs[n] = ["-i", "input_ids=" + ids, "-i", "attention_mask=" + mask]
    times = {}
    for _ in range(a.rounds):
        for n in lengths:
            for threads in thread_counts:
                for kind in [("pinned", n)] + [k for k, _ in kinds]:
                    times.setdefault((kind, n, threads), []).append(
                        median_us(hodu_run, libs[kind], inputs[n], threads, a.runs))
    names = [k for k, _ in kinds]
    print("batch %d%s" % (B, ", " + a.device if a.device else ""))
    print("| seq | threads | pinned us | " +
          " | ".join("%s us | ratio" % k for k in names) + " |")
    print("|---|---|---|" + "---|---|" * len(names))
    for n in lengths:
        for threads in thread_counts:
            base = statistics.median(times[("pinned", n), n, threads])
            row = "| %d | %d | %.0f |" % (n, threads, base)
            for k in names:
                t = statistics.median(times[k, n, threads])
                row += " %.0f | %.2f |" % (t, t / base)
            print(row)
    print()
    for kind in names:
        print("%s: compile %.1f s, %d bytes" % (kind, *costs[kind]))
    for n in lengths:
        print("pinned %d: compile %.1f s, %d bytes" % (n, *costs["pinned", n]))


if __name__ == "__main__":
    main()
