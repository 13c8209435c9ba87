// Round trip of the Indexing family.
// RUN: hodu-opt %s --split-input-file | hodu-opt --split-input-file | FileCheck %s

// index_select with 1-D and 2-D indices (ONNX Gather), i64 and i32 indices.
// CHECK-LABEL: func.func @index_select
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<5x3xf32>, %[[I:[a-z0-9]+]]: tensor<2xi64>, %[[J:[a-z0-9]+]]: tensor<2x4xi32>)
// CHECK-NEXT: hodu.index_select %[[X]], %[[I]] {dim = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
// CHECK-NEXT: hodu.index_select %[[X]], %[[J]] {dim = 1 : i64} : (tensor<5x3xf32>, tensor<2x4xi32>) -> tensor<5x2x4xf32>
func.func @index_select(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %j: tensor<2x4xi32>) {
  %0 = hodu.index_select %x, %i {dim = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %1 = hodu.index_select %x, %j {dim = 1 : i64} : (tensor<5x3xf32>, tensor<2x4xi32>) -> tensor<5x2x4xf32>
  return
}

// -----

// index_put writes slices along a dim.
// CHECK-LABEL: func.func @index_put
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<5x3xi16>, %[[I:[a-z0-9]+]]: tensor<2xi64>, %[[V:[a-z0-9]+]]: tensor<5x2xi16>)
// CHECK-NEXT: hodu.index_put %[[X]], %[[I]], %[[V]] {dim = 1 : i64} : (tensor<5x3xi16>, tensor<2xi64>, tensor<5x2xi16>) -> tensor<5x3xi16>
func.func @index_put(%x: tensor<5x3xi16>, %i: tensor<2xi64>, %v: tensor<5x2xi16>) {
  %0 = hodu.index_put %x, %i, %v {dim = 1 : i64} : (tensor<5x3xi16>, tensor<2xi64>, tensor<5x2xi16>) -> tensor<5x3xi16>
  return
}

// -----

// gather (ONNX GatherElements) takes the shape of the indices.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3x4xbf16>, %[[I:[a-z0-9]+]]: tensor<3x2xi64>)
// CHECK-NEXT: hodu.gather %[[X]], %[[I]] {dim = 1 : i64} : (tensor<3x4xbf16>, tensor<3x2xi64>) -> tensor<3x2xbf16>
func.func @gather(%x: tensor<3x4xbf16>, %i: tensor<3x2xi64>) {
  %0 = hodu.gather %x, %i {dim = 1 : i64} : (tensor<3x4xbf16>, tensor<3x2xi64>) -> tensor<3x2xbf16>
  return
}

// -----

// The four scatter variants keep the input's type.
// CHECK-LABEL: func.func @scatter
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x3xf32>, %[[I:[a-z0-9]+]]: tensor<2x3xi64>, %[[S:[a-z0-9]+]]: tensor<2x3xf32>, %[[J:[a-z0-9]+]]: tensor<2x3xi32>)
// CHECK-NEXT: hodu.scatter %[[X]], %[[I]], %[[S]] {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: hodu.scatter_add %[[X]], %[[J]], %[[S]] {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: hodu.scatter_max %[[X]], %[[I]], %[[S]] {dim = 1 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: hodu.scatter_min %[[X]], %[[I]], %[[S]] {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: hodu.scatter_mul %[[X]], %[[I]], %[[S]] {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
func.func @scatter(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>, %s: tensor<2x3xf32>, %j: tensor<2x3xi32>) {
  %0 = hodu.scatter %x, %i, %s {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %1 = hodu.scatter_add %x, %j, %s {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %2 = hodu.scatter_max %x, %i, %s {dim = 1 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %3 = hodu.scatter_min %x, %i, %s {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %4 = hodu.scatter_mul %x, %i, %s {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// onehot inserts the class dim at `axis` (negative counts from the end).
// CHECK-LABEL: func.func @onehot
// CHECK-SAME: (%[[I:[a-z0-9]+]]: tensor<3xi64>, %[[J:[a-z0-9]+]]: tensor<2x5xi32>)
// CHECK-NEXT: hodu.onehot %[[I]] {axis = -1 : i64, num_classes = 4 : i64} : (tensor<3xi64>) -> tensor<3x4xf32>
// CHECK-NEXT: hodu.onehot %[[J]] {axis = 1 : i64, num_classes = 7 : i64} : (tensor<2x5xi32>) -> tensor<2x7x5xi1>
func.func @onehot(%i: tensor<3xi64>, %j: tensor<2x5xi32>) {
  %0 = hodu.onehot %i {num_classes = 4 : i64, axis = -1 : i64} : (tensor<3xi64>) -> tensor<3x4xf32>
  %1 = hodu.onehot %j {num_classes = 7 : i64, axis = 1 : i64} : (tensor<2x5xi32>) -> tensor<2x7x5xi1>
  return
}

// -----

// nonzero and unique have data-dependent (dynamic) result sizes.
// CHECK-LABEL: func.func @data_dependent
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3x4xf32>, %[[Y:[a-z0-9]+]]: tensor<6xi32>)
// CHECK-NEXT: %[[N:.*]] = hodu.nonzero %[[X]] : (tensor<3x4xf32>) -> tensor<?x2xi64>
// CHECK-NEXT: %[[V:[a-z0-9_]+]], %[[INV:[a-z0-9_]+]], %[[CNT:[a-z0-9_]+]] = hodu.unique %[[Y]] : (tensor<6xi32>) -> (tensor<?xi32>, tensor<6xi64>, tensor<?xi64>)
// CHECK-NEXT: return %[[N]], %[[V]], %[[INV]], %[[CNT]]
func.func @data_dependent(%x: tensor<3x4xf32>, %y: tensor<6xi32>)
    -> (tensor<?x2xi64>, tensor<?xi32>, tensor<6xi64>, tensor<?xi64>) {
  %0 = hodu.nonzero %x : (tensor<3x4xf32>) -> tensor<?x2xi64>
  %1:3 = hodu.unique %y : (tensor<6xi32>) -> (tensor<?xi32>, tensor<6xi64>, tensor<?xi64>)
  return %0, %1#0, %1#1, %1#2 : tensor<?x2xi64>, tensor<?xi32>, tensor<6xi64>, tensor<?xi64>
}
