// RUN: hodu-opt %s --hodu-fold-constants="size-limit=4 resource-bytes=8" --split-input-file | FileCheck %s

// With size-limit=4 a 4-element result folds, an 8-element one stays.
// CHECK-LABEL: func.func @size_limit
// CHECK: hodu.constant dense<[2, 3, 4, 5]> : tensor<4xi8>
// CHECK: hodu.broadcast
func.func @size_limit() -> (tensor<4xi8>, tensor<2x4xi8>) {
  %a = hodu.constant dense<[1, 2, 3, 4]> : tensor<4xi8>
  %0 = hodu.add_scalar %a, 1 : i8 : (tensor<4xi8>) -> tensor<4xi8>
  %1 = hodu.broadcast %a : (tensor<4xi8>) -> tensor<2x4xi8>
  return %0, %1 : tensor<4xi8>, tensor<2x4xi8>
}

// -----

// A result above resource-bytes (4 x f32 = 16 > 8 bytes) is written into a
// resource blob, not a dense attribute: f32 -1, -2, -3, -4 after the
// alignment word (8).
// CHECK-LABEL: func.func @to_resource
// CHECK: hodu.constant dense_resource<[[BLOB:.*]]> : tensor<4xf32>
// CHECK: [[BLOB]]: "0x08000000000080BF000000C0000040C0000080C0"
func.func @to_resource() -> tensor<4xf32> {
  %a = hodu.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = hodu.neg %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A splat result costs one element whatever its size, so it folds beyond
// the size limit (and stays a dense splat, not a blob): broadcast, add and
// a comparison of splats.
// CHECK-LABEL: func.func @splat_beyond_limit
// CHECK-DAG: %[[F:.*]] = hodu.constant dense<2.000000e+00> : tensor<64x64xf32>
// CHECK-DAG: %[[B:.*]] = hodu.constant dense<true> : tensor<64x64xi1>
// CHECK: return %[[F]], %[[B]]
func.func @splat_beyond_limit() -> (tensor<64x64xf32>, tensor<64x64xi1>) {
  %a = hodu.constant dense<1.0> : tensor<64xf32>
  %b = hodu.broadcast %a : (tensor<64xf32>) -> tensor<64x64xf32>
  %c = hodu.add %b, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %d = hodu.gt %c, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xi1>
  return %c, %d : tensor<64x64xf32>, tensor<64x64xi1>
}
