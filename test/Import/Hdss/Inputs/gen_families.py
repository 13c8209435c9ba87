"""Writes families.hdss: one node of each op family the .hdss importer
gained (Indexing, Padding, Scan, Sort, Einsum, Resize, and the transposed
and weight-gradient convolutions), encoded from the
format as docs/hdss.md describes it -- a second writer, independent of
lib/Import/Hdss/Postcard.cpp. Usage: gen_families.py OUT.hdss [nonzero|bad-resize|big-k], the variants
adding a node the importer refuses."""
import struct
import sys


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def zigzag(v):
    return varint((v << 1) ^ (v >> 63))


def string(s):
    b = s.encode()
    return varint(len(b)) + b


def vec(items, enc):
    return varint(len(items)) + b"".join(enc(i) for i in items)


F32, I64 = 5, 14  # DType numbers (one raw byte where a DType stands alone)


def scalar_i64(v):
    return varint(I64) + zigzag(v)


def scalar_f32(v):
    return varint(F32) + struct.pack("<f", v)


def shape(dims):
    return vec(dims, varint)


def layout(dims):
    strides, s = [], 1
    for d in reversed(dims):
        strides.insert(0, s)
        s *= d
    return shape(dims) + vec(strides, varint) + varint(0)


def node(family, op, params, inputs, out, in_dims, out_dims, dtype=F32):
    # Op enum: family variant, then the op within it; params: Option<OpParams>.
    return (varint(family) + varint(op) + b"\x01" + params + vec(inputs, varint)
            + varint(out) + vec(in_dims, layout) + layout(out_dims) + bytes([dtype])
            + b"\x00")  # symbolic_output_layout: None


def constant(cid, name, dims, dtype, data):
    return (varint(cid) + b"\x01" + string(name) + shape(dims) + bytes([dtype])
            + vec(list(data), lambda b: bytes([b])))


def f32s(vals):
    return b"".join(struct.pack("<f", v) for v in vals)


def i64s(vals):
    return b"".join(struct.pack("<q", v) for v in vals)


X = 0  # input x: f32 [2, 4]
consts = [
    constant(1, "idx", [3], I64, i64s([2, 0, 3])),
    constant(2, "gidx", [2, 4], I64, i64s([3, 2, 1, 0, 0, 0, 1, 1])),
    constant(3, "sidx", [1, 4], I64, i64s([1, 0, 1, 0])),
    constant(4, "src", [1, 4], F32, f32s([10, 20, 30, 40])),
    constant(5, "labels", [3], I64, i64s([0, 2, 1])),
    constant(6, "pidx", [2], I64, i64s([3, 0])),
    constant(7, "pvals", [2, 2], F32, f32s([1, 2, 3, 4])),
    constant(8, "w", [1, 1, 2], F32, f32s([1, 10])),
    constant(9, "dy", [1, 1, 2], F32, f32s([1, 1])),
]
S = 40  # input s: f32 [1, 1, 3]
# OpFamily numbers: Indexing 12, Resize 15, Padding 16, Scan 17, Sort 18,
# Einsum 19. ParamsKind numbers: IndexSelect 12, IndexPut 13, Gather 14,
# ScatterAdd 16, Onehoto 19, Padding 35, Scan 36, TopK 37, Einsum 38,
# Resize 39.
def chars(cs):
    return vec(cs, string)


nodes = [
    node(12, 0, varint(12) + scalar_i64(1), [X, 1], 10, [[2, 4], [3]], [2, 3]),
    node(12, 2, varint(14) + scalar_i64(-1), [X, 2], 11, [[2, 4], [2, 4]], [2, 4]),
    node(12, 4, varint(16) + scalar_i64(0), [X, 3, 4], 12, [[2, 4], [1, 4], [1, 4]], [2, 4]),
    node(12, 7, varint(19) + scalar_i64(3) + scalar_i64(-1) + bytes([F32]), [5], 13,
         [[3]], [3, 3]),
    node(16, 1, varint(35) + vec([(0, 0), (1, 2)], lambda p: varint(p[0]) + varint(p[1]))
         + scalar_f32(0), [X], 14, [[2, 4]], [2, 7]),
    node(16, 0, varint(35) + vec([(1, 0), (0, 0)], lambda p: varint(p[0]) + varint(p[1]))
         + scalar_f32(9), [X], 15, [[2, 4]], [3, 4]),
    node(17, 0, varint(36) + varint(1), [X], 16, [[2, 4]], [2, 4]),
    # TopK {k, dim: i32, largest, sorted, indices_id}
    node(18, 0, varint(37) + varint(2) + zigzag(-1) + b"\x01\x01" + varint(18), [X], 17,
         [[2, 4]], [2, 2]),
    node(19, 0, varint(38) + string("ij,kj->ik") + vec([["i", "j"], ["k", "j"]], chars)
         + chars(["i", "k"]) + chars(["j"]), [X, X], 19, [[2, 4], [2, 4]], [2, 2]),
    # Resize {output_size, mode Nearest, coord Asymmetric, nearest Floor}
    node(15, 0, varint(39) + vec([4, 8], varint) + varint(0) + varint(1) + varint(0),
         [X], 20, [[2, 4]], [4, 8]),
    node(12, 1, varint(13) + scalar_i64(1), [X, 6, 7], 21, [[2, 4], [2], [2, 2]], [2, 4]),
    # Conv (13): conv_transpose1d {batch, length, c_out, c_in, kernel, padding,
    # output_padding, stride 2, dilation}; conv1d_grad_weight {stride,
    # padding, dilation, out_channels, in_channels, kernel}.
    node(13, 3, varint(25) + b"".join(varint(v) for v in [1, 3, 1, 1, 2, 0, 0, 2, 1]),
         [S, 8], 22, [[1, 1, 3], [1, 1, 2]], [1, 1, 6]),
    node(13, 6, varint(28) + b"".join(varint(v) for v in [1, 0, 1, 1, 1, 2]),
         [S, 9], 23, [[1, 1, 3], [1, 1, 2]], [1, 1, 2]),
]
variant = sys.argv[2] if len(sys.argv) > 2 else ""
if variant == "nonzero":  # Nonzero {dynamic_count_dim: None}
    nodes.append(node(12, 8, varint(20) + b"\x00", [X], 30, [[2, 4]], [8, 2], I64))
elif variant == "bad-resize":  # mode 5: upstream has three
    nodes.append(node(15, 0, varint(39) + vec([4, 8], varint) + varint(5) + varint(1)
                      + varint(0), [X], 30, [[2, 4]], [4, 8]))
elif variant == "big-k":
    nodes.append(node(18, 0, varint(37) + varint(9) + zigzag(1) + b"\x01\x01" + varint(31),
                      [X], 30, [[2, 4]], [2, 9]))
targets = [("selected", 10), ("gathered", 11), ("scattered", 12), ("onehot", 13),
           ("reflected", 14), ("padded", 15), ("cumsum", 16), ("top", 17),
           ("top_at", 18), ("gram", 19), ("resized", 20), ("put", 21),
           ("upsampled", 22), ("dw", 23)]

snapshot = (b"\x01" + string("families")
            + vec([string("x") + varint(X) + shape([2, 4]) + bytes([F32]),
                   string("s") + varint(S) + shape([1, 1, 3]) + bytes([F32])], lambda b: b)
            + vec(consts, lambda b: b)
            + vec([string(n) + varint(i) for n, i in targets], lambda b: b)
            + vec(nodes, lambda b: b))
with open(sys.argv[1], "wb") as f:
    f.write(snapshot)
