//===- HoduLinalgOps.td - Matrix, Linalg and Einsum families ---*- tablegen -*-===//

#ifndef HODU_LINALG_OPS_TD
#define HODU_LINALG_OPS_TD

include "Hodu/HoduBase.td"

def Hodu_MatmulOp : Hodu_InferredOp<"matmul"> {
  let summary = "Matrix: batched matrix product with broadcasting";
  let description = [{
    numpy `matmul` semantics: operands of rank >= 1; a 1-D lhs is treated as
    a row vector and a 1-D rhs as a column vector (the added dimension is
    dropped from the result); batch dimensions broadcast. The contracted
    dimensions (`lhs[-1]`, `rhs[-2]`) must match. Family **Matrix**.

    ```mlir
    %c = hodu.matmul %a, %b : (tensor<8x2x3xf32>, tensor<3x4xf32>) -> tensor<8x2x4xf32>
    ```
  }];
  let arguments = (ins Hodu_NumericTensor:$lhs, Hodu_NumericTensor:$rhs);
  let results = (outs Hodu_NumericTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Hodu_DotOp : Hodu_InferredOp<"dot"> {
  let summary = "Matrix: inner product of two vectors";
  let description = [{
    The inner product of two 1-D tensors of equal length, giving a 0-d
    tensor. (Upstream `Dot` also covers matrix products; those are
    `hodu.matmul` here.) Family **Matrix**.

    ```mlir
    %s = hodu.dot %a, %b : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Hodu_NumericTensor:$lhs, Hodu_NumericTensor:$rhs);
  let results = (outs Hodu_NumericTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

class Hodu_SquareMatrixOp<string mnemonic, string what, string resultDoc>
    : Hodu_InferredOp<mnemonic> {
  let summary = "Linalg: " # what;
  let description = "The " # what # " of each square matrix in the last two "
    # "dimensions (`[..., n, n]`); leading dimensions are batch dimensions. "
    # resultDoc # " Family **Linalg**.";
  let arguments = (ins Hodu_FloatTensor:$input);
  let results = (outs Hodu_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
def Hodu_DetOp : Hodu_SquareMatrixOp<"det", "determinant", "The result has shape `[...]`.">;
def Hodu_InvOp : Hodu_SquareMatrixOp<"inv", "inverse", "The result has the input's shape.">;
def Hodu_TraceOp : Hodu_SquareMatrixOp<"trace", "trace", "The result has shape `[...]`.">;

def Hodu_EinsumOp : Hodu_Op<"einsum", [Pure]> {
  let summary = "Einsum: Einstein summation";
  let description = [{
    Einstein summation over the operands as given by `equation`
    (`"ij,jk->ik"`; the `->` part is required; no ellipsis). Each operand's
    subscript count must equal its rank, a label must have one size
    everywhere it appears, and output labels must appear in some input and
    at most once in the output.
    Family **Einsum**.

    ```mlir
    %r = hodu.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Hodu_NumericTensor>:$inputs, StrAttr:$equation);
  let results = (outs Hodu_NumericTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // HODU_LINALG_OPS_TD
