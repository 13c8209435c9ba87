// RUN: hodu-opt %s --canonicalize --split-input-file | FileCheck %s

// Two negations cancel, a multiply by one folds away.
// CHECK-LABEL: func.func @neg_neg_mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @neg_neg_mul_one(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %n = hodu.neg %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %nn = hodu.neg %n : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = hodu.constant dense<1.0> : tensor<2x3xf32>
  %r = hodu.mul %nn, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
