// Grouped and depthwise convolutions of every shape the direct kernels
// (hodu-cpu-vectorize, DirectConv.cpp) distinguish; see direct-conv.test.
func.func @main(%x0: tensor<1x4x16x20xf32>, %w0: tensor<4x1x3x3xf32>,
                %x1: tensor<1x6x13x13xf32>, %w1: tensor<6x1x5x5xf32>,
                %x2: tensor<1x6x9x11xf32>, %w2: tensor<4x3x3x3xf32>,
                %x3: tensor<2x3x7x30xf32>, %w3: tensor<6x1x3x1xf32>,
                %x4: tensor<1x8x50xf32>, %w4: tensor<8x1x5xf32>,
                %x5: tensor<1x32x6x6xf32>, %w5: tensor<32x16x3x3xf32>,
                %x6: tensor<1x3x10x10xf64>, %w6: tensor<3x1x3x3xf64>,
                %x7: tensor<1x16x48x48xf32>, %w7: tensor<16x1x3x3xf32>,
                %x8: tensor<1x4x100xf32>, %w8: tensor<4x1x65xf32>)
    -> (tensor<1x4x16x20xf32>, tensor<1x6x7x7xf32>, tensor<1x4x7x9xf32>,
        tensor<2x6x7x15xf32>, tensor<1x8x50xf32>, tensor<1x32x6x6xf32>,
        tensor<1x3x10x10xf64>, tensor<1x16x48x48xf32>, tensor<1x4x100xf32>) {
  // Depthwise 3x3, stride 1: 20 columns are a 16-lane block and a masked
  // 4-column one.
  %0 = hodu.conv %x0, %w0 {dilations = array<i64: 1, 1>, groups = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x16x20xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x16x20xf32>
  // Depthwise 5x5, stride 2: strided reads (load + shuffle), 7 rows (a
  // block of 4 and a tail of 3).
  %1 = hodu.conv %x1, %w1 {dilations = array<i64: 1, 1>, groups = 6 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x6x13x13xf32>, tensor<6x1x5x5xf32>) -> tensor<1x6x7x7xf32>
  // 2 groups of 3 channels, 2 filters each, dilation 2.
  %2 = hodu.conv %x2, %w2 {dilations = array<i64: 2, 2>, groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x6x9x11xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x7x9xf32>
  // Batch 2, channel multiplier 2, a 3x1 kernel, stride 1x2.
  %3 = hodu.conv %x3, %w3 {dilations = array<i64: 1, 1>, groups = 3 : i64, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 1, 2>} : (tensor<2x3x7x30xf32>, tensor<6x1x3x1xf32>) -> tensor<2x6x7x15xf32>
  // A 1-D depthwise conv (a 2-D one of height 1).
  %4 = hodu.conv %x4, %w4 {dilations = array<i64: 1>, groups = 8 : i64, pads = array<i64: 2, 2>, strides = array<i64: 1>} : (tensor<1x8x50xf32>, tensor<8x1x5xf32>) -> tensor<1x8x50xf32>
  // 16 channels per group: one ungrouped convolution per group.
  %5 = hodu.conv %x5, %w5 {dilations = array<i64: 1, 1>, groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x32x6x6xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x6x6xf32>
  // f64: 8 lanes of 512 bits.
  %6 = hodu.conv %x6, %w6 {dilations = array<i64: 1, 1>, groups = 3 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x10x10xf64>, tensor<3x1x3x3xf64>) -> tensor<1x3x10x10xf64>
  // Enough work (331,776 multiply-adds) to spread the planes over threads.
  %7 = hodu.conv %x7, %w7 {dilations = array<i64: 1, 1>, groups = 16 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x16x48x48xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x48x48xf32>
  // A 65-tap window: the generic lowering keeps it.
  %8 = hodu.conv %x8, %w8 {dilations = array<i64: 1>, groups = 4 : i64, pads = array<i64: 32, 32>, strides = array<i64: 1>} : (tensor<1x4x100xf32>, tensor<4x1x65xf32>) -> tensor<1x4x100xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<1x4x16x20xf32>, tensor<1x6x7x7xf32>, tensor<1x4x7x9xf32>, tensor<2x6x7x15xf32>, tensor<1x8x50xf32>, tensor<1x32x6x6xf32>, tensor<1x3x10x10xf64>, tensor<1x16x48x48xf32>, tensor<1x4x100xf32>
}
