"""Writes a model and an input for cpu-pack-run.test: y = x @ W + x @ b
where W is a constant (packed at compile time) and b an input (packed at
run time), with sizes that give several 32-wide column panels and 8-row
blocks, and a second product whose N (12) gives 4-wide panels.

Usage: gen_matmul_model.py OUT_DIR
Writes OUT_DIR/model.mlir, OUT_DIR/x.json and OUT_DIR/b.json; the values
come from a fixed linear congruential sequence (no third-party modules).
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


def main():
    out = sys.argv[1]
    w = values(K * N, 1)
    w2 = values(N * N2, 2)
    model = f"""module attributes {{hodu.model_name = "packed"}} {{
  func.func @main(%x: tensor<{M}x{K}xf32> {{hodu.name = "x"}}, %b: tensor<{K}x{N}xf32> {{hodu.name = "b"}}) -> (tensor<{M}x{N}xf32> {{hodu.name = "y"}}, tensor<{M}x{N2}xf32> {{hodu.name = "z"}}) {{
    %w = hodu.constant dense<{dense(w, K, N)}> : tensor<{K}x{N}xf32>
    %p = hodu.matmul %x, %w : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
    %q = hodu.matmul %x, %b : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
    %y = hodu.add %p, %q : (tensor<{M}x{N}xf32>, tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
    %w2 = hodu.constant dense<{dense(w2, N, N2)}> : tensor<{N}x{N2}xf32>
    %z = hodu.matmul %y, %w2 : (tensor<{M}x{N}xf32>, tensor<{N}x{N2}xf32>) -> tensor<{M}x{N2}xf32>
    return %y, %z : tensor<{M}x{N}xf32>, tensor<{M}x{N2}xf32>
  }}
}}
"""
    with open(os.path.join(out, "model.mlir"), "w") as f:
        f.write(model)
    for name, shape, seed in (("x", [M, K], 3), ("b", [K, N], 4)):
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump({"shape": shape, "dtype": "f32",
                       "data": values(shape[0] * shape[1], seed)}, f)


if __name__ == "__main__":
    main()
