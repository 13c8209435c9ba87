// bf16 C = A B: nvvm.mma.sync bf16
module attributes {hodu.model_name = "bf16_kn"} {
  func.func @main(%a: tensor<256x64xbf16> {hodu.name = "a"}, %b: tensor<64x128xbf16> {hodu.name = "b"}) -> (tensor<256x128xbf16> {hodu.name = "c"}) {
    %zero = arith.constant 0.0 : bf16
    %e = tensor.empty() : tensor<256x128xbf16>
    %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<256x128xbf16>) -> tensor<256x128xbf16>
    %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                          iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%a, %b : tensor<256x64xbf16>, tensor<64x128xbf16>) outs(%init : tensor<256x128xbf16>) {
    ^bb0(%x: bf16, %y: bf16, %acc: bf16):
      %p = arith.mulf %x, %y : bf16
      %s = arith.addf %acc, %p : bf16
      linalg.yield %s : bf16
    } -> tensor<256x128xbf16>
    return %mm : tensor<256x128xbf16>
  }
}
