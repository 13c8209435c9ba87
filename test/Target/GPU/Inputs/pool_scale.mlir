// A 3x3 max pooling of stride 1 (16 channels on 18x18, no padding) whose
// result an elementwise op scales and shifts: the pooling is the
// elementwise op's producer, computed by the same threads.
module attributes {hodu.model_name = "pool_scale"} {
  func.func @main(%x: tensor<1x16x18x18xf32> {hodu.name = "x"}) -> (tensor<1x16x16x16xf32> {hodu.name = "y"}) {
    %lowest = arith.constant -3.40282347E+38 : f32
    %half = arith.constant 0.5 : f32
    %window = tensor.empty() : tensor<3x3xf32>
    %e = tensor.empty() : tensor<1x16x16x16xf32>
    %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
    %p = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
         ins(%x, %window : tensor<1x16x18x18xf32>, tensor<3x3xf32>) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
    %e2 = tensor.empty() : tensor<1x16x16x16xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x16x16x16xf32>) outs(%e2 : tensor<1x16x16x16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %half : f32
      %s = arith.addf %m, %half : f32
      linalg.yield %s : f32
    } -> tensor<1x16x16x16xf32>
    return %r : tensor<1x16x16x16xf32>
  }
}
