//===- HoduIndexingOps.td - Indexing family --------------------*- tablegen -*-===//

#ifndef HODU_INDEXING_OPS_TD
#define HODU_INDEXING_OPS_TD

include "Hodu/HoduBase.td"

def Hodu_IndexSelectOp : Hodu_InferredOp<"index_select"> {
  let summary = "Indexing: pick slices along a dimension by index";
  let description = [{
    `result = input[:, ..., indices, ...]` along `dim`: the result shape is
    `input.shape[:dim] + indices.shape + input.shape[dim+1:]` (ONNX Gather;
    upstream IndexSelect is the 1-D case). Negative indices count from the
    end. Family **Indexing**.

    ```mlir
    %r = hodu.index_select %x, %i {dim = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, Hodu_IndexTensor:$indices, I64Attr:$dim);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Hodu_IndexPutOp : Hodu_InferredOp<"index_put"> {
  let summary = "Indexing: write slices along a dimension by index";
  let description = [{
    The inverse of a 1-D `index_select`: a copy of `input` where slice
    `indices[j]` along `dim` is replaced by slice `j` of `values`. `values`
    has the input's shape except `dim`, which is the index count. Family
    **Indexing**.

    ```mlir
    %r = hodu.index_put %x, %i, %v {dim = 0 : i64}
         : (tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, Hodu_IndexTensor:$indices,
                       Hodu_Tensor:$values, I64Attr:$dim);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $indices `,` $values attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Hodu_GatherOp : Hodu_InferredOp<"gather"> {
  let summary = "Indexing: elementwise gather along a dimension";
  let description = [{
    `result[i][j][k] = input[i][indices[i][j][k]][k]` for `dim = 1` (torch
    `gather`, ONNX GatherElements). `indices` has the input's rank; the
    result has the shape of `indices`. Family **Indexing**.

    ```mlir
    %r = hodu.gather %x, %i {dim = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, Hodu_IndexTensor:$indices, I64Attr:$dim);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

class Hodu_ScatterOp<string mnemonic, string how> : Hodu_InferredOp<mnemonic> {
  let summary = "Indexing: scatter along a dimension, " # how;
  let description = "A copy of `input` where, for `dim = 0`, "
    # "`result[indices[i][j]][j]` is combined with `src[i][j]` (" # how # ") "
    # "(torch `scatter`, ONNX ScatterElements). `indices` and `src` have the "
    # "same shape and the input's rank. Family **Indexing**.";
  let arguments = (ins Hodu_Tensor:$input, Hodu_IndexTensor:$indices,
                       Hodu_Tensor:$src, I64Attr:$dim);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $indices `,` $src attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *ctx,
        std::optional<::mlir::Location> loc, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      types.push_back(adaptor.getInput().getType());
      return ::mlir::success();
    }
    ::llvm::LogicalResult $cppClass::verify() {
      return ::hodu::detail::verifyScatter(getOperation(), getInput().getType(),
          getIndices().getType(), getSrc().getType(), getDim());
    }
  }];
}
def Hodu_ScatterOp : Hodu_ScatterOp<"scatter", "replacing">;
def Hodu_ScatterAddOp : Hodu_ScatterOp<"scatter_add", "adding">;
def Hodu_ScatterMaxOp : Hodu_ScatterOp<"scatter_max", "keeping the maximum">;
def Hodu_ScatterMinOp : Hodu_ScatterOp<"scatter_min", "keeping the minimum">;
// Not an upstream Hodu op: ONNX ScatterElements/ScatterND with
// reduction = "mul" need it.
def Hodu_ScatterMulOp : Hodu_ScatterOp<"scatter_mul", "multiplying">;

def Hodu_OneHotOp : Hodu_Op<"onehot", [Pure]> {
  let summary = "Indexing: one-hot encoding";
  let description = [{
    Inserts a new dimension of size `num_classes` at `axis` of the result
    (negative counts from the end) that is 1 at the index given by
    `indices` and 0 elsewhere. The result's element type is the output
    dtype. Family **Indexing**.

    ```mlir
    %r = hodu.onehot %i {num_classes = 4 : i64, axis = -1 : i64} : (tensor<3xi64>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Hodu_IndexTensor:$indices, I64Attr:$num_classes, I64Attr:$axis);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Hodu_NonzeroOp : Hodu_Op<"nonzero", [Pure]> {
  let summary = "Indexing: coordinates of the nonzero elements";
  let description = [{
    The i64 coordinates of the nonzero elements in row-major order, as a
    `[count, rank]` tensor whose first dimension is dynamic (data-dependent).
    Family **Indexing**.

    ```mlir
    %r = hodu.nonzero %x : (tensor<3x4xf32>) -> tensor<?x2xi64>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input);
  let results = (outs Hodu_I64Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Hodu_UniqueOp : Hodu_Op<"unique", [Pure]> {
  let summary = "Indexing: sorted unique values, inverse indices and counts";
  let description = [{
    The sorted distinct values of the flattened input (`[?]`), for each input
    element the index of its value among them (input shape, i64), and how
    often each value occurs (`[?]`, i64). Upstream carries the second and
    third outputs through parameters. Family **Indexing**.

    ```mlir
    %u, %inv, %cnt = hodu.unique %x : (tensor<6xi32>) -> (tensor<?xi32>, tensor<6xi64>, tensor<?xi64>)
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input);
  let results = (outs Hodu_Tensor:$values, Hodu_I64Tensor:$inverse, Hodu_I64Tensor:$counts);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // HODU_INDEXING_OPS_TD
