// Convolutions whose output rows are narrower than a panel; see
// narrow-rows.test.
func.func @main(%x0: tensor<1x96x12x6xf32>, %w0: tensor<96x96x1x3xf32>,
                %x1: tensor<1x16x10x10xf32>, %w1: tensor<24x16x3x3xf32>,
                %x2: tensor<1x40x3x20xf32>, %w2: tensor<32x40x1x1xf32>,
                %x3: tensor<1x8x9x9xf32>, %w3: tensor<16x8x3x3xf32>,
                %x4: tensor<1x4x20x12xf32>, %w4: tensor<8x4x9x9xf32>)
    -> (tensor<1x96x12x4xf32>, tensor<1x24x6x6xf32>, tensor<1x32x3x20xf32>,
        tensor<1x16x4x4xf32>, tensor<1x8x12x4xf32>) {
  // 4-column rows (openWakeWord's embedding): flattened plane.
  %0 = hodu.conv %x0, %w0 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x96x12x6xf32>, tensor<96x96x1x3xf32>) -> tensor<1x96x12x4xf32>
  // Dilation 2, 6-column rows.
  %1 = hodu.conv %x1, %w1 {dilations = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x10x10xf32>, tensor<24x16x3x3xf32>) -> tensor<1x24x6x6xf32>
  // 1x1 on 20-column rows: 3 rows of 20 in 64 flattened columns.
  %2 = hodu.conv %x2, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x40x3x20xf32>, tensor<32x40x1x1xf32>) -> tensor<1x32x3x20xf32>
  // Stride 2: one panel row per output row.
  %3 = hodu.conv %x3, %w3 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32>
  // 81 taps: copied in a loop over the taps, each at y*w + x.
  %4 = hodu.conv %x4, %w4 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x20x12xf32>, tensor<8x4x9x9xf32>) -> tensor<1x8x12x4xf32>
  return %0, %1, %2, %3, %4 : tensor<1x96x12x4xf32>, tensor<1x24x6x6xf32>, tensor<1x32x3x20xf32>, tensor<1x16x4x4xf32>, tensor<1x8x12x4xf32>
}
