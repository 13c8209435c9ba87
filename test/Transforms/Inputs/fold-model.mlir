// A small conv net whose constant subgraphs (BatchNormalization statistics,
// a transposed dense_resource weight, casts, reductions) the constant folder
// evaluates: fold-constants-run.test compiles it before and after folding
// and compares the outputs.
module attributes {hodu.model_name = "foldnet"} {
  func.func @main(%x: tensor<1x2x4x4xf32> {hodu.name = "x"}) -> (tensor<1x3xf32> {hodu.name = "y"}, tensor<1x3x4x4xf32> {hodu.name = "z"}) {
    %w = hodu.constant dense<[[[[0.5, -1.0, 0.25]], [[1.5, 0.0, -0.5]]], [[[-0.75, 2.0, 1.0]], [[0.125, -0.25, 0.5]]], [[[1.0, 1.0, -1.0]], [[0.3, 0.6, -0.9]]]]> : tensor<3x2x1x3xf32>
    %y0 = hodu.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 1, 0, 1>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x3xf32>) -> tensor<1x3x4x4xf32>
    %b0 = hodu.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
    %b = hodu.reshape %b0 : (tensor<3xf32>) -> tensor<3x1x1xf32>
    %y1 = hodu.add %y0, %b : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
    // BatchNormalization (inference) as the ONNX importer emits it.
    %scale0 = hodu.constant dense<[1.5, 0.5, -2.0]> : tensor<3xf32>
    %beta0 = hodu.constant dense<[0.25, -1.0, 0.5]> : tensor<3xf32>
    %mean0 = hodu.constant dense<[0.2, -0.4, 1.1]> : tensor<3xf32>
    %var0 = hodu.constant dense<[0.9, 2.5, 0.3]> : tensor<3xf32>
    %scale = hodu.reshape %scale0 : (tensor<3xf32>) -> tensor<3x1x1xf32>
    %beta = hodu.reshape %beta0 : (tensor<3xf32>) -> tensor<3x1x1xf32>
    %mean = hodu.reshape %mean0 : (tensor<3xf32>) -> tensor<3x1x1xf32>
    %var = hodu.reshape %var0 : (tensor<3xf32>) -> tensor<3x1x1xf32>
    %ve = hodu.add_scalar %var, 1.0e-05 : f32 : (tensor<3x1x1xf32>) -> tensor<3x1x1xf32>
    %sd = hodu.sqrt %ve : (tensor<3x1x1xf32>) -> tensor<3x1x1xf32>
    %c = hodu.sub %y1, %mean : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
    %d = hodu.div %c, %sd : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
    %m = hodu.mul %d, %scale : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
    %bn = hodu.add %m, %beta : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>) -> tensor<1x3x4x4xf32>
    %z = hodu.relu %bn : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
    // Global average pool, then a dense layer whose weight is stored
    // transposed as a resource ([3,3] f32, 1..9 / 8) and whose bias comes
    // from integer constants through casts and a reduction.
    %p = hodu.reduce_mean %z {dims = array<i64: 2, 3>} : (tensor<1x3x4x4xf32>) -> tensor<1x3xf32>
    %wt = hodu.constant dense_resource<dense_w> : tensor<3x3xf32>
    %wd = hodu.transpose %wt {perm = array<i64: 1, 0>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %ws = hodu.div_scalar %wd, 8.0 : f32 : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %mm = hodu.matmul %p, %ws : (tensor<1x3xf32>, tensor<3x3xf32>) -> tensor<1x3xf32>
    %ib = hodu.constant dense<[[3, -4, 5], [1, 2, -3]]> : tensor<2x3xi32>
    %is = hodu.reduce_sum %ib {dims = array<i64: 0>} : (tensor<2x3xi32>) -> tensor<3xi32>
    %fb = hodu.cast %is : (tensor<3xi32>) -> tensor<3xf32>
    %fb2 = hodu.tanh %fb : (tensor<3xf32>) -> tensor<3xf32>
    %out = hodu.add %mm, %fb2 : (tensor<1x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
    return %out, %z : tensor<1x3xf32>, tensor<1x3x4x4xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      dense_w: "0x040000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041"
    }
  }
#-}
