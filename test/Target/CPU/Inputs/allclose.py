"""Compares the .npy files of two directories (no numpy needed):
  allclose.py GOT_DIR EXPECTED_DIR RTOL ATOL
Every file of EXPECTED_DIR must be in GOT_DIR with the same dtype and shape,
and every value within ATOL + RTOL * |expected|. Prints one line per file
and exits 1 on the first mismatch."""
import ast, os, struct, sys
fmt = {"<f2": "e", "<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q"}
def load(path):
    data = open(path, "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    h = ast.literal_eval(data[10:10 + hlen].decode())
    n = 1
    for d in h["shape"]:
        n *= d
    return h["descr"], h["shape"], struct.unpack("<%d%s" % (n, fmt[h["descr"]]), data[10 + hlen:])
got_dir, exp_dir, rtol, atol = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
names = sorted(f for f in os.listdir(exp_dir) if f.endswith(".npy"))
if not names:
    sys.exit("allclose.py: no .npy files in " + exp_dir)
for name in names:
    gd, gs, gv = load(os.path.join(got_dir, name))
    ed, es, ev = load(os.path.join(exp_dir, name))
    if (gd, gs) != (ed, es):
        sys.exit("%s: %s%s, expected %s%s" % (name, gd, gs, ed, es))
    for k, (g, e) in enumerate(zip(gv, ev)):
        if abs(g - e) > atol + rtol * abs(e):
            sys.exit("%s: value %d is %r, expected %r" % (name, k, g, e))
    print("%s: %s%s, %d values match" % (name, gd, list(gs), len(ev)))
