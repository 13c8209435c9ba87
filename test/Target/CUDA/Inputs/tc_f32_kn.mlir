// f32 C = A B, B stored [K][N]: 3xTF32/TF32 with B read element by element
module attributes {hodu.model_name = "f32_kn"} {
  func.func @main(%a: tensor<256x96xf32> {hodu.name = "a"}, %b: tensor<96x192xf32> {hodu.name = "b"}) -> (tensor<256x192xf32> {hodu.name = "c"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x192xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x192xf32>) -> tensor<256x192xf32>
    %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                          iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%a, %b : tensor<256x96xf32>, tensor<96x192xf32>) outs(%init : tensor<256x192xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<256x192xf32>
    return %mm : tensor<256x192xf32>
  }
}
