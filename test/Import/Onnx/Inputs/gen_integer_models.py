"""Writes integer convolutions and matmuls whose sums exceed what an f32
holds exactly (2^24), with their exact outputs, for integer-exact.test.

Usage: gen_integer_models.py OUT_DIR
For each model NAME: OUT_DIR/NAME.textproto (an ONNX model, weights as
constant initializers) and OUT_DIR/NAME/test_data_set_0/{input,output}_N.
textproto (TensorProto), all protobuf text for protoc --encode. Values come
from a fixed linear congruential sequence (no third-party modules); the
outputs are computed here with Python integers.
"""
import os
import sys

UINT8, INT8, INT32 = 2, 3, 6


def lcg(count, seed, lo, hi):
    out, s = [], seed
    for _ in range(count):
        s = (s * 1103515245 + 12345) % (1 << 31)
        out.append(lo + (s >> 8) % (hi - lo + 1))
    return out


def tensor(name, dtype, dims, vals, indent="  "):
    body = "".join(f"{indent}  dims: {d}\n" for d in dims)
    body += f"{indent}  data_type: {dtype}\n"
    body += "".join(f"{indent}  int32_data: {v}\n" for v in vals)
    return f'{indent}name: "{name}"\n' + body


def value_info(name, dtype, dims):
    shape = "".join(f" dim {{ dim_value: {d} }}" for d in dims)
    return (f'  {{ name: "{name}" type {{ tensor_type {{ elem_type: {dtype} '
            f'shape {{{shape} }} }} }} }}\n')


def model(out, name, node, inputs, inits, output):
    text = 'ir_version: 8\nopset_import { domain: "" version: 13 }\n'
    text += f'graph {{\n  name: "{name}"\n  {node}\n'
    for iname, dtype, dims, vals in inits:
        text += "  initializer {\n" + tensor(iname, dtype, dims, vals, "    ") + "  }\n"
    for iname, dtype, dims, _ in inputs:
        text += "  input" + value_info(iname, dtype, dims)
    text += "  output" + value_info(*output)
    text += "}\n"
    with open(os.path.join(out, name + ".textproto"), "w") as f:
        f.write(text)
    d = os.path.join(out, name, "test_data_set_0")
    os.makedirs(d, exist_ok=True)
    for i, (iname, dtype, dims, vals) in enumerate(inputs):
        with open(os.path.join(d, f"input_{i}.textproto"), "w") as f:
            f.write(tensor(iname, dtype, dims, vals, ""))


def write_output(out, name, oname, dims, vals):
    d = os.path.join(out, name, "test_data_set_0")
    with open(os.path.join(d, "output_0.textproto"), "w") as f:
        f.write(tensor(oname, INT32, dims, vals, ""))


def conv(x, xz, w, c, h, wd, f, k=3):
    """Valid, stride-1 k x k convolution of x [1,c,h,wd] with w [f,c,k,k]."""
    oh, ow = h - k + 1, wd - k + 1
    y = []
    for fi in range(f):
        for i in range(oh):
            for j in range(ow):
                s = 0
                for ci in range(c):
                    for a in range(k):
                        for b in range(k):
                            s += (x[(ci * h + i + a) * wd + j + b] - xz) * \
                                 w[((fi * c + ci) * k + a) * k + b]
                y.append(s)
    return y, [1, f, oh, ow]


def conv_model(out, name, w_lo, w_hi, seed):
    c, h, wd, f = 256, 5, 5, 4
    x = lcg(c * h * wd, seed, 180, 255)
    w = lcg(f * c * 9, seed + 1, w_lo, w_hi)
    xz = 3
    node = ('node { input: "x" input: "w" input: "xz" output: "y" '
            'op_type: "ConvInteger" name: "conv" }')
    model(out, name, node, [("x", UINT8, [1, c, h, wd], x)],
          [("w", INT8, [f, c, 3, 3], w), ("xz", UINT8, [], [xz])],
          ("y", INT32, [1, f, h - 2, wd - 2]))
    y, dims = conv(x, xz, w, c, h, wd, f)
    write_output(out, name, "y", dims, y)
    return max(abs(v) for v in y)


def matmul_model(out, name, b_lo, b_hi, seed):
    m, k, n = 3, 2048, 5
    a = lcg(m * k, seed, 150, 255)
    b = lcg(k * n, seed + 1, b_lo, b_hi)
    az = [7, 0, 20]  # one zero point per row of A
    node = ('node { input: "a" input: "b" input: "az" output: "y" '
            'op_type: "MatMulInteger" name: "mm" }')
    model(out, name, node, [("a", UINT8, [m, k], a)],
          [("b", INT8, [k, n], b), ("az", UINT8, [m], az)],
          ("y", INT32, [m, n]))
    y = [sum((a[i * k + t] - az[i]) * b[t * n + j] for t in range(k))
         for i in range(m) for j in range(n)]
    write_output(out, name, "y", [m, n], y)
    return max(abs(v) for v in y)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    # Small weights: the sums stay under 2^24, one f32 convolution.
    assert conv_model(out, "conv-small", -20, 20, 11) < 1 << 24
    # Large weights: sums up to ~5e7 (under 2^24 only in parts).
    assert conv_model(out, "conv-large", 90, 127, 13) > 1 << 25
    assert matmul_model(out, "matmul-small", -9, 9, 17) < 1 << 24
    assert matmul_model(out, "matmul-large", 100, 127, 19) > 1 << 25


if __name__ == "__main__":
    main()
