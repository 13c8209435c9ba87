// Ungrouped convolutions with 1 to 3 filters (too few for a register tile
// of the packed matmul), which take the direct kernels as one group; see
// direct-conv.test.
func.func @main(%x0: tensor<1x64x64x40xf32>, %w0: tensor<1x64x3x3xf32>,
                %x1: tensor<1x5x17x23xf32>, %w1: tensor<3x5x3x3xf32>,
                %x2: tensor<2x16x12x12xf32>, %w2: tensor<2x16x1x1xf32>,
                %x3: tensor<1x3x20x30xf64>, %w3: tensor<1x3x5x5xf64>,
                %x4: tensor<1x8x12x40xf32>, %w4: tensor<4x8x3x3xf32>)
    -> (tensor<1x1x64x40xf32>, tensor<1x3x9x12xf32>, tensor<2x2x12x12xf32>,
        tensor<1x1x20x30xf64>, tensor<1x4x12x40xf32>) {
  // One filter over 64 channels (a segmentation head): one plane, its 64
  // rows in 8 parts of 8 rows over threads.
  %0 = hodu.conv %x0, %w0 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x64x64x40xf32>, tensor<1x64x3x3xf32>) -> tensor<1x1x64x40xf32>
  // Three filters, stride 2: 9 rows, too few to split.
  %1 = hodu.conv %x1, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x5x17x23xf32>, tensor<3x5x3x3xf32>) -> tensor<1x3x9x12xf32>
  // Two 1x1 filters, batch 2: 4 planes, too little work for threads.
  %2 = hodu.conv %x2, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x16x12x12xf32>, tensor<2x16x1x1xf32>) -> tensor<2x2x12x12xf32>
  // f64, a 5x5 window with dilation 2.
  %3 = hodu.conv %x3, %w3 {dilations = array<i64: 2, 2>, pads = array<i64: 4, 4, 4, 4>, strides = array<i64: 1, 1>} : (tensor<1x3x20x30xf64>, tensor<1x3x5x5xf64>) -> tensor<1x1x20x30xf64>
  // Four filters: a register tile of the packed matmul.
  %4 = hodu.conv %x4, %w4 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x12x40xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x12x40xf32>
  return %0, %1, %2, %3, %4 : tensor<1x1x64x40xf32>, tensor<1x3x9x12xf32>, tensor<2x2x12x12xf32>, tensor<1x1x20x30xf64>, tensor<1x4x12x40xf32>
}
