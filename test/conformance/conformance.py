#!/usr/bin/env python3
"""ONNX backend conformance for Hodu.

For every test in the ONNX test data (node, pytorch-converted,
pytorch-operator, simple; targets this machine cannot run take the node
tests): compile
model.onnx with hoduc for --target, then, where this machine can run that
target (cpu; vulkan, on any Vulkan device such as Mesa's lavapipe), run each
test_data_set_N with `hodu-run --test-data`. Where it cannot (cuda, rocm,
metal), a test passes when hoduc compiles it and the target's own tool
accepts what it wrote: ptxas built every cubin of a bundle for sm_80 and
sm_90, ld.lld linked the HSA code objects for gfx90a and gfx942 and
llvm-readelf reads the gfx942 one's notes, SPIRV-Cross translated the
SPIR-V to a .metal file naming a kernel; vulkan's SPIR-V also goes through
spirv-val. Each step has a time limit.

Expected failures live in one list per target (test/conformance/xfail-<target>.txt,
`test_name  # reason`). A listed test that passes is reported (XPASS) and
fails the run, so the list stays true; a crash or a hang fails the run even
when listed, since every failure must be a clean error.

Prints `N passed, N failed` and writes docs/conformance.md (per-op table).

For a machine that has the device but no hoduc (a lent GPU machine):
`--stage DIR` also copies each test that passes here (its artifact, its
test data) and hodu-run with libhodurt into DIR; `--run-staged DIR` there
runs them on the device with hodu-run alone and writes one line per test
to --results (name, status, detail; first line: the date and the device);
test/conformance/device-<target>.tsv, the results of the last such run,
goes into the target's section of the report (`--device-results FILE` for
another).

Test infrastructure only: nothing on a user's path runs Python.
"""

import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

DATA_ROOT = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]

# The AMD architectures the rocm sweep compiles for (and checks each).
TARGET_GFX = ["gfx90a", "gfx942"]

# Per target: the artifact hoduc writes, its flags, whether this machine
# runs it, and the check of what was written ("" for none).
TARGETS = {
    "cpu": {"ext": ".so", "flags": [], "runs": True, "check": ""},
    "vulkan": {"ext": ".hodu", "flags": ["--device=vulkan"], "runs": True,
               "check": "spirv-val"},
    # Vulkan with the CPU taking what Vulkan cannot run: heterogeneous
    # bundles (issue 13's goal: at least every test the CPU passes).
    "vulkan-fallback": {"ext": ".hodu", "flags": ["--device=vulkan", "--fallback=cpu"],
                        "runs": True, "check": "", "device": "vulkan"},
    # cuda: the tensor-core kernels (--gpu-math=3xtf32), which ptxas checks
    # here and a lent GPU runs (test/device).
    "cuda": {"ext": ".hodu", "flags": ["--device=cuda", "--gpu-arch=sm_80,sm_90",
                                        "--gpu-math=3xtf32"],
             "runs": False, "check": ""},
    "rocm": {"ext": ".hodu", "flags": ["--device=rocm", "--gpu-arch=" + ",".join(TARGET_GFX)],
             "runs": False, "check": "llvm-readelf"},
    "metal": {"ext": ".metal", "flags": ["--device=metal"], "runs": False,
              "check": "msl"},
}


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


def varints(wt, val):
    """The integers of a repeated varint field: one (wire type 0) or packed."""
    if wt == 0:
        return [val]
    out, pos = [], 0
    while pos < len(val):
        v, pos = read_varint(val, pos)
        out.append(v)
    return out


def input_pins(test_dir):
    """hoduc flags that pin what the model leaves open about its inputs,
    from the first test_data_set: the dims of a tensor input declared with
    dynamic dims (or none), the length and element dims of a sequence input
    (shapes, never values). Without an ONNX package: GraphProto.input=11
    (ValueInfoProto name=1, type=2; TypeProto tensor_type=1 with shape=2 of
    dim=1 with dim_value=1, sequence_type=4, optional_type=9 with
    elem_type=1), initializer=5 (TensorProto name=8), SequenceProto
    tensor_values=3, OptionalProto tensor_value=3 and sequence_value=5,
    TensorProto dims=1."""
    def dims_of(tensor):
        return [d for n, wt, v in fields(tensor) if n == 1 for d in varints(wt, v)]

    def is_static(tensor_type):
        shapes = [v for n, wt, v in fields(tensor_type) if n == 2 and wt == 2]
        if not shapes:
            return False
        return all(any(dn == 1 and dwt == 0 for dn, dwt, _ in fields(dim))
                   for n, wt, dim in fields(shapes[0]) if n == 1 and wt == 2)

    def kind_of(type_proto):
        for tn, twt, tv in fields(type_proto):
            if tn == 4:
                return "sequence"
            if tn == 1 and twt == 2 and not is_static(tv):
                return "dynamic"
            if tn == 9 and twt == 2:  # optional_type: its elem_type (1)
                for en, ewt, ev in fields(tv):
                    if en == 1 and ewt == 2:
                        inner = kind_of(ev)
                        return "optional " + inner if inner != "static" else "static"
        return "static"

    try:
        with open(os.path.join(test_dir, "model.onnx"), "rb") as f:
            model = f.read()
        graph = b"".join(v for n, wt, v in fields(model) if n == 7 and wt == 2)
        inits = set()
        inputs = []  # (name, "sequence" | "static" | "dynamic")
        for n, wt, v in fields(graph):
            if n == 5 and wt == 2:
                inits.update(tv.decode() for tn, twt, tv in fields(v)
                             if tn == 8 and twt == 2)
            elif n == 11 and wt == 2:
                name, kind = "", "static"
                for vn, vwt, vv in fields(v):
                    if vn == 1 and vwt == 2:
                        name = vv.decode()
                    elif vn == 2 and vwt == 2:
                        kind = kind_of(vv)
                inputs.append((name, kind))
        inputs = [i for i in inputs if i[0] not in inits]
        sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set"))
        flags = []
        for j, (name, kind) in enumerate(inputs):
            if kind == "static" or not sets:
                continue
            path = os.path.join(test_dir, sets[0], "input_%d.pb" % j)
            if not os.path.exists(path):
                continue
            with open(path, "rb") as f:
                data = f.read()
            if kind.startswith("optional "):
                # OptionalProto: tensor_value=3, sequence_value=5.
                kind = kind[len("optional "):]
                values = [v for n, wt, v in fields(data)
                          if n == (5 if kind == "sequence" else 3) and wt == 2]
                if not values:
                    if kind == "sequence":
                        flags.append("--sequence-length=%s:0" % name)
                    continue
                data = values[0]
            if kind == "dynamic":
                flags.append("--input-shape=%s:%s" % (name, "x".join(map(str, dims_of(data)))))
                continue
            elements = [v for n, wt, v in fields(data) if n == 3 and wt == 2]
            flags.append("--sequence-length=%s:%d" % (name, len(elements)))
            for i, t in enumerate(elements):
                flags.append("--input-shape=%s[%d]:%s" % (name, i, "x".join(map(str, dims_of(t)))))
        return flags
    except (OSError, ValueError, UnicodeDecodeError):
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
            # Drop the "<path>:<line>:<col>: ", "<model>.onnx: " and
            # "hodu-run: " prefixes.
            line = re.sub(r"^\S+:\d+:\d+: ", "", line.strip())
            line = re.sub(r"^\S+\.onnx: ", "", line)
            line = re.sub(r"^hodu-run: ", "", line)
            line = re.sub(r"'/usr/share/libonnx-testdata/data/[^']*/", "'", line)
            return re.sub(r"\s+", " ", line)[:160]
    lines = [l for l in text.splitlines() if l.strip()]
    return re.sub(r"\s+", " ", lines[-1].strip())[:160] if lines else "no output"


def run(cmd, timeout, env=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "timed out after %ds" % timeout


def run_data_sets(hodu_run, artifact, test_dir, device, args, env=None, strip=False):
    """hodu-run --test-data on each test_data_set of test_dir; (status,
    detail) of the first that does not pass, or None. With strip, paths
    under test_dir are left out of the details."""
    sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set"))
    for s in sets:
        rc, out = run([hodu_run, artifact, "--test-data", os.path.join(test_dir, s),
                       "--rtol", str(args.rtol), "--atol", str(args.atol)] + device,
                      args.run_timeout, env)
        if strip:
            out = out.replace(test_dir + os.sep, "")
        if rc is None:
            return "timeout", "hodu-run " + out
        if rc < 0:
            return "crash", "hodu-run killed by signal %d" % -rc
        if rc == 1:
            return "fail", "mismatch: " + first_error_line(out)
        if rc != 0:
            return "fail", "run: " + first_error_line(out)
    return None


def bundle_code_objects(path):
    """The code objects of a .hodu bundle (docs/bundle.md) as
    (format, arch, bytes): format 1 is SPIR-V, 5 an HSA code object."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 40 or data[:8] != b"HODUBNDL":
        raise ValueError("not a .hodu bundle")
    table, count, entry = struct.unpack_from("<QII", data, 24)
    sections = {}
    for i in range(count):
        kind, _, offset, size = struct.unpack_from("<IIQQ", data, table + i * entry)
        sections[kind] = (offset, size)
    strings_at = sections[1][0]
    code_at, code_size = sections[6]
    blobs_at = sections[11][0]
    objects = []
    for at in range(code_at, code_at + code_size, 32):
        _, fmt, arch, _, offset, size = struct.unpack_from("<IIIIQQ", data, at)
        name = data[strings_at + arch:data.index(b"\0", strings_at + arch)].decode()
        objects.append((fmt, name, data[blobs_at + offset:blobs_at + offset + size]))
    return objects


def check_artifact(lib, name, workdir, args):
    """The target's own tool on the code objects of the bundle hoduc wrote
    (each compiled once: the checks read them from the bundle); (ok,
    detail)."""
    target = TARGETS[args.target]
    if target["check"] not in ("spirv-val", "llvm-readelf"):
        return True, ""
    if target["check"] == "spirv-val" and not shutil.which("spirv-val"):
        return True, ""
    want = 1 if target["check"] == "spirv-val" else 5
    try:
        objects = [o for o in bundle_code_objects(lib) if o[0] == want]
    except (OSError, ValueError, KeyError, struct.error) as e:
        return False, "reading the bundle: %s" % e
    paths = []
    try:
        for i, (_, arch, blob) in enumerate(objects):
            paths.append(os.path.join(workdir, "%s.%d.%s" % (
                name, i, "spv" if want == 1 else "hsaco")))
            with open(paths[-1], "wb") as f:
                f.write(blob)
        if want == 1:
            for spv in paths:
                rc, out = run(["spirv-val", "--target-env", "vulkan1.1", spv], 60)
                if rc != 0:
                    return False, "spirv-val: " + first_error_line(out or "")
            return True, ""
        archs = [arch for _, arch, _ in objects]
        if sorted(archs) != sorted(TARGET_GFX):
            return False, "the bundle's HSA code objects are for %s, not %s" % (
                archs, TARGET_GFX)
        rc, out = run([args.llvm_readelf, "--notes"] + paths, 60)
        ok = rc == 0 and all("amdgcn-amd-amdhsa--" + a in (out or "") for a in archs)
        return ok, "llvm-readelf: " + first_error_line(out or "")
    finally:
        for p in paths:
            if os.path.exists(p):
                os.remove(p)


def run_test(test_dir, hoduc, hodu_run, workdir, args):
    """Returns (status, detail): status in pass, fail, crash, timeout."""
    name = os.path.basename(test_dir)
    model = os.path.join(test_dir, "model.onnx")
    target = TARGETS[args.target]
    lib = os.path.join(workdir, name + target["ext"])
    # --onnx-shape-check: libonnx's shape inference cross-checks the
    # importer's types on these well-formed models.
    pins = input_pins(test_dir)
    rc, out = run([hoduc, model, "--onnx-shape-check", "-o", lib] + target["flags"]
                  + pins, args.compile_timeout)
    if rc is None:
        return "timeout", "hoduc " + out
    if rc < 0:
        return "crash", "hoduc killed by signal %d: %s" % (-rc, first_error_line(out))
    if rc != 0:
        return "fail", "compile: " + first_error_line(out)
    try:
        if target["check"] == "msl":
            with open(lib, errors="replace") as f:
                if "kernel void " not in f.read():
                    return "fail", "the .metal file names no kernel"
        ok, detail = check_artifact(lib, name, workdir, args)
        if not ok:
            return "fail", detail
        if not target["runs"]:
            if args.stage:
                stage_test(test_dir, lib, args.stage)
            return "pass", ""
        device = ([] if args.target == "cpu"
                  else ["--device=" + target.get("device", args.target)])
        failed = run_data_sets(hodu_run, lib, test_dir, device, args)
        if failed:
            return failed
    finally:
        try:
            os.remove(lib)
        except OSError:
            pass
    return "pass", ""


def stage_test(test_dir, artifact, stage):
    """Copies a test that passed here (its artifact and test data) into
    stage/<name>/ for --run-staged on a machine with the device."""
    dest = os.path.join(stage, os.path.basename(test_dir))
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    shutil.copy(artifact, os.path.join(dest, "model" + os.path.splitext(artifact)[1]))
    for s in sorted(os.listdir(test_dir)):
        if s.startswith("test_data_set"):
            shutil.copytree(os.path.join(test_dir, s), os.path.join(dest, s))


def stage_tools(bin_dir, stage):
    """hodu-run and the libhodurt it loads, into stage/bin."""
    out = os.path.join(stage, "bin")
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.join(bin_dir, "hodu-run"), out)
    for d in (os.path.join(bin_dir, os.pardir, "runtime", "lib"),
              os.path.join(bin_dir, os.pardir, "lib")):
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.startswith("libhodurt.so"):
                    shutil.copy(os.path.join(d, f), out, follow_symlinks=True)


def run_staged(args):
    """--run-staged: hodu-run on each staged test, on the device; no hoduc."""
    stage = args.run_staged
    bin_dir = args.bin or os.path.join(stage, "bin")
    hodu_run = os.path.join(bin_dir, "hodu-run")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = bin_dir + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    names = sorted(d for d in os.listdir(stage)
                   if d != "bin" and os.path.isdir(os.path.join(stage, d))
                   and (not args.filter or re.search(args.filter, d)))
    device = "--device=" + TARGETS[args.target].get("device", args.target)

    def one(name):
        d = os.path.join(stage, name)
        art = [f for f in os.listdir(d) if f.startswith("model.")][0]
        return (run_data_sets(hodu_run, os.path.join(d, art), d, [device], args, env,
                              strip=True)
                or ("pass", ""))

    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = dict(zip(names, pool.map(one, names)))
    counts = collections.Counter(status for status, _ in results.values())
    header = "# %s on %s: %d staged, %s, %.0fs" % (
        args.target, args.device_name or "(device not named)", len(names),
        ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())),
        time.time() - start)
    lines = [header] + ["%s\t%s\t%s" % (n, st, de) for n, (st, de) in sorted(results.items())]
    if args.results:
        with open(args.results, "w") as f:
            f.write("\n".join(lines) + "\n")
    for n, (st, de) in sorted(results.items()):
        if st != "pass":
            print("%s %s: %s" % (st.upper(), n, de))
    print(header[2:])
    return 1 if counts.get("crash") or counts.get("timeout") else 0


def load_device_results(path):
    """(header, {name: (status, detail)}) of a --run-staged results file."""
    header, results = "", {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# "):
                header = line[2:]
            elif line:
                name, status, detail = (line.split("\t") + ["", ""])[:3]
                results[name] = (status, detail)
    return header, results


def write_report(path, target, args, per_suite, per_op, device_results=None):
    """Rewrites target's section of the report, keeping the others."""
    begin, end = "<!-- target %s -->" % target, "<!-- /target %s -->" % target
    lines = ["## Target `%s`\n\n" % target]
    if TARGETS[target]["runs"]:
        lines.append("A test passes when hoduc compiles it for `%s` and every data set "
                     "matches the reference within rtol %g, atol %g%s.\n\n"
                     % (target, args.rtol, args.atol,
                        {"cpu": "",
                         "vulkan": " (run by libhodurt on the first Vulkan device: Mesa's "
                                   "lavapipe here; the SPIR-V also passes spirv-val for "
                                   "Vulkan 1.1)",
                         "vulkan-fallback": " (compiled with `--device=vulkan --fallback=cpu`: "
                                            "what Vulkan cannot run runs on the CPU in the same "
                                            "bundle; run by libhodurt on lavapipe)"}[target]))
    else:
        lines.append("No `%s` device here: a test passes when hoduc compiles it and %s.\n\n"
                     % (target, {
                         "cuda": "ptxas builds the bundle's cubins for sm_80 and sm_90",
                         "rocm": "ld.lld links its HSA code objects for gfx90a and gfx942 "
                                 "and llvm-readelf reads the gfx942 object's notes",
                         "metal": "SPIRV-Cross translates its SPIR-V to a .metal file "
                                  "naming its kernels",
                     }[target]))
    if device_results:
        header, res = device_results
        bad = sorted((n, st, de) for n, (st, de) in res.items() if st != "pass")
        lines.append("Run on a real device (%s; `conformance.py --stage` here, "
                     "`--run-staged` there, hodu-run comparing every data set within "
                     "rtol %g, atol %g): %d of the %d staged tests matched the reference."
                     % (header, args.rtol, args.atol, len(res) - len(bad), len(res)))
        if bad:
            here = os.path.dirname(os.path.abspath(__file__))
            cpu = load_xfail(os.path.join(here, "xfail-cpu.txt"))
            same = sum(1 for n, _, _ in bad if n in cpu)
            lines.append(" The others (%d of which fail on the CPU too):\n\n"
                         % same)
            for n, st, de in bad:
                lines.append("- `%s` (%s%s): %s\n" % (n, st, ", also on cpu" if n in cpu else "",
                                                     de.replace("|", "\\|")))
            lines.append("\n")
        else:
            lines.append("\n\n")
    lines.append("| suite | passed | failed |\n|---|---|---|\n")
    for suite in SUITES:
        if suite in per_suite:
            p, fl = per_suite[suite]
            lines.append("| %s | %d | %d |\n" % (suite, p, fl))
    lines.append("\n### Node tests by op type (`%s`)\n\n| op | passed | failed |\n"
                 "|---|---|---|\n" % target)
    for op in sorted(per_op):
        p, fl = per_op[op]
        lines.append("| %s | %d | %d |\n" % (op, p, fl))
    lines.append("\nThe reasons for each expected failure are in "
                 "`test/conformance/xfail-%s.txt`.\n" % target)
    section = begin + "\n" + "".join(lines) + end + "\n"

    head = ("# ONNX conformance\n\n"
            "Generated by `test/conformance/conformance.py` (one section per target, "
            "each rewritten by its own run) from the ONNX backend test data in "
            "Debian's `libonnx-testdata` (ONNX 1.12). Each model is compiled "
            "without its input values: where it leaves an input's dims open, they "
            "are pinned from the first data set (`--input-shape`), and a sequence "
            "input's length and element dims likewise (`--sequence-length`).\n\n")
    text = ""
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
    if begin in text and end in text:
        text = text[:text.index(begin)] + section + text[text.index(end) + len(end) + 1:]
    else:
        if "<!-- target " not in text:
            # A report of the one-target format: its body becomes that
            # target's section.
            m = re.match(r"# ONNX conformance \(target `([\w-]+)`\)\n\n(.*)", text, re.S)
            text = head
            if m and m.group(1) != target:
                body = m.group(2).replace("## Node tests by op type",
                                          "### Node tests by op type (`%s`)" % m.group(1))
                text += ("<!-- target %s -->\n## Target `%s`\n\n%s"
                         "<!-- /target %s -->\n" % (m.group(1), m.group(1),
                                                     body.rstrip("\n") + "\n",
                                                     m.group(1)))
        sections = re.findall(r"<!-- target ([\w-]+) -->", text)
        order = list(TARGETS)
        later = [t for t in sections if order.index(t) > order.index(target)]
        if later:
            at = text.index("<!-- target %s -->" % later[0])
            text = text[:at] + section + "\n" + text[at:]
        else:
            text = text.rstrip("\n") + "\n\n" + section
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="directory with hoduc and hodu-run")
    ap.add_argument("--target", default="cpu", choices=sorted(TARGETS))
    ap.add_argument("--xfail", help="expected-failure list (default: xfail-<target>.txt here)")
    ap.add_argument("--suites", help="default: every suite where the target runs "
                                     "here (cpu, vulkan), the node tests elsewhere")
    ap.add_argument("--llvm-readelf", default="llvm-readelf-22")
    ap.add_argument("--filter", default="", help="regex on test names")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--compile-timeout", type=int, default=120)
    ap.add_argument("--run-timeout", type=int, default=60)
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--report", help="write the markdown report here (docs/conformance.md)")
    ap.add_argument("--update-xfail", action="store_true",
                    help="rewrite the xfail list from this run's clean failures "
                         "(the lines of tests the run did not cover are kept)")
    ap.add_argument("--stage", metavar="DIR",
                    help="also copy each test that passes here, and hodu-run, into DIR "
                         "for --run-staged on a machine with the device")
    ap.add_argument("--run-staged", metavar="DIR",
                    help="run the tests staged in DIR on the device (hodu-run only; "
                         "--bin defaults to DIR/bin)")
    ap.add_argument("--results", help="--run-staged: write one line per test here")
    ap.add_argument("--device-name", help="--run-staged: the device, for the results header")
    ap.add_argument("--device-results", metavar="FILE",
                    help="a --run-staged results file to add to the report (default: "
                         "device-<target>.tsv here, where a run on a real device left one)")
    args = ap.parse_args()
    if args.run_staged:
        return run_staged(args)
    if not args.bin:
        ap.error("--bin is required")

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

    if not args.suites:
        args.suites = ",".join(SUITES) if TARGETS[args.target]["runs"] else "node"
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

    if args.stage:
        if TARGETS[args.target]["runs"]:
            ap.error("--stage is for targets this machine does not run")
        os.makedirs(args.stage, exist_ok=True)
        stage_tools(args.bin, args.stage)
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
        # Tests this run did not cover (--filter, --suites) keep their lines.
        ran = {name for (_, name) in results}
        entries = {name: reason for name, reason in xfail.items() if name not in ran}
        for (suite, name), (status, detail) in results.items():
            if status == "fail":
                entries[name] = detail.replace("\n", " ")
        with open(xfail_path, "w") as f:
            f.write("# Expected failures of the ONNX conformance run on target '%s'.\n"
                    "# One test a line: name  # reason. Regenerate with --update-xfail.\n"
                    % args.target)
            for name in sorted(entries):
                f.write("%s  # %s\n" % (name, entries[name]))
        print("wrote %s" % xfail_path)

    # The last run on a real device (committed beside the xfail lists)
    # stays in the report of every later run until the next one replaces it.
    device_results = args.device_results or os.path.join(here, "device-%s.tsv" % args.target)
    if args.report:
        write_report(args.report, args.target, args, per_suite, per_op,
                     load_device_results(device_results)
                     if os.path.exists(device_results) else None)

    print("%d passed, %d failed" % (passed, failed))
    bad = unexpected or hard or xpass
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
