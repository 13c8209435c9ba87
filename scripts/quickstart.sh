#!/usr/bin/env bash
# The README's first command: set up, build, then compile the bundled sample
# ONNX model with hoduc and run it through the C runtime.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${HODU_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
out=$build/quickstart
mkdir -p "$out"
sample=$root/python-free-samples/models/mlp.onnx
echo "== hoduc $sample -o $out/libmlp.so"
"$build/bin/hoduc" "$sample" -o "$out/libmlp.so"
echo "== hodu-run $out/libmlp.so --test-data (reference inputs and outputs)"
"$build/bin/hodu-run" "$out/libmlp.so" --test-data "$root/python-free-samples/models/mlp_test_data"
echo "== the C sample (python-free-samples/c-run-onnx) built against libhodurt"
"$build/bin/hodu-sample-c" "$out/libmlp.so"
