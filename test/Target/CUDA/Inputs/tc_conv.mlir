// A 3x3 convolution, 16 -> 32 channels on 20x20 (NCHW): im2col, then the
// filter [32][144] as X and the gathered input [144][18*18] as Y.
module attributes {hodu.model_name = "conv"} {
  func.func @main(%x: tensor<1x16x20x20xf32> {hodu.name = "x"}, %w: tensor<32x16x3x3xf32> {hodu.name = "w"}) -> (tensor<1x32x18x18xf32> {hodu.name = "y"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x32x18x18xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x18x18xf32>) -> tensor<1x32x18x18xf32>
    %y = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x16x20x20xf32>, tensor<32x16x3x3xf32>) outs(%init : tensor<1x32x18x18xf32>) -> tensor<1x32x18x18xf32>
    return %y : tensor<1x32x18x18xf32>
  }
}
