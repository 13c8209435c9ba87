"""Writes one .json input per tensor argument of an .mlir file's @main into
DIR and prints the hodu-run arguments for them:
  inputs_for.py FILE.mlir DIR
Values are small fractions from a fixed sequence (no randomness), different
for every input."""
import json, re, sys
text = open(sys.argv[1]).read()
sig = re.search(r"func\.func @main\((.*?)\)\s*->", text, re.S).group(1)
args = []
for i, m in enumerate(re.finditer(r"tensor<([0-9x]+)x(f32|f64)>", sig)):
    shape = [int(d) for d in m.group(1).split("x")]
    n = 1
    for d in shape:
        n *= d
    data = [(((k + 1) * (7919 + 104729 * i)) % 23 - 11) / 8.0 for k in range(n)]
    path = "%s/in%d.json" % (sys.argv[2], i)
    with open(path, "w") as f:
        json.dump({"shape": shape, "dtype": m.group(2), "data": data}, f)
    args.append("-i " + path)
print(" ".join(args))
