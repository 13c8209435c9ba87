//===- HoduReductionOps.td - Reduce, Windowing, Scan, Sort -----*- tablegen -*-===//

#ifndef HODU_REDUCTION_OPS_TD
#define HODU_REDUCTION_OPS_TD

include "Hodu/HoduBase.td"
include "Hodu/HoduEnums.td"

// resultKind: "same" (element type kept), "i64" (arg ops), "bool" (any/all).
class Hodu_ReduceOp<string mnemonic, string what, string resultKind = "same",
                    Type t = Hodu_NumericTensor>
    : Hodu_InferredOp<mnemonic> {
  let summary = "Reduce: " # what # " over `dims`";
  let description = "Reduces the input with `" # what # "` over the dimensions in "
    # "`dims` (each in `[0, rank)`, no repeats; an empty list reduces nothing). "
    # "With `keep_dim` the reduced dimensions stay as size 1. "
    # !if(!eq(resultKind, "i64"), "Exactly one dim is allowed; the result is "
        # "the i64 index along it (`select_last_index` picks the last of equal "
        # "values). ", "")
    # !if(!eq(resultKind, "bool"), "The result is i1. ", "")
    # "Family **Reduce**.";
  let arguments = !con((ins t:$input, DenseI64ArrayAttr:$dims,
                            DefaultValuedAttr<BoolAttr, "false">:$keep_dim),
                       !if(!eq(resultKind, "i64"),
                           (ins UnitAttr:$select_last_index), (ins)));
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *ctx,
        std::optional<::mlir::Location> loc, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::hodu::detail::inferReduce(loc, adaptor.getInput().getType(),
          adaptor.getDims(), adaptor.getKeepDim(), "}] # resultKind # [{", types);
    }
  }];
}

def Hodu_ReduceSumOp : Hodu_ReduceOp<"reduce_sum", "sum">;
def Hodu_ReduceMeanOp : Hodu_ReduceOp<"reduce_mean", "mean", "same", Hodu_FloatTensor>;
def Hodu_ReduceMaxOp : Hodu_ReduceOp<"reduce_max", "maximum">;
def Hodu_ReduceMinOp : Hodu_ReduceOp<"reduce_min", "minimum">;
def Hodu_ReduceProdOp : Hodu_ReduceOp<"reduce_prod", "product">;
def Hodu_ReduceStdOp : Hodu_ReduceOp<"reduce_std", "population standard deviation", "same", Hodu_FloatTensor>;
def Hodu_ReduceVarOp : Hodu_ReduceOp<"reduce_var", "population variance", "same", Hodu_FloatTensor>;
def Hodu_ReduceNormOp : Hodu_ReduceOp<"reduce_norm", "L2 norm", "same", Hodu_FloatTensor>;
def Hodu_ReduceLogSumOp : Hodu_ReduceOp<"reduce_logsum", "log of the sum", "same", Hodu_FloatTensor>;
def Hodu_ReduceLogSumExpOp : Hodu_ReduceOp<"reduce_logsumexp", "log of the sum of exponentials", "same", Hodu_FloatTensor>;
def Hodu_ArgMaxOp : Hodu_ReduceOp<"argmax", "index of the maximum", "i64">;
def Hodu_ArgMinOp : Hodu_ReduceOp<"argmin", "index of the minimum", "i64">;
def Hodu_ReduceAnyOp : Hodu_ReduceOp<"reduce_any", "logical or", "bool", Hodu_Tensor>;
def Hodu_ReduceAllOp : Hodu_ReduceOp<"reduce_all", "logical and", "bool", Hodu_Tensor>;

def Hodu_ReduceWindowOp : Hodu_InferredOp<"reduce_window"> {
  let summary = "Windowing: sliding-window reduction (pooling)";
  let description = [{
    Reduces each window of `window_dims` (one entry per input dimension),
    moved by `strides`, over the input padded by `pads` (`[begin_0, ...,
    begin_n-1, end_0, ..., end_n-1]`) and read with `dilations`. `kind` is
    max, mean, sum or min. Padding never wins a max/min; for mean,
    `count_include_pad` says whether padded positions count in the divisor.
    Output size per dim: `floor((in + pb + pe - (d*(w-1)+1)) / s) + 1`; the
    dilated window must fit in the padded input. Family **Windowing**.

    ```mlir
    %p = hodu.reduce_window %x {kind = #hodu<window_kind max>,
           window_dims = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>,
           pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>}
         : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins Hodu_NumericTensor:$input, Hodu_WindowKindAttr:$kind,
                       DenseI64ArrayAttr:$window_dims, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs Hodu_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Hodu_CumSumOp : Hodu_InferredOp<"cumsum"> {
  let summary = "Scan: cumulative sum along a dimension";
  let description = [{
    Running sum along `dim`. `exclusive` leaves out the current element,
    `reverse` runs from the end (ONNX CumSum). Family **Scan**.

    ```mlir
    %s = hodu.cumsum %x {dim = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Hodu_NumericTensor:$input, I64Attr:$dim,
                       UnitAttr:$exclusive, UnitAttr:$reverse);
  let results = (outs Hodu_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Hodu_TopKOp : Hodu_InferredOp<"topk"> {
  let summary = "Sort: the k largest (or smallest) elements along a dimension";
  let description = [{
    Returns the `k` largest (`largest = true`) or smallest elements along
    `dim` and their i64 indices, as two results (upstream carries the
    indices through a parameter). `sorted` orders them. `k` must not exceed
    the dimension's size. Family **Sort**.

    ```mlir
    %v, %i = hodu.topk %x {k = 2 : i64, dim = 1 : i64, largest = true, sorted = true}
           : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
    ```
  }];
  let arguments = (ins Hodu_NumericTensor:$input, I64Attr:$k, I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Hodu_NumericTensor:$values, Hodu_I64Tensor:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

#endif // HODU_REDUCTION_OPS_TD
