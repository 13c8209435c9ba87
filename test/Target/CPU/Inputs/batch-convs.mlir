// Convolutions of a batch larger than 1: a loop over the batch of batch-1
// convolutions, each on the strategy a batch of 1 gets.
func.func @main(%x0: tensor<3x8x12x20xf32>, %w0: tensor<16x8x3x3xf32>,
                %x1: tensor<2x16x10x10xf32>, %w1: tensor<32x16x1x1xf32>,
                %x2: tensor<2x16x24x24xf32>)
    -> (tensor<3x16x12x20xf32>, tensor<2x32x10x10xf32>, tensor<2x32x24x24xf32>) {
  // A 3x3 filter bank of arguments (not constants): a packed matmul.
  %0 = hodu.conv %x0, %w0 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<3x8x12x20xf32>, tensor<16x8x3x3xf32>) -> tensor<3x16x12x20xf32>
  // A 1x1 convolution: a packed matmul at batch 1.
  %1 = hodu.conv %x1, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x16x10x10xf32>, tensor<32x16x1x1xf32>) -> tensor<2x32x10x10xf32>
  // Constant 3x3 weights: Winograd, which needs them as constants inside
  // the batch loop too.
  %w2 = hodu.constant dense<[[[[0.5, -0.25, 0.125], [1.0, 0.0, -1.0], [0.25, 0.5, 0.75]]]]> : tensor<1x1x3x3xf32>
  %w2b = hodu.broadcast %w2 : (tensor<1x1x3x3xf32>) -> tensor<32x16x3x3xf32>
  %2 = hodu.conv %x2, %w2b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x16x24x24xf32>, tensor<32x16x3x3xf32>) -> tensor<2x32x24x24xf32>
  return %0, %1, %2 : tensor<3x16x12x20xf32>, tensor<2x32x10x10xf32>, tensor<2x32x24x24xf32>
}
