// hodu-chunk-symbols: follows a symbolic dim from the arguments marked
// hodu.dims through the ops and marks the results that have it; an op that
// would mix positions along it is an error naming the op and why.
// RUN: hodu-opt %s --split-input-file --hodu-chunk-symbols --verify-diagnostics | FileCheck %s

// A batch of 29 (the probe size): matmul rows, a bias, a softmax over the
// features, a reshape that splits the features and a transpose keep it.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: -> (tensor<29x2x3xf32> {hodu.dims = ["batch", "", ""]}, tensor<29x3x2xf32> {hodu.dims = ["batch", "", ""]})
func.func @mlp(%x: tensor<29x4xf32> {hodu.dims = ["batch", ""]}) -> (tensor<29x2x3xf32>, tensor<29x3x2xf32>) {
  %w = hodu.constant dense<1.0> : tensor<4x6xf32>
  %b = hodu.constant dense<[[0.5, 1.0, 1.5, 2.0, 2.5, 3.0]]> : tensor<1x6xf32>
  %m = hodu.matmul %x, %w : (tensor<29x4xf32>, tensor<4x6xf32>) -> tensor<29x6xf32>
  %a = hodu.add %m, %b : (tensor<29x6xf32>, tensor<1x6xf32>) -> tensor<29x6xf32>
  %s = hodu.reduce_sum %a {dims = array<i64: 1>, keep_dim = true} : (tensor<29x6xf32>) -> tensor<29x1xf32>
  %n = hodu.div %a, %s : (tensor<29x6xf32>, tensor<29x1xf32>) -> tensor<29x6xf32>
  %r = hodu.reshape %n : (tensor<29x6xf32>) -> tensor<29x2x3xf32>
  %t = hodu.transpose %r {perm = array<i64: 2, 0, 1>} : (tensor<29x2x3xf32>) -> tensor<3x29x2xf32>
  %u = hodu.transpose %t {perm = array<i64: 1, 0, 2>} : (tensor<3x29x2xf32>) -> tensor<29x3x2xf32>
  return %r, %u : tensor<29x2x3xf32>, tensor<29x3x2xf32>
}

// -----

// The symbol may be an inner dim of an output (a state [layers, batch, n]):
// its chunks are strided slices, which the entry stages.
// CHECK-LABEL: func.func @inner_output
// CHECK-SAME: -> (tensor<4x29xf32> {hodu.dims = ["", "batch"]})
func.func @inner_output(%x: tensor<29x4xf32> {hodu.dims = ["batch", ""]}) -> tensor<4x29xf32> {
  %t = hodu.transpose %x {perm = array<i64: 1, 0>} : (tensor<29x4xf32>) -> tensor<4x29xf32>
  return %t : tensor<4x29xf32>
}

// -----

// Flattening the batch into the rows of a matmul (as transformers do) keeps
// it as the outer factor: "4*batch".
// CHECK-LABEL: func.func @rows
// CHECK-SAME: -> (tensor<116x8xf32> {hodu.dims = ["4*batch", ""]}, tensor<29x4x8xf32> {hodu.dims = ["batch", "", ""]})
func.func @rows(%x: tensor<29x4x8xf32> {hodu.dims = ["batch", "", ""]}) -> (tensor<116x8xf32>, tensor<29x4x8xf32>) {
  %w = hodu.constant dense<1.0> : tensor<8x8xf32>
  %f = hodu.reshape %x : (tensor<29x4x8xf32>) -> tensor<116x8xf32>
  %m = hodu.matmul %f, %w : (tensor<116x8xf32>, tensor<8x8xf32>) -> tensor<116x8xf32>
  %u = hodu.reshape %m : (tensor<116x8xf32>) -> tensor<29x4x8xf32>
  return %m, %u : tensor<116x8xf32>, tensor<29x4x8xf32>
}

// -----

func.func @reduce_over_batch(%x: tensor<29x4xf32> {hodu.dims = ["batch", ""]}) -> tensor<4xf32> {
  // expected-error @+1 {{symbolic dim 'batch' cannot vary: the op reduces over it; pin it (hoduc --dim=batch=<size>)}}
  %s = hodu.reduce_mean %x {dims = array<i64: 0>} : (tensor<29x4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @contract_batch(%x: tensor<29x4xf32> {hodu.dims = ["batch", ""]}) -> tensor<4x4xf32> {
  %t = hodu.transpose %x {perm = array<i64: 1, 0>} : (tensor<29x4xf32>) -> tensor<4x29xf32>
  // expected-error @+1 {{the matmul sums over it}}
  %m = hodu.matmul %t, %x : (tensor<4x29xf32>, tensor<29x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}

// -----

func.func @slice_batch(%x: tensor<29x4xf32> {hodu.dims = ["batch", ""]}) -> tensor<1x4xf32> {
  // expected-error @+1 {{the slice takes part of it}}
  %s = hodu.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 1, 4>, steps = array<i64: 1, 1>} : (tensor<29x4xf32>) -> tensor<1x4xf32>
  return %s : tensor<1x4xf32>
}

// -----

func.func @spread(%x: tensor<29x4xf32> {hodu.dims = ["batch", ""]}) -> tensor<4x29xf32> {
  // expected-error @+1 {{the reshape spreads it over other dims}}
  %r = hodu.reshape %x : (tensor<29x4xf32>) -> tensor<4x29xf32>
  return %r : tensor<4x29xf32>
}

// -----

// A position table (Range over the batch) differs along it: adding it would
// give each chunk the same positions.
func.func @positions(%x: tensor<29x1xf32> {hodu.dims = ["batch", ""]}) -> tensor<29x1xf32> {
  %p = hodu.constant dense<[[0.0], [1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0], [8.0], [9.0], [10.0], [11.0], [12.0], [13.0], [14.0], [15.0], [16.0], [17.0], [18.0], [19.0], [20.0], [21.0], [22.0], [23.0], [24.0], [25.0], [26.0], [27.0], [28.0]]> : tensor<29x1xf32>
  // expected-error @+1 {{an operand without it differs along it}}
  %a = hodu.add %x, %p : (tensor<29x1xf32>, tensor<29x1xf32>) -> tensor<29x1xf32>
  return %a : tensor<29x1xf32>
}

// -----

// A mask of ones the size of the batch (ConstantOfShape(Shape(x))) is the
// same in every chunk.
// CHECK-LABEL: func.func @mask
// CHECK-SAME: {hodu.dims = ["batch", ""]}
func.func @mask(%x: tensor<29x4xf32> {hodu.dims = ["batch", ""]}) -> tensor<29x4xf32> {
  %one = hodu.constant dense<1.0> : tensor<29x4xf32>
  %a = hodu.mul %x, %one : (tensor<29x4xf32>, tensor<29x4xf32>) -> tensor<29x4xf32>
  return %a : tensor<29x4xf32>
}

// -----

func.func @two_symbols(%x: tensor<29x4xf32> {hodu.dims = ["batch", "seq"]}) -> tensor<29x4xf32> {
  // expected-error @-1 {{the model has two symbolic dims, 'batch' and 'seq'}}
  return %x : tensor<29x4xf32>
}
