#!/usr/bin/env bash
# Installs what is missing (Debian 12), configures and builds Hodu.
#
#   scripts/setup.sh [--with-tests]
#
# Environment: HODU_BUILD_DIR (default: build), HODU_JOBS (default: nproc).
# Idempotent: packages already present are left alone, and an existing build
# directory is reused (ccache makes rebuilds cheap).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${HODU_BUILD_DIR:-$root/build}
jobs=${HODU_JOBS:-$(nproc)}
with_tests=0
[[ ${1:-} == --with-tests ]] && with_tests=1

# What the build needs, then what the tests need.
packages=(cmake ninja-build ccache git python3
          clang-22 lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libomp-22-dev
          libonnx-dev libprotobuf-dev protobuf-compiler nlohmann-json3-dev
          libspirv-cross-c-shared-dev pkg-config libvulkan-dev)
# The runtime tests: Vulkan runs on Mesa's lavapipe (a CPU Vulkan device),
# spirv-tools assembles the test kernels, libamdhip64 exercises the HIP
# "runtime present, no GPU" path, libclang-rt-22-dev has the sanitizer and
# libFuzzer runtimes for the bundle reader's hostile-input tests.
test_packages=(libgtest-dev libonnx-testdata spirv-tools spirv-cross rocm-device-libs
               libvulkan1 mesa-vulkan-drivers libamdhip64-5 libclang-rt-22-dev
               curl ca-certificates)
((with_tests)) && packages+=("${test_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "hodu setup: installing missing packages: ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "hodu setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "hodu setup: all required packages are present"
fi

# The tests run the onnxruntime engine plugin on ONNX Runtime's library,
# fetched from the npm registry (without it those tests are skipped).
if ((with_tests)); then
  "$root/scripts/fetch-onnxruntime.sh" "$build/_deps/onnxruntime" >/dev/null ||
    echo "hodu setup: warning: no ONNX Runtime library; the onnxruntime engine tests will be skipped" >&2
fi

export CCACHE_BASEDIR=$root
cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DHODU_BUILD_TESTS=$((with_tests ? 1 : 0)) >/dev/null
cmake --build "$build" -j "$jobs"
echo "hodu setup: built in $build"
