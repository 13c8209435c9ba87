//===- HoduConvOps.td - Conv family ----------------------------*- tablegen -*-===//

#ifndef HODU_CONV_OPS_TD
#define HODU_CONV_OPS_TD

include "Hodu/HoduBase.td"

// One op per conv kind; the spatial rank (1, 2 or 3: upstream's
// Conv1d/2d/3d) follows from the operand rank (3, 4 or 5). Layouts are
// NC[D]HW for activations and O(I/groups)[D]HW for weights; pads are
// `[begin_0.., end_0..]` per spatial dim.
class Hodu_ConvBase<string mnemonic, string what, dag extraArgs>
    : Hodu_Op<mnemonic, [Pure]> {
  let summary = "Conv: " # what # " (1-D, 2-D or 3-D)";
  let arguments = !con((ins Hodu_FloatTensor:$lhs, Hodu_FloatTensor:$rhs,
                            DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                            DenseI64ArrayAttr:$dilations,
                            DefaultValuedAttr<I64Attr, "1">:$groups), extraArgs);
  let results = (outs Hodu_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Hodu_ConvOp : Hodu_ConvBase<"conv", "grouped convolution", (ins)> {
  let description = [{
    Cross-correlation of `lhs` (`[N, C, spatial...]`) with the weights `rhs`
    (`[O, C/groups, kernel...]`) by `strides`, `pads` and `dilations` (one
    entry per spatial dim; pads twice as many), in `groups` groups. Output
    size per dim: `floor((in + pb + pe - (d*(k-1)+1)) / s) + 1`. A bias is a
    separate `hodu.add` (fusion puts it back in the kernel). Family **Conv**
    (upstream Conv1d, Conv2d, Conv3d).

    ```mlir
    %y = hodu.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                           dilations = array<i64: 1, 1>}
         : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Hodu_ConvTransposeOp
    : Hodu_ConvBase<"conv_transpose", "transposed convolution",
                    (ins DenseI64ArrayAttr:$output_padding)> {
  let description = [{
    The gradient of `hodu.conv` with respect to its input, used as an
    upsampling layer. `rhs` is `[C, O/groups, kernel...]`. Output size per
    dim: `s*(in-1) + op + d*(k-1) + 1 - pb - pe`. Family **Conv** (upstream
    ConvTranspose1d/2d/3d).
  }];
  let hasVerifier = 1;
}

def Hodu_ConvGradWeightOp
    : Hodu_ConvBase<"conv_grad_weight", "weight gradient of a convolution", (ins)> {
  let description = [{
    The gradient of `hodu.conv` with respect to its weights: `lhs` is the
    forward input `[N, C, spatial...]`, `rhs` the output gradient
    `[N, O, out_spatial...]`, and the result the weight-shaped gradient
    `[O, C/groups, kernel...]` (its type gives the kernel size). Family
    **Conv** (upstream Conv{1,2,3}dGradWeight).
  }];
  let hasVerifier = 1;
}

def Hodu_ConvTransposeGradWeightOp
    : Hodu_ConvBase<"conv_transpose_grad_weight",
                    "weight gradient of a transposed convolution",
                    (ins DenseI64ArrayAttr:$output_padding)> {
  let description = [{
    The gradient of `hodu.conv_transpose` with respect to its weights: `lhs`
    is the forward input `[N, C, spatial...]`, `rhs` the output gradient
    `[N, O, out_spatial...]`, the result `[C, O/groups, kernel...]`. Family
    **Conv** (upstream ConvTranspose{1,2,3}dGradWeight).
  }];
  let hasVerifier = 1;
}

#endif // HODU_CONV_OPS_TD
