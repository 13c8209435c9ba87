#!/usr/bin/env python3
"""Writes a BERT-style encoder block as ONNX protobuf text (stdout), as
exporters write one with dynamic axes: input_ids and attention_mask are
[batch, seq] (dim_params), token and position embeddings (positions from
Range(0, Shape(input_ids)[1])), the attention mask (1 - mask) * -10000
broadcast over heads, heads split and merged by Shape -> Gather -> Unsqueeze
-> Concat -> Reshape chains, softmax attention, LayerNormalization, an Erf
GELU feed-forward, residuals. d_model 8, 2 heads, FFN 16, vocabulary 11,
positions up to 32. Deterministic weights (an LCG). Encode with
  protoc --encode=onnx.ModelProto onnx.proto < encoder.textproto > encoder.onnx
`make_encoder.py D H DH F P` sets d_model, heads, head dim, FFN width and
positions instead (long-sequence tests).
Test infrastructure, Python 3 standard library only."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from onnx_text import Graph, ints, scalar  # noqa: E402

D, H, DH, F, V, P = 8, 2, 4, 16, 11, 32
if len(sys.argv) == 6:
    D, H, DH, F, P = (int(a) for a in sys.argv[1:])
g = Graph(12345)
node, floats = g.node, g.floats

# Shapes of the run: batch and seq from input_ids.
node("Shape", ["input_ids"], "shape")
node("Gather", ["shape", "i0"], "batch", **{"axis": "type: INT i: 0"})
node("Gather", ["shape", "i1"], "seq", **{"axis": "type: INT i: 0"})
node("Unsqueeze", ["batch", "axes0"], "batch1")
node("Unsqueeze", ["seq", "axes0"], "seq1")
node("Concat", ["batch1", "seq1", "heads", "dh"], "split_shape", axis="type: INT i: 0")
node("Concat", ["batch1", "seq1", "dmodel"], "merge_shape", axis="type: INT i: 0")
# Embeddings.
node("Gather", ["tok_emb", "input_ids"], "tok", axis="type: INT i: 0")
node("Range", ["zero", "seq", "one"], "pos_ids")
node("Gather", ["pos_emb", "pos_ids"], "pos", axis="type: INT i: 0")
node("Add", ["tok", "pos"], "x0")
# The mask: [batch, 1, 1, seq] of 0 or -10000.
node("Cast", ["attention_mask"], "maskf", to="type: INT i: 1")
node("Sub", ["onef", "maskf"], "inv")
node("Mul", ["inv", "neg"], "bias2")
node("Unsqueeze", ["bias2", "axes12"], "bias4")
# Attention.
for p in "qkv":
    node("MatMul", ["x0", "w" + p], p + "_mm")
    node("Add", [p + "_mm", "b" + p], p + "_b")
    node("Reshape", [p + "_b", "split_shape"], p + "_r")
    perm = "type: INTS ints: 0 ints: 2 ints: 3 ints: 1" if p == "k" else \
        "type: INTS ints: 0 ints: 2 ints: 1 ints: 3"
    node("Transpose", [p + "_r"], p + "_t", perm=perm)
node("MatMul", ["q_t", "k_t"], "scores")
node("Div", ["scores", "sqrt_dh"], "scaled")
node("Add", ["scaled", "bias4"], "masked")
node("Softmax", ["masked"], "probs", axis="type: INT i: -1")
g.attention_out("probs", "v_t", "o")
node("Add", ["x0", "o"], "res1")
node("LayerNormalization", ["res1", "ln1_g", "ln1_b"], "h1", axis="type: INT i: -1")
# Feed-forward with an Erf GELU.
g.gelu_ffn("h1", "f2")
node("Add", ["h1", "f2"], "res2")
node("LayerNormalization", ["res2", "ln2_g", "ln2_b"], "hidden", axis="type: INT i: -1")
# A pooled output: the first token's vector through tanh, as BERT's pooler.
node("Gather", ["hidden", "i0"], "cls", axis="type: INT i: 1")
node("MatMul", ["cls", "wp"], "pool_mm")
node("Tanh", ["pool_mm"], "pooled")

inits = (floats("tok_emb", [V, D], 1.0) + floats("pos_emb", [P, D], 0.3) +
         "".join(floats("w" + p, [D, D]) + floats("b" + p, [D], 0.1) for p in "qkvo") +
         floats("ln1_g", [D], 0.2, 1.0) +
         floats("ln1_b", [D], 0.1) + floats("w1", [D, F]) + floats("b1", [F], 0.1) +
         floats("w2", [F, D]) + floats("b2", [D], 0.1) + floats("ln2_g", [D], 0.1, 1.0) +
         floats("ln2_b", [D], 0.1) + floats("wp", [D, D]) +
         ints("i0", [0], scalar=True) + ints("i1", [1], scalar=True) +
         ints("axes0", [0]) + ints("axes12", [1, 2]) + ints("heads", [H]) +
         ints("dh", [DH]) + ints("dmodel", [D]) +
         '  initializer { name: "zero" data_type: 7 int64_data: 0 }\n'
         '  initializer { name: "one" data_type: 7 int64_data: 1 }\n' +
         scalar("onef", 1.0) + scalar("neg", -10000.0) + scalar("sqrt_dh", DH ** 0.5) +
         scalar("sqrt2", 2 ** 0.5) + scalar("half", 0.5))
print('ir_version: 8\nopset_import { domain: "" version: 17 }\ngraph {\n  name: "encoder"')
print("".join(g.nodes) + inits, end="")
for name, et in (("input_ids", 7), ("attention_mask", 7)):
    print('  input { name: "%s" type { tensor_type { elem_type: %d shape { '
          'dim { dim_param: "batch" } dim { dim_param: "seq" } } } } }' % (name, et))
print('  output { name: "hidden" type { tensor_type { elem_type: 1 shape { '
      'dim { dim_param: "batch" } dim { dim_param: "seq" } dim { dim_value: %d } } } } }' % D)
print('  output { name: "pooled" type { tensor_type { elem_type: 1 shape { '
      'dim { dim_param: "batch" } dim { dim_value: %d } } } } }' % D)
print("}")
