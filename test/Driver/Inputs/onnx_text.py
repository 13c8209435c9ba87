"""What the test model writers (encoder/make_encoder.py,
decoder/make_decoder.py) share: ONNX protobuf text for initializers and
nodes, deterministic weights from an LCG, and the blocks both models have.
Test infrastructure, Python 3 standard library only."""


class Graph:
    """Nodes and float initializers of one graph; weights from an LCG
    seeded with `seed`, drawn in the order the initializers are made."""

    def __init__(self, seed):
        self.state = seed
        self.nodes = []

    def rnd(self):
        self.state = (self.state * 1103515245 + 12345) % (1 << 31)
        return self.state / (1 << 31) * 2 - 1

    def floats(self, name, dims, scale=0.5, center=0.0):
        n = 1
        for d in dims:
            n *= d
        return ('  initializer { name: "%s" data_type: 1 %s %s }\n' % (
            name, " ".join("dims: %d" % d for d in dims),
            " ".join("float_data: %.5f" % (center + self.rnd() * scale)
                     for _ in range(n))))

    def node(self, op, inputs, output, **attrs):
        a = "".join(' attribute { name: "%s" %s }' % (k, v) for k, v in attrs.items())
        self.nodes.append('  node { op_type: "%s" %s output: "%s" name: "%s"%s }\n' % (
            op, " ".join('input: "%s"' % i for i in inputs), output, output, a))
        return output

    def gelu_ffn(self, x, out):
        """MatMul w1 + b1, an Erf GELU (x * (1 + erf(x / sqrt2)) * half),
        MatMul w2 + b2, into `out`; the weights are initializers named
        w1, b1, w2, b2 and the constants onef, sqrt2, half."""
        self.node("MatMul", [x, "w1"], "f1_mm")
        self.node("Add", ["f1_mm", "b1"], "f1")
        self.node("Div", ["f1", "sqrt2"], "f1s")
        self.node("Erf", ["f1s"], "erf")
        self.node("Add", ["erf", "onef"], "erf1")
        self.node("Mul", ["f1", "erf1"], "g0")
        self.node("Mul", ["g0", "half"], "gelu")
        self.node("MatMul", ["gelu", "w2"], "f2_mm")
        return self.node("Add", ["f2_mm", "b2"], out)

    def attention_out(self, probs, values, out):
        """The context of softmax `probs` over `values` ([batch, heads,
        ., head_dim]), heads merged by the `merge_shape` Reshape, through
        the output projection wo + bo, into `out`."""
        self.node("MatMul", [probs, values], "ctx")
        self.node("Transpose", ["ctx"], "ctx_t", perm="type: INTS ints: 0 ints: 2 ints: 1 ints: 3")
        self.node("Reshape", ["ctx_t", "merge_shape"], "ctx_m")
        self.node("MatMul", ["ctx_m", "wo"], "o_mm")
        return self.node("Add", ["o_mm", "bo"], out)


def ints(name, values, scalar=False):
    """An int64 initializer: a 1-D tensor, or a scalar of one value."""
    dims = "" if scalar else "dims: %d " % len(values)
    return '  initializer { name: "%s" data_type: 7 %s%s }\n' % (
        name, dims, " ".join("int64_data: %d" % v for v in values))


def scalar(name, value):
    """A float scalar initializer."""
    return '  initializer { name: "%s" data_type: 1 float_data: %g }\n' % (name, value)
