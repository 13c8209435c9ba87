module attributes {hodu.model_name = "matmul"} {
  func.func @main(%a: tensor<4x8xf32> {hodu.name = "a"}, %b: tensor<8x3xf32> {hodu.name = "b"}) -> (tensor<4x3xf32> {hodu.name = "c"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x3xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
    %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%init : tensor<4x3xf32>) -> tensor<4x3xf32>
    return %mm : tensor<4x3xf32>
  }
}
