// A linear model whose weight is a parameter (hodu.param: its initial
// value), and a second argument with a hodu.param that --train leaves out
// of the training (it becomes a constant of its value).
func.func @main(%x: tensor<2x3xf32> {hodu.name = "x"},
                %w: tensor<3x1xf32> {hodu.name = "w", hodu.param = dense<[[0.5], [-0.25], [1.0]]> : tensor<3x1xf32>},
                %b: tensor<1xf32> {hodu.name = "b", hodu.param = dense<[0.125]> : tensor<1xf32>})
    -> (tensor<2x1xf32> {hodu.name = "y"}) {
  %m = hodu.matmul %x, %w : (tensor<2x3xf32>, tensor<3x1xf32>) -> tensor<2x1xf32>
  %y = hodu.add %m, %b : (tensor<2x1xf32>, tensor<1xf32>) -> tensor<2x1xf32>
  return %y : tensor<2x1xf32>
}
