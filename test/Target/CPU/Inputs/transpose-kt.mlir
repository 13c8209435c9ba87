module attributes {hodu.model_name = "transpose_kt"} {
  func.func @main(%arg0: tensor<1x128x256xf32> {hodu.name = "x"}) -> (tensor<1x4x64x128xf32> {hodu.name = "y"}) {
    %20 = hodu.reshape %arg0 : (tensor<1x128x256xf32>) -> tensor<1x128x4x64xf32>
    %25 = hodu.transpose %20 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x128x4x64xf32>) -> tensor<1x4x64x128xf32>
    return %25 : tensor<1x4x64x128xf32>
  }
}
