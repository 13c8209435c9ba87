"""Tiny .npy writer/reader for tests (no numpy needed).
  npy.py write FILE DESCR N v1 ... vN   (1-D; N may be dims "2,3,4")
  npy.py read FILE                      prints: descr shape values
As a module: write(path, descr, dims, values) and read(path) -> (descr,
shape, values)."""
import ast, struct, sys
fmt = {"<i4": "i", "<f4": "f", "<i8": "q", "<f8": "d", "|u1": "B", "|b1": "?"}


def write(path, descr, dims, vals):
    n = 1
    for d in dims:
        n *= d
    vals = list(vals)[:n]
    shape = "(%d,)" % n if len(dims) == 1 else "(%s)" % ", ".join(map(str, dims))
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (n, fmt[descr]), *vals))


def read(path):
    data = open(path, "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    h = ast.literal_eval(data[10:10 + hlen].decode())
    n = 1
    for d in h["shape"]:
        n *= d
    return h["descr"], h["shape"], struct.unpack("<%d%s" % (n, fmt[h["descr"]]),
                                                 data[10 + hlen:])


if __name__ == "__main__":
    if sys.argv[1] == "write":
        descr = sys.argv[3]
        dims = [int(d) for d in sys.argv[4].split(",")]
        write(sys.argv[2], descr, dims,
              [float(v) if "f" in descr else int(v) for v in sys.argv[5:]])
    else:
        descr, shape, vals = read(sys.argv[2])
        print(descr, shape, " ".join(str(v) for v in vals))
