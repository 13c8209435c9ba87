// f16 C = A B, B stored [K][N]: ldmatrix.trans, m16n8k16, f16 output
module attributes {hodu.model_name = "f16_kn"} {
  func.func @main(%a: tensor<256x64xf16> {hodu.name = "a"}, %b: tensor<64x128xf16> {hodu.name = "b"}) -> (tensor<256x128xf16> {hodu.name = "c"}) {
    %zero = arith.constant 0.0 : f16
    %e = tensor.empty() : tensor<256x128xf16>
    %init = linalg.fill ins(%zero : f16) outs(%e : tensor<256x128xf16>) -> tensor<256x128xf16>
    %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                          iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%a, %b : tensor<256x64xf16>, tensor<64x128xf16>) outs(%init : tensor<256x128xf16>) {
    ^bb0(%x: f16, %y: f16, %acc: f16):
      %p = arith.mulf %x, %y : f16
      %s = arith.addf %acc, %p : f16
      linalg.yield %s : f16
    } -> tensor<256x128xf16>
    return %mm : tensor<256x128xf16>
  }
}
