// Verifier and type-inference errors of the data-movement families.
// RUN: hodu-opt %s -split-input-file -verify-diagnostics

// Concat needs at least one input.
func.func @concat_empty() {
  // expected-error @+2 {{expects at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.concat {dim = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

func.func @concat_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.concat %a, %a {dim = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+2 {{input #1 has element type 'f16', expected 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.concat %a, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{input #1 has rank 1, expected 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.concat %a, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>, %c: tensor<2x3xf32>) {
  // expected-error @+2 {{input #2 has size 4 in dim 1, expected 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.concat %a, %c, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<6x3xf32>
  return
}

// -----

func.func @split_dim(%a: tensor<4x5xf32>) {
  // expected-error @+2 {{dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = hodu.split %a {dim = 2 : i64, sizes = array<i64: 2, 3>} : (tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>)
  return
}

// -----

func.func @split_negative_size(%a: tensor<4x5xf32>) {
  // expected-error @+2 {{expects non-negative sizes, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = hodu.split %a {dim = 1 : i64, sizes = array<i64: 6, -1>} : (tensor<4x5xf32>) -> (tensor<4x6xf32>, tensor<4x0xf32>)
  return
}

// -----

func.func @split_sum(%a: tensor<4x5xf32>) {
  // expected-error @+2 {{sizes add up to 4, but dim 1 has size 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = hodu.split %a {dim = 1 : i64, sizes = array<i64: 2, 2>} : (tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
  return
}

// -----

// The number of results follows `sizes`.
func.func @split_result_count(%a: tensor<4x5xf32>) {
  // expected-error @+2 {{'hodu.split' op inferred type(s) 'tensor<4x2xf32>', 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<4x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.split %a {dim = 1 : i64, sizes = array<i64: 2, 3>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @reshape_element_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.reshape' op expects the result element type 'f32', got 'i32'}}
  %0 = hodu.reshape %a : (tensor<2x3xf32>) -> tensor<6xi32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.reshape' op cannot reshape 6 elements [2, 3] into 8 elements [2, 4]}}
  %0 = hodu.reshape %a : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @flatten_range(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{invalid dim range [2, 1] for rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.flatten %a {start_dim = 2 : i64, end_dim = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

func.func @flatten_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{invalid dim range [0, 2] for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.flatten %a {start_dim = 0 : i64, end_dim = 2 : i64} : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @squeeze_range(%a: tensor<1x3xf32>) {
  // expected-error @+2 {{squeeze dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.squeeze %a {dims = array<i64: 2>} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @squeeze_repeated(%a: tensor<1x3xf32>) {
  // expected-error @+2 {{squeeze dim 0 appears more than once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.squeeze %a {dims = array<i64: 0, 0>} : (tensor<1x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @squeeze_not_one(%a: tensor<1x3xf32>) {
  // expected-error @+2 {{cannot squeeze dim 1 of size 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.squeeze %a {dims = array<i64: 1>} : (tensor<1x3xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @unsqueeze_range(%a: tensor<3xf32>) {
  // expected-error @+2 {{unsqueeze dim 2 is out of range for result rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.unsqueeze %a {dims = array<i64: 2>} : (tensor<3xf32>) -> tensor<3x1xf32>
  return
}

// -----

func.func @unsqueeze_repeated(%a: tensor<3xf32>) {
  // expected-error @+2 {{unsqueeze dim 0 appears more than once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.unsqueeze %a {dims = array<i64: 0, 0>} : (tensor<3xf32>) -> tensor<1x1x3xf32>
  return
}

// -----

func.func @broadcast_element_type(%a: tensor<3xf32>) {
  // expected-error @+1 {{'hodu.broadcast' op expects the result element type 'f32', got 'f64'}}
  %0 = hodu.broadcast %a : (tensor<3xf32>) -> tensor<2x3xf64>
  return
}

// -----

func.func @broadcast_rank(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.broadcast' op cannot broadcast rank 2 to the smaller rank 1}}
  %0 = hodu.broadcast %a : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @broadcast_dim(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.broadcast' op cannot broadcast [2, 3] to [4, 4, 3]: input dim 0 is 2}}
  %0 = hodu.broadcast %a : (tensor<2x3xf32>) -> tensor<4x4x3xf32>
  return
}

// -----

func.func @transpose_size(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{expects a permutation of 2 dims, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.transpose %a {perm = array<i64: 0, 1, 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_not_permutation(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{perm is not a permutation of [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.transpose %a {perm = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @slice_counts(%a: tensor<2x6xf32>) {
  // expected-error @+2 {{expects starts, ends and steps with one entry per dim (2), got 2, 2 and 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 6>, steps = array<i64: 1>} : (tensor<2x6xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @slice_zero_step(%a: tensor<2x6xf32>) {
  // expected-error @+2 {{step of dim 1 is zero}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 6>, steps = array<i64: 1, 0>} : (tensor<2x6xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @slice_bounds(%a: tensor<2x6xf32>) {
  // expected-error @+2 {{slice [0:7:1] of dim 1 is out of bounds for size 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 7>, steps = array<i64: 1, 1>} : (tensor<2x6xf32>) -> tensor<2x7xf32>
  return
}

// -----

func.func @flip_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{flip dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.flip %a {dims = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @flip_repeated(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{flip dim 1 appears more than once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.flip %a {dims = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_count(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{expects 4 pads (begin and end per dim), got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.pad %a {mode = #hodu<pad_mode constant>, pads = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_negative(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{expects non-negative pads, dim 1 has 0 and -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.pad %a {mode = #hodu<pad_mode constant>, pads = array<i64: 0, 0, 0, -1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @pad_value_mode(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.pad' op a pad value is only allowed in constant mode}}
  %0 = hodu.pad %a {mode = #hodu<pad_mode replicate>, pads = array<i64: 0, 1, 0, 1>, value = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @pad_value_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.pad' op expects the pad value's type to be the element type 'f32', got 'i32'}}
  %0 = hodu.pad %a {mode = #hodu<pad_mode constant>, pads = array<i64: 0, 1, 0, 1>, value = 0 : i32} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @pad_reflect_too_wide(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.pad' op reflect padding of dim 1 must be smaller than its size 3}}
  %0 = hodu.pad %a {mode = #hodu<pad_mode reflect>, pads = array<i64: 0, 3, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @resize_rank(%a: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{'hodu.resize' op expects the result rank to equal the input rank 4, got 3}}
  %0 = hodu.resize %a {mode = #hodu<resize_mode linear>, coord_transform = #hodu<coord_transform half_pixel>} : (tensor<1x1x2x2xf32>) -> tensor<1x4x4xf32>
  return
}

// -----

func.func @resize_element_type(%a: tensor<1x1x2x2xf32>) {
  // expected-error @+1 {{'hodu.resize' op expects the result element type 'f32', got 'f16'}}
  %0 = hodu.resize %a {mode = #hodu<resize_mode linear>, coord_transform = #hodu<coord_transform half_pixel>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf16>
  return
}

// -----

func.func @resize_scales_twice(%a: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'hodu.resize' op has both the scales attribute and a scales operand}}
  %0 = hodu.resize %a scales(%s) {mode = #hodu<resize_mode linear>, coord_transform = #hodu<coord_transform half_pixel>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @resize_scales_count(%a: tensor<1x1x2x2xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'hodu.resize' op expects a scales operand of one entry per dim (4), got 'tensor<2xf32>'}}
  %0 = hodu.resize %a scales(%s) {mode = #hodu<resize_mode linear>, coord_transform = #hodu<coord_transform half_pixel>} : (tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @resize_roi_mode(%a: tensor<1x1x2x2xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'hodu.resize' op takes a roi operand with tf_crop_and_resize only}}
  %0 = hodu.resize %a roi(%r) {mode = #hodu<resize_mode linear>, coord_transform = #hodu<coord_transform half_pixel>} : (tensor<1x1x2x2xf32>, tensor<8xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @resize_roi_count(%a: tensor<1x1x2x2xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'hodu.resize' op expects a roi operand of two entries per dim (8), got 'tensor<4xf32>'}}
  %0 = hodu.resize %a roi(%r) {mode = #hodu<resize_mode linear>, coord_transform = #hodu<coord_transform tf_crop_and_resize>} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

// Memory and Dummy are identities: the type cannot change.
func.func @contiguous_type(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'hodu.contiguous' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.contiguous %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @dummy_type(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'hodu.dummy' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.dummy %a : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}
