// hodu.matmul, which the evaluator does not compute: the interp engine
// refuses the run, naming the op and its line (interp.test).
func.func @main(%x: tensor<2x3xf32> {hodu.name = "x"}) -> (tensor<2x2xf32> {hodu.name = "y"}) {
  %w = hodu.constant dense<1.0> : tensor<3x2xf32>
  %y = hodu.matmul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
