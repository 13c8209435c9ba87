"""Writes ConvInteger models (uint8 input and zero point as graph inputs,
constant weights) with their exact outputs, for int8-dot.test.

Usage: gen_int8_models.py OUT_DIR
For each model NAME: OUT_DIR/NAME.textproto (an ONNX model) and
OUT_DIR/NAME/test_data_set_0/{input_0,input_1,output_0}.textproto
(TensorProto), protobuf text for protoc --encode. Values come from a fixed
linear congruential sequence; the outputs are computed here with Python
integers, padding with the input's zero point as ONNX defines it (the
centered input is zero-padded)."""
import os
import sys

# The ONNX text helpers and the value sequence of the importer's integer
# tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "Import", "Onnx", "Inputs"))
from gen_integer_models import INT8, INT32, UINT8, lcg, tensor, value_info  # noqa: E402


def conv(x, xz, w, wz, c, h, wd, f, k, s, p, d):
    oh = (h + 2 * p - d * (k - 1) - 1) // s + 1
    ow = (wd + 2 * p - d * (k - 1) - 1) // s + 1
    y = []
    for fi in range(f):
        for i in range(oh):
            for j in range(ow):
                acc = 0
                for ci in range(c):
                    for a in range(k):
                        for b in range(k):
                            yy, xx = i * s + a * d - p, j * s + b * d - p
                            if 0 <= yy < h and 0 <= xx < wd:
                                xv = x[(ci * h + yy) * wd + xx] - xz
                            else:
                                xv = 0
                            acc += xv * (w[((fi * c + ci) * k + a) * k + b] - wz)
                y.append(acc)
    return y, [1, f, oh, ow]


def model(out, name, c, f, h, wd, k, s, p, d, wtype, w_lo, w_hi, wz, xz,
          seed, xz_constant=False):
    x = lcg(c * h * wd, seed, 0, 255)
    w = lcg(f * c * k * k, seed + 1, w_lo, w_hi)
    ints = lambda key, v: (f'attribute {{ name: "{key}" ints: {v} ints: {v}'
                           f'{" ints: %d ints: %d" % (v, v) if key == "pads" else ""}'
                           ' type: INTS }')
    text = 'ir_version: 8\nopset_import { domain: "" version: 13 }\n'
    text += f'graph {{\n  name: "{name}"\n'
    text += ('  node { input: "x" input: "w" input: "xz" input: "wz" '
             f'output: "y" op_type: "ConvInteger" name: "{name}" '
             f'{ints("pads", p)} {ints("strides", s)} {ints("dilations", d)} }}\n')
    text += "  initializer {\n" + tensor("w", wtype, [f, c, k, k], w, "    ") + "  }\n"
    text += "  initializer {\n" + tensor("wz", wtype, [], [wz], "    ") + "  }\n"
    if xz_constant:
        text += "  initializer {\n" + tensor("xz", UINT8, [], [xz], "    ") + "  }\n"
    text += "  input" + value_info("x", UINT8, [1, c, h, wd])
    if not xz_constant:
        text += "  input" + value_info("xz", UINT8, [])
    y, dims = conv(x, xz, w, wz, c, h, wd, f, k, s, p, d)
    text += "  output" + value_info("y", INT32, dims) + "}\n"
    with open(os.path.join(out, name + ".textproto"), "w") as fh:
        fh.write(text)
    data = os.path.join(out, name, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    files = [("input_0", tensor("x", UINT8, [1, c, h, wd], x)),
             ("output_0", tensor("y", INT32, dims, y))]
    if not xz_constant:
        files.append(("input_1", tensor("xz", UINT8, [], [xz])))
    for fname, t in files:
        with open(os.path.join(data, fname + ".textproto"), "w") as fh:
            fh.write(t)
    return max(abs(v) for v in y)


def matmul_model(out, name, rows, m, k, n, wtype, w_lo, w_hi, wz, xz, seed):
    """MatMulInteger of x [rows, m, k] (uint8) by a constant w [k, n]."""
    x = lcg(rows * m * k, seed, 0, 255)
    w = lcg(k * n, seed + 1, w_lo, w_hi)
    text = 'ir_version: 8\nopset_import { domain: "" version: 13 }\n'
    text += f'graph {{\n  name: "{name}"\n'
    text += ('  node { input: "x" input: "w" input: "xz" input: "wz" '
             f'output: "y" op_type: "MatMulInteger" name: "{name}" }}\n')
    text += "  initializer {\n" + tensor("w", wtype, [k, n], w, "    ") + "  }\n"
    text += "  initializer {\n" + tensor("wz", wtype, [], [wz], "    ") + "  }\n"
    text += "  input" + value_info("x", UINT8, [rows, m, k])
    text += "  input" + value_info("xz", UINT8, [])
    y = [sum((x[(r * m + i) * k + t] - xz) * (w[t * n + j] - wz)
             for t in range(k))
         for r in range(rows) for i in range(m) for j in range(n)]
    if name in ("matmul-large", "matmul-parts"):
        assert max(abs(v) for v in y) > 1 << 24
    dims = [rows, m, n]
    text += "  output" + value_info("y", INT32, dims) + "}\n"
    with open(os.path.join(out, name + ".textproto"), "w") as fh:
        fh.write(text)
    data = os.path.join(out, name, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    for fname, t in (("input_0", tensor("x", UINT8, [rows, m, k], x)),
                     ("input_1", tensor("xz", UINT8, [], [xz])),
                     ("output_0", tensor("y", INT32, dims, y))):
        with open(os.path.join(data, fname + ".textproto"), "w") as fh:
            fh.write(t)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    # Symmetric int8 weights: the filter fits an int8 as it is. 5 channels
    # (padded to 8), 20 filters (two register blocks of 10), 30 columns
    # (two panels of 16, the second partly outside).
    model(out, "int8-weights", 5, 20, 11, 30, 3, 1, 1, 1, INT8, -128, 127, 0,
          131, 1)
    # uint8 weights less a zero point of 200: -200..55, offset into int8
    # per filter, with the row of input sums; stride 2, dilation 2.
    model(out, "uint8-weights", 3, 24, 31, 70, 3, 2, 2, 2, UINT8, 0, 255,
          200, 17, 2)
    # 256 channels of uint8 weights 0..255: sums past 2^24, which the
    # importer splits into channel parts, each one int8 convolution.
    assert model(out, "large-sums", 256, 4, 3, 14, 3, 1, 1, 1, UINT8, 0, 255,
                 0, 5, 3) > 1 << 24
    # The input's zero point a constant (an initializer): folded.
    model(out, "constant-zero-point", 16, 16, 20, 20, 3, 1, 1, 1, INT8, -128,
          127, 0, 77, 5, xz_constant=True)
    # Matmuls: int8 weights, 2 x 13 rows (two blocks of 13) by 70 columns
    # (panels of 32, the last partly outside), K = 90 (padded to 92); and
    # uint8 weights less 128 (offsets, with the row sums), 16 columns (one
    # vector per panel).
    matmul_model(out, "matmul-int8", 2, 13, 90, 70, INT8, -128, 127, 0, 100, 6)
    matmul_model(out, "matmul-uint8", 1, 5, 64, 16, UINT8, 0, 255, 128, 3, 7)
    # 64 rows by 90 columns: 8 blocks of 8 rows by panels of 48 columns
    # (the last partly outside), which pad less than 6 blocks of 11 by 32.
    matmul_model(out, "matmul-rows64", 1, 64, 40, 90, INT8, -128, 127, 0, 9,
                 12)
    # Sums past 2^24 even in 16 parts of K: the importer's matmul is in
    # int32, taken the same way.
    matmul_model(out, "matmul-large", 1, 4, 12000, 32, INT8, 100, 127, 0, 3,
                 8)
    # AMX tiles (amx-tiles.test): 80 rows (two pairs of row tiles and one
    # more), K = 300 (padded to 5 steps of 64), 200 columns in 7 panels of
    # 32, the last partly outside; and 3 x 7 rows (padded to 32), uint8
    # weights less 200 (-200..55: offset per column into int8, with x's row
    # sums) in 24 columns (panels of 16).
    matmul_model(out, "amx-rows", 1, 80, 300, 200, INT8, -128, 127, 0, 50, 9)
    matmul_model(out, "amx-offset", 3, 7, 130, 24, UINT8, 0, 255, 200, 0, 10)
    # Sums past 2^24 (uint8 x uint8 over K = 2048) that 8 f32 parts of K
    # hold: the importer's parts, one int32 matmul again where int8
    # kernels take it.
    matmul_model(out, "matmul-parts", 1, 8, 2048, 32, UINT8, 0, 255, 0, 0, 11)
    # Output rows of 5 columns, too narrow for panels of 16: at stride 1
    # the panels run across the flattened plane (35 of 48 lanes used; with
    # padding and dilation 2, 45 of 48), at stride 2 the f32 path.
    model(out, "narrow", 8, 8, 7, 7, 3, 1, 0, 1, INT8, -100, 100, 3, 9, 4)
    model(out, "narrow-padded", 6, 12, 7, 7, 3, 1, 1, 2, UINT8, 0, 255, 90,
          40, 9)
    model(out, "narrow-strided", 8, 8, 8, 8, 3, 2, 1, 1, INT8, -100, 100, 0,
          9, 10)


if __name__ == "__main__":
    main()
