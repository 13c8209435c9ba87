func.func @main(%x: tensor<2x3xf64>, %w1: tensor<3x4xf64>, %b1: tensor<4xf64>, %w2: tensor<4x2xf64>, %t: tensor<2x2xf64>) -> tensor<f64> {
  %h = hodu.matmul %x, %w1 : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %hb = hodu.add %h, %b1 : (tensor<2x4xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  %a = hodu.tanh %hb : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %y = hodu.matmul %a, %w2 : (tensor<2x4xf64>, tensor<4x2xf64>) -> tensor<2x2xf64>
  %d = hodu.sub %y, %t : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  %sq = hodu.square %d : (tensor<2x2xf64>) -> tensor<2x2xf64>
  %l = hodu.reduce_mean %sq {dims = array<i64: 0, 1>} : (tensor<2x2xf64>) -> tensor<f64>
  return %l : tensor<f64>
}
