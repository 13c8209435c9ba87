#!/usr/bin/env bash
# Builds the whole project under ASan+UBSan (or the sanitizers given) in
# build-asan/ and runs the lit tests and every other ctest except the ONNX
# conformance sweeps and the real-model tests (docs/security.md, Sanitizers).
#
#   scripts/sanitize.sh [SANITIZERS]      default: address,undefined
#
# Not part of CI: a second full build does not fit its time on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sanitizers=${1:-address,undefined}
build=${HODU_SANITIZE_BUILD_DIR:-$root/build-asan}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DHODU_SANITIZE="$sanitizers"
fi
ninja -C "$build"
# LLVM's BumpPtrAllocator, inlined into Hodu's instrumented code, poisons
# slabs that the uninstrumented libMLIR.so then uses (lit sets this itself).
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allow_user_poisoning=0
cd "$build"
ctest --output-on-failure -j "${HODU_JOBS:-$(nproc)}" \
  -E "onnx-conformance|^models\."
