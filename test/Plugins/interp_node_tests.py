#!/usr/bin/env python3
"""Runs the ONNX node tests through the interpreter engine plugin.

Every test under /usr/share/libonnx-testdata/data/node/*/ (a model.onnx and
its test_data_set_*/) goes through

    hodu-run --plugin PLUGINS --engine interp model.onnx --test-data TEST_DIR

and is classified by what hodu-run says:

  pass         exit 0: every output within hodu-run's tolerances
  unsupported  exit 2 with an "interp engine:" refusal: an op the evaluator
               cannot compute ("cannot be evaluated"), a model with dynamic
               dims ("needs static shapes"), or the importer's refusal
  host         exit 2 without one: hodu-run itself cannot feed the test
               (its test data, or the signature the host checks)
  mismatch     exit 1: an output differs from the reference
  check        an assert of the model failed on the reference data
  crash        any other exit, or a signal
  timeout      past --timeout seconds

The script fails on any crash or timeout, on any mismatch or failed check
that test/Plugins/interp-xfail.txt does not list (one test name per line,
its reason after '#'), and on a listed test that passes now. It prints the
counts (unsupported ones by op) and writes nothing but its temporary
directory, which it removes.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hodu-run", default=os.path.join(ROOT, "build", "bin", "hodu-run"))
    p.add_argument("--plugins",
                   default=os.path.join(ROOT, "build", "runtime", "lib", "hodu", "plugins"))
    p.add_argument("--node-dir", default="/usr/share/libonnx-testdata/data/node")
    p.add_argument("--xfail", default=os.path.join(HERE, "interp-xfail.txt"))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per test")
    p.add_argument("--filter", default="", help="only the tests whose name matches")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print every test's class and message")
    return p.parse_args()


def read_xfail(path):
    entries = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            text = line.split("#", 1)
            name = text[0].strip()
            if not name:
                continue
            reason = text[1].strip() if len(text) > 1 else ""
            if not reason:
                sys.exit("%s:%d: '%s' has no reason after '#'" % (path, number, name))
            entries[name] = reason
    return entries


OP = re.compile(r"op '([^']+)'")


def classify(rc, out, err):
    """(class, detail) of one hodu-run result."""
    text = err.strip()
    if rc == 0 and "PASS" in out:
        return "pass", ""
    if rc == 1:
        return "mismatch", out.strip()
    if rc == 2 and "interp engine:" in text:
        if "breaks a run-time check" in text:
            return "check", text
        if "cannot be evaluated" in text:
            m = OP.search(text)
            return "unsupported", m.group(1) if m else "?"
        if "needs static shapes" in text:
            return "unsupported", "(dynamic shapes)"
        return "unsupported", "(importer)"
    if rc == 2:
        return "host", text
    return "crash", "exit %d: %s" % (rc, text[-400:])


def run_one(args, env, tmp, name):
    test = os.path.join(args.node_dir, name)
    command = [args.hodu_run, "--plugin", args.plugins, "--engine", "interp",
               os.path.join(test, "model.onnx"), "--test-data", test]
    start = time.monotonic()
    try:
        r = subprocess.run(command, cwd=tmp, env=env, capture_output=True,
                           text=True, errors="replace", timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return name, "timeout", "past %g s" % args.timeout, time.monotonic() - start
    kind, detail = classify(r.returncode, r.stdout, r.stderr)
    return name, kind, detail, time.monotonic() - start


def main():
    args = parse_args()
    for path in (args.hodu_run, os.path.join(args.plugins, "interp", "manifest.json")):
        if not os.path.exists(path):
            sys.exit("missing %s (build hodu-run and hodu-engine-interp)" % path)
    xfail = read_xfail(args.xfail)
    names = sorted(n for n in os.listdir(args.node_dir)
                   if os.path.exists(os.path.join(args.node_dir, n, "model.onnx"))
                   and re.search(args.filter, n))
    unknown = sorted(set(xfail) - set(os.listdir(args.node_dir)))
    if unknown:
        sys.exit("%s names tests that do not exist: %s" % (args.xfail, ", ".join(unknown)))

    env = dict(os.environ)
    for key in ("HODU_ENGINE", "HODU_PLUGIN_PATH"):
        env.pop(key, None)
    env.update(HODU_NO_PLUGINS="1", HODU_COMPILE_CACHE="off", HODU_SELECTION_DB="off")
    env = {k: v for k, v in env.items() if not k.startswith("HODU_PLUGIN_INTERP_")}

    start = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory(prefix="hodu-interp-node-") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(run_one, args, env, tmp, n) for n in names]
            for future in concurrent.futures.as_completed(futures):
                results.append(future.result())
    elapsed = time.monotonic() - start
    results.sort()

    counts = collections.Counter()
    by_op = collections.Counter()
    failures, xfailed, xpassed = [], [], []
    for name, kind, detail, seconds in results:
        if args.verbose:
            print("%-60s %-11s %5.1fs %s" % (name, kind, seconds, detail.splitlines()[0] if detail else ""))
        if kind == "unsupported":
            by_op[detail] += 1
        if name in xfail:
            if kind in ("mismatch", "check"):
                kind = "xfail"
                xfailed.append(name)
            elif kind == "pass":
                xpassed.append(name)
        counts[kind] += 1
        if kind in ("mismatch", "check", "crash", "timeout"):
            failures.append((name, kind, detail))

    print("interp engine on %d ONNX node tests (%s), %.0f s with %d jobs:"
          % (len(results), args.node_dir, elapsed, args.jobs))
    for kind in ("pass", "unsupported", "xfail", "host", "mismatch", "check", "crash", "timeout"):
        print("  %-11s %d" % (kind, counts[kind]))
    if by_op:
        print("unsupported, by what refused them:")
        for op, n in sorted(by_op.items(), key=lambda kv: (-kv[1], kv[0])):
            print("  %5d  %s" % (n, op))
    slowest = sorted(results, key=lambda r: -r[3])[:3]
    print("slowest: " + ", ".join("%s %.1f s" % (r[0], r[3]) for r in slowest))
    for name, kind, detail in failures:
        print("FAIL %s: %s\n  %s" % (name, kind, detail.replace("\n", "\n  ")[:2000]))
    for name in xpassed:
        print("XPASS %s: listed in %s (%s), passes now: remove it"
              % (name, os.path.basename(args.xfail), xfail[name]))
    return 1 if failures or xpassed else 0


if __name__ == "__main__":
    sys.exit(main())
