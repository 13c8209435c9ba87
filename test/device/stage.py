#!/usr/bin/env python3
"""Stages what a lent GPU machine (which has the driver but no hoduc) runs:
the ONNX node tests that compile for --target (conformance.py --stage), the
real models of test/models/manifest.json with their reference data, and the
synthetic bench models, each compiled here, plus hodu-run and libhodurt.

    test/device/stage.py --bin build/bin --target cuda --gpu-arch sm_90 --out .devrun

writes OUT/<target>-conformance.tgz and OUT/<target>-models.tgz; on the
device machine, test/device/run.sh OUT TARGET runs them (docs/gpu-runs.md).
Test infrastructure only, Python 3 standard library only.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--target", default="cuda", choices=["cuda", "rocm"])
    ap.add_argument("--gpu-arch", default="sm_90")
    ap.add_argument("--out", required=True)
    ap.add_argument("--models-cache", default=os.path.join(ROOT, "build", "test", "models-cache"))
    ap.add_argument("--bench-models", default=os.path.join(ROOT, "bench", "results", "models"))
    ap.add_argument("--skip", default="isnet-quint8,mlp",
                    help="models left out (too large to carry)")
    ap.add_argument("--no-conformance", action="store_true")
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    hoduc = os.path.join(args.bin, "hoduc")
    os.makedirs(args.out, exist_ok=True)

    if not args.no_conformance:
        stage = os.path.join(args.out, args.target)
        shutil.rmtree(stage, ignore_errors=True)
        rc = subprocess.call([sys.executable, os.path.join(ROOT, "test", "conformance",
                                                           "conformance.py"),
                              "--bin", args.bin, "--target", args.target, "--stage", stage])
        if rc != 0:
            return rc
        with tarfile.open(os.path.join(args.out, args.target + "-conformance.tgz"), "w:gz") as t:
            t.add(stage, arcname=args.target)
        shutil.rmtree(stage)

    # Real models: one folder each with model.hodu, test_data_set_0 (the
    # frozen inputs left out, as run_model_test.py does) and tolerances.
    models = os.path.join(args.out, "models")
    shutil.rmtree(models, ignore_errors=True)
    os.makedirs(models)
    manifest = json.load(open(os.path.join(ROOT, "test", "models", "manifest.json")))
    flags_common = ["--device=" + args.target, "--gpu-arch=" + args.gpu_arch]
    for m in manifest["models"]:
        name = m["name"]
        onnx = os.path.join(args.models_cache, name + ".onnx")
        ref = os.path.join(ROOT, "test", "models", name, "test_data_set_0")
        if name in skip or not os.path.exists(onnx) or not os.path.isdir(ref):
            continue
        d = os.path.join(models, name)
        os.makedirs(os.path.join(d, "test_data_set_0"))
        flags = ["--input-shape=%s:%s" % (s["name"], "x".join(str(x) for x in s["shape"]))
                 for s in m["inputs"] if s["shape"] and not s.get("freeze")]
        j = 0
        for i, s in enumerate(m["inputs"]):
            src = os.path.join(ref, "input_%d.pb" % i)
            if s.get("freeze"):
                flags.append("--freeze-input=%s=%s" % (s["name"], src))
            else:
                shutil.copy(src, os.path.join(d, "test_data_set_0", "input_%d.pb" % j))
                j += 1
        for f in os.listdir(ref):
            if f.startswith("output_"):
                shutil.copy(os.path.join(ref, f), os.path.join(d, "test_data_set_0", f))
        art = os.path.join(d, "model.hodu")
        # The CPU part of a heterogeneous bundle: for any x86-64 server CPU.
        for extra in ([], ["--fallback=cpu", "--mcpu=x86-64-v3"]):
            p = subprocess.run([hoduc, onnx, "-o", art] + flags_common + flags + extra,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if p.returncode == 0:
                break
        if p.returncode != 0:
            print("stage: %s does not compile: %s" % (name, p.stdout.decode()[:300]))
            shutil.rmtree(d)
            continue
        with open(os.path.join(d, "tolerance"), "w") as f:
            f.write("%r %r %s\n" % (m.get("rtol", manifest["defaults"]["rtol"]),
                                    m.get("atol", manifest["defaults"]["atol"]),
                                    "fallback" if extra else "device-only"))
        print("stage: %s%s" % (name, " (with --fallback=cpu)" if extra else ""))

    # Synthetic bench models: the bundle and the .onnx (the device machine
    # compares with ONNX Runtime there).
    bm = os.path.join(args.bench_models, "manifest.json")
    if os.path.exists(bm):
        for m in json.load(open(bm)):
            if m["name"] in skip:
                continue
            d = os.path.join(models, "bench-" + m["name"])
            os.makedirs(d)
            src = os.path.join(args.bench_models, m["model"])
            shutil.copy(src, os.path.join(d, "model.onnx"))
            with open(os.path.join(d, "bench.json"), "w") as f:
                json.dump(m, f)
            p = subprocess.run([hoduc, src, "-o", os.path.join(d, "model.hodu")] + flags_common,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if p.returncode != 0:
                print("stage: bench %s does not compile: %s" % (m["name"], p.stdout.decode()[:300]))
                shutil.rmtree(d)
                continue
            print("stage: bench-%s" % m["name"])
    with tarfile.open(os.path.join(args.out, args.target + "-models.tgz"), "w:gz") as t:
        t.add(models, arcname="models")
    shutil.rmtree(models)
    return 0


if __name__ == "__main__":
    sys.exit(main())
