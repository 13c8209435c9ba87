// Convolutions (strided and padded, depthwise, dilated), max pooling with
// overlapping padded windows, mean pooling not counting padding, slice,
// concat, Gather (duplicate and negative indices) and GatherElements.
func.func @main(%x: tensor<1x2x5x5xf64>, %w: tensor<3x2x3x3xf64>, %dw: tensor<3x1x2x2xf64>, %t: tensor<4x3xf64>) -> tensor<f64> {
  %c = hodu.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x5x5xf64>, tensor<3x2x3x3xf64>) -> tensor<1x3x3x3xf64>
  %d = hodu.conv %c, %dw {strides = array<i64: 1, 1>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 2, 1>, groups = 3} : (tensor<1x3x3x3xf64>, tensor<3x1x2x2xf64>) -> tensor<1x3x3x2xf64>
  %mp = hodu.reduce_window %x {kind = #hodu<window_kind max>, window_dims = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x5xf64>) -> tensor<1x2x3x3xf64>
  %ap = hodu.reduce_window %c {kind = #hodu<window_kind mean>, window_dims = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 1, 0, 0, 0, 0, 1>, dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x3x3x3xf64>) -> tensor<1x3x3x3xf64>
  %m2 = hodu.reshape %mp : (tensor<1x2x3x3xf64>) -> tensor<2x9xf64>
  %sl = hodu.slice %m2 {starts = array<i64: 0, 2>, ends = array<i64: 2, 8>, steps = array<i64: 1, 1>} : (tensor<2x9xf64>) -> tensor<2x6xf64>
  %a2 = hodu.reshape %ap : (tensor<1x3x3x3xf64>) -> tensor<3x9xf64>
  %d2 = hodu.reshape %d : (tensor<1x3x3x2xf64>) -> tensor<3x6xf64>
  %cat = hodu.concat %a2, %d2 {dim = 1 : i64} : (tensor<3x9xf64>, tensor<3x6xf64>) -> tensor<3x15xf64>
  %idx = hodu.constant dense<[2, 0, -1, 2]> : tensor<4xi64>
  %gs = hodu.index_select %cat, %idx {dim = 0 : i64} : (tensor<3x15xf64>, tensor<4xi64>) -> tensor<4x15xf64>
  %gi = hodu.constant dense<[[0, 12, 5], [1, 1, 3], [7, 0, 14], [4, 4, 4]]> : tensor<4x3xi64>
  %ge = hodu.gather %gs, %gi {dim = 1 : i64} : (tensor<4x15xf64>, tensor<4x3xi64>) -> tensor<4x3xf64>
  %wt = hodu.mul %ge, %t : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  %r1 = hodu.reduce_sum %wt {dims = array<i64: 0, 1>} : (tensor<4x3xf64>) -> tensor<f64>
  %sq = hodu.square %sl : (tensor<2x6xf64>) -> tensor<2x6xf64>
  %r2 = hodu.reduce_sum %sq {dims = array<i64: 0, 1>} : (tensor<2x6xf64>) -> tensor<f64>
  %loss = hodu.add %r1, %r2 : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %loss : tensor<f64>
}
