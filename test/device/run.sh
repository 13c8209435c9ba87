#!/bin/bash
# On a machine with the device (a lent GPU machine; no hoduc there): runs
# one part that test/device/stage.py staged (STAGE: OUT/part-N) for TARGET
# and writes the
# results to RESULTS (default $OUT, the device tool's folder).
#   test/device/run.sh STAGE TARGET [RESULTS]
set -u
stage=$1 target=$2 results=${3:-${OUT:-/tmp/hodu-device-results}}
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/hodu-device
rm -rf "$work" && mkdir -p "$work" "$results"
# Every archive of the part (stage.py: the tools, and some of the
# conformance sweep, the models, the tensor-core cases, the train steps).
found=0
for t in "$stage/$target"-*.tgz; do
  [ -f "$t" ] || continue
  tar xzf "$t" -C "$work" || { echo "run.sh: cannot unpack $t" >&2; exit 2; }
  found=1
done
if [ "$found" = 0 ] || [ ! -d "$work/bin" ]; then
  echo "run.sh: no staged $target part in $stage (test/device/stage.py writes OUT/part-N)" >&2
  exit 2
fi
if [ "$target" = cuda ]; then
  dev=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
else
  dev=$(rocm-smi --showproductname 2>/dev/null | grep -m1 'Card series' || echo "$target device")
fi
echo "device: $dev; $(date -u +%F); $(nproc) CPUs" | tee "$results/device.txt"
export PYTHONUNBUFFERED=1
rc=0
if [ -d "$work/tc" ]; then
  python3 "$here/tensor_core.py" run "$work/tc" "$work/bin" "$results" 2>&1 \
    | tee "$results/$target-tensor-core.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
# Train steps: AICF's contracts A-D and the C sample's training loop on the
# device (docs/training.md).
if [ -d "$work/train" ]; then
  for step in "$work"/train/*.hodu; do
    echo "== $(basename "$step")"
    LD_LIBRARY_PATH="$work/bin" "$work/train/hodu-train-contracts" "$step" || rc=1
    LD_LIBRARY_PATH="$work/bin" "$work/train/hodu-sample-train" "$step" || rc=1
  done 2>&1 | tee "$results/$target-train.txt"
  grep -q "FAILED\|did not fall\|error" "$results/$target-train.txt" && rc=1
fi
if [ -d "$work/models" ]; then
  python3 "$here/run_models.py" "$work/models" "$work/bin" "$target" 2>&1 \
    | tee "$results/$target-models.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
# PyTorch eager on the same synthetic models, when PyTorch is there.
if [ "$target" = cuda ] && [ -d "$work/models" ]; then
  python3 "$here/torch_bench.py" 2>&1 | tee "$results/$target-torch.txt"
fi
# The conformance sweep last: the longest part, and the one a cut-short run
# can best do without.
if [ -d "$work/$target" ]; then
  python3 "$here/../conformance/conformance.py" --target "$target" --run-staged "$work/$target" \
    --results "$results/$target-conformance.tsv" --device-name "$dev, $(date -u +%F)" \
    --jobs 8 --run-timeout 60 || rc=1
fi
exit $rc
