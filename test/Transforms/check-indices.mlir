// hodu-check-indices: indices known only at run time get a check that they
// lie in [-n, n) and an assert (tagged hodu.index_check) at the end of the
// block, at a node of its own; constant indices get none; mode=clamp removes
// the tagged asserts (the importer's GatherND and ScatterND checks).
// RUN: hodu-opt %s --split-input-file --hodu-check-indices --mlir-print-debuginfo | FileCheck %s
// RUN: hodu-opt %s --split-input-file --hodu-check-indices=mode=clamp | FileCheck %s --check-prefix=CLAMP
// Run-time indices whose check folds to true (here after constant folding)
// leave no assert behind.
// RUN: hodu-opt %s --split-input-file --hodu-check-indices --hodu-fold-constants --canonicalize | FileCheck %s --check-prefix=FOLD
// RUN: not hodu-opt %s --split-input-file --hodu-check-indices=mode=maybe 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: hodu-check-indices: mode must be 'error' or 'clamp', not 'maybe'

// CHECK-LABEL: func.func @gather
// CHECK: %[[LO:.*]] = hodu.ge_scalar %arg1, -5 : i64 : (tensor<4xi64>) -> tensor<4xi1>
// CHECK-NEXT: %[[HI:.*]] = hodu.lt_scalar %arg1, 5 : i64 : (tensor<4xi64>) -> tensor<4xi1>
// CHECK-NEXT: %[[IN:.*]] = hodu.logical_and %[[LO]], %[[HI]]
// CHECK-NEXT: %[[OK:.*]] = hodu.reduce_all %[[IN]] {dims = array<i64: 0>} : (tensor<4xi1>) -> tensor<i1>
// CHECK-NEXT: %[[R:.*]] = hodu.index_select %arg0, %arg1 {dim = 1 : i64, hodu.indices_checked}
// CHECK-NEXT: hodu.constant
// CHECK-NEXT: hodu.index_select %arg0, %{{.*}} {dim = 1 : i64, hodu.indices_checked}
// CHECK-NOT: hodu.ge_scalar
// CHECK: hodu.assert %[[OK]] : tensor<i1> {hodu.index_check, message = "node 'g' (Gather): an index in 'idx' is outside [-5, 4] (axis 1 of the data has 5 elements)"} loc(#[[CHK:.*]])
// CHECK-NEXT: return
// CHECK-DAG: #[[NAME:.*]] = loc("g/index-check"(
// CHECK-DAG: #[[CHK]] = loc(fused<"Gather">[#[[NAME]]])
// CLAMP-LABEL: func.func @gather
// CLAMP-NOT: hodu.assert
// CLAMP: return
// FOLD-LABEL: func.func @gather
// FOLD: hodu.assert
func.func @gather(%x: tensor<3x5xf32>, %i: tensor<4xi64> {hodu.name = "idx"}) -> (tensor<3x4xf32>, tensor<3x2xf32>) {
  %r = hodu.index_select %x, %i {dim = 1 : i64} : (tensor<3x5xf32>, tensor<4xi64>) -> tensor<3x4xf32> loc(fused<"Gather">["g"("m.onnx":0:0)])
  %c = hodu.constant dense<[0, -5]> : tensor<2xi64>
  %s = hodu.index_select %x, %c {dim = 1 : i64} : (tensor<3x5xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  return %r, %s : tensor<3x4xf32>, tensor<3x2xf32>
}

// -----

// GatherElements, ScatterElements (each reduction) and index_put along
// their dims, with i32 indices (the scatter_add located as the .hdss
// importer locates its nodes: the node is the op); an index op located at
// a node of another ONNX type (the importer's own, as NonMaxSuppression's)
// is not checked.
// CHECK-LABEL: func.func @elements
// CHECK: hodu.ge_scalar %arg1, -4 : i32
// CHECK: hodu.gather %arg0, %arg1 {dim = 1 : i64, hodu.indices_checked, hodu.indices_name = "ei"}
// CHECK: hodu.ge_scalar %arg1, -3 : i32
// CHECK: hodu.scatter_add %arg0, %arg1, %arg2 {dim = 0 : i64, hodu.indices_checked}
// CHECK: hodu.ge_scalar %arg3, -3 : i32
// CHECK: hodu.index_put
// CHECK-NOT: hodu.ge_scalar
// CHECK: hodu.index_select %arg0, %arg3 {dim = 0 : i64, hodu.indices_checked}
// CHECK-NEXT: hodu.assert {{.*}}message = "node 'ge' (GatherElements): an index in 'ei' is outside [-4, 3] (axis 1 of the data has 4 elements)"
// CHECK-NEXT: hodu.assert {{.*}}message = "node '3' (scatter_add): an index in the indices is outside [-3, 2] (axis 0 of the data has 3 elements)"
// CHECK-NEXT: hodu.assert {{.*}}message = "'hodu.index_put': an index in the indices is outside [-3, 2] (axis 0 of the data has 3 elements)"
// CHECK-NEXT: return
// FOLD-LABEL: func.func @elements
// FOLD-COUNT-3: hodu.assert
func.func @elements(%x: tensor<3x4xf32>, %i: tensor<3x4xi32>, %u: tensor<3x4xf32>, %j: tensor<2xi32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<2x4xf32>) {
  %g = hodu.gather %x, %i {dim = 1 : i64, hodu.indices_name = "ei"} : (tensor<3x4xf32>, tensor<3x4xi32>) -> tensor<3x4xf32> loc(fused<"GatherElements">["ge"("m.onnx":0:0)])
  %s = hodu.scatter_add %x, %i, %u {dim = 0 : i64} : (tensor<3x4xf32>, tensor<3x4xi32>, tensor<3x4xf32>) -> tensor<3x4xf32> loc(fused<"scatter_add">["3"("m.hdss":0:0)])
  %v = hodu.constant dense<1.0> : tensor<2x4xf32>
  %p = hodu.index_put %x, %j, %v {dim = 0 : i64} : (tensor<3x4xf32>, tensor<2xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %n = hodu.index_select %x, %j {dim = 0 : i64} : (tensor<3x4xf32>, tensor<2xi32>) -> tensor<2x4xf32> loc(fused<"NonMaxSuppression">["nms"("m.onnx":0:0)])
  return %g, %s, %p, %n : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<2x4xf32>
}

// -----

// An index computed from constants at -O0 (no folding before the check):
// the check folds to true and the assert goes away. (At -O1 and up the
// index is folded first and gets no check; a reduce_all over several
// computed indices is not folded, and its check stays.)
// CHECK-LABEL: func.func @computed
// CHECK: hodu.assert
// FOLD-LABEL: func.func @computed
// FOLD-NOT: hodu.assert
// FOLD: return
func.func @computed(%x: tensor<3x5xf32>) -> tensor<3xf32> {
  %c = hodu.constant dense<-6> : tensor<i64>
  %i = hodu.add_scalar %c, 1 : i64 : (tensor<i64>) -> tensor<i64>
  %r = hodu.index_select %x, %i {dim = 1 : i64} : (tensor<3x5xf32>, tensor<i64>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// The importer's check of GatherND's tuples: kept and moved to the end at a
// node of its own, or removed by mode=clamp. The row numbers' index_select
// (located at the GatherND node) gets no second check.
// CHECK-LABEL: func.func @gathernd
// CHECK-NOT: hodu.ge_scalar
// CHECK: hodu.index_select
// CHECK-NEXT: hodu.assert {{.*}}hodu.index_check{{.*}} loc(#[[ND:.*]])
// CHECK-NEXT: return
// CHECK: #[[ND]] = loc(fused<"GatherND">[#{{.*}}])
// CLAMP-LABEL: func.func @gathernd
// CLAMP-NOT: hodu.assert
// CLAMP: return
func.func @gathernd(%x: tensor<4x2xf32>, %ok: tensor<i1>, %rows: tensor<3xi64>) -> tensor<3x2xf32> {
  hodu.assert %ok : tensor<i1> {hodu.index_check, message = "node 'gnd' (GatherND): an index tuple ..."} loc(fused<"GatherND">["gnd"("m.onnx":0:0)])
  %r = hodu.index_select %x, %rows {dim = 0 : i64} : (tensor<4x2xf32>, tensor<3xi64>) -> tensor<3x2xf32> loc(fused<"GatherND">["gnd"("m.onnx":0:0)])
  return %r : tensor<3x2xf32>
}

// -----

// A model with symbolic dims runs chunk by chunk: no checks.
// CHECK-LABEL: func.func @symbolic
// CHECK-NOT: hodu.assert
// CHECK: return
module attributes {hodu.symbols = ["batch"]} {
  func.func @symbolic(%x: tensor<3x5xf32>, %i: tensor<4xi64>, %ok: tensor<i1>) -> tensor<3x4xf32> {
    hodu.assert %ok : tensor<i1> {hodu.index_check, message = "..."}
    %r = hodu.index_select %x, %i {dim = 1 : i64} : (tensor<3x5xf32>, tensor<4xi64>) -> tensor<3x4xf32>
    return %r : tensor<3x4xf32>
  }
}
