// A two-layer MLP in f32 (relu) regressing 2 values from 8 features.
func.func @main(%x: tensor<32x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x2xf32>, %b2: tensor<2xf32>) -> tensor<32x2xf32> {
  %h = hodu.matmul %x, %w1 : (tensor<32x8xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
  %hb = hodu.add %h, %b1 : (tensor<32x16xf32>, tensor<16xf32>) -> tensor<32x16xf32>
  %a = hodu.relu %hb : (tensor<32x16xf32>) -> tensor<32x16xf32>
  %y = hodu.matmul %a, %w2 : (tensor<32x16xf32>, tensor<16x2xf32>) -> tensor<32x2xf32>
  %yb = hodu.add %y, %b2 : (tensor<32x2xf32>, tensor<2xf32>) -> tensor<32x2xf32>
  return %yb : tensor<32x2xf32>
}
