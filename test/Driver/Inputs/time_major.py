#!/usr/bin/env python3
"""A time-major model with two symbols, for symbolic-padded.test: input x
[time, batch, 3] (dim_params), y = ReduceSum over time [batch, 3] and
z = Softmax over time [time, batch, 3]. No op mixes the batch (it runs in
chunks); time is mixed (padded to its bound). The padded symbol comes
before the chunked one, so every chunk is staged box by box.
  time_major.py model              ONNX protobuf text (stdout)
  time_major.py input T N FILE     writes x, T x N x 3, as .npy
  time_major.py check T N DIR      checks DIR/y.npy and DIR/z.npy against
                                   the sums and softmaxes computed here
Test infrastructure, Python 3 standard library only."""

import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import npy  # noqa: E402


def values(t, n):
    return [[[math.sin(0.37 * (i * 31 + b * 7 + c)) * 2 for c in range(3)]
             for b in range(n)] for i in range(t)]


mode = sys.argv[1]
if mode == "model":
    print('ir_version: 8\nopset_import { domain: "" version: 13 }\ngraph {\n'
          '  name: "time_major"')
    print('  node { op_type: "ReduceSum" input: "x" input: "axes" output: "y" '
          'name: "y" attribute { name: "keepdims" type: INT i: 0 } }')
    print('  node { op_type: "Softmax" input: "x" output: "z" name: "z" '
          'attribute { name: "axis" type: INT i: 0 } }')
    print('  initializer { name: "axes" data_type: 7 dims: 1 int64_data: 0 }')
    print('  input { name: "x" type { tensor_type { elem_type: 1 shape { '
          'dim { dim_param: "time" } dim { dim_param: "batch" } '
          'dim { dim_value: 3 } } } } }')
    print('  output { name: "y" type { tensor_type { elem_type: 1 shape { '
          'dim { dim_param: "batch" } dim { dim_value: 3 } } } } }')
    print('  output { name: "z" type { tensor_type { elem_type: 1 shape { '
          'dim { dim_param: "time" } dim { dim_param: "batch" } '
          'dim { dim_value: 3 } } } } }')
    print("}")
elif mode == "input":
    t, n = int(sys.argv[2]), int(sys.argv[3])
    flat = [v for row in values(t, n) for sample in row for v in sample]
    npy.write(sys.argv[4], "<f4", [t, n, 3], flat)
else:
    t, n, out = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    x = values(t, n)
    # The input as it was written: rounded to f32.
    import struct
    x = [[[struct.unpack("f", struct.pack("f", v))[0] for v in s] for s in r]
         for r in x]
    y = [sum(x[i][b][c] for i in range(t)) for b in range(n) for c in range(3)]
    z = []
    for i in range(t):
        for b in range(n):
            for c in range(3):
                m = max(x[k][b][c] for k in range(t))
                s = sum(math.exp(x[k][b][c] - m) for k in range(t))
                z.append(math.exp(x[i][b][c] - m) / s)
    worst = 0.0
    for name, want in (("y", y), ("z", z)):
        got = npy.read(os.path.join(out, name + ".npy"))[2]
        if len(got) != len(want):
            print("%s: %d values, expected %d" % (name, len(got), len(want)))
            sys.exit(1)
        worst = max([worst] + [abs(g - w) for g, w in zip(got, want)])
    print("time %d batch %d: %s (max error %.1e)" %
          (t, n, "match" if worst < 1e-5 else "DIFFERENT", worst))
