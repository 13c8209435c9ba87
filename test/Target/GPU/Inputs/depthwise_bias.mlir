// A 3x3 depthwise convolution (16 channels on 16x16, padded by 1) with a
// bias and a ReLU, as the ONNX importer writes a grouped Conv: the input
// seen as [N, groups, channels per group, H, W], the result collapsed back
// to [N, C, H, W] before the bias (a [C][1][1] constant read at (c, 0, 0)).
module attributes {hodu.model_name = "depthwise_bias"} {
  func.func @main(%x: tensor<1x16x16x16xf32> {hodu.name = "x"}, %w: tensor<16x1x1x3x3xf32> {hodu.name = "w"}, %b: tensor<16x1x1xf32> {hodu.name = "b"}) -> (tensor<1x16x16x16xf32> {hodu.name = "y"}) {
    %zero = arith.constant 0.0 : f32
    %xe = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 16, 1, 16, 16] : tensor<1x16x16x16xf32> into tensor<1x16x1x16x16xf32>
    %p = tensor.pad %xe low[0, 0, 0, 1, 1] high[0, 0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
      tensor.yield %zero : f32
    } : tensor<1x16x1x16x16xf32> to tensor<1x16x1x18x18xf32>
    %e = tensor.empty() : tensor<1x16x1x16x16xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x1x16x16xf32>) -> tensor<1x16x1x16x16xf32>
    %c = linalg.generic {indexing_maps = [affine_map<(n, g, m, h, w, c, kh, kw) -> (n, g, c, h + kh, w + kw)>, affine_map<(n, g, m, h, w, c, kh, kw) -> (g, m, c, kh, kw)>, affine_map<(n, g, m, h, w, c, kh, kw) -> (n, g, m, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w : tensor<1x16x1x18x18xf32>, tensor<16x1x1x3x3xf32>) outs(%init : tensor<1x16x1x16x16xf32>) {
    ^bb0(%a: f32, %f: f32, %o: f32):
      %m = arith.mulf %a, %f : f32
      %s = arith.addf %o, %m : f32
      linalg.yield %s : f32
    } -> tensor<1x16x1x16x16xf32>
    %col = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<1x16x1x16x16xf32> into tensor<1x16x16x16xf32>
    %e2 = tensor.empty() : tensor<1x16x16x16xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%col, %b : tensor<1x16x16x16xf32>, tensor<16x1x1xf32>) outs(%e2 : tensor<1x16x16x16xf32>) {
    ^bb0(%a: f32, %bb: f32, %o: f32):
      %s = arith.addf %a, %bb : f32
      %z = arith.maximumf %s, %zero : f32
      linalg.yield %z : f32
    } -> tensor<1x16x16x16xf32>
    return %r : tensor<1x16x16x16xf32>
  }
}
