"""Train steps made by hodu-train-step, run by hodu-run (train-step.test).

  train_loop.py reference BIN_DIR OUT_DIR MODEL.mlir
      For each optimizer (sgd, momentum, adam, adamw; weight decay 0.01;
      mse loss) and each loss (l1, bce-with-logits, cross-entropy with sgd),
      one step of the f64 model against a reference computed here in
      float64: the loss from the forward model's prediction, the gradient
      by central finite differences of the step's own loss output, the
      update by the optimizer's formula.
  train_loop.py train BIN_DIR OUT_DIR MODEL.mlir LOSS OPTIMIZER LR STEPS [DEVICE]
      STEPS steps by `hodu-run --steps` on data generated here (regression
      targets from a fixed random linear map for mse; classes from the
      brightest third of the image for cross-entropy); prints the losses of
      the first and last steps and whether the loss fell to under a fifth,
      and checks the first three losses against runs whose state this
      script carries through files. DEVICE (vulkan, ...) compiles the step
      for that target instead of the CPU.

The model's trainable arguments are every argument but the first (the
data). No third-party modules.
"""
import math
import os
import re
import subprocess
import sys

from npyio import read_npy, write_npy

PARAM_STEP = 1e-6


def arg_types(text):
    sig = re.search(r"func\.func @main\((.*?)\)\s*->", text, re.S).group(1)
    out = []
    for m in re.finditer(r"%(\w+): tensor<([0-9x]*)(f32|f64)>", sig):
        dims = [int(d) for d in m.group(2).split("x") if d]
        out.append((m.group(1), dims, m.group(3)))
    return out


def result_type(text):
    m = re.search(r"->\s*tensor<([0-9x]*)(f32|f64)>\s*\{", text)
    return [int(d) for d in m.group(1).split("x") if d], m.group(2)


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Rng:
    def __init__(self, seed):
        self.s = seed

    def uniform(self):
        self.s = (self.s * 1103515245 + 12345) % (1 << 31)
        return (self.s >> 8) / float(1 << 23) * 2.0 - 1.0


def compile_step(bin_dir, out, model, loss, optimizer, name, extra="", device=""):
    with open(model) as f:
        text = f.read()
    nargs = len(arg_types(text))
    params = ",".join(str(i) for i in range(1, nargs))
    step_mlir = os.path.join(out, name + ".mlir")
    subprocess.run([os.path.join(bin_dir, "hodu-opt"), model,
                    "--hodu-train-step=params=%s loss=%s optimizer=%s%s"
                    % (params, loss, optimizer, extra), "-o", step_mlir], check=True)
    so = os.path.join(out, name + (".hodu" if device else ".so"))
    subprocess.run([os.path.join(bin_dir, "hoduc"), step_mlir, "-o", so]
                   + (["--device=" + device] if device else []), check=True)
    with open(step_mlir) as f:
        return so, arg_types(f.read())


def write_inputs(types, values, work):
    """Each input in its .npy file; hodu-run's -i options for them."""
    args = []
    for i, ((_, shape, dtype), v) in enumerate(zip(types, values)):
        p = os.path.join(work, "in_%d.npy" % i)
        write_npy(p, v, shape, "<f4" if dtype == "f32" else "<f8")
        args += ["-i", p]
    return args


def run_step(bin_dir, so, types, values, work):
    """Runs one step; the folder hodu-run wrote the outputs to."""
    out = os.path.join(work, "out")
    subprocess.run([os.path.join(bin_dir, "hodu-run"), so, "-q", "-o", out]
                   + write_inputs(types, values, work), check=True)
    return out


def outputs_in_order(bin_dir, so, out):
    """The output file of each output, in the model's order (hodu-run
    --info lists the outputs)."""
    info = subprocess.run([os.path.join(bin_dir, "hodu-run"), "--info", so],
                          check=True, capture_output=True, text=True).stdout
    names = []
    for line in info.split("outputs:", 1)[1].splitlines()[1:]:
        if not line.startswith("  "):
            break
        names.append(line.split(":")[0].strip())
    return [read_npy(os.path.join(out, n + ".npy")) for n in names]


def step(bin_dir, so, types, values, work):
    os.makedirs(work, exist_ok=True)
    out = run_step(bin_dir, so, types, values, work)
    return outputs_in_order(bin_dir, so, out)


def initial_values(types, data, target, nparams, rng, extra):
    values = [data]
    for _, shape, _ in types[1:1 + nparams]:
        values.append([rng.uniform() * 0.5 for _ in range(count(shape))])
    values.append(target)
    # Optimizer state (zeros), then step and lr.
    for _, shape, _ in types[2 + nparams:]:
        values.append([0.0] * count(shape))
    for k, v in extra.items():
        values[k] = v
    return values


def reference(bin_dir, out, model):
    with open(model) as f:
        text = f.read()
    fwd = arg_types(text)
    nparams = len(fwd) - 1
    shape, _ = result_type(text)
    rng = Rng(5)
    data = [rng.uniform() for _ in range(count(fwd[0][1]))]
    target = [rng.uniform() for _ in range(count(shape))]
    lr, wd, b1, b2, eps, mu = 0.05, 0.01, 0.9, 0.999, 1e-8, 0.9
    bad = 0
    fwd_so = os.path.join(out, "forward.so")
    subprocess.run([os.path.join(bin_dir, "hoduc"), model, "-o", fwd_so], check=True)
    configs = [("mse", "sgd"), ("mse", "momentum"), ("mse", "adam"), ("mse", "adamw"),
               ("l1", "sgd"), ("bce-with-logits", "sgd"), ("cross-entropy", "sgd")]
    grads = {}
    for loss, opt in configs:
        so, types = compile_step(bin_dir, out, model, loss, opt,
                                 "ref_%s_%s" % (loss, opt), " weight-decay=%g" % wd)
        # Non-zero optimizer state, so that every term of the update counts;
        # the step counter at 3.
        values = initial_values(types, data, target, nparams, Rng(9), {})
        state = 2 + nparams
        adam = opt in ("adam", "adamw")
        nstate = (len(types) - state - (2 if adam else 1))
        for i in range(state, state + nstate):
            values[i] = [abs(rng.uniform()) * 0.1 for _ in values[i]]
        if adam:
            values[-2] = [3.0]
        values[-1] = [lr]
        if loss == "cross-entropy":
            # Class probabilities: a softmax of the raw targets per row.
            cols = shape[1]
            for r in range(len(target) // cols):
                row = target[r * cols:(r + 1) * cols]
                e = [math.exp(v) for v in row]
                values[1 + nparams][r * cols:(r + 1) * cols] = [v / sum(e) for v in e]
        elif loss == "bce-with-logits":
            values[1 + nparams] = [(v + 1) / 2 for v in target]
        got = step(bin_dir, so, types, values, os.path.join(out, opt))
        # The loss value from the forward model's prediction.
        pred = step(bin_dir, fwd_so, fwd, values[:1 + nparams],
                    os.path.join(out, "fwd"))[0]
        t = values[1 + nparams]
        if loss == "mse":
            want = sum((a - b) ** 2 for a, b in zip(pred, t)) / len(t)
        elif loss == "l1":
            want = sum(abs(a - b) for a, b in zip(pred, t)) / len(t)
        elif loss == "bce-with-logits":
            want = sum(max(a, 0) - a * b + math.log1p(math.exp(-abs(a)))
                       for a, b in zip(pred, t)) / len(t)
        else:
            cols, want = shape[1], 0.0
            for r in range(len(t) // cols):
                row, tr = pred[r * cols:(r + 1) * cols], t[r * cols:(r + 1) * cols]
                m = max(row)
                lse = m + math.log(sum(math.exp(v - m) for v in row))
                want -= sum(b * (a - lse) for a, b in zip(row, tr))
            want /= len(t) // cols
        if abs(got[0][0] - want) > 1e-9 * max(1.0, abs(want)):
            bad += 1
            print("%s: loss %r, want %r" % (loss, got[0][0], want))
        worst = 0.0
        for k in range(nparams):
            p = values[1 + k]
            # The gradient depends on the loss only (the optimizers' runs
            # share parameters, data and target): once per loss.
            grad = grads.setdefault((loss, k), [])
            for j in range(len(p) if not grad else 0):
                losses = []
                for sign in (1, -1):
                    moved = [list(v) for v in values]
                    moved[1 + k][j] += sign * PARAM_STEP
                    losses.append(step(bin_dir, so, types, moved,
                                       os.path.join(out, opt + "_fd"))[0][0])
                grad.append((losses[0] - losses[1]) / (2 * PARAM_STEP))
            want_p, want_state = [], []
            if opt == "sgd":
                want_p = [x - lr * (g + wd * x) for x, g in zip(p, grad)]
            elif opt == "momentum":
                v = values[state + k]
                nv = [mu * a + g + wd * x for a, g, x in zip(v, grad, p)]
                want_state = [nv]
                want_p = [x - lr * a for x, a in zip(p, nv)]
            else:
                m, v = values[state + k], values[state + nparams + k]
                t = values[-2][0] + 1
                gg = [g + wd * x for g, x in zip(grad, p)] if opt == "adam" else grad
                nm = [b1 * a + (1 - b1) * g for a, g in zip(m, gg)]
                nv = [b2 * a + (1 - b2) * g * g for a, g in zip(v, gg)]
                want_state = [nm, nv]
                want_p = []
                for x, a, c in zip(p, nm, nv):
                    u = (a / (1 - b1 ** t)) / (math.sqrt(c / (1 - b2 ** t)) + eps)
                    if opt == "adamw":
                        u += wd * x
                    want_p.append(x - lr * u)
            pairs = [(got[1 + k], want_p)]
            if opt == "momentum":
                pairs.append((got[1 + nparams + k], want_state[0]))
            if adam:
                pairs.append((got[1 + nparams + k], want_state[0]))
                pairs.append((got[1 + 2 * nparams + k], want_state[1]))
            for g_, w_ in pairs:
                for a, c in zip(g_, w_):
                    worst = max(worst, abs(a - c) / max(abs(c), 1e-3))
        if adam and abs(got[-1][0] - 4.0) > 0:
            bad += 1
            print("%s: step counter %r, not 4" % (opt, got[-1][0]))
        ok = worst <= 1e-6
        bad += not ok
        print("%s %s: loss and one step within %.1e of the float64 reference: %s"
              % (loss, opt, worst, "match" if ok else "DIFFER"))
    return 1 if bad else 0


def train(bin_dir, out, model, loss, opt, lr, steps, device=""):
    with open(model) as f:
        text = f.read()
    fwd = arg_types(text)
    nparams = len(fwd) - 1
    shape, _ = result_type(text)
    so, types = compile_step(bin_dir, out, model, loss, opt, "train", device=device)
    rng = Rng(11)
    data = [rng.uniform() for _ in range(count(fwd[0][1]))]
    rows = fwd[0][1][0]
    per_row = count(fwd[0][1]) // rows
    target = []
    if loss == "cross-entropy":
        classes = shape[1]
        for r in range(rows):
            img = data[r * per_row:(r + 1) * per_row]
            third = len(img) // classes
            sums = [sum(img[c * third:(c + 1) * third]) for c in range(classes)]
            best = sums.index(max(sums))
            target += [1.0 if c == best else 0.0 for c in range(classes)]
    else:
        outs = shape[1]
        proj = [[Rng(3 + c).uniform() for _ in range(per_row)] for c in range(outs)]
        for r in range(rows):
            row = data[r * per_row:(r + 1) * per_row]
            target += [sum(a * b for a, b in zip(row, proj[c])) for c in range(outs)]
    values = initial_values(types, data, target, nparams, Rng(13), {})
    values[-1] = [float(lr)]
    adam = opt in ("adam", "adamw")
    state_inputs = list(range(1, 1 + nparams)) + list(
        range(2 + nparams, len(types) - 1))
    # hodu-run --steps: one process, the state fed back by name.
    work = os.path.join(out, "steps")
    os.makedirs(work, exist_ok=True)
    inputs = write_inputs(types, values, work)
    final = os.path.join(work, "final")
    printed = subprocess.run([os.path.join(bin_dir, "hodu-run"), so, "--steps", str(steps),
                              "-o", final, "-q"] + inputs, check=True,
                             capture_output=True, text=True).stdout
    losses = [float(m) for m in re.findall(r"^step \d+: loss (\S+)$", printed, re.M)]
    # The same three steps with the state carried by this script, through
    # files: the losses must be the same bits.
    carried = []
    for _ in range(3):
        got = step(bin_dir, so, types, values, os.path.join(out, "carried"))
        carried.append(got[0][0])
        for k, i in enumerate(state_inputs):
            values[i] = got[1 + k]
    same = [float("%.9g" % c) for c in carried] == losses[:3]
    print("hodu-run --steps: %d losses printed; the first three %s the ones "
          "of runs carrying the state through files"
          % (len(losses), "equal" if same else "DIFFER FROM"))
    fell = len(losses) == int(steps) and losses[-1] < losses[0] / 5
    print("%s %s: loss %.4f at step 1, %.4f at step %d: %s"
          % (loss, opt, losses[0], losses[-1], len(losses),
             "fell under a fifth" if fell else "DID NOT FALL ENOUGH"))
    if adam:
        final_step = read_npy(os.path.join(final, "step.npy"))[0]
        print("step counter after %d steps: %g" % (len(losses), final_step))
    return 0 if fell and same else 1


if __name__ == "__main__":
    if sys.argv[1] == "reference":
        sys.exit(reference(*sys.argv[2:5]))
    sys.exit(train(*sys.argv[2:10]))
