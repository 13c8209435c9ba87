// erf(a) over f32[256]: an elementwise kernel whose maths comes from the
// device libraries on AMD GPUs (ocml's erf).
module attributes {hodu.model_name = "erf"} {
  func.func @main(%a: tensor<256xf32> {hodu.name = "a"}) -> (tensor<256xf32> {hodu.name = "y"}) {
    %e = tensor.empty() : tensor<256xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                         iterator_types = ["parallel"]}
         ins(%a : tensor<256xf32>) outs(%e : tensor<256xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.erf %x : f32
      linalg.yield %y : f32
    } -> tensor<256xf32>
    return %r : tensor<256xf32>
  }
}
