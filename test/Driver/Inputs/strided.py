#!/usr/bin/env python3
"""A strided window over a symbolic length, for symbolic-padded.test: input
x [1, samples] (dim_params), y = Conv(x, w: 1 x 1 x 8, stride 4) [1, 1,
frames] and m = ReduceMax(y) over everything [1]. With samples a multiple
of 4, frames = (samples - 8) / 4 + 1 = samples/4-1 exactly.
  strided.py model              ONNX protobuf text (stdout)
  strided.py input N FILE       writes x, 1 x N, as .npy
  strided.py check N DIR        checks DIR/y.npy and DIR/m.npy against the
                                convolution and maximum computed here
Test infrastructure, Python 3 standard library only."""

import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import npy  # noqa: E402
W = [0.5, -0.25, 0.75, 1.0, -0.5, 0.25, 0.125, -1.0]


def values(n):
    return [struct.unpack("f", struct.pack("f", math.sin(0.21 * i) * 3 - 1))[0]
            for i in range(n)]


mode = sys.argv[1]
if mode == "model":
    print('ir_version: 8\nopset_import { domain: "" version: 13 }\ngraph {\n'
          '  name: "strided"')
    print('  node { op_type: "Unsqueeze" input: "x" input: "axes" output: "x3" '
          'name: "x3" }')
    print('  node { op_type: "Conv" input: "x3" input: "w" output: "y" name: "y" '
          'attribute { name: "strides" type: INTS ints: 4 } }')
    print('  node { op_type: "ReduceMax" input: "y" output: "m1" name: "m1" '
          'attribute { name: "keepdims" type: INT i: 0 } }')
    print('  node { op_type: "Unsqueeze" input: "m1" input: "axes0" output: "m" '
          'name: "m" }')
    print('  initializer { name: "axes" data_type: 7 dims: 1 int64_data: 1 }')
    print('  initializer { name: "axes0" data_type: 7 dims: 1 int64_data: 0 }')
    print('  initializer { name: "w" data_type: 1 dims: 1 dims: 1 dims: 8 %s }'
          % " ".join("float_data: %g" % v for v in W))
    print('  input { name: "x" type { tensor_type { elem_type: 1 shape { '
          'dim { dim_value: 1 } dim { dim_param: "samples" } } } } }')
    print('  output { name: "y" type { tensor_type { elem_type: 1 shape { '
          'dim { dim_value: 1 } dim { dim_value: 1 } dim { dim_param: "frames" } '
          '} } } }')
    print('  output { name: "m" type { tensor_type { elem_type: 1 shape { '
          'dim { dim_value: 1 } } } } }')
    print("}")
elif mode == "input":
    n = int(sys.argv[2])
    npy.write(sys.argv[3], "<f4", [1, n], values(n))
else:
    n, out = int(sys.argv[2]), sys.argv[3]
    x = values(n)
    y = [sum(W[k] * x[4 * f + k] for k in range(8))
         for f in range((n - 8) // 4 + 1)]
    worst = 0.0
    for name, want in (("y", y), ("m", [max(y)])):
        got = npy.read(os.path.join(out, name + ".npy"))[2]
        if len(got) != len(want):
            print("%s: %d values, expected %d" % (name, len(got), len(want)))
            sys.exit(1)
        worst = max([worst] + [abs(g - w) for g, w in zip(got, want)])
    print("samples %d, %d frames: %s (max error %.1e)" %
          (n, len(y), "match" if worst < 1e-5 else "DIFFERENT", worst))
