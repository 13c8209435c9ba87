// RUN: hodu-opt %s --hodu-fold-constants --split-input-file | FileCheck %s

// Conv + bias + inference BatchNormalization exactly as the ONNX importer
// emits them (per-channel vectors reshaped to [C,1,1], var + eps, sqrt,
// sub, div, mul, add) become one conv with scaled weights and one add.
// Channel 0: s = 2/2 = 1, t = (1-1)/2*2 + 0.5 = 0.5, W = 2*1.
// Channel 1: s = 4/1 = 4, t = (1-2)/1*4 + 1 = -3, W = 3*4.
// CHECK-LABEL: func.func @conv_batchnorm
// CHECK: %[[W:.*]] = hodu.constant dense<{{\[}}[{{\[}}[2.000000e+00]]], [{{\[}}[1.200000e+01]]]]> : tensor<2x1x1x1xf32>
// CHECK: %[[Y:.*]] = hodu.conv %arg0, %[[W]]
// CHECK-NEXT: %[[T:.*]] = hodu.constant dense<{{\[}}[{{\[}}5.000000e-01]], [{{\[}}-3.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-NEXT: %[[R:.*]] = hodu.add %[[Y]], %[[T]]
// CHECK-NEXT: return %[[R]]
func.func @conv_batchnorm(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = hodu.constant dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %y = hodu.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b0 = hodu.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %b = hodu.reshape %b0 : (tensor<2xf32>) -> tensor<2x1x1xf32>
  %yb = hodu.add %y, %b : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %scale0 = hodu.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %beta0 = hodu.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %mean0 = hodu.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var0 = hodu.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %scale = hodu.reshape %scale0 : (tensor<2xf32>) -> tensor<2x1x1xf32>
  %beta = hodu.reshape %beta0 : (tensor<2xf32>) -> tensor<2x1x1xf32>
  %mean = hodu.reshape %mean0 : (tensor<2xf32>) -> tensor<2x1x1xf32>
  %var = hodu.reshape %var0 : (tensor<2xf32>) -> tensor<2x1x1xf32>
  %ve = hodu.add_scalar %var, 0.0 : f32 : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %sd = hodu.sqrt %ve : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %c = hodu.sub %yb, %mean : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %d = hodu.div %c, %sd : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %m = hodu.mul %d, %scale : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = hodu.add %m, %beta : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// Gemm-like: matmul, alpha (mul_scalar), bias, then a per-column scale fold
// into the weight columns: s = [2, 6], t = [1, 3].
// CHECK-LABEL: func.func @matmul_affine
// CHECK: %[[W:.*]] = hodu.constant dense<{{\[}}[2.000000e+00, 1.200000e+01], [6.000000e+00, 2.400000e+01]]> : tensor<2x2xf32>
// CHECK: %[[Y:.*]] = hodu.matmul %arg0, %[[W]]
// CHECK-NEXT: %[[T:.*]] = hodu.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %[[R:.*]] = hodu.add %[[Y]], %[[T]]
// CHECK-NEXT: return %[[R]]
func.func @matmul_affine(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = hodu.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %y = hodu.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %a = hodu.mul_scalar %y, 2.0 : f32 : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %b = hodu.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %yb = hodu.add %a, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %s = hodu.constant dense<[[1.0, 3.0]]> : tensor<1x2xf32>
  %r = hodu.mul %yb, %s : (tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// The conv result has a second user: nothing folds into the weights.
// CHECK-LABEL: func.func @two_users
// CHECK: %[[W:.*]] = hodu.constant dense<{{\[}}[{{\[}}[2.000000e+00]]], [{{\[}}[3.000000e+00]]]]>
// CHECK: %[[Y:.*]] = hodu.conv %arg0, %[[W]]
// CHECK: hodu.mul %[[Y]]
// CHECK: return
func.func @two_users(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = hodu.constant dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %y = hodu.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s = hodu.constant dense<[[[2.0]], [[4.0]]]> : tensor<2x1x1xf32>
  %m = hodu.mul %y, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %m, %y : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A scale that varies along a spatial dimension is not per-channel.
// CHECK-LABEL: func.func @not_per_channel
// CHECK: hodu.conv
// CHECK: hodu.mul
func.func @not_per_channel(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = hodu.constant dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %y = hodu.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %s = hodu.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %m = hodu.mul %y, %s : (tensor<1x2x2x2xf32>, tensor<1x2xf32>) -> tensor<1x2x2x2xf32>
  return %m : tensor<1x2x2x2xf32>
}

// -----

// BatchNormalization on a function argument (no conv to absorb it) still
// collapses to one per-channel mul and one add: s = 2/2 = 1 and 4/1 = 4,
// t = -1/2*2 + 0.5 = -0.5 and -2/1*4 + 1 = -7.
// CHECK-LABEL: func.func @batchnorm_alone
// CHECK: %[[S:.*]] = hodu.constant dense<{{\[}}[{{\[}}1.000000e+00]], [{{\[}}4.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-NEXT: %[[M:.*]] = hodu.mul %arg0, %[[S]]
// CHECK-NEXT: %[[T:.*]] = hodu.constant dense<{{\[}}[{{\[}}-5.000000e-01]], [{{\[}}-7.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-NEXT: %[[R:.*]] = hodu.add %[[M]], %[[T]]
// CHECK-NEXT: return %[[R]]
func.func @batchnorm_alone(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %scale = hodu.constant dense<[[[2.0]], [[4.0]]]> : tensor<2x1x1xf32>
  %beta = hodu.constant dense<[[[0.5]], [[1.0]]]> : tensor<2x1x1xf32>
  %mean = hodu.constant dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>
  %sd = hodu.constant dense<[[[2.0]], [[1.0]]]> : tensor<2x1x1xf32>
  %c = hodu.sub %x, %mean : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %d = hodu.div %c, %sd : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %m = hodu.mul %d, %scale : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %r = hodu.add %m, %beta : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// A single per-channel op is already minimal and stays as it is.
// CHECK-LABEL: func.func @single_op
// CHECK: hodu.mul %arg0
// CHECK-NOT: hodu.add
func.func @single_op(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %s = hodu.constant dense<[[[2.0]], [[4.0]]]> : tensor<2x1x1xf32>
  %m = hodu.mul %x, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %m : tensor<1x2x4x4xf32>
}

// -----

// A lone division by a constant becomes a multiply by its reciprocal
// (GELU's x / sqrt(2)): 1 / 1.41421354 = 0.707106769 in f32.
// CHECK-LABEL: func.func @lone_division
// CHECK: %[[R:.*]] = hodu.constant dense<0.707106769> : tensor<8xf32>
// CHECK-NEXT: %[[M:.*]] = hodu.mul %arg0, %[[R]]
// CHECK-NEXT: return %[[M]]
func.func @lone_division(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %c = hodu.constant dense<1.41421354> : tensor<f32>
  %d = hodu.div %x, %c : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %d : tensor<2x8xf32>
}

// -----

// Not when the reciprocal is no normal number of the element type (1/1e-39
// overflows f32; 1/1e38 is subnormal), nor for a division by the data.
// CHECK-LABEL: func.func @division_kept
// CHECK: hodu.div %arg0
// CHECK: hodu.div %arg0
// CHECK: hodu.div %{{.*}}, %arg0
// CHECK-NOT: hodu.mul
func.func @division_kept(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %tiny = hodu.constant dense<1.0e-39> : tensor<f32>
  %huge = hodu.constant dense<1.0e+38> : tensor<f32>
  %two = hodu.constant dense<2.0> : tensor<8xf32>
  %a = hodu.div %x, %tiny : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %b = hodu.div %x, %huge : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %c = hodu.div %two, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %a, %b, %c : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
