// RUN: hodu-opt %s --hodu-decompose-conv-transpose --split-input-file | FileCheck %s

// A 2x2, stride-2 upsampling: four phases of one tap each and no pads,
// so one 1x1 conv with the four phase filters concatenated (16 = 4 x 4
// filters), whose output quarters are interleaved by two concats and a
// reshape.
// CHECK-LABEL: func.func @upsample
// CHECK-NOT: hodu.conv_transpose
// CHECK: hodu.slice %arg1 {ends = array<i64: 8, 4, -1, -1>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, -2, -2>}
// CHECK: hodu.transpose {{.*}} -> tensor<1x4x8x1x1xf32>
// CHECK: hodu.concat {{.*}} {dim = 0 : i64} : (tensor<4x8x1x1xf32>, tensor<4x8x1x1xf32>, tensor<4x8x1x1xf32>, tensor<4x8x1x1xf32>) -> tensor<16x8x1x1xf32>
// CHECK: hodu.conv %arg0, {{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x5x5xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x5x5xf32>
// CHECK-NOT: hodu.conv
// CHECK: hodu.concat {{.*}} {dim = 5 : i64} : (tensor<1x4x5x1x5x1xf32>, tensor<1x4x5x1x5x1xf32>) -> tensor<1x4x5x1x5x2xf32>
// CHECK: hodu.concat {{.*}} {dim = 3 : i64} : (tensor<1x4x5x1x5x2xf32>, tensor<1x4x5x1x5x2xf32>) -> tensor<1x4x5x2x5x2xf32>
// CHECK: hodu.reshape {{.*}} -> tensor<1x4x10x10xf32>
func.func @upsample(%x: tensor<1x8x5x5xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x4x10x10xf32> {
  %0 = hodu.conv_transpose %x, %w {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x5x5xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x10x10xf32>
  return %0 : tensor<1x4x10x10xf32>
}

// -----

// Kernel 3, stride 2, pad 1, output_padding 1 (1-D): phase 0 has two taps
// (w[2], w[0]) and a pad on each side; phase 1 one tap (w[1]) and a pad
// after; the result is cropped by the low pad.
// CHECK-LABEL: func.func @k3s2
// CHECK: hodu.slice %arg1 {ends = array<i64: 2, 2, -1>, starts = array<i64: 0, 0, 2>, steps = array<i64: 1, 1, -2>}
// CHECK: hodu.conv %arg0, {{.*}} pads = array<i64: 1, 1>{{.*}} -> tensor<1x2x7xf32>
// CHECK: hodu.slice %arg1 {ends = array<i64: 2, 2, 0>, starts = array<i64: 0, 0, 1>, steps = array<i64: 1, 1, -2>}
// CHECK: hodu.conv %arg0, {{.*}} pads = array<i64: 0, 1>{{.*}} -> tensor<1x2x7xf32>
// CHECK: hodu.reshape {{.*}} -> tensor<1x2x14xf32>
// CHECK: hodu.slice {{.*}} {ends = array<i64: 1, 2, 13>, starts = array<i64: 0, 0, 1>, steps = array<i64: 1, 1, 1>}
func.func @k3s2(%x: tensor<1x2x6xf32>, %w: tensor<2x2x3xf32>) -> tensor<1x2x12xf32> {
  %0 = hodu.conv_transpose %x, %w {dilations = array<i64: 1>, output_padding = array<i64: 1>, pads = array<i64: 1, 1>, strides = array<i64: 2>} : (tensor<1x2x6xf32>, tensor<2x2x3xf32>) -> tensor<1x2x12xf32>
  return %0 : tensor<1x2x12xf32>
}

// -----

// Stride 3 over a 1-wide kernel: phases 1 and 2 get no tap and are zeros.
// CHECK-LABEL: func.func @sparse
// CHECK: hodu.conv
// CHECK-COUNT-2: hodu.constant dense<0.000000e+00> : tensor<1x1x4xf32>
func.func @sparse(%x: tensor<1x1x4xf32>, %w: tensor<1x1x1xf32>) -> tensor<1x1x10xf32> {
  %0 = hodu.conv_transpose %x, %w {dilations = array<i64: 1>, output_padding = array<i64: 0>, pads = array<i64: 0, 0>, strides = array<i64: 3>} : (tensor<1x1x4xf32>, tensor<1x1x1xf32>) -> tensor<1x1x10xf32>
  return %0 : tensor<1x1x10xf32>
}

// -----

// Dilated (kept) and stride-1 (nothing to gain) transposed convolutions
// are left alone.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: hodu.conv_transpose
func.func @kept(%x: tensor<1x1x4xf32>, %w: tensor<1x1x3xf32>) -> (tensor<1x1x11xf32>, tensor<1x1x6xf32>) {
  %0 = hodu.conv_transpose %x, %w {dilations = array<i64: 2>, output_padding = array<i64: 0>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<1x1x4xf32>, tensor<1x1x3xf32>) -> tensor<1x1x11xf32>
  %1 = hodu.conv_transpose %x, %w {dilations = array<i64: 1>, output_padding = array<i64: 0>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x1x4xf32>, tensor<1x1x3xf32>) -> tensor<1x1x6xf32>
  return %0, %1 : tensor<1x1x11xf32>, tensor<1x1x6xf32>
}
