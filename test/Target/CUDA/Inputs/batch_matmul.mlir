// A batched matmul: 2 products of 4x8 by 8x3.
module attributes {hodu.model_name = "bmm"} {
  func.func @main(%a: tensor<2x4x8xf32> {hodu.name = "a"}, %b: tensor<2x8x3xf32> {hodu.name = "b"}) -> (tensor<2x4x3xf32> {hodu.name = "c"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x4x3xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
    %mm = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x3xf32>) outs(%init : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
    return %mm : tensor<2x4x3xf32>
  }
}
