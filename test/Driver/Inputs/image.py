#!/usr/bin/env python3
"""A small CNN with an image input x [N, 3, H, W] (dim_params), for
symbolic-image.test: a 3x3 convolution (padding 1) and ReLU, a 3x3 max
pool (padding 1), a 3x3 stride-2 convolution, a nearest and a linear
Resize by 2 back to H x W, added to a second 3x3 convolution of the first
features (y, whose padding, relu(bias), the mask must zero), and a global
average pool of the sum (z, [N, 4]). H and W are each mixed by the
windows, so both are padded; N runs in chunks.
  image.py model                  ONNX protobuf text (stdout)
  image.py input N H W FILE       writes x as .npy
  image.py compare A B            the largest difference of two .npy files
                                  of one shape; exit 1 above 1e-5
Test infrastructure, Python 3 standard library only."""

import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import npy  # noqa: E402
from onnx_text import Graph  # noqa: E402

mode = sys.argv[1]
if mode == "model":
    g = Graph(11)
    inits = (g.floats("k1", [4, 3, 3, 3]) + g.floats("b1", [4], 0.1)
             + g.floats("k2", [4, 4, 3, 3]) + g.floats("b2", [4], 0.1)
             + g.floats("k3", [4, 4, 3, 3]) + g.floats("b3", [4], 0.1))
    ints = lambda *v: "type: INTS " + " ".join("ints: %d" % i for i in v)
    g.node("Conv", ["x", "k1", "b1"], "c1", pads=ints(1, 1, 1, 1))
    g.node("Relu", ["c1"], "r1")
    g.node("MaxPool", ["r1"], "p1", kernel_shape=ints(3, 3), pads=ints(1, 1, 1, 1))
    g.node("Conv", ["p1", "k2", "b2"], "c2", pads=ints(1, 1, 1, 1),
           strides=ints(2, 2))
    g.node("Resize", ["c2", "", "scales"], "up_n", mode='type: STRING s: "nearest"',
           coordinate_transformation_mode='type: STRING s: "asymmetric"',
           nearest_mode='type: STRING s: "floor"')
    g.node("Resize", ["c2", "", "scales"], "up_l", mode='type: STRING s: "linear"',
           coordinate_transformation_mode='type: STRING s: "half_pixel"')
    g.node("Add", ["up_n", "up_l"], "up")
    g.node("Conv", ["r1", "k3", "b3"], "c3", pads=ints(1, 1, 1, 1))
    g.node("Add", ["up", "c3"], "y")
    g.node("GlobalAveragePool", ["y"], "gap")
    g.node("Flatten", ["gap"], "z")
    dim = lambda d: "dim { dim_param: \"%s\" }" % d if isinstance(d, str) else \
        "dim { dim_value: %d }" % d
    shape = lambda dims: " ".join(dim(d) for d in dims)
    print('ir_version: 8\nopset_import { domain: "" version: 13 }\ngraph {\n'
          '  name: "image"')
    print("".join(g.nodes) + inits, end="")
    print('  initializer { name: "scales" data_type: 1 dims: 4 float_data: 1 '
          'float_data: 1 float_data: 2 float_data: 2 }')
    print('  input { name: "x" type { tensor_type { elem_type: 1 shape { %s } } } }'
          % shape(["N", 3, "H", "W"]))
    print('  output { name: "y" type { tensor_type { elem_type: 1 shape { %s } } } }'
          % shape(["N", 4, "H", "W"]))
    print('  output { name: "z" type { tensor_type { elem_type: 1 shape { %s } } } }'
          % shape(["N", 4]))
    print("}")
elif mode == "input":
    n, h, w = (int(v) for v in sys.argv[2:5])
    vals = [math.sin(0.13 * i) * 2 for i in range(n * 3 * h * w)]
    npy.write(sys.argv[5], "<f4", [n, 3, h, w], vals)
else:
    _, sa, a = npy.read(sys.argv[2])
    _, sb, b = npy.read(sys.argv[3])
    if sa != sb:
        print("shapes differ: %s and %s" % (sa, sb))
        sys.exit(1)
    diff = max(abs(x - y) for x, y in zip(a, b))
    print("%s: max abs diff %s" % ("same" if diff <= 1e-5 else "DIFFERENT", diff))
    sys.exit(0 if diff <= 1e-5 else 1)
