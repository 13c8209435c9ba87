// f32 with M, N and K that are not multiples of the tiles, N odd: masked copies, stores one by one
module attributes {hodu.model_name = "f32_tail"} {
  func.func @main(%a: tensor<100x36xf32> {hodu.name = "a"}, %b: tensor<67x36xf32> {hodu.name = "b"}) -> (tensor<100x67xf32> {hodu.name = "c"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<100x67xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<100x67xf32>) -> tensor<100x67xf32>
    %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                          iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%a, %b : tensor<100x36xf32>, tensor<67x36xf32>) outs(%init : tensor<100x67xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<100x67xf32>
    return %mm : tensor<100x67xf32>
  }
}
