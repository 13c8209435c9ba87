func.func @main(%x: tensor<4xf32>, %i: tensor<4xi32>, %unused: tensor<3xf32>) -> tensor<f32> {
  %h = hodu.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  %w = hodu.cast %h : (tensor<4xf16>) -> tensor<4xf32>
  %l = hodu.reduce_sum %w {dims = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
