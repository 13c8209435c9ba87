// A small CNN in f32 classifying 6x6 single-channel images into 3 classes:
// conv 3x3 (4 filters, pad 1), relu, max pool 2x2, a dense layer.
func.func @main(%x: tensor<12x1x6x6xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<1x4x1x1xf32>, %d: tensor<36x3xf32>) -> tensor<12x3xf32> {
  %c = hodu.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<12x1x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<12x4x6x6xf32>
  %cb = hodu.add %c, %b : (tensor<12x4x6x6xf32>, tensor<1x4x1x1xf32>) -> tensor<12x4x6x6xf32>
  %r = hodu.relu %cb : (tensor<12x4x6x6xf32>) -> tensor<12x4x6x6xf32>
  %p = hodu.reduce_window %r {kind = #hodu<window_kind max>, window_dims = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>} : (tensor<12x4x6x6xf32>) -> tensor<12x4x3x3xf32>
  %f = hodu.reshape %p : (tensor<12x4x3x3xf32>) -> tensor<12x36xf32>
  %y = hodu.matmul %f, %d : (tensor<12x36xf32>, tensor<36x3xf32>) -> tensor<12x3xf32>
  return %y : tensor<12x3xf32>
}
