#!/usr/bin/env bash
# The README's second command: the same set-up, then every test (lit, unit
# tests, ONNX conformance), ending with lit's and ctest's summaries.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${HODU_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" --with-tests
cd "$build"
ctest --output-on-failure -j "${HODU_JOBS:-$(nproc)}"
