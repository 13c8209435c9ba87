// relu(a @ b + bias) over f32[1024x1024] x f32[1024x1024]: a matmul with a fused
// fill and an elementwise epilogue.
module attributes {hodu.model_name = "mm1024"} {
  func.func @main(%a: tensor<1024x1024xf32> {hodu.name = "a"}, %b: tensor<1024x1024xf32> {hodu.name = "b"},
                  %bias: tensor<1024xf32> {hodu.name = "bias"}) -> (tensor<1024x1024xf32> {hodu.name = "y"}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1024x1024xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    %mm = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%init : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
         ins(%bias, %mm : tensor<1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
    ^bb0(%x: f32, %c: f32, %o: f32):
      %s = arith.addf %c, %x : f32
      %m = arith.maximumf %s, %zero : f32
      linalg.yield %m : f32
    } -> tensor<1024x1024xf32>
    return %r : tensor<1024x1024xf32>
  }
}
