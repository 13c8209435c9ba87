func.func @main(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = hodu.constant dense<[[1.0, 1.0e-40], [2.0, 3.0], [-5.0e-39, 4.0]]> : tensor<3x2xf32>
  %0 = hodu.matmul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
