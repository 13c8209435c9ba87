"""Writes a model and inputs for cpu-pack-run.test: y = x @ W + x @ b
where W is a constant (packed at compile time) and b an input (packed at
run time), with sizes that give several 32-wide column panels and 10-row
blocks (M = 40), and a second product whose N (12) gives 4-wide panels; and two
convolutions on an image whose rows (13, then 7 wide) are not a multiple
of the panel width: a 3x3 pad-1 conv (8 filters) and a stride-2 3x3 conv
(16 filters) on its output.

Usage: gen_matmul_model.py OUT_DIR
Writes OUT_DIR/model.mlir, OUT_DIR/x.json, OUT_DIR/b.json and
OUT_DIR/img.json; the values come from a fixed linear congruential
sequence (no third-party modules).
"""
import json
import os
import sys

M, K, N, N2 = 40, 48, 96, 12


def values(count, seed):
    out, s = [], seed
    for _ in range(count):
        s = (s * 1103515245 + 12345) % (1 << 31)
        out.append(round((s / (1 << 31)) * 2.0 - 1.0, 4))
    return out


def dense(vals, rows, cols):
    return "[" + ", ".join(
        "[" + ", ".join(repr(v) for v in vals[r * cols:(r + 1) * cols]) + "]"
        for r in range(rows)) + "]"


def nested(vals, shape):
    if len(shape) == 1:
        return "[" + ", ".join(repr(v) for v in vals) + "]"
    step = len(vals) // shape[0]
    return "[" + ", ".join(nested(vals[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def main():
    out = sys.argv[1]
    w = values(K * N, 1)
    w2 = values(N * N2, 2)
    f1 = nested(values(8 * 3 * 9, 5), [8, 3, 3, 3])
    f2 = nested(values(16 * 8 * 9, 6), [16, 8, 3, 3])
    model = f"""module attributes {{hodu.model_name = "packed"}} {{
  func.func @main(%x: tensor<{M}x{K}xf32> {{hodu.name = "x"}}, %b: tensor<{K}x{N}xf32> {{hodu.name = "b"}}, %img: tensor<1x3x10x13xf32> {{hodu.name = "img"}}) -> (tensor<{M}x{N}xf32> {{hodu.name = "y"}}, tensor<{M}x{N2}xf32> {{hodu.name = "z"}}, tensor<1x8x10x13xf32> {{hodu.name = "u"}}, tensor<1x16x5x7xf32> {{hodu.name = "v"}}) {{
    %w = hodu.constant dense<{dense(w, K, N)}> : tensor<{K}x{N}xf32>
    %p = hodu.matmul %x, %w : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
    %q = hodu.matmul %x, %b : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
    %y = hodu.add %p, %q : (tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
    %w2 = hodu.constant dense<{dense(w2, N, N2)}> : tensor<{N}x{N2}xf32>
    %z = hodu.matmul %y, %w2 : (tensor<{M}x{N}xf32>, tensor<{N}x{N2}xf32>) -> tensor<{M}x{N2}xf32>
    %f1 = hodu.constant dense<{f1}> : tensor<8x3x3x3xf32>
    %u = hodu.conv %img, %f1 {{strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}} : (tensor<1x3x10x13xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x10x13xf32>
    %f2 = hodu.constant dense<{f2}> : tensor<16x8x3x3xf32>
    %v = hodu.conv %u, %f2 {{strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}} : (tensor<1x8x10x13xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x5x7xf32>
    return %y, %z, %u, %v : tensor<{M}x{N}xf32>, tensor<{M}x{N2}xf32>, tensor<1x8x10x13xf32>, tensor<1x16x5x7xf32>
  }}
}}
"""
    with open(os.path.join(out, "model.mlir"), "w") as f:
        f.write(model)
    for name, shape, seed in (("x", [M, K], 3), ("b", [K, N], 4),
                              ("img", [1, 3, 10, 13], 7)):
        count = 1
        for d in shape:
            count *= d
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump({"shape": shape, "dtype": "f32",
                       "data": values(count, seed)}, f)


if __name__ == "__main__":
    main()
