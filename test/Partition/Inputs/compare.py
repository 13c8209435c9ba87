"""Compares the JSON tensors two hodu-run -o DIR -f json runs wrote:
every file in DIR_A must match DIR_B's within rtol/atol. Test helper."""
import json, os, sys

a_dir, b_dir = sys.argv[1], sys.argv[2]
rtol, atol = 1e-5, 1e-6
names = sorted(os.listdir(a_dir))
if not names or names != sorted(os.listdir(b_dir)):
    sys.exit("different outputs: %s vs %s" % (names, sorted(os.listdir(b_dir))))
for name in names:
    a = json.load(open(os.path.join(a_dir, name)))
    b = json.load(open(os.path.join(b_dir, name)))
    if a["shape"] != b["shape"] or a["dtype"] != b["dtype"]:
        sys.exit("%s: %s %s vs %s %s" % (name, a["dtype"], a["shape"], b["dtype"], b["shape"]))
    for i, (x, y) in enumerate(zip(a["data"], b["data"])):
        if abs(x - y) > atol + rtol * abs(x):
            sys.exit("%s: element %d: %r vs %r" % (name, i, x, y))
    print("%s: %d elements match" % (name, len(a["data"])))
