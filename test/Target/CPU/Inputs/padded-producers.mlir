// Convolutions whose padded inputs an op of the model produced (see
// pad-in-place.test): a depthwise one (its [1, C, 1, H, W] view moves
// after the pad), a packed one whose input also feeds a residual add (two
// users: it keeps its pad), an f64 one with unequal pads (whose kernel
// pads its rows itself: no tensor.pad), and one padding the model's input
// (no producer: the interior is copied).
func.func @main(%x: tensor<1x16x24x20xf32>, %dw: tensor<16x1x3x3xf32>,
                %w: tensor<16x16x3x3xf32>, %y: tensor<1x4x9x13xf64>,
                %wy: tensor<6x4x3x3xf64>, %z: tensor<1x3x10x10xf32>,
                %wz: tensor<8x3x3x3xf32>)
    -> (tensor<1x16x24x20xf32>, tensor<1x6x8x13xf64>, tensor<1x8x10x10xf32>) {
  %0 = hodu.mul %x, %x : (tensor<1x16x24x20xf32>, tensor<1x16x24x20xf32>) -> tensor<1x16x24x20xf32>
  %1 = hodu.conv %0, %dw {dilations = array<i64: 1, 1>, groups = 16 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x24x20xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x24x20xf32>
  %2 = hodu.exp %1 : (tensor<1x16x24x20xf32>) -> tensor<1x16x24x20xf32>
  %3 = hodu.conv %2, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x24x20xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x24x20xf32>
  %4 = hodu.add %3, %2 : (tensor<1x16x24x20xf32>, tensor<1x16x24x20xf32>) -> tensor<1x16x24x20xf32>
  %5 = hodu.neg %y : (tensor<1x4x9x13xf64>) -> tensor<1x4x9x13xf64>
  %6 = hodu.conv %5, %wy {dilations = array<i64: 1, 1>, pads = array<i64: 0, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x9x13xf64>, tensor<6x4x3x3xf64>) -> tensor<1x6x8x13xf64>
  %7 = hodu.conv %z, %wz {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x10x10xf32>
  return %4, %6, %7 : tensor<1x16x24x20xf32>, tensor<1x6x8x13xf64>, tensor<1x8x10x10xf32>
}
