//===- HoduOps.td - all hodu ops -------------------------------*- tablegen -*-===//

#ifndef HODU_OPS_TD
#define HODU_OPS_TD

include "Hodu/HoduBase.td"
include "Hodu/HoduEnums.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Hodu_ConstantOp : Hodu_Op<"constant", [Pure, ConstantLike,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor (dense data or a resource blob)";
  let description = [{
    A tensor constant. `value` is any elements attribute: `dense<...>` for
    small data, `dense_resource<...>` for large weights, whose bytes live
    once in the context's resource blob manager (importers hand weights over
    without copies). Not an upstream family (upstream keeps constants in the
    snapshot's constant table).

    ```mlir
    %c = hodu.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %w = hodu.constant dense_resource<conv1_w> : tensor<16x3x3x3xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let builders = [OpBuilder<(ins "::mlir::ElementsAttr":$value), [{
    build($_builder, $_state, value.getType(), value);
  }]>];
}

include "Hodu/HoduElementwiseOps.td"
include "Hodu/HoduLinalgOps.td"
include "Hodu/HoduReductionOps.td"
include "Hodu/HoduShapeOps.td"
include "Hodu/HoduIndexingOps.td"
include "Hodu/HoduConvOps.td"
include "Hodu/HoduAbiOps.td"
include "Hodu/HoduPartitionOps.td"
include "Hodu/HoduControlFlowOps.td"

#endif // HODU_OPS_TD
