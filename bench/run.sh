#!/usr/bin/env bash
# bench/run.sh - Hodu vs ONNX Runtime, the whole benchmark in one command.
#
#   HODU_BUILD_DIR=build bench/run.sh [--models mlp,oww-alexa] [--suite synthetic|real|all]
#                                     [--models-cache DIR] [--threads 1,2]
#                                     [--reps R] [--budget S] [--cap S] [--doc FILE]
#
# Needs an existing Hodu build (HODU_BUILD_DIR, default build/) with the
# targets hoduc and hodurt_static built. Builds the benchmark's native parts
# (bench/CMakeLists.txt) into bench/results/build, installs onnxruntime-node
# into bench/node_modules if it is missing, generates the synthetic models,
# runs bench/run.mjs (which takes the real models of test/models/manifest.json
# from the tests' cache, --models-cache, default build/test/models-cache) and
# writes docs/performance.md. See bench/README.md.
set -euo pipefail

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(dirname "$bench_dir")"
build_dir="${HODU_BUILD_DIR:-build}"
case "$build_dir" in /*) ;; *) build_dir="$repo_dir/$build_dir" ;; esac

for f in "$build_dir/bin/hoduc" "$build_dir/runtime/lib/libhodurt.a"; do
  if [ ! -e "$f" ]; then
    echo "bench/run.sh: missing $f; build it first:" >&2
    echo "  ninja -C $build_dir hoduc hodurt_static" >&2
    exit 2
  fi
done

cc="${CC:-$(command -v clang-22 || command -v cc)}"
cxx="${CXX:-$(command -v clang++-22 || command -v c++)}"
native="$bench_dir/results/build"
if [ ! -f "$native/build.ninja" ] ||
   ! grep -q "HODU_BUILD_DIR:PATH=$build_dir\$" "$native/CMakeCache.txt"; then
  cmake -S "$bench_dir" -B "$native" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DHODU_BUILD_DIR="$build_dir" >/dev/null
fi
ninja -C "$native" >/dev/null

if [ ! -f "$bench_dir/node_modules/onnxruntime-node/package.json" ]; then
  # --ignore-scripts: the install script would try to download GPU
  # libraries; the CPU library ships inside the package.
  (cd "$bench_dir" && npm install --ignore-scripts --no-audit --no-fund >/dev/null)
fi

models="$bench_dir/results/models"
if [ ! -f "$models/manifest.json" ] ||
   [ "$native/hodu-gen-bench-models" -nt "$models/manifest.json" ]; then
  "$native/hodu-gen-bench-models" "$models"
fi

exec node "$bench_dir/run.mjs" --hodu-build "$build_dir" "$@"
