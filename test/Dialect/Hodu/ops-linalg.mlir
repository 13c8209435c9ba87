// Round trip of the Matrix, Linalg and Einsum families.
// RUN: hodu-opt %s --split-input-file | hodu-opt --split-input-file | FileCheck %s

// Matmul: plain 2-D, batch broadcasting, 1-D operands on either side, and
// vector times vector (a 0-d result).
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<8x2x3xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[V:[a-z0-9]+]]: tensor<3xf32>, %[[C:[a-z0-9]+]]: tensor<5x1x3x2xf32>)
// CHECK-NEXT: hodu.matmul %[[A]], %[[B]] : (tensor<8x2x3xf32>, tensor<3x4xf32>) -> tensor<8x2x4xf32>
// CHECK-NEXT: hodu.matmul %[[V]], %[[B]] : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: hodu.matmul %[[A]], %[[V]] : (tensor<8x2x3xf32>, tensor<3xf32>) -> tensor<8x2xf32>
// CHECK-NEXT: hodu.matmul %[[V]], %[[V]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
// CHECK-NEXT: hodu.matmul %[[A]], %[[C]] : (tensor<8x2x3xf32>, tensor<5x1x3x2xf32>) -> tensor<5x8x2x2xf32>
func.func @matmul(%a: tensor<8x2x3xf32>, %b: tensor<3x4xf32>, %v: tensor<3xf32>, %c: tensor<5x1x3x2xf32>) {
  %0 = hodu.matmul %a, %b : (tensor<8x2x3xf32>, tensor<3x4xf32>) -> tensor<8x2x4xf32>
  %1 = hodu.matmul %v, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  %2 = hodu.matmul %a, %v : (tensor<8x2x3xf32>, tensor<3xf32>) -> tensor<8x2xf32>
  %3 = hodu.matmul %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %4 = hodu.matmul %a, %c : (tensor<8x2x3xf32>, tensor<5x1x3x2xf32>) -> tensor<5x8x2x2xf32>
  return
}

// -----

// Matmul on integers and low-precision floats, with a dynamic row count.
// CHECK-LABEL: func.func @matmul_dtypes
// CHECK-NEXT: hodu.matmul %{{.*}}, %{{.*}} : (tensor<?x16xi8>, tensor<16x4xi8>) -> tensor<?x4xi8>
// CHECK-NEXT: hodu.matmul %{{.*}}, %{{.*}} : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xbf16>
// CHECK-NEXT: hodu.matmul %{{.*}}, %{{.*}} : (tensor<2x2xui32>, tensor<2x2xui32>) -> tensor<2x2xui32>
func.func @matmul_dtypes(%a: tensor<?x16xi8>, %b: tensor<16x4xi8>, %c: tensor<2x2xbf16>, %d: tensor<2x2xui32>) {
  %0 = hodu.matmul %a, %b : (tensor<?x16xi8>, tensor<16x4xi8>) -> tensor<?x4xi8>
  %1 = hodu.matmul %c, %c : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xbf16>
  %2 = hodu.matmul %d, %d : (tensor<2x2xui32>, tensor<2x2xui32>) -> tensor<2x2xui32>
  return
}

// -----

// Dot of two vectors gives a 0-d tensor.
// CHECK-LABEL: func.func @dot
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<16xf64>, %[[B:[a-z0-9]+]]: tensor<16xf64>)
// CHECK-NEXT: %[[R:.*]] = hodu.dot %[[A]], %[[B]] : (tensor<16xf64>, tensor<16xf64>) -> tensor<f64>
// CHECK-NEXT: return %[[R]]
func.func @dot(%a: tensor<16xf64>, %b: tensor<16xf64>) -> tensor<f64> {
  %0 = hodu.dot %a, %b : (tensor<16xf64>, tensor<16xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

// Det and trace drop the matrix dims; inv keeps them.
// CHECK-LABEL: func.func @square_matrix
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x3xf32>, %[[Y:[a-z0-9]+]]: tensor<4x4xf16>)
// CHECK-NEXT: hodu.det %[[X]] : (tensor<2x3x3xf32>) -> tensor<2xf32>
// CHECK-NEXT: hodu.inv %[[X]] : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
// CHECK-NEXT: hodu.trace %[[Y]] : (tensor<4x4xf16>) -> tensor<f16>
func.func @square_matrix(%x: tensor<2x3x3xf32>, %y: tensor<4x4xf16>) {
  %0 = hodu.det %x : (tensor<2x3x3xf32>) -> tensor<2xf32>
  %1 = hodu.inv %x : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %2 = hodu.trace %y : (tensor<4x4xf16>) -> tensor<f16>
  return
}

// -----

// Einsum: a matrix product, a transpose with one operand, and a full
// contraction to a 0-d result.
// CHECK-LABEL: func.func @einsum
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<2x3xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<3xi32>)
// CHECK-NEXT: hodu.einsum %[[A]], %[[B]] {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: hodu.einsum %[[A]] {equation = "ij->ji"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: hodu.einsum %[[C]], %[[C]] {equation = "i,i->"} : (tensor<3xi32>, tensor<3xi32>) -> tensor<i32>
func.func @einsum(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3xi32>) {
  %0 = hodu.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = hodu.einsum %a {equation = "ij->ji"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = hodu.einsum %c, %c {equation = "i,i->"} : (tensor<3xi32>, tensor<3xi32>) -> tensor<i32>
  return
}
