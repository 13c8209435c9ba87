// Round trip of hodu.if and hodu.yield, and the verifier's errors.
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
