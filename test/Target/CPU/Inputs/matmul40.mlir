// C = A x B with M = 40 rows: no power-of-two tile above 8 divides it, its
// divisors 10 and 5 do.
module attributes {hodu.model_name = "mm40"} {
  func.func @main(%a: tensor<40x64xf32> {hodu.name = "a"}, %b: tensor<64x64xf32> {hodu.name = "b"}) -> (tensor<40x64xf32> {hodu.name = "c"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<40x64xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<40x64xf32>) -> tensor<40x64xf32>
    %mm = linalg.matmul ins(%a, %b : tensor<40x64xf32>, tensor<64x64xf32>) outs(%init : tensor<40x64xf32>) -> tensor<40x64xf32>
    return %mm : tensor<40x64xf32>
  }
}
