// A two-layer MLP in f64 (tanh), for the one-step references.
func.func @main(%x: tensor<4x3xf64>, %w1: tensor<3x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x2xf64>) -> tensor<4x2xf64> {
  %h = hodu.matmul %x, %w1 : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
  %hb = hodu.add %h, %b1 : (tensor<4x5xf64>, tensor<5xf64>) -> tensor<4x5xf64>
  %a = hodu.tanh %hb : (tensor<4x5xf64>) -> tensor<4x5xf64>
  %y = hodu.matmul %a, %w2 : (tensor<4x5xf64>, tensor<5x2xf64>) -> tensor<4x2xf64>
  return %y : tensor<4x2xf64>
}
