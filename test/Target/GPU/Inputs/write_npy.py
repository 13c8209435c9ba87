"""Writes an .npy of deterministic test values (no numpy needed):
  write_npy.py FILE DESCR DIMS SEED
DESCR: <f4 or <f2; DIMS: "2,3,4". The values are multiples of 1/8 in
[-1, 1], exact in f16 and bf16, so that products and the sums of a few
hundred of them are exact in f32 whatever their order.
"""
import struct, sys

path, descr, dims, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
shape = [int(d) for d in dims.split(",")]
n = 1
for d in shape:
    n *= d
vals = [((i * 7919 + seed * 104729) % 17 - 8) / 8.0 for i in range(n)]
header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s,), }" % (
    descr, ", ".join(map(str, shape)))
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
fmt = {"<f4": "f", "<f2": "e"}[descr]
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%d%s" % (n, fmt), *vals))
