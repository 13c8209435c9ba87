#!/usr/bin/env python3
"""ONNX backend conformance for Hodu.

For every test in the ONNX test data (node, pytorch-converted,
pytorch-operator, simple): compile model.onnx with hoduc, then run each
test_data_set_N with `hodu-run --test-data`. Each step has a time limit.

Expected failures live in one list per target (test/conformance/xfail-<target>.txt,
`test_name  # reason`). A listed test that passes is reported (XPASS) and
fails the run, so the list stays true; a crash or a hang fails the run even
when listed, since every failure must be a clean error.

Prints `N passed, N failed` and writes docs/conformance.md (per-op table).
Test infrastructure only: nothing on a user's path runs Python.
"""

import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

DATA_ROOT = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]


def read_varint(buf, pos):
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def fields(buf):
    """Yields (field_number, wire_type, value) of a protobuf message."""
    pos = 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, pos = read_varint(buf, pos)
        elif wt == 1:
            val, pos = buf[pos:pos + 8], pos + 8
        elif wt == 2:
            n, pos = read_varint(buf, pos)
            val, pos = buf[pos:pos + n], pos + n
        elif wt == 5:
            val, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError("unsupported wire type %d" % wt)
        yield num, wt, val


def op_types(model_path):
    """The op types of a model's graph (ModelProto.graph=7, GraphProto.node=1,
    NodeProto.op_type=4), without an ONNX Python package."""
    try:
        with open(model_path, "rb") as f:
            buf = f.read()
        ops = []
        for num, wt, val in fields(buf):
            if num == 7 and wt == 2:
                for gnum, gwt, gval in fields(val):
                    if gnum == 1 and gwt == 2:
                        for nnum, nwt, nval in fields(gval):
                            if nnum == 4 and nwt == 2:
                                ops.append(nval.decode("utf-8", "replace"))
        return ops
    except (OSError, ValueError):
        return []


def load_xfail(path):
    xfail = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                name, _, reason = line.partition("#")
                xfail[name.strip()] = reason.strip()
    return xfail


def first_error_line(text):
    for line in text.splitlines():
        if "error" in line.lower():
            # Drop the "<path>:<line>:<col>: " and "hodu-run: " prefixes.
            line = re.sub(r"^\S+:\d+:\d+: ", "", line.strip())
            line = re.sub(r"^hodu-run: ", "", line)
            line = re.sub(r"'/usr/share/libonnx-testdata/data/[^']*/", "'", line)
            return re.sub(r"\s+", " ", line)[:160]
    lines = [l for l in text.splitlines() if l.strip()]
    return re.sub(r"\s+", " ", lines[-1].strip())[:160] if lines else "no output"


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "timed out after %ds" % timeout


def run_test(test_dir, hoduc, hodu_run, workdir, args):
    """Returns (status, detail): status in pass, fail, crash, timeout."""
    name = os.path.basename(test_dir)
    model = os.path.join(test_dir, "model.onnx")
    # CPU targets make a shared library; GPU devices a bundle that hodu-run
    # runs on the device it was compiled for.
    gpu = args.target in ("vulkan", "cuda", "rocm", "metal")
    lib = os.path.join(workdir, name + (".hodu" if gpu else ".so"))
    compile_cmd = [hoduc, model, "-o", lib]
    if gpu:
        compile_cmd.append("--device=" + args.target)
    rc, out = run(compile_cmd, args.compile_timeout)
    if rc is None:
        return "timeout", "hoduc " + out
    if rc < 0:
        return "crash", "hoduc killed by signal %d: %s" % (-rc, first_error_line(out))
    if rc != 0:
        return "fail", "compile: " + first_error_line(out)
    sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set"))
    try:
        for s in sets:
            rc, out = run([hodu_run, lib, "--test-data", os.path.join(test_dir, s),
                           "--rtol", str(args.rtol), "--atol", str(args.atol)],
                          args.run_timeout)
            if rc is None:
                return "timeout", "hodu-run " + out
            if rc < 0:
                return "crash", "hodu-run killed by signal %d" % -rc
            if rc == 1:
                return "fail", "mismatch: " + first_error_line(out)
            if rc != 0:
                return "fail", "run: " + first_error_line(out)
    finally:
        try:
            os.remove(lib)
        except OSError:
            pass
    return "pass", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="directory with hoduc and hodu-run")
    ap.add_argument("--target", default="cpu")
    ap.add_argument("--xfail", help="expected-failure list (default: xfail-<target>.txt here)")
    ap.add_argument("--suites", default=",".join(SUITES))
    ap.add_argument("--filter", default="", help="regex on test names")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--compile-timeout", type=int, default=120)
    ap.add_argument("--run-timeout", type=int, default=60)
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--report", help="write the markdown report here (docs/conformance.md)")
    ap.add_argument("--update-xfail", action="store_true",
                    help="rewrite the xfail list from this run's clean failures")
    args = ap.parse_args()

    here = os.path.dirname(os.path.abspath(__file__))
    xfail_path = args.xfail or os.path.join(here, "xfail-%s.txt" % args.target)
    xfail = load_xfail(xfail_path)
    hoduc = os.path.join(args.bin, "hoduc")
    hodu_run = os.path.join(args.bin, "hodu-run")
    for tool in (hoduc, hodu_run):
        if not os.access(tool, os.X_OK):
            print("conformance: error: %s not found (build it first)" % tool)
            return 2
    if not os.path.isdir(DATA_ROOT):
        print("conformance: error: %s not found (apt-get install libonnx-testdata)" % DATA_ROOT)
        return 2

    tests = []
    for suite in args.suites.split(","):
        d = os.path.join(DATA_ROOT, suite)
        if not os.path.isdir(d):
            continue
        for t in sorted(os.listdir(d)):
            if args.filter and not re.search(args.filter, t):
                continue
            if os.path.exists(os.path.join(d, t, "model.onnx")):
                tests.append((suite, os.path.join(d, t)))

    workdir = tempfile.mkdtemp(prefix="hodu-conformance-")
    results = {}
    start = time.time()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(run_test, path, hoduc, hodu_run, workdir, args):
                       (suite, path) for suite, path in tests}
            for fut in concurrent.futures.as_completed(futures):
                suite, path = futures[fut]
                results[(suite, os.path.basename(path))] = fut.result()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    passed = failed = xfailed = 0
    unexpected, xpass, hard = [], [], []
    per_suite = collections.defaultdict(lambda: [0, 0])
    per_op = collections.defaultdict(lambda: [0, 0])
    for (suite, name), (status, detail) in sorted(results.items()):
        ok = status == "pass"
        per_suite[suite][0 if ok else 1] += 1
        if suite == "node":
            for op in sorted(set(op_types(os.path.join(DATA_ROOT, suite, name, "model.onnx")))):
                per_op[op][0 if ok else 1] += 1
        if ok:
            passed += 1
            if name in xfail:
                xpass.append(name)
        else:
            failed += 1
            if status in ("crash", "timeout"):
                hard.append((name, status, detail))
            elif name in xfail:
                xfailed += 1
            else:
                unexpected.append((name, detail))

    for name, status, detail in hard:
        print("HARD FAILURE (%s): %s: %s" % (status, name, detail))
    for name, detail in unexpected:
        print("UNEXPECTED FAILURE: %s: %s" % (name, detail))
    for name in xpass:
        print("XPASS (remove it from %s): %s" % (os.path.basename(xfail_path), name))
    for suite in SUITES:
        if suite in per_suite:
            p, f = per_suite[suite]
            print("suite %-18s %4d passed, %4d failed" % (suite, p, f))
    print("expected failures: %d, unexpected: %d, hard (crash/hang): %d, xpass: %d, %.0fs"
          % (xfailed, len(unexpected), len(hard), len(xpass), time.time() - start))

    if args.update_xfail:
        with open(xfail_path, "w") as f:
            f.write("# Expected failures of the ONNX conformance run on target '%s'.\n"
                    "# One test a line: name  # reason. Regenerate with --update-xfail.\n"
                    % args.target)
            for (suite, name), (status, detail) in sorted(results.items(), key=lambda r: r[0][1]):
                if status == "fail":
                    f.write("%s  # %s\n" % (name, detail.replace("\n", " ")))
        print("wrote %s" % xfail_path)

    if args.report:
        with open(args.report, "w") as f:
            f.write("# ONNX conformance (target `%s`)\n\n" % args.target)
            f.write("Generated by `test/conformance/conformance.py` from the ONNX backend "
                    "test data in Debian's `libonnx-testdata` (ONNX 1.12). A test passes "
                    "when hoduc compiles it and every data set matches the reference "
                    "within rtol %g, atol %g.\n\n" % (args.rtol, args.atol))
            f.write("| suite | passed | failed |\n|---|---|---|\n")
            for suite in SUITES:
                if suite in per_suite:
                    p, fl = per_suite[suite]
                    f.write("| %s | %d | %d |\n" % (suite, p, fl))
            f.write("\n## Node tests by op type\n\n| op | passed | failed |\n|---|---|---|\n")
            for op in sorted(per_op):
                p, fl = per_op[op]
                f.write("| %s | %d | %d |\n" % (op, p, fl))
            f.write("\nThe reasons for each expected failure are in "
                    "`test/conformance/xfail-%s.txt`.\n" % args.target)

    print("%d passed, %d failed" % (passed, failed))
    bad = unexpected or hard or xpass
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
