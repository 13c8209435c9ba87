// A model whose own input is named "lr": a stateful step keeps it an input
// and appends its learning-rate meta slot beside it.
func.func @main(%lr: tensor<4xf32> {hodu.name = "lr"}, %w: tensor<4xf32> {hodu.name = "w", hodu.param = dense<1.0> : tensor<4xf32>}) -> tensor<4xf32> {
  %y = hodu.mul %lr, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
