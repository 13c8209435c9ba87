// Verifier errors of the Conv family.
// RUN: hodu-opt %s -split-input-file -verify-diagnostics

func.func @conv_rank(%x: tensor<3x8xf32>, %w: tensor<4x3xf32>) {
  // expected-error @+1 {{'hodu.conv' op expects rank 3, 4 or 5 (1-D, 2-D or 3-D convolution), got 2}}
  %0 = hodu.conv %x, %w {strides = array<i64>, pads = array<i64>, dilations = array<i64>} : (tensor<3x8xf32>, tensor<4x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @conv_ranks_differ(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3xf32>) {
  // expected-error @+1 {{'hodu.conv' op expects operands and result of one rank, got 4, 3 and 4}}
  %0 = hodu.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x3x8x8xf32>, tensor<16x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv_element_types(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf16>) {
  // expected-error @+1 {{'hodu.conv' op expects operands and result of one element type}}
  %0 = hodu.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>}
       : (tensor<1x3x8xf32>, tensor<4x3x3xf16>) -> tensor<1x4x6xf32>
  return
}

// -----

// Conv is float-only (ODS type constraint).
func.func @conv_int(%x: tensor<1x3x8xi32>, %w: tensor<4x3x3xi32>) {
  // expected-error @+1 {{'hodu.conv' op operand #0 must be ranked tensor of Hodu floating-point dtype values, but got 'tensor<1x3x8xi32>'}}
  %0 = hodu.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>}
       : (tensor<1x3x8xi32>, tensor<4x3x3xi32>) -> tensor<1x4x6xi32>
  return
}

// -----

func.func @conv_strides_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'hodu.conv' op expects 2 strides and dilations (one per spatial dim), got 1 and 2}}
  %0 = hodu.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_pads_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'hodu.conv' op expects 4 pads (begin and end per spatial dim), got 2}}
  %0 = hodu.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'hodu.conv_transpose' op expects 2 output_padding entries, got 1}}
  %0 = hodu.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
         dilations = array<i64: 1, 1>, output_padding = array<i64: 1>}
       : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_stride_zero(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{'hodu.conv' op expects positive strides and dilations}}
  %0 = hodu.conv %x, %w {strides = array<i64: 0>, pads = array<i64: 0, 0>, dilations = array<i64: 1>}
       : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

func.func @conv_negative_pad(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{'hodu.conv' op expects non-negative pads}}
  %0 = hodu.conv %x, %w {strides = array<i64: 1>, pads = array<i64: -1, 0>, dilations = array<i64: 1>}
       : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x5xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{'hodu.conv' op expects positive groups, got 0}}
  %0 = hodu.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, groups = 0 : i64}
       : (tensor<1x3x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x4x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{'hodu.conv' op input channels (4) do not match the weights (3 with groups 1)}}
  %0 = hodu.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>}
       : (tensor<1x4x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

// Transposed weights are [C, O/groups, k...]: C = 3 does not split into 2 groups.
func.func @conv_transpose_channels_groups(%x: tensor<1x3x4xf32>, %w: tensor<3x2x3xf32>) {
  // expected-error @+1 {{'hodu.conv_transpose' op input channels (3) are not divisible by groups (2)}}
  %0 = hodu.conv_transpose %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>,
         output_padding = array<i64: 0>, groups = 2 : i64}
       : (tensor<1x3x4xf32>, tensor<3x2x3xf32>) -> tensor<1x4x6xf32>
  return
}

// -----

func.func @conv_out_channels_groups(%x: tensor<1x4x8xf32>, %w: tensor<5x2x3xf32>) {
  // expected-error @+1 {{'hodu.conv' op output channels (5) are not divisible by groups (2)}}
  %0 = hodu.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, groups = 2 : i64}
       : (tensor<1x4x8xf32>, tensor<5x2x3xf32>) -> tensor<1x5x6xf32>
  return
}

// -----

func.func @conv_empty_output(%x: tensor<1x3x2xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{'hodu.conv' op spatial dim 0 has an empty output (input 2, kernel 3)}}
  %0 = hodu.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>}
       : (tensor<1x3x2xf32>, tensor<4x3x3xf32>) -> tensor<1x4x0xf32>
  return
}

// -----

func.func @conv_result_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'hodu.conv' op expects result shape [1, 16, 8, 8], got [1, 16, 6, 6]}}
  %0 = hodu.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
       : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv_transpose_result_shape(%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'hodu.conv_transpose' op expects result shape [1, 2, 5, 5], got [1, 2, 6, 6]}}
  %0 = hodu.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
         dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>}
       : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

// For weight gradients the output gradient (rhs) is what gets checked, even
// when it has the same type as the result.
func.func @conv_grad_weight_shape(%x: tensor<1x1x4xf32>, %dy: tensor<1x1x3xf32>) {
  // expected-error @+1 {{'hodu.conv_grad_weight' op expects output gradient (rhs) shape [1, 1, 2], got [1, 1, 3]}}
  %0 = hodu.conv_grad_weight %x, %dy {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>}
       : (tensor<1x1x4xf32>, tensor<1x1x3xf32>) -> tensor<1x1x3xf32>
  return
}

// -----

func.func @conv_transpose_grad_weight_channels(%x: tensor<1x4x3x3xf32>, %dy: tensor<1x2x6x6xf32>) {
  // expected-error @+1 {{'hodu.conv_transpose_grad_weight' op input channels (4) do not match the weights (5 with groups 1)}}
  %0 = hodu.conv_transpose_grad_weight %x, %dy {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
         dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>}
       : (tensor<1x4x3x3xf32>, tensor<1x2x6x6xf32>) -> tensor<5x2x3x3xf32>
  return
}
