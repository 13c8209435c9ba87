// A 3x3 convolution of a padded input, 8 -> 16 channels on 12x12: the pad
// (by 0.5, so that a position in the padding tells whether the pad value
// was read) goes into the im2col gather, which reads the unpadded input.
module attributes {hodu.model_name = "conv_pad"} {
  func.func @main(%x: tensor<1x8x12x12xf32> {hodu.name = "x"}, %w: tensor<16x8x3x3xf32> {hodu.name = "w"}) -> (tensor<1x16x12x12xf32> {hodu.name = "y"}) {
    %half = arith.constant 0.5 : f32
    %zero = arith.constant 0.0 : f32
    %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %half : f32
    } : tensor<1x8x12x12xf32> to tensor<1x8x14x14xf32>
    %e = tensor.empty() : tensor<1x16x12x12xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x12x12xf32>) -> tensor<1x16x12x12xf32>
    %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%p, %w : tensor<1x8x14x14xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x12x12xf32>) -> tensor<1x16x12x12xf32>
    return %y : tensor<1x16x12x12xf32>
  }
}
