#!/usr/bin/env python3
"""Writes the masked self-attention models of attention-dead-keys.test as
protobuf text (stdout): make_masked_attention.py NAME. Test
infrastructure, Python 3 standard library only.

  causal   ONNX Attention (opset 23), is_causal, 8 heads of 16, 256 tokens
  where    GPT-2's form (opset 17): Q K^T scaled, Where(tril, s, -3.4e38)
           with a constant lower-triangular bool mask, Softmax, P V; 8 heads,
           128 tokens
  window   the same with a sliding window of 16 keys as a constant additive
           mask of 0 / -inf: each row sees keys (i - 15) .. i
  soft     the same as where, but the masked scores are -10000 (BERT's
           value), which is not small enough to make exp exactly 0

make_masked_attention.py inputs NAME DIR writes the model's Q, K and V as
DIR/Q.npy, DIR/K.npy, DIR/V.npy (values of a few units, no pattern that a
block of keys could hide).
"""
import math
import os
import struct
import sys


def write_inputs(name, out):
    dims = [1, 8, 256, 16] if name == "causal" else [1, 8, 128, 16]
    n = dims[0] * dims[1] * dims[2] * dims[3]
    for seed, x in enumerate("QKV"):
        vals = [2.0 * math.sin(0.7 * i + 1.3 * seed) * math.cos(0.013 * i * (seed + 1))
                for i in range(n)]
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % ", ".join(
            map(str, dims))
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        with open(os.path.join(out, x + ".npy"), "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
            f.write(struct.pack("<%df" % n, *vals))


def shape(dims):
    return "shape { %s }" % " ".join("dim { dim_value: %d }" % d for d in dims)


def value_info(kind, name, elem, dims):
    return '  %s { name: "%s" type { tensor_type { elem_type: %d %s } } }' % (
        kind, name, elem, shape(dims))


def initializer(name, elem, dims, values):
    field = "float_data" if elem == 1 else "int32_data"
    data = " ".join("%s: %r" % (field, v) for v in values)
    return '  initializer { name: "%s" data_type: %d %s %s }' % (
        name, elem, " ".join("dims: %d" % d for d in dims), data)


def causal():
    dims = [1, 8, 256, 16]
    print('ir_version: 10\nopset_import { domain: "" version: 23 }\ngraph {\n  name: "causal"')
    print('  node { op_type: "Attention" name: "attention" input: "Q" input: "K" '
          'input: "V" output: "Y" attribute { name: "is_causal" type: INT i: 1 } }')
    for x in "QKV":
        print(value_info("input", x, 1, dims))
    print(value_info("output", "Y", 1, dims))
    print("}")


def masked(name):
    n, dims = 128, [1, 8, 128, 16]
    print('ir_version: 9\nopset_import { domain: "" version: 17 }\ngraph {\n  name: "%s"' % name)
    print('  node { op_type: "Transpose" input: "K" output: "KT" '
          'attribute { name: "perm" type: INTS ints: 0 ints: 1 ints: 3 ints: 2 } }')
    print('  node { op_type: "MatMul" input: "Q" input: "KT" output: "S" }')
    print('  node { op_type: "Mul" input: "S" input: "scale" output: "SS" }')
    if name in ("where", "soft"):
        print('  node { op_type: "Where" input: "mask" input: "SS" input: "fill" output: "M" }')
    else:
        print('  node { op_type: "Add" input: "SS" input: "mask" output: "M" }')
    print('  node { op_type: "Softmax" input: "M" output: "P" '
          'attribute { name: "axis" type: INT i: -1 } }')
    print('  node { op_type: "MatMul" input: "P" input: "V" output: "Y" }')
    print(initializer("scale", 1, [], [0.25]))
    if name in ("where", "soft"):
        tril = [int(k <= q) for q in range(n) for k in range(n)]
        print(initializer("mask", 9, [1, 1, n, n], tril))
        fill = -3.4028234663852886e38 if name == "where" else -10000.0
        print(initializer("fill", 1, [], [fill]))
    else:
        window = [0.0 if q - 16 < k <= q else float("-inf")
                  for q in range(n) for k in range(n)]
        print(initializer("mask", 1, [n, n], window))
    for x in "QKV":
        print(value_info("input", x, 1, dims))
    print(value_info("output", "Y", 1, dims))
    print("}")


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        write_inputs(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "causal":
        causal()
    else:
        masked(sys.argv[1])
