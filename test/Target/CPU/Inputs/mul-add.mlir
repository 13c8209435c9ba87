func.func @main(%x: tensor<64xf32>, %a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %0 = hodu.mul %x, %a : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %1 = hodu.add %0, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %1 : tensor<64xf32>
}
