#!/usr/bin/env python3
"""Writes one step of a GPT-style decoder as ONNX protobuf text (stdout), as
exporters write one with past_key_values and dynamic axes: input_ids
[batch, 1] (the new token), past_key and past_value [batch, heads, past,
head_dim]; outputs logits [batch, 1, vocabulary] and present_key and
present_value [batch, heads, past + 1, head_dim] (the past with the new
token's key and value appended by Concat). The new token's position is
Shape(past_key)[2], its heads split and merged by Shape -> Gather ->
Unsqueeze -> Concat -> Reshape chains; pre-LayerNorm attention over past +
1 keys, an Erf GELU feed-forward, a final LayerNorm and an LM head. d_model
8, 2 heads, FFN 16, vocabulary 11, positions up to 32. Deterministic
weights (an LCG). With --position-input the position is an input instead,
position_ids [batch, 1], as Hugging Face's exporters write it. With
--bias-table the scores get a learned bias by position, the row past of a
[positions, positions] table and its first past + 1 columns, cut by a Slice
whose starts and ends come from Shape(past_key)[2] (as GPT-2's export cuts
its causal mask, bias[past : past + 1, : past + 1]). Encode with
  protoc --encode=onnx.ModelProto onnx.proto < decoder.textproto > decoder.onnx
Test infrastructure, Python 3 standard library only."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from onnx_text import Graph, ints, scalar  # noqa: E402

D, H, DH, F, V, P = 8, 2, 4, 16, 11, 32
g = Graph(4242)
node, floats = g.node, g.floats

AXIS0 = "type: INT i: 0"
# Shapes of the run: batch from input_ids, past from past_key.
node("Shape", ["input_ids"], "ids_shape")
node("Gather", ["ids_shape", "i0"], "batch", axis=AXIS0)
POSITION_INPUT = "--position-input" in sys.argv[1:]
BIAS_TABLE = "--bias-table" in sys.argv[1:]
if not POSITION_INPUT:
    node("Shape", ["past_key"], "past_shape")
    node("Gather", ["past_shape", "i2"], "past", axis=AXIS0)
node("Unsqueeze", ["batch", "axes0"], "batch1")
node("Concat", ["batch1", "one1", "heads", "dh"], "split_shape", axis=AXIS0)
node("Concat", ["batch1", "one1", "dmodel"], "merge_shape", axis=AXIS0)
# Embeddings: the token's, and the position's at index past.
node("Gather", ["tok_emb", "input_ids"], "tok", axis=AXIS0)
if POSITION_INPUT:
    node("Gather", ["pos_emb", "position_ids"], "pos", axis=AXIS0)
else:
    node("Unsqueeze", ["past", "axes0"], "pos_id")
    node("Gather", ["pos_emb", "pos_id"], "pos", axis=AXIS0)
node("Add", ["tok", "pos"], "x0")
node("LayerNormalization", ["x0", "ln1_g", "ln1_b"], "h0", axis="type: INT i: -1")
# The new token's query, key and value: [batch, heads, 1, head_dim].
for p in "qkv":
    node("MatMul", ["h0", "w" + p], p + "_mm")
    node("Add", [p + "_mm", "b" + p], p + "_b")
    node("Reshape", [p + "_b", "split_shape"], p + "_r")
    node("Transpose", [p + "_r"], p + "_t", perm="type: INTS ints: 0 ints: 2 ints: 1 ints: 3")
node("Concat", ["past_key", "k_t"], "present_key", axis="type: INT i: 2")
node("Concat", ["past_value", "v_t"], "present_value", axis="type: INT i: 2")
# Attention over the past and the new token.
node("Transpose", ["present_key"], "keys_t", perm="type: INTS ints: 0 ints: 1 ints: 3 ints: 2")
node("MatMul", ["q_t", "keys_t"], "scores")
node("Div", ["scores", "sqrt_dh"], "scaled")
if BIAS_TABLE:
    node("Add", ["past", "onei"], "keys")
    node("Unsqueeze", ["past", "axes0"], "past1")
    node("Unsqueeze", ["keys", "axes0"], "keys1")
    node("Concat", ["past1", "zero1"], "bias_starts", axis=AXIS0)
    node("Concat", ["keys1", "keys1"], "bias_ends", axis=AXIS0)
    node("Slice", ["pos_bias", "bias_starts", "bias_ends", "axes01"], "bias_row")
    node("Add", ["scaled", "bias_row"], "biased")
    node("Softmax", ["biased"], "probs", axis="type: INT i: -1")
else:
    node("Softmax", ["scaled"], "probs", axis="type: INT i: -1")
g.attention_out("probs", "present_value", "o")
node("Add", ["x0", "o"], "res1")
# Feed-forward with an Erf GELU.
node("LayerNormalization", ["res1", "ln2_g", "ln2_b"], "h1", axis="type: INT i: -1")
g.gelu_ffn("h1", "f2")
node("Add", ["res1", "f2"], "res2")
node("LayerNormalization", ["res2", "lnf_g", "lnf_b"], "hf", axis="type: INT i: -1")
node("MatMul", ["hf", "lm_head"], "logits")

inits = (floats("tok_emb", [V, D], 1.0) + floats("pos_emb", [P, D], 0.3) +
         floats("ln1_g", [D], 0.2, 1.0) + floats("ln1_b", [D], 0.1) +
         "".join(floats("w" + p, [D, D]) + floats("b" + p, [D], 0.1) for p in "qkvo") +
         floats("ln2_g", [D], 0.2, 1.0) + floats("ln2_b", [D], 0.1) +
         floats("w1", [D, F]) + floats("b1", [F], 0.1) +
         floats("w2", [F, D]) + floats("b2", [D], 0.1) +
         floats("lnf_g", [D], 0.1, 1.0) + floats("lnf_b", [D], 0.1) +
         floats("lm_head", [D, V]) +
         ints("i0", [0], scalar=True) + ints("i2", [2], scalar=True) +
         ints("axes0", [0]) + ints("one1", [1]) + ints("heads", [H]) +
         ints("dh", [DH]) + ints("dmodel", [D]) +
         scalar("onef", 1.0) + scalar("sqrt_dh", DH ** 0.5) +
         scalar("sqrt2", 2 ** 0.5) + scalar("half", 0.5))
if BIAS_TABLE:
    inits += (floats("pos_bias", [P, P], 2.0) + ints("onei", [1], scalar=True) +
              ints("zero1", [0]) + ints("axes01", [0, 1]))
print('ir_version: 8\nopset_import { domain: "" version: 17 }\ngraph {\n  name: "decoder"')
print("".join(g.nodes) + inits, end="")
print('  input { name: "input_ids" type { tensor_type { elem_type: 7 shape { '
      'dim { dim_param: "batch" } dim { dim_value: 1 } } } } }')
if POSITION_INPUT:
    print('  input { name: "position_ids" type { tensor_type { elem_type: 7 shape { '
          'dim { dim_param: "batch" } dim { dim_value: 1 } } } } }')
for name in ("past_key", "past_value"):
    print('  input { name: "%s" type { tensor_type { elem_type: 1 shape { '
          'dim { dim_param: "batch" } dim { dim_value: %d } dim { dim_param: "past" } '
          'dim { dim_value: %d } } } } }' % (name, H, DH))
print('  output { name: "logits" type { tensor_type { elem_type: 1 shape { '
      'dim { dim_param: "batch" } dim { dim_value: 1 } dim { dim_value: %d } } } } }' % V)
for name in ("present_key", "present_value"):
    print('  output { name: "%s" type { tensor_type { elem_type: 1 shape { '
          'dim { dim_param: "batch" } dim { dim_value: %d } dim { dim_param: "past + 1" } '
          'dim { dim_value: %d } } } } }' % (name, H, DH))
print("}")
