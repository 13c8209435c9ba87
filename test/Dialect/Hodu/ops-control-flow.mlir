// Round trip of hodu.if, hodu.loop, hodu.yield and hodu.assert.
// RUN: hodu-opt %s --split-input-file | hodu-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @branch
// CHECK: %[[R:.*]] = hodu.if %{{.*}} : tensor<i1> -> tensor<2xf32> {
// CHECK-NEXT: %[[S:.*]] = hodu.sigmoid %{{.*}}
// CHECK-NEXT: hodu.yield %[[S]] : tensor<2xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: hodu.yield %{{.*}} : tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @branch(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = hodu.if %c : tensor<i1> -> tensor<2xf32> {
    %s = hodu.sigmoid %x : (tensor<2xf32>) -> tensor<2xf32>
    hodu.yield %s : tensor<2xf32>
  } else {
    hodu.yield %x : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

// No results: both regions end in an empty hodu.yield.
// CHECK-LABEL: func.func @no_results
// CHECK: hodu.if %{{.*}} : tensor<1xi1> {
// CHECK-NEXT: hodu.yield
// CHECK: } else {
func.func @no_results(%c: tensor<1xi1>) {
  hodu.if %c : tensor<1xi1> {
    hodu.yield
  } else {
    hodu.yield
  }
  return
}

// -----

// hodu.loop: a counter, a condition and carried values.
// CHECK-LABEL: func.func @loop
// CHECK: %[[R:.*]]:2 = hodu.loop %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<i64> -> tensor<2xf32>, tensor<i64> {
// CHECK-NEXT: ^bb0(%[[I:.*]]: tensor<i64>, %[[C:.*]]: tensor<i1>, %[[V:.*]]: tensor<2xf32>, %[[S:.*]]: tensor<i64>):
// CHECK-NEXT: %[[N:.*]] = hodu.add %[[V]], %[[V]]
// CHECK-NEXT: %[[T:.*]] = hodu.add %[[S]], %[[I]]
// CHECK-NEXT: hodu.yield %[[C]], %[[N]], %[[T]] : tensor<i1>, tensor<2xf32>, tensor<i64>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0
func.func @loop(%m: tensor<i64>, %c: tensor<i1>, %x: tensor<2xf32>, %s: tensor<i64>) -> tensor<2xf32> {
  %r:2 = hodu.loop %m, %c, %x, %s : tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<i64> -> tensor<2xf32>, tensor<i64> {
  ^bb0(%i: tensor<i64>, %cin: tensor<i1>, %v: tensor<2xf32>, %acc: tensor<i64>):
    %n = hodu.add %v, %v : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %t = hodu.add %acc, %i : (tensor<i64>, tensor<i64>) -> tensor<i64>
    hodu.yield %cin, %n, %t : tensor<i1>, tensor<2xf32>, tensor<i64>
  }
  return %r#0 : tensor<2xf32>
}

// -----

// hodu.assert on a 0-d boolean tensor, and (after the lowering to linalg)
// on an i1.
// CHECK-LABEL: func.func @checks
// CHECK-NEXT: hodu.assert %{{.*}} : tensor<i1> {message = "node 'r' (Reshape): fits"}
// CHECK-NEXT: hodu.assert %{{.*}} : i1 {message = "scalar"}
func.func @checks(%ok: tensor<i1>, %b: i1) {
  hodu.assert %ok : tensor<i1> {message = "node 'r' (Reshape): fits"}
  hodu.assert %b : i1 {message = "scalar"}
  return
}
