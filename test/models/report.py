#!/usr/bin/env python3
"""Runs every real model of test/models/manifest.json (run_model_test.py
--keep-going: every -O level, even after one fails) and writes the "Real
models" section of docs/conformance.md: per model, its source, whether it
compiles, how far its outputs are from ONNX Runtime's, and its -O2 compile
time and artifact size. The rest of the file (conformance.py's sections) is
kept.

  python3 test/models/report.py --bin build/bin --cache build/test/models-cache \\
      --report docs/conformance.md

Developers run it; ctest does not (the timings are this machine's).
"""

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fetch  # noqa: E402

BEGIN, END = "<!-- real-models -->", "<!-- /real-models -->"


def levels_text(levels):
    return ", ".join("-O%d" % l for l in levels) if levels else "none"


def short(msg, limit=160):
    msg = re.sub(r"^hoduc exited 1: ", "", msg)
    msg = re.sub(r"^\S+\.onnx(:\d+)*: ", "", msg)  # the cache path says nothing
    msg = msg.replace("|", "\\|")
    return msg if len(msg) <= limit else msg[:limit - 1] + "…"


def row(model, defaults, record, rc):
    levels = model.get("opt_levels", defaults["opt_levels"])
    results = record["results"] if record else []
    by_level = {r["level"]: r for r in results}
    compiled = [l for l in levels if "bytes" in by_level.get(l, {})]
    failed = [l for l in levels if l not in compiled]
    if not results:
        compiles = "not run"
    elif not failed:
        compiles = "yes (%s)" % levels_text(levels)
    elif not compiled:
        compiles = "no: %s" % short(by_level[failed[0]].get("error", "?"))
    else:
        compiles = "%s only; %s: %s" % (levels_text(compiled), levels_text(failed),
                                        short(by_level[failed[0]].get("error", "?")))
    with_ref = model.get("reference", True)
    checked = [by_level[l] for l in compiled]
    if not checked:
        matches = "—"
    elif not with_ref:
        matches = "not compared (no reference data)"
    elif all(r.get("status") == "pass" for r in checked):
        matches = ("yes, by the means of 256 runs of each output (summary.json)"
                   if with_ref == "summary" else "yes")
    else:
        bad = [r for r in checked if r.get("status") != "pass"]
        matches = "no at %s: %s" % (levels_text([r["level"] for r in bad]),
                                    short(bad[0].get("error", bad[0].get("status"))))
    errs = [r for r in checked if "max_abs" in r]
    if errs and with_ref == "summary":
        worst = max(errs, key=lambda r: r.get("worst", 0))
        error = "%.2g of a chunk mean (`%s`)" % (max(r["max_abs"] for r in errs),
                                                 short(worst["output"], 24))
    elif errs:
        worst = max(errs, key=lambda r: r.get("worst", 0))
        error = "%.2g / %.2g (`%s`)" % (max(r["max_abs"] for r in errs),
                                        max(r["max_rel"] for r in errs),
                                        short(worst["output"], 24))
    else:
        error = "—"
    o2 = by_level.get(2, {})
    ctime = "%.1f s" % o2["compile_s"] if "bytes" in o2 else "—"
    size = "%.2f MB" % (o2["bytes"] / 1e6) if "bytes" in o2 else "—"
    if rc == 77:
        test = "skipped (not fetched)"
    elif model.get("xfail"):
        if rc == 0:
            test = "xfail: %s" % model["xfail"]
        elif results and all(r.get("status") == "pass" for r in results):
            test = "**XPASS**: passes, remove the xfail (%s)" % model["xfail"]
        else:
            test = "**FAIL** (a crash or a hang)"
    else:
        test = "pass" if rc == 0 else "**FAIL**"
    source = "`%s@%s`<br>`%s`" % (model["package"], model["version"],
                                   model.get("path", "%d chunks" % len(model.get("chunks", []))))
    return "| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n" % (
        model["name"], source, model["kind"], model["opset"], compiles, matches,
        error, ctime, size, test)


def section(manifest, rows, total_s, counts):
    d = manifest["defaults"]
    out = [BEGIN + "\n", "## Real models\n\n",
           "Publicly distributed ONNX models from npm packages (`test/models/manifest.json`, "
           "%d models), compiled by hoduc for the CPU at each model's -O levels and run by "
           "`hodu-run --test-data` against ONNX Runtime's outputs (onnxruntime-node 1.30, "
           "CPU execution provider) on fixed-seed inputs. A model matches when every output "
           "is within rtol %g, atol %g (a model's own tolerances are in the manifest, with "
           "the reason); a model whose outputs are too large to commit (`\"reference\": "
           "\"summary\"`) matches when the means of 256 equal runs of each output's elements "
           "are within its summary_rtol/summary_atol of ONNX Runtime's (test/models/README.md). "
           "Generated by `test/models/report.py` on %s, %d cores, in %.0f s.\n\n"
           % (len(manifest["models"]), d["rtol"], d["atol"], platform.machine(),
              os.cpu_count() or 1, total_s),
           "%d of %d models compile at every level tested and %d match ONNX Runtime at every "
           "level; %d are expected failures (`xfail` in the manifest).\n\n" % counts,
           "| model | npm package, file | kind | opset | compiles | matches ONNX Runtime | "
           "max abs / rel error (worst output) | -O2 compile | -O2 artifact | test |\n",
           "|---|---|---|---|---|---|---|---|---|---|\n"]
    out += rows
    out.append(
        "\nErrors are the largest over the levels tested; relative errors are taken where "
        "the reference is at least 1e-6 in magnitude. Compile times are hoduc's wall time "
        "for the whole model (import to shared library).\n\n"
        "### Running the suite\n\n"
        "`ctest -L models` (from the build directory) runs `models.fetch`, which downloads "
        "each model's npm tarball once into `build/test/models-cache` (CMake cache variable "
        "`HODU_MODELS_CACHE`; the sha256 of every model is checked), then one test per model, "
        "`models.<name>`, over all of its -O levels. Without the npm registry the tests of "
        "models not in the cache are skipped. One model by hand:\n\n"
        "```\n"
        "python3 test/models/run_model_test.py ppocr-v4-det --bin build/bin "
        "--cache build/test/models-cache\n"
        "```\n\n"
        "### Regenerating the references\n\n"
        "The reference data (`test/models/<name>/test_data_set_0/`) comes from ONNX Runtime: "
        "after changing a model or its inputs in the manifest,\n\n"
        "```\n"
        "python3 test/models/fetch.py --cache build/test/models-cache\n"
        "(cd /tmp/ort && npm install --ignore-scripts onnxruntime-node@1.30.0)\n"
        "node test/models/make_refs.mjs --cache build/test/models-cache --ort /tmp/ort [name ...]\n"
        "python3 test/models/report.py --bin build/bin --cache build/test/models-cache "
        "--report docs/conformance.md\n"
        "```\n")
    out.append(END + "\n")
    return "".join(out)


def write(path, text):
    old = open(path).read() if os.path.exists(path) else "# ONNX conformance\n"
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN)] + text + old[old.index(END) + len(END) + 1:]
    else:
        new = old.rstrip("\n") + "\n\n" + text
    with open(path, "w") as f:
        f.write(new)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--report", required=True, help="docs/conformance.md")
    ap.add_argument("--manifest", default=fetch.MANIFEST)
    args = ap.parse_args()

    manifest = fetch.load_manifest(args.manifest)
    rows = []
    n_compile = n_match = n_xfail = 0
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for model in manifest["models"]:
            js = os.path.join(tmp, model["name"] + ".json")
            p = subprocess.run([sys.executable, os.path.join(HERE, "run_model_test.py"),
                                model["name"], "--bin", args.bin, "--cache", args.cache,
                                "--manifest", args.manifest, "--keep-going", "--json", js],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            sys.stdout.write(p.stdout.decode("utf-8", "replace"))
            record = None
            if os.path.exists(js):
                with open(js) as f:
                    record = json.loads(f.readline())
            rows.append(row(model, manifest["defaults"], record, p.returncode))
            results = record["results"] if record else []
            if results and all("bytes" in r for r in results):
                n_compile += 1
                if all(r.get("status") == "pass" for r in results) and \
                        model.get("reference", True):
                    n_match += 1
            if model.get("xfail"):
                n_xfail += 1
    total = time.monotonic() - start
    write(args.report, section(manifest, rows, total,
                               (n_compile, len(manifest["models"]), n_match, n_xfail)))
    print("wrote the Real models section of %s (%.0f s)" % (args.report, total))


if __name__ == "__main__":
    sys.exit(main())
