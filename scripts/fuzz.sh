#!/usr/bin/env bash
# Runs Hodu's libFuzzer targets for a while (docs/security.md).
#
#   scripts/fuzz.sh [SECONDS-PER-TARGET] [TARGET...]
#
# Targets: onnx (the ONNX importer), hdss (the .hdss reader and importer),
# tensor (hodu-run's .pb/.npy/.json/.hdt readers), bundle (the runtime's
# bundle reader); all of them by default, for 3600 s each. They are built in
# build-fuzz/ with every Hodu library instrumented for coverage and under
# ASan and UBSan (-DHODU_FUZZ_INSTRUMENT=ON -DHODU_SANITIZE=address,undefined),
# run one per core, and grow corpora of their own in build-fuzz/fuzz/<target>/
# from the checked-in seeds (test/fuzz/corpus/<target>). An input that
# crashes, leaks, trips a sanitizer or hangs is kept there as crash-*, leak-*
# or timeout-*; turn it into a regression test. The last line of each log
# gives the executions and the corpus size.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-3600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(onnx hdss tensor bundle)
build=${HODU_FUZZ_BUILD_DIR:-$root/build-fuzz}

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DHODU_FUZZ_INSTRUMENT=ON -DHODU_SANITIZE=address,undefined
fi
binaries=()
for t in "${targets[@]}"; do
  case $t in
    onnx|hdss|tensor) binaries+=("hodu-fuzz-$t") ;;
    bundle) binaries+=(hodurt-bundle-fuzz hodurt-bundle-tests) ;;
    *) echo "fuzz.sh: unknown target '$t' (onnx, hdss, tensor, bundle)" >&2; exit 2 ;;
  esac
done
ninja -C "$build" "${binaries[@]}"

# LLVM's BumpPtrAllocator, inlined into Hodu's instrumented code, poisons
# slabs that the uninstrumented libMLIR.so then hands out unpoisoned: with
# one MLIRContext kept across inputs (the ONNX target), ASan then reports
# use-after-poison on MLIR's own storage (docs/security.md, Sanitizers).
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allow_user_poisoning=0
work=$build/fuzz
mkdir -p "$work"
pids=()
for t in "${targets[@]}"; do
  dir=$work/$t
  mkdir -p "$dir/corpus"
  if [ "$t" = bundle ]; then
    "$build/bin/hodurt-bundle-tests" write_corpus \
      "$build/test/runtime-unit/kernels.spv" "$dir/corpus" >/dev/null
    exe=$build/bin/hodurt-bundle-fuzz
  else
    cp -n "$root/test/fuzz/corpus/$t"/* "$dir/corpus/" 2>/dev/null || true
    exe=$build/bin/hodu-fuzz-$t
  fi
  (cd "$dir" && "$exe" -max_total_time="$seconds" -timeout=10 \
     -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 corpus \
     > "$dir/log.txt" 2>&1; echo "exit $?" >> "$dir/log.txt") &
  pids+=($!)
  # One target per core at a time.
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do sleep 5; done
done
wait "${pids[@]}" || true
for t in "${targets[@]}"; do
  dir=$work/$t
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log.txt" | grep -o '[0-9]*$' || echo 0)
  found=$(ls "$dir" | grep -cE '^(crash|leak|timeout|oom)-' || true)
  echo "$t: $runs executions in ${seconds}s, corpus $(ls "$dir/corpus" | wc -l) inputs, findings $found, $(tail -1 "$dir/log.txt")"
done
