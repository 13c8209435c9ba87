//===- HoduControlFlowOps.td - regions: If ---------------------*- tablegen -*-===//
//
// Not an upstream family: the upstream Hodu IR is a flat dataflow graph with
// no control flow. ONNX models branch (If), so the dialect gains region ops.
// An If whose condition is known at import time never reaches the IR (the
// importer inlines the branch taken); `hodu.if` is the run-time branch.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_CONTROL_FLOW_OPS_TD
#define HODU_CONTROL_FLOW_OPS_TD

def Hodu_IfOp : Hodu_Op<"if", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "Runs one of two regions, chosen by a boolean at run time";
  let description = [{
    Runs `then` when `condition` (a one-element boolean tensor) is true, else
    `else`, and gives the values the region's `hodu.yield` passes. Both
    regions yield values of exactly the result types (static shapes). The
    regions read values of the enclosing region directly. Not an upstream
    family: ONNX's `If` (the importer inlines the branch taken when the
    condition is known at import time); it lowers to `scf.if`.

    ```mlir
    %r = hodu.if %cond : tensor<i1> -> tensor<1x1xf32> {
      %a = hodu.sigmoid %x : tensor<1x1xf32> -> tensor<1x1xf32>
      hodu.yield %a : tensor<1x1xf32>
    } else {
      hodu.yield %x : tensor<1x1xf32>
    }
    ```
  }];
  let arguments = (ins Hodu_BoolTensor:$condition);
  let results = (outs Variadic<Hodu_Tensor>:$results);
  let regions = (region SizedRegion<1>:$thenRegion, SizedRegion<1>:$elseRegion);
  let assemblyFormat = [{
    $condition `:` type($condition) (`->` type($results)^)? $thenRegion
    `else` $elseRegion attr-dict
  }];
  let hasVerifier = 1;
}

def Hodu_YieldOp : Hodu_Op<"yield", [Pure, Terminator,
    HasParent<"IfOp">]> {
  let summary = "The values a `hodu.if` region gives";
  let arguments = (ins Variadic<Hodu_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
}

#endif // HODU_CONTROL_FLOW_OPS_TD
