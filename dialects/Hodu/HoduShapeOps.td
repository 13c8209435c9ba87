//===- HoduShapeOps.td - data-movement op families -------------*- tablegen -*-===//
//
// Families: Concat, Split, Shape, ShapeScalars (slice), ShapeMemory (flip),
// Padding, Resize, Memory (contiguous), Dummy.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_SHAPE_OPS_TD
#define HODU_SHAPE_OPS_TD

include "Hodu/HoduBase.td"
include "Hodu/HoduEnums.td"

def Hodu_ConcatOp : Hodu_InferredOp<"concat"> {
  let summary = "Concat: join tensors along a dimension";
  let description = [{
    Joins one or more tensors of equal rank and element type along `dim`; all
    other dimensions must match. Family **Concat**.

    ```mlir
    %r = hodu.concat %a, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Hodu_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Hodu_SplitOp : Hodu_InferredOp<"split"> {
  let summary = "Split: cut a tensor into pieces along a dimension";
  let description = [{
    Cuts the input along `dim` into one result per entry of `sizes`, which
    must add up to the dimension's size (upstream selects one piece with
    `output_index`; here every piece is a result). Family **Split**.

    ```mlir
    %a, %b = hodu.split %x {dim = 1 : i64, sizes = array<i64: 2, 3>}
           : (tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>)
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, I64Attr:$dim, DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<Hodu_Tensor>:$results);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Hodu_ReshapeOp : Hodu_Op<"reshape", [Pure]> {
  let summary = "Shape: reinterpret the elements with another static shape";
  let description = [{
    Same elements in row-major order, new shape (the result type). Element
    counts must match. A reshape of a reshape folds into one, and a reshape
    to the operand's own type folds away. Family **Shape**.

    ```mlir
    %r = hodu.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Hodu_FlattenOp : Hodu_InferredOp<"flatten"> {
  let summary = "Shape: merge the dimensions `start_dim..end_dim` into one";
  let description = [{
    Merges the dimensions from `start_dim` to `end_dim` (inclusive; negative
    values count from the end) into one. Family **Shape**.

    ```mlir
    %r = hodu.flatten %x {start_dim = 1 : i64, end_dim = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, I64Attr:$start_dim, I64Attr:$end_dim);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Hodu_SqueezeOp : Hodu_InferredOp<"squeeze"> {
  let summary = "Shape: remove size-1 dimensions";
  let description = [{
    Removes the dimensions listed in `dims` (each in `[0, rank)`, no
    repeats), each of which must have size 1. Family **Shape**.

    ```mlir
    %r = hodu.squeeze %x {dims = array<i64: 0>} : (tensor<1x3xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Hodu_UnsqueezeOp : Hodu_InferredOp<"unsqueeze"> {
  let summary = "Shape: insert size-1 dimensions";
  let description = [{
    Inserts size-1 dimensions at the positions `dims` of the result
    (each in `[0, result rank)`, no repeats). Family **Shape**.

    ```mlir
    %r = hodu.unsqueeze %x {dims = array<i64: 0, 2>} : (tensor<3xf32>) -> tensor<1x3x1xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Hodu_BroadcastOp : Hodu_Op<"broadcast", [Pure]> {
  let summary = "Shape: broadcast to a larger shape (numpy rules)";
  let description = [{
    Broadcasts the input to the result's shape: aligned at the trailing
    dimension, each input dimension is 1 or equal to the result's. Family
    **Shape**.

    ```mlir
    %r = hodu.broadcast %x : (tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Hodu_TransposeOp : Hodu_InferredOp<"transpose"> {
  let summary = "Shape: permute dimensions";
  let description = [{
    `result.dim(i) = input.dim(perm[i])`; `perm` is a permutation of
    `[0, rank)`. Covers upstream Transpose and Permute. A transpose of a
    transpose folds into one; the identity permutation folds away. Family
    **Shape**.

    ```mlir
    %r = hodu.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Hodu_SliceOp : Hodu_InferredOp<"slice"> {
  let summary = "ShapeScalars: strided slice of every dimension";
  let description = [{
    For each dimension `i`, takes the elements `starts[i], starts[i] +
    steps[i], ...` up to, not including, `ends[i]`. Steps are nonzero; with a
    negative step the slice runs backwards (`ends[i]` may then be -1, meaning
    "through element 0"). Starts and ends are already clamped to the
    dimension (importers normalise). A slice that takes every dimension
    whole (`[0, size)`, step 1) folds away. Family **ShapeScalars**.

    ```mlir
    %r = hodu.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 2, 5>, steps = array<i64: 1, 2>}
         : (tensor<2x6xf32>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Hodu_FlipOp : Hodu_InferredOp<"flip"> {
  let summary = "ShapeMemory: reverse the order along dimensions";
  let description = [{
    Reverses the elements along each dimension in `dims`. Family
    **ShapeMemory**.

    ```mlir
    %r = hodu.flip %x {dims = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Hodu_PadOp : Hodu_InferredOp<"pad"> {
  let summary = "Padding: pad with a constant, by reflection, replication or wrap-around";
  let description = [{
    Pads each dimension by `pads = [begin_0, ..., begin_n-1, end_0, ...,
    end_n-1]` (non-negative). `mode` is constant (fill with `value`, default
    0), reflect (mirror without the edge; pads must be smaller than the
    dimension), replicate (repeat the edge) or circular (wrap around).
    Family **Padding**.

    ```mlir
    %r = hodu.pad %x {mode = #hodu<pad_mode reflect>, pads = array<i64: 0, 1, 0, 1>}
         : (tensor<2x3xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, Hodu_PadModeAttr:$mode,
                       DenseI64ArrayAttr:$pads, OptionalAttr<TypedAttrInterface>:$value);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Hodu_ResizeOp : Hodu_Op<"resize", [Pure, AttrSizedOperandSegments]> {
  let summary = "Resize: resample spatial dimensions (nearest, linear, cubic)";
  let description = [{
    Resamples the input to the result's shape with the ONNX Resize rules:
    `mode` (nearest, linear, cubic), `coord_transform` (half_pixel,
    asymmetric, align_corners, pytorch_half_pixel, tf_half_pixel_for_nn,
    tf_crop_and_resize, half_pixel_symmetric), `nearest_mode` for nearest,
    `cubic_coeff_a` for cubic and `exclude_outside`. Ranks and element types
    of input and result match. Family **Resize**.

    The scale of each dim, what the coordinate transforms divide by, is one
    of:
    - the `scales` attribute (one positive entry per dim), as ONNX means a
      Resize given by scales: the output size is then floor(input * scale),
      so the ratio of the sizes differs;
    - the operand after `scales`, a 1-D float tensor with one entry per dim
      read when the model runs (a Resize whose scales are known only then,
      to the output shape the model declares; the importer checks that they
      give it);
    - without either, output / input.

    `tf_crop_and_resize` maps the region of interest given by the `roi`
    operand (a 1-D float tensor: the start of each dim, then the end, as
    fractions of the input; [0, 1] without it) to the output; an output
    element whose source coordinate falls outside the input in any dim is
    `extrapolation_value`. A source coordinate computed from operands is
    clamped before it is rounded to an index, so that no data makes the op
    read outside its input.

    ```mlir
    %r = hodu.resize %x {mode = #hodu<resize_mode nearest>,
           coord_transform = #hodu<coord_transform asymmetric>,
           nearest_mode = #hodu<nearest_mode floor>}
         : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
    %c = hodu.resize %x roi(%roi) {mode = #hodu<resize_mode linear>,
           coord_transform = #hodu<coord_transform tf_crop_and_resize>,
           extrapolation_value = 10.0 : f32}
         : (tensor<1x1x4x4xf32>, tensor<8xf32>) -> tensor<1x1x3x3xf32>
    ```
  }];
  let arguments = (ins Hodu_FloatTensor:$input,
                       Optional<Hodu_FloatTensor>:$scale_values,
                       Optional<Hodu_FloatTensor>:$roi,
                       Hodu_ResizeModeAttr:$mode,
                       Hodu_CoordTransformAttr:$coord_transform,
                       DefaultValuedAttr<Hodu_NearestModeAttr,
                           "::hodu::NearestMode::round_prefer_floor">:$nearest_mode,
                       DefaultValuedAttr<F32Attr, "-0.75f">:$cubic_coeff_a,
                       UnitAttr:$exclude_outside,
                       OptionalAttr<DenseF64ArrayAttr>:$scales,
                       DefaultValuedAttr<F32Attr, "0.0f">:$extrapolation_value);
  let results = (outs Hodu_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scales` `(` $scale_values^ `)`)? (`roi` `(` $roi^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Hodu_ContiguousOp : Hodu_InferredOp<"contiguous"> {
  let summary = "Memory: make a tensor contiguous (the identity on values)";
  let description = [{
    Upstream Hodu copies a strided view into dense storage. Tensors here have
    value semantics and no layouts, so this is the identity and folds away.
    Kept so that every upstream node has an op. Family **Memory**.
  }];
  let arguments = (ins Hodu_Tensor:$input);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Hodu_DummyOp : Hodu_InferredOp<"dummy"> {
  let summary = "Dummy: upstream placeholder node (the identity)";
  let description = [{
    Upstream Hodu's `Dummy` op marks a node that does no work. It is the
    identity here and folds away. Family **Dummy**.
  }];
  let arguments = (ins Hodu_Tensor:$input);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

#endif // HODU_SHAPE_OPS_TD
