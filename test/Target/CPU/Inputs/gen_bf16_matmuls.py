"""Writes the bf16 matmul and convolution tests of bf16-dot.test into DIR (no
numpy needed):
  gen_bf16_matmuls.py DIR
DIR/m.mlir: @main(a [37, 67], x [5, 40], b [67, 20], q [3, 20, 40],
kt [3, 40, 24]) -> (c1 = a W1, c2 = x W2, c3 = a b, c4 = q kt batched), W1
[67, 50] and W2 [40, 16] constants: an odd K, a partial panel of two
vectors, a panel of one vector, a matmul by an input (B packed per run) and
a batch matmul of two inputs (attention's form). DIR/*.json are the inputs,
values with all 24 bits of an f32 mantissa in use (so that rounding them to
bf16 changes them). Expected outputs, as .npy:
  DIR/bf16/  every output with both operands rounded to bf16 (nearest
             even), then summed exactly
  DIR/exact/ every output summed exactly from the f32 values.
DIR/c.mlir: @main(x1 [1,9,17,19], x2 [1,10,12,12], x3 [1,24,8,40],
x4 [1,8,20,20], x5 [1,3,20,20], x6) -> convolutions by constant filters:
  k1 = conv(x1, [20,9,3,3]) stride 2, pad 1: an odd C, panels along rows
  k2 = conv(x2, [36,10,5,5]) pad 2: rows narrower than a panel (flattened)
  k3 = bias + conv(x3, [40,24,1,1]): an init that is not zero
  k4 = conv(x4, [8,8,3,3]) dilation 2, pad 2
  k5 = conv(x5, [16,3,3,3]) stride 2, pad 1: 3 channels, which stay f32
  k6 = conv(x6 [2,16,12,30], [24,16,3,3]) stride 2, pad 1: a batch of 2
with the same expected outputs in DIR/conv/bf16 and DIR/conv/exact."""
import json, os, struct, sys

out = sys.argv[1]
state = 2463534242


def rand():
    """xorshift32, in (-1, 1) rounded to f32."""
    global state
    state ^= (state << 13) & 0xFFFFFFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFFFFFF
    v = (state / 2**32) * 2 - 1
    return struct.unpack("<f", struct.pack("<f", v))[0]


def bf16(v):
    """v (an f32) rounded to bf16, nearest even, as a float."""
    u = struct.unpack("<I", struct.pack("<f", v))[0]
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", u))[0]


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def matrix(rows, cols):
    return [[rand() for _ in range(cols)] for _ in range(rows)]


def matmul(a, w, rnd):
    k, n = len(w), len(w[0])
    return [[f32(sum(rnd(r[t]) * rnd(w[t][j]) for t in range(k)))
             for j in range(n)] for r in a]


def dense(m):
    return "dense<[" + ", ".join(
        "[" + ", ".join("%.9e" % v for v in row) + "]" for row in m) + "]>"


def flat(m):
    """The values of a nested list, and its shape."""
    if not isinstance(m, list):
        return [m], []
    parts = [flat(x) for x in m]
    return [v for p in parts for v in p[0]], [len(m)] + parts[0][1]


def write_npy(path, m):
    values, shape = flat(m)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else ""))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode())
        f.write(b"".join(struct.pack("<f", v) for v in values))


a, x, b = matrix(37, 67), matrix(5, 40), matrix(67, 20)
# 64 rows by 90 constant columns: 8 blocks of 8 rows by three-vector panels.
y, w5 = matrix(64, 24), matrix(24, 90)
q = [matrix(20, 40) for _ in range(3)]
kt = [matrix(40, 24) for _ in range(3)]
w1, w2 = matrix(67, 50), matrix(40, 16)
same = lambda v: v
for name, m in (("a", a), ("x", x), ("b", b), ("q", q), ("kt", kt), ("y", y)):
    values, shape = flat(m)
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump({"shape": shape, "dtype": "f32", "data": values}, f)
for sub, rnd in (("bf16", bf16), ("exact", same)):
    os.makedirs(os.path.join(out, sub), exist_ok=True)
    write_npy(os.path.join(out, sub, "c1.npy"), matmul(a, w1, rnd))
    write_npy(os.path.join(out, sub, "c2.npy"), matmul(x, w2, rnd))
    write_npy(os.path.join(out, sub, "c3.npy"), matmul(a, b, rnd))
    write_npy(os.path.join(out, sub, "c4.npy"),
              [matmul(qi, ki, rnd) for qi, ki in zip(q, kt)])
    write_npy(os.path.join(out, sub, "c5.npy"), matmul(y, w5, rnd))

zero = "    %zero = arith.constant 0.0 : f32\n"


def mm(res, lhs, rhs, m, k, n):
    return ("    %%e_%s = tensor.empty() : tensor<%dx%dxf32>\n"
            "    %%i_%s = linalg.fill ins(%%zero : f32) outs(%%e_%s : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n"
            "    %%%s = linalg.matmul ins(%%%s, %%%s : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%i_%s : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n"
            % (res, m, n, res, res, m, n, m, n, res, lhs, rhs, m, k, k, n, res, m, n, m, n))


with open(os.path.join(out, "m.mlir"), "w") as f:
    f.write('module attributes {hodu.model_name = "bf16mm"} {\n'
            '  func.func @main(%a: tensor<37x67xf32> {hodu.name = "a"}, '
            '%x: tensor<5x40xf32> {hodu.name = "x"}, '
            '%b: tensor<67x20xf32> {hodu.name = "b"}, '
            '%q: tensor<3x20x40xf32> {hodu.name = "q"}, '
            '%kt: tensor<3x40x24xf32> {hodu.name = "kt"}, '
            '%y: tensor<64x24xf32> {hodu.name = "y"}) -> '
            '(tensor<37x50xf32> {hodu.name = "c1"}, '
            'tensor<5x16xf32> {hodu.name = "c2"}, '
            'tensor<37x20xf32> {hodu.name = "c3"}, '
            'tensor<3x20x24xf32> {hodu.name = "c4"}, '
            'tensor<64x90xf32> {hodu.name = "c5"}) {\n')
    f.write("    %%w1 = arith.constant %s : tensor<67x50xf32>\n" % dense(w1))
    f.write("    %%w2 = arith.constant %s : tensor<40x16xf32>\n" % dense(w2))
    f.write("    %%w5 = arith.constant %s : tensor<24x90xf32>\n" % dense(w5))
    f.write(zero)
    f.write(mm("c1", "a", "w1", 37, 67, 50))
    f.write(mm("c2", "x", "w2", 5, 40, 16))
    f.write(mm("c3", "a", "b", 37, 67, 20))
    f.write("    %e_c4 = tensor.empty() : tensor<3x20x24xf32>\n"
            "    %i_c4 = linalg.fill ins(%zero : f32) outs(%e_c4 : tensor<3x20x24xf32>) -> tensor<3x20x24xf32>\n"
            "    %c4 = linalg.batch_matmul ins(%q, %kt : tensor<3x20x40xf32>, tensor<3x40x24xf32>) "
            "outs(%i_c4 : tensor<3x20x24xf32>) -> tensor<3x20x24xf32>\n")
    f.write(mm("c5", "y", "w5", 64, 24, 90))
    f.write("    return %c1, %c2, %c3, %c4, %c5 : tensor<37x50xf32>, tensor<5x16xf32>, "
            "tensor<37x20xf32>, tensor<3x20x24xf32>, tensor<64x90xf32>\n  }\n}\n")


def conv(x, w, stride, pad, dil, rnd, bias=None):
    """x [C][H][W] by w [F][C][KH][KW] -> [F][OH][OW], zero padding."""
    c, h, wd = len(x), len(x[0]), len(x[0][0])
    kh, kw = len(w[0][0]), len(w[0][0][0])
    oh = (h + 2 * pad - dil * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * pad - dil * (kw - 1) - 1) // stride + 1
    xr = [[[rnd(v) for v in r] for r in p] for p in x]
    out = []
    for fi, wf in enumerate(w):
        wr = [[[rnd(v) for v in r] for r in p] for p in wf]
        plane = []
        for oy in range(oh):
            row = []
            for ox in range(ow):
                s = 0.0
                for ci in range(c):
                    for i in range(kh):
                        y = oy * stride + i * dil - pad
                        if y < 0 or y >= h:
                            continue
                        for j in range(kw):
                            xx = ox * stride + j * dil - pad
                            if 0 <= xx < wd:
                                s += xr[ci][y][xx] * wr[ci][i][j]
                s = f32(s)
                row.append(f32(s + bias[fi]) if bias else s)
            plane.append(row)
        out.append(plane)
    return [out]


def tensor(*shape):
    if len(shape) == 1:
        return [rand() for _ in range(shape[0])]
    return [tensor(*shape[1:]) for _ in range(shape[0])]


convs = [  # name, x shape, w shape, stride, pad, dilation, bias
    ("k1", (1, 9, 17, 19), (20, 9, 3, 3), 2, 1, 1, False),
    ("k2", (1, 10, 12, 12), (36, 10, 5, 5), 1, 2, 1, False),
    ("k3", (1, 24, 8, 40), (40, 24, 1, 1), 1, 0, 1, True),
    ("k4", (1, 8, 20, 20), (8, 8, 3, 3), 1, 2, 2, False),
    ("k5", (1, 3, 20, 20), (16, 3, 3, 3), 2, 1, 1, False),
    ("k6", (2, 16, 12, 30), (24, 16, 3, 3), 2, 1, 1, False),
]
F32_ONLY = ("k5",)  # an image stem of 3 channels stays f32
args, results, body = [], [], [zero]
for name, xs, ws, st, pad, dil, has_bias in convs:
    xn = "x" + name[1]
    x, w = tensor(*xs), tensor(*ws)
    bias = tensor(ws[0]) if has_bias else None
    values, shape = flat(x)
    with open(os.path.join(out, xn + ".json"), "w") as f:
        json.dump({"shape": shape, "dtype": "f32", "data": values}, f)
    for sub, rnd in (("bf16", same if name in F32_ONLY else bf16),
                     ("exact", same)):
        os.makedirs(os.path.join(out, "conv", sub), exist_ok=True)
        write_npy(os.path.join(out, "conv", sub, name + ".npy"),
                  [conv(xn, w, st, pad, dil, rnd, bias)[0] for xn in x])
    oh = (xs[2] + 2 * pad - dil * (ws[2] - 1) - 1) // st + 1
    ow = (xs[3] + 2 * pad - dil * (ws[3] - 1) - 1) // st + 1
    ty = lambda s: "tensor<%sxf32>" % "x".join(str(d) for d in s)
    xt, wt, ot = ty(xs), ty(ws), ty((xs[0], ws[0], oh, ow))
    pt = ty((xs[0], xs[1], xs[2] + 2 * pad, xs[3] + 2 * pad))
    args.append('%%%s: %s {hodu.name = "%s"}' % (xn, xt, xn))
    results.append((name, ot))
    body.append("    %%w_%s = arith.constant dense<[%s]> : %s\n" % (
        name, ", ".join(
            "[" + ", ".join(dense(ch)[6:-1] for ch in fi) + "]"
            for fi in w), wt))
    src = "%" + xn
    if pad:
        body.append("    %%p_%s = tensor.pad %s low[0, 0, %d, %d] high[0, 0, %d, %d] {\n"
                    "    ^bb0(%%i0: index, %%i1: index, %%i2: index, %%i3: index):\n"
                    "      tensor.yield %%zero : f32\n    } : %s to %s\n"
                    % (name, src, pad, pad, pad, pad, xt, pt))
        src = "%p_" + name
    else:
        pt = xt
    body.append("    %%e_%s = tensor.empty() : %s\n" % (name, ot))
    if has_bias:
        body.append("    %%b_%s = arith.constant dense<[%s]> : tensor<%dxf32>\n"
                    % (name, ", ".join("%.9e" % v for v in bias), ws[0]))
        body.append("    %%i_%s = linalg.broadcast ins(%%b_%s : tensor<%dxf32>) "
                    "outs(%%e_%s : %s) dimensions = [0, 2, 3]\n"
                    % (name, name, ws[0], name, ot))
    else:
        body.append("    %%i_%s = linalg.fill ins(%%zero : f32) outs(%%e_%s : %s) -> %s\n"
                    % (name, name, ot, ot))
    body.append("    %%%s = linalg.conv_2d_nchw_fchw {dilations = dense<%d> : tensor<2xi64>, "
                "strides = dense<%d> : tensor<2xi64>} ins(%s, %%w_%s : %s, %s) "
                "outs(%%i_%s : %s) -> %s\n"
                % (name, dil, st, src, name, pt, wt, name, ot, ot))
with open(os.path.join(out, "c.mlir"), "w") as f:
    f.write('module attributes {hodu.model_name = "bf16conv"} {\n'
            "  func.func @main(%s) -> (%s) {\n" % (
                ", ".join(args),
                ", ".join('%s {hodu.name = "%s"}' % (t, n) for n, t in results)))
    f.write("".join(body))
    f.write("    return %s : %s\n  }\n}\n" % (
        ", ".join("%" + n for n, _ in results), ", ".join(t for _, t in results)))
