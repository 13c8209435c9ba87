"""Checks the random test's outputs (JSON files written by hodu-run -o DIR
-f json) against their distributions: moments within a few standard errors,
ranges, the certain cases exactly, and that unseeded nodes differ.
  check_random.py DIR [DIR2]   (DIR2: a second run, which must be equal)"""
import json
import math
import os
import sys


def load(d, name):
    with open(os.path.join(d, name + ".json")) as f:
        return json.load(f)["data"]


def moments(xs):
    m = sum(xs) / len(xs)
    v = sum((x - m) ** 2 for x in xs) / len(xs)
    return m, v


def near(what, got, want, tol):
    if abs(got - want) > tol:
        sys.exit("%s: %g, expected %g +- %g" % (what, got, want, tol))


d = sys.argv[1]
normal = load(d, "normal")
m, v = moments(normal)
near("normal mean", m, 2.0, 5 * 3 / math.sqrt(len(normal)))
near("normal variance", v, 9.0, 5 * 9 * math.sqrt(2 / len(normal)))
within = sum(abs(x - 2) < 3 for x in normal) / len(normal)  # P(|z| < 1)
near("normal within one sigma", within, 0.6827, 0.03)

uniform = [x for row in [load(d, "uniform")] for x in row]
if min(uniform) < -1 or max(uniform) >= 3:
    sys.exit("uniform outside [-1, 3): %g %g" % (min(uniform), max(uniform)))
m, v = moments(uniform)
near("uniform mean", m, 1.0, 0.03)
near("uniform variance", v, 16 / 12, 0.03)
# Each quarter of the range gets a quarter of the numbers.
for q in range(4):
    share = sum(-1 + q <= x < q for x in uniform) / len(uniform)
    near("uniform quarter %d" % q, share, 0.25, 0.01)

# Neighbouring numbers are independent: uncorrelated, and pairs of
# neighbours spread evenly over a 16x16 grid (chi-square of 255 degrees of
# freedom: mean 255, standard deviation 22.6).
u = [(x + 1) / 4 for x in uniform]
pairs = list(zip(u[:-1], u[1:]))
mu = sum(u) / len(u)
r = sum((a - mu) * (b - mu) for a, b in pairs) / sum((a - mu) ** 2 for a in u)
near("uniform neighbour correlation", r, 0.0, 0.02)
grid = [0] * 256
for a, b in pairs:
    grid[min(int(a * 16), 15) * 16 + min(int(b * 16), 15)] += 1
expected = len(pairs) / 256
chi2 = sum((g - expected) ** 2 / expected for g in grid)
if chi2 > 400:
    sys.exit("uniform neighbour pairs are not uniform: chi-square %g" % chi2)

coin = load(d, "coin")  # p: 1000 zeros, 1000 ones, 2000 halves
if any(coin[:1000]) or not all(coin[1000:2000]):
    sys.exit("Bernoulli of probability 0 or 1 is not 0 or 1")
near("Bernoulli(0.5) mean", sum(coin[2000:]) / 2000, 0.5, 5 * 0.5 / math.sqrt(2000))

draws = load(d, "draws")  # row 0: four equal classes; row 1: class 2 certain
row0, row1 = draws[:4000], draws[4000:]
for c in range(4):
    near("multinomial class %d" % c, row0.count(c) / 4000, 0.25, 0.035)
if set(row1) != {2}:
    sys.exit("multinomial of a certain class drew %s" % sorted(set(row1)))

dropped, kept = load(d, "dropped"), load(d, "kept")  # ones, ratio 0.25
if set(dropped) - {0.0, 4 / 3} and any(abs(x - 4 / 3) > 1e-6 and x != 0 for x in dropped):
    sys.exit("dropout gave values other than 0 and 1 / (1 - 0.25)")
if any((x != 0) != bool(k) for x, k in zip(dropped, kept)):
    sys.exit("dropout's mask is not where its output is kept")
near("dropout's dropped share", dropped.count(0.0) / len(dropped), 0.25, 0.01)

if load(d, "a") == load(d, "b"):
    sys.exit("two unseeded nodes drew the same numbers")

if len(sys.argv) > 2:
    for name in ("normal", "uniform", "coin", "draws", "dropped", "kept", "a", "b"):
        if load(d, name) != load(sys.argv[2], name):
            sys.exit("%s differs between two runs" % name)
print("random: ok")
