// Operands that do not broadcast: the verifier's message must reach the user.
module {
  func.func @main(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
    %0 = hodu.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
