// A small model in the hodu dialect that the interp engine runs whole
// (test/Plugins/interp.test): a weight in a dense_resource blob, a
// broadcasting multiply, relu, transpose, a reduction, a comparison that
// gives booleans and an integer op.
module attributes {hodu.model_name = "small"} {
  func.func @main(%x: tensor<2x3xf32> {hodu.name = "x"}, %n: tensor<i64> {hodu.name = "n"})
      -> (tensor<3x2xf32> {hodu.name = "y"}, tensor<2xf32> {hodu.name = "sums"},
          tensor<2x3xi1> {hodu.name = "positive"}, tensor<i64> {hodu.name = "twice"}) {
    %w = hodu.constant dense_resource<interp_w> : tensor<3xf32>
    %a = hodu.mul %x, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %r = hodu.relu %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %y = hodu.transpose %r {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %s = hodu.reduce_sum %a {dims = array<i64: 1>, keep_dim = false} : (tensor<2x3xf32>) -> tensor<2xf32>
    %p = hodu.gt_scalar %x, 0.000000e+00 : f32 : (tensor<2x3xf32>) -> tensor<2x3xi1>
    %t = hodu.mul_scalar %n, 2 : i64 : (tensor<i64>) -> tensor<i64>
    return %y, %s, %p, %t : tensor<3x2xf32>, tensor<2xf32>, tensor<2x3xi1>, tensor<i64>
  }
}

{-#
  dialect_resources: {
    builtin: {
      interp_w: "0x040000000000803F000000C000004040"
    }
  }
#-}
