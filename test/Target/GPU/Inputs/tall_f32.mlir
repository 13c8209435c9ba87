// f32 C = A B over [520x32] x [32x72]: 17 x 3 tiles of 32x32, more rows of
// tiles than a group of 8 (the grouped block order; the last group 1 row).
module attributes {hodu.model_name = "tall"} {
  func.func @main(%a: tensor<520x32xf32> {hodu.name = "a"}, %b: tensor<32x72xf32> {hodu.name = "b"}) -> (tensor<520x72xf32> {hodu.name = "c"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<520x72xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<520x72xf32>) -> tensor<520x72xf32>
    %mm = linalg.matmul ins(%a, %b : tensor<520x32xf32>, tensor<32x72xf32>) outs(%init : tensor<520x72xf32>) -> tensor<520x72xf32>
    return %mm : tensor<520x72xf32>
  }
}
