#!/usr/bin/env python3
"""Writes the opset-23 models of attention.test (Attention,
RMSNormalization, RotaryEmbedding) as protobuf text (stdout):
make_attention.py NAME. Test infrastructure, Python 3
standard library only. The inputs are graph inputs (no weights), so
make_refs.mjs can feed ONNX Runtime the same values hodu-run reads."""
import sys

F, B, I64 = 1, 9, 7  # float, bool, int64

# name: (attributes, [(input name, type, shape)], [(output name, shape)])
MODELS = {
    # Plain 4-D multi-head attention.
    "mha4d": ({}, [("Q", F, [2, 3, 4, 8]), ("K", F, [2, 3, 6, 8]), ("V", F, [2, 3, 6, 8])],
              [("Y", [2, 3, 4, 8])]),
    # 3-D inputs, grouped-query heads (4 query heads on 2 key/value heads),
    # a boolean mask broadcast over heads, an explicit scale.
    "gqa3d": ({"q_num_heads": 4, "kv_num_heads": 2, "scale": 0.2},
              [("Q", F, [2, 4, 32]), ("K", F, [2, 6, 16]), ("V", F, [2, 6, 16]),
               ("attn_mask", B, [2, 1, 4, 6])],
              [("Y", [2, 4, 32])]),
    # A decoder step: 3 new tokens after a cache of 5, a float mask over
    # the 8 keys, and the present cache as outputs.
    "cache": ({}, [("Q", F, [1, 2, 3, 8]), ("K", F, [1, 2, 3, 8]), ("V", F, [1, 2, 3, 8]),
                   ("attn_mask", F, [1, 1, 3, 8]), ("past_key", F, [1, 2, 5, 8]),
                   ("past_value", F, [1, 2, 5, 8])],
             [("Y", [1, 2, 3, 8]), ("present_key", [1, 2, 8, 8]),
              ("present_value", [1, 2, 8, 8])]),
    # Causal self-attention, 5 tokens.
    "causal": ({"is_causal": 1},
               [("Q", F, [1, 2, 5, 8]), ("K", F, [1, 2, 5, 8]), ("V", F, [1, 2, 5, 8])],
               [("Y", [1, 2, 5, 8])]),
    # A soft cap on the scores (no mask: the spec and ONNX Runtime agree on
    # where the cap goes only then) and a value head size of its own.
    "softcap": ({"softcap": 2.0},
                [("Q", F, [1, 2, 4, 8]), ("K", F, [1, 2, 6, 8]), ("V", F, [1, 2, 6, 5])],
                [("Y", [1, 2, 4, 5])]),
    # Refused: the fourth output, 3-D inputs without their head counts,
    # query heads that are no multiple of the key/value heads.
    "err-qk": ({}, [("Q", F, [1, 2, 4, 8]), ("K", F, [1, 2, 6, 8]), ("V", F, [1, 2, 6, 8])],
               [("Y", [1, 2, 4, 8]), ("present_key", [1, 2, 6, 8]),
                ("present_value", [1, 2, 6, 8]), ("qk", [1, 2, 4, 6])]),
    "err-heads": ({}, [("Q", F, [1, 4, 16]), ("K", F, [1, 6, 16]), ("V", F, [1, 6, 16])],
                  [("Y", [1, 4, 16])]),
    "err-groups": ({}, [("Q", F, [1, 3, 4, 8]), ("K", F, [1, 2, 6, 8]), ("V", F, [1, 2, 6, 8])],
                   [("Y", [1, 3, 4, 8])]),
}

# Single-node models of the other ops opset 23 added: name -> (op,
# attributes, inputs in the op's order (None: left out), outputs).
OTHERS = {
    "rms": ("RMSNormalization", {"epsilon": 1e-5},
            [("X", F, [2, 3, 16]), ("scale", F, [16])], [("Y", [2, 3, 16])]),
    "rms-axis": ("RMSNormalization", {"axis": 1},
                 [("X", F, [2, 4, 6]), ("scale", F, [4, 6])], [("Y", [2, 4, 6])]),
    # 4-D input, caches per position, the whole head rotated in halves.
    "rope": ("RotaryEmbedding", {},
             [("X", F, [1, 2, 5, 8]), ("cos_cache", F, [1, 5, 4]), ("sin_cache", F, [1, 5, 4])],
             [("Y", [1, 2, 5, 8])]),
    # 3-D input of 2 heads, caches looked up by position_ids, the first 4
    # of each head's 8 dims rotated in interleaved pairs.
    "rope-pos": ("RotaryEmbedding", {"num_heads": 2, "rotary_embedding_dim": 4, "interleaved": 1},
                 [("X", F, [2, 5, 16]), ("cos_cache", F, [10, 2]), ("sin_cache", F, [10, 2]),
                  ("position_ids", I64, [2, 5])],
                 [("Y", [2, 5, 16])]),
}


def attr(name, value):
    if isinstance(value, float):
        return 'attribute { name: "%s" type: FLOAT f: %r }' % (name, value)
    return 'attribute { name: "%s" type: INT i: %d }' % (name, value)


def shape(dims):
    return "shape { %s }" % " ".join("dim { dim_value: %d }" % d for d in dims)


def main():
    name = sys.argv[1]
    if name in OTHERS:
        op, attrs, inputs, outputs = OTHERS[name]
        slots = [i[0] for i in inputs]
    else:
        op = "Attention"
        attrs, inputs, outputs = MODELS[name]
        ins = [i[0] for i in inputs]
        # The optional inputs sit at fixed positions: Q K V attn_mask past_key past_value.
        order = ["Q", "K", "V", "attn_mask", "past_key", "past_value"]
        slots = [n if n in ins else "" for n in order]
        while slots and not slots[-1]:
            slots.pop()
    print('ir_version: 10\nopset_import { domain: "" version: 23 }\ngraph {\n  name: "%s"' % name)
    print('  node { op_type: "%s" name: "%s" %s %s %s }' % (
        op, op.lower(),
        " ".join('input: "%s"' % s for s in slots),
        " ".join('output: "%s"' % o[0] for o in outputs),
        " ".join(attr(k, v) for k, v in attrs.items())))
    for n, t, dims in inputs:
        print('  input { name: "%s" type { tensor_type { elem_type: %d %s } } }' % (n, t, shape(dims)))
    for n, dims in outputs:
        print('  output { name: "%s" type { tensor_type { elem_type: 1 %s } } }' % (n, shape(dims)))
    print("}")


if __name__ == "__main__":
    main()
