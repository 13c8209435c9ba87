// RUN: hodu-opt %s --hodu-fold-constants --split-input-file | FileCheck %s
// RUN: hodu-opt %s --hodu-fold-constants="work-limit=4" --split-input-file | FileCheck %s --check-prefix=WORK

// What an ONNX ConstantOfShape -> ReduceSum chain becomes: a splat of 10^12
// elements reduced to one. The splat costs one element, but the reduction
// would visit all 10^12, beyond the default work-limit: it stays for run
// time (and the pass returns at once instead of computing for hours).
// CHECK-LABEL: func.func @huge_reduction
// CHECK: %[[S:.*]] = hodu.constant dense<1.000000e+00> : tensor<1000000x1000000xf32>
// CHECK: hodu.reduce_sum %[[S]]
func.func @huge_reduction() -> tensor<f32> {
  %s = hodu.constant dense<1.0> : tensor<1000000x1000000xf32>
  %r = hodu.reduce_sum %s {dims = array<i64: 0, 1>} : (tensor<1000000x1000000xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// work-limit counts the elements a reduction visits, not those it writes:
// with work-limit=4 a 4-element input folds, an 8-element one stays.
// WORK-LABEL: func.func @work_limit
// WORK-DAG: hodu.constant dense<1.000000e+01> : tensor<1xf32>
// WORK-DAG: hodu.reduce_sum %{{.*}} {dims = array<i64: 1>} : (tensor<1x8xf32>) -> tensor<1xf32>
func.func @work_limit() -> (tensor<1xf32>, tensor<1xf32>) {
  %a = hodu.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %b = hodu.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<1x8xf32>
  %0 = hodu.reduce_sum %a {dims = array<i64: 1>} : (tensor<1x4xf32>) -> tensor<1xf32>
  %1 = hodu.reduce_sum %b {dims = array<i64: 1>} : (tensor<1x8xf32>) -> tensor<1xf32>
  return %0, %1 : tensor<1xf32>, tensor<1xf32>
}
