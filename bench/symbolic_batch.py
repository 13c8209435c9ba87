#!/usr/bin/env python3
"""Symbolic batch against pinned batch: the price of compiling a model once.

For each real model of test/models whose manifest entry has "symbolic", and
each batch B given, times with `hodu-run --benchmark` (the median of RUNS
runs, rounds alternated) the model compiled
  - pinned at B (hoduc --input-shape with B in the batch dims),
  - with its batch symbolic, chunk 1 (hoduc's default), run at B,
  - with its batch symbolic and chunk B (--dim=SYM=1..@B), run at B,
on the same inputs (symbolic/test_data_set_k of make_refs.mjs, or
test_data_set_0 for B = 1), at --threads 1 and 2, and prints the ratios to
the pinned compile as a Markdown table (docs/performance.md).

  python3 bench/symbolic_batch.py --bin build/bin --cache build/test/models-cache

With --bench-models DIR (the models `hodu-gen-bench-models --symbolic-batch DIR`
writes; bench/run.sh builds it in bench/results/build), it times the synthetic
bench models instead, dim 0 of each one's first input the symbol N (its batch,
or a matmul's M), run at the bench's size B: pinned (--dim=N=B), chunk 1 and
chunk B.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "test", "models")


def median_us(hodu_run, lib, inputs, threads, runs):
    out = subprocess.run([hodu_run, lib, "--benchmark", str(runs), "--threads",
                          str(threads), "-q"] + inputs,
                         capture_output=True, text=True, check=True).stdout
    return float(re.search(r"median ([0-9.]+) us", out).group(1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--cache", required=True)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--batches", default="1,3")
    p.add_argument("models", nargs="*")
    p.add_argument("--bench-models", default="")
    p.add_argument("--no-chunk1", action="store_true",
                   help="leave chunk 1 out (B passes of one unit: slow for a "
                        "batch of 64)")
    a = p.parse_args()
    hoduc, hodu_run = os.path.join(a.bin, "hoduc"), os.path.join(a.bin, "hodu-run")
    work = tempfile.mkdtemp(prefix="hodu-symbolic-bench-")
    print("| model | batch | threads | pinned | symbolic, chunk 1 | ratio | "
          "symbolic, chunk B | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    if a.bench_models:
        return bench_models(a, hoduc, hodu_run, work)
    manifest = json.load(open(os.path.join(MODELS, "manifest.json")))
    for m in manifest["models"]:
        if "symbolic" not in m or (a.models and m["name"] not in a.models):
            continue
        sym = m["symbolic"]
        onnx = os.path.join(a.cache, m["name"] + ".onnx")
        frozen = [i for i, s in enumerate(m["inputs"]) if s.get("freeze")]
        for batch in [int(b) for b in a.batches.split(",")]:
            k = None if batch == 1 else sym["batches"].index(batch)
            data = os.path.join(MODELS, m["name"], "test_data_set_0" if k is None
                                else os.path.join("symbolic", "test_data_set_%d" % k))
            inputs, flags_pin, flags_sym = [], [], list(sym.get("flags", []))
            for i, s in enumerate(m["inputs"]):
                pb = os.path.join(data, "input_%d.pb" % i)
                if i in frozen:
                    flag = "--freeze-input=%s=%s" % (s["name"], pb)
                    flags_pin.append(flag)
                    flags_sym.append(flag)
                    continue
                inputs += ["-i", "%s=%s" % (s["name"], pb)]
                if not s["shape"]:
                    continue
                pin, var = [str(d) for d in s["shape"]], [str(d) for d in s["shape"]]
                if s["name"] in sym["batch_dims"]:
                    pin[sym["batch_dims"][s["name"]]] = str(batch)
                    var[sym["batch_dims"][s["name"]]] = "?"
                flags_pin.append("--input-shape=%s:%s" % (s["name"], "x".join(pin)))
                flags_sym.append("--input-shape=%s:%s" % (s["name"], "x".join(var)))
            libs = {}
            for kind, flags in (("pinned", flags_pin), ("chunk1", flags_sym)):
                libs[kind] = os.path.join(work, "%s.%s.%d.so" % (m["name"], kind, batch))
                subprocess.run([hoduc, onnx, "-o", libs[kind]] + flags, check=True)
            # chunk B: the symbol's name from the chunk-1 artifact's --info.
            info = subprocess.run([hodu_run, libs["chunk1"], "--info"], capture_output=True,
                                  text=True, check=True).stdout
            name = re.search(r"^symbols:\n  (\S+):", info, re.M).group(1)
            libs["chunkB"] = os.path.join(work, "%s.chunkB.%d.so" % (m["name"], batch))
            subprocess.run([hoduc, onnx, "-o", libs["chunkB"], "--dim=%s=1..@%d" % (name, batch)]
                           + flags_sym, check=True)
            time_rows(a, hodu_run, m["name"], batch, libs, inputs)


def time_rows(a, hodu_run, name, batch, libs, inputs):
    """One table row per thread count: the best of the rounds' medians."""
    for threads in (1, 2):
        best = {kind: float("inf") for kind in libs}
        for _ in range(a.rounds):
            for kind, lib in libs.items():
                best[kind] = min(best[kind], median_us(hodu_run, lib, inputs,
                                                       threads, a.runs))
        one = ("%.0f us | %.3f" % (best["chunk1"], best["chunk1"] / best["pinned"])
               if "chunk1" in libs else "- | -")
        print("| %s | %d | %d | %.0f us | %s | %.0f us | %.3f |" % (
            name, batch, threads, best["pinned"], one, best["chunkB"],
            best["chunkB"] / best["pinned"]))
        sys.stdout.flush()


def bench_models(a, hoduc, hodu_run, work):
    """The synthetic bench models, dim 0 of the first input symbolic."""
    manifest = json.load(open(os.path.join(a.bench_models, "manifest.json")))
    for m in manifest:
        if a.models and m["name"] not in a.models:
            continue
        onnx = os.path.join(a.bench_models, m["model"])
        first = m["inputs"][0]
        batch = first["shape"][0]
        inputs = []
        for t in m["inputs"]:
            inputs += ["-i", "%s=%s" % (t["name"], os.path.join(a.bench_models, t["file"]))]
        libs = {}
        kinds = [("pinned", ["--dim=N=%d" % batch]), ("chunk1", []),
                 ("chunkB", ["--dim=N=1..@%d" % batch])]
        for kind, flags in [k for k in kinds
                            if not (a.no_chunk1 and k[0] == "chunk1")]:
            libs[kind] = os.path.join(work, "%s.%s.so" % (m["name"], kind))
            done = subprocess.run([hoduc, onnx, "-o", libs[kind]] + flags,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                lines = done.stderr.strip().splitlines()
                errors = [l for l in lines if "error:" in l] or lines[-1:]
                print("| %s | %d | - | %s: %s |" % (m["name"], batch, kind,
                                                    errors[0]))
                break
        else:
            time_rows(a, hodu_run, m["name"], batch, libs, inputs)


if __name__ == "__main__":
    main()
