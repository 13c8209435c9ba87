// f16 inputs, f32 output (widening body), B stored [N][K]
module attributes {hodu.model_name = "f16_nk_f32"} {
  func.func @main(%a: tensor<128x64xf16> {hodu.name = "a"}, %b: tensor<256x64xf16> {hodu.name = "b"}) -> (tensor<128x256xf32> {hodu.name = "c"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x256xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
    %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                          iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%a, %b : tensor<128x64xf16>, tensor<256x64xf16>) outs(%init : tensor<128x256xf32>) {
    ^bb0(%x: f16, %y: f16, %acc: f32):
      %xa = arith.extf %x : f16 to f32
      %xb = arith.extf %y : f16 to f32
      %p = arith.mulf %xa, %xb : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<128x256xf32>
    return %mm : tensor<128x256xf32>
  }
}
