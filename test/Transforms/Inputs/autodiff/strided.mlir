// Strided slices: steps of 2 and 3 along two dims, from an offset, a step
// that takes the last element, and negative steps (-1 and -2, reversed
// slices); squared so each element's gradient differs.
func.func @main(%x: tensor<5x7xf64>, %y: tensor<8xf64>) -> tensor<f64> {
  %s = hodu.slice %x {starts = array<i64: 1, 0>, ends = array<i64: 5, 7>, steps = array<i64: 2, 3>} : (tensor<5x7xf64>) -> tensor<2x3xf64>
  %q = hodu.mul %s, %s : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %a = hodu.reduce_sum %q {dims = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
  %t = hodu.slice %y {starts = array<i64: 1>, ends = array<i64: 8>, steps = array<i64: 3>} : (tensor<8xf64>) -> tensor<3xf64>
  %u = hodu.mul %t, %t : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %c = hodu.reduce_sum %u {dims = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  %r = hodu.slice %x {starts = array<i64: 3, 6>, ends = array<i64: -1, 0>, steps = array<i64: -1, -2>} : (tensor<5x7xf64>) -> tensor<4x3xf64>
  %w = hodu.mul %r, %r : (tensor<4x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
  %e = hodu.reduce_sum %w {dims = array<i64: 0, 1>} : (tensor<4x3xf64>) -> tensor<f64>
  %ac = hodu.add %a, %c : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %l = hodu.add %ac, %e : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %l : tensor<f64>
}
