#!/usr/bin/env bash
# Imports every ONNX backend node test model with hodu-import (import +
# mlir::verify) and reports how many succeed and which ops fail most.
#
# Many node tests pass attribute-like values (a Reshape's shape, a Pad's
# pads) as graph inputs. Those cannot import as they are: an AOT compiler
# needs them at compile time. When the importer names such an input, the
# script retries with it frozen to the test's data (--freeze-input) and
# counts that separately.
#
#   scripts/onnx-import-coverage.sh [BUILD_DIR] [TESTDATA_DIR]
#
# BUILD_DIR defaults to build, TESTDATA_DIR to the Debian libonnx-testdata
# node tests. Writes the per-model result list to $BUILD_DIR/onnx-import-coverage.txt.
set -u
build=${1:-build}
data=${2:-/usr/share/libonnx-testdata/data/node}
tool=$build/bin/hodu-import
[ -x "$tool" ] || { echo "error: $tool not found (build the hodu-import target)" >&2; exit 2; }
[ -d "$data" ] || { echo "error: $data not found (apt install libonnx-testdata)" >&2; exit 2; }

out=$build/onnx-import-coverage.txt
: > "$out"
pass=0 frozenPass=0 total=0
declare -A failOps
for dir in "$data"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/model.onnx" ] || continue
  total=$((total + 1))
  msg=$(timeout 60 "$tool" "$dir/model.onnx" -o /dev/null 2>&1); rc=$?
  freeze=()
  for _ in 1 2 3 4; do
    [ $rc -ne 0 ] || break
    input=$(printf '%s\n' "$msg" | grep -m1 'must be a constant at import time' |
            sed -n "s/.*input #[0-9]* ('\([^']*\)'.*/\1/p")
    [ -n "$input" ] && [ -d "$dir/test_data_set_0" ] || break
    freeze+=("--freeze-input=$input=$dir/test_data_set_0")
    msg=$(timeout 60 "$tool" "$dir/model.onnx" "${freeze[@]}" -o /dev/null 2>&1); rc=$?
  done
  if [ $rc -eq 0 ] && [ ${#freeze[@]} -eq 0 ]; then
    pass=$((pass + 1))
    echo "PASS $name" >> "$out"
  elif [ $rc -eq 0 ]; then
    frozenPass=$((frozenPass + 1))
    echo "PASS-FROZEN $name ${freeze[*]}" >> "$out"
  else
    first=$(printf '%s\n' "$msg" | grep -m1 'error' | sed 's/^.*error: //')
    op=$(printf '%s\n' "$first" | sed -n "s/^ONNX op '\([^']*\)'.*/\1/p")
    [ -n "$op" ] || op="(other: $(printf '%s' "$first" | cut -c1-60))"
    failOps[$op]=$(( ${failOps[$op]:-0} + 1 ))
    echo "FAIL $name: $first" >> "$out"
  fi
done

echo "ONNX node tests imported and verified: $pass / $total"
echo "  plus $frozenPass with attribute-like graph inputs frozen to the test data:" \
     "$((pass + frozenPass)) / $total"
echo "Failures by op (or first error):"
for op in "${!failOps[@]}"; do
  printf '%5d  %s\n' "${failOps[$op]}" "$op"
done | sort -rn | head -${TOP:-40}
echo "Per-model results: $out"
