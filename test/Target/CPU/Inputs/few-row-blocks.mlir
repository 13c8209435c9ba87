// Matmuls whose packed B blocks are shared by few row blocks: 64 rows (8 row
// blocks of 8, an MLP layer at batch 64) with a B given at run time (packed
// into the arena), and 1 row (a classifier head) with a weight (packed at
// compile time); 512 rows (64 row blocks) reuse each B block enough to go
// without a prefetch.
module attributes {hodu.model_name = "few_row_blocks"} {
  func.func @main(%x: tensor<64x512xf32> {hodu.name = "x"}, %b: tensor<512x256xf32> {hodu.name = "b"},
                  %v: tensor<1x512xf32> {hodu.name = "v"}, %y: tensor<512x512xf32> {hodu.name = "y"})
      -> (tensor<64x256xf32> {hodu.name = "xb"}, tensor<1x256xf32> {hodu.name = "vb"},
          tensor<512x256xf32> {hodu.name = "yb"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %xb = linalg.matmul ins(%x, %b : tensor<64x512xf32>, tensor<512x256xf32>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
    %e1 = tensor.empty() : tensor<1x256xf32>
    %init1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x256xf32>) -> tensor<1x256xf32>
    %w = arith.constant dense<0.25> : tensor<512x256xf32>
    %vb = linalg.matmul ins(%v, %w : tensor<1x512xf32>, tensor<512x256xf32>) outs(%init1 : tensor<1x256xf32>) -> tensor<1x256xf32>
    %e2 = tensor.empty() : tensor<512x256xf32>
    %init2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<512x256xf32>) -> tensor<512x256xf32>
    %yb = linalg.matmul ins(%y, %b : tensor<512x512xf32>, tensor<512x256xf32>) outs(%init2 : tensor<512x256xf32>) -> tensor<512x256xf32>
    return %xb, %vb, %yb : tensor<64x256xf32>, tensor<1x256xf32>, tensor<512x256xf32>
  }
}
