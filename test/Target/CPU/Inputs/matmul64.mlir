// C = A x B on 64x64 f32: large enough for register tiles of every target.
module attributes {hodu.model_name = "mm64"} {
  func.func @main(%a: tensor<64x64xf32> {hodu.name = "a"}, %b: tensor<64x64xf32> {hodu.name = "b"}) -> (tensor<64x64xf32> {hodu.name = "c"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %mm : tensor<64x64xf32>
  }
}
