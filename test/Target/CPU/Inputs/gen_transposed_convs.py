"""Writes a model and inputs for conv-transposed.test: two convolutions
with a constant filter and an output plane narrower than a vector, which
hodu-cpu-vectorize computes with the filters as the vector dimension: a
squeeze-and-excitation 1x1 conv on a 1x1 plane (24 -> 48 channels, one
output position), a strided 1-D conv like an STFT (40 filters of 64
taps, stride 40, four output frames) with a bias, and a stride-2 1-D conv
whose output is one position (64 channels, 3 taps on 4 columns, like
silero VAD's last encoder layers; its 1x1 window plane once crashed
memref.subview's getDroppedDims).

Usage: gen_transposed_convs.py OUT_DIR
Writes OUT_DIR/model.mlir, OUT_DIR/se.json, OUT_DIR/sig.json and
OUT_DIR/enc.json.
"""
import json
import os
import sys

# The nested MLIR literal of a flat list, as cpu-pack-run.test's generator
# writes it (imported without leaving a __pycache__ in the source tree).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "Transforms", "Inputs"))
from gen_matmul_model import nested  # noqa: E402


def values(count, mod, scale):
    return [float((i * 7 + 3) % mod - mod // 2) * scale for i in range(count)]


def main():
    out = sys.argv[1]
    w1 = values(48 * 24, 11, 0.25)
    w2 = values(40 * 64, 13, 0.125)
    bias = values(40, 5, 1.0)
    w3 = values(64 * 64 * 3, 9, 0.125)
    model = f"""func.func @main(%se: tensor<1x24x1x1xf32>, %sig: tensor<1x1x200xf32>, %enc: tensor<1x64x4xf32>) -> (tensor<1x48x1x1xf32>, tensor<1x40x4xf32>, tensor<1x64x1xf32>) {{
  %w1 = hodu.constant dense<{nested(w1, [48, 24, 1, 1])}> : tensor<48x24x1x1xf32>
  %0 = hodu.conv %se, %w1 {{dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}} : (tensor<1x24x1x1xf32>, tensor<48x24x1x1xf32>) -> tensor<1x48x1x1xf32>
  %w2 = hodu.constant dense<{nested(w2, [40, 1, 64])}> : tensor<40x1x64xf32>
  %1 = hodu.conv %sig, %w2 {{dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 40>}} : (tensor<1x1x200xf32>, tensor<40x1x64xf32>) -> tensor<1x40x4xf32>
  %b = hodu.constant dense<{nested(bias, [40, 1])}> : tensor<40x1xf32>
  %2 = hodu.add %1, %b : (tensor<1x40x4xf32>, tensor<40x1xf32>) -> tensor<1x40x4xf32>
  %w3 = hodu.constant dense<{nested(w3, [64, 64, 3])}> : tensor<64x64x3xf32>
  %3 = hodu.conv %enc, %w3 {{dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 2>}} : (tensor<1x64x4xf32>, tensor<64x64x3xf32>) -> tensor<1x64x1xf32>
  return %0, %2, %3 : tensor<1x48x1x1xf32>, tensor<1x40x4xf32>, tensor<1x64x1xf32>
}}
"""
    with open(os.path.join(out, "model.mlir"), "w") as f:
        f.write(model)
    with open(os.path.join(out, "se.json"), "w") as f:
        json.dump({"shape": [1, 24, 1, 1], "dtype": "f32",
                   "data": values(24, 9, 0.5)}, f)
    with open(os.path.join(out, "sig.json"), "w") as f:
        json.dump({"shape": [1, 1, 200], "dtype": "f32",
                   "data": values(200, 17, 0.0625)}, f)
    with open(os.path.join(out, "enc.json"), "w") as f:
        json.dump({"shape": [1, 64, 4], "dtype": "f32",
                   "data": values(256, 19, 0.25)}, f)


if __name__ == "__main__":
    main()
