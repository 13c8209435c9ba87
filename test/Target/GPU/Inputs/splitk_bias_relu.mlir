// relu(a @ b + bias) over f32[64x2048] x f32[2048x96]: a long K and few
// output tiles (2 x 3 of 32x32), which split-K spreads over more blocks.
module attributes {hodu.model_name = "splitk"} {
  func.func @main(%a: tensor<64x2048xf32> {hodu.name = "a"}, %b: tensor<2048x96xf32> {hodu.name = "b"},
                  %bias: tensor<96xf32> {hodu.name = "bias"}) -> (tensor<64x96xf32> {hodu.name = "y"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x96xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
    %mm = linalg.matmul ins(%a, %b : tensor<64x2048xf32>, tensor<2048x96xf32>) outs(%init : tensor<64x96xf32>) -> tensor<64x96xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
         ins(%bias, %mm : tensor<96xf32>, tensor<64x96xf32>) outs(%e : tensor<64x96xf32>) {
    ^bb0(%x: f32, %c: f32, %o: f32):
      %s = arith.addf %c, %x : f32
      %m = arith.maximumf %s, %zero : f32
      linalg.yield %m : f32
    } -> tensor<64x96xf32>
    return %r : tensor<64x96xf32>
  }
}
