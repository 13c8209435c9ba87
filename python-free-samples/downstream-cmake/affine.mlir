// y = 2 * x + 1 over f32[4]: the second model of the downstream sample.
module attributes {hodu.model_name = "affine"} {
  func.func @main(%x: tensor<4xf32> {hodu.name = "x"}) -> (tensor<4xf32> {hodu.name = "y"}) {
    %0 = hodu.mul_scalar %x, 2.0 : f32 : (tensor<4xf32>) -> tensor<4xf32>
    %1 = hodu.add_scalar %0, 1.0 : f32 : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
