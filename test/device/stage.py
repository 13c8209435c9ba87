#!/usr/bin/env python3
"""Stages what a lent GPU machine (which has the driver but no hoduc) runs:
the ONNX node tests that compile for --target (conformance.py --stage), the
real models of test/models/manifest.json with their reference data, and the
synthetic bench models, each compiled here, plus hodu-run and libhodurt.

    test/device/stage.py --bin build/bin --target cuda --gpu-arch sm_90 --out .devrun

writes <target>-conformance.tgz, -models-NAME.tgz (one per model), -train.tgz,
cuda-tc.tgz and -tools.tgz, shared out over OUT/part-1, part-2, ... so that each
part is at most --max-mib, what one device call carries; on the device machine,
test/device/run.sh OUT/part-N TARGET runs one part (docs/device-runs.md).
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
    ap.add_argument("--skip", default="isnet-quint8,mlp,qmlp",
                    help="models left out (too large to carry)")
    ap.add_argument("--no-conformance", action="store_true")
    ap.add_argument("--no-bench", action="store_true", help="leave the bench models out")
    ap.add_argument("--gpu-math", default="3xtf32",
                    help="cuda: the models' and bench models' --gpu-math (default 3xtf32)")
    ap.add_argument("--no-tensor-core", action="store_true",
                    help="leave out the tensor-core matmuls (tensor_core.py; cuda only)")
    ap.add_argument("--no-train", action="store_true",
                    help="leave out the train steps (hoduc --train; docs/training.md)")
    ap.add_argument("--models", help="only these real models (comma-separated)")
    ap.add_argument("--no-real-models", action="store_true",
                    help="leave the real models out (the bench models stay, unless "
                         "--no-bench)")
    ap.add_argument("--symbolic", default="auto",
                    help="the real models also staged with a symbolic batch, length "
                         "or shape (the manifest's \"symbolic\", \"symbolic_length\" "
                         "and \"symbolic_shape\" ones that compile for the device "
                         "alone): comma-separated names, 'all', 'none', or 'auto' "
                         "(default): those whose pinned bundle is at most "
                         "--symbolic-mib, so that the staged files fit the device "
                         "tool's 64 MiB")
    ap.add_argument("--symbolic-mib", type=float, default=4.0,
                    help="with --symbolic=auto: the largest pinned bundle (MiB) whose "
                         "model is also staged with its symbolic dims (default 4)")
    ap.add_argument("--max-mib", type=float, default=48.0,
                    help="the most MiB of archives in one part (OUT/part-N), each "
                         "run by one device call (default 48: the device tool "
                         "carries 64 MiB with the repository's 15 MB); 0: one part")
    ap.add_argument("--cpu", metavar="MCPU",
                    help="also compile real models for the CPU with -mcpu=MCPU "
                         "(cpu.so, with its .onnx for ONNX Runtime there)")
    ap.add_argument("--cpu-models", help="with --cpu: the real models compiled for "
                                         "the CPU (default: those staged for the device)")
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    only = (set() if args.no_real_models
            else set(args.models.split(",")) if args.models else None)
    cpu_models = set(args.cpu_models.split(",")) if args.cpu_models else None
    hoduc = os.path.join(args.bin, "hoduc")
    os.makedirs(args.out, exist_ok=True)
    # OUT holds this run's stage only: a part or archive of an earlier run
    # would be carried and run as if staged now.
    for n in os.listdir(args.out):
        if n.startswith("part-") or staged_archive(args, n):
            path = os.path.join(args.out, n)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)

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

    # Tensor-core matmuls of every kind and layout, checked against float64
    # and timed against cuBLAS there (tensor_core.py).
    if args.target == "cuda" and not args.no_tensor_core:
        tc = os.path.join(args.out, "tc")
        shutil.rmtree(tc, ignore_errors=True)
        rc = subprocess.call([sys.executable, os.path.join(HERE, "tensor_core.py"), "stage",
                              "--bin", args.bin, "--out", tc, "--gpu-arch", args.gpu_arch])
        if rc != 0:
            return rc
        with tarfile.open(os.path.join(args.out, "cuda-tc.tgz"), "w:gz") as t:
            t.add(tc, arcname="tc")
        shutil.rmtree(tc)

    # Train steps: the sample MLP and CNN compiled by hoduc --train for the
    # device, with the programs that check AICF's contracts on them and
    # train them (test/training, python-free-samples/c-train).
    if not args.no_train:
        rc = stage_train(args, hoduc)
        if rc != 0:
            return rc

    # Real models: one folder each with model.hodu, test_data_set_0 (the
    # frozen inputs left out, as run_model_test.py does) and tolerances.
    models = os.path.join(args.out, "models")
    shutil.rmtree(models, ignore_errors=True)
    os.makedirs(models)
    manifest = json.load(open(os.path.join(ROOT, "test", "models", "manifest.json")))
    flags_common = ["--device=" + args.target, "--gpu-arch=" + args.gpu_arch]
    if args.target == "cuda":
        # The tensor-core kernels, which only a GPU run can check.
        flags_common.append("--gpu-math=" + args.gpu_math)
    for m in manifest["models"]:
        name = m["name"]
        onnx = os.path.join(args.models_cache, name + ".onnx")
        ref = os.path.join(ROOT, "test", "models", name, "test_data_set_0")
        on_device = only is None or name in only
        on_cpu = bool(args.cpu) and (name in cpu_models if cpu_models else on_device)
        if (name in skip or not (on_device or on_cpu) or not os.path.exists(onnx)
                or not os.path.isdir(ref)):
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
        tolerance = "%r %r" % (m.get("rtol", manifest["defaults"]["rtol"]),
                               m.get("atol", manifest["defaults"]["atol"]))
        if on_device:
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
            kind = "fallback" if extra else "device-only"
            print("stage: %s%s" % (name, " (with --fallback=cpu)" if extra else ""))
            # --precision=f16 (tensor cores on CUDA): checked against the
            # same f32 references within the manifest's f16 tolerance.
            if m.get("f16"):
                p16 = subprocess.run([hoduc, onnx, "-o", os.path.join(d, "model-f16.hodu"),
                                      "--precision=f16"] + flags_common + flags + extra,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                if p16.returncode == 0:
                    with open(os.path.join(d, "tolerance-f16"), "w") as f:
                        f.write("%r %r\n" % (m["f16"]["rtol"], m["f16"]["atol"]))
                else:
                    print("stage: %s does not compile with --precision=f16: %s"
                          % (name, p16.stdout.decode()[:300]))
            symbolic = not extra and (
                args.symbolic == "all"
                or (args.symbolic == "auto"
                    and os.path.getsize(art) <= args.symbolic_mib * 2**20)
                or name in args.symbolic.split(","))
            if m.get("symbolic") and symbolic:
                stage_symbolic(m, hoduc, onnx, ref, d, flags_common)
            if m.get("symbolic_length") and symbolic:
                stage_symbolic_length(m, hoduc, onnx, d, flags_common)
            if m.get("symbolic_shape") and symbolic:
                stage_symbolic_length(m, hoduc, onnx, d, flags_common,
                                      "symbolic_shape")
        else:
            kind = "cpu-only"
        with open(os.path.join(d, "tolerance"), "w") as f:
            f.write("%s %s\n" % (tolerance, kind))
        if on_cpu:
            p = subprocess.run([hoduc, onnx, "-o", os.path.join(d, "cpu.so"),
                                "-mcpu=" + args.cpu] + flags,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if p.returncode != 0:
                print("stage: %s does not compile for the CPU: %s"
                      % (name, p.stdout.decode()[:300]))
                if not on_device:
                    shutil.rmtree(d)
                continue
            print("stage: %s for the CPU (-mcpu=%s)" % (name, args.cpu))
            shutil.copy(onnx, os.path.join(d, "model.onnx"))
            # ONNX Runtime takes every input, the frozen ones too.
            feeds = []
            for i, s in enumerate(m["inputs"]):
                f = "ort_input_%d.pb" % i
                shutil.copy(os.path.join(ref, "input_%d.pb" % i), os.path.join(d, f))
                feeds.append([s["name"], f])
            with open(os.path.join(d, "inputs.json"), "w") as f:
                json.dump(feeds, f)

    # Synthetic bench models: the bundle and the .onnx (the device machine
    # compares with ONNX Runtime there).
    bm = os.path.join(args.bench_models, "manifest.json")
    if os.path.exists(bm) and not args.no_bench:
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
            # A model with attention also as separate kernels
            # (--hodu-gpu-no-fuse-attention), timed beside the one-kernel
            # form on the device.
            p = subprocess.run([hoduc, src, "--compile-to=linalg", "-o", "-"] + flags_common,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if b"hodu.gpu.attention" in p.stdout:
                sep = d + "-separate"
                shutil.copytree(d, sep)
                p = subprocess.run([hoduc, src, "-o", os.path.join(sep, "model.hodu"),
                                    "--hodu-gpu-no-fuse-attention"] + flags_common,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                if p.returncode != 0:
                    shutil.rmtree(sep)
                else:
                    print("stage: bench-%s-separate (attention as separate kernels)" % m["name"])
                # And, where a constant mask splits the kernel into runs of
                # rows, as one kernel over every key.
                whole = d + "-whole"
                shutil.copytree(d, whole)
                p = subprocess.run([hoduc, src, "-o", os.path.join(whole, "model.hodu"),
                                    "--hodu-gpu-no-skip-dead-keys"] + flags_common,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                same = p.returncode == 0 and open(os.path.join(whole, "model.hodu"), "rb").read() \
                    == open(os.path.join(d, "model.hodu"), "rb").read()
                if p.returncode != 0 or same:
                    shutil.rmtree(whole)
                else:
                    print("stage: bench-%s-whole (attention as one kernel over every key)"
                          % m["name"])
    # The encoder and decoder step of test/Driver/symbolic-padded.test, each
    # one bundle with batch in chunks and the sequence (past) padded.
    if not args.no_bench and args.symbolic != "none":
        stage_padded(hoduc, models, flags_common)
    # One archive per model, so that the parts can share them out.
    for name in sorted(os.listdir(models)):
        with tarfile.open(os.path.join(args.out, "%s-models-%s.tgz" % (args.target, name)),
                          "w:gz") as t:
            t.add(os.path.join(models, name), arcname="models/" + name)
    shutil.rmtree(models)
    # hodu-run and libhodurt, for run.sh.
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, os.path.join(ROOT, "test", "conformance"))
    import conformance  # noqa: E402
    tools = os.path.join(args.out, "tools")
    shutil.rmtree(tools, ignore_errors=True)
    conformance.stage_tools(args.bin, tools)
    with tarfile.open(os.path.join(args.out, args.target + "-tools.tgz"), "w:gz") as t:
        t.add(os.path.join(tools, "bin"), arcname="bin")
    shutil.rmtree(tools)
    return pack(args)


def staged_archive(args, name):
    """Whether `name` in OUT is one of the archives a stage for args.target
    writes (run.sh unpacks them)."""
    return name.endswith(".tgz") and name.startswith((args.target + "-", "cuda-tc"))


# The order part 1 is filled in: a device call may have time for one part
# only, so first the tensor-core matmuls (issue #51's figures), the train
# steps and the bench models, then the real models (None: any other
# archive), the padded encoder and decoder, last the conformance sweep.
PRIORITY = ("-tc.", "-train.", "-models-bench-", None, "-models-padded-",
            "-models-bucketed-", "-conformance.")


def priority(name):
    """`name`'s place in PRIORITY, then its name."""
    for rank, key in enumerate(PRIORITY):
        if key and key in name:
            return (rank, name)
    return (PRIORITY.index(None), name)


def plan_parts(sizes, tools, cap):
    """The archives `sizes` (name -> bytes) shared out over parts, each in
    the first part with room in the order of `priority`, each part also
    holding the tools (`tools` bytes) and at most `cap` bytes in all
    (cap <= 0: one part). Raises ValueError naming an archive that fits no
    part."""
    parts = []
    for name in sorted(sizes, key=priority):
        if cap > 0 and tools + sizes[name] > cap:
            raise ValueError("%s (%.1f MiB) does not fit a part of %.1f MiB with the "
                             "tools (%.1f MiB)" % (name, sizes[name] / 2**20, cap / 2**20,
                                                   tools / 2**20))
        for part in parts:
            if cap <= 0 or part[0] + sizes[name] <= cap:
                part[0] += sizes[name]
                part[1].append(name)
                break
        else:
            parts.append([tools + sizes[name], [name]])
    return [sorted(names) for _, names in parts] or [[]]


def pack(args):
    """OUT/part-1, part-2, ...: this run's archives shared out so that each
    part, the tools included, is at most --max-mib, what one device call can
    carry beside the repository. Each part is run on its own:
    `test/device/run.sh OUT/part-N TARGET` (docs/device-runs.md)."""
    tools = args.target + "-tools.tgz"
    names = [n for n in sorted(os.listdir(args.out))
             if staged_archive(args, n) and n != tools]
    sizes = {n: os.path.getsize(os.path.join(args.out, n)) for n in names}
    tools_size = os.path.getsize(os.path.join(args.out, tools))
    try:
        parts = plan_parts(sizes, tools_size, args.max_mib * 2**20)
    except ValueError as e:
        print("stage: error: %s; raise --max-mib or leave it out" % e, file=sys.stderr)
        for n in names + [tools]:  # no stage that looks whole
            os.remove(os.path.join(args.out, n))
        return 1
    for i, part in enumerate(parts, 1):
        d = os.path.join(args.out, "part-%d" % i)
        os.makedirs(d)
        shutil.copy(os.path.join(args.out, tools), d)
        for n in part:
            os.replace(os.path.join(args.out, n), os.path.join(d, n))
        total = tools_size + sum(sizes[n] for n in part)
        print("stage: %s: %.1f MiB, %d archives (%s)"
              % (d, total / 2**20, len(part) + 1, ", ".join(n[:-4] for n in part)))
    os.remove(os.path.join(args.out, tools))
    print("stage: run each part on the device machine: test/device/run.sh %s/part-N %s"
          % (args.out, args.target))
    return 0


def stage_train(args, hoduc):
    """OUT/<target>-train.tgz: train/*.hodu and the two programs."""
    train = os.path.join(args.out, "train")
    shutil.rmtree(train, ignore_errors=True)
    os.makedirs(train)
    models = os.path.join(ROOT, "python-free-samples", "models")
    device = ["--device=" + args.target, "--gpu-arch=" + args.gpu_arch]
    steps = [
        ("mlp", [os.path.join(models, "mlp.onnx"), "--loss=mse", "--optimizer=adam",
                 "--lr=0.01"]),
        # Its weights are Constant nodes: named, as test/training does.
        ("cnn", [os.path.join(models, "cnn_dyn.onnx"), "--input-shape=input:4x1x6x6",
                 "--train-params=conv.weight,conv.bias,fc.weight,fc.bias",
                 "--loss=mse", "--optimizer=momentum", "--lr=0.05"]),
    ]
    for name, flags in steps:
        p = subprocess.run([hoduc, "--train", "-o", os.path.join(train, name + ".hodu")]
                           + flags + device,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            print("stage: train step %s does not compile: %s"
                  % (name, p.stdout.decode()[:300]))
            return 1
        print("stage: train step %s" % name)
    for tool in ("hodu-train-contracts", "hodu-sample-train"):
        shutil.copy(os.path.join(args.bin, tool), train)
    with tarfile.open(os.path.join(args.out, args.target + "-train.tgz"), "w:gz") as t:
        t.add(train, arcname="train")
    shutil.rmtree(train)
    return 0


def stage_symbolic(m, hoduc, onnx, ref, d, flags_common):
    """The model compiled once with its batch dims symbolic ('?'), as
    test/models/run_model_test.py's test_symbolic does on the CPU, into
    model-sym.hodu, with its reference sets at the other batches
    (symbolic/test_data_set_K, the frozen inputs left out) and batches.txt."""
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, os.path.join(ROOT, "test", "models"))
    from run_model_test import symbolic_flags  # noqa: E402
    frozen = [i for i, s in enumerate(m["inputs"]) if s.get("freeze")]
    flags = symbolic_flags(m, ref)
    p = subprocess.run([hoduc, onnx, "-o", os.path.join(d, "model-sym.hodu")]
                       + flags_common + flags, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        print("stage: %s with a symbolic batch does not compile: %s"
              % (m["name"], p.stdout.decode()[:300]))
        return
    src_root = os.path.join(ROOT, "test", "models", m["name"], "symbolic")
    for k, batch in enumerate(m["symbolic"]["batches"]):
        src = os.path.join(src_root, "test_data_set_%d" % k)
        dst = os.path.join(d, "symbolic", "test_data_set_%d" % k)
        os.makedirs(dst)
        j = 0
        for i in range(len(m["inputs"])):
            if i not in frozen:
                shutil.copy(os.path.join(src, "input_%d.pb" % i),
                            os.path.join(dst, "input_%d.pb" % j))
                j += 1
        for f in os.listdir(src):
            if f.startswith("output_"):
                shutil.copy(os.path.join(src, f), os.path.join(dst, f))
    with open(os.path.join(d, "symbolic", "batches.txt"), "w") as f:
        f.write(" ".join(str(b) for b in m["symbolic"]["batches"]) + "\n")
    print("stage: %s with a symbolic batch" % m["name"])


def stage_symbolic_length(m, hoduc, onnx, d, flags_common, key="symbolic_length"):
    """The model compiled once with its length dims symbolic and padded to
    the manifest's bound, as test/models/run_model_test.py's
    test_symbolic_length does, into model-len.hodu, with its reference sets
    at the other lengths (symbolic_length/test_data_set_K) and
    lengths.txt. With key "symbolic_shape" (an image's height and width),
    into model-shape.hodu, symbolic_shape/ and shapes.txt."""
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(ROOT, "test", "models"))
    from run_model_test import symbolic_length_flags  # noqa: E402
    shape = key == "symbolic_shape"
    art = "model-shape.hodu" if shape else "model-len.hodu"
    p = subprocess.run([hoduc, onnx, "-o", os.path.join(d, art)]
                       + flags_common + symbolic_length_flags(m, key),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        print("stage: %s with a %s does not compile: %s"
              % (m["name"], key.replace("_", " "), p.stdout.decode()[:300]))
        return
    sizes = m[key]["shapes" if shape else "lengths"]
    src_root = os.path.join(ROOT, "test", "models", m["name"], key)
    for k in range(len(sizes)):
        shutil.copytree(os.path.join(src_root, "test_data_set_%d" % k),
                        os.path.join(d, key, "test_data_set_%d" % k))
    with open(os.path.join(d, key, "shapes.txt" if shape else "lengths.txt"), "w") as f:
        f.write(" ".join("x".join(str(v) for v in n) if shape else str(n)
                         for n in sizes) + "\n")
    print("stage: %s with a %s" % (m["name"], key.replace("_", " ")))


PADDED = [
    # name, generator (test/Driver/Inputs), its flags, hoduc's flags, the
    # reference sets: the first is test_data_set_0, the rest run as lengths.
    ("padded-encoder", "encoder/make_encoder.py", [], ["--dim=seq=1..16", "--dim=batch=1..@2"],
     "encoder", ["test_data_seq_16", "test_data_seq_1", "test_data_seq_9",
                 "test_data_batch2_seq9", "test_data_batch3_seq1", "test_data_batch3_seq16"]),
    ("padded-decoder", "decoder/make_decoder.py", ["--position-input"],
     ["--dim=past=0..16", "--dim=batch=1..@2"], "decoder",
     ["test_data_position_past16", "test_data_position_past0", "test_data_position_past5",
      "test_data_position_past0_batch3", "test_data_position_past3_batch2",
      "test_data_position_past16_batch2"]),
    # The same with the plans at 4 and 8 in the bundle (format 1.6's
    # variants): runs at 1 and 3 take the 4 plan, 5 the 8 plan.
    ("bucketed-encoder", "encoder/make_encoder.py", [],
     ["--dim=seq=1..16@4,8", "--dim=batch=1..@2"], "encoder",
     ["test_data_seq_16", "test_data_seq_1", "test_data_seq_3", "test_data_set_1",
      "test_data_seq_9", "test_data_batch3_seq1"]),
    ("bucketed-decoder", "decoder/make_decoder.py", ["--position-input"],
     ["--dim=past=0..16@4,8", "--dim=batch=1..@2"], "decoder",
     ["test_data_position_past16", "test_data_position_past0", "test_data_position_past1",
      "test_data_position_past5", "test_data_position_past3_batch2"]),
]


def stage_padded(hoduc, models, flags_common):
    """The synthetic encoder and decoder step with a batch and a padded
    sequence, as run_models.py runs a model with a symbolic length: the
    first reference set as test_data_set_0, the rest at their shapes."""
    inputs = os.path.join(ROOT, "test", "Driver", "Inputs")
    for name, gen, gen_flags, flags, refs, sets in PADDED:
        d = os.path.join(models, name)
        os.makedirs(d)
        text = subprocess.run([sys.executable, os.path.join(inputs, gen)] + gen_flags,
                              stdout=subprocess.PIPE, check=True).stdout
        onnx = os.path.join(d, "model.onnx")
        with open(onnx, "wb") as f:
            f.write(subprocess.run(["protoc", "--proto_path=/usr/include/onnx",
                                    "--encode=onnx.ModelProto", "onnx.proto"],
                                   input=text, stdout=subprocess.PIPE, check=True).stdout)
        bundle = os.path.join(d, "model.hodu")
        p = subprocess.run([hoduc, onnx, "-o", bundle] + flags_common + flags,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            print("stage: %s does not compile: %s" % (name, p.stdout.decode()[:300]))
            shutil.rmtree(d)
            continue
        shutil.copy(bundle, os.path.join(d, "model-len.hodu"))
        shutil.copytree(os.path.join(inputs, refs, sets[0]),
                        os.path.join(d, "test_data_set_0"))
        for k, ref in enumerate(sets[1:]):
            shutil.copytree(os.path.join(inputs, refs, ref),
                            os.path.join(d, "symbolic_length", "test_data_set_%d" % k))
        with open(os.path.join(d, "symbolic_length", "lengths.txt"), "w") as f:
            f.write(" ".join(r.replace("test_data_", "") for r in sets[1:]) + "\n")
        with open(os.path.join(d, "tolerance"), "w") as f:
            f.write("0.001 0.0001 device-only\n")
        print("stage: %s (batch in chunks, the sequence padded)" % name)


if __name__ == "__main__":
    sys.exit(main())
