"""Writing and reading .npy files without numpy, for the tests'
scripts (autodiff_fd.py, train_loop.py, and long_sums.py of
Conversion/HoduToLinalg)."""
import struct

_FORMATS = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q"}


def write_npy(path, values, shape, descr="<f4"):
    """`values` (a list or an array.array of that type) as `descr`."""
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(map(str, shape)) + ("," if len(shape) == 1 else ""))
    hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode())
        if hasattr(values, "tofile"):
            values.tofile(f)
        else:
            f.write(struct.pack("<%d%s" % (len(values), _FORMATS[descr]), *values))


def read_npy(path):
    """The values of an .npy file of one of the types above, flat."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack_from("<H", data, 8)[0]
    hdr = data[10:10 + n].decode()
    fmt = next(f for d, f in _FORMATS.items() if d in hdr)
    body = data[10 + n:]
    return list(struct.unpack("<%d%s" % (len(body) // struct.calcsize(fmt), fmt), body))
