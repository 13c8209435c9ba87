"""Writes ONNX test data sets for the symbolic fake model at two shapes.
  make_test_data.py DIR
DIR/test_data_set_0: batch 2, seq 4; DIR/test_data_set_1: batch 3, seq 0.
Each set has input_0..2.pb (x, mask, s) and output_0..2.pb (y, z, w) as
f32 TensorProtos with raw_data (no onnx package needed)."""
import os, struct, sys


def varint(n):
    out = b""
    while True:
        byte = n & 0x7F
        n >>= 7
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


def tensor(name, dims, values):
    body = b"".join(b"\x08" + varint(d) for d in dims) + b"\x10\x01"
    body += b"\x42" + varint(len(name)) + name.encode()
    raw = struct.pack("<%df" % len(values), *values)
    return body + b"\x4a" + varint(len(raw)) + raw


def write_set(path, batch, seq):
    os.makedirs(path, exist_ok=True)
    x = [float(k) for k in range(batch * 3)]
    mask = [100.0] * batch
    s = [1.0 + j for j in range(seq)]
    y = [x[3 * i] + x[3 * i + 1] + x[3 * i + 2] + mask[i] for i in range(batch)]
    z = [float(k) for k in range(2 * batch + 1)]
    w = [v * batch for v in s]
    files = [("input_0", "x", [batch, 3], x), ("input_1", "mask", [batch], mask),
             ("input_2", "s", [seq], s), ("output_0", "y", [batch], y),
             ("output_1", "z", [2 * batch + 1], z), ("output_2", "w", [seq], w)]
    for stem, name, dims, values in files:
        with open(os.path.join(path, stem + ".pb"), "wb") as f:
            f.write(tensor(name, dims, values))


write_set(os.path.join(sys.argv[1], "test_data_set_0"), 2, 4)
write_set(os.path.join(sys.argv[1], "test_data_set_1"), 3, 0)
