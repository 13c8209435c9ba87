// Verifier and type-inference errors of the Reduce, Windowing, Scan and Sort
// families.
// RUN: hodu-opt %s -split-input-file -verify-diagnostics

// Reduction dims are in [0, rank).
func.func @reduce_dim_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.reduce_sum %a {dims = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Negative dims are normalised by importers, not here.
func.func @reduce_negative_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction dim -1 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.reduce_max %a {dims = array<i64: -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_dim_repeated(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction dim 1 appears more than once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.reduce_prod %a {dims = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// keep_dim changes the result type.
func.func @reduce_keep_dim(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'hodu.reduce_min' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.reduce_min %a {dims = array<i64: 1>, keep_dim = true} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Arg reductions take exactly one dim.
func.func @argmax_two_dims(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{expects exactly one reduction dim, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.argmax %a {dims = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<i64>
  return
}

// -----

// Arg reductions give i64.
func.func @argmin_i32(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'hodu.argmin' op inferred type(s) 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<2xi32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.argmin %a {dims = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xi32>
  return
}

// -----

// reduce_mean is float-only (ODS type constraint).
func.func @reduce_mean_int(%a: tensor<2x3xi32>) {
  // expected-error @+1 {{'hodu.reduce_mean' op operand #0 must be ranked tensor of Hodu floating-point dtype values, but got 'tensor<2x3xi32>'}}
  %0 = hodu.reduce_mean %a {dims = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2xi32>
  return
}

// -----

// The dims attribute is required.
func.func @reduce_missing_dims(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'hodu.reduce_sum' op requires attribute 'dims'}}
  %0 = hodu.reduce_sum %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// reduce_window needs one window_dims/strides/dilations entry per dim.
func.func @window_attr_counts(%a: tensor<1x8xf32>) {
  // expected-error @+2 {{expects window_dims, strides and dilations with one entry per dim (2), got 2, 1 and 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.reduce_window %a {kind = #hodu<window_kind max>, window_dims = array<i64: 1, 2>,
         strides = array<i64: 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x8xf32>) -> tensor<1x4xf32>
  return
}

// -----

func.func @window_pad_count(%a: tensor<1x8xf32>) {
  // expected-error @+2 {{expects 4 pads (begin and end per dim), got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.reduce_window %a {kind = #hodu<window_kind max>, window_dims = array<i64: 1, 2>,
         strides = array<i64: 1, 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x8xf32>) -> tensor<1x4xf32>
  return
}

// -----

func.func @window_zero_stride(%a: tensor<1x8xf32>) {
  // expected-error @+2 {{expects positive window_dims, strides and dilations (dim 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.reduce_window %a {kind = #hodu<window_kind sum>, window_dims = array<i64: 1, 2>,
         strides = array<i64: 1, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x8xf32>) -> tensor<1x4xf32>
  return
}

// -----

func.func @window_negative_pad(%a: tensor<1x8xf32>) {
  // expected-error @+2 {{expects non-negative pads (dim 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.reduce_window %a {kind = #hodu<window_kind mean>, window_dims = array<i64: 1, 2>,
         strides = array<i64: 1, 2>, pads = array<i64: 0, 0, 0, -1>, dilations = array<i64: 1, 1>}
       : (tensor<1x8xf32>) -> tensor<1x4xf32>
  return
}

// -----

// A window wider than the padded input has no output.
func.func @window_too_large(%a: tensor<1x3xf32>) {
  // expected-error @+2 {{the window of dim 1 (3 taps, dilation 2) is larger than the padded input (4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.reduce_window %a {kind = #hodu<window_kind min>, window_dims = array<i64: 1, 3>,
         strides = array<i64: 1, 1>, pads = array<i64: 0, 1, 0, 0>, dilations = array<i64: 1, 2>}
       : (tensor<1x3xf32>) -> tensor<1x0xf32>
  return
}

// -----

// The output size follows floor((in + pads - span) / stride) + 1.
func.func @window_result_shape(%a: tensor<1x8xf32>) {
  // expected-error @+2 {{'hodu.reduce_window' op inferred type(s) 'tensor<1x4xf32>' are incompatible with return type(s) of operation 'tensor<1x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.reduce_window %a {kind = #hodu<window_kind max>, window_dims = array<i64: 1, 2>,
         strides = array<i64: 1, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x8xf32>) -> tensor<1x3xf32>
  return
}

// -----

// An unknown window kind fails to parse.
func.func @window_bad_kind(%a: tensor<1x8xf32>) {
  %0 = hodu.reduce_window %a {window_dims = array<i64: 1, 2>,
         // expected-error @+2 {{expected ::hodu::WindowKind to be one of: max, mean, sum, min}}
         // expected-error @+1 {{failed to parse Hodu_WindowKindAttr parameter 'value'}}
         kind = #hodu<window_kind median>, strides = array<i64: 1, 2>,
         pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
       : (tensor<1x8xf32>) -> tensor<1x4xf32>
  return
}

// -----

func.func @cumsum_dim(%a: tensor<2x5xf32>) {
  // expected-error @+2 {{dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = hodu.cumsum %a {dim = 2 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @topk_dim(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{dim -1 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %v, %i = hodu.topk %a {k = 2 : i64, dim = -1 : i64} : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return
}

// -----

func.func @topk_k(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{k = 5 is out of range for dim 1 of size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %v, %i = hodu.topk %a {k = 5 : i64, dim = 1 : i64} : (tensor<3x4xf32>) -> (tensor<3x5xf32>, tensor<3x5xi64>)
  return
}

// -----

// TopK's indices are i64.
func.func @topk_indices_i32(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{'hodu.topk' op result #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<3x2xi32>'}}
  %v, %i = hodu.topk %a {k = 2 : i64, dim = 1 : i64} : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>)
  return
}
