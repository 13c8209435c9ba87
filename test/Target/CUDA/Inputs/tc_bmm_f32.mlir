// batched f32 matmul: a block per (batch, tile)
module attributes {hodu.model_name = "bmm_f32"} {
  func.func @main(%a: tensor<3x96x40xf32> {hodu.name = "a"}, %b: tensor<3x40x64xf32> {hodu.name = "b"}) -> (tensor<3x96x64xf32> {hodu.name = "c"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<3x96x64xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x96x64xf32>) -> tensor<3x96x64xf32>
    %mm = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>],
                          iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
          ins(%a, %b : tensor<3x96x40xf32>, tensor<3x40x64xf32>) outs(%init : tensor<3x96x64xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<3x96x64xf32>
    return %mm : tensor<3x96x64xf32>
  }
}
