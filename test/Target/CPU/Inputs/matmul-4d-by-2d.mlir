func.func @main(%x: tensor<1x1x5x257xf32>, %w: tensor<257x32xf32>) -> tensor<1x1x5x32xf32> {
  %0 = hodu.matmul %x, %w : (tensor<1x1x5x257xf32>, tensor<257x32xf32>) -> tensor<1x1x5x32xf32>
  return %0 : tensor<1x1x5x32xf32>
}
