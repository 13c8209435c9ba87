// Verifier and type-inference errors of the Indexing family.
// RUN: hodu-opt %s -split-input-file -verify-diagnostics

func.func @index_select_dim(%a: tensor<5x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.index_select %a, %i {dim = 2 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<5x3xf32>
  return
}

// -----

// Indices are i32 or i64 (ODS type constraint).
func.func @index_select_index_type(%a: tensor<5x3xf32>, %i: tensor<2xi16>) {
  // expected-error @+1 {{'hodu.index_select' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xi16>'}}
  %0 = hodu.index_select %a, %i {dim = 0 : i64} : (tensor<5x3xf32>, tensor<2xi16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @index_put_dim(%a: tensor<5x3xf32>, %i: tensor<2xi64>, %v: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.index_put' op dim -1 is out of range for rank 2}}
  %0 = hodu.index_put %a, %i, %v {dim = -1 : i64} : (tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @index_put_indices_rank(%a: tensor<5x3xf32>, %i: tensor<2x1xi64>, %v: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.index_put' op expects 1-D indices, got rank 2}}
  %0 = hodu.index_put %a, %i, %v {dim = 0 : i64} : (tensor<5x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @index_put_values_shape(%a: tensor<5x3xf32>, %i: tensor<2xi64>, %v: tensor<3x3xf32>) {
  // expected-error @+1 {{'hodu.index_put' op expects values of shape [2, 3], got [3, 3]}}
  %0 = hodu.index_put %a, %i, %v {dim = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>, tensor<3x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @index_put_values_type(%a: tensor<5x3xf32>, %i: tensor<2xi64>, %v: tensor<2x3xf16>) {
  // expected-error @+1 {{'hodu.index_put' op expects values of the input's element type 'f32', got 'f16'}}
  %0 = hodu.index_put %a, %i, %v {dim = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf16>) -> tensor<5x3xf32>
  return
}

// -----

func.func @gather_dim(%a: tensor<3x4xf32>, %i: tensor<3x2xi64>) {
  // expected-error @+2 {{dim 5 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.gather %a, %i {dim = 5 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return
}

// -----

func.func @gather_rank(%a: tensor<3x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{expects indices of the input's rank 2, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.gather %a, %i {dim = 0 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @scatter_dim(%a: tensor<4x3xf32>, %i: tensor<2x3xi64>, %s: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.scatter' op dim 2 is out of range for rank 2}}
  %0 = hodu.scatter %a, %i, %s {dim = 2 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_indices_rank(%a: tensor<4x3xf32>, %i: tensor<6xi64>, %s: tensor<6xf32>) {
  // expected-error @+1 {{'hodu.scatter_add' op expects indices of the input's rank 2, got 1}}
  %0 = hodu.scatter_add %a, %i, %s {dim = 0 : i64} : (tensor<4x3xf32>, tensor<6xi64>, tensor<6xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_src_shape(%a: tensor<4x3xf32>, %i: tensor<2x3xi64>, %s: tensor<2x2xf32>) {
  // expected-error @+1 {{'hodu.scatter_max' op expects src of the indices' shape [2, 3], got [2, 2]}}
  %0 = hodu.scatter_max %a, %i, %s {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_src_type(%a: tensor<4x3xf32>, %i: tensor<2x3xi64>, %s: tensor<2x3xi32>) {
  // expected-error @+1 {{'hodu.scatter_min' op expects src of the input's element type 'f32', got 'i32'}}
  %0 = hodu.scatter_min %a, %i, %s {dim = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x3xi32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @onehot_axis(%i: tensor<3xi64>) {
  // expected-error @+1 {{'hodu.onehot' op axis 2 is out of range for result rank 2}}
  %0 = hodu.onehot %i {num_classes = 4 : i64, axis = 2 : i64} : (tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @onehot_classes(%i: tensor<3xi64>) {
  // expected-error @+1 {{'hodu.onehot' op expects a positive num_classes, got 0}}
  %0 = hodu.onehot %i {num_classes = 0 : i64, axis = -1 : i64} : (tensor<3xi64>) -> tensor<3x0xf32>
  return
}

// -----

func.func @onehot_shape(%i: tensor<3xi64>) {
  // expected-error @+1 {{'hodu.onehot' op expects result shape [4, 3], got [3, 4]}}
  %0 = hodu.onehot %i {num_classes = 4 : i64, axis = 0 : i64} : (tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @nonzero_shape(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{'hodu.nonzero' op expects a result of shape [?, 2], got [?, 3]}}
  %0 = hodu.nonzero %a : (tensor<3x4xf32>) -> tensor<?x3xi64>
  return
}

// -----

func.func @unique_values(%a: tensor<6xi32>) {
  // expected-error @+1 {{'hodu.unique' op expects 1-D values of element type 'i32', got 'tensor<?xi64>'}}
  %0:3 = hodu.unique %a : (tensor<6xi32>) -> (tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  return
}

// -----

func.func @unique_inverse(%a: tensor<2x3xi32>) {
  // expected-error @+1 {{'hodu.unique' op expects inverse indices of the input's shape [2, 3], got [6]}}
  %0:3 = hodu.unique %a : (tensor<2x3xi32>) -> (tensor<?xi32>, tensor<6xi64>, tensor<?xi64>)
  return
}

// -----

func.func @unique_counts(%a: tensor<6xi32>) {
  // expected-error @+1 {{'hodu.unique' op expects 1-D counts, got rank 2}}
  %0:3 = hodu.unique %a : (tensor<6xi32>) -> (tensor<?xi32>, tensor<6xi64>, tensor<?x1xi64>)
  return
}
