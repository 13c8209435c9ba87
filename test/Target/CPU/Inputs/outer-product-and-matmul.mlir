func.func @main(%a: tensor<5x1xf32>, %b: tensor<1x32xf32>, %c: tensor<8x64xf32>, %d: tensor<64x32xf32>) -> (tensor<5x32xf32>, tensor<8x32xf32>) {
  %0 = hodu.matmul %a, %b : (tensor<5x1xf32>, tensor<1x32xf32>) -> tensor<5x32xf32>
  %1 = hodu.matmul %c, %d : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  return %0, %1 : tensor<5x32xf32>, tensor<8x32xf32>
}
