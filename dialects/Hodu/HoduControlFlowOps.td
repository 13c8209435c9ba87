//===- HoduControlFlowOps.td - regions: If, Loop ---------------*- tablegen -*-===//
//
// Not an upstream family: the upstream Hodu IR is a flat dataflow graph with
// no control flow. ONNX models branch (If) and loop (Loop), so the dialect
// gains region ops. An If whose condition is known at import time never
// reaches the IR (the importer inlines the branch taken); `hodu.if` is the
// run-time branch. A Loop whose iterations are known at import time is
// unrolled; `hodu.loop` is the loop whose trip count or condition is known
// only at run time.
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

def Hodu_LoopOp : Hodu_Op<"loop", [RecursiveMemoryEffects]> {
  let summary = "Runs a region while a counter and a condition allow";
  let description = [{
    ONNX's `Loop` with loop-carried values: the body runs for iterations
    `i = 0, 1, ...` while `i < max_trip_count` and the condition holds. The
    body's block arguments are the iteration number (`tensor<i64>`), the
    condition it was entered with (`tensor<i1>`) and the carried values; its
    `hodu.yield` gives the next condition (a one-element boolean tensor)
    and the next carried values, of exactly the carried types (static
    shapes). The results are the carried values after the last iteration
    (the initial ones if none ran). The region reads values of the enclosing
    region directly. Not an upstream family: the importer unrolls loops
    whose iterations are known at import time and builds this op for the
    others (an ONNX Loop's scan outputs become carried buffers of as many
    rows as its trip count, which the body writes row by row); it lowers
    to `scf.while`.

    ```mlir
    %r = hodu.loop %m, %c, %x : tensor<i64>, tensor<i1>, tensor<2xf32> -> tensor<2xf32> {
    ^bb0(%i: tensor<i64>, %cin: tensor<i1>, %v: tensor<2xf32>):
      %n = hodu.add %v, %v : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      hodu.yield %cin, %n : tensor<i1>, tensor<2xf32>
    }
    ```
  }];
  let arguments = (ins Hodu_I64Tensor:$max_trip_count, Hodu_BoolTensor:$condition,
                       Variadic<Hodu_Tensor>:$inits);
  let results = (outs Variadic<Hodu_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $max_trip_count `,` $condition (`,` $inits^)? `:` type($max_trip_count) `,`
    type($condition) (`,` type($inits)^)? (`->` type($results)^)? $body attr-dict
  }];
  let hasVerifier = 1;
}

def Hodu_AssertOp : Hodu_Op<"assert", [MemoryEffects<[MemWrite]>]> {
  let summary = "Fails the run unless a boolean known only at run time holds";
  let description = [{
    Checks at run time what the importer had to assume at compile time:
    a size computed from data known only at run time (a Reshape's shape,
    Range's bounds, Expand's shape, a OneHot depth) gives the shape the
    model declares for the value, which is the shape the op is compiled
    at. When `condition` (a 0-d boolean tensor, or after lowering to
    linalg an `i1`) is false, the run goes on (every op is compiled to stay
    within its buffers whatever the data) but fails: the entry point
    returns the code of the first failed assert, and libhodurt reports its
    `message`. An assert whose condition folds to true goes away.

    Not an upstream family. The CPU target runs asserts
    (`hodu-lower-asserts`: a status word the entry point passes to
    `@main`); the other targets reject a model that has them.

    ```mlir
    hodu.assert %ok : tensor<i1> {message = "node 'r' (Reshape): ..."}
    ```
  }];
  let arguments = (ins AnyTypeOf<[0DTensorOf<[I1]>, I1]>:$condition,
                       StrAttr:$message);
  let assemblyFormat = "$condition `:` type($condition) attr-dict";
  let hasCanonicalizeMethod = 1;
  let extraClassDeclaration = [{
    /// What the check states, without the "node 'n' (Op): " its message
    /// starts with (for errors located at the op, which name the node).
    ::llvm::StringRef getCheckedFact() {
      ::llvm::StringRef what = getMessage();
      if (what.starts_with("node '") && what.contains("): "))
        what = what.split("): ").second;
      return what;
    }
  }];
}

def Hodu_YieldOp : Hodu_Op<"yield", [Pure, Terminator,
    ParentOneOf<["IfOp", "LoopOp"]>]> {
  let summary = "The values a `hodu.if` or `hodu.loop` region gives";
  let arguments = (ins Variadic<Hodu_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
}

#endif // HODU_CONTROL_FLOW_OPS_TD
