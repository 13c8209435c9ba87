// hodu.cumsum, which the evaluator does not compute: the interp engine
// refuses the run, naming the op and its line (interp.test).
func.func @main(%x: tensor<2x3xf32> {hodu.name = "x"}) -> (tensor<2x3xf32> {hodu.name = "y"}) {
  %w = hodu.constant dense<1.0> : tensor<2x3xf32>
  %y = hodu.cumsum %x {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
