// Transposed convolutions that hodu-decompose-conv-transpose splits into
// per-phase convolutions (and one it keeps); see conv-transpose-phases.test.
func.func @main(%x0: tensor<1x8x5x5xf32>, %w0: tensor<8x4x2x2xf32>,
                %x1: tensor<1x3x6x7xf32>, %w1: tensor<3x5x3x3xf32>,
                %x2: tensor<2x4x5x5xf32>, %w2: tensor<4x3x4x4xf32>,
                %x3: tensor<1x2x4xf32>, %w3: tensor<2x2x1xf32>,
                %x4: tensor<1x4x5x5xf32>, %w4: tensor<4x3x3x3xf32>,
                %x5: tensor<1x2x3x4x3xf32>, %w5: tensor<2x2x2x3x2xf32>,
                %x6: tensor<1x1x6x6xf32>, %w6: tensor<1x1x3x3xf32>,
                %x7: tensor<1x2x4x4xf32>, %w7: tensor<2x2x3x3xf32>,
                %x8: tensor<1x1x4x4xf32>, %w8: tensor<1x1x3x3xf32>)
    -> (tensor<1x4x10x10xf32>, tensor<1x5x12x14xf32>, tensor<2x3x10x10xf32>,
        tensor<1x2x10xf32>, tensor<1x6x11x11xf32>, tensor<1x2x6x6x6xf32>,
        tensor<1x1x7x7xf32>, tensor<1x2x9x7xf32>, tensor<1x1x11x11xf32>) {
  // 2x2 stride-2 upsampling (PaddleOCR's detector head).
  %0 = hodu.conv_transpose %x0, %w0 {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x5x5xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x10x10xf32>
  // 3x3, stride 2, pad 1, output_padding 1: phases of 2 and 1 taps.
  %1 = hodu.conv_transpose %x1, %w1 {dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x6x7xf32>, tensor<3x5x3x3xf32>) -> tensor<1x5x12x14xf32>
  // 4x4, stride 2, pad 1 (U-Net, GAN decoders), batch 2.
  %2 = hodu.conv_transpose %x2, %w2 {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x4x5x5xf32>, tensor<4x3x4x4xf32>) -> tensor<2x3x10x10xf32>
  // 1-D, stride 3 over a 1-tap kernel: two phases are zeros.
  %3 = hodu.conv_transpose %x3, %w3 {dilations = array<i64: 1>, output_padding = array<i64: 0>, pads = array<i64: 0, 0>, strides = array<i64: 3>} : (tensor<1x2x4xf32>, tensor<2x2x1xf32>) -> tensor<1x2x10xf32>
  // Two groups.
  %4 = hodu.conv_transpose %x4, %w4 {dilations = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x11x11xf32>
  // 3-D with strides 2, 1, 2.
  %5 = hodu.conv_transpose %x5, %w5 {dilations = array<i64: 1, 1, 1>, output_padding = array<i64: 0, 0, 0>, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 2, 1, 2>} : (tensor<1x2x3x4x3xf32>, tensor<2x2x2x3x2xf32>) -> tensor<1x2x6x6x6xf32>
  // Pads larger than the kernel: the phases crop the input.
  %6 = hodu.conv_transpose %x6, %w6 {dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x1x6x6xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x7x7xf32>
  // Asymmetric pads and output_padding in one dim.
  %7 = hodu.conv_transpose %x7, %w7 {dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 0>, pads = array<i64: 0, 2, 1, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x9x7xf32>
  // Dilation 2: kept as one convolution of the dilated input.
  %8 = hodu.conv_transpose %x8, %w8 {dilations = array<i64: 2, 2>, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x11x11xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<1x4x10x10xf32>, tensor<1x5x12x14xf32>, tensor<2x3x10x10xf32>, tensor<1x2x10xf32>, tensor<1x6x11x11xf32>, tensor<1x2x6x6x6xf32>, tensor<1x1x7x7xf32>, tensor<1x2x9x7xf32>, tensor<1x1x11x11xf32>
}
