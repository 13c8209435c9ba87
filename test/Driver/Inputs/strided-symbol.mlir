// A state [layers, batch, features] whose batch is symbolic: chunks of it are
// strided slices. y is the state transposed to [batch, features, layers].
func.func @main(%s: tensor<2x3x4xf32> {hodu.name = "state", hodu.dims = ["", "batch", ""]}) -> (tensor<3x4x2xf32> {hodu.name = "y"}, tensor<2x3x4xf32> {hodu.name = "s2"}) {
  %t = hodu.transpose %s {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %d = hodu.add %s, %s : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %t, %d : tensor<3x4x2xf32>, tensor<2x3x4xf32>
}
