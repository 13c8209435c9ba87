// Round trip of the Conv family (1-D, 2-D and 3-D by operand rank).
// RUN: hodu-opt %s --split-input-file | hodu-opt --split-input-file | FileCheck %s

// 2-D convolution with same-padding; `groups` keeps its default (1).
// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x3x8x8xf32>, %[[W:[a-z0-9]+]]: tensor<16x3x3x3xf32>)
// CHECK-NEXT: %[[Y:.*]] = hodu.conv %[[X]], %[[W]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @conv2d(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32> {
  %0 = hodu.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
       : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
  return %0 : tensor<1x16x8x8xf32>
}

// -----

// Grouped, strided 1-D convolution on f16 and a dilated 3-D one on bf16.
// CHECK-LABEL: func.func @conv1d_conv3d
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x4x10xf16>, %[[W:[a-z0-9]+]]: tensor<6x2x3xf16>, %[[V:[a-z0-9]+]]: tensor<1x2x4x4x4xbf16>, %[[K:[a-z0-9]+]]: tensor<4x2x2x2x2xbf16>)
// CHECK-NEXT: hodu.conv %[[X]], %[[W]] {dilations = array<i64: 1>, groups = 2 : i64, pads = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<2x4x10xf16>, tensor<6x2x3xf16>) -> tensor<2x6x4xf16>
// CHECK-NEXT: hodu.conv %[[V]], %[[K]] {dilations = array<i64: 2, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<1x2x4x4x4xbf16>, tensor<4x2x2x2x2xbf16>) -> tensor<1x4x2x2x2xbf16>
func.func @conv1d_conv3d(%x: tensor<2x4x10xf16>, %w: tensor<6x2x3xf16>, %v: tensor<1x2x4x4x4xbf16>, %k: tensor<4x2x2x2x2xbf16>) {
  %0 = hodu.conv %x, %w {strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, groups = 2 : i64}
       : (tensor<2x4x10xf16>, tensor<6x2x3xf16>) -> tensor<2x6x4xf16>
  %1 = hodu.conv %v, %k {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 2, 2, 2>}
       : (tensor<1x2x4x4x4xbf16>, tensor<4x2x2x2x2xbf16>) -> tensor<1x4x2x2x2xbf16>
  return
}

// -----

// Transposed convolution: stride 2 with output_padding upsamples 3 -> 6.
// CHECK-LABEL: func.func @conv_transpose
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x4x3x3xf32>, %[[W:[a-z0-9]+]]: tensor<4x2x3x3xf32>)
// CHECK-NEXT: hodu.conv_transpose %[[X]], %[[W]] {dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x6x6xf32>
func.func @conv_transpose(%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x3x3xf32>) {
  %0 = hodu.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
         dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>}
       : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

// Weight gradients: the result is weight-shaped, the rhs is the output
// gradient of the forward op.
// CHECK-LABEL: func.func @grad_weight
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x3x8x8xf64>, %[[DY:[a-z0-9]+]]: tensor<1x16x8x8xf64>, %[[T:[a-z0-9]+]]: tensor<1x4x3x3xf64>, %[[DT:[a-z0-9]+]]: tensor<1x2x6x6xf64>)
// CHECK-NEXT: hodu.conv_grad_weight %[[X]], %[[DY]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf64>, tensor<1x16x8x8xf64>) -> tensor<16x3x3x3xf64>
// CHECK-NEXT: hodu.conv_transpose_grad_weight %[[T]], %[[DT]] {dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf64>, tensor<1x2x6x6xf64>) -> tensor<4x2x3x3xf64>
func.func @grad_weight(%x: tensor<1x3x8x8xf64>, %dy: tensor<1x16x8x8xf64>, %t: tensor<1x4x3x3xf64>, %dt: tensor<1x2x6x6xf64>) {
  %0 = hodu.conv_grad_weight %x, %dy {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
       : (tensor<1x3x8x8xf64>, tensor<1x16x8x8xf64>) -> tensor<16x3x3x3xf64>
  %1 = hodu.conv_transpose_grad_weight %t, %dt {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
         dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>}
       : (tensor<1x4x3x3xf64>, tensor<1x2x6x6xf64>) -> tensor<4x2x3x3xf64>
  return
}
