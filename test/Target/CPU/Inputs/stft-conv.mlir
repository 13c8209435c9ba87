func.func @main(%x: tensor<1x1x1280xf32>, %w: tensor<257x1x512xf32>) -> tensor<1x257x5xf32> {
  %0 = hodu.conv %x, %w {dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 160>} : (tensor<1x1x1280xf32>, tensor<257x1x512xf32>) -> tensor<1x257x5xf32>
  return %0 : tensor<1x257x5xf32>
}
