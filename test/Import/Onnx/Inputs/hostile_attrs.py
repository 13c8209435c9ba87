#!/usr/bin/env python3
"""Hostile attribute values for the ONNX ops built from hodu ops
(GridSample, RoiAlign, DFT, STFT, windows, MelWeightMatrix, TfIdfVectorizer,
ReverseSequence, Einsum's ellipsis, MaxPool's Indices, MaxUnpool,
sequences): zero, negative, huge and NaN sizes, unknown modes, malformed
tables. Every variant must compile or fail with exit code 1, an error
message and no output file; never a signal or a hang.

  hostile_attrs.py HODUC PROTO_DIR WORKDIR [STRIDE [HODUC-FLAGS...]]

compiles every STRIDE-th variant (default 1: all), with HODUC-FLAGS (for
example --device=vulkan) if given, and prints `N passed, N failed`.
"""
import itertools, os, shutil, subprocess, sys
def model(name, nodes, inputs, outputs, opset=17, inits=""):
    ins = "\n".join('  input { name: "%s" type { tensor_type { elem_type: %d shape { %s } } } }' % (n, t, " ".join("dim { dim_value: %d }" % d for d in dims)) for n, t, dims in inputs)
    outs = "\n".join('  output { name: "%s" type { tensor_type { elem_type: 1 } } }' % o for o in outputs)
    return 'ir_version: 8\nopset_import { domain: "" version: %d }\ngraph {\n  name: "%s"\n%s\n%s\n%s\n%s\n}\n' % (opset, name, inits, nodes, ins, outs)
def node(op, ins, outs, attrs):
    a = " ".join(attrs)
    return '  node { op_type: "%s" %s %s name: "n" %s }' % (op, " ".join('input: "%s"' % i for i in ins), " ".join('output: "%s"' % o for o in outs), a)
def ai(n, v): return 'attribute { name: "%s" type: INT i: %d }' % (n, v)
def af(n, v): return 'attribute { name: "%s" type: FLOAT f: %s }' % (n, v)
def aS(n, v): return 'attribute { name: "%s" type: STRING s: "%s" }' % (n, v)
def ais(n, v): return 'attribute { name: "%s" type: INTS %s }' % (n, " ".join("ints: %d" % x for x in v))
def init_i64(n, vals, dims=None):
    d = "" if dims is None else " ".join("dims: %d" % x for x in dims)
    return '  initializer { name: "%s" %s data_type: 7 %s }' % (n, d, " ".join("int64_data: %d" % v for v in vals))
def init_f(n, vals):
    return '  initializer { name: "%s" data_type: 1 %s }' % (n, " ".join("float_data: %s" % v for v in vals))
cases = {}
big = [0, -1, 1, 2**31, -2**31, 2**62, 7]
for m, p, a in itertools.product(["bilinear", "nearest", "bicubic", "junk"], ["zeros", "border", "reflection", "x"], [0, 1, 5]):
    cases["grid_%s_%s_%d" % (m, p, a)] = model("g", node("GridSample", ["x", "g"], ["y"], [aS("mode", m), aS("padding_mode", p), ai("align_corners", a)]), [("x", 1, [1, 1, 1, 1]), ("g", 1, [1, 2, 2, 2])], ["y"], 16)
for oh, sr, sc in itertools.product([0, 1, 5000, -3], [0, 1, 65, -1], ["nan", "1e30", "-1"]):
    cases["roi_%d_%d_%s" % (oh, sr, sc.replace('-', 'm'))] = model("r", node("RoiAlign", ["x", "rois", "b"], ["y"], [ai("output_height", oh), ai("output_width", 2), ai("sampling_ratio", sr), af("spatial_scale", sc)]), [("x", 1, [1, 1, 4, 4]), ("rois", 1, [2, 4]), ("b", 7, [2])], ["y"], 16)
for L in big:
    cases["dft_len_%d" % (L % 1000003)] = model("d", node("DFT", ["x", "L"], ["y"], [ai("axis", 1), ai("onesided", L % 2)]), [("x", 1, [1, 8, 2])], ["y"], 17, init_i64("L", [L]))
for ax in [-3, -2, -1, 0, 2, 3, 99]:
    cases["dft_axis_%d" % (ax + 100)] = model("d", node("DFT", ["x"], ["y"], [ai("axis", ax), ai("inverse", 1)]), [("x", 1, [1, 8, 1])], ["y"], 17)
for st, fl in itertools.product(big, big):
    cases["stft_%d_%d" % (st % 997, fl % 991)] = model("s", node("STFT", ["x", "st", "", "fl"], ["y"], []), [("x", 1, [1, 16, 1])], ["y"], 17, init_i64("st", [st]) + "\n" + init_i64("fl", [fl]))
for sz in big:
    for op in ["HannWindow", "HammingWindow", "BlackmanWindow"]:
        cases["win_%s_%d" % (op, sz % 1009)] = model("w", node(op, ["n"], ["y"], [ai("periodic", sz % 2), ai("output_datatype", [1, 7, 99, -1][sz % 4])]), [], ["y"], 17, init_i64("n", [sz]))
for mels, dl, rate, lo, hi in itertools.product([0, 3, 2**20], [0, 8, -5], [0, 8000, -1], ["0", "nan", "-5"], ["4000", "1e38", "nan"]):
    inits = "\n".join([init_i64("m", [mels]), init_i64("d", [dl]), init_i64("r", [rate]), init_f("lo", [lo]), init_f("hi", [hi])])
    cases["mel_%d_%d_%d_%s_%s" % (mels % 97, dl % 89, rate % 83, lo, hi)] = model("m", node("MelWeightMatrix", ["m", "d", "r", "lo", "hi"], ["y"], []), [], ["y"], 17, inits)
for mn, mx, sk, counts, idx in itertools.product([0, 1, 2, 100], [1, 2, 65], [0, 300, -1], [[0, 4], [0, 99], [-1], [0, 3], []], [[0, 1, 2, 3, 4, 5, 6], [-1] * 7, [2**30] * 7, [0]]):
    cases["tfidf_%d_%d_%d_%s_%d" % (mn, mx, sk, "-".join(map(str, counts)).replace('-', 'm'), idx[0] % 7)] = model("t", node("TfIdfVectorizer", ["x"], ["y"], [aS("mode", "TFIDF"), ai("min_gram_length", mn), ai("max_gram_length", mx), ai("max_skip_count", sk), ais("ngram_counts", counts), ais("ngram_indexes", idx), ais("pool_int64s", [2, 3, 5, 4, 5, 6, 7, 8, 6, 7])]), [("x", 7, [12])], ["y"], 9)
for ba, ta in itertools.product([-1, 0, 1, 2], [-1, 0, 1, 5]):
    cases["revseq_%d_%d" % (ba + 1, ta + 1)] = model("v", node("ReverseSequence", ["x", "l"], ["y"], [ai("batch_axis", ba), ai("time_axis", ta)]), [("x", 1, [4, 2, 3]), ("l", 7, [2])], ["y"], 10)
for eq in ["...ii->...i", "......", "...,...->...", "ij...->...ij...", "...ab,...bc", "a...b...->a", "...->", "->...", "..a", "...ij,jk->...ik"]:
    cases["einsum_%02d" % ["...ii->...i", "......", "...,...->...", "ij...->...ij...", "...ab,...bc", "a...b...->a", "...->", "->...", "..a", "...ij,jk->...ik"].index(eq)] = model("e", node("Einsum", ["a", "b"], ["y"], [aS("equation", eq)]), [("a", 1, [2, 3, 3]), ("b", 1, [3, 3])], ["y"], 12)
for k, so in itertools.product([[2, 2], [0, 2], [2000, 2000], [1]], [0, 1, 2]):
    cases["mpi_%d_%d" % (k[0], so)] = model("p", node("MaxPool", ["x"], ["y", "i"], [ais("kernel_shape", k), ai("storage_order", so)]), [("x", 1, [1, 1, 5, 5])], ["y", "i"], 12)
for osz in [[1, 1, 9, 9], [1, 1, -1, 4], [2, 1, 4, 4], [1, 1, 2**40, 2**40], [1, 1]]:
    cases["unpool_%d" % (abs(sum(osz)) % 10007)] = model("u", node("MaxUnpool", ["x", "i", "o"], ["y"], [ais("kernel_shape", [2, 2]), ais("strides", [2, 2])]), [("x", 1, [1, 1, 2, 2]), ("i", 7, [1, 1, 2, 2])], ["y"], 11, init_i64("o", osz, [len(osz)]))
for pos in [-99, -4, 0, 3, 4, 99]:
    cases["seq_%d" % (pos + 100)] = model("q", "\n".join([node("SplitToSequence", ["x"], ["s"], [ai("keepdims", 0)]).replace('name: "n"', 'name: "a"'),
        node("SequenceInsert", ["s", "y", "p"], ["t"], []).replace('name: "n"', 'name: "b"'),
        node("SequenceAt", ["t", "p"], ["z"], []).replace('name: "n"', 'name: "c"')]), [("x", 1, [3, 2]), ("y", 1, [2])], ["z"], 12, init_i64("p", [pos]))
hoduc, proto_dir, work = sys.argv[1:4]
hoduc = shutil.which(hoduc) or hoduc
stride = int(sys.argv[4]) if len(sys.argv) > 4 else 1
flags = sys.argv[5:]
os.makedirs(work, exist_ok=True)
passed = failed = 0
for k, (name, text) in enumerate(sorted(cases.items())):
    if k % stride:
        continue
    onnx = os.path.join(work, name + ".onnx")
    out = os.path.join(work, name + ".so")
    enc = subprocess.run(["protoc", "--proto_path=" + proto_dir, "--encode=onnx.ModelProto",
                          "onnx.proto"], input=text.encode(), capture_output=True)
    if enc.returncode:
        print("FAIL %s: protoc: %s" % (name, enc.stderr.decode()[:200]))
        failed += 1
        continue
    open(onnx, "wb").write(enc.stdout)
    try:
        r = subprocess.run([hoduc, onnx, "-O1", "-o", out] + flags, capture_output=True,
                           timeout=120)
    except subprocess.TimeoutExpired:
        print("FAIL %s: hang" % name)
        failed += 1
        continue
    err = r.stderr.decode(errors="replace")
    problem = None
    if r.returncode not in (0, 1):
        problem = "exit code %d: %s" % (r.returncode, err[:300])
    elif r.returncode == 1 and os.path.exists(out):
        problem = "an output file after a failed compile"
    elif r.returncode == 1 and "error:" not in err:
        problem = "no error message"
    if problem:
        print("FAIL %s: %s" % (name, problem))
        failed += 1
    else:
        passed += 1
    for f in (onnx, out):
        if os.path.exists(f):
            os.remove(f)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
